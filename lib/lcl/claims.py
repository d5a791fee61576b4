"""The paper's published numbers (``data/reference/paper_claims.csv``), for the "paper"
column of comparisons only: never used as a result."""

from __future__ import annotations

from functools import lru_cache

import pandas as pd

from . import paths


@lru_cache(maxsize=1)
def load() -> pd.DataFrame:
    """All claims, indexed by ``claim_id``."""
    return pd.read_csv(paths.reference() / "paper_claims.csv").set_index("claim_id")


def paper_value(claim_id: str) -> float:
    """The paper's value for ``claim_id`` (KeyError when the paper has no such claim)."""
    return float(load().loc[claim_id, "paper_value"])
