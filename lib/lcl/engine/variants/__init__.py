"""Variant generators for LoCaL pairs (Step I of the paper's Section 3.3.2).

- :mod:`lcl.engine.variants.mutants`: first-order mutants with MutPy's operators (SFD region).
- :mod:`lcl.engine.variants.rewrite`: offline, semantics-preserving optimising rewrites (DFS region).
- :mod:`lcl.engine.variants.llm`: optional optimised variants from an OpenAI-compatible model (cached).

Generators never execute the code they produce; verification is the fuzzing engine's job.
"""

from __future__ import annotations

from .mutants import Mutant, MutationResult, MutationStats, generate_mutants, mutate, normalise
from .rewrite import STRATEGIES, Variant, optimise, surface_similarity

__all__ = [
    "STRATEGIES",
    "Mutant",
    "MutationResult",
    "MutationStats",
    "Variant",
    "generate_mutants",
    "mutate",
    "normalise",
    "optimise",
    "surface_similarity",
]
