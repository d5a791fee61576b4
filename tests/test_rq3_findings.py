"""Notebook 05's sentences on RQ3, from small hand-set tables."""

from __future__ import annotations

import pandas as pd

from lcl.engine import regions
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
    assert lines[0].startswith("- Algorithm 2 under authors' rules (x_lo, y_lo in [0.10, 0.65]")
    assert lines[0].endswith("gives x_lo = 0.65, x_hi = 0.90, y_lo = 0.10, y_hi = 0.90 on our points (paper in the "
                             "table above; absolute gives 0.60 / 0.85 / 0.10 / 0.95); x_lo, x_hi, y_lo, y_hi sit on an "
                             "end of the search range.")
    assert lines[1].startswith("- Under the paper's thresholds, LoCaL_balanced: 30.0% in SFD")
    assert lines[1].endswith("LoCaL covers both corners better than the baseline, as in the paper.")
    assert lines[2] == ("- Control points: mean distance to the nearest corner, divided by sqrt(2) as the paper's, 0.2 "
                        "(LoCaL) vs 0.4 (baseline).")
    assert "By source: PIE fast programs 55.0% of 40" in lines[3] and lines[3].endswith("by source: PIE fast programs 60.0%.")
    assert F.found(TH, OTHER, 0.05, *_tables(local_sfd=1.0))[1].endswith("does not cover both corners better than "
                                                                         "the baseline here.")
    # without a fit (too few pairs for the authors' minimum sizes) the paper-threshold numbers are still reported
    none = F.found(None, None, 0.05, *_tables())
    assert none[0].startswith("- Algorithm 2 under authors' rules") and "finds no threshold tuple" in none[0]
    assert none[3].startswith("- Hit rates: Under the paper's thresholds: 70.0% of the mutants in SFD")
    cov, *rest = _tables()
    assert F.found(TH, None, 0.05, cov.iloc[:1], *rest)[1].startswith("- **Not computed:**")


def _rules_table(authors: tuple[float, ...], unbounded: tuple[float, ...], on: str) -> pd.DataFrame:
    rows = []
    for rules, th, bound in ((regions.AUTHORS.name, authors, on), (regions.AUTHORS.without("bounds").name, unbounded, ""),
                             (regions.AS_PRINTED.name, (0.45, 0.9, 0.05, 1.0), "y_hi")):
        rows.append({"Points": "theirs", "Metrics": "m", "Rules": rules, "n": 100,
                     **dict(zip(F.THRESHOLDS, th, strict=True)),
                     **{f"{k} CI low": v - 0.05 for k, v in zip(F.THRESHOLDS, th, strict=True)},
                     **{f"{k} CI high": v for k, v in zip(F.THRESHOLDS, th, strict=True)}, coverage.ON_BOUND: bound})
    return pd.DataFrame(rows)


def test_the_bounds_finding_is_computed() -> None:
    paper = Thresholds(0.65, 0.9, 0.1, 0.9, float("nan"), 0.05, "paper")
    t = _rules_table((0.65, 0.9, 0.1, 0.9), (0.75, 0.9, 0.1, 0.95), "x_lo, x_hi, y_lo, y_hi")
    lines = F.bounds_sentence(paper, t)
    assert lines[0].startswith("- **The paper's thresholds are bounds of its search**: x_lo, x_hi, y_lo, y_hi of the "
                               "paper's (0.65, 0.90, 0.10, 0.90)")
    assert lines[1].endswith("without the bounds (0.75 [0.70, 0.75], 0.90 [0.85, 0.90], 0.10 [0.05, 0.10], "
                             "0.95 [0.90, 0.95]) (x_lo, y_hi move).")
    inner = Thresholds(0.5, 0.8, 0.2, 0.85, float("nan"), 0.05, "paper")
    assert F.bounds_sentence(inner, t)[0].startswith("- None of the paper's thresholds sits on an end")
    assert F.bounds_sentence(None, t)[0].startswith("- **Not computed:**")
    x_lo = F.rules_sentence(t)
    assert x_lo == ["- x_lo on theirs (m), by search rules: authors' rules 0.65 [0.60, 0.65]; authors' rules, without "
                    "the search bounds 0.75 [0.70, 0.75]; Algorithm 2 as printed 0.45 [0.40, 0.45]."]


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
