"""benchmarks/stage_costs.py reads a run's costs from executed notebooks: per-cell durations and
progress-bar times, whose updates papermill spreads over many outputs of one cell."""

from __future__ import annotations

import json
from pathlib import Path

from .conftest import load_benchmark


def _module():
    return load_benchmark("stage_costs")


def _bar(label: str, done: int, total: int, clock: str) -> dict:
    pct = 100 * done // total
    return {"output_type": "stream", "name": "stderr",
            "text": f"\r{label}: {pct:3d}%|####      | {done}/{total} [{clock}<00:10, 9.1pair/s]"}


def _notebook(tmp_path: Path) -> Path:
    cells = [
        {"cell_type": "markdown", "metadata": {}, "source": ["## Scores\n", "text"]},
        {"cell_type": "code", "metadata": {"papermill": {"duration": 95.5}}, "source": ["# comment\n", "x = score()"],
         "outputs": [_bar("CodeBERTScore[MiniLM]", 0, 10, "00:00"), _bar("CodeBERTScore[MiniLM]", 5, 10, "00:30"),
                     _bar("CodeBERTScore[MiniLM]", 9, 10, "01:02"),  # closed before 100 %: last time counts
                     _bar("CodeBERTScore[MiniLM]", 0, 4, "00:00"), _bar("CodeBERTScore[MiniLM]", 4, 4, "00:07"),
                     _bar("fuzz pairs", 3, 3, "00:03")]},
        {"cell_type": "code", "metadata": {"papermill": {"duration": 4.5}}, "source": ["y = 1"],
         "outputs": [_bar("CodeBERTScore[MiniLM]", 2, 2, "00:05")]},
    ]
    path = tmp_path / "06_x.ipynb"
    path.write_text(json.dumps({"cells": cells}))
    return path


def test_cell_costs_sum_papermill_durations_and_name_each_cell(tmp_path: Path):
    total, rows = _module().cell_costs(_notebook(tmp_path))
    assert total == 100.0
    assert rows[0] == ("Scores", "x = score()", 95.5)


def test_bar_seconds_joins_a_bars_updates_across_outputs_and_counts_each_bar_once(tmp_path: Path):
    bars = _module().bar_seconds(_notebook(tmp_path))
    assert bars == {"CodeBERTScore[MiniLM]": 62 + 7 + 5, "fuzz pairs": 3}


def test_bar_seconds_reads_the_bars_the_runner_moved_to_the_stderr_log(tmp_path: Path):
    """The runner moves stderr (progress bars) out of executed notebooks into NAME.stderr.log;
    the bars read back from there are the same."""
    from lcl.report import runner

    nb = _notebook(tmp_path)
    nb.write_text(json.dumps({**json.loads(nb.read_text()), "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    before = _module().bar_seconds(nb)
    moved = runner.move_stderr_to_log(nb, tmp_path / "06_x.stderr.log")
    assert moved == 7
    assert not any(o.get("name") == "stderr" for c in json.loads(nb.read_text())["cells"] for o in c.get("outputs", []))
    assert _module().bar_seconds(nb) == before
