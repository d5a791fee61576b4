"""RQ3's fit under the authors' search rules, its sensitivity rows and the bootstrap over pairs."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from lcl.core.claim_links import Link
from lcl.engine import regions
from lcl.rq import coverage, region_checks

SMALL = regions.SearchRules("small", lo_bounds=(0.1, 0.65), hi_bounds=(0.1, 0.9), min_sizes=(5, 5, 15),
                            error="absolute", tie_decimals=2, tie_break="authors")


def _frames(seed: int = 0, n: int = 120) -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    kind = np.array(["MUT", "OPT"] * (n // 2))
    x = np.where(kind == "MUT", rng.uniform(0.7, 1.0, n), rng.uniform(0.3, 0.9, n))
    y = np.where(kind == "MUT", rng.uniform(0.0, 0.4, n), rng.uniform(0.7, 1.0, n))
    local = pd.DataFrame({"id": [f"l{i}" for i in range(n)], "variant_type": kind, "SurfaceSim": x, "df_score": y,
                          "m": np.clip(x + rng.normal(0, 0.1, n), 0, 1)})
    bx, by = rng.uniform(0.3, 0.8, n), rng.random(n)
    base = pd.DataFrame({"id": [f"b{i}" for i in range(n)], "variant_type": None, "SurfaceSim": bx, "df_score": by,
                         "m": np.clip(by + rng.normal(0, 0.2, n), 0, 1)})
    return {"LoCaL_balanced": local, "CodeScore_test": base}


def test_resampling_keeps_each_dataset_and_kind_size() -> None:
    frames = _frames()
    rep = coverage.resample(frames, np.random.default_rng(0))
    assert {k: len(v) for k, v in rep.items()} == {k: len(v) for k, v in frames.items()}
    assert (rep["LoCaL_balanced"].variant_type == "MUT").sum() == 60
    assert rep["LoCaL_balanced"].id.duplicated().any()  # drawn with replacement


def test_the_bootstrap_over_pairs_has_width_and_is_seeded() -> None:
    frames = _frames()
    paper = regions.Thresholds(0.65, 0.9, 0.1, 0.9, float("nan"), 0.05, "paper")
    b = coverage.bootstrap(frames, ["m"], SMALL, 12, seed=7, shares_under=paper)
    assert len(b) == 12 and b["x_lo"].notna().all()
    assert b["local.dfs_share"].nunique() > 1 and b["base.ctrl_dist"].nunique() > 1  # not the same pairs every time
    pd.testing.assert_frame_equal(b, coverage.bootstrap(frames, ["m"], SMALL, 12, seed=7, shares_under=paper))
    s = coverage.draws_summary(b).set_index("claim_id")
    assert set(s.index) == set(coverage.DRAW_CLAIMS.values())
    assert s.loc["aux.RQ3.local.dfs_share", "CI high"] > s.loc["aux.RQ3.local.dfs_share", "CI low"]


def test_the_search_rules_table_has_every_rule_set_with_intervals() -> None:
    frames = _frames()
    rule_sets = [SMALL, *(SMALL.without(r) for r in regions.RULE_NAMES), regions.AS_PRINTED]
    t = coverage.search_rules_table([coverage.PointSet("toy", frames, ("m",))], rule_sets, 6, seed=3)
    assert list(t.Rules) == [r.name for r in rule_sets] and (t.n == 240).all()
    for k in (*regions.KEYS, *coverage.SHARE_COLUMNS):
        ok = t[k].notna()
        assert (t.loc[ok, f"{k} CI low"] <= t.loc[ok, f"{k} CI high"]).all()
    row = t.set_index("Rules").loc[SMALL.name]
    th = regions.Thresholds(*(row[k] for k in regions.KEYS), 0.0, 0.05, "absolute")
    assert row[coverage.ON_BOUND] == ", ".join(regions.on_bounds(th, SMALL))
    assert row["bootstrap fits"] == 6


def test_the_default_rule_sets_are_the_authors_each_removed_printed_and_the_floor() -> None:
    names = [r.name for r in coverage.rule_sets()]
    assert names[0] == regions.AUTHORS.name and coverage.PRIMARY_RULES is regions.AUTHORS
    assert names[-2:] == [regions.AS_PRINTED.name, regions.FLOOR_2PCT.name]
    assert all(any(regions.RULE_NAMES[r] in n for n in names) for r in regions.RULE_NAMES)


def test_the_thresholds_table_names_the_procedure_and_the_bound() -> None:
    th = regions.search(_frames()["LoCaL_balanced"].SurfaceSim, _frames()["LoCaL_balanced"].df_score,
                        {"m": _frames()["LoCaL_balanced"].m}, SMALL)
    t = coverage.thresholds_table([th], {"x_lo": 0.65, "x_hi": 0.9, "y_lo": 0.1, "y_hi": 0.9}, [SMALL])
    assert t.loc[0, "procedure"] == "small" and bool(t.loc[0, "used"])
    assert all(coverage.on_bound(t, k) == (k in regions.on_bounds(th, SMALL)) for k in regions.KEYS)


def test_counts_and_hit_rates_are_claimed_under_the_papers_thresholds() -> None:
    links = {c.claim_id: c for c in coverage.CLAIMS if isinstance(c, Link)}
    assert links["RQ3.mut_in_sfd"].table == coverage.HITS_PAPER and links["RQ3.opt_in_dfs"].table == coverage.HITS_PAPER
    assert links["RQ3.x_lo"].table == coverage.THRESHOLDS and links["RQ3.x_lo"].ci_table == coverage.DRAWS


def test_rule_point_sets_put_each_substitute_in_and_out() -> None:
    frames = _frames()
    for f in frames.values():
        f["CodeBLEU"], f["CrystalBLEU"], f["CodeBERTScore[MiniLM]"], f["CodeScore-style (retrained)"] = (f.m,) * 4
    authors = frames["LoCaL_balanced"].rename(columns={"CodeBERTScore[MiniLM]": "CodeBERTScore",
                                                       "CodeScore-style (retrained)": "CodeScore"})
    cems = ["CodeBLEU", "CrystalBLEU", "CodeBERTScore[MiniLM]", "CodeScore-style (retrained)"]
    sets = region_checks.rule_point_sets(frames, cems, cems[2:], authors)
    assert [(s.name, s.metrics) for s in sets] == [
        (region_checks.RULE_OURS, tuple(cems)), (region_checks.RULE_OURS, ("CodeBLEU", "CrystalBLEU")),
        (region_checks.RULE_AUTHORS, ("CodeBLEU", "CrystalBLEU")),
        (region_checks.RULE_AUTHORS, ("CodeBLEU", "CrystalBLEU", "CodeBERTScore")),
        (region_checks.RULE_AUTHORS, ("CodeBLEU", "CrystalBLEU", "CodeScore")),
        (region_checks.RULE_AUTHORS, ("CodeBLEU", "CrystalBLEU", "CodeBERTScore", "CodeScore"))]
    assert region_checks.rule_point_sets(frames, cems, cems[2:], None)[-1].name == region_checks.RULE_OURS


@pytest.mark.parametrize("n, expected", [(2000, 200), (200, 20), (50, 5)])
def test_the_bootstrap_count_follows_the_profile(n: int, expected: int) -> None:
    assert coverage.boot_count(n) == expected
