from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from lcl.rq import calibration as cal
from lcl.engine import stats
from lcl.engine.regions import Thresholds


def test_reliability_bins_edges_and_empty_bins() -> None:
    s = np.array([0.05, 0.15, 0.15, 1.0, np.nan])
    d = np.array([0.0, 1.0, 0.0, 1.0, 1.0])
    t = cal.reliability(s, d, bins=10)
    assert list(t.columns) == cal.RELIABILITY_COLUMNS and len(t) == 10
    assert list(t["count"]) == [1, 2, 0, 0, 0, 0, 0, 0, 0, 1]  # a score of 1 lies in the last bin; NaN dropped
    assert t.loc[1, "mean_score"] == pytest.approx(0.15) and t.loc[1, "mean_df"] == pytest.approx(0.5)
    assert np.isnan(t.loc[2, "mean_score"]) and t.loc[9, "bin_high"] == 1.0


def test_ece_of_calibrated_predictors_is_near_zero() -> None:
    rng = np.random.default_rng(0)
    s = rng.random(20000)
    bernoulli = (rng.random(len(s)) < s).astype(float)
    width = np.minimum(s, 1 - s)
    uniform = rng.uniform(s - width, s + width)
    assert cal.ece(s, bernoulli) < 0.02 and cal.ece(s, uniform) < 0.02
    assert cal.ece(s, s) == 0.0


def test_ece_of_constant_predictor_is_its_distance_to_the_mean() -> None:
    d = np.tile([0.0, 1.0], 500)
    assert cal.ece(np.full(len(d), 0.9), d) == pytest.approx(0.4)
    assert cal.ece(np.full(len(d), 0.9), d, bins=3) == pytest.approx(0.4)
    # ECE never exceeds the MAE
    rng = np.random.default_rng(1)
    s, y = rng.random(300), rng.random(300)
    assert cal.ece(s, y) <= stats.mae(s, y)


def _scored(n: int = 2000, seed: int = 0) -> pd.DataFrame:
    """Pairs of tasks of 4, with a calibrated metric (df_score is uniform around its score, so its
    conditional mean and median are the score) and a miscalibrated monotone one."""
    rng = np.random.default_rng(seed)
    calibrated = rng.random(n)
    width = np.minimum(calibrated, 1 - calibrated)
    df = rng.uniform(calibrated - width, calibrated + width)
    task = np.arange(n) // 4
    return pd.DataFrame({"id": [f"p{i}" for i in range(n)], "benchmark": np.where(task % 2, "MBPP", "APPS"),
                         "task": [f"t{i}" for i in task], "df_score": df, "SurfaceSim": rng.random(n),
                         "Calibrated": calibrated, "Squashed": 0.6 + 0.4 * df ** 2})


def test_ece_table_levels_cis_and_seed() -> None:
    f = _scored(600)
    t = cal.ece_table(f, ["Calibrated", "Squashed"], by="benchmark", n_boot=200, seed=3)
    assert list(t.columns) == ["benchmark", *cal.ECE_COLUMNS]
    assert list(t.benchmark.unique()) == ["all", "APPS", "MBPP"]
    assert list(t.metric[t.benchmark == "all"]) == ["SurfaceSim", "Calibrated", "Squashed"]
    a = t[t.benchmark == "all"].set_index("metric")
    assert a.loc["Calibrated", "ece"] < 0.05 < a.loc["Squashed", "ece"]
    assert (t.ece_ci_low <= t.ece).all() and (t.ece <= t.ece_ci_high).all() and (t.ece <= t.mae).all()
    pd.testing.assert_frame_equal(t, cal.ece_table(f, ["Calibrated", "Squashed"], by="benchmark", n_boot=200, seed=3))
    assert list(cal.ece_table(f, ["Squashed"], n_boot=20).subset) == ["all", "all"]


def test_isotonic_fit_pools_violators_ties_and_clips() -> None:
    m = cal.fit_isotonic([0.1, 0.2, 0.3, 0.4], [0.1, 0.3, 0.2, 0.4])
    assert m.y == pytest.approx([0.1, 0.25, 0.25, 0.4])
    # tied scores are one point with their mean; out-of-range fits are clipped to [0, 1]
    t = cal.fit_isotonic([0.5, 0.5, 0.2, 0.9], [0.0, 1.0, -0.7, 1.8])
    assert list(t.x) == [0.2, 0.5, 0.9] and list(t.y) == [0.0, 0.5, 1.0]
    assert list(t([0.0, 0.35, 1.0])) == pytest.approx([0.0, 0.25, 1.0])
    assert np.isnan(t([np.nan]))[0]
    with pytest.raises(ValueError):
        cal.fit_isotonic([np.nan], [0.5])


def test_isotonic_recalibration_is_monotone_and_reduces_train_error() -> None:
    f = _scored(1500, seed=4)
    out = cal.isotonic_recalibration(f, f, ["Squashed", "SurfaceSim"])
    col = "Squashed (recalibrated)"
    assert col in out and "SurfaceSim (recalibrated)" in out and len(out) == len(f)
    order = np.argsort(out["Squashed"].to_numpy())
    assert (np.diff(out[col].to_numpy()[order]) >= -1e-12).all()
    assert out[col].between(0, 1).all()
    before, after = stats.mae(f.Squashed, f.df_score), stats.mae(out[col], f.df_score)
    assert after < before / 3
    grid = cal.fit_isotonic(f.SurfaceSim, f.df_score)(np.linspace(-1, 2, 301))
    assert (np.diff(grid) >= 0).all() and grid.min() >= 0 and grid.max() <= 1


def test_recalibration_table_flags_improvement_only_where_constructed() -> None:
    f = _scored(3000, seed=5)
    f = cal.with_regions(f, Thresholds(0.3, 0.7, 0.3, 0.7, 0.0, 0.05, "squared"))
    assert set(f.region) == {"SFD", "DFS", "Control"}
    train, test = cal.split_by_task(f, test_share=0.5, seed=0)
    t = cal.recalibration_table(train, test, ["Calibrated", "Squashed"], n_boot=300, seed=0)
    assert list(t.columns) == cal.RECAL_COLUMNS
    assert list(t.region.unique()) == ["SFD", "DFS", "Control", "all"]
    r = t.set_index(["metric", "region"])
    assert r.loc[("Squashed", "all"), "improves"] and r.loc[("Squashed", "Control"), "improves"]
    assert r.loc[("Squashed", "all"), "mae_after"] < r.loc[("Squashed", "all"), "mae_before"] / 2
    assert not r.loc["Calibrated", "improves"].any()
    assert r.loc[("Calibrated", "all"), "difference_ci_high"] >= 0
    assert abs(r.loc[("Calibrated", "all"), "difference"]) < 0.01
    n = r.loc["Calibrated", "n"]
    assert n["SFD"] + n["DFS"] + n["Control"] == n["all"] == len(test)


def test_split_by_task_keeps_tasks_together_and_is_seeded() -> None:
    f = _scored(400)
    train, test = cal.split_by_task(f, 0.25, seed=1)
    assert len(train) + len(test) == len(f) and not set(train.task) & set(test.task)
    assert test.task.nunique() == 25
    pd.testing.assert_frame_equal(test, cal.split_by_task(f, 0.25, seed=1)[1])


def test_plot_reliability_draws_diagonal_and_one_line_per_metric() -> None:
    import matplotlib

    matplotlib.use("Agg")
    f = _scored(300)
    tables = {m: cal.reliability(f[m], f.df_score) for m in ("Calibrated", "Squashed")}
    ax = cal.plot_reliability(tables)
    assert len(ax.lines) == 3 and len(ax.collections) == 2
    sizes = ax.collections[1].get_sizes()
    assert sizes.max() == pytest.approx(300.0)


def test_benchmark_split_and_constant_baseline() -> None:
    f = pd.DataFrame({"benchmark": ["HumanEval", "MBPP", "APPS", "PIE"], "df_score": [0.0, 1.0, 0.0, 1.0],
                      "region": ["SFD", "Control", "SFD", "DFS"]})
    train, test = cal.benchmark_split(f, ["HumanEval", "MBPP"])
    assert list(train.benchmark) == ["HumanEval", "MBPP"] and list(test.benchmark) == ["APPS", "PIE"]
    b = cal.constant_baseline(train, test).set_index("region")["mae_train_mean"]
    # the constant is train's mean df_score, 0.5: every test pair is 0.5 away
    assert b["SFD"] == 0.5 and b["DFS"] == 0.5 and b["all"] == 0.5 and np.isnan(b["Control"])
    b2 = cal.constant_baseline(train.assign(df_score=[1.0, 1.0]), test).set_index("region")["mae_train_mean"]
    assert b2["SFD"] == 1.0 and b2["DFS"] == 0.0 and b2["all"] == 0.5


def test_rq3_thresholds_falls_back_when_algorithm_2_cannot_fit() -> None:
    fallback = Thresholds(0.65, 0.9, 0.1, 0.9, float("nan"), 0.05, "paper")
    tiny = pd.DataFrame({"id": ["a", "b"], "variant_type": ["MUT", "OPT"], "SurfaceSim": [0.5, 0.5], "df_score": [0.5, 0.5],
                         "m": [0.5, 0.5]})
    th, source = cal.rq3_thresholds(tiny, tiny.iloc[:0], 10, 0, ["m"], fallback=fallback)
    assert th is fallback and "paper" in source
