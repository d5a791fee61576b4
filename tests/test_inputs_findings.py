"""Notebook 00's and 01's tables and sentences, from small hand-set frames."""

from __future__ import annotations

from types import SimpleNamespace

import pandas as pd
import pytest

from lcl.report import outputs
from lcl.study import input_quality as quality
from lcl.study import label_agreement, overview


def test_spec_status_counts_tasks_per_benchmark_and_status(monkeypatch: pytest.MonkeyPatch) -> None:
    specs = {"MBPP/1": SimpleNamespace(verified=True, origin="reviewed"),
             "MBPP/2": SimpleNamespace(verified=False, origin="inferred"),
             "APPS/3": SimpleNamespace(verified=False, origin="reviewed")}
    monkeypatch.setattr(quality, "spec_for", specs.__getitem__)
    t = quality.spec_status(list(specs)).set_index("benchmark")
    assert t.loc["MBPP", "verified"] == 1 and t.loc["MBPP", "inferred"] == 1 and t.loc["APPS", "reviewed"] == 1
    assert quality.spec_status([]).empty


def test_below_target_and_the_backend_sample(monkeypatch: pytest.MonkeyPatch) -> None:
    frame = pd.DataFrame({"task": ["a", "b", "c"], "reference": ["r"] * 3, "spec_origin": ["reviewed"] * 3,
                          "verified": [True] * 3, "validity": [0.99, 0.5, 1.0], "branch_coverage": [1.0, 1.0, 0.8],
                          "missing_lines": [[], [], [3, 4]], "note": ["", "odd", "dead"]})
    below = quality.below_target(frame)
    assert below.task.tolist() == ["b", "c"] and below.missing_lines.tolist() == ["[]", "[3, 4]"]
    monkeypatch.setattr(quality, "spec_for", lambda u: SimpleNamespace(args=u != "x", grammar=None))
    assert quality.backend_sample(["a", "x", "b", "c", "d"], 2) == ["a", "c"]


def test_input_and_label_sentences() -> None:
    summary = pd.DataFrame([{"benchmark": "MBPP", "tasks": 3, "verified %": 66.7, "mean validity": 0.98,
                             "min validity": 0.9, "tasks >= 95% valid %": 66.7, "mean branch coverage": 0.95,
                             "tasks at 100% branches %": 33.3}])
    backends = quality.by_backend(pd.DataFrame({"backend": ["atheris", "atheris", "random"], "validity": [1, 1, 1],
                                                "branch_coverage": [0.9, 0.7, 0.95], "n_distinct": [5, 5, 5]}))
    lines = quality.found(summary, pd.DataFrame({"task": ["b"]}), backends, 2)
    assert lines[0].startswith("- **MBPP**: 3 tasks, 66.7% verified; mean validity 0.980 (min 0.900")
    assert lines[1].startswith("- 1 references fall below a target")
    assert lines[2] == "- Across 2 sampled tasks the highest mean branch coverage comes from **random** (0.950)."
    agree = pd.DataFrame([{"dataset": "CodeScore_test", "benchmark": "HumanEval", "fuzzed": 9, "pairs": 10,
                           "MAE": 0.04, "bucket agreement": 0.95},
                          {"dataset": "LoCaL_published", "benchmark": "PIE", "fuzzed": 10, "pairs": 10,
                           "MAE": 0.2, "bucket agreement": 0.8}])
    said = label_agreement.found(agree, pd.DataFrame())
    assert said[0].endswith("(target MAE <= 0.05, >= 90%: met).") and said[1].endswith("**not met**).")
    assert label_agreement.found(pd.DataFrame(), pd.DataFrame()) == []


def test_table1_sentences_say_when_a_source_was_skipped() -> None:
    ok = SimpleNamespace(benchmark="MBPP", available=True, rejected=[1, 2])
    gone = SimpleNamespace(benchmark="APPS", available=False, rejected=[])
    table = pd.DataFrame([{"Benchmark": "MBPP", "# Ori.": 974, "# Ori. (paper)": 974, "k": 500, "k (paper)": 500,
                           "# Test cases/problem": 3.0, "# Test cases/problem (paper)": 3.0}])
    counts = pd.DataFrame({"CodeBLEU": [3, 4], "CrystalBLEU": [1, 1]})
    lines = overview.found([ok, gone], table, counts)
    assert lines[0].endswith("2 references rejected by `ast.parse`.")
    assert lines[1] == "- **APPS**: skipped (raw source not available here)."
    assert lines[2] == "- The survey counts 9 publications; the most used metric is **CodeBLEU** (7)."


def test_save_skipped_writes_each_declared_table(tmp_path) -> None:
    written = outputs.save_skipped(["a", "b"], "no mirror", profile="smoke", seed=1, title="Skipped",
                                   directory=tmp_path)
    assert {p.name for p in written} >= {"a.csv", "b.csv", "a.md", "b.md"}
    assert pd.read_csv(tmp_path / "a.csv").status.tolist() == ["skipped: no mirror"]
