"""The functions one executor job runs (in a local thread or on a Dask worker, so top-level
and picklable): a task's reference outcomes, one pair, one run of a generator pair; and the
collector that merges a split pair's one-run parts.
"""

from __future__ import annotations

from collections.abc import Callable, MutableMapping
from typing import TypeVar

from lcl.core.errors import UserError

from .. import semantics as S
from ..algorithm import (
    InputSet,
    PairResult,
    check_inputs,
    compute_reference,
    fuzz_pair,
    inputs_digest,
    merge_runs,
    reference_key,
)
from ..sandbox import Aborted, CodeSpec, SandboxError
from .jobs import PairJob

_T = TypeVar("_T")

#: attempts of a job whose fork-server died under it (a fresh one starts on the next attempt)
SANDBOX_ATTEMPTS = 3


def _sandboxed(fn: Callable[[], _T]) -> _T:
    """``fn()``, again in a fresh fork-server when the sandbox itself failed (its fork-server
    died): such a failure says nothing about the code, so its outcome is never a score. After
    :data:`SANDBOX_ATTEMPTS` it is a :class:`UserError`, which the job turns into an error row."""
    for attempt in range(SANDBOX_ATTEMPTS):
        try:
            return fn()
        except Aborted:
            raise
        except SandboxError as exc:
            if attempt == SANDBOX_ATTEMPTS - 1:
                raise UserError(f"the sandbox failed {SANDBOX_ATTEMPTS} times: {exc}") from None
    raise AssertionError("unreachable")


def job_failure(job: PairJob, exc: BaseException) -> str:
    """One line naming the pair whose job raised ``exc`` (an exception no rule of the engine
    expects: a fault of the harness or of what it measured, never a score)."""
    detail = " ".join(str(exc).split())[:300]
    return f"pair {job.id}: the fuzzing harness failed on this pair ({type(exc).__name__}{': ' + detail if detail else ''})"


def guarded(job: PairJob, keep_going: bool, fn: Callable[[], _T], on_error: Callable[[str], _T]) -> _T:
    """The boundary every job runs in: ``fn()``, or ``on_error(message)`` (the pair's error
    row or its reference's error) for any exception, so that no pair can end a batch.

    A :class:`UserError` (code that cannot load, a sandbox that failed three times) is an error
    row as it always was. Any other exception (from the candidate's replies, the reference's
    charges, validation, a generator, storage) is one too under ``keep_going``; otherwise it
    becomes a one-line :class:`UserError` naming the pair, which ends the batch without a
    traceback (the pairs finished so far are in the store: a rerun resumes). ``Aborted``
    (Ctrl-C of the batch) and non-``Exception``s pass through."""
    try:
        return fn()
    except Aborted:
        raise
    except UserError as exc:
        return on_error(str(exc))
    except Exception as exc:  # noqa: BLE001 - the boundary: whatever one pair raises is that pair's
        msg = job_failure(job, exc)
        if not keep_going:
            raise UserError(msg) from None
        return on_error(msg)


def ref_job(job: PairJob, settings: S.SettingsDict, network: str | None,
            keep_going: bool = False) -> tuple[str, dict[str, bytes] | str]:
    """Reference outcomes of one task for every input set its runs use (one for explicit
    inputs, one per run for a generator). Runs in a local thread or on a Dask worker."""
    s = S.Settings.from_dict(settings)
    spec = CodeSpec(job.level, job.reference, job.entry, "reference.py")

    def run() -> tuple[str, dict[str, bytes] | str]:
        cache_: dict[str, bytes] = {}
        if job.inputs is not None:
            items = job.inputs if job.n is None else job.inputs[: job.n]
            _sandboxed(lambda: compute_reference(spec, items, s, network=network, ref_cache=cache_,
                                                 label=f"pair {job.id}", inputs_hash=job.inputs_hash,
                                                 stop_over_budget=True))
        else:
            for r in range(s.runs):
                key, blob = reference_run(job, r, s, network, None)
                cache_[key] = blob
        return job.ref_key, cache_

    return guarded(job, keep_going, run, lambda msg: (job.ref_key, msg))


def reference_run(job: PairJob, run: int, s: S.Settings, network: str | None,
                   refs: MutableMapping[str, bytes] | None) -> tuple[str, bytes]:
    """(reference key, outcomes) of run ``run`` of a generated task; ``refs`` (the store's
    reference table), when given, is consulted and filled under that per-run key."""
    spec = CodeSpec(job.level, job.reference, job.entry, "reference.py")
    assert job.generator is not None  # a generated task
    raw = job.generator(S.run_seed(job.seed, run), job.n or s.n_default(job.level))
    items = check_inputs(list(raw), level=job.level, source=f"pair {job.id}: generator")
    known = raw if isinstance(raw, InputSet) else None
    digest = known.inputs_digest() if known is not None else inputs_digest(items)
    key = reference_key(spec, items, s, digest)
    blob = refs.get(key) if refs is not None else None
    if blob is None:
        blob = _sandboxed(lambda: compute_reference(
            spec, items, s, network=network, label=f"pair {job.id}", inputs_hash=digest, stop_over_budget=True,
            blobs=known.blobs.get(job.level) if known is not None else None)).to_blob()
        if refs is not None:
            refs[key] = blob
    return key, blob


def ref_run_job(job: PairJob, run: int, settings: S.SettingsDict, network: str | None,
                refs: MutableMapping[str, bytes] | None,
                keep_going: bool = False) -> tuple[str, int, dict[str, bytes] | str]:
    """Reference outcomes of run ``run`` of a generated task -> (task's ref key, run, ``{run's
    reference key: outcomes}`` or an error). One thread-pool job per run, so that the runs of a
    slow reference spread over the threads like the runs of its pairs do.

    ``refs`` is consulted and filled per run: a run's outcomes depend on its inputs and the
    reference settings, not on R, so a run shared by two labels that differ only in R (the RQ2
    screen at R = 1, then the full label) runs the reference once."""
    def one() -> tuple[str, int, dict[str, bytes] | str]:
        key, blob = reference_run(job, run, S.Settings.from_dict(settings), network, refs)
        return job.ref_key, run, {key: blob}

    return guarded(job, keep_going, one, lambda msg: (job.ref_key, run, msg))


def pair_job(job: PairJob, settings: S.SettingsDict, network: str | None,
             ref_blobs: dict[str, bytes] | None, keep_going: bool = False) -> tuple[str, S.FuzzResult]:
    """One pair -> (key, deterministic result dict, or its error row)."""
    s = S.Settings.from_dict(settings)
    cache_: dict[str, bytes] = dict(ref_blobs or {})

    def run() -> tuple[str, S.FuzzResult]:
        res = _sandboxed(lambda: fuzz_pair(
            job.reference, job.candidate, entry=job.entry, stdin=job.stdin, inputs=job.inputs,
            generator=job.generator, n=job.n, seed=job.seed, settings=s, network=network,
            ref_cache=cache_, label=f"pair {job.id}", inputs_hash=job.inputs_hash if job.inputs is not None else None))
        out = res.to_dict()
        out["error"] = None
        return job.key, out

    return guarded(job, keep_going, run, lambda msg: (job.key, error_result(s, job, msg)))


def error_result(s: S.Settings | S.SettingsDict, job: PairJob, msg: str) -> S.FuzzResult:
    """The error row of ``job``'s pair: no score, and why."""
    settings = s.to_dict() if isinstance(s, S.Settings) else s
    return {"df_score": None, "error": msg, "settings": settings, "engine_version": S.ENGINE_VERSION,
            "base_seed": job.seed}


def run_part_job(job: PairJob, run: int, settings: S.SettingsDict, network: str | None,
                 ref_blobs: dict[str, bytes] | None,
                 keep_going: bool = False) -> tuple[str, int, PairResult | S.FuzzResult]:
    """Run ``run`` of a generator pair -> (key, run, its one-run result, or an error dict)."""
    s = S.Settings.from_dict(settings)

    def one() -> tuple[str, int, PairResult | S.FuzzResult]:
        return job.key, run, _sandboxed(lambda: fuzz_pair(
            job.reference, job.candidate, entry=job.entry, stdin=job.stdin, generator=job.generator, n=job.n,
            seed=job.seed, settings=s, network=network, ref_cache=dict(ref_blobs or {}), label=f"pair {job.id}",
            only_runs=[run]))

    return guarded(job, keep_going, one, lambda msg: (job.key, run, error_result(s, job, msg)))


class Parts:
    """Collects the one-run parts of split pairs; a pair is complete when all its runs are."""

    def __init__(self, runs: int) -> None:
        self.runs = runs
        self.got: dict[str, dict[int, PairResult | S.FuzzResult]] = {}

    def add(self, key: str, run: int, part: PairResult | S.FuzzResult) -> S.FuzzResult | None:
        have = self.got.setdefault(key, {})
        have[run] = part
        if len(have) < self.runs:
            return None
        del self.got[key]
        errors = [p for r in sorted(have) if isinstance(p := have[r], dict)]
        if errors:  # the error of the first failing run, as running the runs in order raises it
            return errors[0]
        out = merge_runs([p for p in have.values() if isinstance(p, PairResult)]).to_dict()  # every part
        out["error"] = None
        return out
