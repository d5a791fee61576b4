"""Similarity of a variant to its reference: SurfaceSim (Eq. 1 of the paper) and the plain
normalised edit similarity.
"""

from __future__ import annotations

import warnings

from rapidfuzz.distance import Levenshtein


def surface_similarity(a: str, b: str) -> float:
    """SurfaceSim (Eq. 1 of the paper, ``lcl.similarity.surface_sim(a, b, mode="paper")``): the
    mean of the normalised edit similarity and the Jaccard overlap of the AST node-type sets."""
    from ...similarity import SimilarityWarning, surface_sim

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SimilarityWarning)
        return float(surface_sim(a, b, mode="paper"))


def edit_similarity(a: str, b: str) -> float:
    """Normalised Levenshtein similarity of two texts (1.0 = identical)."""
    return float(Levenshtein.normalized_similarity(a, b))
