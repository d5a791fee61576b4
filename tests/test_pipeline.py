"""Figure 3 is read from the Makefile's dependency graph."""

from __future__ import annotations

from lcl.report import pipeline


def test_graph_links_sources_notebooks_outputs_and_report():
    rules = pipeline.make_rules("quick")
    assert "all" in rules and any(t.startswith("build/notebooks/quick/") for t in rules)
    edges, outputs = pipeline.collapsed_graph(rules)
    assert "notebook 00_data" in edges["raw sources (registry, mirror)"]
    assert "notebook 00_data" in edges["lib/lcl (library)"]
    for nb in [n for n in edges if n.startswith("notebook ")]:
        assert "HTML report" in edges[nb], nb
        assert outputs[nb], f"{nb} declares no outputs"
    assert any(o.endswith("table1_datasets.csv") for o in outputs["notebook 00_data"])


def test_figure_draws():
    fig = pipeline.figure3("quick")
    texts = {t.get_text() for t in fig.axes[0].texts}
    assert "notebook 00_data" in texts and "HTML report" in texts
