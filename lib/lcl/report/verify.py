"""``make verify`` (Maneage-style): regenerated tables vs committed reference outputs.

Reference outputs live in ``data/reference/expected/<profile>/<table>.csv``; tolerances in
``data/reference/expected/tolerances.toml`` (``[default]`` and per-table ``atol``/``rtol``, and
``columns``: compare only these; non-numeric cells must match exactly, or, with ``mask_numbers``,
match once every number in them is masked: the claims table's reasons quote numbers that move within
the value columns' tolerance, while their words, evidence rows and "unexplained" must not move). ``lcl verify --record`` copies the current tables there, ``--only`` a subset of
them (review the diff before committing it).
"""

from __future__ import annotations

import math
import re
import shutil
import tomllib
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from lcl.core import paths
from lcl.core.errors import UserError


@dataclass
class Mismatch:
    table: str
    row: int
    column: str
    expected: object
    got: object


def expected_dir(profile: str, *, registry_only: bool = False) -> Path:
    """The recorded outputs of ``profile``: with every source (the mirror present), or, for a run
    whose mirror-only sources were skipped, those recorded by such a run (``registry-only/``)."""
    return paths.expected_outputs("registry-only") / profile if registry_only else paths.expected_outputs(profile)


def tolerances() -> dict[str, dict]:
    path = paths.tolerances()
    if not path.exists():
        return {"default": {"atol": 1e-9, "rtol": 1e-6}}
    with open(path, "rb") as fh:
        return tomllib.load(fh)


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
    out: list[Mismatch] = []
    if list(expected.columns) != list(got.columns):
        return [Mismatch(name, -1, "<columns>", list(expected.columns), list(got.columns))]
    if len(expected) != len(got):
        return [Mismatch(name, -1, "<rows>", len(expected), len(got))]
    for i in range(len(expected)):
        for col in expected.columns:
            if not _close(expected.iloc[i][col], got.iloc[i][col], atol, rtol, masked):
                out.append(Mismatch(name, i, col, expected.iloc[i][col], got.iloc[i][col]))
    return out


def verify(profile: str, *, registry_only: bool = False) -> tuple[list[str], list[Mismatch], list[str]]:
    """Compare every expected table; returns (checked, mismatches, missing outputs)."""
    exp = expected_dir(profile, registry_only=registry_only)
    if not exp.is_dir():
        raise UserError(f"no reference outputs for profile {profile!r} in {exp}; record them with "
                        f"`lcl verify --record --profile {profile}`")
    tol = tolerances()
    checked, mismatches, missing = [], [], []
    for ref in sorted(exp.glob("*.csv")):
        got_path = paths.tables() / ref.name
        if not got_path.exists():
            missing.append(ref.name)
            continue
        t = {**tol.get("default", {}), **tol.get(ref.stem, {})}
        expected, got = _columns(pd.read_csv(ref), t), _columns(pd.read_csv(got_path), t)
        mismatches += compare_table(ref.stem, expected, got, t.get("atol", 1e-9), t.get("rtol", 1e-6),
                                    bool(t.get("mask_numbers", False)))
        checked.append(ref.name)
    return checked, mismatches, missing


def _columns(frame: pd.DataFrame, tol: dict) -> pd.DataFrame:
    """``frame`` restricted to the tolerance's ``columns`` (all when none are listed)."""
    cols = tol.get("columns")
    return frame if not cols else frame[[c for c in cols if c in frame.columns]]


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
