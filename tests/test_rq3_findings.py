"""Notebook 05's sentences on RQ3, from small hand-set tables."""

from __future__ import annotations

import pandas as pd

from lcl.engine.regions import Thresholds
from lcl.rq import coverage
from lcl.rq import rq3_findings as F
from lcl.study import scoring

TH = Thresholds(0.65, 0.9, 0.1, 0.9, 0.0, 0.05, "squared")
OTHER = Thresholds(0.6, 0.85, 0.1, 0.95, 0.0, 0.05, "absolute")


def _tables(local_sfd: float = 30.0) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    cov = pd.DataFrame({"Dataset": ["LoCaL_balanced", "CodeScore_test"], "SFD %": [local_sfd, 5.0],
                        "DFS %": [20.0, 7.0], "Control: mean distance to SFD/DFS": [0.2, 0.4]})
    hits = pd.DataFrame({"Variants": ["MUT", "OPT"], "%": [80.0, 45.0]})
    hits_paper = pd.DataFrame({"Variants": ["MUT", "OPT"], "%": [70.0, 50.0], "CI low": [65.0, 40.0],
                               "CI high": [75.0, 60.0]})
    by_source = pd.DataFrame({"Source": ["PIE fast programs"], "%": [55.0], "n": [40], coverage.PAPER_SHARE: [60.0]})
    return cov, hits, hits_paper, by_source


def test_found_reads_the_thresholds_corners_and_hit_rates() -> None:
    lines = F.found(TH, OTHER, 0.05, *_tables())
    assert lines[0] == ("- Algorithm 2 (squared error, step 0.05) gives x_lo = 0.65, x_hi = 0.90, y_lo = 0.10, "
                        "y_hi = 0.90 (paper in the table above; the absolute error gives 0.60 / 0.85 / 0.10 / 0.95).")
    assert lines[1].endswith("LoCaL covers both corners better than the baseline, as in the paper.")
    assert lines[2] == "- Control points: mean distance to the nearest corner 0.2 (LoCaL) vs 0.4 (baseline)."
    assert "By source: PIE fast programs 55.0% of 40" in lines[3] and lines[3].endswith("by source: PIE fast programs 60.0%.")
    assert F.found(TH, OTHER, 0.05, *_tables(local_sfd=1.0))[1].endswith("does not cover both corners better than "
                                                                         "the baseline here.")
    assert F.found(None, None, 0.05, *_tables()) == [
        "- Algorithm 2 could not be fitted here (too few pairs); run a larger profile."]
    cov, *rest = _tables()
    assert F.found(TH, None, 0.05, cov.iloc[:1], *rest)[1].startswith("- **Not computed:**")


def test_paper_values_and_the_metric_split() -> None:
    assert set(F.paper_thresholds()) == {"x_lo", "x_hi", "y_lo", "y_hi"}
    assert set(F.paper_counts()) == {"LoCaL_balanced.SFD", "LoCaL_balanced.DFS", "CodeScore_test.SFD",
                                     "CodeScore_test.DFS"}
    cems = [scoring.label(n) for n in scoring.CEMS]
    subs, plain = F.metric_split(cems)
    assert len(subs) == 2 and len(plain) == 2 and not {scoring.label(n) for n in plain} & set(subs)


def test_sensitivity_sentence_needs_both_fits() -> None:
    row = {"x_lo": 0.6, "x_hi": 0.9, "y_lo": 0.1, "y_hi": 0.9, "MUT in SFD %": 70.0, "OPT in DFS %": 40.0}
    sens = pd.DataFrame([row, {**row, "x_lo": 0.7, "MUT in SFD %": 60.0}])
    assert F.sensitivity_sentence(sens)[0].startswith("- Sensitivity: on LoCaL-all the thresholds are 0.70 / 0.90")
    assert F.sensitivity_sentence(sens.assign(x_lo=[0.6, float("nan")])) == []
