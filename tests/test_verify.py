"""``make verify`` is strict where the numbers are deterministic: a 0.01 change planted in a
deterministic cell of every recorded table is caught, the recorded tables pass against themselves,
and a loose rule covers only what its class names (data/reference/expected/tolerances.toml)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pandas as pd
import pytest

from lcl.core import paths
from lcl.report import verify

from .conftest import ROOT

EXPECTED = ROOT / "data" / "reference" / "expected"
RECORDED = sorted(p for p in EXPECTED.rglob("*.csv"))


def _numeric(v: object) -> bool:
    """A finite number, as ``verify`` reads cells (booleans and blanks are not numbers)."""
    return verify._number(v) is not None


def _deterministic_cells(table: str, frame: pd.DataFrame) -> list[tuple[int, str]]:
    """The first exactly-compared numeric cell of each column (row, column)."""
    tol = verify.table_tolerance(table)
    keys = verify._row_keys(frame, tol.key)
    cells = []
    for col in frame.columns:
        for i, key in enumerate(keys):
            if tol.rule(key, str(col)).name == "exact" and _numeric(frame.iloc[i][col]):
                cells.append((i, str(col)))
                break
    return cells


def test_recorded_tables_are_there() -> None:
    assert len(RECORDED) >= 20, RECORDED
    assert {p.parent.name for p in RECORDED} >= {"full", "quick"}


@pytest.mark.parametrize("ref", RECORDED, ids=lambda p: str(p.relative_to(EXPECTED)))
def test_a_planted_change_in_a_deterministic_cell_fails(ref: Path) -> None:
    tol = verify.table_tolerance(ref.stem)
    expected = verify._columns(pd.read_csv(ref), tol)
    assert verify.compare(ref.stem, expected, expected.copy(), tol) == []
    cells = [(i, col, 0.01) for i, col in _deterministic_cells(ref.stem, expected)]
    if not cells:  # every number rests on a substitute (RQ3's fitted thresholds): beyond its measured spread
        keys = verify._row_keys(expected, tol.key)
        cells = [(i, str(col), 2 * tol.rule(keys[i], str(col)).atol + 0.01) for col in expected.columns
                 for i in range(len(expected)) if _numeric(expected.iloc[i][col])][:1]
    assert cells, f"{ref.name}: no numeric cell"
    for i, col, delta in cells:
        got = expected.copy()
        got[col] = got[col].astype(float)
        got.iloc[i, got.columns.get_loc(col)] += delta
        found = verify.compare(ref.stem, expected, got, tol)
        assert [(m.row, m.column) for m in found] == [(i, col)], (ref.name, i, col)


def test_the_deterministic_metrics_are_exact_and_the_substitutes_are_not() -> None:
    """Which cells are exact is decided by what they rest on, not by the table they sit in."""
    t3 = verify.table_tolerance("table3_correlation")
    assert t3.rule("CodeBLEU", "rho").name == "exact" and t3.rule("CrystalBLEU", "CI low").name == "exact"
    assert t3.rule("CodeBERTScore[MiniLM]", "rho").name == "substitute"
    assert t3.rule("CodeBERTScore[MiniLM]", "rho (paper)").name == "exact"
    t5 = verify.table_tolerance("table5_mae")
    assert t5.rule("", "CodeBLEU CI high").name == "exact" and t5.rule("", "constant score (trivial)").name == "exact"
    assert t5.rule("", "CodeScore-style (retrained) CI low").name == "substitute"
    assert t5.rule("", "mean score (all CEMs)").name == "substitute"
    assert t5.rule("", "CodeScore-style (retrained) (paper)").name == "exact"
    t6 = verify.table_tolerance("table6_training")
    assert t6.rule("", "Combined MAE (mean baseline)").name == "exact" and t6.rule("", "Baseline std").name == "substitute"
    claims = verify.table_tolerance("claims")
    assert claims.rule("T5.CodeScore_test.CodeBLEU", "reproduced_value").name == "exact"  # the dataset, not the CEM
    assert claims.rule("T5.CodeScore_test.CodeScore", "reproduced_value").name == "substitute"
    assert claims.rule("T2.opt.surfacesim", "reason").name == "exact"
    findings = verify.table_tolerance("findings")
    assert findings.rule("X3.auroc_within.CodeBLEU", "value").name == "exact"
    assert findings.rule("X4.ece.codebertscore_minilm", "value").name == "substitute"
    assert findings.rule("X1.run0_reproduced", "value").name == "fuzz_load"


def test_make_verify_fails_on_a_planted_change(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    """End to end through ``lcl verify``: the recorded quick tables pass, one cell moved by 0.01 fails."""
    from lcl import cli

    tables = tmp_path / "tables"
    shutil.copytree(EXPECTED / "quick", tables)
    monkeypatch.setattr(paths, "tables", lambda: tables)
    monkeypatch.setattr(verify, "expected_dir", lambda profile, **_: EXPECTED / profile)
    from lcl.study import sources
    monkeypatch.setattr(sources, "status", dict)
    assert cli.main(["verify", "--profile", "quick"]) == 0
    t1 = pd.read_csv(tables / "table1_datasets.csv")
    t1.loc[0, "# Test cases/problem"] += 0.01
    t1.to_csv(tables / "table1_datasets.csv", index=False)
    assert cli.main(["verify", "--profile", "quick"]) == 1
    out = capsys.readouterr().out
    assert "MISMATCH table1_datasets row 0 [# Test cases/problem]" in out and "1 mismatching cells" in out


def test_a_loose_rule_naming_an_undefined_class_is_a_clean_error(monkeypatch: pytest.MonkeyPatch) -> None:
    from lcl.core.errors import UserError

    raw = {"default": {"atol": 1e-9}, "t": {"loose": [{"class": "nope"}]}}
    with pytest.raises(UserError, match=r"\[t\] loose rule 1 names class 'nope'"):
        verify.table_tolerance("t", raw)


def test_spread_reports_the_largest_difference_per_rule(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    frame = pd.DataFrame({"Metric": ["CodeBLEU", "CodeBERTScore[MiniLM]"], "rho": [0.5, 0.7], "rho (paper)": [0.6, 0.8]})
    frame.to_csv(a / "table3_correlation.csv", index=False)
    frame.assign(rho=[0.5, 0.7003]).to_csv(b / "table3_correlation.csv", index=False)
    s = verify.spread(a, b).set_index("rule")
    assert s.loc["substitute", "max_abs"] == pytest.approx(3e-4) and s.loc["substitute", "differing"] == 1
    assert s.loc["exact", "max_abs"] == 0 and s.loc["exact", "cells"] == 3
