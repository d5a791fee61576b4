"""The claims table: judged from our uncertainty, conclusions as tests, reasons with evidence."""

from __future__ import annotations

import math

import pandas as pd

from lcl import claim_links, claims, conclusions, reasons
from lcl.claim_links import Reading


def _row(table: pd.DataFrame, cid: str) -> pd.Series:
    return table.set_index("claim_id").loc[cid]


def test_every_claim_appears_once_and_missing_rows_say_why():
    t = claims.compare({})
    assert list(t.columns) == claims.COLUMNS
    assert t["claim_id"].is_unique
    nums = t[t.kind == "number"]
    assert len(nums) == len(claims.load()) and (nums.status == claims.MISSING).all()
    assert nums.reason.str.startswith("not reproduced").all()
    assert (t[t.kind == "conclusion"].status == claims.MISSING).all()


def test_every_paper_claim_is_declared_once():
    ids = [d.claim_id for d in claims.declarations()]
    assert len(ids) == len(set(ids))
    assert set(claims.load().index) <= set(ids)


def test_within_from_the_ci_strictly():
    inside = claims.compare({"T3.CodeBLEU.rho": Reading(0.80, 0.85, 0.90)})
    assert _row(inside, "T3.CodeBLEU.rho").status == claims.WITHIN  # paper 0.8732 in (0.85, 0.90)
    edge = claims.compare({"T3.CodeBLEU.rho": Reading(0.80, 0.70, 0.8732)})
    assert _row(edge, "T3.CodeBLEU.rho").status == claims.OUTSIDE  # on the boundary: not a pass


def test_within_from_two_stds():
    ok = claims.compare({"T4.CodeBLEU.eq": Reading(0.52, std=0.01)})  # paper 0.49 +- 0.03
    assert _row(ok, "T4.CodeBLEU.eq").status == claims.WITHIN
    far = claims.compare({"T4.CodeBLEU.eq": Reading(0.70, std=0.01)})
    assert _row(far, "T4.CodeBLEU.eq").status == claims.OUTSIDE


def test_fixed_tolerance_only_for_counts_with_its_reason():
    t = claims.compare({"T1.HumanEval.orig": 164, "T1.APPS.orig": 298, "T1.HumanEval.tests": 7.2,
                        "T2.opt.total": 18, "T5.LoCaL.CodeBLEU": 0.8})
    assert _row(t, "T1.HumanEval.orig").status == claims.WITHIN
    assert "no sampling" in _row(t, "T1.HumanEval.orig").judged_by
    assert _row(t, "T1.APPS.orig").status == claims.OUTSIDE
    assert "not obtainable offline" in _row(t, "T1.APPS.orig").reason
    assert _row(t, "T1.HumanEval.tests").status == claims.OUTSIDE  # |7.2 - 7.7| = 0.5: on the boundary
    assert _row(t, "T2.opt.total").status == claims.NOT_COMPARABLE
    assert _row(t, "T5.LoCaL.CodeBLEU").status == claims.NOT_JUDGED  # a table without its CI columns


def test_reason_needs_its_evidence_table():
    cid = "T3.CrystalBLEU.rho"
    with_evidence = claims.compare({cid: Reading(0.1, 0.05, 0.2)}, available={"table3_crystalbleu_sensitivity"})
    assert "table3_crystalbleu_sensitivity" in _row(with_evidence, cid).reason
    without = claims.compare({cid: Reading(0.1, 0.05, 0.2)}, available=set())
    assert _row(without, cid).reason == reasons.UNEXPLAINED
    assert reasons.explain("T6.Combined.0", None) == reasons.UNEXPLAINED


def test_table2_conclusions_and_by_construction():
    good = {"T2.opt.surfacesim": 0.6, "T2.mut.surfacesim": 0.9, "T2.opt.df": 0.99, "T2.mut.df": 0.1}
    t = claims.compare(good)
    assert _row(t, "C.T2.surface").status == claims.HOLDS
    assert _row(t, "C.T2.behaviour").status == claims.BY_CONSTRUCTION
    bad = claims.compare(dict(good, **{"T2.opt.surfacesim": 0.95}))
    assert _row(bad, "C.T2.surface").status == claims.FAILS


def test_broken_substitute_is_not_comparable():
    v = {"T4.CodeScore.eq": 0.05, "T4.CodeScore.d_orig": 3.0, "T4.CodeBLEU.eq": 0.5, "T4.CodeBLEU.d_orig": 3.0,
         "T4.CrystalBLEU.d_orig": 9.0, "T4.CodeBERTScore.d_orig": 1.2}
    t = claims.compare(v)
    assert _row(t, "C.RQ2.d_orig.CodeScore").status == claims.NOT_COMPARABLE
    assert _row(t, "T4.CodeScore.d_orig").status == claims.NOT_COMPARABLE
    assert _row(t, "C.RQ2.d_orig.CodeBLEU").status == claims.HOLDS
    assert _row(t, "C.RQ2.crystal_best_orig").status == claims.HOLDS  # ranked among comparable CEMs


def test_significance_uses_the_cis():
    apart = {"T5.LoCaL.CodeBLEU": Reading(0.7, 0.6, 0.8), "T5.CodeScore_test.CodeBLEU": Reading(0.3, 0.2, 0.4)}
    assert conclusions._above("LoCaL", "CodeScore_test", "CodeBLEU")(apart).status == claims.HOLDS
    overlap = dict(apart, **{"T5.CodeScore_test.CodeBLEU": Reading(0.5, 0.4, 0.65)})
    assert conclusions._above("LoCaL", "CodeScore_test", "CodeBLEU")(overlap).status == claims.FAILS


def test_summary_counts_statuses():
    t = claims.compare({"T1.HumanEval.orig": 164, "T1.APPS.orig": 298})
    s = claims.summary(t)
    assert s[claims.WITHIN] == 1 and s[claims.OUTSIDE] == 1
    assert sum(s[k] for k in claims.STATUSES) == s["claims"]
    assert not math.isnan(float(claims.by_section(t)["claims"].sum()))


def test_status_vocabulary_is_defined_once_with_an_example_each():
    assert set(claims.STATUS_MEANINGS) == set(claims.STATUSES)
    assert all(meaning and example for meaning, example in claims.STATUS_MEANINGS.values())
    v = claims.vocabulary()
    assert list(v.columns) == ["status", "meaning", "example"]
    assert claims.UNEXPLAINED in set(v.status) and set(claims.STATUSES) <= set(v.status)
    assert claims.NOT_RUN != claims.MISSING


def test_absent_table_is_not_run_and_names_it_while_a_missing_value_is_not_reproduced():
    t = claims.compare({"T1.HumanEval.orig": 164}, available={"table1_datasets"})
    assert _row(t, "T1.HumanEval.orig").status == claims.WITHIN
    assert _row(t, "T1.MBPP.orig").status == claims.MISSING  # its table exists, the value does not
    row = _row(t, "T3.CodeBLEU.rho")
    assert row.status == claims.NOT_RUN
    assert "table3_correlation absent" in row.reason and "03_rq1_correlation" in row.reason
    assert _row(t, "C.RQ1.strongest").status == claims.NOT_RUN  # a conclusion on an absent table


def test_skipped_source_makes_its_rows_not_run():
    tables = {"table5_mae", "table1_datasets"}
    t = claims.compare({}, available=tables, skipped={"sharecode_java": ("ShareCode_java",)})
    row = _row(t, "T5.ShareCode_java.CodeBLEU")
    assert row.status == claims.NOT_RUN and "sharecode_java skipped" in row.reason
    assert _row(t, "T5.LoCaL.CodeBLEU").status == claims.MISSING


def test_deviations_keep_the_whole_explanation():
    t = claims.compare({"T3.CrystalBLEU.rho": Reading(0.1, 0.05, 0.2)}, available={"table3_crystalbleu_sensitivity"})
    dev = claims.deviations(t)
    reason = _row(t, "T3.CrystalBLEU.rho").reason
    assert "; " in reason and reason in set(dev.reason)  # the explanation's own "; " does not cut it
