"""Optimised variants (DFS region), offline: a conservative, semantics-preserving AST rewriter.

The paper (Section 3.3.2, Step I) asked GPT-4 to optimise each reference with one or more of
five strategies. No model is reachable offline, so this package composes small rewrites, each
labelled with the paper's strategy it stands for (or ``None`` for the surface rewrites that real
optimisations bring with them: renaming, restructuring, helper extraction). Every rewrite only
fires when simple syntactic checks prove it safe; the result is still verified later by
differential fuzzing. See ``docs/VARIANTS.md`` for each rewrite's safety conditions.

Nothing here executes the code it rewrites.

Layout: :mod:`.astutil` and :mod:`.scope` (AST and scope analysis for the safety checks),
:mod:`.context` (the rewrite context, naming, rule registration), the ``rules_*`` modules (the
rewrites, grouped by kind), :mod:`.registry` (their fixed order), :mod:`.similarity` (SurfaceSim)
and :mod:`.driver` (:func:`optimise`, :class:`Variant`).
"""

from __future__ import annotations

from .context import STRATEGIES
from .context import Ctx as Ctx  # the tests build a rewrite context directly
from .driver import Variant, optimise
from .registry import REWRITES
from .similarity import surface_similarity

__all__ = ["REWRITES", "STRATEGIES", "Variant", "optimise", "surface_similarity"]
