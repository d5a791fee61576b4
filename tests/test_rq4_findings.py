"""Notebook 06's tables around Table 5 and its sentences, on small hand-set tables."""

from __future__ import annotations

import pandas as pd
import pytest

from lcl.rq import effectiveness as eff
from lcl.rq import rq4_findings as F
from lcl.study import scoring


def _scored(err: float) -> pd.DataFrame:
    return pd.DataFrame({"id": ["1", "2", "3"], "df_score": [1.0, 0.0, 0.0], "SurfaceSim": [0.5, 0.9, 0.8],
                         "CodeBLEU": [1.0 - err, err, err], "benchmark": ["PIE", "APPS", "APPS"],
                         "variant_type": ["OPT", "MUT", "MUT"]})


def test_author_mae_per_kind_and_the_metrics_the_release_has() -> None:
    auth = pd.DataFrame({"variant_type": ["OPT", "MUT", "MUT"], "df_score": [1.0, 0.0, 0.0],
                         "CodeBLEU": [0.8, 0.4, 0.2], "Other": [0.0, 0.0, 0.0]})
    t = F.author_mae(auth).set_index("Dataset")
    assert list(t.index) == ["LoCaL_published (authors' scores)", "LoCaL_published_opt (authors' scores)",
                             "LoCaL_published_mut (authors' scores)"]
    assert t.loc["LoCaL_published_mut (authors' scores)", "CodeBLEU"] == pytest.approx(0.3)
    assert "Other" not in t.columns and t["n"].tolist() == [3, 1, 2]
    assert len(F.author_mae(auth[auth.variant_type == "MUT"])) == 2  # no OPT row without OPT pairs


def test_metric_groups_leave_the_substitutes_out_of_the_second() -> None:
    cems = [scoring.label(n) for n in scoring.CEMS]
    groups = F.metric_groups(cems)
    assert groups["all four CEMs"] == cems
    assert groups["not substitutes"] == [c for c in cems if c not in F.substitutes()]
    assert len(groups["not substitutes"]) == 2


def test_with_kinds_keeps_each_set_before_its_subsets() -> None:
    sets = F.with_kinds({"LoCaL": _scored(0.5), "LoCaL-all": _scored(0.4)})
    assert list(sets) == ["LoCaL", "LoCaL_opt", "LoCaL_mut", "LoCaL-all", "LoCaL-all_opt", "LoCaL-all_mut"]
    assert set(sets["LoCaL_mut"].variant_type) == {"MUT"} and len(sets["LoCaL_opt"]) == 1


def test_found_reads_table5_and_says_what_was_not_computed() -> None:
    t5 = eff.table5({"CodeScore_test": _scored(0.1), "LoCaL": _scored(0.7), "LoCaL_mut": _scored(0.9)}, ["CodeBLEU"])
    inc = eff.increase(t5, ["CodeBLEU"])
    groups = eff.increase_by_group(inc, {"all four CEMs": ["CodeBLEU"], "not substitutes": ["CodeBLEU"]},
                                   {"CodeBLEU": (0.5, 0.2)})
    worst, _ = eff.worst_cases(_scored(0.7), ["CodeBLEU"], k=2)
    by_bench = eff.mae_by_benchmark(_scored(0.7), ["CodeBLEU"])
    by_kind = eff.mae_by_benchmark_within_kind(_scored(0.7), ["CodeBLEU"])
    lines = F.found(t5, inc, groups, worst, F.worst_benchmarks(by_bench, by_kind, ["CodeBLEU"]), by_kind,
                    ["CodeBLEU"], 2)
    assert lines[0] == "- LoCaL is harder than CodeScore_test for 1 of 1 CEMs (CodeBLEU: 0.10 -> 0.70)."
    assert lines[1].startswith("- Mean MAE increase over the CEMs: 0.600 (paper ")
    assert lines[2].startswith("- Over the metrics that are not substitutes (CodeBLEU): mean increase 0.6")
    assert lines[3] == ("- Worst benchmark per CEM, overall / within the mutants / within the optimised variants: "
                        "CodeBLEU APPS / APPS / PIE.")
    assert lines[4] == "- Mutants are where every CEM fails: MAE on LoCaL_mut CodeBLEU 0.90."
    empty = F.found(t5, inc.assign(increase=float("nan")), groups.assign(n=0), worst,
                    F.worst_benchmarks(by_bench, by_kind, ["CodeBLEU"]), by_kind.iloc[0:0], ["CodeBLEU"], 2)
    assert [line.startswith("- **Not computed:**") for line in empty[:4]] == [False, True, True, True]


def test_baseline_mae_is_each_cems_codescore_test_row() -> None:
    t5 = eff.table5({"CodeScore_test": _scored(0.1), "LoCaL": _scored(0.7)}, ["CodeBLEU"])
    assert F.baseline_mae(t5, ["CodeBLEU"]) == {"CodeBLEU": pytest.approx(0.1)}
    assert F.baseline_mae(t5[t5.Dataset != "CodeScore_test"], ["CodeBLEU"]) == {}
