"""The LoCaL curation rule (lcl.curation) and the helpers that split results by it."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from lcl import coverage, curation, dataset, effectiveness, regions


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
    ledger = dataset.Ledger()
    pairs = [_pair("m0", "MUT", 0.0), _pair("m1", "MUT", 0.9), _pair("o1", "OPT", 1.0), _pair("o0", "OPT", 0.1)]
    curation.curate(pairs, ledger)
    assert [p["in_local"] for p in pairs] == [True, False, True, False]
    assert sum(ledger.dropped.values()) == 2
    assert {k.split(":")[0] for k in ledger.dropped} == {"MUT", "OPT"}
    assert [p["id"] for p in curation.select(pairs)] == ["m0", "o1"]
    assert len(curation.select(pairs, "all")) == 4
    with pytest.raises(ValueError, match="in_local"):
        curation.select([_pair("x", "MUT", 0.0)])
    with pytest.raises(ValueError, match="subset"):
        curation.select(pairs, "curated")


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
    assert dataset.opt_source({"variant_type": "OPT", "generator": "rewriter", "strategies": []}) == dataset.OPT_SOURCES[0]
    assert dataset.opt_source({"variant_type": "OPT", "generator": "rewriter", "strategies": ["loop"]}) == \
        dataset.OPT_SOURCES[1]
    assert dataset.opt_source({"variant_type": "OPT", "generator": "pie_fast"}) == dataset.OPT_SOURCES[2]
    assert dataset.opt_source({"variant_type": "CLONE"}) == dataset.OPT_SOURCES[3]
    assert dataset.opt_source({"variant_type": "MUT"}) is None


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
    assert hits.loc[dataset.OPT_SOURCES[0], "inside DFS"] == 1  # x 0.4 < x_lo, df 1 > y_hi
    assert hits.loc[dataset.OPT_SOURCES[2], "inside DFS"] == 0  # df 0.3: not DFS
    assert dataset.OPT_SOURCES[2] in hits.index and len(hits) == 2
    f["CodeBLEU"] = [0.5, 0.5, 0.9]
    mae = effectiveness.opt_by_source({"all": f[f.variant_type == "OPT"]}, ["CodeBLEU"]).set_index("Source")
    assert mae.loc[dataset.OPT_SOURCES[2], "CodeBLEU"] == pytest.approx(0.2)
    assert np.isclose(mae.loc[dataset.OPT_SOURCES[0], "CodeBLEU"], 0.5)
