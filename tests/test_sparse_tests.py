"""Study X1 (lcl.rq.sparse_tests): scores of verdict-string prefixes and subsets, Wilson intervals,
convergence summaries, stratified sampling, paired MAE bootstrap, and a real fuzz of a small pair
showing that a prefix of run 0's verdicts is the score of a run on those inputs alone."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from lcl.rq import sparse_tests as X
from lcl.engine.fuzz import Settings, fuzz_pair


def test_prefix_and_positions_scores_exclude_invalid_inputs():
    v = "MMIXMMMMXT"
    assert X.prefix_score(v, 3) == 1.0  # M M I: the invalid input leaves the denominator
    assert X.prefix_score(v, 4) == pytest.approx(2 / 3)
    assert X.prefix_score(v, 10) == pytest.approx(6 / 9)  # T (variant timed out) is not a match
    assert X.prefix_score(v, 50) == X.prefix_score(v, 10)
    assert X.prefix_score("III", 3) is None
    assert X.positions_score(v, [0, 3, 9]) == pytest.approx(1 / 3)
    assert X.positions_score(v, [2]) is None
    assert X.positions_score(v, [99]) is None


def test_wilson_matches_the_closed_form_and_pins_the_edges():
    lo, hi = X.wilson(8, 10)
    assert lo == pytest.approx(0.4901624, abs=1e-6) and hi == pytest.approx(0.9433178, abs=1e-6)
    assert X.wilson(0, 20)[0] == 0.0 and X.wilson(20, 20)[1] == 1.0
    assert X.wilson(0, 20)[1] == pytest.approx(0.1611252, abs=1e-6)
    assert all(math.isnan(x) for x in X.wilson(0, 0))
    s = X.share([True, False, False, False])
    assert s["k"] == 1 and s["n"] == 4 and s["share"] == 0.25 and s["ci_low"] < 0.25 < s["ci_high"]


def test_archived_interval_pools_counts_of_kept_runs():
    k, valid, lo, hi = X.archived_interval({"matches": 390, "mismatches": 5, "timeouts": 1, "crashes": 0,
                                            "invalid": 4, "skipped": 0})
    assert (k, valid) == (390, 396) and lo < 390 / 396 < hi
    assert X.archived_interval(None)[1] == 0


def _table() -> pd.DataFrame:
    rows = []
    # five function pairs: df(N) error shrinks with N; one program pair with N = 1000
    for i, errs in enumerate([(0.3, 0.2, 0.1, 0.04, 0.0), (0.0,) * 5, (0.1, 0.0, 0.0, 0.0, 0.0),
                              (0.2, 0.2, 0.06, 0.0, 0.0), (0.0,) * 5]):
        r = {"id": f"f{i}", "benchmark": "HumanEval", "variant_type": "MUT", "level": "function", "n_full": 2000,
             "run0_full": 0.5}
        for n, e in zip((10, 100, 500, 1000, 2000), errs):
            r[f"df_N{n}"] = 0.5 + e
        for n in (20, 50, 200):
            r[f"df_N{n}"] = r["df_N10"]
        rows.append(r)
    p = {"id": "p0", "benchmark": "APPS", "variant_type": "OPT", "level": "program", "n_full": 1000, "run0_full": 1.0,
         **{f"df_N{n}": 1.0 for n in (10, 20, 50, 100, 200, 500, 1000)}, "df_N2000": None}
    return pd.DataFrame(rows + [p])


def test_convergence_summary_and_smallest_sufficient_n():
    conv = X.convergence(_table())
    assert set(conv[conv.id == "p0"].N) == {10, 20, 50, 100, 200, 500, 1000}  # no N beyond the pair's own
    s = X.convergence_summary(conv)
    at10 = s.set_index("N").loc[10]
    assert at10.pairs == 6 and at10["median"] == pytest.approx(0.05) and at10.within_tol == pytest.approx(3 / 6)
    assert s.set_index("N").loc[1000].within_tol == 1.0
    # N = 500: f0 (0.1) and f3 (0.06) still off -> 4/6 < 90%; from 1000 on every pair is within 0.05
    assert X.smallest_sufficient_n(s) == 1000
    # at 60%: N = 100 qualifies (4/6) but N = 200 (df_N200 = df_N10 here, 3/6) does not, so 500
    assert s.set_index("N").loc[100].within_tol == pytest.approx(4 / 6)
    assert X.smallest_sufficient_n(s, coverage=0.6) == 500
    # a grid that dips back out of tolerance is not "enough" before the dip
    dip = pd.DataFrame({"N": [10, 20, 50], "within_tol": [1.0, 0.5, 1.0]})
    assert X.smallest_sufficient_n(dip) == 50


def test_stratified_sample_is_seeded_capped_and_order_free():
    rows = [{"id": f"{b}{k}{i}", "benchmark": b, "variant_type": k} for b in "AB" for k in ("MUT", "OPT")
            for i in range(7 if k == "MUT" else 2)]
    a = X.stratified_sample(rows, 3, seed=1)
    assert len(a) == 3 + 2 + 3 + 2
    assert a == X.stratified_sample(list(reversed(rows)), 3, seed=1)
    assert a != X.stratified_sample(rows, 3, seed=2)
    assert X.stratified_sample(rows, None, seed=1) == sorted(rows, key=lambda r: r["id"])


def test_sparse_false_equivalence_and_near_perfect_band():
    t = pd.DataFrame({"benchmark": ["H", "H", "H", "P"], "variant_type": ["MUT", "MUT", "OPT", "OPT"],
                      "df_c": [0.99, 0.2, 1.0, 0.985], "df_a": [1.0, 1.0, 1.0, None], "df_b": [1.0, 0.3, 1.0, 0.99],
                      "df_b_generated": [0.9, 0.3, 1.0, 1.0]})
    fe = X.sparse_false_equivalence(t).set_index(["benchmark", "variant_type", "ground_truth"])
    a = fe.loc[("all", "all", "(a) own tests")]
    assert (a.k, a.n) == (2, 3)  # pairs 0 and 1; pair 2 is equivalent under (c) too; P has no own tests
    assert fe.loc[("all", "all", "(b) first 100 inputs")].k == 1
    assert fe.loc[("P", "OPT", "(a) own tests")].note == "no own tests"
    g = fe.loc[("all", "all", "(b') first 100 generated inputs")]
    assert (g.k, g.n) == (1, 4)  # only P's pair (0.985 under (c))
    nb = X.near_perfect(t).set_index("variant_type")
    assert nb.loc["all", "band_k"] == 2 and nb.loc["all", "a_n"] == 1 and nb.loc["all", "a_says_1"] == 1
    assert nb.loc["all", "b_says_1"] == 1 and nb.loc["all", "b_n"] == 2


def test_paired_mae_change_is_exact_and_its_ci_collapses_for_a_constant_shift():
    scores = np.array([0.5, 0.7, 0.9, 0.1])
    c = np.array([0.0, 0.2, 0.4, 0.6])
    b = c + 0.1  # every |score - truth| on pairs 0-2 shrinks by 0.1, pair 3's grows by 0.1
    out = {r["ground_truth"]: r for r in X.paired_mae(scores, {"c": c, "b": b}, "c", n_boot=200, seed=0)}
    assert out["c"]["mae"] == pytest.approx(0.5) and out["b"]["mae"] == pytest.approx(0.45)
    assert out["b"]["change_vs_c"] == pytest.approx(-0.05)
    assert out["c"]["change_ci_low"] == out["c"]["change_ci_high"] == 0.0
    assert out["b"]["ci_low"] <= 0.45 <= out["b"]["ci_high"]


REF = "def f(x):\n    return x if x < 150 else -x\n"
VAR = "def f(x):\n    return x\n"


def _gen(seed: int, n: int) -> list[list[int]]:
    import random

    rnd = random.Random(seed)
    return [[i] for i in range(100)] + [[rnd.randint(0, 300)] for _ in range(n - 100)]


def test_prefix_of_a_real_run_equals_a_run_on_the_first_100_inputs():
    """A real fuzz: the variant agrees on inputs < 150, so the first 100 inputs (0..99) call it
    equivalent while the whole run does not; the prefix score equals fuzz_pair on those 100
    inputs alone, and the full score equals the run's own."""
    s = Settings(runs=2, n_function=400, run_budget=10, timeout_floor=0.5, reference_timeout=2.0)
    res = fuzz_pair(REF, VAR, entry="f", generator=_gen, seed=7, settings=s, only_runs=[0])
    v = res.runs[0].verdicts
    assert len(v) == 400 and X.prefix_score(v, 400) == res.runs[0].score
    first = _gen(res.runs[0].seed, 400)[:100]
    alone = fuzz_pair(REF, VAR, entry="f", inputs=first, settings=s.with_(runs=1)).runs[0].score
    assert X.prefix_score(v, X.SPARSE_N) == alone == 1.0
    expected = sum(x[0] < 150 for x in _gen(res.runs[0].seed, 400)) / 400
    assert res.runs[0].score == pytest.approx(expected) and expected < 1.0


def test_run0_of_a_humaneval_pair_finds_its_own_check_inputs(project_data, tmp_path, monkeypatch):
    """HumanEval/0 with a mutant that only differs on ties: the run opens with the task's own
    ``check`` inputs (their positions are what (a) scores), and a rerun is read from the cache."""
    from lcl.study.task_specs import resolve_published, tasks_for

    monkeypatch.setenv("LCL_CACHE", str(tmp_path / "cache"))
    task = tasks_for("HumanEval/0")[0]
    variant = task.reference.replace("distance < threshold", "distance <= threshold")
    assert variant != task.reference
    row = {"id": "t0", "task": "HumanEval/0", "benchmark": "HumanEval", "variant_type": "MUT", "level": "function",
           "reference": task.reference, "candidate": variant, "df_score": 0.5, "run_scores": [None], "counts": None}
    s = Settings(runs=2, n_function=60, run_budget=10, timeout_floor=0.5, reference_timeout=2.0)
    r0 = X.fuzz_run0(row, s, seed=3)
    n_own = task.extra["n_own_seeds"]
    assert r0.own_positions == tuple(range(n_own)) and 0 < n_own < 60 and len(r0.verdicts) == 60
    gen = resolve_published({"id": "t0", "task": "HumanEval/0", "golden_code": "", "generated_code": ""})["generator"]
    assert gen(r0.seed, 60)[:n_own] == list(task.seed_inputs[:n_own])
    again = X.fuzz_run0(row, s, seed=3)
    assert again == r0  # the cached verdicts and cost, not a new run (seconds would differ)
    pr = X.pair_row(row, r0)
    assert pr["df_a"] == X.positions_score(r0.verdicts, range(n_own)) and pr["df_N50"] == X.prefix_score(r0.verdicts, 50)
    assert pr["df_N100"] is None and pr["reproduces"] is False  # N = 60: no df(100); no archived run 0
    assert r0.n_seeds == min(len(gen.seed_inputs), 60) >= n_own
    assert pr["df_b_generated"] == X.positions_score(r0.verdicts, range(r0.n_seeds, 60))


def test_time_dependent_flags_timeouts_invalid_inputs_and_excluded_runs():
    t = pd.DataFrame({"run0_archived": [0.5, None, 0.5, 0.5, 0.5], "run0_excluded": [False] * 5,
                      "run0_timeouts": [0, 0, 1, 0, 0], "run0_invalid": [0, 0, 0, 0, 0],
                      "c_timeouts_invalid": [0, 0, 0, 3, 0]})
    assert X.time_dependent(t).tolist() == [False, True, True, True, False]


def test_convergence_ends_at_a_pairs_own_n_off_the_grid():
    t = pd.DataFrame([{"id": "s", "benchmark": "H", "variant_type": "MUT", "level": "function", "n_full": 40,
                       "run0_full": 0.5, "df_N10": 0.7, "df_N20": 0.6, "df_N40": 0.5}])
    conv = X.convergence(t)
    assert conv.N.tolist() == [10, 20, 40] and conv.abs_error.tolist() == pytest.approx([0.2, 0.1, 0.0])
    assert X.smallest_sufficient_n(X.convergence_summary(conv)) == 40


def test_run0_all_keeps_row_order_and_runs_pairs_concurrently(monkeypatch):
    """``jobs`` > 1 fuzzes pairs in threads; results come back in the order of the rows whatever
    order the pairs finish in, and two pairs are in flight at once."""
    import threading
    import time

    monkeypatch.setattr("lcl.study.task_specs.all_spec_uids", list)
    lock, in_flight, most = threading.Lock(), [0], [0]

    def fake_run0(row, settings, seed):
        with lock:
            in_flight[0] += 1
            most[0] = max(most[0], in_flight[0])
        time.sleep(0.05 * (4 - row["n"]))  # later rows finish first
        with lock:
            in_flight[0] -= 1
        return X.Run0("M" * row["n"], 1.0, False, seed, 0.0, (), 0)

    monkeypatch.setattr(X, "fuzz_run0", fake_run0)
    rows = [{"id": f"p{n}", "n": n} for n in range(4)]
    serial = X.run0_all(rows, Settings(), 7, jobs=1)
    parallel = X.run0_all(rows, Settings(), 7, jobs=2)
    assert [r.verdicts for r in parallel] == ["", "M", "MM", "MMM"]
    assert parallel == serial
    assert most[0] == 2
