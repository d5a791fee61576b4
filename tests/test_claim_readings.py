"""The readings the conclusions judge on: RQ3's on-bound flags, share intervals and hit rates on the
optimised variants nobody here built; RQ2's paired drop differences; RQ5's half-at-20 contrast;
RQ4's Table 5 row of PIE's fast programs, the by-construction labels and the worst cases' ties."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from lcl.core import claim_links
from lcl.engine import regions
from lcl.rq import coverage, distinguish, effectiveness, rq5
from lcl.study.makeup import OPT_SOURCES


def _read(tmp_path: Path, tables: dict[str, pd.DataFrame], decls: list) -> dict[str, claim_links.Reading]:
    for name, t in tables.items():
        t.to_csv(tmp_path / f"{name}.csv", index=False)
    return claim_links.read(str(tmp_path), decls)


def _decls(module: object, prefix: str) -> list:
    return [d for d in module.CLAIMS if d.claim_id.startswith(prefix)]  # type: ignore[attr-defined]


# ----------------------------------------------------------------------------- RQ3
def test_on_bound_readings_flag_thresholds_on_the_search_range(tmp_path: Path) -> None:
    # x_lo = 0.65 and y_hi = 0.90 are ends of the authors' ranges; x_hi = 0.85 and y_lo = 0.30 are inside
    th = regions.Thresholds(0.65, 0.85, 0.30, 0.90, 0.5, 0.05, "absolute")
    table = coverage.thresholds_table([th], {"x_lo": 0.65, "x_hi": 0.9, "y_lo": 0.1, "y_hi": 0.9},
                                      [regions.AUTHORS])
    got = _read(tmp_path, {coverage.THRESHOLDS: table}, _decls(coverage, "aux.RQ3.on_bound."))
    assert {k: got[f"aux.RQ3.on_bound.{k}"].value for k in regions.KEYS} == {
        "x_lo": 1.0, "x_hi": 0.0, "y_lo": 0.0, "y_hi": 1.0}


def test_on_bound_readings_absent_without_a_used_fit(tmp_path: Path) -> None:
    table = coverage.thresholds_table([None], {"x_lo": 0.65, "x_hi": 0.9, "y_lo": 0.1, "y_hi": 0.9})
    assert _read(tmp_path, {coverage.THRESHOLDS: table}, _decls(coverage, "aux.RQ3.on_bound.")) == {}


def test_a_share_every_replicate_repeats_gets_the_wilson_interval_of_its_count() -> None:
    # every replicate gives LoCaL 50% in SFD (its two mutants always there): the percentile interval
    # has zero width, which says the resampling cannot move the share, not that it is exact
    reps = pd.DataFrame({"local.sfd_share": [50.0] * 20, "local.dfs_share": np.linspace(0, 50, 20),
                         "base.sfd_share": [0.0] * 20})
    counts = pd.DataFrame({"Dataset": ["LoCaL_balanced", "CodeScore_test"], "n": [4, 80], "SFD": [2, 0],
                           "DFS": [1, 9]})
    s = coverage.draws_summary(reps, counts).set_index("claim_id")
    for cid, (k, n) in (("aux.RQ3.local.sfd_share", (2, 4)), ("aux.RQ3.base.sfd_share", (0, 80))):
        assert s.loc[cid, "CI high"] > s.loc[cid, "CI low"]
        assert (s.loc[cid, "CI low"], s.loc[cid, "CI high"]) == coverage.wilson(k, n)
        assert s.loc[cid, "interval"] == coverage.WILSON_FALLBACK
    # a share that varies over the replicates keeps its bootstrap interval
    assert s.loc["aux.RQ3.local.dfs_share", "interval"] == coverage.BOOT_INTERVAL
    assert s.loc["aux.RQ3.local.dfs_share", "CI high"] == pytest.approx(np.quantile(np.linspace(0, 50, 20), 0.975))


def _opt_frame() -> pd.DataFrame:
    # two PIE fast programs (one inside DFS under the paper's thresholds), three rewriter variants inside
    return pd.DataFrame({
        "variant_type": ["OPT"] * 5 + ["MUT"],
        "opt_source": [OPT_SOURCES[2], OPT_SOURCES[2], OPT_SOURCES[1], OPT_SOURCES[1], OPT_SOURCES[1], None],
        "SurfaceSim": [0.3, 0.9, 0.2, 0.2, 0.2, 0.95], "df_score": [1.0, 1.0, 1.0, 1.0, 1.0, 0.0]})


def test_opt_in_dfs_reads_the_pie_fast_programs_under_the_paper_thresholds(tmp_path: Path) -> None:
    paper = regions.Thresholds(0.65, 0.9, 0.1, 0.9, math.nan, 0.05, "paper")
    hits = coverage.hit_rates(_opt_frame(), paper)
    got = _read(tmp_path, {coverage.HITS_PAPER: hits},
                [d for d in coverage.CLAIMS if d.claim_id in ("RQ3.opt_in_dfs", "aux.RQ3.opt_in_dfs.all")])
    assert got["RQ3.opt_in_dfs"].value == 50.0  # 1 of the 2 PIE fast programs, not 4 of all 5
    assert got["aux.RQ3.opt_in_dfs.all"].value == 80.0
    assert (got["RQ3.opt_in_dfs"].low, got["RQ3.opt_in_dfs"].high) == coverage.wilson(1, 2)


def test_by_source_rows_say_which_are_by_construction(tmp_path: Path) -> None:
    paper = regions.Thresholds(0.65, 0.9, 0.1, 0.9, math.nan, 0.05, "paper")
    t = coverage.hit_rates_by_source(_opt_frame(), None, paper).set_index("Source")
    assert t.loc[OPT_SOURCES[1], coverage.JUDGED].startswith("by construction")
    assert t.loc[OPT_SOURCES[2], coverage.JUDGED] == coverage.MEASURED
    got = _read(tmp_path, {coverage.BY_SOURCE: t.reset_index()}, _decls(coverage, "aux.RQ3.opt_source.2."))
    share = got["aux.RQ3.opt_source.2.share"]  # under the paper's thresholds, with its Wilson interval
    assert (share.value, share.low, share.high) == (50.0, *coverage.wilson(1, 2))


# ----------------------------------------------------------------------------- RQ2
def _long(drops: dict[str, list[float]]) -> pd.DataFrame:
    rows = []
    for metric, ds in drops.items():
        for r, drop in enumerate(ds):
            rows += [{"repetition": r, "dataset": distinguish.ORIG, "metric": metric, "d": 2.0},
                     {"repetition": r, "dataset": distinguish.REPL, "metric": metric, "d": 2.0 * (1 - drop / 100)}]
    return pd.DataFrame(rows)


def test_drop_differences_pair_the_same_repetition(tmp_path: Path) -> None:
    # CrystalBLEU's drop is CodeBLEU's + 2 in every repetition, although both vary a lot between them:
    # paired, the difference is resolved; the separate spreads would overlap
    long = _long({"CodeBLEU": [40.0, 60.0, 80.0], "CrystalBLEU": [42.0, 62.0, 82.0],
                  "CodeBERTScore[MiniLM]": [10.0, 30.0, 20.0], "CodeScore-style (retrained)": [50.0, 55.0, 60.0]})
    t = distinguish.drop_differences(long)
    assert len(t) == 6 and set(t["id"]) == {distinguish.drop_diff_id(a, b) for i, a in
                                             enumerate(distinguish.DROP_ORDER) for b in distinguish.DROP_ORDER[i + 1:]}
    got = _read(tmp_path, {distinguish.DROP_DIFFS: t}, _decls(distinguish, "aux.RQ2.diff.drop."))
    r = got["aux.RQ2.diff.drop.CrystalBLEU-CodeBLEU"]
    assert r.value == pytest.approx(2.0) and r.low == pytest.approx(2.0) and r.high == pytest.approx(2.0)
    assert r.how == distinguish.DROP_DIFF_HOW
    s = got["aux.RQ2.diff.drop.CodeBLEU-CodeBERTScore"]
    diffs = np.array([30.0, 30.0, 60.0])
    half = 4.302653 * diffs.std(ddof=1) / np.sqrt(3)  # t(0.975, 2)
    assert s.value == pytest.approx(40.0) and s.low == pytest.approx(40.0 - half, rel=1e-5)


def test_drop_difference_has_no_interval_from_one_repetition() -> None:
    t = distinguish.drop_differences(_long({"CodeBLEU": [40.0], "CrystalBLEU": [50.0]}))
    assert t.iloc[0]["value"] == pytest.approx(10.0) and math.isnan(t.iloc[0]["CI low"])


# ----------------------------------------------------------------------------- RQ5
def _runs(maes: dict[int, list[float]], name: str = "Combined") -> pd.DataFrame:
    return pd.DataFrame([{"p": p, "model": k, "set": name, "MAE": m} for p, ms in maes.items()
                         for k, m in enumerate(ms)])


def test_half_contrast_on_the_model_means_with_a_bootstrap_over_models(tmp_path: Path) -> None:
    # p = 20 already near p = 100: most of the drop is reached there
    runs = _runs({0: [0.40, 0.42, 0.41], 20: [0.23, 0.22, 0.24], 100: [0.20, 0.21, 0.22]})
    v, lo, hi = rq5.half_contrast(runs, "Combined")
    assert v == pytest.approx((0.41 - 0.23) - 0.5 * (0.41 - 0.21))
    assert lo < v < hi and lo > 0
    assert rq5.half_contrast(runs, "Combined") == (v, lo, hi)  # seeded
    got = _read(tmp_path, {rq5.RUNS: runs}, _decls(rq5, "aux.RQ5.contrast."))
    assert got[rq5.contrast_id("Combined")].value == pytest.approx(v)
    assert rq5.contrast_id("Combined") == "aux.RQ5.contrast.Combined.half_at_20"


def test_half_contrast_absent_where_p20_was_not_run(tmp_path: Path) -> None:
    runs = _runs({0: [0.40, 0.42], 50: [0.30, 0.31], 100: [0.20, 0.21]})  # the quick profile's grid
    assert all(math.isnan(x) for x in rq5.half_contrast(runs, "Combined"))
    assert _read(tmp_path, {rq5.RUNS: runs}, _decls(rq5, "aux.RQ5.contrast.")) == {}
    assert "not computed" in rq5.contrast_lines(runs, (0, 50, 100))[0]


# ----------------------------------------------------------------------------- RQ4
def test_t5_loCaL_opt_claims_read_the_pie_fast_row() -> None:
    links = {d.claim_id: d for d in effectiveness.CLAIMS if isinstance(d, claim_links.Link)}
    assert links["T5.LoCaL_opt.CodeBLEU"].key == effectiveness.OPT_PIE_ROW
    assert links["aux.T5.constant.LoCaL_opt"].key == effectiveness.OPT_PIE_ROW
    assert links["aux.T5.LoCaL_opt_all.CodeBLEU"].key == "LoCaL_opt"
    f = _opt_frame()
    assert list(effectiveness.pie_fast(f)["SurfaceSim"]) == [0.3, 0.9]


def test_opt_by_source_labels_the_rewriter_by_construction() -> None:
    f = _opt_frame().assign(CodeBLEU=0.5)
    t = effectiveness.opt_by_source({"LoCaL": f[f.variant_type == "OPT"]}, ["CodeBLEU"]).set_index("Source")
    assert t.loc[OPT_SOURCES[1], effectiveness.JUDGED] == effectiveness.BY_CONSTRUCTION
    assert t.loc[OPT_SOURCES[2], effectiveness.JUDGED] == effectiveness.MEASURED


def test_worst_cases_report_the_ties_at_the_cut() -> None:
    # errors 1, 1, 0.5, 0.5, 0.5, 0.1 with k = 3: the cut (0.5) ties three rows, one picked (by id)
    f = pd.DataFrame({"id": list("abcdef"), "benchmark": "PIE", "variant_type": "MUT",
                      "df_score": 0.0, "M": [1.0, 1.0, 0.5, 0.5, 0.5, 0.1],
                      "SurfaceSim": [0.9, 0.9, 0.3, 0.6, 0.9, 0.5]})
    worst, _ = effectiveness.worst_cases(f, ["M"], k=3)
    r = worst.iloc[0]
    assert (r[effectiveness.TIED], r[effectiveness.TIED_IN]) == (3, 1)
    assert r["mean |SurfaceSim - df_score|"] == pytest.approx(round((0.9 + 0.9 + 0.3) / 3, 3))  # unchanged pick
    assert r[effectiveness.TIED_GAP] == pytest.approx(0.6)
    assert r[effectiveness.TIES_AVERAGED] == pytest.approx(round((0.9 + 0.9 + 0.6) / 3, 3))
