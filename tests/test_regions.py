"""Algorithm 2 (fast prefix-sum scan) against a literal implementation of the pseudocode."""

from __future__ import annotations

import numpy as np
import pytest

from lcl.engine import regions


def _data(n=60, seed=0):
    rng = np.random.default_rng(seed)
    x, y = rng.random(n), rng.random(n)
    # a metric that tracks surface similarity (biased) and one that is noisy truth
    scores = {"biased": np.clip(x + rng.normal(0, 0.05, n), 0, 1), "noisy": np.clip(y + rng.normal(0, 0.2, n), 0, 1)}
    return x, y, scores


@pytest.mark.parametrize("error", ["squared", "absolute"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_fast_scan_matches_the_printed_algorithm(error, seed):
    x, y, scores = _data(seed=seed)
    fast = regions.thresholds(x, y, scores, step=0.1, error=error)
    slow = regions.thresholds_bruteforce(x, y, scores, step=0.1, error=error)
    assert fast.objective == pytest.approx(slow.objective, abs=1e-9)
    assert (fast.x_lo, fast.x_hi, fast.y_lo, fast.y_hi) == (slow.x_lo, slow.x_hi, slow.y_lo, slow.y_hi)


def test_grid_points_on_boundaries_are_inclusive():
    x = np.array([0.3, 0.9, 0.5, 0.6])
    y = np.array([0.9, 0.1, 0.5, 0.4])
    th = regions.Thresholds(0.3, 0.9, 0.1, 0.9, 0.0, 0.1, "squared")
    assert list(regions.assign(x, y, th)) == ["DFS", "SFD", "Control", "Control"]


def test_biased_metric_gives_corner_regions():
    x, y, scores = _data(n=400, seed=3)
    th = regions.thresholds(x, y, {"biased": scores["biased"]}, step=0.05)
    assert th.x_lo < th.x_hi and th.y_lo < th.y_hi and th.objective > 0
    lab = regions.assign(x, y, th)
    counts = regions.region_counts(lab)
    assert sum(counts.values()) == 400 and counts["SFD"] > 0 and counts["DFS"] > 0


def test_distance_to_corners():
    th = regions.Thresholds(0.3, 0.8, 0.2, 0.7, 0.0, 0.1, "squared")
    d = regions.distance_to_corners(np.array([0.9, 0.5, 0.3]), np.array([0.1, 0.5, 0.7]), th)
    assert d[0] == 0 and d[2] == 0 and d[1] == pytest.approx(min(np.hypot(0.3, 0.3), np.hypot(0.2, 0.2)))


def test_bad_input():
    with pytest.raises(ValueError):
        regions.thresholds(np.zeros(3), np.zeros(2), {"m": np.zeros(3)})
    with pytest.raises(ValueError):
        regions.thresholds(np.zeros(3), np.zeros(3), {})


@pytest.mark.parametrize("min_region", [2, 5])
def test_fast_scan_matches_the_printed_algorithm_with_a_minimum_region(min_region):
    x, y, scores = _data(seed=4)
    fast = regions.thresholds(x, y, scores, step=0.1, min_region=min_region)
    slow = regions.thresholds_bruteforce(x, y, scores, step=0.1, min_region=min_region)
    assert fast.objective == pytest.approx(slow.objective, abs=1e-9)
    assert (fast.x_lo, fast.x_hi, fast.y_lo, fast.y_hi) == (slow.x_lo, slow.x_hi, slow.y_lo, slow.y_hi)


def test_a_minimum_region_size_keeps_the_scan_off_a_corner_of_one_point():
    # 200 points the metric scores exactly, plus one far-off point it gets completely wrong: without a
    # floor, a DFS corner around that lone point has the largest error gap
    rng = np.random.default_rng(7)
    x, y = rng.uniform(0.3, 1, 200), rng.random(200)
    metric = y.copy()
    metric[(x > 0.8) & (y < 0.2)] = 1.0  # a surface-biased metric on the SFD corner: many points, moderate gap
    x, y, metric = np.append(x, 0.05), np.append(y, 1.0), np.append(metric, 0.0)  # the lone point
    def dfs_size(th):
        return int((regions.assign(x, y, th) == "DFS").sum())
    assert dfs_size(regions.thresholds(x, y, {"m": metric}, step=0.05)) == 1
    floored = regions.thresholds(x, y, {"m": metric}, step=0.05, min_region=10)
    assert min(regions.region_counts(regions.assign(x, y, floored)).values()) >= 10


def test_no_tuple_meets_the_minimum_region_size():
    x, y, scores = _data(n=20)
    with pytest.raises(ValueError, match="at least 15 point"):
        regions.thresholds(x, y, scores, step=0.1, min_region=15)
    with pytest.raises(ValueError, match="at least 1"):
        regions.thresholds(x, y, scores, step=0.1, min_region=0)


def test_a_notebook_error_parameter_is_checked() -> None:
    from lcl.core.errors import UserError

    assert regions.error_kind("squared") == "squared" and regions.error_kind("absolute") == "absolute"
    with pytest.raises(UserError, match="'squared' or 'absolute'"):
        regions.error_kind("sqaured")
