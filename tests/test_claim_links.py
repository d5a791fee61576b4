"""Each module's claim declarations match the headers and rows its table builder writes: a
renamed header or row key fails here instead of turning a claim into "not reproduced"."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from lcl.core import claim_links
from lcl.rq import correlation, coverage, distinguish, effectiveness
from lcl.study import makeup, overview, scoring
from lcl.engine import regions
from lcl.report import claims
from lcl.rq import rq5
from lcl.core.claim_links import Link

LABELS = [scoring.label(m) for m in scoring.CEMS]


def _links(table: str) -> list[Link]:
    return claims.links_for(table)


def _assert_linked(frame: pd.DataFrame, table: str, with_rows: bool = True) -> None:
    links = _links(table)
    assert links, f"no claims declared for {table}"
    assert claim_links.missing_columns(frame, links) == []
    if with_rows:
        missing = [lk.claim_id for lk in links if claim_links.read_link(frame, lk) is None]
        assert missing == [], f"{table}: rows or values missing for {missing}"


def test_table1_links() -> None:
    s = [overview.BenchmarkSummary(b, True, 10, 5, 3.0, True, "function", [], []) for b in overview.PAPER_BENCH]
    t = overview.table1(s)
    _assert_linked(t, overview.TABLE1)
    assert t.set_index("Benchmark").loc["APPS", "# Ori. (paper)"] == 5000


def test_table2_links() -> None:
    pairs = [{"variant_type": k, "level": lv, "surface_sim": 0.5 + i / 10, "df_score": d,
              "generator": "pie_fast" if lv == "program" or i == 0 else "rewriter"}
             for k, d in (("OPT", 1.0), ("MUT", 0.0)) for i, lv in enumerate(("function", "program", "function"))]
    t = makeup.table2_with_paper(pairs)
    _assert_linked(t, makeup.TABLE2)
    assert {"Avg. df_score CI low", "Total (paper)", "Avg. SurfaceSim (paper)"} <= set(t.columns)


def test_table3_links() -> None:
    rng = np.random.default_rng(0)
    x = rng.random(30)
    f = pd.DataFrame({"SurfaceSim": x, **{lb: x + 0.1 * rng.random(30) for lb in LABELS}})
    t = correlation.with_paper(correlation.table3(f, n_boot=20, seed=1))
    _assert_linked(t, correlation.TABLE3)
    assert list(t.columns).index("rho (paper)") == list(t.columns).index("rho") + 1


def test_table4_links() -> None:
    long = pd.DataFrame([{"repetition": r, "dataset": ds, "metric": m, "n_eq": 2, "n_neq": 2, "eq_score": 0.5,
                          "neq_score": 0.2 + r / 10 if ds == distinguish.ORIG else 0.9, "d": 0.0}
                         for r in (0, 1) for ds in (distinguish.ORIG, distinguish.REPL)
                         for m in ("SurfaceSim", *LABELS)])
    long["d"] = long.eq_score / long.neq_score
    t = distinguish.with_paper(distinguish.table4(long))
    _assert_linked(t, distinguish.TABLE4)
    assert t["drop % std"].notna().all() and "EQ std (paper)" in t.columns


def test_table5_links() -> None:
    def frame(err: float) -> pd.DataFrame:
        return pd.DataFrame({"df_score": [1.0, 0.0, 1.0], **{lb: [1 - err, err, 1 - err / 2] for lb in LABELS}})
    sets = {d: frame(0.3) for d in effectiveness.T5_SETS}
    t = effectiveness.with_paper(effectiveness.table5(sets, LABELS))
    _assert_linked(t, effectiveness.TABLE5, with_rows=False)
    assert (t[f"{LABELS[0]} CI low"] <= t[LABELS[0]]).all()


def test_rq3_links() -> None:
    th = regions.Thresholds(0.65, 0.9, 0.1, 0.9, 0.1, 0.05, "squared")
    local = pd.DataFrame({"variant_type": ["MUT", "OPT"] * 5, "SurfaceSim": [0.95, 0.5] * 4 + [0.7, 0.7],
                          "df_score": [0.0, 1.0] * 4 + [0.5, 0.5],
                          # where each optimised variant comes from: RQ3.opt_in_dfs reads PIE's fast programs
                          "opt_source": [None, "PIE fast programs"] * 5})
    frames = {"LoCaL_balanced": local, "CodeScore_test": local.assign(SurfaceSim=0.7, df_score=0.5)}
    _assert_linked(coverage.with_paper(coverage.region_table(frames, th), coverage.COVERAGE), coverage.COVERAGE)
    hits = coverage.with_paper(coverage.hit_rates(local, th), coverage.HITS_PAPER)
    _assert_linked(hits, coverage.HITS_PAPER)
    assert hits.set_index("Variants").loc["MUT", "CI low"] < 80.0 < hits.set_index("Variants").loc["MUT", "CI high"]
    _assert_linked(coverage.thresholds_table([th], {"x_lo": 0.65, "x_hi": 0.9, "y_lo": 0.1, "y_hi": 0.9}),
                   coverage.THRESHOLDS)


def test_rq3_draws_give_the_spread() -> None:
    scored = pd.DataFrame({"id": [f"p{i}" for i in range(40)], "variant_type": ["MUT", "OPT"] * 20,
                           "SurfaceSim": np.linspace(0.4, 1.0, 40), "df_score": [0.0, 1.0] * 20,
                           "CodeBLEU": np.linspace(0.3, 0.9, 40)})
    d = coverage.draws(scored, scored.head(10), ["CodeBLEU"], 8, coverage.draw_seeds(3, 4), step=0.05,
                       error="squared")
    assert len(d) == 4 and d.seed.is_unique
    s = coverage.draws_summary(d)
    assert set(s.claim_id) == set(coverage.DRAW_CLAIMS.values())


def test_table6_links() -> None:
    runs = pd.DataFrame([{"p": p, "model": k, "set": s, "MAE": 0.3 + k / 10, "MAE (mean baseline)": 0.35}
                         for p in range(0, 101, 10) for k in (0, 1) for s in rq5.RQ5_SETS])
    t = rq5.table6(runs)
    _assert_linked(t, rq5.TABLE6)


def test_a_renamed_header_is_caught() -> None:
    rng = np.random.default_rng(0)
    x = rng.random(20)
    t = correlation.table3(pd.DataFrame({"SurfaceSim": x, **{lb: x for lb in LABELS}}), n_boot=10, seed=0)
    renamed = t.rename(columns={"rho": "Spearman rho"})
    assert claim_links.missing_columns(renamed, _links(correlation.TABLE3))
    with pytest.raises(AssertionError):
        _assert_linked(renamed, correlation.TABLE3)


def test_read_uses_declarations(tmp_path) -> None:
    pd.DataFrame([{"Metric": LABELS[2], "n": 10, "rho": 0.8, "CI low": 0.7, "CI high": 0.9}]).to_csv(
        tmp_path / "table3_correlation.csv", index=False)
    got = claim_links.read(str(tmp_path), claims.declarations())
    assert got["T3.CodeBERTScore.rho"] == claim_links.Reading(0.8, 0.7, 0.9)


def test_rq3_source_names_follow_the_dataset_module() -> None:
    from lcl.study import makeup

    assert coverage._OPT_SOURCES == makeup.OPT_SOURCES


def test_evidence_rows_are_read_from_the_tables_their_builders_write(tmp_path) -> None:
    from lcl.report import reasons

    pairs = [{"variant_type": k, "level": "function", "surface_sim": s, "df_score": d, "published_kind": k}
             for k, s, d in (("OPT", 0.6, 1.0), ("MUT", 0.9, 0.0))]
    makeup.table2_sources(pairs[:1], [], pairs, "full").to_csv(tmp_path / "published_table2.csv", index=False)
    th = regions.Thresholds(0.65, 0.9, 0.1, 0.9, 0.0, 0.05, "squared")
    cov = pd.DataFrame([{"Dataset": "LoCaL_balanced", "SFD %": 30.0, "DFS %": 40.0}])
    hits = pd.DataFrame([{"Variants": "MUT", "%": 60.0}, {"Variants": "OPT", "%": 50.0}])
    pd.DataFrame([coverage.headline("LoCaL-all", th, cov, hits)]).to_csv(tmp_path / "rq3_sensitivity.csv", index=False)
    got = claim_links.read(str(tmp_path), reasons.evidence_declarations())
    assert got[reasons.evidence_id("T2.opt.surfacesim")].value == 0.6
    assert got[reasons.evidence_id("T2.mut.df")].value == 0.0
    assert got[reasons.evidence_id("RQ3.x_lo")].value == 0.65
    # LoCaL's hit rates under the paper's thresholds, as notebook 05 writes them
    local = pd.DataFrame({"variant_type": ["MUT", "MUT", "OPT"], "SurfaceSim": [0.95, 0.5, 0.5],
                          "df_score": [0.0, 0.0, 1.0]})
    coverage.hit_rates(local, th).to_csv(tmp_path / f"{coverage.HITS_PAPER}.csv", index=False)
    coverage.hit_rates(local, th).to_csv(tmp_path / f"{coverage.HITS}.csv", index=False)
    got = claim_links.read(str(tmp_path), reasons.evidence_declarations())
    assert got[reasons.evidence_id("RQ3.mut_in_sfd")].value == 50.0  # one of the two mutants in SFD
    # the authors' released variants and the counts under the paper's thresholds (region_checks' tables)
    from lcl.rq import region_checks

    released = pd.DataFrame({"variant_type": ["OPT", "OPT", "MUT"], "benchmark": ["PIE", "MBPP", "PIE"],
                             "SurfaceSim": [0.5, 0.8, 0.95], "df_score": [1.0, 1.0, 0.0]})
    region_checks.released_hits(released, th, th).to_csv(tmp_path / "rq3_released_variants.csv", index=False)
    frames = {"LoCaL_balanced": released, "CodeScore_test": released.iloc[:1]}
    region_checks.paper_threshold_table(frames, th, None, {}).to_csv(tmp_path / "rq3_coverage_paper_thresholds.csv",
                                                                      index=False)
    got = claim_links.read(str(tmp_path), reasons.evidence_declarations())
    assert got[reasons.evidence_id("RQ3.opt_in_dfs")].value == 50.0  # one of the two optimised variants
    assert got[reasons.evidence_id("RQ3.local.dfs")].value == 1.0
    assert got[reasons.evidence_id("RQ3.local.sfd")].value == 1.0
    base = got[reasons.evidence_id("RQ3.base.dfs")]
    assert base.value == base.low == base.high == 1.0  # a fixed set under fixed thresholds: an exact count
    assert math.isnan(got[reasons.evidence_id("RQ3.local.dfs")].low)  # LoCaL_balanced varies over draws


def test_an_empty_table_reads_as_no_values(tmp_path) -> None:
    (tmp_path / "rq4_author_scores.csv").write_text("")  # written by a notebook whose source was skipped
    (tmp_path / "table3_correlation.csv").write_text("\n")
    assert claim_links.read(str(tmp_path), [*claims.declarations()]) == {}
