"""Algorithm 2 (fast prefix-sum scan) against a literal implementation of the pseudocode."""

from __future__ import annotations

import dataclasses

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


# ----------------------------------------------------------------------------- search rules (the authors' and others)
SMALL_AUTHORS = regions.SearchRules("small authors'", lo_bounds=(0.1, 0.6), hi_bounds=(0.1, 0.9), min_sizes=(3, 3, 8),
                                    error="absolute", tie_decimals=2, tie_break="authors", step=0.1)


@pytest.mark.parametrize("rules", [SMALL_AUTHORS, SMALL_AUTHORS.without("bounds"), SMALL_AUTHORS.without("tie"),
                                   SMALL_AUTHORS.without("error"), SMALL_AUTHORS.without("min_sizes"),
                                   regions.SearchRules("coarse ties", tie_decimals=1, tie_break="authors", step=0.1),
                                   regions.SearchRules("coarse, first", tie_decimals=1, step=0.1)])
@pytest.mark.parametrize("seed", [0, 5])
def test_fast_search_matches_the_literal_loop_under_every_rule(rules, seed):
    x, y, scores = _data(n=80, seed=seed)
    fast, slow = regions.search(x, y, scores, rules), regions.search_bruteforce(x, y, scores, rules)
    assert (fast.x_lo, fast.x_hi, fast.y_lo, fast.y_hi) == (slow.x_lo, slow.x_hi, slow.y_lo, slow.y_hi)
    assert fast.objective == pytest.approx(slow.objective, abs=1e-9) and fast.rules == rules.name


def test_the_authors_tie_rule_prefers_high_y_hi_low_y_lo_high_x_hi_low_x_lo():
    # every metric is exact, so every tuple has objective 0: the tie rule alone decides
    rng = np.random.default_rng(1)
    x, y = rng.random(300), rng.random(300)
    exact = {"m": y.copy()}
    rules = regions.SearchRules("ties", lo_bounds=(0.1, 0.6), hi_bounds=(0.1, 0.9), min_sizes=(5, 5, 5),
                                error="absolute", tie_decimals=2, tie_break="authors", step=0.05)
    th = regions.search(x, y, exact, rules)
    assert th.y_hi == 0.9  # the highest y_hi the bounds allow
    first = regions.search(x, y, exact, dataclasses.replace(rules, tie_break="first"))
    assert (first.x_lo, first.y_lo) == (0.1, 0.1)  # the printed loop's first tuple: lowest x_lo, then x_hi ...
    assert (th.x_lo, th.x_hi, th.y_lo, th.y_hi) != (first.x_lo, first.x_hi, first.y_lo, first.y_hi)


def test_bounds_are_respected_and_reported():
    x, y, scores = _data(n=400, seed=3)
    free = regions.search(x, y, scores, regions.AS_PRINTED)
    tight = regions.SearchRules("tight", lo_bounds=(0.1, 0.3), hi_bounds=(0.5, 0.7))
    th = regions.search(x, y, scores, tight)
    assert 0.1 <= th.x_lo <= 0.3 and 0.1 <= th.y_lo <= 0.3 and 0.5 <= th.x_hi <= 0.7 and 0.5 <= th.y_hi <= 0.7
    assert set(regions.on_bounds(th, tight)) <= set(regions.KEYS)
    paper = regions.Thresholds(0.65, 0.9, 0.1, 0.9, float("nan"), 0.05, "paper")
    assert regions.on_bounds(paper, regions.AUTHORS) == ("x_lo", "x_hi", "y_lo", "y_hi")
    assert regions.on_bounds(regions.Thresholds(0.5, 0.8, 0.2, 0.85, 0, 0.05, "x"), regions.AUTHORS) == ()
    assert free.rules == regions.AS_PRINTED.name


def test_the_named_rule_sets_are_the_released_scripts_and_the_printed_algorithm():
    a = regions.AUTHORS
    assert (a.lo_bounds, a.hi_bounds, a.min_sizes, a.error, a.tie_decimals, a.tie_break, a.step) == (
        (0.10, 0.65), (0.10, 0.90), (50, 50, 150), "absolute", 2, "authors", 0.05)
    p = regions.AS_PRINTED
    assert (p.lo_bounds, p.hi_bounds, p.minimums(1000), p.error, p.tie_decimals, p.tie_break) == (
        None, None, (1, 1, 1), "squared", None, "first")
    assert regions.FLOOR_2PCT.minimums(1708) == (35, 35, 35)
    assert a.without("bounds").bounds()["x_lo"] == (0.0, 1.0) and a.without("min_sizes").minimums(10) == (1, 1, 1)
    assert a.without("error").error == "squared" and a.without("tie").tie_decimals is None
    with pytest.raises(ValueError, match="no rule"):
        a.without("grid")
    assert "at least 50 DFS, 50 SFD and 150 Control" in a.describe()


def test_minimum_sizes_per_region():
    x, y, scores = _data(n=120, seed=2)
    rules = regions.SearchRules("sizes", min_sizes=(10, 12, 40), step=0.1)
    th = regions.search(x, y, scores, rules)
    c = regions.region_counts(regions.assign(x, y, th))
    assert c["DFS"] >= 10 and c["SFD"] >= 12 and c["Control"] >= 40
    with pytest.raises(ValueError, match="50 DFS, 50 SFD and 150 Control"):
        regions.search(x, y, scores, regions.AUTHORS)


def test_the_papers_distance_normalisation():
    th = regions.Thresholds(0.3, 0.8, 0.2, 0.7, 0.0, 0.1, "squared")
    x, y = np.array([0.5, 0.1]), np.array([0.5, 0.2])
    raw = regions.distance_to_corners(x, y, th)
    assert regions.distance_to_corners(x, y, th, normalised=True) == pytest.approx(raw / np.sqrt(2))
