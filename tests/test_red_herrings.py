from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from lcl.rq import red_herrings as rh


def _mutants(n_tasks: int = 30, per_group: int = 10, seed: int = 0, benchmarks: tuple[str, ...] = ("HumanEval",),
             eq_share: float | None = None) -> pd.DataFrame:
    """Mutants of ``n_tasks`` tasks x 2 operators, each group with ``per_group`` mutants that are
    equivalent (df 1) or killed (df 0), at least one of each; ``eq_share`` per task when given."""
    rng = np.random.default_rng(seed)
    rows = []
    for t in range(n_tasks):
        bench = benchmarks[t % len(benchmarks)]
        for op in ("AOR", "ROR"):
            share = eq_share if eq_share is not None else 0.5
            n_eq = int(np.clip(round(share * per_group), 1, per_group - 1))
            for i in range(per_group):
                rows.append({"id": f"{bench}_{t}_{op}_{i}", "benchmark": bench, "task": f"t{t}", "variant_type": "MUT",
                             "operator": op, "df_score": 1.0 if i < n_eq else 0.0,
                             "SurfaceSim": float(rng.uniform(0.8, 1.0))})
    return pd.DataFrame(rows)


def test_matched_groups_keeps_groups_with_both_classes_and_counts() -> None:
    rows = [("A", "t1", "MUT", "AOR", 1.0), ("A", "t1", "MUT", "AOR", 0.0), ("A", "t1", "MUT", "AOR", 0.5),
            ("A", "t1", "MUT", "ROR", 1.0), ("A", "t2", "MUT", "AOR", 0.0), ("A", "t2", "MUT", "AOR", -1.0),
            ("A", "t1", "OPT", None, 1.0), ("A", "t1", "MUT", None, 0.0),
            ("B", "t1", "MUT", "AOR", 1.0), ("B", "t1", "MUT", "AOR", 0.0), ("B", "t1", "MUT", "AOR", 0.0)]
    f = pd.DataFrame(rows, columns=["benchmark", "task", "variant_type", "operator", "df_score"])
    f["id"] = [f"p{i}" for i in range(len(f))]
    m = rh.matched_groups(f)
    # same task name in two benchmarks is two groups; partial, timed-out and unmatched rows are dropped
    assert sorted(m["group"].unique()) == ["A|t1|AOR", "B|t1|AOR"]
    assert len(m) == 5 and m["equivalent"].sum() == 2 and set(m["df_score"]) == {0.0, 1.0}
    c = rh.group_counts(f).set_index("benchmark")
    assert c.loc["all"].to_dict() == {"mutants": 8, "equivalent": 3, "killed": 4, "partial": 1, "groups": 4,
                                      "groups_matched": 2, "equivalent_matched": 2, "killed_matched": 3}
    assert c.loc["A", "groups_matched"] == 1 and c.loc["B", "killed_matched"] == 2
    assert rh.matched_groups(f[f.variant_type == "OPT"]).empty


def test_auroc_is_mann_whitney_with_ties_as_half() -> None:
    rng = np.random.default_rng(1)
    s, lab = rng.integers(0, 4, 60).astype(float), rng.random(60) < 0.4
    pos, neg = s[lab], s[~lab]
    brute = np.mean([(p > q) + 0.5 * (p == q) for p in pos for q in neg])
    assert rh.auroc(s, lab) == pytest.approx(brute)
    assert rh.auroc([0.1, 0.9], [False, True]) == 1.0 and rh.auroc([0.5, 0.5], [False, True]) == 0.5
    assert np.isnan(rh.auroc([0.1, 0.2], [True, True]))


def test_perfect_separator_has_auroc_one_and_degenerate_ci() -> None:
    f = _mutants()
    f["Perfect"] = np.where(f.df_score == 1, 0.9, 0.1)
    t = rh.auroc_table(f, ["Perfect"], n_boot=200, seed=0)
    row = t[(t.benchmark == "all") & (t.metric == "Perfect")].iloc[0]
    assert (row.auroc_pooled, row.auroc_pooled_ci_low, row.auroc_pooled_ci_high) == (1.0, 1.0, 1.0)
    assert (row.auroc_within, row.auroc_within_ci_low, row.auroc_within_ci_high) == (1.0, 1.0, 1.0)
    assert row.n_groups == 60 and row.n_equivalent == 300 and row.n_killed == 300
    assert list(t.metric[t.benchmark == "all"]) == ["SurfaceSim", "Perfect"]  # reference line first


def test_random_metric_is_near_chance_with_ci_covering_half() -> None:
    f = _mutants(n_tasks=40, per_group=12, seed=3)
    f["Random"] = np.random.default_rng(4).random(len(f))
    row = rh.auroc_table(f, ["Random"], n_boot=300, seed=0).query("metric == 'Random'").iloc[0]
    assert abs(row.auroc_pooled - 0.5) < 0.06 and abs(row.auroc_within - 0.5) < 0.06
    assert row.auroc_pooled_ci_low < 0.5 < row.auroc_pooled_ci_high
    assert row.auroc_within_ci_low < 0.5 < row.auroc_within_ci_high


def test_separation_through_task_differences_only_is_removed_within_groups() -> None:
    # half the tasks have mostly equivalent mutants and a high score level, the other half mostly
    # killed ones and a low level; inside a group the score does not depend on the label
    hi = _mutants(n_tasks=10, eq_share=0.8, seed=5)
    lo = _mutants(n_tasks=10, eq_share=0.2, seed=6).assign(task=lambda d: "u" + d.task.str[1:])
    f = pd.concat([hi.assign(TaskLevel=0.9), lo.assign(TaskLevel=0.2)], ignore_index=True)
    noise = np.random.default_rng(7).normal(0, 0.02, len(f))
    f["TaskNoisy"] = f.TaskLevel + noise
    t = rh.auroc_table(f, ["TaskLevel", "TaskNoisy"], n_boot=200, seed=0)
    t = t[t.benchmark == "all"].set_index("metric")
    assert t.loc["TaskLevel", "auroc_pooled"] > 0.75 and t.loc["TaskNoisy", "auroc_pooled"] > 0.75
    # constant within each group: every group's AUROC is exactly 1/2, pooling groups would give > 0.75
    assert t.loc["TaskLevel", "auroc_within"] == 0.5
    assert (t.loc["TaskLevel", "auroc_within_ci_low"], t.loc["TaskLevel", "auroc_within_ci_high"]) == (0.5, 0.5)
    assert abs(t.loc["TaskNoisy", "auroc_within"] - 0.5) < 0.1
    assert t.loc["TaskNoisy", "auroc_within_ci_low"] < 0.5 < t.loc["TaskNoisy", "auroc_within_ci_high"]


def test_within_group_auroc_weights_groups_by_comparisons() -> None:
    # group a: 1 eq x 1 killed, perfectly ordered (AUROC 1); group b: 2 eq x 2 killed, reversed (AUROC 0)
    f = pd.DataFrame({"benchmark": "A", "task": ["a", "a", "b", "b", "b", "b"], "variant_type": "MUT",
                      "operator": "AOR", "df_score": [1.0, 0.0, 1.0, 1.0, 0.0, 0.0],
                      "M": [0.9, 0.1, 0.1, 0.2, 0.8, 0.9]})
    row = rh.auroc_table(f, ["M"], n_boot=50).iloc[0]
    assert row.auroc_within == pytest.approx(1 * 1 / 5)


def test_group_bootstrap_is_seeded_and_per_benchmark_rows() -> None:
    f = _mutants(n_tasks=20, seed=8, benchmarks=("HumanEval", "MBPP"))
    f["Noisy"] = f.df_score * 0.3 + np.random.default_rng(9).random(len(f))
    a = rh.auroc_table(f, ["Noisy"], n_boot=200, seed=11)
    pd.testing.assert_frame_equal(a, rh.auroc_table(f, ["Noisy"], n_boot=200, seed=11))
    b = rh.auroc_table(f, ["Noisy"], n_boot=200, seed=12)
    assert not a[["auroc_pooled_ci_low", "auroc_pooled_ci_high"]].equals(b[["auroc_pooled_ci_low",
                                                                             "auroc_pooled_ci_high"]])
    assert list(a.columns) == rh.AUROC_COLUMNS
    assert list(a.benchmark.unique()) == ["all", "HumanEval", "MBPP"]
    n = a[a.metric == "Noisy"].set_index("benchmark").n_groups
    assert n["all"] == n["HumanEval"] + n["MBPP"] == 40
    assert (a.auroc_pooled_ci_low <= a.auroc_pooled).all() and (a.auroc_pooled <= a.auroc_pooled_ci_high).all()


def test_score_gaps_and_unscorable_pairs() -> None:
    f = _mutants(n_tasks=10, seed=10)
    f["Perfect"] = np.where(f.df_score == 1, 0.9, 0.1)
    f["Missing"] = np.nan
    g = rh.score_gaps(f, ["Perfect", "Missing"], n_boot=100).set_index("metric")
    assert g.loc["Perfect", "gap"] == pytest.approx(0.8)
    assert (g.loc["Perfect", "gap_ci_low"], g.loc["Perfect", "gap_ci_high"]) == pytest.approx((0.8, 0.8))
    assert g.loc["Missing", "n_groups"] == 0 and np.isnan(g.loc["Missing", "gap"])
    assert abs(g.loc["SurfaceSim", "gap"]) < 0.05
    t = rh.auroc_table(f, ["Missing"], n_boot=20).query("benchmark == 'all'").set_index("metric")
    assert t.loc["Missing", "n_groups"] == 0 and np.isnan(t.loc["Missing", "auroc_within"])
