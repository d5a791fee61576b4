"""RQ5 (paper Section 4.7.1): mixed training sets, held-out PIE pairs, disjoint evaluation
sets, seeding, Table 6 arithmetic, and the codegen candidate truncation. Synthetic rows and a
fake trainer: no fuzzing, no encoder."""

from __future__ import annotations

import random

import numpy as np
import pandas as pd
import pytest

from lcl.core import seeds
from lcl.study import codescore_base
from lcl.rq import rq5


def _rows(prefix: str, n: int, benchmark: str = "HumanEval", label: float = 1.0) -> list[dict]:
    return [{"id": f"{prefix}_{i}", "benchmark": benchmark, "reference": f"def f{prefix}{i}(): return {i}",
             "candidate": f"def f{prefix}{i}(): return {i} + 0", "df_score": label} for i in range(n)]


@pytest.fixture
def data():
    base = _rows("BASE", 30, label=0.9)
    local = (_rows("HE", 20, "HumanEval", 0.1) + _rows("MBPP", 10, "MBPP", 0.0)
             + _rows("PIE", 25, "PIE", 1.0))
    cst = _rows("CST", 40, "MBPP", 0.5)
    return base, local, cst


@pytest.mark.parametrize("p", [0, 10, 33, 50, 77, 100])
def test_mixed_set_has_fixed_size_and_p_percent_local(p, data):
    base, local, _ = data
    train, _ = rq5.split_local(local)
    size = rq5.training_size(base, train)
    assert size == 30  # LoCaL pool (30 non-PIE) == base: min of the two
    got = rq5.mixed_training_set(base, train, p, size, random.Random(1))
    assert len(got) == size
    assert sum(r["source"] == "LoCaL" for r in got) == round(p * size / 100)
    assert sum(r["id"].startswith(("HE_", "MBPP_")) for r in got) == round(p * size / 100)
    assert not any(r["benchmark"] == "PIE" for r in got)
    assert len({r["id"] for r in got}) == size  # without replacement


def test_training_size_is_the_smaller_pool(data):
    base, local, _ = data
    train, _ = rq5.split_local(local)
    assert rq5.training_size(base[:12], train) == 12
    assert rq5.training_size(base, train[:7]) == 7


def test_mixed_set_refuses_pie_and_impossible_draws(data):
    base, local, _ = data
    with pytest.raises(ValueError, match="PIE"):
        rq5.mixed_training_set(base, rq5.labelled_rows(local), 50, 20, random.Random(0))
    train, _ = rq5.split_local(local)
    with pytest.raises(ValueError, match="cannot draw"):
        rq5.mixed_training_set(base, train, 100, 31, random.Random(0))
    with pytest.raises(ValueError):
        rq5.mixed_training_set(base, train, 110, 10, random.Random(0))


def test_split_holds_out_pie_and_drops_timeouts(data):
    _, local, _ = data
    local = local + [{**local[0], "id": "HE_timeout", "df_score": -1.0}]
    train, held = rq5.split_local(local)
    assert {r["benchmark"] for r in held} == {"PIE"} and len(held) == 25
    assert "PIE" not in {r["benchmark"] for r in train} and len(train) == 30
    assert all("candidate" in r for r in train + held)


def test_evaluation_sets_are_disjoint_equal_sized_and_seeded(data):
    base, local, cst = data
    _, pie = rq5.split_local(local)
    b, lt = rq5.evaluation_sets(cst, pie, 100, seed=3)
    assert len(b) == len(lt) == 25  # min(n, both sources)
    assert not {rq5.pair_key(r) for r in b} & {rq5.pair_key(r) for r in lt}
    assert [r["id"] for r in rq5.evaluation_sets(cst, pie, 10, seed=3)[0]] == \
        [r["id"] for r in rq5.evaluation_sets(cst, pie, 10, seed=3)[0]]
    assert [r["id"] for r in rq5.evaluation_sets(cst, pie, 10, seed=3)[0]] != \
        [r["id"] for r in rq5.evaluation_sets(cst, pie, 10, seed=4)[0]]
    # a pair present in both sources goes to Baseline only
    shared = {**cst[0], "id": "PIE_dup", "benchmark": "PIE"}
    b, lt = rq5.evaluation_sets(cst, pie + [shared], 100, seed=3)
    assert not {rq5.pair_key(r) for r in b} & {rq5.pair_key(r) for r in lt}
    # one empty source: the other set keeps min(n, available)
    b, lt = rq5.evaluation_sets([], pie, 10, seed=3)
    assert b == [] and len(lt) == 10


def test_training_pools_drop_evaluation_pairs(data):
    base, local, cst = data
    train, pie = rq5.split_local(local)
    b, lt = rq5.evaluation_sets(cst, pie, 10, seed=0)
    leaked = {**b[0], "id": "BASE_leak", "benchmark": "HumanEval"}
    bp, lp, removed = rq5.training_pools(base + [leaked], train, b + lt)
    assert "BASE_leak" not in {r["id"] for r in bp}
    assert removed["base: also an evaluation pair"] == 1
    assert len(bp) == 30 and len(lp) == 30


def test_training_pools_drop_every_pair_of_an_evaluated_problem(data):
    # a LoCaL pair whose reference is an evaluation pair's reference, written differently (layout and a
    # comment), is the same problem: a model trained on it would be evaluated on a problem it has seen
    base, local, cst = data
    train, pie = rq5.split_local(local)
    b, lt = rq5.evaluation_sets(cst, pie, 10, seed=0)
    ref = b[0]["reference"].replace("(): return", "():\n    # the golden code\n    return")
    same_problem = {"id": "HE_same_problem", "benchmark": "HumanEval", "reference": ref,
                    "candidate": "def g(): return -1", "df_score": 0.0}
    assert rq5.problem_key(same_problem) == rq5.problem_key(b[0]) and rq5.pair_key(same_problem) != rq5.pair_key(b[0])
    bp, lp, removed = rq5.training_pools(base, train + [same_problem], b + lt)
    assert "HE_same_problem" not in {r["id"] for r in lp}
    assert removed["LoCaL: problem of an evaluation pair"] == 1
    assert len(lp) == 30  # the other pools' problems are not evaluated


def test_a_problem_key_of_code_that_does_not_parse_is_its_text():
    assert rq5.problem_key({"reference": "  print 'py2'  \n"}) == "print 'py2'"


class FakeModel:
    """Predicts the training label mean; records what it was trained on."""

    def __init__(self, pairs, seed, exclude):
        keys = {rq5.pair_key(r) for r in pairs}
        assert not keys & {rq5.pair_key({"reference": r, "candidate": c}) for r, c in exclude}
        self.value = float(np.mean([r["df_score"] for r in pairs]))
        self.content_hash = f"{seed:012d}"

    def predict(self, refs, cands):
        return np.full(len(refs), self.value)


def _trainer(calls):
    def train(pairs, seed, exclude=(), config=None, validation=()):
        assert not {r["id"] for r in pairs} & {r["id"] for r in validation}
        calls.append((seed, sorted(r["id"] for r in pairs)))
        return FakeModel(pairs, seed, exclude)
    return train


def test_experiment_long_table_and_determinism(data):
    base, local, cst = data
    calls: list = []
    runs = rq5.experiment(base, local, cst, (0, 50, 100), 2, 20, seed=7, trainer=_trainer(calls), progress=False)
    assert list(runs.columns) == rq5.RUN_COLUMNS
    assert len(runs) == 3 * 2 * 3
    assert set(runs["set"]) == set(rq5.RQ5_SETS)
    assert (runs["n_train"] == 30).all() and (runs["n_eval"][runs.set != "Combined"] == 20).all()
    assert dict(runs.groupby("p")["n_local"].first()) == {0: 0, 50: 15, 100: 30}
    # base label 0.9, LoCaL train labels 0.1/0.0, Baseline truth 0.5, LoCaL_test truth 1.0
    r0 = runs[(runs.p == 0) & (runs.model == 0)].set_index("set")["MAE"]
    assert r0["Baseline"] == pytest.approx(0.4) and r0["LoCaL_test"] == pytest.approx(0.1)
    assert r0["Combined"] == pytest.approx(0.25)
    assert len({s for s, _ in calls}) == 6  # one seed per (p, k)
    calls2: list = []
    again = rq5.experiment(base, local, cst, (0, 50, 100), 2, 20, seed=7, trainer=_trainer(calls2), progress=False)
    pd.testing.assert_frame_equal(runs, again)
    assert calls == calls2
    calls3: list = []
    rq5.experiment(base, local, cst, (0, 50, 100), 2, 20, seed=8, trainer=_trainer(calls3), progress=False)
    assert calls3 != calls


def test_table6_mean_std_and_headline():
    runs = pd.DataFrame([
        {"p": p, "model": k, "set": s, "MAE": v}
        for p, vals in ((0, {"Baseline": [0.4, 0.6], "LoCaL_test": [0.5, 0.7], "Combined": [0.45, 0.65]}),
                        (100, {"Baseline": [0.6, 0.6], "LoCaL_test": [0.1, 0.1], "Combined": [0.35, 0.35]}))
        for s, v2 in vals.items() for k, v in enumerate(v2)])
    t = rq5.table6(runs)
    r0 = t.set_index("p (%)").loc[0]
    assert r0["Baseline MAE"] == pytest.approx(0.5)
    assert r0["Baseline std"] == pytest.approx(np.std([0.4, 0.6], ddof=1))
    assert t.set_index("p (%)").loc[100, "LoCaL_test std"] == 0.0
    assert r0["models"] == 2
    assert r0["Combined MAE (paper)"] == pytest.approx(0.45) and r0["LoCaL_test std (paper)"] == pytest.approx(0.05)
    h = rq5.headline(t)
    assert h["RQ5.local_test_reduction"] == pytest.approx((0.6 - 0.1) / 0.6 * 100)
    assert h["RQ5.baseline_increase"] == pytest.approx(20.0)
    assert h["RQ5.combined_drop"] == pytest.approx((0.55 - 0.35) / 0.55 * 100)
    one = rq5.table6(runs[runs.model == 0], with_paper=False)
    assert one["Baseline std"].isna().all() and "Baseline MAE (paper)" not in one.columns
    assert np.isnan(rq5.headline(one[one["p (%)"] == 0])["RQ5.combined_drop"])


def test_unit_seed_is_stable_and_distinct():
    assert seeds.unit_seed(1, "rq5", 0, 0) == seeds.unit_seed(1, "rq5", 0, 0)
    assert len({seeds.unit_seed(1, "rq5", p, k) for p in range(0, 101, 10) for k in range(5)}) == 55


@pytest.mark.parametrize("completion, body", [
    ("    return x + 1\n\ndef other():\n    pass\n", "    return x + 1"),
    ("    return x\n# trailing comment\n", "    return x"),
    ("    y = x\n    return y\nif __name__ == '__main__':\n    f(1)\n", "    y = x\n    return y"),
    ("    return x\nclass A: pass\n", "    return x"),
    ("    return x   \n", "    return x"),
])
def test_completion_program_truncates_at_stop_tokens(completion, body):
    prompt = "def f(x):\n"
    assert codescore_base.completion_program(prompt, completion) == prompt + body + "\n"


def test_completion_program_custom_stop_tokens():
    assert codescore_base.completion_program("P\n", "a\nSTOP b", stop=("STOP",)) == "P\na\n"


def test_experiment_validation_split_and_mean_baseline(data):
    base, local, cst = data
    runs = rq5.experiment(base, local, cst, (0, 100), 1, 20, seed=7, trainer=_trainer([]), val_fraction=0.2,
                        progress=False)
    assert (runs["n_train"] == 24).all() and (runs["n_val"] == 6).all()
    # FakeModel predicts the training mean, so it equals the mean baseline on every set
    np.testing.assert_allclose(runs["MAE"], runs["MAE (mean baseline)"])
    r100 = runs[runs.p == 100].set_index("set")["MAE (mean baseline)"]
    train_mean = 1.0 - r100["LoCaL_test"]  # LoCaL_test truth is 1.0, the prediction is below it
    assert 0.0 < train_mean < 0.1  # p = 100: LoCaL training labels are 0.1 and 0.0
    t = rq5.table6(runs, with_paper=False)
    assert t.set_index("p (%)").loc[0, "Baseline MAE (mean baseline)"] == pytest.approx(0.4)


def test_split_validation_sizes_and_disjointness():
    rows = [{"id": i} for i in range(40)]
    tr, va = rq5.split_validation(rows, 0.125, random.Random(0))
    assert len(va) == 5 and len(tr) == 35 and not {r["id"] for r in tr} & {r["id"] for r in va}
    assert rq5.split_validation(rows, 0.0, random.Random(0)) == (rows, [])
    assert len(rq5.split_validation(rows[:1], 0.5, random.Random(0))[0]) == 1  # one row left to train on
    with pytest.raises(ValueError):
        rq5.split_validation(rows, 1.0, random.Random(0))


def test_mean_model_predicts_training_mean():
    m = rq5.MeanModel([{"df_score": 0.2}, {"df_score": 0.6}])
    np.testing.assert_allclose(m.predict(["a", "b", "c"], ["x", "y", "z"]), [0.4, 0.4, 0.4])
    with pytest.raises(ValueError):
        rq5.MeanModel([])


def _table(lt: tuple[float, float], bl: tuple[float, float], std: float) -> pd.DataFrame:
    return pd.DataFrame({"p (%)": [0, 100], "LoCaL_test MAE": list(lt), "LoCaL_test std": [std, std],
                         "Baseline MAE": list(bl), "Baseline std": [std, std],
                         "LoCaL_test MAE (mean baseline)": [0.5, 0.5], "Baseline MAE (mean baseline)": [0.3, 0.3]})


def test_direction_holds_only_when_local_falls_beyond_spread_and_baseline_barely_rises():
    d = rq5.direction(_table((0.46, 0.07), (0.44, 0.48), 0.02))  # the paper's endpoints
    assert d["holds"] and d["LoCaL_test"]["change_pct"] == pytest.approx((0.07 - 0.46) / 0.46 * 100)
    assert "holds." in rq5.direction_sentence(d) and "0.460 ± 0.020" in rq5.direction_sentence(d)
    within = rq5.direction(_table((0.46, 0.44), (0.44, 0.48), 0.05))
    assert not within["local_test_falls"] and "falls only within the spread" in rq5.direction_sentence(within)
    rises = rq5.direction(_table((0.30, 0.40), (0.44, 0.48), float("nan")))
    assert not rises["holds"] and rq5.direction_sentence(rises).endswith("does not hold: LoCaL_test MAE does not fall.")
    d = rq5.direction(_table((0.46, 0.20), (0.20, 0.40), 0.01))  # Baseline doubles: not slight
    assert d["local_test_falls"] and not d["baseline_rise_slight"] and not d["holds"]
    assert "does not hold: Baseline MAE rises" in rq5.direction_sentence(d)
    gone = rq5.direction(_table((0.46, 0.07), (float("nan"), float("nan")), 0.02))  # no CodeScore_test here
    assert not gone["holds"] and gone["missing"] == ["Baseline"]
    assert rq5.direction_sentence(gone).startswith("Baseline not evaluated here")
    one = _table((0.3, 0.2), (0.3, 0.3), float("nan"))  # one model per p: no spread, only the sign
    assert rq5.direction(one)["holds"] and rq5.direction(one)["LoCaL_test"]["beyond_spread"] is None
    assert "±" not in rq5.direction_sentence(rq5.direction(one)) and "no spread" in rq5.direction_sentence(rq5.direction(one))


def test_cost_summary_counts_models_once():
    runs = pd.DataFrame({"p": [0, 0, 100, 100], "model": [0, 0, 0, 0], "set": ["Baseline", "LoCaL_test"] * 2,
                         "train_s": [10.0, 10.0, 30.0, 30.0]})
    c = rq5.cost_summary(runs, "fine-tuned", {"max_steps": 5}, "cpu")
    assert c["models"] == 2 and c["train s (all models)"] == 40.0 and c["train s per model (max)"] == 30.0
    assert c["settings"] == "max_steps=5"


def test_rq5_config_follows_profile():
    from lcl.core import profiles

    q, f = rq5.rq5_config(profiles.get("quick")), rq5.rq5_config(profiles.get("full"))
    assert q["mode"] == f["mode"] == "full" and q["max_steps"] < f["max_steps"]
    assert f["unfreeze_layers"] == profiles.get("full").rq5_unfreeze_layers
    assert rq5.rq5_config(profiles.get("full"), "fast")["mode"] == "fast"
    with pytest.raises(ValueError):
        rq5.rq5_config(profiles.get("full"), "slow")


def test_grid_seconds_arithmetic():
    cal = {"train_s_per_pair": 0.5, "predict_s_per_pair": 0.1}
    assert rq5.grid_seconds(cal, models=55, train_pair_steps=960, predicted_pairs=1000) == pytest.approx(55 * 580)
    assert rq5.grid_seconds(cal, models=0, train_pair_steps=960, predicted_pairs=1000) == 0
    assert rq5.grid_seconds({**cal, "first_pass_s_per_pair": 2.0}, models=1, train_pair_steps=0, predicted_pairs=0,
                          distinct_pairs=10) == pytest.approx(20.0)


def test_calibrate_needs_rows():
    with pytest.raises(ValueError, match="at least 2"):
        rq5.calibrate([{"id": 1, "reference": "a", "candidate": "b", "df_score": 0.5}], {"mode": "full"})


def test_calibrate_times_one_step(tmp_path, monkeypatch):
    monkeypatch.setenv("LCL_CACHE", str(tmp_path / "cache"))
    rows = _rows("CAL", 3, label=0.5)
    cal = rq5.calibrate(rows, {"mode": "full", "max_length": 32, "unfreeze_layers": 1, "cache_frozen": True}, batch=2)
    assert set(cal) == {"train_s_per_pair", "predict_s_per_pair", "first_pass_s_per_pair"}
    assert cal["train_s_per_pair"] > 0 and cal["predict_s_per_pair"] > 0
    from lcl.engine.metrics import codescore_style as cs

    seen: list[int] = []
    real_train = cs.train

    def spy(*a, **k):
        seen.append(len(cs.BOTTOM))
        return real_train(*a, **k)

    monkeypatch.setattr(cs, "train", spy)
    cs.BOTTOM["sentinel"] = None
    try:
        again = rq5.calibrate(rows, {"mode": "full", "max_length": 32, "unfreeze_layers": 1, "cache_frozen": True}, batch=2)
        assert seen[0] == 0 and seen[1] > 0  # the cold run starts with nothing memoised, the warm run reuses it
        assert "sentinel" in cs.BOTTOM and again["first_pass_s_per_pair"] >= 0  # earlier states restored
    finally:
        cs.BOTTOM.pop("sentinel", None)
