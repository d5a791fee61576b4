"""The LoCaL curation rule (lcl.study.curation) and the helpers that split results by it."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from lcl.rq import coverage, effectiveness
from lcl.study import curation, makeup
from lcl.core import records
from lcl.engine import regions


def _pair(pid: str, kind: str, df: float, **extra: object) -> dict:
    return {"id": pid, "variant_type": kind, "df_score": df, "reference": "a", "variant": "b", **extra}


def test_rule_keeps_each_kind_on_its_side_of_the_boundary() -> None:
    assert curation.in_local("MUT", 0.0) and curation.in_local("MUT", 0.4924)
    assert not curation.in_local("MUT", 0.5) and not curation.in_local("MUT", 1.0)
    assert curation.in_local("OPT", 0.537) and curation.in_local("OPT", 1.0)
    assert not curation.in_local("OPT", 0.5) and not curation.in_local("OPT", 0.2)
    with pytest.raises(ValueError, match="MUT and OPT"):
        curation.in_local("CLONE", 1.0)


def test_curate_flags_every_pair_and_counts_each_drop() -> None:
    ledger = records.Ledger()
    pairs = [_pair("m0", "MUT", 0.0, level="function"), _pair("m1", "MUT", 0.9, level="function"),
             _pair("o1", "OPT", 1.0, level="function", generator="pie_fast"),
             _pair("o0", "OPT", 0.1, level="function", generator="pie_fast")]
    curation.curate(pairs, ledger)
    assert [p["curated"] for p in pairs] == [True, False, True, False]
    assert [p["in_local"] for p in pairs] == [True, False, True, False]  # every cell keeps at least one
    assert sum(ledger.dropped.values()) == 2
    assert {k.split(":")[0] for k in ledger.dropped} == {"MUT", "OPT"}
    assert [p["id"] for p in curation.select(pairs)] == ["m0", "o1"]
    assert [p["id"] for p in curation.select(pairs, "curated")] == ["m0", "o1"]
    assert len(curation.select(pairs, "all")) == 4
    with pytest.raises(ValueError, match="in_local"):
        curation.select([_pair("x", "MUT", 0.0)])
    with pytest.raises(ValueError, match="subset"):
        curation.select(pairs, "everything")


def test_a_refactoring_is_never_a_local_pair() -> None:
    ledger = records.Ledger()
    pairs = [_pair("r", "OPT", 1.0, level="function", generator="rewriter", strategies=[]),
             _pair("a", "OPT", 1.0, level="function", generator="rewriter", strategies=["algorithmic"]),
             _pair("p", "OPT", 1.0, level="program", generator="pie_fast", strategies=[])]
    curation.curate(pairs, ledger)
    assert [p["curated"] for p in pairs] == [False, True, True]
    assert not pairs[0]["in_local"]
    assert ledger.dropped[f"OPT: {curation.REFACTORING}"] == 1


def test_the_sample_has_table2s_makeup_at_the_largest_fraction_every_cell_fills() -> None:
    paper = curation.paper_counts()
    assert paper[("MUT", "program")] > paper[("OPT", "function")]  # read from the claims data
    # 40 % of the paper's OPT function cell, plenty of everything else
    avail = {("OPT", "function"): round(0.4 * paper[("OPT", "function")]), ("OPT", "program"): 10_000,
             ("MUT", "function"): 10_000, ("MUT", "program"): 10_000}
    s = curation.sample_fraction(avail, paper)
    assert s == pytest.approx(avail[("OPT", "function")] / paper[("OPT", "function")])
    pairs = [_pair(f"{k}{lv}{i}", k, 0.0 if k == "MUT" else 1.0, level=lv, generator="pie_fast")
             for (k, lv), n in avail.items() for i in range(min(n, 2000))]
    chosen, frac = curation.table2_sample(pairs, seed=7)
    assert frac == pytest.approx(s)
    got = pd.Series([next(p for p in pairs if p["id"] == i)["variant_type"] + next(
        p for p in pairs if p["id"] == i)["level"] for i in chosen]).value_counts()
    for (k, lv), n in paper.items():
        assert got[k + lv] == round(s * n), (k, lv)
    assert curation.table2_sample(pairs, seed=7)[0] == chosen  # seeded
    assert curation.table2_sample(pairs, seed=8)[0] != chosen
    # a cell this run lacks (programs without the data mirror) does not empty LoCaL
    assert curation.sample_fraction({("MUT", "function"): 5}, paper) == pytest.approx(5 / paper[("MUT", "function")])
    assert curation.sample_fraction({}, paper) == 0.0


def test_release_evidence_and_boundary_check() -> None:
    pub = [{"benchmark": "HumanEval", "published_kind": "MUT", "df_score": 0.4},
           {"benchmark": "PIE", "published_kind": "MUT", "df_score": 0.0},
           {"benchmark": "PIE", "published_kind": "OPT", "df_score": 0.6},
           {"benchmark": "PIE", "published_kind": None, "df_score": 0.9}]
    ev = curation.release_evidence(pub)
    overall = ev[ev.benchmark == "all"].set_index("kind")
    assert overall.loc["MUT", "pairs"] == 2 and overall.loc["MUT", "max df"] == 0.4
    assert overall.loc["OPT", "min df"] == 0.6
    assert curation.boundary_consistent(ev) is True
    pub.append({"benchmark": "APPS", "published_kind": "OPT", "df_score": 0.3})
    assert curation.boundary_consistent(curation.release_evidence(pub)) is False
    assert curation.boundary_consistent(curation.release_evidence([])) is None


def test_opt_source_names_every_dfs_origin() -> None:
    assert makeup.opt_source({"variant_type": "OPT", "generator": "rewriter", "strategies": []}) == makeup.OPT_SOURCES[0]
    assert makeup.opt_source({"variant_type": "OPT", "generator": "rewriter", "strategies": ["loop"]}) == \
        makeup.OPT_SOURCES[1]
    assert makeup.opt_source({"variant_type": "OPT", "generator": "pie_fast"}) == makeup.OPT_SOURCES[2]
    assert makeup.opt_source({"variant_type": "CLONE"}) == makeup.OPT_SOURCES[3]
    assert makeup.opt_source({"variant_type": "MUT"}) is None


def test_sources_slicing_and_hit_rates_by_source() -> None:
    rows = [_pair("o1", "OPT", 1.0, in_local=True, generator="rewriter", strategies=[]),
            _pair("o2", "OPT", 0.3, in_local=False, generator="pie_fast"),
            _pair("m1", "MUT", 0.0, in_local=True)]
    frame = pd.DataFrame({"id": [r["id"] for r in rows], "variant_type": [r["variant_type"] for r in rows],
                          "df_score": [r["df_score"] for r in rows], "SurfaceSim": [0.4, 0.3, 0.95]})
    f = effectiveness.with_sources(frame, rows)
    assert list(effectiveness.in_local(f).id) == ["o1", "m1"]
    with pytest.raises(ValueError, match="same rows"):
        effectiveness.with_sources(frame, rows[:2])
    th = regions.Thresholds(x_lo=0.5, x_hi=0.8, y_lo=0.2, y_hi=0.8, objective=0.0, step=0.05, error="absolute")
    hits = coverage.hit_rates_by_source(f, th).set_index("Source")
    assert hits.loc[makeup.OPT_SOURCES[0], "inside DFS"] == 1  # x 0.4 < x_lo, df 1 > y_hi
    assert hits.loc[makeup.OPT_SOURCES[2], "inside DFS"] == 0  # df 0.3: not DFS
    assert makeup.OPT_SOURCES[2] in hits.index and len(hits) == 2
    assert hits[coverage.PAPER_INSIDE].isna().all()  # no paper's thresholds given
    stricter = regions.Thresholds(x_lo=0.35, x_hi=0.8, y_lo=0.2, y_hi=0.8, objective=0.0, step=0.05, error="absolute")
    both = coverage.hit_rates_by_source(f, th, stricter).set_index("Source")
    assert both.loc[makeup.OPT_SOURCES[0], "inside DFS"] == 1  # x 0.4 <= 0.5
    assert both.loc[makeup.OPT_SOURCES[0], coverage.PAPER_INSIDE] == 0  # but not <= 0.35
    assert both.loc[makeup.OPT_SOURCES[0], coverage.PAPER_SHARE] == 0.0
    f["CodeBLEU"] = [0.5, 0.5, 0.9]
    mae = effectiveness.opt_by_source({"all": f[f.variant_type == "OPT"]}, ["CodeBLEU"]).set_index("Source")
    assert mae.loc[makeup.OPT_SOURCES[2], "CodeBLEU"] == pytest.approx(0.2)
    assert np.isclose(mae.loc[makeup.OPT_SOURCES[0], "CodeBLEU"], 0.5)
