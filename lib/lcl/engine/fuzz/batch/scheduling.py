"""How a batch's jobs are ordered: tasks in chunks (their references first, then their
pairs, each stored as it finishes), sequentially or pipelined on a thread pool.
"""

from __future__ import annotations

import pickle
from collections.abc import Callable, Iterable
from concurrent.futures import FIRST_COMPLETED, wait
from typing import Any

from lcl.core.errors import UserError

from .. import semantics as S
from ..sandbox import Aborted
from .fuzz_jobs import Parts, error_result, job_failure, pair_job, ref_job, ref_run_job, run_part_job
from .jobs import PairJob

#: tasks per chunk of a local batch (their generated input sets are kept in memory meanwhile)
CHUNK_TASKS = 2


def task_chunks(pending: list[PairJob], size: int) -> Iterable[list[PairJob]]:
    """``pending`` split into runs of consecutive jobs covering at most ``size`` reference keys
    (jobs keep their order; a key that reappears later joins the chunk it reappears in)."""
    chunk: list[PairJob] = []
    keys: set[str] = set()
    for j in pending:
        if j.ref_key not in keys and len(keys) >= size:
            yield chunk
            chunk, keys = [], set()
        keys.add(j.ref_key)
        chunk.append(j)
    if chunk:
        yield chunk


class Boundary:
    """The batch's half of the one boundary per job (``fuzz_jobs.guarded`` is the job's half):
    what a finished future hands back and what the store is asked to keep go through here, so
    that an exception raised outside a job (a Dask worker lost, a result the store refuses, parts
    that do not merge) is that pair's error row under ``keep_going`` and a one-line
    :class:`UserError` naming the pair otherwise."""

    def __init__(self, st: Any, settings_d: S.SettingsDict, keep_going: bool) -> None:
        self.st, self.settings_d, self.keep_going = st, settings_d, keep_going
        #: future -> (its job, the run it covers or None, whether it is a reference job)
        self.owner: dict[Any, tuple[PairJob, int | None, bool]] = {}

    def submit(self, ex: Any, job: PairJob, run: int | None, ref: bool, fn: Callable[..., Any], *args: Any) -> Any:
        fut = ex.submit(fn, *args, self.keep_going)
        self.owner[fut] = (job, run, ref)
        return fut

    def failed(self, job: PairJob, exc: BaseException) -> str:
        """The message of ``job``'s failure; raised (one line) unless the batch keeps going."""
        if isinstance(exc, Aborted):
            raise exc
        if isinstance(exc, UserError) and not self.keep_going:
            raise exc  # already one line naming the pair (the job's boundary)
        msg = str(exc) if isinstance(exc, UserError) else job_failure(job, exc)
        if not self.keep_going:
            raise UserError(msg) from None
        return msg

    def result(self, fut: Any) -> tuple[Any, ...]:
        """``fut.result()``, or the error its job would have returned had it failed inside."""
        job, run, ref = self.owner.pop(fut)
        try:
            return tuple(fut.result())
        except Exception as exc:  # noqa: BLE001 - the boundary (see the class)
            msg = self.failed(job, exc)
        if ref:
            return (job.ref_key, msg) if run is None else (job.ref_key, run, msg)
        row = error_result(self.settings_d, job, msg)
        return (job.key, row) if run is None else (job.key, run, row)

    def put(self, job: PairJob, result: S.FuzzResult) -> None:
        """Store ``job``'s result; one the store refuses is replaced by the pair's error row."""
        try:
            self.st.put(job.key, job.id, result)
        except Exception as exc:  # noqa: BLE001 - the boundary (see the class)
            if result.get("error") is not None:
                raise UserError(f"pair {job.id}: the result store failed ({type(exc).__name__}: {exc})") from None
            self.put(job, error_result(self.settings_d, job, self.failed(job, exc)))


class Chunk:
    """One chunk's reference step (phase 1) and pair step (phase 2)."""

    def __init__(self, jobs: list[PairJob], refs: Any) -> None:
        self.jobs = jobs
        need: dict[str, PairJob] = {}
        for j in jobs:
            need.setdefault(j.ref_key, j)
        self.ref_blobs: dict[str, dict[str, bytes]] = {}
        self.ref_errors: dict[str, str] = {}
        self.ref_parts: dict[str, dict[int, dict[str, bytes] | str]] = {}  # per-run reference jobs
        self.missing = []
        for k, j in need.items():
            blob = refs.get(k)
            if blob is None:
                self.missing.append(j)
            else:
                self.ref_blobs[k] = pickle.loads(blob)  # written by this module (below)

    def ref_done(self, got: tuple[Any, ...], refs: Any, runs: int = 1) -> bool:
        """Record a reference job's outcome: a task's ``(key, value)`` or one run's ``(key, run,
        value)`` of ``runs``; whether the task's reference step is now complete."""
        if len(got) == 3:
            k, run, part = got
            have = self.ref_parts.setdefault(k, {})
            have[run] = part
            if len(have) < runs:
                return False
            del self.ref_parts[k]
            in_order = [have[r] for r in sorted(have)]
            errors = [p for p in in_order if isinstance(p, str)]
            # as the runs in order would: the first failing run's error, else every run's outcomes
            value: Any = errors[0] if errors else {key: b for p in in_order if not isinstance(p, str)
                                                   for key, b in p.items()}
        else:
            k, value = got
        if isinstance(value, str):
            self.ref_errors[k] = value
        else:
            self.ref_blobs[k] = value
            refs[k] = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
        return True

    def submit_pairs(self, ex: Any, guard: Boundary, network: str | None, bar: Any,
                     split: bool = False) -> list[Any]:
        """One job per pair; with ``split``, one job per run of a generator pair (its runs are
        independent), so that the runs of a slow pair spread over the pool's threads."""
        futs = []
        settings_d = guard.settings_d
        for j in self.jobs:
            if j.ref_key in self.ref_errors:
                guard.put(j, error_result(settings_d, j, self.ref_errors[j.ref_key]))
                bar.update(1)
                continue
            blobs = self.ref_blobs.get(j.ref_key)
            if split and j.generator is not None:
                futs += [guard.submit(ex, j, r, False, run_part_job, j, r, settings_d, network, blobs)
                         for r in range(int(settings_d["runs"]))]
            else:
                futs.append(guard.submit(ex, j, None, False, pair_job, j, settings_d, network, blobs))
        return futs


def _ref_done(c: Chunk, guard: Boundary, got: tuple[Any, ...], refs: Any, runs: int = 1) -> bool:
    """``c.ref_done``, inside the boundary: a reference whose outcomes cannot be kept (the store
    refuses them) is its task's error, as a reference job's failure is."""
    try:
        return c.ref_done(got, refs, runs)
    except (Aborted, UserError):
        raise
    except Exception as exc:  # noqa: BLE001 - the boundary (see Boundary)
        job = next(j for j in c.jobs if j.ref_key == got[0])
        c.ref_parts.pop(got[0], None)
        c.ref_errors[got[0]] = guard.failed(job, exc)
        return True


def run_chunks(chunks: list[list[PairJob]], ex: Any, completed: Callable[[list[Any]], Iterable[Any]], refs: Any,
               st: Any, settings_d: S.SettingsDict, network: str | None, ref_bar: Any, bar: Any,
               keep_going: bool = False) -> None:
    """Chunk by chunk: its references (phase 1), then its pairs (phase 2, each stored as it
    finishes). Sequential executors (``--jobs 1``, Dask) run the phases one after the other."""
    by_key = {j.key: j for c in chunks for j in c}
    guard = Boundary(st, settings_d, keep_going)
    for jobs in chunks:
        c = Chunk(jobs, refs)
        for f in completed([guard.submit(ex, j, None, True, ref_job, j, settings_d, network) for j in c.missing]):
            _ref_done(c, guard, guard.result(f), refs)
            ref_bar.update(1)
        for f in completed(c.submit_pairs(ex, guard, network, bar)):
            key, result = guard.result(f)
            guard.put(by_key[key], result)
            bar.update(1)


def run_chunks_pipelined(chunks: list[list[PairJob]], ex: Any, refs: Any, st: Any, settings_d: S.SettingsDict,
                         network: str | None, ref_bar: Any, bar: Any, keep_going: bool = False) -> None:
    """Like :func:`run_chunks` on a thread pool, but chunk k+1's references (input generation
    holds the GIL) are computed while chunk k's pairs run in their sandboxed workers, and no
    chunk waits for the previous chunk's pairs to finish: only for its own references. A
    generated task's reference runs are jobs of their own (:func:`_ref_run_job`), like its
    pairs' runs."""
    by_key = {j.key: j for c in chunks for j in c}
    guard = Boundary(st, settings_d, keep_going)
    pair_futs: set[Any] = set()
    parts = Parts(int(settings_d["runs"]))

    def harvest(done: set[Any]) -> None:
        for f in done:
            got = guard.result(f)
            key = got[0]
            try:
                result = parts.add(*got) if len(got) == 3 else got[1]
            except Exception as exc:  # noqa: BLE001 - parts that do not merge: the pair's error (Boundary)
                parts.got.pop(key, None)
                result = error_result(settings_d, by_key[key], guard.failed(by_key[key], exc))
            if result is not None:
                guard.put(by_key[key], result)
                bar.update(1)

    runs = int(settings_d["runs"])

    def submit_refs(c: Chunk) -> set[Any]:
        """One job per task with explicit inputs, one per run of a generated task."""
        futs = set()
        for j in c.missing:
            if j.generator is None:
                futs.add(guard.submit(ex, j, None, True, ref_job, j, settings_d, network))
            else:
                futs |= {guard.submit(ex, j, r, True, ref_run_job, j, r, settings_d, network, refs)
                         for r in range(runs)}
        return futs

    cur = Chunk(chunks[0], refs)
    ref_futs = submit_refs(cur)
    for k in range(len(chunks)):
        while ref_futs:  # wait for this chunk's references, storing finished pairs meanwhile
            done, _ = wait(ref_futs | pair_futs, return_when=FIRST_COMPLETED)
            for f in done & ref_futs:
                if _ref_done(cur, guard, guard.result(f), refs, runs):
                    ref_bar.update(1)
            ref_futs -= done
            harvest(done & pair_futs)
            pair_futs -= done
        nxt = Chunk(chunks[k + 1], refs) if k + 1 < len(chunks) else None
        if nxt is not None:  # queued ahead of this chunk's pairs: overlaps them
            ref_futs = submit_refs(nxt)
        pair_futs |= set(cur.submit_pairs(ex, guard, network, bar, split=True))
        cur = nxt  # type: ignore[assignment]
    while pair_futs:
        done, pair_futs = wait(pair_futs, return_when=FIRST_COMPLETED)
        harvest(done)
