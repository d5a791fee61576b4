"""The scoring interface: registry, names, cache, external scores, module:function, CLI."""

from __future__ import annotations

import argparse
import json
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

from lcl.engine import metrics
from lcl.cli import metrics as metrics_cli
from lcl.core.errors import UserError
from lcl.engine.metrics.base import MetricWarning
from lcl.engine.metrics.cache import ScoreCache

REF = "def area(w, h):\n    result = w * h\n    return result\n"
CAND = "def area(width, height):\n    return width * height\n"


@pytest.fixture(autouse=True)
def _tmp_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LCL_CACHE", str(tmp_path / "cache"))


def test_registry_names() -> None:
    assert set(metrics.REGISTRY) == {
        "surface_sim",
        "surface_sim_tree",
        "codebleu",
        "crystalbleu",
        "crystalbleu_corpus",
        "codebertscore",
        "codescore_style",
        "local_trained",
    }
    assert metrics.label("codebertscore") == "CodeBERTScore[MiniLM]"
    assert metrics.label("codescore_style") == "CodeScore-style (retrained)"
    with pytest.raises(UserError, match="unknown metric"):
        metrics.get_metric("bleu")


def test_score_returns_array_in_unit_interval() -> None:
    out = metrics.score("surface_sim", [REF, REF], [CAND, REF], "python")
    assert isinstance(out, np.ndarray) and out.shape == (2,)
    assert 0 <= out[0] < 1 and out[1] == 1.0


def test_cache_roundtrip(tmp_path: Path) -> None:
    m = metrics.get_metric("surface_sim")
    store = ScoreCache(tmp_path / "s.sqlite")
    first = m.score([REF], [CAND], cache=store)
    calls = []
    orig = m.score_chunk
    m.score_chunk = lambda *a, **k: calls.append(1) or orig(*a, **k)  # type: ignore[method-assign]
    second = m.score([REF], [CAND], cache=store)
    assert calls == [] and first[0] == second[0]
    m.score([REF], [CAND + "\n# x"], cache=store)
    assert calls == [1]
    store.close()


def test_external_scores(tmp_path: Path) -> None:
    ext = tmp_path / "cs.jsonl"
    ext.write_text(json.dumps({"id": "a", "score": 0.25}) + "\n" + json.dumps({"id": "b", "score": "1.0"}) + "\n")
    m = metrics.get_metric(f"external:{ext}")
    with pytest.warns(MetricWarning, match="1 of 3 pairs have no score"):
        out = m.score([REF] * 3, [CAND] * 3, ids=["a", "b", "c"])
    assert out[0] == 0.25 and out[1] == 1.0 and np.isnan(out[2])
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"id": "a", "score": 3}) + "\n")
    with pytest.raises(UserError, match="outside"):
        metrics.get_metric(f"external:{bad}")


def test_module_function_metric(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "mymetric.py").write_text(
        "def length_ratio(refs, cands, lang):\n"
        "    return [min(len(r), len(c)) / max(len(r), len(c), 1) for r, c in zip(refs, cands)]\n"
        "def broken(refs, cands, lang):\n    return [2.0 for _ in refs]\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    out = metrics.score("mymetric:length_ratio", [REF], [CAND])
    assert out[0] == pytest.approx(len(CAND) / len(REF))
    with pytest.raises(UserError, match="outside"):
        metrics.score("mymetric:broken", [REF], [CAND])
    with pytest.raises(UserError, match="cannot import"):
        metrics.get_metric("no_such_module_xyz:f")
    sys.modules.pop("mymetric", None)


def _run_cli(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="lcl")
    sub = parser.add_subparsers(dest="command")
    metrics_cli.register(sub)
    args = parser.parse_args(argv)
    return args.func(args)


def test_cli_both_formats(tmp_path: Path) -> None:
    local = tmp_path / "local.jsonl"
    local.write_text(
        json.dumps({"id": "p1", "golden_code": REF, "generated_code": CAND, "score": 1.0})
        + "\n"
        + json.dumps({"id": "p2", "golden_code": REF, "generated_code": "", "score": 0.0})
        + "\n"
    )
    ours = tmp_path / "ours.jsonl"
    ours.write_text(json.dumps({"id": "q1", "reference": REF, "candidate": REF, "lang": "python"}) + "\n")
    ext = tmp_path / "ext.jsonl"
    ext.write_text(json.dumps({"id": "p1", "score": 0.5}) + "\n")
    out = tmp_path / "scored.jsonl"
    names = f"surface_sim,codebleu,crystalbleu,external:{ext}"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MetricWarning)
        assert _run_cli(["score", "--metric", names, str(local), "--out", str(out), "--no-progress"]) == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["id"] for r in rows] == ["p1", "p2"]
    for r in rows:
        for name in names.split(","):
            assert name in r
        assert r["score"] in (0.0, 1.0)  # input fields kept
    assert rows[0][f"external:{ext}"] == 0.5 and rows[1][f"external:{ext}"] is None
    meta = json.loads(Path(str(out) + ".meta.json").read_text())
    assert meta["metrics"]["codebleu"]["label"] == "CodeBLEU"
    out2 = tmp_path / "scored2.jsonl"
    assert _run_cli(["score", "-m", "surface_sim", str(ours), "-o", str(out2), "--no-progress"]) == 0
    assert json.loads(out2.read_text())["surface_sim"] == 1.0
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"id": "x", "code": "x"}) + "\n")
    with pytest.raises(UserError, match="no reference/candidate"):
        _run_cli(["score", "-m", "surface_sim", str(bad), "-o", str(out2)])
