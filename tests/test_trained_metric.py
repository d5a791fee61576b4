"""The released learned metric ``local_trained`` (engine: load a saved model, score; missing file
-> one-line UserError) and the study code of X5 (MAE table, Spearman CIs, task traits)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from lcl import cli
from lcl.engine import metrics
from lcl.core import paths
from lcl.rq import trained_metric as tm
from lcl.cli.metrics import cmd_local_trained
from lcl.core.errors import UserError
from lcl.engine.metrics.codescore_style import CodeScoreStyle, TrainConfig, TrainPair, train
from lcl.engine.metrics.local_trained import LABEL, LocalTrained


def _toy(n: int, offset: int = 0) -> list[TrainPair]:
    out = []
    for i in range(offset, offset + n):
        ref = f"def f{i}(x):\n    return x + {i}\n"
        out.append(TrainPair(f"eq{i}", ref, f"def f{i}(y):\n    return {i} + y\n", 1.0))
        out.append(TrainPair(f"ne{i}", ref, f"def f{i}(x):\n    return x - {i}\n", 0.0))
    return out


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny fast-mode model saved once for the module (frozen MiniLM + MLP head); the embeddings
    it caches go to a scratch cache, not the checkout's .cache."""
    out = tmp_path_factory.mktemp("models")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("LCL_CACHE", str(tmp_path_factory.mktemp("cache")))
        return train(_toy(6), config=TrainConfig(mode="fast", seed=3, epochs=40)).save(out)


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("LCL_ROOT", str(tmp_path))
    monkeypatch.setenv("LCL_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("LCL_LOCAL_TRAINED_MODEL", raising=False)
    monkeypatch.delenv("LCL_PROFILE", raising=False)
    return tmp_path


def _install(model_dir: Path, profile: str) -> Path:
    dest = paths.local_trained_model(profile)
    dest.parent.mkdir(parents=True, exist_ok=True)
    shutil.copytree(model_dir, dest)
    return dest


def test_metric_loads_the_profile_model_and_scores_like_the_model(root: Path, tiny_model: Path) -> None:
    dest = _install(tiny_model, "smoke")
    assert dest == root / "build" / "models" / "smoke" / "local_trained"
    m = metrics.get_metric("local_trained", profile="smoke")
    assert isinstance(m, LocalTrained) and m.name == "local_trained"
    assert m.label == LABEL == metrics.label("local_trained")
    test = _toy(3, offset=100)
    refs, cands = [p.reference for p in test], [p.candidate for p in test]
    v = m.score(refs, cands, "python")
    assert v.shape == (6,) and np.all((0 <= v) & (v <= 1))
    # the same numbers as the model read directly: the metric adds a name, not a transformation
    np.testing.assert_allclose(v, CodeScoreStyle(tiny_model).score(refs, cands, "python", cache=False), atol=1e-6)
    # its own cache entries: a second call reads them back unchanged
    np.testing.assert_allclose(m.score(refs, cands, "python"), v)
    # pairs it was trained on are refused, as for codescore_style
    seen = _toy(1)[0]
    with pytest.raises(UserError, match="training data"):
        m.score([seen.reference], [seen.candidate])


def test_profile_comes_from_lcl_profile_and_explicit_path_wins(root: Path, tiny_model: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    _install(tiny_model, "quick")
    monkeypatch.setenv("LCL_PROFILE", "quick")
    assert metrics.get_metric("local_trained").model.content_hash == (tiny_model / "CONTENT_HASH").read_text().strip()
    monkeypatch.setenv("LCL_PROFILE", "full")  # nothing under full: the explicit path must be used
    assert metrics.get_metric("local_trained", local_trained_model=str(tiny_model)).label == LABEL
    with pytest.raises(UserError):
        metrics.get_metric("local_trained")


def test_missing_model_is_a_one_line_user_error(root: Path) -> None:
    with pytest.raises(UserError) as exc:
        metrics.get_metric("local_trained", profile="smoke")
    msg = str(exc.value)
    assert "\n" not in msg and "run make all / notebook 11 first" in msg
    assert str(root / "build" / "models" / "smoke" / "local_trained") in msg


def test_lcl_score_cli(root: Path, tiny_model: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pairs, out = root / "pairs.jsonl", root / "scored.jsonl"
    pairs.write_text("".join(json.dumps({"id": p.id, "reference": p.reference, "candidate": p.candidate}) + "\n"
                             for p in _toy(2, offset=50)))
    assert cli.main(["score", "--metric", "local_trained", "--profile", "smoke", str(pairs), "-o", str(out),
                     "--no-progress"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "run make all / notebook 11 first" in err
    _install(tiny_model, "smoke")
    assert cli.main(["score", "--metric", "local_trained", "--profile", "smoke", str(pairs), "-o", str(out),
                     "--no-progress"]) == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(rows) == 4 and all(0.0 <= r["local_trained"] <= 1.0 for r in rows)
    assert json.loads(Path(str(out) + ".meta.json").read_text())["metrics"]["local_trained"]["label"] == LABEL


# ----------------------------------------------------------------------------- study code
def test_mae_table_values_paired_differences_and_groups() -> None:
    f = pd.DataFrame({"df_score": [0.0, 1.0, 0.0, 1.0], "good": [0.1, 0.9, 0.1, 0.9], "bad": [1.0, 0.0, 0.5, 0.5],
                      "g": ["a", "a", "b", "b"]})
    t = tm.mae_table(f, ["good", "bad"], population="toy", by="g", released="good", n_boot=200, seed=0)
    a = t[(t.grouping == "all")].set_index("predictor")
    assert a.loc["good", "mae"] == pytest.approx(0.1) and a.loc["bad", "mae"] == pytest.approx(0.75)
    assert a.loc["bad", "minus_released"] == pytest.approx(0.65) and a.loc["good", "minus_released"] == 0.0
    assert a.loc["bad", "minus_released_ci_low"] > 0  # bad is worse on every pair, so in every resample
    assert a.loc["good", "ci_low"] == pytest.approx(0.1) and a.loc["good", "ci_high"] == pytest.approx(0.1)
    b = t[(t.grouping == "g") & (t.level == "b")].set_index("predictor")
    assert b.loc["bad", "mae"] == pytest.approx(0.5) and int(b.loc["bad", "n"]) == 2


def test_spearman_ci_and_within_benchmark_ranks() -> None:
    x = np.arange(20.0)
    rho, lo, hi = tm.spearman_ci(x, x**2, n_boot=300, seed=1)
    assert rho == pytest.approx(1.0) and lo == pytest.approx(1.0) and hi == pytest.approx(1.0)
    rho, lo, hi = tm.spearman_ci(x, -x, n_boot=300, seed=1)
    assert rho == pytest.approx(-1.0) and hi == pytest.approx(-1.0)
    assert np.isnan(tm.spearman_ci(x, np.ones(20), n_boot=50, seed=1)[0])
    # error grows with lines only because benchmark B is both longer and harder: pooled rho is high, within is ~0
    errors = pd.DataFrame({"benchmark": ["A"] * 10 + ["B"] * 10, "task": [f"t{i}" for i in range(20)],
                           "m": np.r_[np.full(10, 0.1), np.full(10, 0.9)] + np.tile([0.01, -0.01], 10)})
    traits = pd.DataFrame({"benchmark": errors.benchmark, "task": errors.task, "lines": np.r_[np.arange(10),
                                                                                               np.arange(100, 110)],
                           **{t: 0.0 for t in tm.TRAITS if t != "lines"}})
    t = tm.trait_table(errors, traits, ["m"], population="toy", n_boot=200, seed=0).set_index(["trait", "scope"])
    assert t.loc[("lines", "pooled"), "rho"] > 0.7
    assert abs(t.loc[("lines", "within benchmark"), "rho"]) < 0.3
    assert np.isnan(t.loc[("stdin program", "pooled"), "rho"])
    s = tm.strongest_traits(t.reset_index())
    assert list(s.trait) == ["lines"]


def test_task_traits_and_errors() -> None:
    f = pd.DataFrame({
        "benchmark": ["HumanEval", "HumanEval", "PIE"], "task": ["h1", "h1", "p1"], "level": ["function", "function",
                                                                                            "program"],
        "reference": ["def f(x):\n    if x:\n        return 1\n    return 0\n"] * 2
                     + ["import numpy\nimport sys\nprint(sys.stdin.read())\n"],
        "candidate": ["a", "b", "c"], "df_score": [1.0, 0.0, 0.5], "m": [0.5, 0.5, 1.0]})
    t = tm.task_traits(f).set_index("task")
    assert t.loc["h1", "lines"] == 4 and t.loc["h1", "cyclomatic complexity"] == 2
    assert t.loc["h1", "imports a library"] == 0.0 and t.loc["p1", "third-party import"] == 1.0
    assert t.loc["p1", "stdin program"] == 1.0 and t.loc["h1", "stdin program"] == 0.0
    e = tm.task_errors(f, ["m"]).set_index("task")
    assert e.loc["h1", "m"] == pytest.approx(0.5) and e.loc["p1", "m"] == pytest.approx(0.5)


def test_training_command_is_registered() -> None:
    parser = cli.build_parser()
    args = parser.parse_args(["local-trained", "--profile", "smoke", "--seed", "3"])
    assert args.func is cmd_local_trained and args.profile == "smoke" and args.seed == 3


def test_model_card_is_written_from_the_numbers() -> None:
    class FakeModel:
        meta = {"train": {"steps": 7}}
        content_hash = "ab" * 32

    rel = tm.Released(FakeModel(), 5, {"mode": "full"}, [{"df_score": 0.2}, {"df_score": 0.4}], [{"df_score": 1.0}],
                      {"training size": 3})
    ev = pd.DataFrame([
        {"population": "held", "grouping": "all", "level": "all", "predictor": LABEL, "n": 9, "mae": 0.123,
         "ci_low": 0.1, "ci_high": 0.15},
        {"population": "held", "grouping": "region", "level": "SFD", "predictor": tm.MEAN, "n": 4, "mae": 0.456,
         "ci_low": 0.4, "ci_high": 0.5}])
    card = tm.model_card(rel, "quick", ev, {"train_s": 2.0, "train_s_per_pair": 1.0, "score_s_per_pair": 0.05,
                                            "timed_pairs": 9}, "held")
    assert "0.123 [0.100, 0.150] on 9 held pairs" in card and "region SFD (n = 4)" in card and "0.456" in card
    assert "mean df_score 0.300" in card and "2 LoCaL pairs" in card and "steps 7" in card
    assert "substitute" in card and "50.0 ms per pair" in card and "--profile quick" in card
    empty = tm.model_card(rel, "quick", ev.iloc[:0], {}, "held")
    assert "unevaluated here" in empty
