"""The claim rules: no "holds" on an unresolved ordering or a tie, no aggregate that mixes a
substitute with the real metrics, no pair of conclusions that contradict, directional conclusions
on a substitute under their own label, thresholds on the search's bound said so.

Each rule is checked against the recorded full-profile claims table of an earlier build (its rows
copied here, not read from disk), on which the rule's test fails, and against the readings of that
same build judged by today's rules, on which it passes."""

from __future__ import annotations

import pandas as pd
import pytest

from lcl.core import claim_links
from lcl.core.claim_links import Reading
from lcl.report import claims, conclusions
from lcl.rq import effectiveness


def _row(table: pd.DataFrame, cid: str) -> pd.Series:
    return table.set_index("claim_id").loc[cid]


# ----------------------------------------------------------------------------- the recorded build
#: rows of the recorded full-profile claims table (an earlier build's tables/claims.csv): status and,
#: for a number, its interval, as that build wrote them
RECORDED = pd.DataFrame([
    {"claim_id": "C.RQ5.small_p", "kind": "conclusion", "status": "holds", "ci_low": None},
    {"claim_id": "C.RQ5.combined", "kind": "conclusion", "status": "fails", "ci_low": None},
    {"claim_id": "RQ5.combined_drop", "kind": "number", "status": "outside tolerance", "ci_low": -7.248725},
    {"claim_id": "C.RQ5.local_test", "kind": "conclusion", "status": "fails", "ci_low": None},
    {"claim_id": "C.RQ5.baseline_minor", "kind": "conclusion", "status": "fails", "ci_low": None},
    {"claim_id": "RQ5.local_test_reduction", "kind": "number", "status": "outside tolerance", "ci_low": 28.927976},
    {"claim_id": "C.RQ4.ratio_order", "kind": "conclusion", "status": "holds", "ci_low": None},
    {"claim_id": "C.RQ4.apps_pie.CodeBLEU", "kind": "conclusion", "status": "holds", "ci_low": None},
])

#: that build's readings behind Section 4.6's and 4.7's conclusions (values, intervals, stds)
RECORDED_READINGS: dict[str, Reading] = {
    "T6.Combined.0": Reading(0.312635, std=0.023655, n=5), "T6.Combined.20": Reading(0.257243, std=0.018983, n=5),
    "T6.Combined.100": Reading(0.308588, std=0.021504, n=5),
    "RQ5.combined_drop": Reading(1.294348, -7.248725, 8.952289),
    "RQ5.local_test_reduction": Reading(34.241624, 28.927976, 38.629313),
    "RQ5.baseline_increase": Reading(36.555008, 23.986075, 49.787574),
    "aux.RQ4.ratio.CodeBLEU": Reading(2.95), "aux.RQ4.ratio.CrystalBLEU": Reading(2.74),
    **{f"aux.RQ4.bench.{b}.CodeBLEU": Reading(x) for b, x in
       (("APPS", 0.807), ("PIE", 0.8), ("HumanEval", 0.707), ("MBPP", 0.779))},
}


def test_the_contradiction_check_finds_the_recorded_pair():
    """The recorded table holds C.RQ5.small_p ("most of the gain at p = 20") while the gain itself,
    C.RQ5.combined, fails and RQ5.combined_drop's interval spans 0: the check names both."""
    found = claims.contradictions(RECORDED)
    assert ("C.RQ5.small_p", "C.RQ5.combined") in [(a, b) for a, b, _ in found]
    assert ("C.RQ5.small_p", "RQ5.combined_drop") in [(a, b) for a, b, _ in found]
    fixed = RECORDED.assign(status=RECORDED.status.where(RECORDED.claim_id != "C.RQ5.small_p", "fails"))
    assert claims.contradictions(fixed) == []


def test_no_two_conclusions_contradict_on_the_recorded_readings():
    t = claims.compare(RECORDED_READINGS)
    assert claims.contradictions(t) == []
    row = _row(t, "C.RQ5.small_p")
    assert row.status == claims.FAILS and "not resolved" in row.reason


def test_every_implication_names_declared_claims():
    ids = set(claims.compare({}).claim_id)
    for imp in conclusions.IMPLIES:
        assert imp.premise in ids and imp.consequence in ids, imp


def test_the_recorded_orderings_on_point_estimates_no_longer_hold():
    """2.95 against 2.74 (ratio) and 0.807 against 0.800 (APPS, PIE) held on points in the recorded
    table; without their paired difference intervals they are not resolved."""
    t = claims.compare(RECORDED_READINGS)
    for cid in ("C.RQ4.ratio_order", "C.RQ4.apps_pie.CodeBLEU"):
        assert _row(RECORDED, cid).status == claims.HOLDS
        assert _row(t, cid).status == claims.MISSING, cid
    tie = dict(RECORDED_READINGS, **{"aux.RQ4.diff.ratio.CodeBLEU-CrystalBLEU": Reading(0.21, -0.08, 0.5)})
    assert _row(claims.compare(tie), "C.RQ4.ratio_order").status == claims.FAILS
    apart = dict(RECORDED_READINGS, **{"aux.RQ4.diff.ratio.CodeBLEU-CrystalBLEU": Reading(0.21, 0.05, 0.4)})
    assert _row(claims.compare(apart), "C.RQ4.ratio_order").status == claims.HOLDS


# ----------------------------------------------------------------------------- no holds on overlap
#: conclusions whose "holds" means our interval contains the paper's value (a share, the worst
#: cases' gap): a wide interval holds them by design, so the overlap scan checks them apart
CONTAINMENT = ("C.RQ3.mut_in_sfd", "C.RQ3.opt_in_dfs", "C.RQ3.released.mut_in_sfd", "C.RQ3.released.opt_in_dfs",
               "C.RQ4.worst_gap")


def _tied(width: float) -> dict[str, Reading]:
    """Every reading any conclusion reads at the same value 1.0 with an interval of ``width`` either
    side (ties everywhere, every interval overlapping every other and every bar), the difference
    readings spanning 0, and CrystalBLEU's zeros at the 'often' bar."""
    ids = {d.claim_id for d in claims.declarations()}
    ids |= {conclusions.RQ2_DROP_DIFF.format(a=a, b=b) for a in conclusions.CEMS for b in conclusions.CEMS}
    ids |= {conclusions.RQ5_HALF_AT_20}
    v = {cid: Reading(1.0, 1.0 - width, 1.0 + width) for cid in ids}
    v.update({"aux.T3.CrystalBLEU.zeros": Reading(10.0), "aux.T3.CrystalBLEU.n": Reading(100.0)})
    return v


def test_no_conclusion_holds_where_every_interval_overlaps():
    t = claims.compare(_tied(100.0))
    concl = t[(t.kind == "conclusion") & ~t.claim_id.isin(CONTAINMENT)]
    passed = concl[concl.status.isin(conclusions.PASSED)]
    assert passed.empty, passed[["claim_id", "status", "reason"]].to_string()
    # a point estimate alone (no interval at all) resolves nothing either
    points = claims.compare({k: Reading(r.value) for k, r in _tied(100.0).items()})
    concl = points[(points.kind == "conclusion") & ~points.claim_id.isin(CONTAINMENT)]
    assert not concl.status.isin(conclusions.PASSED).any()


def test_a_containment_conclusion_holds_only_when_its_interval_contains_the_papers_value():
    inside = claims.compare(_tied(100.0))
    outside = claims.compare({k: Reading(1.0, 0.999, 1.001) for k in _tied(1.0)})
    for cid in CONTAINMENT:
        assert _row(inside, cid).status == claims.HOLDS, cid
        assert _row(outside, cid).status == claims.FAILS, cid


def test_a_zero_width_interval_resolves_nothing():
    v = {"aux.RQ3.local.dfs_share": Reading(43.9, 43.9, 43.9), "aux.RQ3.base.dfs_share": Reading(16.3, 16.3, 16.3)}
    row = _row(claims.compare(v), "C.RQ3.dfs")
    assert row.status == claims.NOT_COMPARABLE and "zero-width" in row.reason


# ----------------------------------------------------------------------------- shares
def test_a_share_the_paper_states_is_tested_as_that_share():
    # the authors' released optimised variants: 51.7 % [44.9, 58.5] against the paper's 50.97 %
    # (its own 237 of 465 would fail "Wilson CI above 50 %")
    t = claims.compare({"aux.RQ3.released.opt": Reading(51.7, 44.9, 58.5)})
    assert _row(t, "C.RQ3.released.opt_in_dfs").status == claims.HOLDS


# ----------------------------------------------------------------------------- aggregates
def test_the_mean_increase_is_judged_on_the_real_metrics_against_the_papers_same_mean():
    """The recorded 0.38 averaged the substitutes in; over CodeBLEU and CrystalBLEU ours is 0.490
    [0.468, 0.512], against the paper's Table 5 mean over the same two (not its four-CEM 0.47)."""
    real = [c for c in conclusions.CEMS if c not in conclusions.SUBSTITUTES]
    theirs = sum(claim_links.paper_value(f"T5.LoCaL.{c}") - claim_links.paper_value(f"T5.CodeScore_test.{c}")
                 for c in real) / len(real)
    t = claims.compare({"RQ4.mean_mae_increase": Reading(0.490, 0.468, 0.512)})
    row = _row(t, "RQ4.mean_mae_increase")
    assert row.paper_value == pytest.approx(theirs)
    assert row.status == claims.WITHIN and " and ".join(real) in row.judged_by
    assert f"{claim_links.paper_value('RQ4.mean_mae_increase'):g}" in row.judged_by  # the printed value, named


def test_the_aggregates_are_read_from_the_bootstrap_over_pairs(tmp_path):
    """RQ4.mean_mae_increase and RQ4.worst100_gap come from rq4_intervals' real-metric rows; the
    per-metric worst-case means alone (rq4_worst_cases) give no reading (no bootstrap over four means)."""
    decls = [d for d in effectiveness.CLAIMS if d.claim_id in ("RQ4.mean_mae_increase", "RQ4.worst100_gap")]
    pd.DataFrame({"Metric": ["CodeBLEU", "CrystalBLEU"], "mean |SurfaceSim - df_score|": [0.99, 0.75]}).to_csv(
        tmp_path / "rq4_worst_cases.csv", index=False)
    assert claim_links.read(str(tmp_path), decls) == {}
    pd.DataFrame([{"id": "RQ4.mean_mae_increase", "value": 0.49, "CI low": 0.468, "CI high": 0.512},
                  {"id": "aux.RQ4.mean_mae_increase.all", "value": 0.38, "CI low": 0.36, "CI high": 0.40},
                  {"id": "RQ4.worst100_gap", "value": 0.87, "CI low": 0.86, "CI high": 0.88}]).to_csv(
        tmp_path / f"{effectiveness.INTERVALS}.csv", index=False)
    got = claim_links.read(str(tmp_path), decls)
    assert got["RQ4.mean_mae_increase"] == Reading(0.49, 0.468, 0.512, how=got["RQ4.mean_mae_increase"].how)
    assert "bootstrap over pairs" in got["RQ4.worst100_gap"].how and "substitutes are left out" in \
        got["RQ4.worst100_gap"].how


# ----------------------------------------------------------------------------- statuses
def test_a_threshold_on_the_searchs_bound_says_so():
    on = claims.compare({"RQ3.x_hi": Reading(0.9), "aux.RQ3.on_bound.x_hi": Reading(1.0)})
    row = _row(on, "RQ3.x_hi")
    assert row.status == claims.AT_BOUND and claims.WITHIN in row.reason
    off = claims.compare({"RQ3.x_hi": Reading(0.9), "aux.RQ3.on_bound.x_hi": Reading(0.0)})
    assert _row(off, "RQ3.x_hi").status == claims.WITHIN
    assert claims.on_bound_id("RQ3.x_lo") == "aux.RQ3.on_bound.x_lo" and claims.on_bound_id("RQ3.mut_in_sfd") == ""


def test_the_new_statuses_are_defined_once_beside_the_others():
    for s in (claims.HOLDS_SUB, claims.FAILS_SUB, claims.AT_BOUND):
        assert s in claims.STATUSES and s in claims.STATUS_MEANINGS
