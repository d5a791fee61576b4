"""CodeBLEU (Ren et al. 2020) via ``codebleu==0.7.0`` with default weights (0.25 each).

Per pair (sentence level): ``calc_codebleu([ref], [cand], lang)["codebleu"]``.

Quirks, kept as the library has them (the authors' numbers have them too):

* a data-flow score of 0 counts as 1 (``theta * (dataflow_match_score or 1)``), so a pair
  with no reference data flow (``print(1)``), or an empty candidate, still earns 0.25;
* BLEU parts use whitespace tokens and 4-grams: code shorter than 4 tokens cannot reach 1
  even against itself;
* the data-flow match iterates Python ``set``s, so its value depends on the interpreter's
  string-hash seed (``PYTHONHASHSEED``). We make it deterministic by computing in worker
  processes started with ``PYTHONHASHSEED=0`` (in-process when this interpreter already
  runs with seed 0). The authors' values come from some unrecorded seed; this is the cause
  of nearly every disagreement with ``author_scores.codebleu`` (docs/METRICS.md).
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ..process_pools import shared_pool
from .base import Metric, MetricConfig

if TYPE_CHECKING:
    from multiprocessing.pool import Pool

VERSION = "codebleu==0.7.0;tree-sitter-python==0.21.0;tree-sitter-java==0.21.0;hashseed=0;v1"
WEIGHTS = (0.25, 0.25, 0.25, 0.25)


def _one(args: tuple[str, str, str]) -> float:
    ref, cand, lang = args
    from codebleu import calc_codebleu

    logging.getLogger().setLevel(logging.ERROR)  # the library logs a warning per degenerate pair
    try:
        return float(calc_codebleu([ref], [cand], lang, weights=WEIGHTS)["codebleu"])
    except Exception:  # noqa: BLE001 - a library crash on odd input must not stop a batch
        return 0.0


def _chunk(jobs: list[tuple[str, str, str]]) -> list[float]:
    return [_one(j) for j in jobs]


def seeded_in_process() -> bool:
    """True when this interpreter's str hashes are those of ``PYTHONHASHSEED=0``."""
    return sys.flags.hash_randomization == 0


def _get_pool(workers: int) -> Pool:
    # hash seed 0 in the workers: codebleu's keyword sets iterate in hash order
    return shared_pool("codebleu", workers, env={"PYTHONHASHSEED": "0"})


def default_workers() -> int:
    return max(1, min(len(os.sched_getaffinity(0)), 8))


class CodeBLEU(Metric):
    name = "codebleu"
    label = "CodeBLEU"
    version = VERSION
    chunk_size = 512

    def __init__(self, workers: int | None = None):
        self.workers = workers or default_workers()

    def config(self, state: Any) -> MetricConfig:
        return {"weights": WEIGHTS}

    def score_chunk(self, references: Sequence[str], candidates: Sequence[str], lang: str, state: Any) -> np.ndarray:
        jobs = [(r, c, lang) for r, c in zip(references, candidates, strict=True)]
        if seeded_in_process():
            return np.array(_chunk(jobs))
        pool = _get_pool(self.workers)
        n = max(1, len(jobs) // (self.workers * 4))
        parts = [jobs[i : i + n] for i in range(0, len(jobs), n)]
        return np.array([v for part in pool.map(_chunk, parts) for v in part])
