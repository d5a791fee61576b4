"""Algorithm 1 labels for the study's pairs, in one place: the profile's settings (N inputs, R
runs), the resolver that gives each row its inputs, and the result store with the committed
label archive merged in, so that a pair labelled once (here or in the archive) is never fuzzed
again. Every stage that labels pairs (LoCaL candidates, semantic clones, CodeScore_base, the
re-derivation of published labels) goes through :func:`fuzz_labels`; candidates (records with
``reference``, ``candidate`` and ``task``) through :func:`label_candidates`, with the settings
passed (the RQ2 pool's screen is the same settings with R = 1).
"""

from __future__ import annotations

import random
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TypedDict

from lcl.core.profiles import Profile
from lcl.core.records import PairRow
from lcl.engine import fuzz
from lcl.engine.fuzz.batch.jobs import Resolver
from lcl.engine.fuzz.semantics import OVER_BUDGET, FuzzResult
from lcl.engine.fuzz.store import ResultStore

from . import label_archive
from .task_specs import resolve_published


def algorithm1_settings(runs: int, n_function: int, n_program: int | None = None) -> fuzz.Settings:
    """Algorithm 1's R and N (per function task; per program task unless None, which keeps the
    engine's default: clone pairs are functions only, and their stored results were keyed so)."""
    s = fuzz.Settings().with_(runs=runs, n_function=n_function)
    return s if n_program is None else s.with_(n_program=n_program)


def profile_settings(profile: Profile) -> fuzz.Settings:
    """The profile's Algorithm 1 settings: R runs of N inputs per function / program task."""
    return algorithm1_settings(profile.fuzz_runs, profile.fuzz_inputs_function, profile.fuzz_inputs_program)


def fuzz_labels(batch: list[PairRow], settings: fuzz.Settings, *, seed: int, jobs: int,
                progress: bool = True, resolver: Resolver = resolve_published) -> list[FuzzResult]:
    """df_score of every row of ``batch`` (Algorithm 1), in order; rows that cannot be fuzzed
    come back as error rows, never dropped. Resumable: finished pairs come from the store."""
    if not batch:
        return []
    with label_archive.open_store() as store:
        return fuzz.run_batch(batch, settings=settings, seed=seed, jobs=jobs, progress=progress, keep_going=True,
                              store=store, resolvers=[resolver])


def stored_labels(batch: list[PairRow], settings: fuzz.Settings, *, seed: int,
                  resolver: Resolver = resolve_published) -> dict[str, bool | None]:
    """Which rows :func:`fuzz_labels` would find finished (True), still has to fuzz (False) or
    cannot fuzz (None); runs nothing."""
    if not batch:
        return {}
    with label_archive.open_store() as store:
        return fuzz.batch_status(batch, settings=settings, seed=seed, store=store, resolvers=[resolver])


# ----------------------------------------------------------------------------- candidates
def candidate_batch(rows: list[PairRow]) -> list[PairRow]:
    """Candidates as a fuzz batch: the two codes and the task, by which the resolver
    :func:`~lcl.study.task_specs.resolve_published` finds each row's inputs."""
    return [{"id": r["id"], "reference": r["reference"], "candidate": r["candidate"], "task": r["task"]}
            for r in rows]


def label_candidates(rows: list[PairRow], settings: fuzz.Settings, seed: int, jobs: int,
                     progress: bool = True) -> list[FuzzResult]:
    """Algorithm 1 for every candidate, resumable (finished pairs come from the result store)."""
    return fuzz_labels(candidate_batch(rows), settings, seed=seed, jobs=jobs, progress=progress)


def candidates_stored(rows: list[PairRow], settings: fuzz.Settings, seed: int) -> dict[str, bool | None]:
    """Which candidates :func:`label_candidates` would find in the result store (id -> True),
    still has to fuzz (False) or cannot fuzz (None); runs nothing."""
    return stored_labels(candidate_batch(rows), settings, seed=seed)


class Recheck(TypedDict):
    """One re-fuzzed pair of :func:`recheck`: the stored and the fresh label side by side."""

    id: str
    stored_df: float | None
    fresh_df: float | None
    stored_runs: list[float | None] | None
    fresh_runs: list[float | None] | None
    identical: bool


def timed(result: Mapping[str, Any]) -> bool:
    """Whether time decided part of a stored result: a run excluded for the budget T, a
    per-input timeout, or a variant load that timed out. Where a change of the harness's
    clocks shows first, so an engine change is rechecked on these too (``recheck(only_timed)``)."""
    runs = [r for r in result.get("runs") or [] if isinstance(r, dict)]
    return (result.get("variant_load") == "timeout" or any(r.get("reason") == OVER_BUDGET for r in runs)
            or bool((result.get("counts") or {}).get("timeouts")))


def recheck(rows: list[PairRow], settings: fuzz.Settings, seed: int, k: int, jobs: int,
            sample_seed: int = 0, progress: bool = True, only_timed: bool = False) -> list[Recheck]:
    """Re-fuzz ``k`` already labelled candidates (a seeded sample) in an empty store, ignoring
    the stored and archived results, and compare: one row per pair with the stored and the
    fresh df_score and per-run scores. How an evaluator checks the committed label archive.
    ``only_timed``: sample among the labels :func:`timed` says time decided part of."""
    status = candidates_stored(rows, settings, seed)
    done = [r for r in rows if status.get(r["id"])]
    if only_timed:
        stored_all = label_candidates(done, settings, seed, jobs, progress=False)  # all stored: nothing is fuzzed
        done = [r for r, res in zip(done, stored_all) if timed(res)]
    pick = sorted(random.Random(sample_seed).sample(done, min(k, len(done))), key=lambda r: r["id"])
    if not pick:
        return []
    stored = label_candidates(pick, settings, seed, jobs, progress=False)  # all stored: nothing is fuzzed
    with tempfile.TemporaryDirectory(prefix="lcl-recheck-") as tmp, ResultStore(Path(tmp) / "s.sqlite") as st:
        fresh = fuzz.run_batch(candidate_batch(pick), settings=settings, seed=seed, jobs=jobs, progress=progress,
                               keep_going=True, store=st, resolvers=[resolve_published])
    return [{"id": a["id"], "stored_df": a.get("df_score"), "fresh_df": b.get("df_score"),
             "stored_runs": a.get("run_scores"), "fresh_runs": b.get("run_scores"),
             "identical": a.get("df_score") == b.get("df_score") and a.get("run_scores") == b.get("run_scores")}
            for a, b in zip(stored, fresh)]
