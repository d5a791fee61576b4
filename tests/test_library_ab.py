"""benchmarks/library_ab.py compares two revisions of the library in one run: its table's
ratios come from the measured medians, and it refuses sides that would do different work."""

from __future__ import annotations

import pytest

from .conftest import load_benchmark


def test_the_ratio_is_after_over_before_of_the_medians():
    ab = load_benchmark("library_ab")
    table = ab.report({"fuzz": {"before": [10.0, 30.0, 20.0], "after": [22.0, 26.0, 24.0]}})
    row = next(line for line in table.splitlines() if line.startswith("| fuzz"))
    assert "| 20.0 | 24.0 | 1.200 |" in row
    assert "10.0-30.0" in row and "22.0-26.0" in row
    assert "| **sum of medians** | 20.0 | 24.0 | 1.200 |" in table


def test_a_side_without_data_raw_is_refused(tmp_path, capsys):
    ab = load_benchmark("library_ab")
    for side in ("a", "b"):
        (tmp_path / side / "lib" / "lcl").mkdir(parents=True)
    (tmp_path / "a" / "data" / "raw").mkdir(parents=True)
    with pytest.raises(SystemExit) as stop:
        ab.main(["--before", str(tmp_path / "a"), "--after", str(tmp_path / "b")])
    assert stop.value.code == 2
    assert "data/raw only in ['before']" in capsys.readouterr().err
