"""RQ5's capacity check (lcl.rq.rq5_capacity): Table 6's setting kept exactly, larger settings
passed to the trainer, validation curves and the mean predictor's validation MAE per model, the
summary's learned gain, and a setting picked on validation only. Synthetic rows and a fake
trainer: no fuzzing, no encoder."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from lcl.core import profiles
from lcl.rq import rq5_capacity as C
from lcl.core import seeds
from lcl.rq import rq5


def _rows(prefix: str, n: int, benchmark: str, label: float) -> list[dict]:
    return [{"id": f"{prefix}_{i}", "benchmark": benchmark, "reference": f"def f{prefix}{i}(): return {i}",
             "candidate": f"def f{prefix}{i}(): return {i} + 0", "df_score": label} for i in range(n)]


class _Model:
    """Predicts the training mean shifted towards the truth by ``skill`` (the setting's steps / 100),
    with a validation history that falls with the steps."""

    def __init__(self, pairs: list[dict], config: dict) -> None:
        self.mean = float(np.mean([r["df_score"] for r in pairs]))
        self.skill = min(config["max_steps"] / 100, 1.0)
        steps = range(config["eval_every"], config["max_steps"] + 1, config["eval_every"])
        history = [(s, 0.5 - 0.001 * s) for s in steps]
        self.meta = {"train": {"steps": config["max_steps"], "validation": {
            "best_mae": min(v for _, v in history), "best_step": history[-1][0], "history": history}}}
        self.train_seconds = config["max_steps"] / 10
        self.content_hash = "0" * 64

    def predict(self, refs: list[str], cands: list[str]) -> np.ndarray:
        # the truth is in the candidate's id-free text only through the fixture's labels: use the reference prefix
        truth = np.array([1.0 if "PIE" in r else 0.5 for r in refs])
        return self.mean + self.skill * (truth - self.mean)


@pytest.fixture
def setup():
    base = _rows("BASE", 30, "HumanEval", 0.9)
    local = _rows("HE", 20, "HumanEval", 0.1) + _rows("MBPP", 10, "MBPP", 0.0) + _rows("PIE", 25, "PIE", 1.0)
    cst = _rows("CST", 40, "MBPP", 0.5)
    prof = dataclasses.replace(profiles.get("smoke"), rq5_max_steps=10, rq5_eval_every=5, rq5_eval=20,
                               rq5_capacity=((10, 1, 64), (50, 2, 64), (80, 1, 128)), rq5_capacity_models=2)
    return base, local, cst, prof


def test_settings_start_with_table6_and_keep_its_config_exactly(setup):
    *_, prof = setup
    names = C.settings(prof)
    assert names[0] == C.table6_setting(prof) and len(names) == 3  # (10, 1, 64) is Table 6's: listed once
    assert C.config_of(prof, names[0]) == rq5.rq5_config(prof)  # Table 6's models, found in the model cache
    big = C.config_of(prof, names[2])
    assert (big["max_steps"], big["unfreeze_layers"], big["max_length"]) == (80, 1, 128)
    assert big["patience"] == prof.rq5_capacity_patience and big["eval_every"] == prof.rq5_eval_every
    assert C.config_of(prof, C.Setting(80, None, 128))["cache_frozen"] is False  # all layers: nothing frozen


def test_run_curves_summary_and_best_setting(setup):
    base, local, cst, prof = setup
    seen: list[tuple] = []

    def trainer(pairs, seed, exclude=(), config=None, validation=()):
        seen.append((seed, config["max_steps"], len(validation)))
        return _Model(pairs, config)

    runs, curves = C.run(base, local, cst, prof, seed=7, trainer=trainer, progress=False)
    assert {s for s, *_ in seen} == {seeds.unit_seed(7, "rq5", p, k) for p in (0, 100) for k in range(2)}
    assert sorted({m for _, m, _ in seen}) == [10, 50, 80] and len(seen) == 3 * 2 * 2
    assert all(n > 0 for *_, n in seen)  # every model early-stops on its validation split
    # curves: one point per validation, and the mean predictor's MAE on the same split
    assert set(curves["setting"]) == {s.name for s in C.settings(prof)}
    c80 = curves[curves["setting"].str.startswith("80 steps")]
    assert len(c80) == 2 * 2 * 16 and (c80["validation MAE (mean predictor)"] >= 0).all()
    t = C.summary(runs)
    assert list(t.columns) == C.SUMMARY_COLUMNS and len(t) == 3 * 2 * 3
    row = t[(t["setting"] == C.settings(prof)[0].name) & (t["p (%)"] == 100) & (t["set"] == "LoCaL_test")].iloc[0]
    assert row["models"] == 2 and row["learned gain"] > 0 and row["steps run (mean)"] == 10
    assert row["train s per model (mean)"] == pytest.approx(1.0)
    gains = t[(t["p (%)"] == 100) & (t["set"] == "LoCaL_test")].set_index("setting")["learned gain"]
    assert list(gains) == sorted(gains)  # more skill, more gain: the summary keeps each setting's own runs
    assert C.best_setting(t, 100) == C.settings(prof)[2].name  # lowest best validation MAE
    assert C.best_setting(t, 55) is None
    fig = C.plot_curves(curves)
    assert len(fig.axes) == 2


def test_profiles_list_larger_settings_than_table6():
    for name in profiles.PROFILES:
        p = profiles.get(name)
        first, *rest = C.settings(p)
        assert rest, f"profile {name}: no larger setting"
        for s in rest:
            assert s.max_steps >= first.max_steps and s.max_length >= first.max_length


def test_finding_names_table6_and_the_validation_pick(setup):
    base, local, cst, prof = setup

    def trainer(pairs, seed, exclude=(), config=None, validation=()):
        return _Model(pairs, config)

    t = C.summary(C.run(base, local, cst, prof, seed=7, trainer=trainer, progress=False)[0])
    s = C.finding(t, 100)
    names = [x.name for x in C.settings(prof)]
    assert s.startswith("p = 100: Table 6's setting (" + names[0]) and "lowest validation MAE: " + names[2] in s
    assert "no capacity runs" in C.finding(t, 55)
