"""Figure 3 is read from the Makefile's dependency graph."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from lcl.report import pipeline

from .conftest import ROOT


@pytest.fixture
def project(tmp_root: Path) -> Path:
    """A scratch root with the library too: ``make -pnq`` reads what each notebook imports of lib/ at
    parse time and writes the digests to build/deps/ of the folder it runs in (here, not the checkout)."""
    shutil.rmtree(tmp_root / "lib")
    shutil.copytree(ROOT / "lib", tmp_root / "lib", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    return tmp_root


def test_graph_links_sources_notebooks_outputs_and_report(project: Path):
    rules = pipeline.make_rules("quick")
    assert "all" in rules and any(t.startswith("build/notebooks/quick/") for t in rules)
    edges, outputs = pipeline.collapsed_graph(rules)
    assert "notebook 00_data" in edges["raw sources (registry, mirror)"]
    assert "notebook 00_data" in edges["lib/lcl (library)"]
    for nb in [n for n in edges if n.startswith("notebook ")]:
        assert "HTML report" in edges[nb], nb
        assert outputs[nb], f"{nb} declares no outputs"
    assert any(o.endswith("table1_datasets.csv") for o in outputs["notebook 00_data"])


def test_figure_draws(project: Path):
    fig = pipeline.figure3("quick")
    texts = {t.get_text() for t in fig.axes[0].texts}
    assert "notebook 00_data" in texts and "HTML report" in texts


def test_a_makefile_error_is_said_not_drawn_as_an_empty_graph(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A Makefile that stops (here: the interpreter that reads the notebooks' imports is missing)
    is a one-line error naming it, not a Figure 3 with no rules."""
    from lcl.core.errors import UserError

    monkeypatch.setenv("PYTHON", "./no-such-python")
    with pytest.raises(UserError, match=r"Makefile: .*no-such-python"):
        pipeline.make_rules("quick")
