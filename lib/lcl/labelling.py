"""Algorithm 1 labels for the study's pairs, in one place: the profile's settings (N inputs, R
runs), the resolver that gives each row its inputs, and the result store with the committed
label archive merged in, so that a pair labelled once (here or in the archive) is never fuzzed
again. Every stage that labels pairs (LoCaL candidates, semantic clones, CodeScore_base, the
re-derivation of published labels) goes through :func:`fuzz_labels`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import fuzz, label_archive
from .profiles import Profile
from .task_specs import resolve_published

Resolver = Callable[[dict[str, Any]], "dict[str, Any] | None"]


def algorithm1_settings(runs: int, n_function: int, n_program: int | None = None) -> fuzz.Settings:
    """Algorithm 1's R and N (per function task; per program task unless None, which keeps the
    engine's default: clone pairs are functions only, and their stored results were keyed so)."""
    s = fuzz.Settings().with_(runs=runs, n_function=n_function)
    return s if n_program is None else s.with_(n_program=n_program)


def profile_settings(profile: Profile) -> fuzz.Settings:
    """The profile's Algorithm 1 settings: R runs of N inputs per function / program task."""
    return algorithm1_settings(profile.fuzz_runs, profile.fuzz_inputs_function, profile.fuzz_inputs_program)


def fuzz_labels(batch: list[dict[str, Any]], settings: fuzz.Settings, *, seed: int, jobs: int,
                progress: bool = True, resolver: Resolver = resolve_published) -> list[dict[str, Any]]:
    """df_score of every row of ``batch`` (Algorithm 1), in order; rows that cannot be fuzzed
    come back as error rows, never dropped. Resumable: finished pairs come from the store."""
    if not batch:
        return []
    with label_archive.open_store() as store:
        return fuzz.run_batch(batch, settings=settings, seed=seed, jobs=jobs, progress=progress, keep_going=True,
                              store=store, resolvers=[resolver])


def stored_labels(batch: list[dict[str, Any]], settings: fuzz.Settings, *, seed: int,
                  resolver: Resolver = resolve_published) -> dict[str, bool | None]:
    """Which rows :func:`fuzz_labels` would find finished (True), still has to fuzz (False) or
    cannot fuzz (None); runs nothing."""
    if not batch:
        return {}
    with label_archive.open_store() as store:
        return fuzz.batch_status(batch, settings=settings, seed=seed, store=store, resolvers=[resolver])
