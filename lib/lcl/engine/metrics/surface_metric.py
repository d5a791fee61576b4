"""SurfaceSim (Eq. 1) as registry metrics ``surface_sim`` (paper mode) and ``surface_sim_tree``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

import numpy as np

from .. import similarity
from .base import Metric, MetricConfig


class SurfaceSim(Metric):
    chunk_size = 512

    def __init__(self, mode: str = "paper", workers: int | None = None):
        if mode not in similarity.MODES:
            raise ValueError(f"SurfaceSim mode must be one of {similarity.MODES}")
        self.mode = cast("similarity.Mode", mode)
        self.workers = workers
        self.name = "surface_sim" if mode == "paper" else "surface_sim_tree"
        self.label = "SurfaceSim" if mode == "paper" else "SurfaceSim[tree]"
        self.version = f"{similarity.VERSION}-{mode}"
        if mode == "tree":
            self.chunk_size = 64

    def config(self, state: Any) -> MetricConfig:
        return {"mode": self.mode}

    def score_chunk(self, references: Sequence[str], candidates: Sequence[str], lang: str, state: Any) -> np.ndarray:
        # the interface already warned once per batch (MetricWarning)
        return np.array(similarity.surface_sim_many(references, candidates, self.mode, lang, self.workers, warn=False))
