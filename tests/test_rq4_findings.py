"""Notebook 06's tables around Table 5 and its sentences, on small hand-set tables."""

from __future__ import annotations

import pandas as pd
import pytest

from lcl.rq import effectiveness as eff
from lcl.rq import rq4_findings as F
from lcl.study import scoring


def _scored(err: float) -> pd.DataFrame:
    return pd.DataFrame({"id": ["1", "2", "3"], "df_score": [1.0, 0.0, 0.0], "SurfaceSim": [0.5, 0.9, 0.8],
                         "CodeBLEU": [1.0 - err, err, err], "benchmark": ["PIE", "APPS", "APPS"],
                         "variant_type": ["OPT", "MUT", "MUT"]})


def test_author_mae_per_kind_and_the_metrics_the_release_has() -> None:
    auth = pd.DataFrame({"variant_type": ["OPT", "MUT", "MUT"], "df_score": [1.0, 0.0, 0.0],
                         "CodeBLEU": [0.8, 0.4, 0.2], "Other": [0.0, 0.0, 0.0]})
    t = F.author_mae(auth).set_index("Dataset")
    assert list(t.index) == ["LoCaL_published (authors' scores)", "LoCaL_published_opt (authors' scores)",
                             "LoCaL_published_mut (authors' scores)"]
    assert t.loc["LoCaL_published_mut (authors' scores)", "CodeBLEU"] == pytest.approx(0.3)
    assert "Other" not in t.columns and t["n"].tolist() == [3, 1, 2]
    assert len(F.author_mae(auth[auth.variant_type == "MUT"])) == 2  # no OPT row without OPT pairs


def test_metric_groups_leave_the_substitutes_out_of_the_second() -> None:
    cems = [scoring.label(n) for n in scoring.CEMS]
    groups = F.metric_groups(cems)
    assert groups["all four CEMs"] == cems
    assert groups["not substitutes"] == [c for c in cems if c not in F.substitutes()]
    assert len(groups["not substitutes"]) == 2


def test_with_kinds_keeps_each_set_before_its_subsets() -> None:
    sets = F.with_kinds({"LoCaL": _scored(0.5), "LoCaL-all": _scored(0.4)})
    assert list(sets) == ["LoCaL", "LoCaL_opt", "LoCaL_mut", "LoCaL-all", "LoCaL-all_opt", "LoCaL-all_mut"]
    assert set(sets["LoCaL_mut"].variant_type) == {"MUT"} and len(sets["LoCaL_opt"]) == 1


def test_found_reads_table5_and_says_what_was_not_computed() -> None:
    t5 = eff.table5({"CodeScore_test": _scored(0.1), "LoCaL": _scored(0.7), "LoCaL_mut": _scored(0.9)}, ["CodeBLEU"])
    inc = eff.increase(t5, ["CodeBLEU"])
    groups = eff.increase_by_group(inc, {"all four CEMs": ["CodeBLEU"], "not substitutes": ["CodeBLEU"]},
                                   {"CodeBLEU": (0.5, 0.2)})
    worst, _ = eff.worst_cases(_scored(0.7), ["CodeBLEU"], k=2)
    by_bench = eff.mae_by_benchmark(_scored(0.7), ["CodeBLEU"])
    by_kind = eff.mae_by_benchmark_within_kind(_scored(0.7), ["CodeBLEU"])
    lines = F.found(t5, inc, groups, worst, F.worst_benchmarks(by_bench, by_kind, ["CodeBLEU"]), by_kind,
                    ["CodeBLEU"], 2)
    assert lines[0] == "- LoCaL is harder than CodeScore_test for 1 of 1 CEMs (CodeBLEU: 0.10 -> 0.70)."
    assert lines[1].startswith("- Mean MAE increase over all the CEMs, substitutes included: 0.600 (paper ")
    assert "not judged" in lines[1]
    assert lines[2].startswith("- Over the metrics that are not substitutes (CodeBLEU): mean increase 0.6")
    assert lines[3] == ("- Worst benchmark per CEM, overall / within the mutants / within the optimised variants: "
                        "CodeBLEU APPS / APPS / PIE.")
    assert lines[4] == "- Mutants are where every CEM fails: MAE on LoCaL_mut CodeBLEU 0.90."
    empty = F.found(t5, inc.assign(increase=float("nan")), groups.assign(n=0), worst,
                    F.worst_benchmarks(by_bench, by_kind, ["CodeBLEU"]), by_kind.iloc[0:0], ["CodeBLEU"], 2)
    assert [line.startswith("- **Not computed:**") for line in empty[:4]] == [False, True, True, True]


def test_baseline_mae_is_each_cems_codescore_test_row() -> None:
    t5 = eff.table5({"CodeScore_test": _scored(0.1), "LoCaL": _scored(0.7)}, ["CodeBLEU"])
    assert F.baseline_mae(t5, ["CodeBLEU"]) == {"CodeBLEU": pytest.approx(0.1)}
    assert F.baseline_mae(t5[t5.Dataset != "CodeScore_test"], ["CodeBLEU"]) == {}


def _pairs(n: int, seed: int, shift: float) -> pd.DataFrame:
    import numpy as np

    rng = np.random.default_rng(seed)
    df = rng.integers(0, 2, n).astype(float)
    out = pd.DataFrame({"id": [f"p{i:03d}" for i in range(n)], "df_score": df,
                        "SurfaceSim": rng.uniform(0.3, 1.0, n),
                        "benchmark": rng.choice(["APPS", "PIE", "HumanEval", "MBPP"], n), "variant_type": "MUT"})
    for j, c in enumerate(scoring.label(m) for m in scoring.CEMS):
        out[c] = np.clip(np.abs(df - shift - 0.05 * j) + rng.normal(0, 0.1, n), 0, 1)
    return out


def test_intervals_judge_the_real_metrics_and_bootstrap_over_pairs() -> None:
    """The aggregates come with an interval over pairs (not over a handful of per-metric means),
    the real-metric row is the mean over CodeBLEU and CrystalBLEU only, and the worst-cases point
    value equals rq4_worst_cases' mean over the same metrics."""
    import numpy as np

    cems = [scoring.label(n) for n in scoring.CEMS]
    base, local = _pairs(120, 1, 0.8), _pairs(300, 2, 0.2)
    t = eff.intervals(base, local, F.metric_groups(cems), seed=7, k=20, n_boot=300).set_index("id")
    real = F.metric_groups(cems)["not substitutes"]
    inc = eff.increase(eff.table5({"CodeScore_test": base, "LoCaL": local}, cems), cems).set_index("Metric")
    assert t.loc["RQ4.mean_mae_increase", "value"] == pytest.approx(inc.loc[real, "increase"].mean(), abs=2e-3)
    worst, _ = eff.worst_cases(local, cems, k=20)
    w = worst.set_index("Metric")["mean |SurfaceSim - df_score|"]
    assert t.loc["RQ4.worst100_gap", "value"] == pytest.approx(w[real].mean(), abs=2e-3)
    assert t.loc["aux.RQ4.worst100_gap.all", "value"] == pytest.approx(w.mean(), abs=2e-3)
    for cid, r in t.iterrows():
        assert r["CI low"] <= r["value"] <= r["CI high"] and r["CI low"] < r["CI high"], cid
    assert "aux.RQ4.diff.ratio.CodeBLEU-CrystalBLEU" in t.index and "aux.RQ4.diff.bench.CodeBLEU.APPS-PIE" in t.index
    # seeded: the same call gives the same table
    again = eff.intervals(base, local, F.metric_groups(cems), seed=7, k=20, n_boot=300).set_index("id")
    assert np.array_equal(again[["CI low", "CI high"]].to_numpy(), t[["CI low", "CI high"]].to_numpy())
