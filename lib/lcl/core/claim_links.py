"""Where each paper claim lives in our tables, declared once per claim.

A :class:`Link` names the output table, the row (a key column and its value) and the column
that hold our value of one paper claim, and, where we compute one, the columns of its 95 %
confidence interval or of its standard deviation. The same declaration puts the paper's value
next to ours (:func:`add_paper_columns`, ``<column> (paper)``) and reads our value back for the
claims table (:func:`read`), so a renamed header breaks a test instead of silently turning a
claim into "not reproduced". A :class:`Derived` claim is computed from whole tables (a sum, a
mean over rows, a ratio of two rows).

Each research-question module declares its own links (``CLAIMS``); ``lcl.report.claims.declarations``
gathers them. This module sits at the bottom of the library with the paper's numbers
(:func:`paper_claims`), so the research-question modules can declare links without importing the
report code that judges them.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

import pandas as pd

from . import paths

PAPER_SUFFIX = " (paper)"

#: the four CEMs under the names the paper's tables give them, in the paper's column order
#: (substitutes included: our CodeBERTScore[MiniLM] and CodeScore-style stand in their columns)
PAPER_CEMS: tuple[str, ...] = ("CodeBLEU", "CrystalBLEU", "CodeBERTScore", "CodeScore")


def paper_claims() -> pd.DataFrame:
    """Every number of the paper (``data/reference/paper_claims.csv``), indexed by ``claim_id``."""
    return _read_claims(str(paths.paper_claims()))


@lru_cache(maxsize=4)
def _read_claims(path: str) -> pd.DataFrame:  # cached per file: every RQ table adds paper columns
    return pd.read_csv(path).set_index("claim_id")


def paper_value(claim_id: str) -> float:
    """The paper's value for ``claim_id`` (KeyError when the paper has no such claim)."""
    return float(paper_claims().loc[claim_id, "paper_value"])


def paper_values(claim_ids: Iterable[str]) -> dict[str, float]:
    """:func:`paper_value` of each of ``claim_ids``."""
    return {c: paper_value(c) for c in claim_ids}


@dataclass(frozen=True)
class Link:
    """Our value of ``claim_id``: ``table``'s row whose ``key_column`` equals ``key``, ``column``."""

    claim_id: str
    table: str
    key_column: str
    key: str
    column: str
    low: str = ""  # column of the 95 % CI's lower bound (same row)
    high: str = ""  # column of its upper bound
    std: str = ""  # column of the standard deviation over repetitions or models
    tolerance: float = math.nan  # fixed tolerance, only where no uncertainty exists
    tolerance_reason: str = ""  # why that tolerance (written next to the claim)
    paper: bool = True  # False: an auxiliary value read for a conclusion, no paper column
    ci_table: str = ""  # companion table (rows keyed by claim_id) holding the CI/std instead
    n: str = ""  # column of our replicate count (repetitions, models) behind a mean +/- std
    paper_n: int = 0  # the paper's replicate count for the same mean +/- std (0: not a mean of replicates)
    grid: float = math.nan  # the value lives on a grid of this step (Algorithm 2): judged by equality on it


@dataclass(frozen=True)
class Derived:
    """A claim computed from whole tables (``compute`` gets them by name; None when absent)."""

    claim_id: str
    tables: tuple[str, ...]
    compute: Callable[[dict[str, pd.DataFrame]], float]
    tolerance: float = math.nan
    tolerance_reason: str = ""
    #: a 95 % interval for the value (bootstrap over models or pairs, or a stated propagation),
    #: from ``interval_tables`` (None when they are absent or too small); ``interval_reason`` says how
    interval: Callable[[dict[str, pd.DataFrame]], tuple[float, float]] | None = None
    interval_tables: tuple[str, ...] = ()
    interval_reason: str = ""


def id_row_reading(claim_id: str, table: str, reason: str) -> Derived:
    """``claim_id``'s row of ``table`` (a table keyed by an ``id`` column with ``value``, ``CI low``
    and ``CI high``): its value and its interval, computed as ``reason`` says."""
    def row(t: dict[str, pd.DataFrame]) -> pd.Series:
        f = t[table]
        return f[f["id"] == claim_id].iloc[0]

    def interval(t: dict[str, pd.DataFrame]) -> tuple[float, float]:
        r = row(t)
        return float(r["CI low"]), float(r["CI high"])
    return Derived(claim_id, (table,), lambda t: float(row(t)["value"]), interval=interval,
                   interval_tables=(table,), interval_reason=reason)


@dataclass(frozen=True)
class Reading:
    """Our value of one claim with its uncertainty (NaN where none)."""

    value: float
    low: float = math.nan
    high: float = math.nan
    std: float = math.nan
    n: float = math.nan  # replicate count behind ``std`` (NaN when not a mean of replicates)
    how: str = ""  # how the interval was computed, when the declaration says


Declaration = Link | Derived


def paper_column(column: str) -> str:
    return f"{column}{PAPER_SUFFIX}"


def _row_index(frame: pd.DataFrame, link: Link) -> int | None:
    if link.key_column not in frame.columns:
        return None
    hits = [i for i, v in enumerate(frame[link.key_column]) if str(v) == link.key]
    return hits[0] if hits else None


def missing_columns(frame: pd.DataFrame, links: Iterable[Link]) -> list[str]:
    """Columns the links name that ``frame`` lacks (``table: column``)."""
    out = []
    for link in links:
        for col in (link.key_column, link.column, link.low, link.high, link.std):
            if col and col not in frame.columns:
                out.append(f"{link.table}: {col!r} ({link.claim_id})")
    return sorted(set(out))


def add_paper_columns(frame: pd.DataFrame, links: Sequence[Declaration], table: str) -> pd.DataFrame:
    """``frame`` (the output table ``table``) with ``<column> (paper)`` after each linked value
    (after its std/CI columns when declared), and ``<std> (paper)`` where the paper gives a std.
    Values come from the claims data, never typed in; rows without a claim get NaN."""
    ref = paper_claims()
    out = frame.reset_index(drop=True).copy()
    mine = [lk for lk in links if isinstance(lk, Link) and lk.table == table and lk.paper]
    for column in dict.fromkeys(lk.column for lk in mine):
        group = [lk for lk in mine if lk.column == column]
        values = [math.nan] * len(out)
        stds = [math.nan] * len(out)
        for lk in group:
            i = _row_index(out, lk)
            if i is not None:
                values[i] = float(ref.loc[lk.claim_id, "paper_value"])
                stds[i] = float(ref.loc[lk.claim_id, "paper_std"])
        anchor = _anchor(out, column, group[0].std)
        out.insert(anchor + 1, paper_column(column), values)
        std_col = group[0].std
        if std_col and any(not math.isnan(s) for s in stds):
            out.insert(anchor + 2, paper_column(std_col), stds)
    return out


def _anchor(frame: pd.DataFrame, column: str, std: str) -> int:
    """Position after which the paper column goes: the value column, or its std right after it."""
    cols = list(frame.columns)
    if column not in cols:
        return len(cols) - 1
    i = cols.index(column)
    return i + 1 if std and i + 1 < len(cols) and cols[i + 1] == std else i


def _float(v: object) -> float:
    try:
        f = float(v)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return math.nan
    return f


def read_link(frame: pd.DataFrame, link: Link) -> Reading | None:
    """Our value of ``link`` in ``frame`` (None when the row or the value is missing)."""
    i = _row_index(frame, link)
    if i is None or link.column not in frame.columns:
        return None
    row = frame.iloc[i]
    value = _float(row[link.column])
    if math.isnan(value):
        return None
    def get(c: str | None) -> float:
        return _float(row[c]) if c and c in frame.columns else math.nan

    return Reading(value, get(link.low), get(link.high), get(link.std), get(link.n))


def _with_companion(reading: Reading | None, link: Link, tables: dict[str, pd.DataFrame]) -> Reading | None:
    """``reading`` with the CI/std of the companion table's ``claim_id`` row, where declared."""
    if reading is None or not link.ci_table or link.ci_table not in tables:
        return reading
    t = tables[link.ci_table]
    rows = t[t["claim_id"].astype(str) == link.claim_id] if "claim_id" in t.columns else t.iloc[:0]
    if not len(rows):
        return reading
    r = rows.iloc[0]
    return Reading(reading.value, _float(r.get("CI low")), _float(r.get("CI high")), _float(r.get("std")),
                   _float(r.get("draws")))


def _load_tables(tables_dir: str, names: Iterable[str]) -> dict[str, pd.DataFrame]:
    out = {}
    for name in set(names):
        path = os.path.join(tables_dir, f"{name}.csv")
        if os.path.exists(path):
            try:
                out[name] = pd.read_csv(path)
            except pd.errors.EmptyDataError:  # a notebook that had nothing to write (a skipped source)
                out[name] = pd.DataFrame()
    return out


def read(tables_dir: str, decls: Sequence[Declaration]) -> dict[str, Reading]:
    """Our value of every claim of ``decls`` found in ``tables_dir`` (absent claims left out)."""
    names = [t for d in decls for t in ((d.table, d.ci_table) if isinstance(d, Link) else d.tables + d.interval_tables)
             if t]
    tables = _load_tables(tables_dir, names)
    out: dict[str, Reading] = {}
    for d in decls:
        if isinstance(d, Link):
            got = _with_companion(read_link(tables[d.table], d) if d.table in tables else None, d, tables)
        else:
            got = _derive(d, tables)
        if got is not None:
            out[d.claim_id] = got
    return out


def _derive(d: Derived, tables: dict[str, pd.DataFrame]) -> Reading | None:
    if not all(t in tables for t in d.tables):
        return None
    try:
        value = float(d.compute(tables))
    except (KeyError, IndexError, ValueError, ZeroDivisionError):
        return None
    if math.isnan(value):
        return None
    if d.interval is None:
        return Reading(value)
    if absent := [t for t in d.interval_tables if t not in tables]:
        return Reading(value, how=f"its interval's table {', '.join(absent)} is absent")
    try:
        low, high = d.interval(tables)
    except (KeyError, IndexError, ValueError, ZeroDivisionError):
        return Reading(value)
    return Reading(value, float(low), float(high), how=d.interval_reason)


def tables_of(claim_id: str, decls: Sequence[Declaration]) -> tuple[str, ...]:
    """The output tables a claim is read from."""
    for d in decls:
        if d.claim_id == claim_id:
            return (d.table,) if isinstance(d, Link) else d.tables
    return ()
