"""lcl.report.findings: the studies' findings table (parts per notebook, joined by `lcl findings`)."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from lcl.report import findings as F
from lcl.core.errors import UserError


def _f(i: str, value: float = 0.5, lo: float | None = 0.4, hi: float | None = 0.6) -> F.Finding:
    return F.Finding(i, "X1", "share", value, f"the share is {value:.2f}", lo, hi, 10)


def test_frame_orders_columns_and_rejects_repeated_ids() -> None:
    t = F.frame([_f("X1.a"), _f("X1.b", lo=None, hi=None)])
    assert list(t.columns) == F.COLUMNS and len(t) == 2
    with pytest.raises(ValueError, match="repeated"):
        F.frame([_f("X1.a"), _f("X1.a")])


@pytest.mark.parametrize("bad", [
    F.Finding("X1.a", "X1", "q", 0.9, "s", 0.1, 0.5),  # value outside its interval
    F.Finding("X1.a", "X1", "q", 0.3, "  "),  # no statement
    F.Finding("X1.a", "X1", "q", 0.3, "s", 0.1, None),  # half an interval
])
def test_bad_findings_are_refused(bad: F.Finding) -> None:
    with pytest.raises(ValueError):
        bad.check()


def test_nan_value_with_interval_is_allowed() -> None:
    F.Finding("X1.a", "X1", "q", math.nan, "no pairs", math.nan, math.nan).check()


def test_collect_joins_parts_in_notebook_order(tmp_path) -> None:
    F.save([_f("X3.a")], "10", profile="smoke", seed=1, directory=tmp_path)
    F.save([_f("X1.a"), _f("X1.b")], "09", profile="smoke", seed=1, directory=tmp_path)
    t = F.collect(tmp_path)
    assert t.finding_id.tolist() == ["X1.a", "X1.b", "X3.a"]
    assert F.collect(tmp_path / "none").empty


def test_collect_refuses_ids_repeated_across_parts_and_foreign_columns(tmp_path) -> None:
    F.save([_f("X1.a")], "09", profile="smoke", seed=1, directory=tmp_path)
    F.save([_f("X1.a")], "10", profile="smoke", seed=1, directory=tmp_path)
    with pytest.raises(UserError, match="repeated"):
        F.collect(tmp_path)
    (tmp_path / "findings_10.csv").unlink()
    pd.DataFrame({"a": [1]}).to_csv(tmp_path / "findings_11.csv", index=False)
    with pytest.raises(UserError, match="findings_11.csv: expected the columns"):
        F.collect(tmp_path)
