"""Many pairs: resolve rows, validate everything up front, fuzz with J local threads (each
driving one pair's sandboxed workers through the shared fork-server) or on a Dask cluster,
commit each pair to the store as it finishes, write RESULTS.jsonl at the end.

Rows (JSON Lines) come in two shapes:

- explicit: ``id``, ``reference`` (code) or ``reference_file``, ``variant`` or
  ``variant_file``, ``entry`` (function) or ``"stdin": true`` (program), ``inputs`` (a list) or
  ``inputs_file`` (JSONL, one input per line); optional ``n`` and ``seed``. Relative files are
  resolved against the directory of the pairs file.
- published LoCaL: ``id``, ``golden_code``, ``generated_code``. The task, entry point and
  inputs are resolved from the id by a *resolver* (``register_resolver``), which the
  input-constraints module provides. Without one, such rows fail with a ``UserError`` naming
  the id.

A resolver is ``fn(row) -> dict | None`` returning ``{"entry": NAME}`` or ``{"stdin": True}``
plus ``{"inputs": [...]}`` or ``{"generator": gen, "n": N}`` (``gen(seed, n) -> list``; it
must be a picklable top-level callable to run on Dask). Returning ``None`` means
"not mine"; raising ``KeyError``/``LookupError`` means "unknown task id".
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import pickle
import sys
from collections.abc import Callable, Iterable, MutableMapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .. import cache
from ..errors import UserError
from ..io import read_jsonl, write_jsonl
from . import semantics as S
from .algorithm import (InputSet, PairResult, check_code, check_inputs, code_digest, compute_reference, fuzz_pair,
                        inputs_digest, merge_runs, reference_key)
from .sandbox import CodeSpec

Resolver = Callable[[dict[str, Any]], "dict[str, Any] | None"]
_RESOLVERS: list[Resolver] = []


def register_resolver(fn: Resolver) -> Resolver:
    """Register a resolver for published-format rows (usable as a decorator)."""
    if fn not in _RESOLVERS:
        _RESOLVERS.append(fn)
    return fn


def clear_resolvers() -> None:
    _RESOLVERS.clear()


def load_resolver(spec: str) -> None:
    """``module:function`` -> registered (used by ``--resolver`` and ``LCL_FUZZ_RESOLVER``)."""
    mod, _, name = spec.partition(":")
    try:
        m = importlib.import_module(mod)
    except ImportError as exc:
        raise UserError(f"--resolver {spec}: cannot import {mod} ({exc})") from None
    if name:
        fn = getattr(m, name, None)
        if not callable(fn):
            raise UserError(f"--resolver {spec}: {mod} has no callable {name}")
        register_resolver(fn)


@dataclass
class PairJob:
    id: str
    reference: str
    variant: str
    entry: str | None
    stdin: bool
    inputs: list[Any] | None
    generator: Any
    n: int | None
    seed: int
    key: str = ""
    ref_key: str = ""
    inputs_hash: str | None = None
    error: str | None = None  # published rows whose code cannot be fuzzed: recorded, not fatal
    legacy_keys: tuple[str, ...] = ()  # the same pair's keys under engine versions it may carry over from

    @property
    def level(self) -> str:
        return "program" if self.stdin else "function"


def _read_code(row: dict[str, Any], field: str, base: Path, rid: str) -> str:
    if isinstance(row.get(field), str):
        return row[field]
    f = row.get(f"{field}_file")
    if isinstance(f, str):
        p = (base / f) if not os.path.isabs(f) else Path(f)
        try:
            return p.read_text(encoding="utf-8")
        except OSError as exc:
            raise UserError(f"pair {rid}: cannot read {field}_file {p}: {exc.strerror}") from None
    raise UserError(f"pair {rid}: missing '{field}' (code) or '{field}_file'")


def _read_rows(p: Path, what: str) -> list[Any]:
    """JSON Lines, or a ``UserError`` naming the file when it is missing, not a file, not
    UTF-8 text or malformed."""
    try:
        return read_jsonl(p)
    except FileNotFoundError:
        raise UserError(f"{p}: {what} file not found") from None
    except IsADirectoryError:
        raise UserError(f"{p}: {what} file expected, found a directory") from None
    except UnicodeDecodeError as exc:
        raise UserError(f"{p}: {what} file is not UTF-8 text (byte {exc.start}: {exc.reason})") from None
    except ValueError as exc:
        raise UserError(str(exc)) from None
    except OSError as exc:
        raise UserError(f"{p}: cannot read the {what} file ({exc.strerror or exc})") from None


def _int_field(row: dict[str, Any], field: str, rid: str, default: int | None, minimum: int | None = None) -> int | None:
    """An integer field of a pairs-file row (JSON numbers only: ``"3"`` is refused, not guessed)."""
    v = row.get(field, default)
    if v is None:
        return None
    if not isinstance(v, int) or isinstance(v, bool):
        raise UserError(f"pair {rid}: '{field}' must be an integer, got {json.dumps(v)[:40]}")
    if minimum is not None and v < minimum:
        raise UserError(f"pair {rid}: '{field}' must be at least {minimum}, got {v}")
    return v


def read_inputs_file(path: str | Path, *, level: str) -> list[Any]:
    """INPUTS.jsonl: one JSON list of positional arguments (functions) or one JSON string of
    stdin (programs) per line. Empty or malformed files raise ``UserError``."""
    p = Path(path)
    rows = _read_rows(p, "inputs")
    if not rows:
        raise UserError(f"{p}: empty inputs file (expected one JSON value per line)")
    return check_inputs(rows, level=level, source=str(p))


def resolve_row(row: dict[str, Any], base: Path, default_seed: int,
                files: dict[tuple[str, str], InputSet] | None = None) -> PairJob:
    """One pairs-file row -> a job. ``files``: inputs files already read in this batch, by
    (resolved path, level): rows naming the same file share one :class:`InputSet` (read,
    digested and pickled once; their task's reference runs once)."""
    if not isinstance(row, dict):
        raise UserError(f"pairs file: every line must be a JSON object, got {str(row)[:60]!r}")
    rid = row.get("id")
    if rid is None or not isinstance(rid, (str, int)):
        raise UserError(f"pairs file: a row has no 'id': {str(row)[:80]!r}")
    rid = str(rid)
    seed = _int_field(row, "seed", rid, default_seed) or 0
    n = _int_field(row, "n", rid, None, 1)
    explicit = any(k in row for k in ("reference", "reference_file", "variant", "variant_file"))
    published = "golden_code" in row or "generated_code" in row
    if explicit or not published:
        ref = _read_code(row, "reference", base, rid)
        var = _read_code(row, "variant", base, rid)
        stdin = bool(row.get("stdin", False))
        entry = row.get("entry")
        level = "program" if stdin else "function"
        if "inputs" in row:
            inputs = check_inputs(row["inputs"], level=level, source=f"pair {rid}: inputs")
        elif isinstance(row.get("inputs_file"), str):
            f = row["inputs_file"]
            path = os.path.realpath(base / f if not os.path.isabs(f) else f)
            known = files.get((path, level)) if files is not None else None
            if known is None:
                known = InputSet(read_inputs_file(path, level=level))
                if files is not None:
                    files[(path, level)] = known
            return PairJob(rid, ref, var, entry, stdin, known, None, n, seed)
        else:
            raise UserError(f"pair {rid}: missing 'inputs' (a list) or 'inputs_file'")
        # an InputSet: the row's reference pass and its pair share one digest and one pickling
        return PairJob(rid, ref, var, entry, stdin, InputSet(inputs), None, n, seed)
    ref, var = row.get("golden_code"), row.get("generated_code")
    if not isinstance(ref, str) or not isinstance(var, str):
        raise UserError(f"pair {rid}: published rows need string 'golden_code' and 'generated_code'")
    if not _RESOLVERS:
        raise UserError(
            f"pair {rid}: published LoCaL row (golden_code/generated_code) but no input resolver is "
            "registered to find its task and input constraints; pass --resolver MODULE:FUNCTION "
            "(or set LCL_FUZZ_RESOLVER), or give explicit 'reference', 'variant', 'entry'|'stdin', 'inputs'"
        )
    spec = None
    for fn in _RESOLVERS:
        try:
            spec = fn(row)
        except (KeyError, LookupError) as exc:
            raise UserError(f"pair {rid}: unknown task id ({exc})") from None
        except UserError as exc:
            raise UserError(f"pair {rid}: {exc}") from None
        if spec is not None:
            break
    if spec is None:
        raise UserError(f"pair {rid}: unknown task id (no resolver recognises it)")
    stdin = bool(spec.get("stdin", False))
    level = "program" if stdin else "function"
    inputs = spec.get("inputs")
    if inputs is not None:
        inputs = check_inputs(inputs, level=level, source=f"pair {rid}: resolved inputs")
    elif spec.get("generator") is None:
        raise UserError(f"pair {rid}: the resolver returned neither inputs nor a generator")
    return PairJob(rid, ref, var, spec.get("entry"), stdin, inputs, spec.get("generator"),
                   spec.get("n", n), seed)


def _generator_name(gen: Any) -> str:
    return f"{getattr(gen, '__module__', '?')}.{getattr(gen, '__qualname__', repr(gen))}"


class _GeneratorMemo:
    """Generated input sets shared by the pairs of a batch (a task's reference and all its
    variants use the same ``gen(seed, n)`` per run): each set is generated once, not once per
    pair, by the first thread asking for it (the others wait for it). A small LRU: pairs of
    one task are adjacent in a batch."""

    def __init__(self, size: int) -> None:
        import threading
        from collections import OrderedDict

        self.size, self.items, self.lock = size, OrderedDict(), threading.Lock()

    def get(self, key: tuple[Any, ...], make: Callable[[], list[Any]]) -> InputSet:
        from concurrent.futures import Future

        with self.lock:
            fut = self.items.get(key)
            mine = fut is None
            if mine:
                fut = self.items[key] = Future()
                while len(self.items) > self.size:
                    self.items.popitem(last=False)
            else:
                self.items.move_to_end(key)
        if mine:
            try:
                fut.set_result(InputSet(make()))
            except BaseException as exc:
                fut.set_exception(exc)
                with self.lock:
                    if self.items.get(key) is fut:
                        del self.items[key]
                raise
        return fut.result()


def _generate(gen: Any, seed: int, n: int) -> list[Any]:
    return list(gen(seed, n))


class _GenerationProcess:
    """Input generation in one spawned helper process, so that on a thread pool it runs on
    its own core instead of holding the harness's GIL while the other threads' sandboxed
    workers wait for their next request. Started on first use, shut down with the batch;
    a generator that cannot be pickled (a lambda, a closure) is run in-process instead."""

    def __init__(self) -> None:
        self.pool: Any = None
        self.failed = False

    def generate(self, gen: Any, seed: int, n: int) -> list[Any]:
        if not self.failed:
            try:
                if self.pool is None:
                    import multiprocessing
                    from concurrent.futures import ProcessPoolExecutor

                    self.pool = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"))
                return self.pool.submit(_generate, gen, seed, n).result()
            except (pickle.PicklingError, AttributeError, TypeError):
                self.failed = True
        return _generate(gen, seed, n)

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown(wait=True, cancel_futures=True)
            self.pool = None


class _SharedGenerator:
    """``gen`` whose outputs come from a :class:`_GeneratorMemo` (same name, so same cache keys)."""

    def __init__(self, gen: Any, memo: _GeneratorMemo, process: _GenerationProcess | None = None) -> None:
        self.gen, self.memo = gen, memo
        self.make = process.generate if process is not None else _generate
        self.name = _generator_name(gen)
        self.__qualname__ = getattr(gen, "__qualname__", repr(gen))
        self.__module__ = getattr(gen, "__module__", "?")

    def __call__(self, seed: int, n: int) -> InputSet:
        return self.memo.get((self.name, int(seed), int(n)), lambda: self.make(self.gen, seed, n))


def share_generators(jobs: list[PairJob], runs: int, parallel: int,
                     process: _GenerationProcess | None = None) -> _GeneratorMemo:
    """Wrap every job's generator so a task's input sets are generated once per batch (in
    ``process`` when given)."""
    memo = _GeneratorMemo(size=runs * CHUNK_TASKS * (3 + max(1, parallel)))
    for j in jobs:
        if j.generator is not None and not isinstance(j.generator, _SharedGenerator):
            j.generator = _SharedGenerator(j.generator, memo, process)
    return memo


def job_keys(job: PairJob, settings: S.Settings) -> None:
    if job.inputs is not None:
        job.inputs_hash = (job.inputs.inputs_digest() if job.n is None and isinstance(job.inputs, InputSet)
                           else inputs_digest(job.inputs if job.n is None else job.inputs[: job.n]))
        inputs_part: Any = job.inputs_hash
    else:
        inputs_part = ["generator", _generator_name(job.generator), job.n]
    def result_key(version: str) -> str:
        return cache.key("lcl-fuzz-result", version, job.level, job.entry, code_digest(job.reference),
                         code_digest(job.variant), inputs_part, job.seed, settings.result_relevant())

    job.key = result_key(S.ENGINE_VERSION)
    job.legacy_keys = tuple(result_key(v) for v in S.CARRY_OVER)
    # one reference computation per task, inputs (or generator, seed and n) and settings
    job.ref_key = cache.key("lcl-fuzz-ref", S.ENGINE_VERSION, job.level, job.entry, code_digest(job.reference),
                            inputs_part, None if job.inputs is not None else job.seed, settings.result_relevant())


def load_jobs(rows: Iterable[dict[str, Any]], base: Path, settings: S.Settings, seed: int,
              keep_going: bool = False) -> list[PairJob]:
    """Resolve and check every row. Published-format rows that cannot be fuzzed (unknown task,
    code that does not compile) are errors; with ``keep_going`` they become error rows in the
    results instead (nothing is dropped), otherwise all of them are reported at once."""
    jobs: list[PairJob] = []
    seen: set[str] = set()
    dup: dict[str, int] = {}
    files: dict[tuple[str, str], InputSet] = {}
    for row in rows:
        published = isinstance(row, dict) and ("golden_code" in row or "generated_code" in row)
        try:
            job = resolve_row(row, base, seed, files)
        except UserError as exc:
            if not published or not isinstance(row.get("id"), (str, int)):
                raise
            # e.g. a task whose reference does not compile here: an error row, not a dead batch
            job = PairJob(str(row["id"]), str(row.get("golden_code")), str(row.get("generated_code")), None, False,
                          None, None, None, seed, error=str(exc).splitlines()[0])
        if job.id in seen:
            if not ("golden_code" in row or "generated_code" in row):
                raise UserError(f"pair {job.id}: duplicate id in the pairs file")
            # the published LoCaL release repeats some ids: keep every row, as id#2, id#3, ...
            dup[job.id] = dup.get(job.id, 1) + 1
            job.id = f"{job.id}#{dup[job.id]}"
        seen.add(job.id)
        if job.error is not None:
            job.key = job.ref_key = cache.key("lcl-fuzz-error", job.id, job.error)
            jobs.append(job)
            continue
        try:
            check_code(job.reference, level=job.level, entry=job.entry, side="reference", label=f"pair {job.id}")
            check_code(job.variant, level=job.level, entry=job.entry, side="variant", label=f"pair {job.id}")
        except UserError as exc:
            if not (published or keep_going):
                raise
            # a published file is accepted as it is, and so is an explicit one under
            # keep_going: its broken rows become error rows
            job.error = str(exc).splitlines()[0]
        if job.n is not None and job.inputs is not None and not (1 <= int(job.n) <= len(job.inputs)):
            raise UserError(f"pair {job.id}: n={job.n} must be between 1 and the number of inputs ({len(job.inputs)})")
        job_keys(job, settings)
        jobs.append(job)
    if not jobs:
        raise UserError("pairs file: no pairs")
    bad = [j for j in jobs if j.error is not None]
    if bad and not keep_going:
        listed = "\n  ".join(f"{j.id}: {j.error}" for j in bad[:20])
        more = f"\n  ... and {len(bad) - 20} more" if len(bad) > 20 else ""
        raise UserError(f"{len(bad)} pair(s) cannot be fuzzed (nothing was run; pass --keep-going to record "
                        f"them as error rows and fuzz the rest):\n  {listed}{more}")
    return jobs


# ------------------------------------------------------------------------- job functions
def _ref_job(job: PairJob, settings: dict[str, Any], network: str | None) -> tuple[str, dict[str, bytes] | str]:
    """Reference outcomes of one task for every input set its runs use (one for explicit
    inputs, one per run for a generator). Runs in a local thread or on a Dask worker."""
    s = S.Settings.from_dict(settings)
    spec = CodeSpec(job.level, job.reference, job.entry, "reference.py")
    cache_: dict[str, bytes] = {}
    try:
        if job.inputs is not None:
            items = job.inputs if job.n is None else job.inputs[: job.n]
            compute_reference(spec, items, s, network=network, ref_cache=cache_, label=f"pair {job.id}",
                              inputs_hash=job.inputs_hash, stop_over_budget=True)
        else:
            for r in range(s.runs):
                key, blob = _reference_run(job, r, s, network, None)
                cache_[key] = blob
    except UserError as exc:
        return job.ref_key, str(exc)
    return job.ref_key, cache_


def _reference_run(job: PairJob, run: int, s: S.Settings, network: str | None,
                   refs: MutableMapping[str, bytes] | None) -> tuple[str, bytes]:
    """(reference key, outcomes) of run ``run`` of a generated task; ``refs`` (the store's
    reference table), when given, is consulted and filled under that per-run key."""
    spec = CodeSpec(job.level, job.reference, job.entry, "reference.py")
    raw = job.generator(S.derive_seed(job.seed, run), job.n or s.n_default(job.level))
    items = check_inputs(list(raw), level=job.level, source=f"pair {job.id}: generator")
    known = raw if isinstance(raw, InputSet) else None
    digest = known.inputs_digest() if known is not None else inputs_digest(items)
    key = reference_key(spec, items, s, digest)
    blob = refs.get(key) if refs is not None else None
    if blob is None:
        blob = compute_reference(spec, items, s, network=network, label=f"pair {job.id}", inputs_hash=digest,
                                 stop_over_budget=True,
                                 blobs=known.blobs.get(job.level) if known is not None else None).to_blob()
        if refs is not None:
            refs[key] = blob
    return key, blob


def _ref_run_job(job: PairJob, run: int, settings: dict[str, Any], network: str | None,
                 refs: MutableMapping[str, bytes] | None) -> tuple[str, int, dict[str, bytes] | str]:
    """Reference outcomes of run ``run`` of a generated task -> (task's ref key, run, ``{run's
    reference key: outcomes}`` or an error). One thread-pool job per run, so that the runs of a
    slow reference spread over the threads like the runs of its pairs do.

    ``refs`` is consulted and filled per run: a run's outcomes depend on its inputs and the
    reference settings, not on R, so a run shared by two labels that differ only in R (the RQ2
    screen at R = 1, then the full label) runs the reference once."""
    try:
        key, blob = _reference_run(job, run, S.Settings.from_dict(settings), network, refs)
    except UserError as exc:
        return job.ref_key, run, str(exc)
    return job.ref_key, run, {key: blob}


def _pair_job(job: PairJob, settings: dict[str, Any], network: str | None,
              ref_blobs: dict[str, bytes] | None) -> tuple[str, dict[str, Any]]:
    """One pair -> (key, deterministic result dict)."""
    s = S.Settings.from_dict(settings)
    cache_: dict[str, bytes] = dict(ref_blobs or {})
    try:
        res = fuzz_pair(job.reference, job.variant, entry=job.entry, stdin=job.stdin, inputs=job.inputs,
                        generator=job.generator, n=job.n, seed=job.seed, settings=s, network=network,
                        ref_cache=cache_, label=f"pair {job.id}",
                        inputs_hash=job.inputs_hash if job.inputs is not None else None)
        out = res.to_dict()
        out["error"] = None
    except UserError as exc:
        out = _error_result(s, job, str(exc))
    return job.key, out


def _error_result(s: S.Settings, job: PairJob, msg: str) -> dict[str, Any]:
    return {"df_score": None, "error": msg, "settings": s.to_dict(), "engine_version": S.ENGINE_VERSION,
            "base_seed": job.seed}


def _run_part_job(job: PairJob, run: int, settings: dict[str, Any], network: str | None,
                  ref_blobs: dict[str, bytes] | None) -> tuple[str, int, PairResult | dict[str, Any]]:
    """Run ``run`` of a generator pair -> (key, run, its one-run result, or an error dict)."""
    s = S.Settings.from_dict(settings)
    try:
        return job.key, run, fuzz_pair(job.reference, job.variant, entry=job.entry, stdin=job.stdin,
                                       generator=job.generator, n=job.n, seed=job.seed, settings=s, network=network,
                                       ref_cache=dict(ref_blobs or {}), label=f"pair {job.id}", only_runs=[run])
    except UserError as exc:
        return job.key, run, _error_result(s, job, str(exc))


class _Parts:
    """Collects the one-run parts of split pairs; a pair is complete when all its runs are."""

    def __init__(self, runs: int) -> None:
        self.runs = runs
        self.got: dict[str, dict[int, Any]] = {}

    def add(self, key: str, run: int, part: PairResult | dict[str, Any]) -> dict[str, Any] | None:
        have = self.got.setdefault(key, {})
        have[run] = part
        if len(have) < self.runs:
            return None
        del self.got[key]
        errors = [have[r] for r in sorted(have) if isinstance(have[r], dict)]
        if errors:  # the error of the first failing run, as running the runs in order raises it
            return errors[0]
        out = merge_runs(list(have.values())).to_dict()
        out["error"] = None
        return out


# ------------------------------------------------------------------------- executors
class _Lazy:
    """A job of the in-process executor: runs when its result is asked for, so finished pairs
    reach the store one by one (and ``kill -9`` loses only the pair that was running)."""

    def __init__(self, fn: Callable[..., Any], args: tuple) -> None:
        self.fn, self.args = fn, args

    def result(self) -> Any:
        return self.fn(*self.args)


class _Inline:
    def submit(self, fn: Callable[..., Any], *args: Any) -> _Lazy:
        return _Lazy(fn, args)


def _in_order(futs: list[Any]) -> Iterable[Any]:
    return iter(futs)


def _as_completed_local(futs: list[Any]) -> Iterable[Any]:
    from concurrent.futures import as_completed

    return as_completed(futs)


@contextlib.contextmanager
def _executor(jobs: int, scheduler: str | None):
    if scheduler:
        try:
            from distributed import Client, as_completed
        except ImportError:  # pragma: no cover
            raise UserError("--scheduler needs dask[distributed]") from None
        try:
            client = Client(scheduler, timeout="30s")
        except (OSError, TimeoutError) as exc:
            raise UserError(f"--scheduler {scheduler}: cannot connect ({exc})") from None
        except (ValueError, TypeError) as exc:  # not an address at all
            raise UserError(f"--scheduler {scheduler}: not a scheduler address ({exc})") from None

        class _Dask:
            def submit(self, fn: Callable[..., Any], *args: Any) -> Any:
                return client.submit(fn, *args, pure=False)

        limit = float(os.environ.get("LCL_DASK_NO_WORKER_TIMEOUT") or NO_WORKER_TIMEOUT)
        try:
            yield _Dask(), lambda futs: dask_completed(as_completed(futs), lambda: _dask_workers(client), limit)
        finally:
            client.close()
    elif jobs <= 1:
        yield _Inline(), _in_order
    else:
        # Threads, not processes: the harness never runs user code and spends its time waiting
        # for its sandboxed workers (select releases the GIL), so J threads keep J pairs' workers
        # busy. A process pool would pay, per pool process, a Python start, the imports and a
        # fork-server of its own (about 0.5 s of CPU on the very cores the workers need).
        import threading
        from concurrent.futures import ThreadPoolExecutor

        from .sandbox import set_abort_event

        abort = threading.Event()
        pool = ThreadPoolExecutor(max_workers=jobs, thread_name_prefix="lcl-fuzz", initializer=set_abort_event,
                                  initargs=(abort,))
        try:
            yield pool, _as_completed_local
        except BaseException:
            abort.set()  # e.g. Ctrl-C: the pairs in flight stop within a poll interval
            raise
        finally:
            pool.shutdown(wait=True, cancel_futures=True)


#: seconds a Dask batch waits with no worker connected before it gives up (the pairs
#: finished so far are in the store; rerunning resumes)
NO_WORKER_TIMEOUT = 120.0


def _dask_workers(client: Any) -> int:
    try:
        return len(client.nthreads())
    except Exception:  # noqa: BLE001 - a lost scheduler counts as no worker
        return 0


def dask_completed(ac: Any, workers: Callable[[], int], limit: float, poll: float = 0.1,
                   check_every: float = 1.0) -> Iterable[Any]:
    """The futures of a ``distributed.as_completed`` as they finish, or a ``UserError`` once
    no worker has been connected for ``limit`` seconds (Dask would wait for one forever)."""
    import time

    lonely_since: float | None = None
    next_check = 0.0
    while not ac.is_empty():
        if ac.has_ready():
            yield from ac.next_batch(block=False)
            lonely_since = None
            continue
        now = time.monotonic()
        if now >= next_check:
            next_check = now + check_every
            if workers() > 0:
                lonely_since = None
            elif lonely_since is None:
                lonely_since = now
            elif now - lonely_since > limit:
                raise UserError(f"Dask: no worker connected for {limit:.0f} s, pairs still pending; the finished "
                                "pairs are kept in the store (rerun to resume)")
        time.sleep(poll)


def default_jobs() -> int:
    for var in ("JOBS", "LCL_JOBS"):
        v = os.environ.get(var)
        if v and v.isdigit() and int(v) > 0:
            return int(v)
    return 1


#: tasks per chunk of a local batch (their generated input sets are kept in memory meanwhile)
CHUNK_TASKS = 2


def _task_chunks(pending: list[PairJob], size: int) -> Iterable[list[PairJob]]:
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


class _Chunk:
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
            errors = [have[r] for r in sorted(have) if isinstance(have[r], str)]
            # as the runs in order would: the first failing run's error, else every run's outcomes
            value: Any = errors[0] if errors else {key: b for r in sorted(have) for key, b in have[r].items()}
        else:
            k, value = got
        if isinstance(value, str):
            self.ref_errors[k] = value
        else:
            self.ref_blobs[k] = value
            refs[k] = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
        return True

    def submit_pairs(self, ex: Any, st: Any, settings_d: dict[str, Any], network: str | None, bar: Any,
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
                futs += [ex.submit(_run_part_job, j, r, settings_d, network, blobs)
                         for r in range(int(settings_d["runs"]))]
            else:
                futs.append(ex.submit(_pair_job, j, settings_d, network, blobs))
        return futs


def _run_chunks(chunks: list[list[PairJob]], ex: Any, completed: Callable[[list[Any]], Iterable[Any]], refs: Any,
                st: Any, settings_d: dict[str, Any], network: str | None, ref_bar: Any, bar: Any) -> None:
    """Chunk by chunk: its references (phase 1), then its pairs (phase 2, each stored as it
    finishes). Sequential executors (``--jobs 1``, Dask) run the phases one after the other."""
    names = {j.key: j.id for c in chunks for j in c}
    for jobs in chunks:
        c = _Chunk(jobs, refs)
        for f in completed([ex.submit(_ref_job, j, settings_d, network) for j in c.missing]):
            c.ref_done(f.result(), refs)
            ref_bar.update(1)
        for f in completed(c.submit_pairs(ex, st, settings_d, network, bar)):
            key, result = f.result()
            st.put(key, names[key], result)
            bar.update(1)


def _run_chunks_pipelined(chunks: list[list[PairJob]], ex: Any, refs: Any, st: Any, settings_d: dict[str, Any],
                          network: str | None, ref_bar: Any, bar: Any) -> None:
    """Like :func:`_run_chunks` on a thread pool, but chunk k+1's references (input generation
    holds the GIL) are computed while chunk k's pairs run in their sandboxed workers, and no
    chunk waits for the previous chunk's pairs to finish: only for its own references. A
    generated task's reference runs are jobs of their own (:func:`_ref_run_job`), like its
    pairs' runs."""
    from concurrent.futures import FIRST_COMPLETED, wait

    names = {j.key: j.id for c in chunks for j in c}
    pair_futs: set[Any] = set()
    parts = _Parts(int(settings_d["runs"]))

    def harvest(done: set[Any]) -> None:
        for f in done:
            got = f.result()
            key, result = (got[0], parts.add(*got)) if len(got) == 3 else got
            if result is not None:
                st.put(key, names[key], result)
                bar.update(1)

    runs = int(settings_d["runs"])

    def submit_refs(c: _Chunk) -> set[Any]:
        """One job per task with explicit inputs, one per run of a generated task."""
        futs = set()
        for j in c.missing:
            if j.generator is None:
                futs.add(ex.submit(_ref_job, j, settings_d, network))
            else:
                futs |= {ex.submit(_ref_run_job, j, r, settings_d, network, refs) for r in range(runs)}
        return futs

    cur = _Chunk(chunks[0], refs)
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
        nxt = _Chunk(chunks[k + 1], refs) if k + 1 < len(chunks) else None
        if nxt is not None:  # queued ahead of this chunk's pairs: overlaps them
            ref_futs = submit_refs(nxt)
        pair_futs |= set(cur.submit_pairs(ex, st, settings_d, network, bar, split=True))
        cur = nxt  # type: ignore[assignment]
    while pair_futs:
        done, pair_futs = wait(pair_futs, return_when=FIRST_COMPLETED)
        harvest(done)


def _carryable(jobs: list[PairJob], st: Any) -> dict[str, tuple[PairJob, dict[str, Any]]]:
    """Current key -> (job, stored result of an older engine version that the current one would
    compute identically: :func:`lcl.fuzz.semantics.carries_over`)."""
    legacy = st.has_many([k for j in jobs for k in j.legacy_keys])
    found: dict[str, tuple[PairJob, dict[str, Any]]] = {}
    for j in jobs:
        for k in j.legacy_keys:
            old = st.get(k) if k in legacy else None
            if old is not None and S.carries_over(old):
                found[j.key] = (j, old)
                break
    return found


def carry_over(jobs: list[PairJob], st: Any) -> set[str]:
    """Store every carryable older result under its job's current key; those keys."""
    found = _carryable(jobs, st)
    for key, (j, old) in found.items():
        st.put(key, j.id, {**old, "engine_version": S.ENGINE_VERSION})
    return set(found)


def batch_status(pairs: list[dict[str, Any]], *, settings: S.Settings | None = None, seed: int = 0,
                 store: Any = None, base: str | Path | None = None) -> dict[str, bool | None]:
    """Which pairs of a batch already have a result in ``store``, without running anything:
    pair id -> True (stored), False (still to fuzz) or None (cannot be fuzzed: an error row).
    Same resolution and keys as :func:`run_batch`, so "stored" means run_batch will not fuzz it."""
    from .store import open_default

    s = settings or S.Settings()
    spec = os.environ.get("LCL_FUZZ_RESOLVER")
    if spec:
        load_resolver(spec)
    job_list = load_jobs(list(pairs), Path(base) if base else Path.cwd(), s, seed, keep_going=True)
    st = open_default() if store is None else store
    try:
        done = st.has_many([j.key for j in job_list if j.error is None])
        done |= set(_carryable([j for j in job_list if j.error is None and j.key not in done], st))
    finally:
        if store is None:
            st.close()
    return {j.id: (None if j.error is not None else j.key in done) for j in job_list}


def run_batch(pairs: str | Path | list[dict[str, Any]], out: str | Path | None = None, *,
              settings: S.Settings | None = None, seed: int = 0, jobs: int | None = None,
              scheduler: str | None = None, store: Any = None, network: str | None = None,
              progress: bool = True, base: str | Path | None = None,
              keep_going: bool = False) -> list[dict[str, Any]]:
    """Fuzz every pair; finished pairs come from / go to ``store`` (a :class:`ResultStore`).

    Returns the result rows in input order and, when ``out`` is given, writes them to ``out``
    atomically (one JSON object per line, sorted keys; byte-identical for identical inputs).
    """
    from tqdm.auto import tqdm

    from .store import open_default

    s = settings or S.Settings()
    if isinstance(pairs, (str, Path)):
        p = Path(pairs)
        rows = _read_rows(p, "pairs")
        base_dir = Path(base) if base else p.parent
    else:
        rows = list(pairs)
        base_dir = Path(base) if base else Path.cwd()
    spec = os.environ.get("LCL_FUZZ_RESOLVER")
    if spec:
        load_resolver(spec)
    job_list = load_jobs(rows, base_dir, s, seed, keep_going=keep_going)
    scheduler = scheduler or os.environ.get("LCL_DASK_SCHEDULER") or None
    jobs = jobs or default_jobs()
    # in-process executors share generated input sets (Dask jobs are pickled); a thread pool
    # generates them in a helper process
    gen_process = _GenerationProcess() if not scheduler and jobs > 1 else None
    if not scheduler:
        share_generators(job_list, s.runs, jobs, gen_process)
    own_store = store is None
    st = open_default() if own_store else store
    try:
        done = st.has_many([j.key for j in job_list if j.error is None])
        done |= carry_over([j for j in job_list if j.key not in done and j.error is None], st)
        pending = [j for j in job_list if j.key not in done and j.error is None]
        refs = st.refs()
        settings_d = s.to_dict()
        with _executor(jobs, scheduler) as (ex, completed):
            ref_bar = tqdm(total=len({j.ref_key for j in pending if j.ref_key not in refs}), desc="fuzz references",
                           unit="task", disable=not progress, file=sys.stderr)
            bar = tqdm(total=len(job_list), initial=len(job_list) - len(pending), desc="fuzz pairs", unit="pair",
                       disable=not progress, file=sys.stderr)
            # tasks in chunks (a few tasks' references, then their pairs), so a task's generated
            # input sets are still in the generator memo when its variants run
            if pending:
                chunks = list(_task_chunks(pending, CHUNK_TASKS if not scheduler else len(pending)))
                if scheduler or jobs <= 1:
                    _run_chunks(chunks, ex, completed, refs, st, settings_d, network, ref_bar, bar)
                else:
                    _run_chunks_pipelined(chunks, ex, refs, st, settings_d, network, ref_bar, bar)
            ref_bar.close()
            bar.close()
        results = []
        for j in job_list:
            if j.error is not None:
                results.append({"id": j.id, "key": j.key, "df_score": None, "error": j.error,
                                "engine_version": S.ENGINE_VERSION, "base_seed": j.seed})
                continue
            r = st.get(j.key)
            assert r is not None
            results.append({"id": j.id, "key": j.key, **r})
    finally:
        if gen_process is not None:
            gen_process.close()
        if own_store:
            st.close()
    if out is not None:
        write_jsonl(out, results)
    return results


def results_summary(results: list[dict[str, Any]]) -> dict[str, Any]:
    scores = [r["df_score"] for r in results if r.get("df_score") is not None]
    return {
        "pairs": len(results),
        "errors": sum(1 for r in results if r.get("error")),
        "all_runs_excluded": sum(1 for x in scores if x == -1),
        "mean_df_score": (sum(x for x in scores if x >= 0) / max(1, sum(1 for x in scores if x >= 0))) if scores else None,
    }


def dumps_last_line(obj: dict[str, Any]) -> str:
    return json.dumps(obj, sort_keys=True)
