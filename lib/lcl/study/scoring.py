"""Score a set of code pairs with SurfaceSim and the four CEMs (shared by RQ1-RQ5).

One call, one table: :func:`score_frame` adds one column per metric to a pairs table. Column
names are the metrics' honest labels (``CodeBERTScore[MiniLM]``, ``CodeScore-style
(retrained)``), so a substitute can never be mistaken for the paper's model; :data:`PAPER_NAME`
maps a label back to the paper's column for comparisons. Scores are cached on disk by metric,
version, settings and pair (:mod:`lcl.engine.metrics.cache`), so a rerun is nearly free.

CrystalBLEU is computed as the paper's authors ran it: the ignore set (the k = 50 most
frequent n-grams) comes from each pair alone, which is why it is so often 0. The corpus ignore
set (every reference and candidate of the table) is the sensitivity column
``CrystalBLEU[corpus]`` (:data:`SENSITIVITY`), never one of the four CEMs.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from lcl.core.records import pair_from_row
from lcl.engine import metrics
from lcl.engine.metrics.codescore_style import CodeScoreStyle

#: the four reference-based CEMs of the paper, as registry names
CEMS: tuple[str, ...] = ("codebleu", "crystalbleu", "codebertscore", "codescore_style")
SURFACE = "surface_sim"
#: the CEMs run as substitutes for the authors' models (a MiniLM encoder for CodeBERT, our retrained
#: CodeScore-style model for the CodeScore checkpoint); the other two reimplement the paper's metric
SUBSTITUTE_CEMS: tuple[str, ...] = ("codebertscore", "codescore_style")
#: metric variants reported only as sensitivity columns next to the CEMs (never a CEM column)
SENSITIVITY: tuple[str, ...] = ("crystalbleu_corpus",)
#: languages each metric can score (CodeScore is Python-only, as in the paper)
PYTHON_ONLY = {"codescore_style"}


def label(name: str) -> str:
    """Column label of metric ``name`` (substitutes say so)."""
    return metrics.label(name)


def paper_name(column: str) -> str:
    """The paper's name for a metric column (``CodeBERTScore[MiniLM]`` -> ``CodeBERTScore``)."""
    for prefix in ("CodeBLEU", "CrystalBLEU", "CodeBERTScore", "SurfaceSim"):
        if column.startswith(prefix):
            return prefix
    if column.startswith("CodeScore"):
        return "CodeScore"
    return column


def cem_columns(frame: pd.DataFrame) -> list[str]:
    """The CEM score columns present in a scored table, in the paper's order."""
    want = [label(n) for n in CEMS]
    return [c for c in want if c in frame.columns]


def sensitivity_columns(frame: pd.DataFrame) -> list[str]:
    """The sensitivity score columns (:data:`SENSITIVITY`) present in a scored table."""
    return [c for c in (label(n) for n in SENSITIVITY) if c in frame.columns]


def score_frame(
    frame: pd.DataFrame,
    names: Sequence[str] = (SURFACE, *CEMS),
    *,
    codescore_model: str | Path | Any | None = None,
    reference: str = "reference",
    candidate: str = "candidate",
    lang: str = "python",
    progress: bool = True,
) -> pd.DataFrame:
    """A copy of ``frame`` with one column per metric in ``names`` (labels as column names).

    ``codescore_model``: a trained :class:`~lcl.engine.metrics.codescore_style.CodeScoreModel` or its
    directory; without one the CodeScore column is left out (with a printed note). Metrics that
    cannot score ``lang`` (CodeScore on Java) get NaN, reported as N/A in tables.
    """
    out = frame.copy()
    refs = out[reference].astype(str).tolist()
    cands = out[candidate].astype(str).tolist()
    ids = out["id"].astype(str).tolist() if "id" in out.columns else None
    for name in names:
        if name in PYTHON_ONLY and lang != "python":
            out[label(name)] = np.nan
            continue
        if name == "codescore_style":
            if codescore_model is None:
                print("note: no CodeScore-style model given; CodeScore column left out")
                continue
            metric = _codescore(codescore_model)
        else:
            metric = metrics.get_metric(name)
        out[metric.label] = _score(metric, refs, cands, lang, ids, progress)
    return out


def _codescore(model: Any) -> metrics.Metric:
    return CodeScoreStyle(model)


def _score(metric: metrics.Metric, refs: list[str], cands: list[str], lang: str, ids: list[str] | None,
           progress: bool) -> np.ndarray:
    if not progress or not refs:
        return metric.score(refs, cands, lang, ids=ids)
    from tqdm.auto import tqdm

    with tqdm(total=len(refs), desc=metric.label, unit="pair", leave=False) as bar:
        return metric.score(refs, cands, lang, ids=ids, progress=bar.update)


PAIR_COLUMNS = ["id", "dataset", "benchmark", "task", "level", "variant_type", "lang", "reference", "candidate",
                "df_score"]


def pairs_frame(pairs: Sequence[Any]) -> pd.DataFrame:
    """Pairs (:class:`~lcl.core.records.Pair` or LoCaL dataset rows) as one table with the columns
    ``id, dataset, benchmark, task, level, variant_type, lang, reference, candidate, df_score``."""
    rows = []
    for p in pairs:
        if isinstance(p, dict):
            p = pair_from_row(p)
        rows.append({"id": p.id, "dataset": p.dataset, "benchmark": p.benchmark, "task": p.task,
                     "level": p.level, "variant_type": p.variant_type, "lang": p.lang,
                     "reference": p.reference, "candidate": p.candidate, "df_score": p.df_score})
    return pd.DataFrame(rows, columns=PAIR_COLUMNS)
