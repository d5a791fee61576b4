"""``make verify`` (Maneage-style): regenerated tables vs committed reference outputs.

Reference outputs live in ``data/reference/expected/<profile>/<table>.csv``; tolerances in
``data/reference/expected/tolerances.toml``. Every cell is compared **exactly** (``[default]``:
1e-9 absolute) unless a ``[[<table>.loose]]`` rule of its table covers it: counts, SurfaceSim,
CodeBLEU, CrystalBLEU and everything computed from them alone are deterministic, so a change of one
such cell is a change of the analysis. A loose rule names the cells whose value rests on something
that is not bit-stable across machines (the MiniLM encoder, which runs in bf16 or fp32 by CPU; a
trained model; a fuzz label re-executed under a time limit): ``rows``, a regular expression over the
table's ``key`` column (all rows when absent), ``columns``, one over column names (all when absent),
the ``class`` of what it rests on (``[classes.<name>]``, each saying how its spread was measured:
:func:`spread` between two builds) and its ``atol``/``rtol`` from that measurement (a ``name`` tells
two rules of one class apart in the measurement). Non-numeric cells match exactly, or, with
``mask_numbers`` in a loose rule, once every number in them is masked (a claim's reason quotes numbers
that move within its value's tolerance; its words must not). A table's ``columns`` restricts the
comparison to those columns. ``lcl verify --record`` copies the current tables there, ``--only`` a
subset (review the diff before committing it); ``lcl verify --spread DIR`` measures the spread
between this build's tables and another build's.
"""

from __future__ import annotations

import math
import re
import shutil
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from lcl.core import paths
from lcl.core.errors import UserError

EXACT_ATOL = 1e-9


@dataclass
class Mismatch:
    table: str
    row: int
    column: str
    expected: object
    got: object
    rule: str = "exact"


@dataclass(frozen=True)
class Rule:
    """One tolerance and the cells it covers (None: every row / every column)."""

    atol: float = EXACT_ATOL
    rtol: float = 0.0
    rows: re.Pattern[str] | None = None
    columns: re.Pattern[str] | None = None
    mask_numbers: bool = False
    name: str = "exact"

    def covers(self, key: str, column: str) -> bool:
        return ((self.rows is None or bool(self.rows.search(key)))
                and (self.columns is None or bool(self.columns.search(column))))


@dataclass(frozen=True)
class TableTolerance:
    """How one table is compared: its row key, its compared columns, the exact rule and the loose ones."""

    key: str | None = None
    columns: tuple[str, ...] | None = None
    exact: Rule = field(default_factory=Rule)
    loose: tuple[Rule, ...] = ()

    def rule(self, key: str, column: str) -> Rule:
        """The first loose rule covering the cell, else the exact one."""
        return next((r for r in self.loose if r.covers(key, column)), self.exact)


def expected_dir(profile: str, *, registry_only: bool = False) -> Path:
    """The recorded outputs of ``profile``: with every source (the mirror present), or, for a run
    whose mirror-only sources were skipped, those recorded by such a run (``registry-only/``)."""
    return paths.expected_outputs("registry-only") / profile if registry_only else paths.expected_outputs(profile)


def tolerances() -> dict[str, dict]:
    """The raw tolerance file (``[default]``, ``[classes.*]`` and one section per table)."""
    path = paths.tolerances()
    if not path.exists():
        return {"default": {"atol": EXACT_ATOL, "rtol": 0.0}}
    with open(path, "rb") as fh:
        return tomllib.load(fh)


def table_tolerance(table: str, raw: Mapping[str, dict] | None = None) -> TableTolerance:
    """``table``'s comparison rules from the tolerance file (``raw``: already read)."""
    raw = tolerances() if raw is None else raw
    default = raw.get("default", {})
    exact = Rule(float(default.get("atol", EXACT_ATOL)), float(default.get("rtol", 0.0)))
    section = raw.get(table, {})
    classes = raw.get("classes", {})
    loose = []
    for i, entry in enumerate(section.get("loose", [])):
        cls = entry.get("class")
        if cls is not None and cls not in classes:
            raise UserError(f"{paths.tolerances()}: [{table}] loose rule {i + 1} names class {cls!r}, "
                            f"which [classes] does not define (defined: {', '.join(sorted(classes)) or 'none'})")
        base = classes.get(cls, {}) if cls else {}
        loose.append(Rule(float(entry.get("atol", base.get("atol", EXACT_ATOL))),
                          float(entry.get("rtol", base.get("rtol", 0.0))),
                          re.compile(entry["rows"]) if "rows" in entry else None,
                          re.compile(entry["columns"]) if "columns" in entry else None,
                          bool(entry.get("mask_numbers", False)),
                          str(entry.get("name") or cls or f"{table}.loose[{i}]")))
    cols = section.get("columns")
    return TableTolerance(section.get("key"), tuple(cols) if cols else None, exact, tuple(loose))


_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")


def mask_numbers(text: str) -> str:
    """``text`` with every number replaced by ``#`` (reasons compared by their words)."""
    return _NUMBER.sub("#", text)


def _close(a: object, b: object, atol: float, rtol: float, masked: bool = False) -> bool:
    na, nb = pd.isna(a), pd.isna(b)
    if na or nb:
        return bool(na and nb)
    try:
        fa, fb = float(a), float(b)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return mask_numbers(str(a)) == mask_numbers(str(b)) if masked else str(a) == str(b)
    return math.isclose(fa, fb, abs_tol=atol, rel_tol=rtol)


def compare_table(name: str, expected: pd.DataFrame, got: pd.DataFrame, atol: float, rtol: float,
                  masked: bool = False) -> list[Mismatch]:
    """Every cell under one tolerance (the table-wide rule of a file without loose rules)."""
    return compare(name, expected, got, TableTolerance(exact=Rule(atol, rtol, mask_numbers=masked)))


def compare(name: str, expected: pd.DataFrame, got: pd.DataFrame, tol: TableTolerance) -> list[Mismatch]:
    """Cell by cell, each under the rule that covers it (:meth:`TableTolerance.rule`)."""
    if list(expected.columns) != list(got.columns):
        return [Mismatch(name, -1, "<columns>", list(expected.columns), list(got.columns))]
    if len(expected) != len(got):
        return [Mismatch(name, -1, "<rows>", len(expected), len(got))]
    keys = _row_keys(expected, tol.key)
    out: list[Mismatch] = []
    for i, key in enumerate(keys):
        for col in expected.columns:
            rule = tol.rule(key, str(col))
            a, b = expected.iloc[i][col], got.iloc[i][col]
            if not _close(a, b, rule.atol, rule.rtol, rule.mask_numbers):
                out.append(Mismatch(name, i, str(col), a, b, rule.name))
    return out


def _row_keys(frame: pd.DataFrame, key: str | None) -> list[str]:
    """Each row's key (the ``key`` column as text; '' without one, which only rules without
    ``rows`` cover)."""
    if key is None:
        return [""] * len(frame)
    if key not in frame.columns:
        raise UserError(f"{paths.tolerances()}: key column {key!r} is not a column of the table "
                        f"(columns: {', '.join(map(str, frame.columns))})")
    return [str(v) for v in frame[key]]


def verify(profile: str, *, registry_only: bool = False) -> tuple[list[str], list[Mismatch], list[str]]:
    """Compare every expected table; returns (checked, mismatches, missing outputs)."""
    exp = expected_dir(profile, registry_only=registry_only)
    if not exp.is_dir():
        raise UserError(f"no reference outputs for profile {profile!r} in {exp}; record them with "
                        f"`lcl verify --record --profile {profile}`")
    return verify_dirs(exp, paths.tables())


def verify_dirs(expected: Path, tables: Path) -> tuple[list[str], list[Mismatch], list[str]]:
    """Every recorded table in ``expected`` against its namesake in ``tables``."""
    raw = tolerances()
    checked, mismatches, missing = [], [], []
    for ref in sorted(expected.glob("*.csv")):
        got_path = tables / ref.name
        if not got_path.exists():
            missing.append(ref.name)
            continue
        tol = table_tolerance(ref.stem, raw)
        mismatches += compare(ref.stem, _columns(pd.read_csv(ref), tol), _columns(pd.read_csv(got_path), tol), tol)
        checked.append(ref.name)
    return checked, mismatches, missing


def _columns(frame: pd.DataFrame, tol: TableTolerance) -> pd.DataFrame:
    """``frame`` restricted to the tolerance's ``columns`` (all when none are listed)."""
    return frame if not tol.columns else frame[[c for c in tol.columns if c in frame.columns]]


def spread(tables_a: Path, tables_b: Path, names: list[str] | None = None) -> pd.DataFrame:
    """The largest absolute and relative difference between two builds' tables, per table and
    rule (``exact`` or a loose rule's class), over the numeric cells both have; the measurement
    behind a class's tolerance (e.g. a build with the encoder in fp32 and another kernel set
    against the default build). Tables whose shape differs are listed with ``cells`` = -1."""
    raw = tolerances()
    rows: list[dict[str, object]] = []
    for path in sorted(tables_a.glob("*.csv")):
        other = tables_b / path.name
        if (names and path.stem not in names) or not other.exists():
            continue
        a, b = pd.read_csv(path), pd.read_csv(other)
        tol = table_tolerance(path.stem, raw)
        if list(a.columns) != list(b.columns) or len(a) != len(b) or (tol.key and tol.key not in a.columns):
            rows.append({"table": path.stem, "rule": "<shape>", "cells": -1, "differing": 0,
                         "max_abs": math.nan, "max_rel": math.nan})
            continue
        acc: dict[str, list[float]] = {}
        for i, key in enumerate(_row_keys(a, tol.key)):
            for col in a.columns:
                x, y = _number(a.iloc[i][col]), _number(b.iloc[i][col])
                if x is None or y is None:
                    continue
                d = abs(x - y)
                stats = acc.setdefault(tol.rule(key, str(col)).name, [0, 0, 0.0, 0.0])
                stats[0] += 1
                stats[1] += d > 0
                stats[2] = max(stats[2], d)
                stats[3] = max(stats[3], d / max(abs(x), abs(y)) if d else 0.0)
        rows += [{"table": path.stem, "rule": r, "cells": int(s[0]), "differing": int(s[1]),
                  "max_abs": s[2], "max_rel": s[3]} for r, s in acc.items()]
    return pd.DataFrame(rows, columns=["table", "rule", "cells", "differing", "max_abs", "max_rel"])


def _number(v: object) -> float | None:
    if isinstance(v, bool) or pd.isna(v):
        return None
    try:
        f = float(v)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None
    return f if math.isfinite(f) else None


def record(profile: str, only: list[str] | None = None, *, registry_only: bool = False) -> list[Path]:
    """Copy the current tables (or those named in ``only``) to the profile's expected outputs."""
    exp = expected_dir(profile, registry_only=registry_only)
    exp.mkdir(parents=True, exist_ok=True)
    out = []
    for table in sorted(paths.tables().glob("*.csv")):
        if only and table.stem not in only:
            continue
        shutil.copyfile(table, exp / table.name)
        out.append(exp / table.name)
    return out
