"""Similarity of a variant to its reference: SurfaceSim (Eq. 1 of the paper)."""

from __future__ import annotations

import warnings

from ...similarity import SimilarityWarning, surface_sim


def surface_similarity(a: str, b: str) -> float:
    """SurfaceSim (Eq. 1 of the paper, ``lcl.engine.similarity.surface_sim(a, b, mode="paper")``): the
    mean of the normalised edit similarity and the Jaccard overlap of the AST node-type sets."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SimilarityWarning)
        return float(surface_sim(a, b, mode="paper"))
