"""Many pairs: resolve rows, validate everything up front, fuzz with J local threads (each
driving one pair's sandboxed workers through the shared fork-server) or on a Dask cluster,
commit each pair to the store as it finishes, write RESULTS.jsonl at the end.

Rows (JSON Lines) have an ``id`` and two codes: ``reference`` (or the published
``golden_code``) or ``reference_file``, and ``variant`` (or ``candidate``, or the published
``generated_code``) or ``variant_file`` (``candidate_file``); optional ``n`` and ``seed``.
Relative files are resolved against the directory of the pairs file. Then either

- explicit inputs: ``entry`` (function) or ``"stdin": true`` (program), and ``inputs`` (a list)
  or ``inputs_file`` (JSONL, one input per line); or
- none (published LoCaL rows: ``id``, ``golden_code``, ``generated_code``; a study's rows with
  their ``task``): the task, entry point and inputs are resolved by a *resolver* the caller
  passes (``resolvers=[...]``; the project's is :func:`lcl.study.task_specs.resolve_published`;
  ``LCL_FUZZ_RESOLVER`` names one more). Without one, such rows fail with a ``UserError``
  naming the id. These rows are accepted as they are: repeated ids become ``id#2``, ...

A resolver is ``fn(row) -> ResolvedInputs | None`` returning ``{"entry": NAME}`` or ``{"stdin": True}``
plus ``{"inputs": [...]}`` or ``{"generator": gen, "n": N}`` (``gen(seed, n) -> list``; it
must be a picklable top-level callable to run on Dask). Returning ``None`` means
"not mine"; raising ``KeyError``/``LookupError`` means "unknown task id".

Modules: ``jobs`` (rows -> checked jobs and their keys), ``generators`` (generated input sets
shared by a batch), ``fuzz_jobs`` (what one executor job runs), ``executors`` (in-process,
thread pool, Dask), ``scheduling`` (chunks of tasks, references before their pairs); here:
the batch itself (:func:`run_batch`, :func:`batch_status`) and carrying results over from
older engine versions.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, NotRequired, TypedDict

from lcl.core.io import write_jsonl
from lcl.core.records import NO_KEPT_RUN, has_score

from .. import semantics as S
from ..store import open_default
from .executors import NO_WORKER_TIMEOUT, dask_completed, default_jobs, make_executor
from .fuzz_jobs import Parts, error_result, pair_job, ref_job, ref_run_job, reference_run, run_part_job
from .generators import GenerationProcess, GeneratorMemo, SharedGenerator, share_generators
from .jobs import (
    PairJob,
    ResolvedInputs,
    Resolver,
    generator_name,
    job_keys,
    load_jobs,
    load_resolver,
    read_inputs_file,
    read_rows,
    resolve_row,
    with_env_resolver,
)
from .scheduling import CHUNK_TASKS, Chunk, run_chunks, run_chunks_pipelined, task_chunks


def _carryable(jobs: list[PairJob], st: Any) -> dict[str, tuple[PairJob, S.FuzzResult]]:
    """Current key -> (job, stored result of an older engine version that the current one would
    compute identically: :func:`lcl.engine.fuzz.semantics.carries_over`)."""
    legacy = st.has_many([k for j in jobs for k in j.legacy_keys])
    found: dict[str, tuple[PairJob, S.FuzzResult]] = {}
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


def batch_status(pairs: Sequence[Mapping[str, Any]], *, settings: S.Settings | None = None, seed: int = 0,
                 store: Any = None, base: str | Path | None = None,
                 resolvers: Sequence[Resolver] = ()) -> dict[str, bool | None]:
    """Which pairs of a batch already have a result in ``store``, without running anything:
    pair id -> True (stored), False (still to fuzz) or None (cannot be fuzzed: an error row).
    Same resolution and keys as :func:`run_batch`, so "stored" means run_batch will not fuzz it."""
    s = settings or S.Settings()
    job_list = load_jobs(list(pairs), Path(base) if base else Path.cwd(), s, seed, keep_going=True,
                         resolvers=with_env_resolver(resolvers))
    st = open_default() if store is None else store
    try:
        done = st.has_many([j.key for j in job_list if j.error is None])
        done |= set(_carryable([j for j in job_list if j.error is None and j.key not in done], st))
    finally:
        if store is None:
            st.close()
    return {j.id: (None if j.error is not None else j.key in done) for j in job_list}


def run_batch(pairs: str | Path | Sequence[Mapping[str, Any]], out: str | Path | None = None, *,
              settings: S.Settings | None = None, seed: int = 0, jobs: int | None = None,
              scheduler: str | None = None, store: Any = None, network: str | None = None,
              progress: bool = True, base: str | Path | None = None,
              keep_going: bool = False, resolvers: Sequence[Resolver] = ()) -> list[S.FuzzResult]:
    """Fuzz every pair; finished pairs come from / go to ``store`` (a :class:`ResultStore`);
    rows without inputs are resolved by ``resolvers`` (then ``LCL_FUZZ_RESOLVER``'s).

    Returns the result rows in input order and, when ``out`` is given, writes them to ``out``
    atomically (one JSON object per line, sorted keys; byte-identical for identical inputs).
    """
    from tqdm.auto import tqdm

    s = settings or S.Settings()
    if isinstance(pairs, (str, Path)):
        p = Path(pairs)
        rows = read_rows(p, "pairs")
        base_dir = Path(base) if base else p.parent
    else:
        rows = list(pairs)
        base_dir = Path(base) if base else Path.cwd()
    job_list = load_jobs(rows, base_dir, s, seed, keep_going=keep_going, resolvers=with_env_resolver(resolvers))
    scheduler = scheduler or os.environ.get("LCL_DASK_SCHEDULER") or None
    jobs = jobs or default_jobs()
    # in-process executors share generated input sets (Dask jobs are pickled); a thread pool
    # generates them in a helper process
    gen_process = GenerationProcess() if not scheduler and jobs > 1 else None
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
        with make_executor(jobs, scheduler) as (ex, completed):
            ref_bar = tqdm(total=len({j.ref_key for j in pending if j.ref_key not in refs}), desc="fuzz references",
                           unit="task", disable=not progress, file=sys.stderr)
            bar = tqdm(total=len(job_list), initial=len(job_list) - len(pending), desc="fuzz pairs", unit="pair",
                       disable=not progress, file=sys.stderr)
            # tasks in chunks (a few tasks' references, then their pairs), so a task's generated
            # input sets are still in the generator memo when its variants run
            if pending:
                chunks = list(task_chunks(pending, CHUNK_TASKS if not scheduler else len(pending)))
                if scheduler or jobs <= 1:
                    run_chunks(chunks, ex, completed, refs, st, settings_d, network, ref_bar, bar, keep_going)
                else:
                    run_chunks_pipelined(chunks, ex, refs, st, settings_d, network, ref_bar, bar, keep_going)
            ref_bar.close()
            bar.close()
        results: list[S.FuzzResult] = []
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


class Summary(TypedDict):
    """What :func:`results_summary` says about a batch's results."""

    pairs: int
    errors: int
    all_runs_excluded: int  # df_score -1
    mean_df_score: float | None  # over the pairs with a score
    out: NotRequired[str]  # where they were written (added by ``lcl fuzz batch``)


def results_summary(results: Sequence[S.FuzzResult]) -> Summary:
    scores = [r["df_score"] for r in results if r.get("df_score") is not None]
    kept = [x for x in scores if has_score(x)]
    return {
        "pairs": len(results),
        "errors": sum(1 for r in results if r.get("error")),
        "all_runs_excluded": sum(1 for x in scores if x == NO_KEPT_RUN),
        "mean_df_score": (sum(kept) / max(1, len(kept))) if scores else None,
    }


def dumps_last_line(obj: Mapping[str, object]) -> str:
    return json.dumps(obj, sort_keys=True)


__all__ = [
    "CHUNK_TASKS",
    "NO_WORKER_TIMEOUT",
    "Chunk",
    "GenerationProcess",
    "GeneratorMemo",
    "PairJob",
    "Parts",
    "ResolvedInputs",
    "Resolver",
    "SharedGenerator",
    "Summary",
    "batch_status",
    "carry_over",
    "dask_completed",
    "default_jobs",
    "dumps_last_line",
    "error_result",
    "generator_name",
    "job_keys",
    "load_jobs",
    "load_resolver",
    "make_executor",
    "pair_job",
    "read_inputs_file",
    "read_rows",
    "ref_job",
    "ref_run_job",
    "reference_run",
    "resolve_row",
    "results_summary",
    "run_batch",
    "run_chunks",
    "run_chunks_pipelined",
    "run_part_job",
    "share_generators",
    "task_chunks",
    "with_env_resolver",
]
