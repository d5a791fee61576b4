"""How a batch's jobs are ordered: tasks in chunks (their references first, then their
pairs, each stored as it finishes), sequentially or pipelined on a thread pool.
"""

from __future__ import annotations

import pickle
from collections.abc import Callable, Iterable
from concurrent.futures import FIRST_COMPLETED, wait
from typing import Any

from .. import semantics as S
from .fuzz_jobs import Parts, pair_job, ref_job, ref_run_job, run_part_job
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

    def submit_pairs(self, ex: Any, st: Any, settings_d: S.SettingsDict, network: str | None, bar: Any,
                     split: bool = False) -> list[Any]:
        """One job per pair; with ``split``, one job per run of a generator pair (its runs are
        independent), so that the runs of a slow pair spread over the pool's threads."""
        futs = []
        for j in self.jobs:
            if j.ref_key in self.ref_errors:
                st.put(j.key, j.id, {"df_score": None, "error": self.ref_errors[j.ref_key], "settings": settings_d,
                                     "engine_version": S.ENGINE_VERSION, "base_seed": j.seed})
                bar.update(1)
                continue
            blobs = self.ref_blobs.get(j.ref_key)
            if split and j.generator is not None:
                futs += [ex.submit(run_part_job, j, r, settings_d, network, blobs)
                         for r in range(int(settings_d["runs"]))]
            else:
                futs.append(ex.submit(pair_job, j, settings_d, network, blobs))
        return futs


def run_chunks(chunks: list[list[PairJob]], ex: Any, completed: Callable[[list[Any]], Iterable[Any]], refs: Any,
                st: Any, settings_d: S.SettingsDict, network: str | None, ref_bar: Any, bar: Any) -> None:
    """Chunk by chunk: its references (phase 1), then its pairs (phase 2, each stored as it
    finishes). Sequential executors (``--jobs 1``, Dask) run the phases one after the other."""
    names = {j.key: j.id for c in chunks for j in c}
    for jobs in chunks:
        c = Chunk(jobs, refs)
        for f in completed([ex.submit(ref_job, j, settings_d, network) for j in c.missing]):
            c.ref_done(f.result(), refs)
            ref_bar.update(1)
        for f in completed(c.submit_pairs(ex, st, settings_d, network, bar)):
            key, result = f.result()
            st.put(key, names[key], result)
            bar.update(1)


def run_chunks_pipelined(chunks: list[list[PairJob]], ex: Any, refs: Any, st: Any, settings_d: S.SettingsDict,
                          network: str | None, ref_bar: Any, bar: Any) -> None:
    """Like :func:`_run_chunks` on a thread pool, but chunk k+1's references (input generation
    holds the GIL) are computed while chunk k's pairs run in their sandboxed workers, and no
    chunk waits for the previous chunk's pairs to finish: only for its own references. A
    generated task's reference runs are jobs of their own (:func:`_ref_run_job`), like its
    pairs' runs."""
    names = {j.key: j.id for c in chunks for j in c}
    pair_futs: set[Any] = set()
    parts = Parts(int(settings_d["runs"]))

    def harvest(done: set[Any]) -> None:
        for f in done:
            got = f.result()
            key, result = (got[0], parts.add(*got)) if len(got) == 3 else got
            if result is not None:
                st.put(key, names[key], result)
                bar.update(1)

    runs = int(settings_d["runs"])

    def submit_refs(c: Chunk) -> set[Any]:
        """One job per task with explicit inputs, one per run of a generated task."""
        futs = set()
        for j in c.missing:
            if j.generator is None:
                futs.add(ex.submit(ref_job, j, settings_d, network))
            else:
                futs |= {ex.submit(ref_run_job, j, r, settings_d, network, refs) for r in range(runs)}
        return futs

    cur = Chunk(chunks[0], refs)
    ref_futs = submit_refs(cur)
    for k in range(len(chunks)):
        while ref_futs:  # wait for this chunk's references, storing finished pairs meanwhile
            done, _ = wait(ref_futs | pair_futs, return_when=FIRST_COMPLETED)
            for f in done & ref_futs:
                if cur.ref_done(f.result(), refs, runs):
                    ref_bar.update(1)
            ref_futs -= done
            harvest(done & pair_futs)
            pair_futs -= done
        nxt = Chunk(chunks[k + 1], refs) if k + 1 < len(chunks) else None
        if nxt is not None:  # queued ahead of this chunk's pairs: overlaps them
            ref_futs = submit_refs(nxt)
        pair_futs |= set(cur.submit_pairs(ex, st, settings_d, network, bar, split=True))
        cur = nxt  # type: ignore[assignment]
    while pair_futs:
        done, pair_futs = wait(pair_futs, return_when=FIRST_COMPLETED)
        harvest(done)
