"""The claims table: tolerances, reasons, pending rows, qualitative conclusions."""

from __future__ import annotations

from lcl import claims


def test_every_claim_appears_once_and_pending_rows_say_why():
    t = claims.compare({})
    assert list(t.columns) == claims.COLUMNS
    assert t["claim_id"].is_unique and len(t) == len(claims.load())
    assert t["reproduced_value"].isna().all()
    assert t["reason"].str.startswith("not yet reproduced").all()


def test_tolerance_and_reason():
    t = claims.compare({"T1.HumanEval.orig": 164, "T1.APPS.orig": 298, "T1.HumanEval.tests": 7.2}).set_index("claim_id")
    assert t.loc["T1.HumanEval.orig", "within_tolerance"] == True  # noqa: E712
    assert t.loc["T1.APPS.orig", "within_tolerance"] == False  # noqa: E712
    assert "not obtainable offline" in t.loc["T1.APPS.orig", "reason"]
    assert t.loc["T1.HumanEval.tests", "within_tolerance"] == True  # noqa: E712
    far = claims.compare({"T4.CrystalBLEU.eq": 0.9, "T4.CodeBERTScore.eq": 0.1}).set_index("claim_id")["reason"]
    assert "MiniLM" not in far["T4.CrystalBLEU.eq"] and "MiniLM" in far["T4.CodeBERTScore.eq"]  # per metric


def test_table2_conclusion():
    good = {"T2.opt.surfacesim": 0.6, "T2.mut.surfacesim": 0.9, "T2.opt.df": 0.99, "T2.mut.df": 0.1}
    assert claims.compare(good).set_index("claim_id").loc["T2.opt.df", "conclusion_holds"] == True  # noqa: E712
    bad = dict(good, **{"T2.opt.surfacesim": 0.95})
    assert claims.compare(bad).set_index("claim_id").loc["T2.opt.df", "conclusion_holds"] == False  # noqa: E712
    s = claims.summary(claims.compare(good))
    assert s["reproduced"] == 4 and s["pending"] == s["claims"] - 4
