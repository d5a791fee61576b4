"""The figures the notebooks save, drawn by the library (``plot_<what>`` in the module of each research
question or study): each returns a matplotlib Figure with the expected number of panels, from small
synthetic frames shaped like the notebook's."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import matplotlib
import numpy as np
import pandas as pd
import pytest

matplotlib.use("Agg")

import matplotlib.pyplot as plt
from matplotlib.figure import Figure

from lcl.engine.regions import Thresholds
from lcl.report import claims
from lcl.rq import calibration as cal
from lcl.rq import correlation, coverage, distinguish, effectiveness
from lcl.rq import red_herrings as rh
from lcl.rq import robustness as rb
from lcl.rq import sparse_tests as X
from lcl.study import input_quality, makeup

CEMS = ["CodeBLEU", "CrystalBLEU"]
TH = Thresholds(0.3, 0.7, 0.3, 0.7, 0.0, 0.05, "squared")


@pytest.fixture(autouse=True)
def _close_figures() -> Iterator[None]:
    yield
    plt.close("all")


def _pairs(kind: str, n: int, in_local: bool = True, start: float = 0.1) -> list[dict]:
    return [{"id": f"{kind}{i}", "variant_type": kind, "surface_sim": start + 0.1 * i, "df_score": (i % 3) / 2,
             "in_local": in_local} for i in range(n)]


def _scored(n: int = 12) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    return pd.DataFrame({"SurfaceSim": rng.uniform(0, 1, n), "df_score": rng.uniform(0, 1, n),
                         "variant_type": ["MUT", "OPT"] * (n // 2), "benchmark": ["HumanEval"] * n,
                         **{c: rng.uniform(0, 1, n) for c in CEMS}})


def _quality() -> Figure:
    frame = pd.DataFrame({"benchmark": ["HumanEval", "HumanEval", "MBPP"], "validity": [1.0, 0.9, 0.97],
                          "branch_coverage": [1.0, 0.5, None]})
    return input_quality.plot_quality(frame)


def _variants_scatter() -> Figure:
    pairs = _pairs("MUT", 3) + _pairs("OPT", 2)
    return makeup.plot_variants_scatter(pairs, pairs + _pairs("MUT", 2, in_local=False))


def _clone_scatter() -> Figure:
    return makeup.plot_clone_scatter(_pairs("MUT", 3) + _pairs("OPT", 2), _pairs("CLONE", 3))


def _rq1_scatter() -> Figure:
    t3 = pd.DataFrame({"Metric": CEMS, "rho": [0.5, float("nan")], "CI low": [0.3, float("nan")],
                       "CI high": [0.7, float("nan")]})
    return correlation.plot_scatter(_scored(), t3, CEMS)


def _distinguishability() -> Figure:
    metrics = [distinguish.SURFACE_LABEL, *CEMS]
    t4 = pd.DataFrame({"metric": metrics, **{f"d {w}{s}": [1.2, 1.5, 0.8] for w in ("orig", "repl")
                                             for s in ("", " std", " (paper)")}})
    return distinguish.plot_distinguishability(t4, 3)


def _regions() -> Figure:
    return coverage.plot_regions({"LoCaL_balanced": _scored(), "CodeScore_test": _scored(6)}, TH)


def _regions_without_thresholds() -> Figure:
    return coverage.plot_regions({"LoCaL_balanced": _scored(), "CodeScore_test": _scored(6)}, None)


def _examples() -> Figure:
    row = {"candidate": "def f(x):\n    return x + 1\n", "SurfaceSim": 0.9, "df_score": 0.0}
    return coverage.plot_examples({"reference": "def f(x):\n    return x\n", "mutant": row,
                                   "optimised": {**row, "SurfaceSim": 0.2, "df_score": 1.0}})


def _examples_none() -> Figure:
    return coverage.plot_examples(None)


def _rq4_mae() -> Figure:
    t5 = pd.DataFrame({"Dataset": ["CodeScore_test", "LoCaL"], "CodeBLEU": [0.3, 0.5], "CrystalBLEU": [0.2, 0.6]})
    return effectiveness.plot_mae(t5, ["CodeScore_test", "LoCaL", "not in the table"], CEMS)


def _claims_scatter() -> Figure:
    table = pd.DataFrame({"kind": ["number", "number", "conclusion"], "paper_value": [0.5, 0.8, None],
                          "reproduced_value": [0.45, 0.9, None], "status": [claims.WITHIN, claims.OUTSIDE, claims.HOLDS],
                          "ci_low": [0.4, None, None], "ci_high": [0.5, None, None],
                          "reproduced_std": [None, 0.05, None]})
    return claims.plot_scatter(table)


def _shifts() -> Figure:
    rows = [{"kind": k, "side": side, "perturbation": p, "metric": m, "n": 4, "shift": 0.1,
             "shift_ci_low": 0.0, "shift_ci_high": 0.2}
            for k, side, p in (("OPT", "variant", "rename"), ("MUT", "variant", "comments"), ("OPT", "reference", "rename"))
            for m in CEMS]
    return rb.plot_shifts(pd.DataFrame(rows))


def _red_herrings() -> Figure:
    mutants = pd.DataFrame({"benchmark": "HumanEval", "task": ["t1"] * 4 + ["t2"] * 2, "variant_type": "MUT",
                            "operator": "AOR", "df_score": [1.0, 0.0, 0.0, 1.0, 1.0, 0.5],
                            "SurfaceSim": [0.9, 0.8, 0.85, 0.95, 0.7, 0.6], "CodeBLEU": [0.7, 0.6, 0.5, 0.8, 0.4, 0.3]})
    auc = rh.auroc_table(mutants, [rh.SURFACE, "CodeBLEU"], n_boot=20, seed=0)
    return rh.plot_scores(mutants, auc, [rh.SURFACE, "CodeBLEU"])


def _sparse_equivalence() -> Figure:
    rows = [{"dataset": ds, "benchmark": b, "variant_type": k, "ground_truth": gt, "k": 1, "n": 0 if b == "PIE" and
             gt == X.GROUND_TRUTHS[0] else 4, "share": np.nan if b == "PIE" and gt == X.GROUND_TRUTHS[0] else 0.25,
             "ci_low": 0.05, "ci_high": 0.7}
            for ds in (X.LOCAL, X.LOCAL_ALL) for b, k in (("all", "all"), ("HumanEval", "MUT"), ("PIE", "OPT"))
            for gt in X.GROUND_TRUTHS]
    return X.plot_sparse_equivalence(pd.DataFrame(rows))


def _convergence() -> Figure:
    summary = pd.DataFrame({"level": ["all", "all", "function", "function", "program"], "N": [10, 40, 10, 40, 30],
                            "median": [0.1, 0.0, 0.1, 0.0, 0.05], "p90": [0.3, 0.0, 0.2, 0.0, 0.1]})
    return X.plot_convergence(summary, {"function": 2000, "program": 1000}, "smoke")


def _reliability_panels() -> Figure:
    return cal.plot_reliability_panels({"LoCaL": _scored(), "CodeScore_test": _scored(8)}, [cal.SURFACE, *CEMS], 5)


@pytest.mark.parametrize(("draw", "panels"), [
    (_quality, 2), (_variants_scatter, 1), (_clone_scatter, 2), (_rq1_scatter, len(CEMS)),
    (_distinguishability, 1), (_regions, 2), (_regions_without_thresholds, 2), (_examples, 3), (_examples_none, 1),
    (_rq4_mae, 1), (_claims_scatter, 1), (_shifts, 2), (_red_herrings, 2), (_sparse_equivalence, 2),
    (_convergence, 1), (_reliability_panels, 2),
], ids=lambda v: getattr(v, "__name__", str(v)).lstrip("_") if callable(v) else str(v))
def test_each_figure_is_returned_with_its_panels(draw: Callable[[], Figure], panels: int) -> None:
    fig = draw()
    assert isinstance(fig, Figure)
    assert len(fig.axes) == panels


def test_the_rq1_panels_carry_rho_with_its_interval() -> None:
    fig = _rq1_scatter()
    titles = [ax.get_title() for ax in fig.axes]
    assert titles == ["CodeBLEU\nrho = 0.5 [0.3, 0.7]", "CrystalBLEU\nrho = —"]


def test_the_rq4_bars_skip_datasets_the_table_lacks() -> None:
    ax = _rq4_mae().axes[0]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["CodeScore_test", "LoCaL"]
    assert len(ax.patches) == 2 * len(CEMS)


def test_the_sparse_panel_marks_a_missing_ground_truth() -> None:
    fig = _sparse_equivalence()
    assert [ax.get_title() for ax in fig.axes] == ["LoCaL", "LoCaL-all"]
    assert all("n/a" in [t.get_text() for t in ax.texts] for ax in fig.axes)  # PIE has no own tests
