"""CodeBERTScore[MiniLM] and the CodeScore-style (retrained) metric (small, CPU-only)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from lcl.engine import metrics
from lcl.core.errors import UserError
from lcl.engine.metrics.base import MetricWarning
from lcl.engine.metrics.codescore_style import CodeScoreModel, CodeScoreStyle, TrainConfig, TrainPair, train

REF = "def area(w, h):\n    return w * h\n"
CAND = "def area(width, height):\n    return width * height\n"
OTHER = "import sys\nfor line in sys.stdin:\n    print(line.upper())\n"


@pytest.fixture(autouse=True)
def _tmp_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LCL_CACHE", str(tmp_path / "cache"))


def test_codebertscore_minilm() -> None:
    m = metrics.get_metric("codebertscore")
    assert m.label == "CodeBERTScore[MiniLM]" and m.num_layers == 6 and m.component == "F1"
    with pytest.warns(MetricWarning, match="empty"):
        v = m.score([REF, REF, REF], [REF, CAND, ""], "python")
    assert v[0] == pytest.approx(1.0, abs=1e-4)
    assert 0.0 < v[1] < 1.0 and v[2] == 0.0
    comps = m.all_components([REF], [OTHER])
    assert comps.shape == (1, 4) and np.all((0 <= comps) & (comps <= 1))
    assert m.score([REF], [CAND])[0] > m.score([REF], [OTHER])[0]


def _toy_pairs(n: int, offset: int = 0) -> list[TrainPair]:
    out = []
    for i in range(offset, offset + n):
        ref = f"def f{i}(x):\n    return x + {i}\n"
        same = f"def f{i}(y):\n    return {i} + y\n"
        diff = f"def f{i}(x):\n    return x - {i}\n"
        out.append(TrainPair(f"eq{i}", ref, same, 1.0))
        out.append(TrainPair(f"ne{i}", ref, diff, 0.0))
    return out


def test_codescore_style_fast_train_save_load(tmp_path: Path) -> None:
    train_pairs, test_pairs = _toy_pairs(6), _toy_pairs(3, offset=100)
    model = train(train_pairs, config=TrainConfig(mode="fast", seed=1, epochs=60))
    assert model.meta["train"]["n"] == 12 and model.meta["config"]["seed"] == 1
    path = model.save(tmp_path / "models")
    assert path.name == f"codescore_style-{model.content_hash[:12]}"
    m = CodeScoreStyle(path)
    assert m.label == "CodeScore-style (retrained)"
    refs = [p.reference for p in test_pairs]
    cands = [p.candidate for p in test_pairs]
    v = m.score(refs, cands, "python", ids=[p.id for p in test_pairs])
    assert v.shape == (6,) and np.all((0 <= v) & (v <= 1))
    with pytest.warns(MetricWarning, match="empty"):
        assert 0.0 <= m.score([REF], [""])[0] <= 1.0
    # same seed, same data -> same model bytes -> same content hash
    again = train(train_pairs, config=TrainConfig(mode="fast", seed=1, epochs=60)).save(tmp_path / "models2")
    assert again.name == path.name
    # evaluating on training pairs is refused
    with pytest.raises(UserError, match="training data"):
        m.score([train_pairs[0].reference], [train_pairs[0].candidate])
    assert CodeScoreStyle(path, allow_overlap=True).score([train_pairs[0].reference], [train_pairs[0].candidate]).shape == (1,)
    # training on evaluation pairs is refused
    with pytest.raises(UserError, match="also evaluation pairs"):
        train(train_pairs, exclude=[(train_pairs[0].reference, train_pairs[0].candidate)])
    # tampering is detected
    meta = json.loads((path / "meta.json").read_text())
    meta["config"]["seed"] = 2
    (path / "meta.json").write_text(json.dumps(meta))
    with pytest.raises(UserError, match="content hash mismatch"):
        CodeScoreModel.load(path)


def test_codescore_style_registry_needs_model(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("LCL_ROOT", str(tmp_path))
    monkeypatch.delenv("LCL_CODESCORE_MODEL", raising=False)
    with pytest.raises(UserError, match="needs a trained model"):
        metrics.get_metric("codescore_style")


@pytest.mark.slow
def test_codescore_style_full_mode_smoke(tmp_path: Path) -> None:
    cfg = TrainConfig(mode="full", seed=0, epochs=1, batch_size=4, max_length=64)
    model = train(_toy_pairs(2), config=cfg)
    path = model.save(tmp_path)
    v = CodeScoreStyle(path).score([REF], [CAND])
    assert 0.0 <= v[0] <= 1.0


def test_codescore_style_through_cli(tmp_path: Path) -> None:
    import argparse

    from lcl.cli import metrics as metrics_cli

    def run(argv: list[str]) -> int:
        parser = argparse.ArgumentParser(prog="lcl")
        metrics_cli.register(parser.add_subparsers(dest="command"))
        args = parser.parse_args(argv)
        return args.func(args)

    train_f, eval_f = tmp_path / "train.jsonl", tmp_path / "eval.jsonl"
    train_f.write_text("".join(
        json.dumps({"id": p.id, "golden_code": p.reference, "generated_code": p.candidate, "score": p.label}) + "\n"
        for p in _toy_pairs(4)
    ))
    eval_f.write_text("".join(
        json.dumps({"id": p.id, "reference": p.reference, "candidate": p.candidate, "df_score": p.label}) + "\n"
        for p in _toy_pairs(2, offset=50)
    ))
    assert run(["codescore-train", str(train_f), "--exclude", str(eval_f), "--epochs", "20", "--out", str(tmp_path / "m")]) == 0
    model_dir = next((tmp_path / "m").iterdir())
    out = tmp_path / "scored.jsonl"
    assert run(["score", "-m", "codescore_style", "--codescore-model", str(model_dir), str(eval_f), "-o", str(out), "--no-progress"]) == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert all(0.0 <= r["codescore_style"] <= 1.0 for r in rows)
    meta = json.loads((tmp_path / "scored.jsonl.meta.json").read_text())
    assert meta["metrics"]["codescore_style"]["label"] == "CodeScore-style (retrained)"
    with pytest.raises(UserError, match="also evaluation pairs"):
        run(["codescore-train", str(train_f), "--exclude", str(train_f), "--out", str(tmp_path / "m2")])


def test_codebertscore_bf16_matches_fp32():
    """bf16 autocast (the default where the CPU has native bf16) stays within 1e-3 of fp32."""
    import numpy as np

    from lcl.engine.metrics.codebertscore_metric import CodeBERTScore

    refs = ["def f(x):\n    return x + 1\n", "n = int(input())\nprint(n * 2)\n", "def g(a, b):\n    return max(a, b)\n"]
    cands = ["def f(y):\n    return 1 + y\n", "print(int(input()) * 2)\n", "def g(a, b):\n    return a if a > b else b\n"]
    a = CodeBERTScore(precision="fp32").all_components(refs, cands)
    b = CodeBERTScore(precision="bf16").all_components(refs, cands)
    assert np.abs(a - b).max() < 1e-3
    assert CodeBERTScore(precision="fp32").version != CodeBERTScore(precision="bf16").version



def test_codebertscore_worker_processes_give_the_same_bits_in_order() -> None:
    """Several chunks go to worker processes (one torch thread each): the scores are the bits one
    process gives chunk after chunk, each back at its own pair, and each chunk is still encoded
    on its own (a chunk's batches decide the bf16 rounding)."""
    import torch

    from lcl.engine.metrics.codebertscore_metric import CodeBERTScore

    refs = [f"def f{i}(x):\n    return x + {i}\n" for i in range(7)] + [REF, OTHER]
    cands = [f"def f{i}(y):\n    return {i} + y * {i % 3}\n" for i in range(7)] + [CAND, REF]
    one, pool = CodeBERTScore(workers=1), CodeBERTScore(workers=2)
    one.chunk_size = pool.chunk_size = 2  # 5 chunks
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # as in the workers: with 2 threads a matmul may sum in another order (last bits)
    try:
        serial = one.score(refs, cands, cache=False)
        parallel = pool.score(refs, cands, cache=False)
        by_chunk = np.concatenate([one.score_chunk(refs[i:i + 2], cands[i:i + 2], "python", None)
                                   for i in range(0, 9, 2)])
    finally:
        torch.set_num_threads(threads)
    assert np.array_equal(serial, parallel)
    assert np.array_equal(parallel, np.clip(by_chunk, 0.0, 1.0))
    assert parallel[7] > parallel[8]  # REF/CAND (same function) above OTHER/REF

# ------------------------------------------------- validation, early stopping, partial fine-tuning
def test_trim_common_prefix_keeps_the_differing_lines() -> None:
    from lcl.engine.metrics.codescore_style import model_inputs, trim_common_prefix

    ref = "import os\ndef f(x):\n    y = x\n    return y\n"
    cand = "import os\ndef f(x):\n    y = x\n    return -y\n"
    assert trim_common_prefix(ref, cand) == ("    return y\n", "    return -y\n")
    assert trim_common_prefix(REF, REF) == ("    return w * h\n", "    return w * h\n")  # one line each kept
    assert trim_common_prefix("a\n", "a\nb\n") == ("a\n", "a\nb\n")
    cfg = TrainConfig(trim_common_prefix=True)
    assert model_inputs(cfg, [ref, ""], [cand, ""]) == (["    return y\n", " "], ["    return -y\n", " "])
    assert model_inputs(TrainConfig(), [ref], [cand]) == ([ref], [cand])


def test_early_stopping_keeps_best_and_stops_after_patience() -> None:
    from lcl.engine.metrics.codescore_style import EarlyStopping

    es = EarlyStopping(patience=2)
    assert not es.update(1, 0.5, lambda: "w1")
    assert not es.update(2, 0.3, lambda: "w2")
    assert not es.update(3, 0.4, lambda: "w3")
    assert es.update(4, 0.3, lambda: "w4")  # no strict improvement twice in a row: stop
    assert (es.best, es.best_step, es.state, es.last_step) == (0.3, 2, "w2", 4)
    never = EarlyStopping(patience=0)
    assert not any(never.update(i, 1.0, lambda: None) for i in range(10))


def test_fast_mode_with_validation_selects_best_epoch() -> None:
    cfg = TrainConfig(mode="fast", seed=1, epochs=40, eval_every=5, patience=2)
    model = train(_toy_pairs(6), config=cfg, validation=_toy_pairs(2, offset=200))
    v = model.meta["train"]["validation"]
    assert v["n"] == 4 and v["best_step"] % 5 == 0
    assert v["best_mae"] == min(m for _, m in v["history"])
    val = _toy_pairs(2, offset=200)
    got = model.predict([p.reference for p in val], [p.candidate for p in val])
    assert np.mean(np.abs(got - np.array([p.label for p in val]))) == pytest.approx(v["best_mae"], abs=1e-6)
    with pytest.raises(UserError, match="also validation pairs"):
        train(_toy_pairs(3), config=cfg, validation=_toy_pairs(1))
    with pytest.raises(UserError, match="also evaluation pairs"):
        val = _toy_pairs(1, offset=300)
        train(_toy_pairs(3), config=cfg, validation=val, exclude=[(val[0].reference, val[0].candidate)])


def test_full_mode_top_layer_only_saves_and_reloads(tmp_path: Path) -> None:
    cfg = TrainConfig(mode="full", seed=0, epochs=3, batch_size=4, max_length=32, unfreeze_layers=1,
                      max_steps=2, eval_every=1, patience=5, trim_common_prefix=True)
    val = _toy_pairs(1, offset=400)
    model = train(_toy_pairs(4), config=cfg, validation=val)
    assert model.meta["train"]["steps"] == 2 and len(model.meta["train"]["validation"]["history"]) == 2
    state = model.encoder.trainable_state()
    assert state and all(k.startswith("encoder.layer.5.") for k in state)  # MiniLM-L6: only the top layer trained
    path = model.save(tmp_path)
    again = CodeScoreModel.load(path)
    refs, cands = [p.reference for p in val], [p.candidate for p in val]
    np.testing.assert_allclose(again.predict(refs, cands), model.predict(refs, cands), atol=1e-6)


def test_cached_frozen_layers_match_the_full_forward() -> None:
    import torch

    from lcl.engine.metrics.codescore_style import Encoder

    enc = Encoder(max_length=48)
    enc.model.eval()
    cands, refs = [CAND, OTHER, REF], [REF, REF, OTHER]
    with torch.inference_mode():
        whole = enc.pooled(enc.tokens(cands, refs))
        top = enc.top_pooled(enc.bottom(cands, refs, 2), 2)
    torch.testing.assert_close(top, whole, atol=2e-2, rtol=0)  # float16 storage of the cached states
    assert enc.bottom(cands[:1], refs[:1], 2)[0] is enc.bottom(cands, refs, 2)[0]  # memoised


def test_full_mode_with_cached_frozen_layers_trains_and_reloads(tmp_path: Path) -> None:
    cfg = TrainConfig(mode="full", seed=0, epochs=2, batch_size=4, max_length=32, unfreeze_layers=1, cache_frozen=True,
                      lr_head=1e-2)
    model = train(_toy_pairs(4), config=cfg, validation=_toy_pairs(1, offset=500))
    again = CodeScoreModel.load(model.save(tmp_path))
    refs, cands = [REF, OTHER], [CAND, REF]
    np.testing.assert_allclose(again.predict(refs, cands), model.predict(refs, cands), atol=1e-5)
