"""RQ5's second trivial model (the surface rule), the compendium's own checks beside the paper's
conclusions, and the rules every verdict obeys: no "holds" without a resolving interval, a
threshold on its search's bound said so, no contradiction on a consistent table."""

from __future__ import annotations

import pandas as pd

from lcl.core import claim_links
from lcl.core.claim_links import Reading
from lcl.report import claims, conclusions

SETS = ("Combined", "Baseline", "LoCaL_test")


def _row(table: pd.DataFrame, cid: str) -> pd.Series:
    return table.set_index("claim_id").loc[cid]


def _rq5(*, rule_drop: float | None, gain_rule: tuple[float, float, float] = (0.05, 0.02, 0.08),
         gain_mean: tuple[float, float, float] = (0.05, 0.02, 0.08)) -> dict[str, Reading]:
    """A consistent RQ5 table: the models' Combined MAE falls by 40% from p = 0 to p = 100 (resolved),
    most of it by p = 20, LoCaL_test's falls by 60%, Baseline's rises by 5%; a flat mean predictor
    (it passes nothing); the surface rule falling by ``rule_drop`` % on every set (None: the tables
    hold no surface rule); the learned gains at p = 100 as (value, low, high)."""
    v: dict[str, Reading] = {}
    model = {"Combined": 0.5, "Baseline": 0.3, "LoCaL_test": 0.5}
    for name in SETS:
        for p in range(0, 101, 10):
            v[f"T6.{name}.{p}"] = Reading(model[name] * (1.0 if p == 0 else 0.7 if p < 100 else 0.6), std=0.01, n=5)
            v[f"aux.T6.mean.{name}.{p}"] = Reading(0.4)
            if rule_drop is not None:
                x = 0.5 * (1 - rule_drop / 100 * (p / 100))
                v[f"{conclusions.RQ5_RULE}.{name}.{p}"] = Reading(x, x - 0.01, x + 0.01)
    v["RQ5.combined_drop"] = Reading(40.0, 35.0, 45.0)
    v["RQ5.local_test_reduction"] = Reading(60.0, 55.0, 65.0)
    v["RQ5.baseline_increase"] = Reading(5.0, 2.0, 8.0)
    v[conclusions.RQ5_HALF_AT_20] = Reading(0.05, 0.03, 0.07)
    if rule_drop is not None:
        v[f"{conclusions.RQ5_RULE}.combined_drop"] = Reading(rule_drop, rule_drop - 5, rule_drop + 5)
        v[f"{conclusions.RQ5_RULE}.local_test_reduction"] = Reading(rule_drop, rule_drop - 5, rule_drop + 5)
        v[f"{conclusions.RQ5_RULE}.baseline_increase"] = Reading(-rule_drop, -rule_drop - 5, -rule_drop + 5)
    for prefix, (g, lo, hi) in ((conclusions.RQ5_GAIN_OVER_RULE, gain_rule), (conclusions.RQ5_GAIN_OVER_MEAN, gain_mean)):
        for name in SETS:
            v[f"{prefix}.{name}.100"] = Reading(g, lo, hi)
    return v


# ----------------------------------------------------------------------------- the surface rule
def test_the_surface_rule_takes_the_models_place_with_its_intervals():
    v = _rq5(rule_drop=70.0)
    rule = conclusions.surface_rule(v)
    assert rule["T6.Combined.100"] == v[f"{conclusions.RQ5_RULE}.Combined.100"]  # interval kept
    assert rule["RQ5.combined_drop"] == v[f"{conclusions.RQ5_RULE}.combined_drop"]
    assert rule["T6.Combined.0"] != v["T6.Combined.0"]  # the model's own values are gone
    # without its headline readings, the headline is recomputed from its Table 6 values
    bare = {k: r for k, r in v.items() if not k.startswith(f"{conclusions.RQ5_RULE}.combined")}
    assert abs(conclusions.surface_rule(bare)["RQ5.combined_drop"].value - 70.0) < 1e-9


def test_a_conclusion_the_surface_rule_passes_too_is_trivial_and_names_it():
    """The models' Combined drop holds and the flat mean predictor fails it, so the old verdict is
    "holds"; the surface rule, fitted on the same training draw, falls by 70 % too: "trivial model
    passes too", naming the rule, not the mean predictor."""
    t = claims.compare(_rq5(rule_drop=70.0))
    for cid in ("C.RQ5.combined", "C.RQ5.local_test"):
        row = _row(t, cid)
        assert row.status == claims.TRIVIAL, (cid, row.reason)
        assert "the surface rule" in row.reason and "passes too" in row.reason
        assert "the mean predictor does not" in row.reason
    # a rule that learns nothing useful here (its error grows with p): the same conclusions hold
    t = claims.compare(_rq5(rule_drop=-20.0))
    for cid in ("C.RQ5.combined", "C.RQ5.local_test"):
        row = _row(t, cid)
        assert row.status == claims.HOLDS, (cid, row.reason)
        assert "the surface rule (a similarity threshold fitted on the training draw) does not" in row.reason


def test_without_the_rules_readings_the_rule_is_not_tested_and_decides_nothing():
    row = _row(claims.compare(_rq5(rule_drop=None)), "C.RQ5.combined")
    assert row.status == claims.HOLDS and "the surface rule" in row.reason and "not tested" in row.reason


def test_every_rq5_conclusion_of_the_paper_runs_on_both_comparators():
    rq5 = [c for c in conclusions.CONCLUSIONS if c.claim_id.startswith("C.RQ5.") and c.paper]
    assert len(rq5) == 4
    for c in rq5:
        assert [name for _, name in c.trivials()] == [name for _, name in conclusions.RQ5_TRIVIAL], c.claim_id


# ----------------------------------------------------------------------------- the compendium's own checks
def test_beating_the_comparators_needs_both_gains_resolved_above_zero():
    holds = claims.compare(_rq5(rule_drop=None))
    for cid in ("C.RQ5.beats_surface_rule", "C.RQ5.beats_mean"):
        assert _row(holds, cid).status == claims.HOLDS, _row(holds, cid).reason
    # the gain over the rule on LoCaL_test spans 0: the models do not beat the rule
    tie = claims.compare(_rq5(rule_drop=None, gain_rule=(0.01, -0.02, 0.04)))
    assert _row(tie, "C.RQ5.beats_surface_rule").status == claims.FAILS
    assert _row(tie, "C.RQ5.beats_mean").status == claims.HOLDS
    # a gain with no interval (one model) resolves nothing
    bare = {k: (Reading(r.value) if k.startswith(conclusions.RQ5_GAIN_OVER_MEAN) else r)
            for k, r in _rq5(rule_drop=None).items()}
    assert _row(claims.compare(bare), "C.RQ5.beats_mean").status == claims.NOT_COMPARABLE


def test_own_checks_are_not_counted_as_the_papers_claims():
    t = claims.compare(_rq5(rule_drop=None))
    own = t[t.kind == claims.OWN_CHECK]
    assert set(own.claim_id) == {"C.RQ5.beats_surface_rule", "C.RQ5.beats_mean"}
    assert all(q.startswith("ours, not the paper's") for q in own.quantity)
    s = claims.summary(t)
    assert s["own checks"] == 2 and s["claims"] == len(t) - 2
    assert s["conclusions"] == int((t.kind == "conclusion").sum())
    assert s[claims.HOLDS] == int(((t.kind != claims.OWN_CHECK) & (t.status == claims.HOLDS)).sum())
    assert int(claims.by_section(t)["claims"].sum()) == len(t) - 2
    assert "ours, not the paper's" not in claims.paper_answer(["Section 4.7"])
    assert "- Ours: ours, not the paper's" in claims.section_text(t, "Section 4.7")
    assert "2 checks of our own" in claims.found_text(t)
    # a failing own check is no deviation from the paper: no "unexplained", not among the deviations
    tie = claims.compare(_rq5(rule_drop=None, gain_rule=(0.01, -0.02, 0.04)))
    assert not _row(tie, "C.RQ5.beats_surface_rule").reason.startswith(claims.UNEXPLAINED)
    assert "C.RQ5.beats_surface_rule" not in " ".join(claims.deviations(tie)["claim ids"])


# ----------------------------------------------------------------------------- the rules every verdict obeys
def _resolved(width: float) -> dict[str, Reading]:
    """Every declared reading at 1.0 with an interval of ``width`` either side."""
    ids = {d.claim_id for d in claims.declarations()} | {conclusions.RQ5_HALF_AT_20}
    ids |= {conclusions.RQ2_DROP_DIFF.format(a=a, b=b) for a in conclusions.CEMS for b in conclusions.CEMS}
    return {cid: Reading(1.0, 1.0 - width, 1.0 + width) for cid in ids}


def test_no_verdict_of_any_kind_holds_on_a_point_estimate():
    """Every conclusion and own check scanned: where the readings carry no interval at all, none
    holds. CrystalBLEU's zeros are counts, whose Wilson interval is computed from them: 10 of 100
    leaves it unresolved at the 'often' bar."""
    v = {k: Reading(r.value) for k, r in _resolved(0.5).items()}
    v.update({"aux.T3.CrystalBLEU.zeros": Reading(10.0), "aux.T3.CrystalBLEU.n": Reading(100.0)})
    t = claims.compare(v)
    judged = t[t.kind.isin(["conclusion", claims.OWN_CHECK])]
    held = judged[judged.status.isin([claims.HOLDS, claims.HOLDS_SUB])]
    assert held.empty, held[["claim_id", "reason"]].to_string()


def test_the_on_bound_reading_of_each_threshold_sets_its_status():
    for k in ("x_lo", "x_hi", "y_lo", "y_hi"):
        paper = claim_links.paper_value(f"RQ3.{k}")
        off = paper + 0.2  # outside on the grid, but on the bound: the bound is what the reader needs
        t = claims.compare({f"RQ3.{k}": Reading(off), f"aux.RQ3.on_bound.{k}": Reading(1.0)})
        row = _row(t, f"RQ3.{k}")
        assert row.status == claims.AT_BOUND and claims.OUTSIDE in row.reason, k
        inside = claims.compare({f"RQ3.{k}": Reading(off), f"aux.RQ3.on_bound.{k}": Reading(0.0)})
        assert _row(inside, f"RQ3.{k}").status == claims.OUTSIDE, k


def test_a_consistent_table_has_no_contradiction():
    """Small p holds, the drop it presupposes holds and lies above 0: nothing contradicts; the same
    table with the drop's interval spanning 0 makes small_p fail, never contradict."""
    t = claims.compare(_rq5(rule_drop=-20.0))
    assert _row(t, "C.RQ5.small_p").status == claims.HOLDS and _row(t, "C.RQ5.combined").status == claims.HOLDS
    assert claims.contradictions(t) == []
    v = _rq5(rule_drop=-20.0)
    v["RQ5.combined_drop"] = Reading(4.0, -3.0, 11.0)
    t = claims.compare(v)
    assert _row(t, "C.RQ5.small_p").status == claims.FAILS and claims.contradictions(t) == []
