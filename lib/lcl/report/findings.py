"""Findings of the studies beyond the paper (notebooks 09-11), in one table beside the claims.

The claims table (:mod:`lcl.report.claims`) judges our numbers against the paper's; the studies of
notebooks 09-11 ask questions the paper does not, so they have no paper value to meet. Each
headline number of a study is a :class:`Finding`: an id, the number, its 95% interval where
uncertainty exists, the sample it rests on, and a one-sentence statement computed from the data
(so the sentence changes when the data do). The record itself is :class:`lcl.core.records.Finding`,
so the research-question modules (:mod:`lcl.rq`) can build a study's findings; this module writes and joins them.

Each notebook writes its own part, ``tables/findings_<notebook>.csv`` (:func:`save`); ``lcl
findings`` joins the parts into ``tables/findings.csv`` (:func:`collect`), a declared output of
the Makefile that ``make verify`` compares like any table.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import asdict
from pathlib import Path

import pandas as pd

from lcl.core import paths
from lcl.core.errors import UserError
from lcl.core.records import Finding

from . import outputs

COLUMNS = ["finding_id", "study", "quantity", "value", "ci_low", "ci_high", "n", "statement"]
#: the parts ``collect`` joins, in this order (one per study notebook)
PART_PREFIX = "findings_"


def frame(findings: Iterable[Finding]) -> pd.DataFrame:
    """The findings as a table in :data:`COLUMNS` order; ids must be unique."""
    rows = list(findings)
    for f in rows:
        f.check()
    ids = [f.finding_id for f in rows]
    dup = sorted({i for i in ids if ids.count(i) > 1})
    if dup:
        raise ValueError(f"repeated finding ids: {', '.join(dup)}")
    return pd.DataFrame([asdict(f) for f in rows], columns=COLUMNS)


def save(findings: Sequence[Finding], notebook: str, *, profile: str, seed: int | None,
         directory: Path | None = None) -> pd.DataFrame:
    """Write ``findings_<notebook>.csv`` (and ``.md``); returns the table."""
    table = frame(findings)
    outputs.save_table(table, f"{PART_PREFIX}{notebook}", profile=profile, seed=seed, directory=directory,
                       title=f"Findings of notebook {notebook}: each headline number, its 95% interval, and "
                             "the sentence computed from it")
    return table


def collect(directory: Path | None = None) -> pd.DataFrame:
    """Every part under ``directory`` joined in notebook order; an empty table when none exist."""
    directory = directory or paths.tables()
    parts = sorted(directory.glob(f"{PART_PREFIX}*.csv"))
    frames = [pd.read_csv(p) for p in parts]
    for p, f in zip(parts, frames):
        if list(f.columns) != COLUMNS:
            raise UserError(f"{p}: expected the columns {', '.join(COLUMNS)}, found {', '.join(map(str, f.columns))}")
    table = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=COLUMNS)
    dup = table.finding_id[table.finding_id.duplicated()].tolist()
    if dup:
        raise UserError(f"{directory}: finding ids repeated across notebooks: {', '.join(map(str, dup))}")
    return table


def write_joined(profile: str, seed: int | None, directory: Path | None = None) -> tuple[Path, pd.DataFrame]:
    """Join the parts under ``directory`` (:func:`collect`) into ``findings.csv`` (and ``.md``)
    there; returns its path and the table. No part yet is a :class:`~lcl.core.errors.UserError`."""
    directory = directory or paths.tables()
    table = collect(directory)
    if table.empty:
        raise UserError(f"{directory}: no {PART_PREFIX}*.csv yet; run notebooks 09-11 first (make all)")
    outputs.save_table(table, "findings", profile=profile, seed=seed, directory=directory,
                       title="Findings beyond the paper (notebooks 09-11)",
                       notes=["Each statement is computed from the value beside it; intervals are 95%."])
    return directory / "findings.csv", table
