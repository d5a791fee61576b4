"""Study X2 glue (lcl.rq.robustness): pair building, outcome rules, rejected counts, score shifts.
Nothing here fuzzes or loads a model; the perturbations themselves are tested in test_perturb."""

from __future__ import annotations

import ast

import numpy as np
import pandas as pd
import pytest

from lcl.rq import robustness as rb

REF = "def add(a, b):\n    total = a + b\n    return total\n"
VAR = "def add(a, b):\n    return b + a\n"
DOC = 'def add(a, b):\n    """Sum of a and b."""\n    # add them up\n    total = a + b\n    return total\n'
MUT = "def add(a, b):\n    total = a - b\n    return total\n"


def _row(i: str, kind: str, variant: str, task: str = "T/1", in_local: bool = True) -> dict:
    return {"id": i, "variant_type": kind, "in_local": in_local, "benchmark": "HumanEval", "task": task,
            "level": "function", "reference": REF, "candidate": variant, "verdict_digest": f"d-{i}"}


def test_sample_is_seeded_and_filters_kind_and_curation() -> None:
    rows = [_row(f"o{i}", "OPT", VAR) for i in range(10)]
    rows += [_row("m", "MUT", MUT), _row("x", "OPT", VAR, in_local=False)]
    a, b = rb.sample(rows, "OPT", 4, seed=3), rb.sample(rows, "OPT", 4, seed=3)
    assert [r["id"] for r in a] == [r["id"] for r in b] and len(a) == 4
    assert all(r["variant_type"] == "OPT" and r["id"] != "x" for r in a)
    assert len(rb.sample(rows, "OPT", None, 0)) == 10
    assert [r["id"] for r in rb.sample(rows, "MUT", 5, 0)] == ["m"]


def test_perturb_opt_sides_and_documented_donor() -> None:
    out = rb.perturb_opt([_row("p", "OPT", VAR)], {"T/1": DOC}, seed=0,
                         names=["misleading_comment", "reference_docstring"])
    by = {(r["side"], r["perturbation"]): r for r in out}
    v = by[("variant", "misleading_comment")]
    assert v["ref_before"] == v["ref_after"] == REF and v["cand_before"] == VAR
    assert v["original"] == VAR and v["perturbed"] == v["cand_after"] != VAR and "#" in v["cand_after"]
    r = by[("reference", "misleading_comment")]
    assert r["cand_after"] == VAR and r["original"] == REF and r["perturbed"] == r["ref_after"] != REF
    d = by[("variant", "reference_docstring")]
    # the donor and the scored reference are the documented source, before and after
    assert d["ref_before"] == d["ref_after"] == DOC and "Sum of a and b." in d["cand_after"]
    assert ast.get_docstring(ast.parse(d["cand_after"]).body[0]) == "Sum of a and b."
    # the variant has no docstring to give the reference
    assert ("reference", "reference_docstring") not in by
    assert all(r["parent_id"] == "p" and r["kind"] == "OPT" for r in out)


def test_perturb_opt_without_documented_reference_skips_the_docstring() -> None:
    out = rb.perturb_opt([_row("p", "OPT", VAR, task="T/2")], {"T/1": DOC}, seed=0, names=["reference_docstring"])
    assert out == []


def test_perturb_mut_carries_prose_and_skips_undocumented() -> None:
    out = rb.perturb_mut([_row("m", "MUT", MUT), _row("n", "MUT", MUT, task="other")], {"T/1": DOC})
    assert [r["id"] for r in out] == [f"m~{rb.CARRY}"]
    r = out[0]
    assert r["ref_before"] == r["ref_after"] == DOC and r["cand_before"] == MUT
    assert "# add them up" in r["cand_after"] and "a - b" in r["cand_after"]
    assert ast.dump(ast.parse(MUT)) != ast.dump(ast.parse(r["cand_after"]))  # the docstring is new code
    assert rb.verification_batch(out) == [{"id": r["id"], "reference": MUT, "candidate": r["cand_after"], "task": "T/1"}]
    # the second check fuzzes the labelled (stripped-reference) pair with the carried mutant
    assert rb.check_batch(out) == [{"id": f"{r['id']}~check", "reference": REF, "candidate": r["cand_after"],
                                    "task": "T/1"}]
    assert r["parent_digest"] == "d-m"


def test_check_pairs_substitute_the_perturbed_side() -> None:
    out = rb.perturb_opt([_row("p", "OPT", VAR)], {"T/1": DOC}, seed=0,
                         names=["misleading_comment", "reference_docstring"])
    by = {(r["side"], r["perturbation"]): r for r in out}
    v, r, d = by[("variant", "misleading_comment")], by[("reference", "misleading_comment")], \
        by[("variant", "reference_docstring")]
    assert (v["check_reference"], v["check_variant"]) == (REF, v["perturbed"])
    assert (r["check_reference"], r["check_variant"]) == (r["perturbed"], VAR)
    # the documented reference is only the donor: the labelled pair is fuzzed with LoCaL's reference
    assert d["check_reference"] == REF and d["ref_before"] == DOC
    assert {x["parent_digest"] for x in out} == {"d-p"}
    assert rb.check_batch([{**v, "parent_digest": None}]) == []


@pytest.mark.parametrize("result, expected", [
    ({"df_score": 1.0}, rb.VERIFIED), ({"df_score": 0.9995}, rb.CHANGED), ({"df_score": 0.0}, rb.CHANGED),
    ({"df_score": -1.0}, rb.UNVERIFIABLE), ({"df_score": None, "error": "x"}, rb.UNVERIFIABLE),
    ({"df_score": float("nan")}, rb.UNVERIFIABLE), ({"df_score": 1.0, "error": "boom"}, rb.UNVERIFIABLE)])
def test_outcome(result: dict, expected: str) -> None:
    assert rb.outcome(result) == expected


@pytest.mark.parametrize("result, digest, expected", [
    ({"df_score": 0.0, "verdict_digest": "abc"}, "abc", rb.SAME_VERDICTS),
    ({"df_score": 0.0, "verdict_digest": "abd"}, "abc", rb.CHANGED),
    ({"df_score": 0.0, "verdict_digest": "abc"}, None, rb.UNVERIFIABLE),
    ({"error": "cannot load", "verdict_digest": "abc"}, "abc", rb.UNVERIFIABLE), ({}, "abc", rb.UNVERIFIABLE)])
def test_check_outcome(result: dict, digest: str | None, expected: str) -> None:
    assert rb.check_outcome(result, digest) == expected


def test_rejected_counts() -> None:
    v = pd.DataFrame({"kind": ["OPT"] * 4 + ["MUT"] * 2, "side": ["variant"] * 6,
                      "perturbation": ["dead_code"] * 4 + [rb.CARRY] * 2,
                      "outcome": [rb.VERIFIED, rb.CHANGED, rb.UNVERIFIABLE, rb.VERIFIED, rb.VERIFIED,
                                  rb.SAME_VERDICTS]})
    t = rb.rejected_counts(v).set_index("perturbation")
    assert t.loc["dead_code", ["perturbed", "verified", "behaviour_changed", "unverifiable"]].tolist() == [4, 2, 1, 1]
    assert t.loc["dead_code", "rejected_share"] == 0.5 and t.loc[rb.CARRY, "rejected_share"] == 0.0
    assert t.loc[rb.CARRY, ["verified", "verified_by_label_verdicts"]].tolist() == [2, 1]


def _scored() -> pd.DataFrame:
    rng = np.random.default_rng(0)
    n = 40
    before = rng.uniform(0.3, 0.7, n)
    return pd.DataFrame({
        "kind": "OPT", "side": "variant", "perturbation": ["rename_identifiers"] * 20 + ["misleading_comment"] * 20,
        "M:before": before, "M:after": before + np.r_[np.full(20, -0.2), np.zeros(20)],
        "S:before": before, "S:after": before + np.r_[np.zeros(20), np.full(20, 0.05)]})


def test_shift_table_means_and_intervals() -> None:
    t = rb.shift_table(_scored(), n_boot=200, seed=1).set_index(["perturbation", "metric"])
    assert rb.metric_columns(_scored()) == ["M", "S"]
    r = t.loc[("rename_identifiers", "M")]
    assert r["shift"] == pytest.approx(-0.2) and r["shift_ci_low"] == pytest.approx(-0.2)
    assert r["share_moved"] == 1.0 and r["mean_abs_shift"] == pytest.approx(0.2)
    still = t.loc[("misleading_comment", "M")]
    assert still["shift"] == 0.0 and still["share_moved"] == 0.0
    assert t.loc[("misleading_comment", "S"), "shift"] == pytest.approx(0.05)
    assert (t["shift_ci_low"] <= t["shift"]).all() and (t["shift"] <= t["shift_ci_high"]).all()


def test_shift_table_ci_covers_noisy_mean() -> None:
    s = _scored()
    s["M:after"] = s["M:before"] + np.random.default_rng(2).normal(0.1, 0.05, len(s))
    r = rb.shift_table(s, n_boot=500, seed=0).set_index(["perturbation", "metric"]).loc[("rename_identifiers", "M")]
    assert r["shift_ci_low"] < r["shift"] < r["shift_ci_high"] and r["shift_ci_low"] > 0.05


def test_largest_shift_picks_the_largest_absolute_mean() -> None:
    big = rb.largest_shift(rb.shift_table(_scored(), n_boot=50)).set_index("metric")
    assert big.loc["M", "perturbation"] == "rename_identifiers"  # |-0.2| beats 0
    assert big.loc["S", "perturbation"] == "misleading_comment"


def test_against_stored_reference_rescores_the_prose_rows_only() -> None:
    rows = rb.perturb_opt([_row("p", "OPT", VAR)], {"T/1": DOC}, seed=0,
                          names=["misleading_comment", "reference_docstring"]) + \
        rb.perturb_mut([_row("m", "MUT", MUT)], {"T/1": DOC})
    v = pd.DataFrame(rows).assign(outcome=rb.VERIFIED)
    s = rb.against_stored_reference(v).set_index("perturbation")
    assert sorted(s.index) == sorted(["reference_docstring" + rb.STORED, rb.CARRY + rb.STORED])
    assert (s["ref_before"] == REF).all() and (s["ref_after"] == REF).all()
    assert s.loc[rb.CARRY + rb.STORED, "cand_after"] == v.set_index("perturbation").loc[rb.CARRY, "cand_after"]
    assert not set(s["id"]) & set(v["id"])  # distinct ids: never confused with the documented-reference rows


def test_largest_shift_ignores_sensitivity_rows() -> None:
    sc = _scored()
    sc.loc[sc.perturbation == "rename_identifiers", "perturbation"] = "rename_identifiers" + rb.STORED
    big = rb.largest_shift(rb.shift_table(sc, n_boot=50)).set_index("metric")
    assert big.loc["M", "perturbation"] == "misleading_comment"
