"""RQ5's surface-rule comparator (Table 6 beside the mean predictor): a single similarity threshold
fitted on each model's training draw only, evaluated like the model, its learned-gain columns and
the aux readings the conclusions run on. Synthetic rows and a fake trainer: no fuzzing, no encoder."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest

from lcl.core import claim_links
from lcl.rq import rq5


def _brute(sims: np.ndarray, labels: np.ndarray) -> float:
    cuts = [-math.inf, *sorted(set(sims.tolist())), math.inf]
    best = math.inf
    for t, ge in itertools.product([*cuts, *(np.array(cuts[1:-2]) + 1e-9)], (True, False)):
        pred = (sims >= t) if ge else (sims < t)
        best = min(best, float(np.abs(labels - pred).mean()))
    return best


def test_fit_threshold_finds_either_sense():
    sims = np.array([0.1, 0.2, 0.8, 0.9])
    assert rq5.fit_threshold(sims, np.array([0.0, 0.0, 1.0, 1.0])) == (pytest.approx(0.5), ">=", 0.0)
    # LoCaL's direction: the pairs that look alike are the wrong ones ("1 if similarity < t")
    assert rq5.fit_threshold(sims, np.array([1.0, 1.0, 0.0, 0.0])) == (pytest.approx(0.5), "<", 0.0)
    # all alike labels: everything 1 (t at the lowest similarity) or everything 0 (t = inf)
    assert rq5.fit_threshold(sims, np.ones(4))[1:] == (">=", 0.0)
    t, sense, err = rq5.fit_threshold(sims, np.zeros(4))
    assert (t, sense, err) == (math.inf, ">=", 0.0)


def test_fit_threshold_is_the_training_minimum():
    rng = np.random.default_rng(3)
    for _ in range(40):
        n = int(rng.integers(1, 25))
        sims = np.round(rng.random(n), 1)  # ties on purpose
        labels = rng.choice([0.0, 0.3, 1.0], n)
        t, sense, err = rq5.fit_threshold(sims, labels)
        pred = (sims >= t) if sense == ">=" else (sims < t)
        assert err == pytest.approx(float(np.abs(labels - pred).mean()))
        assert err == pytest.approx(_brute(sims, labels))


def _pair(i: int, similar: bool, label: float, bench: str = "HumanEval", tag: str = "T") -> dict:
    body = "\n".join(f"    x{j} = {j} * {i}" for j in range(8))
    ref = f"def f{tag}{i}(a):\n{body}\n    return a\n"
    cand = ref.replace("return a", "return a + 1") if similar else f"def g{tag}{i}(b):\n    return sorted(b)[::-1]\n"
    return {"id": f"{tag}_{i}", "benchmark": bench, "reference": ref, "candidate": cand, "df_score": label}


def test_surface_rule_is_fitted_on_its_training_rows_only():
    # training: pairs that look alike are wrong (LoCaL-like); evaluation: the opposite. A rule that
    # saw the evaluation rows would flip its sense; one fitted on training keeps it and scores MAE 1
    train = [_pair(i, True, 0.0) for i in range(6)] + [_pair(i + 6, False, 1.0) for i in range(6)]
    evaluation = [_pair(i, True, 1.0, tag="E") for i in range(5)] + [_pair(i + 5, False, 0.0, tag="E")
                                                                      for i in range(5)]
    rule = rq5.SurfaceRule(train)
    assert rule.sense == "<" and rule.train_mae == 0.0
    assert rule.describe().startswith("1 if SurfaceSim < ")
    got = rq5.evaluate(rule, {"Baseline": evaluation})
    assert got["Baseline"][0] == pytest.approx(1.0)
    assert rq5.SurfaceRule(train, "difflib").sense == "<"


class _Constant:
    def __init__(self, value: float):
        self.value, self.content_hash = value, "c"

    def predict(self, refs, cands):
        return np.full(len(refs), self.value)


def _trainer(pairs, seed, exclude=(), config=None, validation=()):
    return _Constant(0.5)


@pytest.fixture
def data():
    # base: alike pairs right; LoCaL: alike pairs wrong; LoCaL_test (PIE) like LoCaL; Baseline like base
    base = [_pair(i, i % 2 == 0, float(i % 2 == 0), tag="B") for i in range(40)]
    local = ([_pair(i, i % 2 == 0, float(i % 2 == 1), "MBPP", tag="L") for i in range(40)]
             + [_pair(i, i % 2 == 0, float(i % 2 == 1), "PIE", tag="P") for i in range(30)])
    cst = [_pair(i, i % 2 == 0, float(i % 2 == 0), "MBPP", tag="C") for i in range(30)]
    return base, local, cst


def test_runs_table6_and_gain_carry_the_surface_rule(data, tmp_path):
    base, local, cst = data
    runs = rq5.experiment(base, local, cst, (0, 100), 2, 20, seed=1, trainer=_trainer, progress=False)
    assert {rq5.RULE_COL, rq5.DIFFLIB_COL, "surface rule"} <= set(runs.columns)
    r = runs.set_index(["p", "model", "set"])
    # p = 0 fits ">=" on base pairs: right on Baseline, wrong on every LoCaL_test pair; p = 100 the reverse
    assert r.loc[(0, 0, "Baseline"), rq5.RULE_COL] == 0.0 and r.loc[(0, 0, "LoCaL_test"), rq5.RULE_COL] == 1.0
    assert r.loc[(100, 0, "LoCaL_test"), rq5.RULE_COL] == 0.0 and r.loc[(100, 0, "Baseline"), rq5.RULE_COL] == 1.0
    assert r.loc[(0, 0, "Combined"), rq5.RULE_COL] == pytest.approx(0.5)
    t6 = rq5.table6(runs)
    assert {"LoCaL_test MAE (surface rule)", "LoCaL_test std (surface rule)",
            "Baseline MAE (surface rule, difflib)"} <= set(t6.columns)
    assert "LoCaL_test (surface rule)" in rq5.table6_shown(t6).index
    gain = rq5.learned_gain(runs).set_index(["p (%)", "set"])
    # the constant 0.5 model: MAE 0.5 everywhere; the rule's MAE 0 or 1
    assert gain.loc[(100, "LoCaL_test"), "gain over surface rule"] == pytest.approx(-0.5)
    assert gain.loc[(100, "LoCaL_test"), "models beating the surface rule"] == 0
    assert gain.loc[(100, "Baseline"), "gain over surface rule"] == pytest.approx(0.5)
    # the aux readings the conclusions are run on, read back from the written tables
    t6.to_csv(tmp_path / f"{rq5.TABLE6}.csv", index=False)
    runs.to_csv(tmp_path / f"{rq5.RUNS}.csv", index=False)
    v = claim_links.read(str(tmp_path), rq5.CLAIMS)
    assert v["aux.RQ5.surface_rule.LoCaL_test.100"].value == 0.0
    assert v["aux.RQ5.surface_rule.local_test_reduction"].value == pytest.approx(100.0)
    g = v["aux.RQ5.gain_over_rule.LoCaL_test.100"]
    assert g.value == pytest.approx(-0.5) and g.low == pytest.approx(-0.5) and g.high == pytest.approx(-0.5)
    assert v["aux.RQ5.gain_over_mean.Baseline.0"].value == pytest.approx(
        float(gain.loc[(0, "Baseline"), "learned gain"]), abs=1e-4)
    lines = rq5.rule_lines(t6, runs, rq5.learned_gain(runs), (0, 100))
    assert "is beaten by the surface rule" in lines[1] and "LoCaL_test MAE reduction 100.0%" in lines[-1]


def test_learned_gain_without_rule_columns_keeps_the_mean_predictor():
    runs = pd.DataFrame([{"p": 0, "model": k, "set": "Baseline", "MAE": 0.3, rq5.MEAN_COL: 0.4} for k in (0, 1)])
    g = rq5.learned_gain(runs).iloc[0]
    assert g["learned gain"] == pytest.approx(0.1) and math.isnan(g["gain over surface rule"])
