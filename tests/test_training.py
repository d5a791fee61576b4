"""RQ5 (paper Section 4.7.1): mixed training sets, held-out PIE pairs, disjoint evaluation
sets, seeding, Table 6 arithmetic, and the codegen candidate truncation. Synthetic rows and a
fake trainer: no fuzzing, no encoder."""

from __future__ import annotations

import random

import numpy as np
import pandas as pd
import pytest

from lcl import training as T


def _rows(prefix: str, n: int, benchmark: str = "HumanEval", label: float = 1.0, variant: bool = False) -> list[dict]:
    key = "variant" if variant else "candidate"
    return [{"id": f"{prefix}_{i}", "benchmark": benchmark, "reference": f"def f{prefix}{i}(): return {i}",
             key: f"def f{prefix}{i}(): return {i} + 0", "df_score": label} for i in range(n)]


@pytest.fixture
def data():
    base = _rows("BASE", 30, label=0.9)
    local = (_rows("HE", 20, "HumanEval", 0.1, True) + _rows("MBPP", 10, "MBPP", 0.0, True)
             + _rows("PIE", 25, "PIE", 1.0, True))
    cst = _rows("CST", 40, "MBPP", 0.5)
    return base, local, cst


@pytest.mark.parametrize("p", [0, 10, 33, 50, 77, 100])
def test_mixed_set_has_fixed_size_and_p_percent_local(p, data):
    base, local, _ = data
    train, _ = T.split_local(local)
    size = T.training_size(base, train)
    assert size == 30  # LoCaL pool (30 non-PIE) == base: min of the two
    got = T.mixed_training_set(base, train, p, size, random.Random(1))
    assert len(got) == size
    assert sum(r["source"] == "LoCaL" for r in got) == round(p * size / 100)
    assert sum(r["id"].startswith(("HE_", "MBPP_")) for r in got) == round(p * size / 100)
    assert not any(r["benchmark"] == "PIE" for r in got)
    assert len({r["id"] for r in got}) == size  # without replacement


def test_training_size_is_the_smaller_pool(data):
    base, local, _ = data
    train, _ = T.split_local(local)
    assert T.training_size(base[:12], train) == 12
    assert T.training_size(base, train[:7]) == 7


def test_mixed_set_refuses_pie_and_impossible_draws(data):
    base, local, _ = data
    with pytest.raises(ValueError, match="PIE"):
        T.mixed_training_set(base, T.labelled_rows(local), 50, 20, random.Random(0))
    train, _ = T.split_local(local)
    with pytest.raises(ValueError, match="cannot draw"):
        T.mixed_training_set(base, train, 100, 31, random.Random(0))
    with pytest.raises(ValueError):
        T.mixed_training_set(base, train, 110, 10, random.Random(0))


def test_split_holds_out_pie_and_drops_timeouts(data):
    _, local, _ = data
    local = local + [{**local[0], "id": "HE_timeout", "df_score": -1.0}]
    train, held = T.split_local(local)
    assert {r["benchmark"] for r in held} == {"PIE"} and len(held) == 25
    assert "PIE" not in {r["benchmark"] for r in train} and len(train) == 30
    assert all("candidate" in r for r in train + held)


def test_evaluation_sets_are_disjoint_equal_sized_and_seeded(data):
    base, local, cst = data
    _, pie = T.split_local(local)
    b, lt = T.evaluation_sets(cst, pie, 100, seed=3)
    assert len(b) == len(lt) == 25  # min(n, both sources)
    assert not {T.pair_key(r) for r in b} & {T.pair_key(r) for r in lt}
    assert [r["id"] for r in T.evaluation_sets(cst, pie, 10, seed=3)[0]] == \
        [r["id"] for r in T.evaluation_sets(cst, pie, 10, seed=3)[0]]
    assert [r["id"] for r in T.evaluation_sets(cst, pie, 10, seed=3)[0]] != \
        [r["id"] for r in T.evaluation_sets(cst, pie, 10, seed=4)[0]]
    # a pair present in both sources goes to Baseline only
    shared = {**cst[0], "id": "PIE_dup", "benchmark": "PIE"}
    b, lt = T.evaluation_sets(cst, pie + [shared], 100, seed=3)
    assert not {T.pair_key(r) for r in b} & {T.pair_key(r) for r in lt}
    # one empty source: the other set keeps min(n, available)
    b, lt = T.evaluation_sets([], pie, 10, seed=3)
    assert b == [] and len(lt) == 10


def test_training_pools_drop_evaluation_pairs(data):
    base, local, cst = data
    train, pie = T.split_local(local)
    b, lt = T.evaluation_sets(cst, pie, 10, seed=0)
    leaked = {**b[0], "id": "BASE_leak", "benchmark": "HumanEval"}
    bp, lp, removed = T.training_pools(base + [leaked], train, b + lt)
    assert "BASE_leak" not in {r["id"] for r in bp}
    assert removed["base: also an evaluation pair"] == 1
    assert len(bp) == 30 and len(lp) == 30


class FakeModel:
    """Predicts the training label mean; records what it was trained on."""

    def __init__(self, pairs, seed, exclude):
        keys = {T.pair_key(r) for r in pairs}
        assert not keys & {T.pair_key({"reference": r, "candidate": c}) for r, c in exclude}
        self.value = float(np.mean([r["df_score"] for r in pairs]))
        self.content_hash = f"{seed:012d}"

    def predict(self, refs, cands):
        return np.full(len(refs), self.value)


def _trainer(calls):
    def train(pairs, seed, exclude=(), config=None):
        calls.append((seed, sorted(r["id"] for r in pairs)))
        return FakeModel(pairs, seed, exclude)
    return train


def test_experiment_long_table_and_determinism(data):
    base, local, cst = data
    calls: list = []
    runs = T.experiment(base, local, cst, (0, 50, 100), 2, 20, seed=7, trainer=_trainer(calls), progress=False)
    assert list(runs.columns) == T.RUN_COLUMNS
    assert len(runs) == 3 * 2 * 3
    assert set(runs["set"]) == set(T.RQ5_SETS)
    assert (runs["n_train"] == 30).all() and (runs["n_eval"][runs.set != "Combined"] == 20).all()
    assert dict(runs.groupby("p")["n_local"].first()) == {0: 0, 50: 15, 100: 30}
    # base label 0.9, LoCaL train labels 0.1/0.0, Baseline truth 0.5, LoCaL_test truth 1.0
    r0 = runs[(runs.p == 0) & (runs.model == 0)].set_index("set")["MAE"]
    assert r0["Baseline"] == pytest.approx(0.4) and r0["LoCaL_test"] == pytest.approx(0.1)
    assert r0["Combined"] == pytest.approx(0.25)
    assert len({s for s, _ in calls}) == 6  # one seed per (p, k)
    calls2: list = []
    again = T.experiment(base, local, cst, (0, 50, 100), 2, 20, seed=7, trainer=_trainer(calls2), progress=False)
    pd.testing.assert_frame_equal(runs, again)
    assert calls == calls2
    calls3: list = []
    T.experiment(base, local, cst, (0, 50, 100), 2, 20, seed=8, trainer=_trainer(calls3), progress=False)
    assert calls3 != calls


def test_table6_mean_std_and_headline():
    runs = pd.DataFrame([
        {"p": p, "model": k, "set": s, "MAE": v}
        for p, vals in ((0, {"Baseline": [0.4, 0.6], "LoCaL_test": [0.5, 0.7], "Combined": [0.45, 0.65]}),
                        (100, {"Baseline": [0.6, 0.6], "LoCaL_test": [0.1, 0.1], "Combined": [0.35, 0.35]}))
        for s, v2 in vals.items() for k, v in enumerate(v2)])
    t = T.table6(runs)
    r0 = t.set_index("p (%)").loc[0]
    assert r0["Baseline MAE"] == pytest.approx(0.5)
    assert r0["Baseline std"] == pytest.approx(np.std([0.4, 0.6], ddof=1))
    assert t.set_index("p (%)").loc[100, "LoCaL_test std"] == 0.0
    assert r0["models"] == 2
    assert r0["Combined MAE (paper)"] == pytest.approx(0.45) and r0["LoCaL_test std (paper)"] == pytest.approx(0.05)
    h = T.headline(t)
    assert h["RQ5.local_test_reduction"] == pytest.approx((0.6 - 0.1) / 0.6 * 100)
    assert h["RQ5.baseline_increase"] == pytest.approx(20.0)
    assert h["RQ5.combined_drop"] == pytest.approx((0.55 - 0.35) / 0.55 * 100)
    one = T.table6(runs[runs.model == 0], with_paper=False)
    assert one["Baseline std"].isna().all() and "Baseline MAE (paper)" not in one.columns
    assert np.isnan(T.headline(one[one["p (%)"] == 0])["RQ5.combined_drop"])


def test_derive_seed_is_stable_and_distinct():
    assert T.derive_seed(1, "rq5", 0, 0) == T.derive_seed(1, "rq5", 0, 0)
    assert len({T.derive_seed(1, "rq5", p, k) for p in range(0, 101, 10) for k in range(5)}) == 55


@pytest.mark.parametrize("completion, body", [
    ("    return x + 1\n\ndef other():\n    pass\n", "    return x + 1"),
    ("    return x\n# trailing comment\n", "    return x"),
    ("    y = x\n    return y\nif __name__ == '__main__':\n    f(1)\n", "    y = x\n    return y"),
    ("    return x\nclass A: pass\n", "    return x"),
    ("    return x   \n", "    return x"),
])
def test_completion_program_truncates_at_stop_tokens(completion, body):
    prompt = "def f(x):\n"
    assert T.completion_program(prompt, completion) == prompt + body + "\n"


def test_completion_program_custom_stop_tokens():
    assert T.completion_program("P\n", "a\nSTOP b", stop=("STOP",)) == "P\na\n"
