"""RQ1, RQ3 and RQ4 analyses on small synthetic tables (no metric models, no fuzzing)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from lcl.core.records import Pair
from lcl.engine import regions
from lcl.report import claims
from lcl.rq import correlation, coverage
from lcl.rq import effectiveness as eff
from lcl.study import scoring


def _pairs(n: int) -> list[Pair]:
    return [Pair(id=f"p{i}", reference=f"r{i}", candidate=f"c{i}", dataset="PIE", df_score=1.0) for i in range(n)]


def test_sample_pairs_is_deterministic_and_without_replacement():
    pairs = _pairs(50)
    a, b = correlation.sample_pairs(pairs, 10, 3), correlation.sample_pairs(pairs, 10, 3)
    assert [p.id for p in a] == [p.id for p in b] and len({p.id for p in a}) == 10
    assert [p.id for p in correlation.sample_pairs(pairs, 10, 4)] != [p.id for p in a]
    assert correlation.sample_pairs(pairs, None, 3) == pairs


def test_table3_rho_sign_and_columns():
    rng = np.random.default_rng(0)
    x = rng.random(80)
    f = pd.DataFrame({"SurfaceSim": x, "CodeBLEU": x + 0.05 * rng.random(80), "CrystalBLEU": 1 - x})
    t = correlation.table3(f, n_boot=50, seed=1).set_index("Metric")
    assert t.loc["CodeBLEU", "rho"] > 0.9 and t.loc["CodeBLEU", "CI low"] > 0.8
    assert t.loc["CrystalBLEU", "rho"] == pytest.approx(-1.0)
    assert list(t.reset_index().columns) == correlation.COLUMNS


def test_table3_with_too_few_pairs_reports_not_computed():
    f = pd.DataFrame({"SurfaceSim": [0.5, 0.6], "CodeBLEU": [0.1, 0.2]})
    t = correlation.table3(f, n_boot=10, seed=0)
    assert t.loc[0, "n"] == 2 and pd.isna(t.loc[0, "rho"])


def _local(n_mut: int, n_opt: int) -> pd.DataFrame:
    rows = [{"id": f"m{i}", "variant_type": "MUT", "SurfaceSim": 0.95, "df_score": 0.0, "reference": "r",
             "candidate": f"m{i}"} for i in range(n_mut)]
    rows += [{"id": f"o{i}", "variant_type": "OPT", "SurfaceSim": 0.4, "df_score": 1.0, "reference": "r",
              "candidate": f"o{i}"} for i in range(n_opt)]
    return pd.DataFrame(rows)


def test_balanced_takes_equal_numbers_of_each_type():
    b = coverage.balanced(_local(30, 7), 427, seed=1)
    assert (b.variant_type == "MUT").sum() == (b.variant_type == "OPT").sum() == 7
    assert b.equals(coverage.balanced(_local(30, 7), 427, seed=1))
    assert len(coverage.balanced(_local(30, 20), 5, seed=1)) == 10


def test_region_table_and_hit_rates():
    th = regions.Thresholds(0.6, 0.9, 0.1, 0.9, 0.0, 0.05, "squared")
    local = pd.concat([_local(4, 2), pd.DataFrame([{"id": "c", "variant_type": "MUT", "SurfaceSim": 0.7,
                                                    "df_score": 0.5, "reference": "r", "candidate": "x"}])])
    t = coverage.region_table({"L": local}, th).iloc[0]
    assert (t["SFD"], t["DFS"], t["Control"]) == (4, 2, 1)
    assert t["SFD %"] == round(100 * 4 / 7, 1)
    # the control point (0.7, 0.5): DFS corner (0.6, 0.9) is hypot(0.1, 0.4) away, SFD corner (0.9, 0.1) hypot(0.2, 0.4)
    # the paper's normalisation: the distance divided by sqrt(2), the unit square's diagonal
    assert t["Control: mean distance to SFD/DFS"] == pytest.approx(round(float(np.hypot(0.1, 0.4) / np.sqrt(2)), 3))
    h = coverage.hit_rates(local, th).set_index("Variants")
    assert h.loc["MUT", "inside"] == 4 and h.loc["MUT", "n"] == 5 and h.loc["OPT", "%"] == 100.0
    assert coverage.region_table({"L": local}, None).empty
    assert coverage.hit_rates(local, None)["inside"].isna().all()


def test_fit_returns_none_when_regions_cannot_all_be_non_empty():
    f = pd.DataFrame({"SurfaceSim": [0.5, 0.5], "df_score": [0.5, 0.5], "CodeBLEU": [0.5, 0.5]})
    assert coverage.fit({"a": f}, ["CodeBLEU"], step=0.1, error="squared") is None


def test_figure1_prefers_one_reference_with_both_kinds():
    local = pd.DataFrame([
        {"id": "a", "variant_type": "MUT", "SurfaceSim": 0.97, "df_score": 0.0, "reference": "R1", "candidate": "x"},
        {"id": "b", "variant_type": "OPT", "SurfaceSim": 0.50, "df_score": 1.0, "reference": "R1", "candidate": "y"},
        {"id": "c", "variant_type": "MUT", "SurfaceSim": 0.99, "df_score": 0.0, "reference": "R2", "candidate": "z"},
        {"id": "d", "variant_type": "MUT", "SurfaceSim": 0.99, "df_score": 0.5, "reference": "R1", "candidate": "w"},
    ])
    ex = coverage.figure1_examples(local)
    assert ex["shared_reference"] and ex["reference"] == "R1"
    assert ex["mutant"]["id"] == "a" and ex["optimised"]["id"] == "b"
    assert coverage.figure1_examples(local.iloc[0:0]) is None


def _scored(name: str, err: float) -> pd.DataFrame:
    return pd.DataFrame({"id": ["1", "2"], "df_score": [1.0, 0.0], "SurfaceSim": [0.5, 0.9],
                         "CodeBLEU": [1.0 - err, err], "benchmark": ["PIE", "APPS"], "variant_type": ["OPT", "MUT"]})


def test_table5_increase_and_worst_cases():
    t = eff.table5({"CodeScore_test": _scored("b", 0.1), "LoCaL": _scored("l", 0.7)}, ["CodeBLEU"])
    assert list(t.CodeBLEU) == [0.1, 0.7]
    inc = eff.increase(t, ["CodeBLEU"]).iloc[0]
    assert inc["increase"] == pytest.approx(0.6) and inc["ratio"] == pytest.approx(7.0)
    worst, where = eff.worst_cases(_scored("l", 0.7), ["CodeBLEU"], k=1)
    assert worst.iloc[0]["k"] == 1 and worst.iloc[0]["mean error"] == pytest.approx(0.7)
    assert where["pairs"].sum() == 1


def test_table5_leaves_a_metric_that_cannot_score_as_nan():
    f = _scored("j", 0.2).assign(**{"CodeScore-style (retrained)": np.nan})
    t = eff.table5({"ShareCode_java": f}, ["CodeBLEU", "CodeScore-style (retrained)"])
    assert t.loc[0, "CodeBLEU"] == pytest.approx(0.2) and pd.isna(t.loc[0, "CodeScore-style (retrained)"])


def test_labelled_drops_timeouts_and_unknown_labels():
    f = pd.DataFrame({"id": ["a", "b", "c"], "df_score": [1.0, -1.0, None]})
    assert list(eff.labelled(f).id) == ["a"]


def test_author_scores_reads_the_published_values():
    p = Pair(id="x", reference="r", candidate="c", dataset="LoCaL_published", df_score=0.0, variant_type="MUT",
             extra={"author_scores": {"codebleu": 0.9, "crystalbleu": 0.0, "codebertscore": 0.95, "codescore": 0.2,
                                      "surfaceSim": 0.93}})
    t = eff.author_scores([p, Pair(id="y", reference="r", candidate="d", dataset="LoCaL_published")])
    assert len(t) == 1 and t.loc[0, "CodeBERTScore"] == 0.95 and t.loc[0, "SurfaceSim"] == 0.93
    assert eff.author_scores([]).empty


def test_pairs_frame_accepts_pairs_and_dataset_rows():
    rows = [{"id": "L1", "benchmark": "PIE", "variant_type": "MUT", "reference": "a", "variant": "b", "df_score": 0.0}]
    f = scoring.pairs_frame(rows)
    assert f.loc[0, "candidate"] == "b" and f.loc[0, "dataset"] == "LoCaL" and f.loc[0, "lang"] == "python"
    assert list(scoring.pairs_frame(_pairs(2)).columns) == scoring.PAIR_COLUMNS
    assert scoring.pairs_frame([]).empty


def test_paper_names_of_substitutes():
    assert scoring.paper_name("CodeBERTScore[MiniLM]") == "CodeBERTScore"
    assert scoring.paper_name("CodeScore-style (retrained)") == "CodeScore"
    assert scoring.paper_name("CrystalBLEU[corpus]") == "CrystalBLEU"
    assert scoring.sensitivity_columns(pd.DataFrame(columns=["CrystalBLEU", "CrystalBLEU[corpus]"])) == [
        "CrystalBLEU[corpus]"]


def test_claims_read_the_rq_tables(tmp_path):
    pd.DataFrame([{"Metric": "CodeBERTScore[MiniLM]", "n": 10, "rho": 0.8, "CI low": 0.7, "CI high": 0.9}]).to_csv(
        tmp_path / "table3_correlation.csv", index=False)
    pd.DataFrame([{"Dataset": "CodeScore_test", "n": 5, "CodeBLEU": 0.2, "CodeBLEU CI low": 0.1, "CodeBLEU CI high": 0.3},
                  {"Dataset": "LoCaL", "n": 5, "CodeBLEU": 0.6, "CodeBLEU CI low": 0.5, "CodeBLEU CI high": 0.7}]).to_csv(
        tmp_path / "table5_mae.csv", index=False)
    # d repl with its spread over 10 repetitions (Table 4's mean ± std): "d < 1" holds only on that interval
    pd.DataFrame([{"metric": "CodeBLEU", "EQ": 0.5, "NEQ orig": 0.2, "d orig": 2.5, "NEQ repl": 0.9,
                   "d repl": 0.55, "d repl std": 0.05, "repetitions": 10, "drop %": 78.0}]).to_csv(
        tmp_path / "table4_distinguishability.csv", index=False)
    values = claims.reproduced_values(str(tmp_path))
    assert values["T3.CodeBERTScore.rho"] == 0.8 and values["T5.LoCaL.CodeBLEU"] == 0.6
    assert values["T4.CodeBLEU.d_repl"] == 0.55 and values["RQ2.drop.CodeBLEU"] == 78.0
    # every source fetched (skipped={}): what the tables lack is "not reproduced"; the machine's own
    # fetch record (with or without the mirror) must not decide this test
    table = claims.build(str(tmp_path), skipped={}).set_index("claim_id")
    assert table.loc["T3.CodeBERTScore.rho", "ci_low"] == 0.7
    assert table.loc["C.RQ1.positive.CodeBERTScore", "status"] == claims.MISSING  # no p-value column
    assert table.loc["C.RQ4.local.CodeBLEU", "status"] == claims.HOLDS  # CIs 0.5-0.7 vs 0.1-0.3
    assert table.loc["C.RQ2.d_repl.CodeBLEU", "status"] == claims.HOLDS  # 0.55 ± t(9) 0.05 / sqrt(10): below 1
    assert table.loc["T5.LoCaL.CodeBLEU", "status"] == claims.OUTSIDE  # paper 0.80 outside (0.5, 0.7)
    assert table.loc["RQ2.drop.CodeBLEU", "status"] == claims.NOT_JUDGED  # no std column in this table
    by = claims.by_section(table.reset_index()).set_index("section")
    assert by.loc["Table 5", "claims"] == 19
    # without the mirror's PIE, Table 3 is built from no pairs: the same gap is "not run", naming the source
    skipped = claims.build(str(tmp_path), skipped={"pie": ("PIE",)}).set_index("claim_id")
    assert skipped.loc["C.RQ1.positive.CodeBERTScore", "status"] == claims.NOT_RUN
    assert "source pie skipped" in skipped.loc["C.RQ1.positive.CodeBERTScore", "reason"]
    assert skipped.loc["C.RQ4.local.CodeBLEU", "status"] == claims.HOLDS  # Table 5 has its rows: unaffected


def test_table5_carries_the_constant_score_trivial_model():
    base = _scored("b", 0.1).assign(df_score=[1.0, 0.5])  # mean label 0.75
    t = eff.table5({"CodeScore_test": base, "LoCaL": _scored("l", 0.7)}, ["CodeBLEU"]).set_index("Dataset")
    assert eff.constant_score({"CodeScore_test": base}) == pytest.approx(0.75)
    assert t.loc["CodeScore_test", eff.CONSTANT] == pytest.approx(0.25)  # |0.75 - 1|, |0.75 - 0.5|
    assert t.loc["LoCaL", eff.CONSTANT] == pytest.approx(0.5)  # |0.75 - 1|, |0.75 - 0|
    alone = eff.table5({"LoCaL": _scored("l", 0.7)}, ["CodeBLEU"])
    assert pd.isna(alone.loc[0, eff.CONSTANT])  # no CodeScore_test: no constant to take


def test_released_variants_are_counted_in_their_corner_under_each_threshold_set() -> None:
    from lcl.rq import region_checks

    paper = regions.Thresholds(0.65, 0.9, 0.1, 0.9, float("nan"), 0.05, "paper")
    ours = regions.Thresholds(0.85, 0.9, 0.15, 0.8, 0.0, 0.05, "squared")
    released = pd.DataFrame({"variant_type": ["OPT"] * 3 + ["MUT"] * 2, "benchmark": ["PIE", "PIE", "HumanEval", "PIE", "PIE"],
                             "SurfaceSim": [0.6, 0.8, 0.9, 0.95, 0.5], "df_score": [1.0, 0.85, 1.0, 0.0, 0.0]})
    t = region_checks.released_hits(released, paper, ours).set_index("Variants")
    assert t.loc["all OPT", "inside, paper's thresholds"] == 1  # only (0.6, 1.0) is left of 0.65 and above 0.9
    assert t.loc["all OPT", "inside, ours"] == 2  # 0.8 <= 0.85 and 0.85 >= 0.8
    assert t.loc["PIE fast programs", "n"] == 2 and t.loc["GPT-4 (HumanEval)", "inside, ours"] == 0
    assert t.loc["all MUT", "inside, paper's thresholds"] == 1
    assert t.loc["all OPT", "%, ours CI low"] < 66.67 < t.loc["all OPT", "%, ours CI high"]


def test_the_ablation_refits_without_each_substitute_and_without_the_floor() -> None:
    from lcl.rq import region_checks

    rng = np.random.default_rng(5)
    n = 200
    x, y = rng.random(n), rng.random(n)
    f = pd.DataFrame({"SurfaceSim": x, "df_score": y, "A": np.clip(x, 0, 1), "B": y, "S": np.clip(x + 0.1, 0, 1)})
    frames = {"LoCaL_balanced": f.iloc[:100], "CodeScore_test": f.iloc[100:]}
    fits = region_checks.ablation_fits(frames, ["A", "B", "S"], ["S"])
    t = region_checks.ablation(fits, frames, None, step=0.1, error="squared")
    assert list(t["Metrics"][:3]) == ["A, B, S", "A, B, S", "A, B"]
    assert list(t["region floor"][:2]) == [coverage.min_region(n), 1]
    assert list(t["floor rule"][:2]) == ["2% of the points", "none"]
    # on few points the 2% floor is one point too: the rule, not the count, says which rows have a floor
    small = {k: f.iloc[:20] for k, f in frames.items()}
    t_small = region_checks.ablation(region_checks.ablation_fits(small, ["A", "B", "S"], ["S"]), small, None,
                                     step=0.1, error="squared")
    assert list(t_small["region floor"][:2]) == [1, 1] and list(t_small["floor rule"][:2]) == ["2% of the points", "none"]
    assert (t["smallest region"].dropna() >= t["region floor"].dropna()[t["smallest region"].notna()]).all()
    assert t.iloc[-1]["Fitted on"] == "(the paper's fit)" and pd.isna(t.iloc[-1]["x_lo"])
    assert {"LoCaL_balanced SFD", "CodeScore_test DFS"} <= set(t.columns)


def test_the_increase_over_a_group_is_compared_with_the_papers_on_the_same_metrics() -> None:
    inc = pd.DataFrame({"Metric": ["A", "B", "S"], "increase": [0.5, 0.3, 0.1], "ratio": [3.0, 2.0, 1.5]})
    paper = {"A": (0.8, 0.2), "B": (0.7, 0.3), "S": (0.9, 0.1)}
    t = eff.increase_by_group(inc, {"all": ["A", "B", "S"], "plain": ["A", "B"]}, paper).set_index("Metrics")
    assert t.loc["all", "mean increase"] == pytest.approx(0.3)
    assert t.loc["plain", "mean increase"] == pytest.approx(0.4)
    assert t.loc["plain", "mean increase (paper's Table 5)"] == pytest.approx(0.5)  # (0.6 + 0.4) / 2, not S's 0.8
    assert t.loc["all", "ratio order (paper's Table 5)"] == "S > A > B"
    assert t.loc["plain", "ratio order (ours)"] == "A > B"


def test_a_benchmark_worst_only_by_its_makeup_is_not_worst_within_either_kind() -> None:
    # APPS holds mostly mutants (error 0.8), MBPP mostly optimised variants (error 0.1); within each kind
    # MBPP is the worse one, overall APPS is
    rows = ([("APPS", "MUT", 0.8)] * 9 + [("APPS", "OPT", 0.1)] + [("MBPP", "MUT", 0.9)]
            + [("MBPP", "OPT", 0.2)] * 9)
    scored = pd.DataFrame([{"benchmark": b, "variant_type": k, "df_score": 0.0, "M": e} for b, k, e in rows])
    overall = eff.mae_by_benchmark(scored, ["M"])
    within = eff.mae_by_benchmark_within_kind(scored, ["M"])
    assert eff.worst_benchmark(overall, "M") == {"all": "APPS"}
    assert eff.worst_benchmark(within, "M") == {"MUT": "MBPP", "OPT": "MBPP"}
    assert within.set_index(["variant_type", "benchmark"]).loc[("MUT", "APPS"), "benchmark's mutant share (%)"] == 90.0


def test_agreement_with_the_authors_joins_by_id_and_keeps_the_reimplementation_apart() -> None:
    rng = np.random.default_rng(3)
    n = 40
    theirs = rng.random(n)
    scored = pd.DataFrame({"id": [f"p{i}" for i in range(n)], "variant_type": ["OPT", "MUT"] * (n // 2),
                           "df_score": 0.0, "CodeBLEU": theirs, "CodeScore-style (retrained)": 1 - theirs})
    authors = pd.DataFrame({"id": [f"p{i}" for i in range(n)][::-1], "benchmark": "PIE", "variant_type": "OPT",
                            "df_score": 0.0, "CodeBLEU": theirs[::-1], "CodeScore": theirs[::-1]})
    t = eff.agreement_with_authors(scored, authors, ["CodeBLEU", "CodeScore-style (retrained)"])
    t = t.set_index(["Metric", "pairs"])
    assert t.loc[("CodeBLEU", "all"), "Spearman rho"] == 1.0  # same values once joined by id, not by row
    assert t.loc[("CodeBLEU", "all"), "mean |ours - authors'|"] == 0.0
    assert t.loc[("CodeScore-style (retrained)", "all"), "Spearman rho"] == -1.0
    assert t.loc[("CodeScore-style (retrained)", "OPT"), "n"] == n // 2
    assert t.loc[("CodeBLEU", "PIE (programs)"), "n"] == n  # per source benchmark, from the release


def test_agreement_by_level_names_each_benchmark_with_its_rho() -> None:
    agree = pd.DataFrame({"Metric": ["M"] * 3, "pairs": ["all", "HumanEval (functions)", "PIE (programs)"],
                          "n": [20, 10, 10], "Spearman rho": [0.5, 0.9, -0.2]})
    assert eff.agreement_by_level(agree) == ["- M: functions HumanEval +0.900 (n = 10); programs PIE -0.200 (n = 10)."]
    assert eff.agreement_by_level(agree.iloc[:2]) == []


def test_labelled_keeps_pairs_with_a_score_and_an_empty_frames_columns() -> None:
    """-1 (every run excluded) and a missing score are left out; an empty frame keeps its columns."""
    f = pd.DataFrame({"id": ["a", "b", "c", "d"], "reference": ["r"] * 4, "df_score": [0.5, -1.0, np.nan, 0.0]})
    assert eff.labelled(f).id.tolist() == ["a", "d"]
    empty = f.iloc[:0]
    assert list(eff.labelled(empty).columns) == ["id", "reference", "df_score"]


def test_rq1_sentences_give_the_sign_from_the_interval_and_count_crystalbleu_zeros() -> None:
    t3 = pd.DataFrame({"Metric": ["CodeBLEU", "CrystalBLEU"], "rho": [0.85, 0.02], "CI low": [0.8, -0.05],
                       "CI high": [0.9, 0.09], "p-value": [1e-9, 0.4], "rho (paper)": [0.8497, 0.5663],
                       "Shapiro p (SurfaceSim)": [0.001, 0.001], "Shapiro p (metric)": [0.001, 0.2]})
    crystal = pd.DataFrame({"Metric": ["CrystalBLEU", "CrystalBLEU[corpus]"], "zeros": [12, float("nan")],
                            "rho": [0.02, 0.5]})
    lines = correlation.found(t3, crystal, 100)
    assert lines[0].endswith("paper 0.8497. Correlation positive.")
    assert lines[1].endswith("Correlation not distinguishable from 0.")
    assert lines[2].startswith("- Shapiro-Wilk does not reject normality for some variable")  # CrystalBLEU's 0.2
    assert lines[3].startswith("- CrystalBLEU with the per-pair ignore set (the paper's way) gives exactly 0 on 12 of "
                               "100 pairs and rho = 0.020; with the corpus ignore set (sensitivity) it gives 0 on 0 "
                               "pairs and rho = 0.500")
    assert correlation.found(t3.assign(rho=float("nan")), crystal, 0)[0].startswith("- **Not computed:** Spearman on 0")
