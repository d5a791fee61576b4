"""Sandboxed differential fuzzing: Algorithm 1 of the paper.

Public API (imported lazily, so the fork-server and ``lcl --help`` stay light)::

    from lcl.engine.fuzz import fuzz_pair, Settings, run_batch, load_resolver

``fuzz_pair(reference, variant, entry=..., inputs=[...])`` -> :class:`PairResult`
(``.df_score``, ``.to_dict()``); ``stdin=True`` for programs; ``generator=gen`` with
``gen(seed, n) -> list`` instead of explicit inputs. See ``semantics`` for every decision
and ``docs/FUZZING.md`` for the sandbox.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # what the lazy exports are, for type checkers
    from .algorithm import LoadError, PairResult, compute_reference, fuzz_pair
    from .batch import batch_status, load_resolver, run_batch
    from .sandbox import CodeSpec
    from .semantics import ENGINE_VERSION, Settings, run_seed
    from .store import ResultStore

_EXPORTS = {
    "Settings": "semantics",
    "run_seed": "semantics",
    "ENGINE_VERSION": "semantics",
    "fuzz_pair": "algorithm",
    "compute_reference": "algorithm",
    "PairResult": "algorithm",
    "LoadError": "algorithm",
    "CodeSpec": "sandbox",
    "run_batch": "batch",
    "batch_status": "batch",
    "load_resolver": "batch",
    "ResultStore": "store",
}

__all__ = [
    "ENGINE_VERSION",
    "CodeSpec",
    "LoadError",
    "PairResult",
    "ResultStore",
    "Settings",
    "batch_status",
    "compute_reference",
    "fuzz_pair",
    "load_resolver",
    "run_batch",
    "run_seed",
]


def __getattr__(name: str) -> Any:  # any of _EXPORTS, each its own type (see TYPE_CHECKING above)
    mod = _EXPORTS.get(name)
    if mod is None:
        raise AttributeError(f"module 'lcl.engine.fuzz' has no attribute {name!r}")

    return getattr(importlib.import_module(f"{__name__}.{mod}"), name)
