"""The tables, sentences and findings the notebooks used to build in their own cells, now library
functions (README, "Changing the library"): each gives the expected values on a tiny input."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pytest

from lcl.core.profiles import get as get_profile
from lcl.core.records import Finding, finding_slug
from lcl.engine.regions import Thresholds
from lcl.rq import calibration as cal
from lcl.rq import effectiveness, region_checks, rq5, rq5_capacity
from lcl.rq import red_herrings as rh
from lcl.rq import robustness as rb
from lcl.rq import sparse_tests as X
from lcl.rq import trained_metric as tm
from lcl.study import curation, makeup

SMOKE = get_profile("smoke")


# ----------------------------------------------------------------------------- records
def test_finding_slug_keeps_letters_and_digits() -> None:
    assert finding_slug("CodeBERTScore[MiniLM]") == "CodeBERTScore_MiniLM"
    assert finding_slug("CodeScore-style (retrained)") == "CodeScore_style_retrained"
    assert cal.slug("CodeBERTScore[MiniLM]") == "codebertscore_minilm"  # X4 / X5 ids are lower case


# ----------------------------------------------------------------------------- X1 (notebook 09)
def _pair(i: int, bench: str, kind: str, df_c: float, verdicts: str, own: tuple[int, ...],
          archived: float | None) -> dict:
    row = {"id": f"{bench}/{kind}{i}", "benchmark": bench, "variant_type": kind, "level": "function",
           "df_score": df_c, "run_scores": [archived],
           "counts": {"matches": 8, "mismatches": 2, "timeouts": 0, "crashes": 0, "invalid": 0, "skipped": 0}}
    score = X.prefix_score(verdicts, len(verdicts))
    return X.pair_row(row, X.Run0(verdicts, score, False, 0, 0.5, own))  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def x1() -> dict:
    tab = pd.DataFrame([
        _pair(0, "HumanEval", "MUT", 0.4, "M" * 20 + "X" * 20, (0, 1), 0.5),  # own tests say 1, (c) < 1
        _pair(1, "HumanEval", "OPT", 1.0, "M" * 40, (0, 1), 1.0),
        _pair(2, "PIE", "MUT", 0.0, "X" * 40, (), 0.0),
        _pair(3, "PIE", "OPT", 0.99, "M" * 40, (), 0.5),  # does not reproduce: near-perfect band, (b) says 1
    ])
    fe = pd.concat([X.sparse_false_equivalence(tab).assign(dataset=X.LOCAL),
                    X.sparse_false_equivalence(tab).assign(dataset=X.LOCAL_ALL)], ignore_index=True)
    repro = pd.concat([X.reproduction(tab).assign(dataset="LoCaL"), X.reproduction(tab).assign(dataset="LoCaL-all")])
    near = pd.concat([X.near_perfect(tab).assign(dataset=X.LOCAL), X.near_perfect(tab).assign(dataset=X.LOCAL_ALL)],
                     ignore_index=True)
    widths = pd.concat([X.width_distribution(tab).assign(dataset=X.LOCAL),
                        X.width_distribution(tab).assign(dataset=X.LOCAL_ALL)], ignore_index=True)
    paper_n, ours_n = {"function": 2000, "program": 1000}, {"function": 40, "program": 30}
    summary, enough = X.convergence_table(tab, paper_n)
    return {"tab": tab, "fe": fe, "repro": repro, "near": near, "widths": widths, "summary": summary,
            "enough": enough, "paper_n": paper_n, "ours_n": ours_n}


def test_not_reproduced_lists_each_pair_once_with_its_flag(x1: dict) -> None:
    off = X.not_reproduced(x1["tab"], x1["tab"])
    assert list(off.columns) == X.NOT_REPRODUCED_COLUMNS
    assert off.id.tolist() == ["PIE/OPT3"] and not off.time_dependent.any()


def test_convergence_table_adds_the_enough_and_the_paper_n(x1: dict) -> None:
    s, enough = x1["summary"], x1["enough"]
    assert set(s.level) == {"all", "function"}
    assert enough == {"all": 40, "function": 40}  # pair 0 stays 0.5 away until the whole run
    assert (s.paper_N[s.level == "function"] == 2000).all() and s.paper_N[s.level == "all"].isna().all()
    assert s.N.tolist() == [10, 20, 40, 10, 20, 40]


def test_mae_table_compares_each_cem_with_each_ground_truth() -> None:
    per_pair = pd.DataFrame({"id": ["a", "b", "c"], "df_a": [1.0, None, 0.0], "df_b": [1.0, 0.5, 0.0]})
    scored = pd.DataFrame({"id": ["a", "b", "c"], "df_score": [0.5, 0.5, 0.0], "CodeBLEU": [1.0, 0.5, 0.0]})
    t = X.mae_table(scored, per_pair, ["CodeBLEU"], n_boot=50, seed=0)
    got = t.set_index(["pairs", "ground_truth"])["mae"]
    assert got[("pairs with (a), (b), (c)", "(c) full")] == pytest.approx(0.25)  # pairs a and c
    assert got[("pairs with (a), (b), (c)", "(a) own tests")] == 0.0
    assert got[("all pairs, (b) vs (c)", "(c) full")] == pytest.approx(0.5 / 3)
    assert ("all pairs, (b) vs (c)", "(a) own tests") not in got.index


def test_x1_findings_and_sentences_state_the_tables(x1: dict) -> None:
    found = X.findings(x1["fe"], x1["repro"], x1["widths"], x1["summary"], x1["enough"], x1["ours_n"], x1["paper_n"])
    by = {f.finding_id: f for f in found}
    own = by["X1.own_tests_false_equivalence"]
    assert (own.value, own.n) == (0.5, 2)  # HumanEval's two pairs have own tests; they call pair 0 equivalent wrongly
    assert own.statement.startswith("Own benchmark tests call a LoCaL pair equivalent that the full label does not: "
                                    "50.0% of 2 pairs")
    assert by["X1.first100_false_equivalence"].value == 0.25  # pair 3 (df(c) = 0.99) of the four
    assert by["X1.run0_reproduced"].value == 0.75
    assert by["X1.enough_n_function"].value == 40.0 and "X1.enough_n_program" not in by
    assert "X1.abs_error_at_100_p90" not in by  # N = 40 here: no df(100)
    for f in found:
        f.check()
    lines = X.what_we_found(x1["fe"], x1["repro"], x1["near"], x1["widths"], x1["summary"], x1["enough"],
                            x1["ours_n"], x1["paper_n"], X.not_reproduced(x1["tab"]), pd.DataFrame(columns=["pairs"]))
    assert lines[0].startswith("- Run 0 reproduced the archived run_scores[0] exactly for 3 of 4 LoCaL pairs; over "
                               "both samples 1 pair(s) did not")
    assert lines[2] == ("- For (a), the worst stratum on LoCaL is HumanEval MUT: 100.0% (1/1, CI 20.7%-100.0%); "
                        "the worst stratum before curation is HumanEval MUT: 100.0% (1/1, CI 20.7%-100.0%).")
    assert "Near-perfect band (0.98 <= df < 1): 25.0% of LoCaL pairs (1/4)" in lines[3]
    assert lines[-1].endswith("functions: 40 (only the whole run itself) (ours 40, paper 2000); the paper's N is "
                              "50x (functions) that.")


def test_worst_stratum_without_any_pair() -> None:
    assert X.worst_stratum_text(pd.DataFrame(), "on LoCaL") == "no benchmark x kind stratum has such a pair on LoCaL"


# ----------------------------------------------------------------------------- X4 / X5 (notebook 11)
def _local(n: int = 24) -> pd.DataFrame:
    rng = np.random.default_rng(1)
    df = rng.uniform(0, 1, n)
    return pd.DataFrame({"id": [f"p{i}" for i in range(n)], "benchmark": ["HumanEval", "MBPP", "APPS", "PIE"] * (n // 4),
                         "task": [f"t{i % 6}" for i in range(n)], "level": "function",
                         "reference": ["def f(x):\n    return x\n"] * n, "candidate": ["def f(x):\n    return x + 1\n"] * n,
                         "variant_type": ["MUT", "OPT"] * (n // 2), "df_score": df, "SurfaceSim": rng.uniform(0, 1, n),
                         "CodeBLEU": np.clip(df + rng.normal(0, 0.2, n), 0, 1),
                         "region": ["SFD", "DFS", "Control"] * (n // 3)})


def test_ece_levels_has_every_grouping_once() -> None:
    local = _local()
    t = cal.ece_levels({"LoCaL": local, "CodeScore_test": local.iloc[:12]}, ["CodeBLEU"], n_boot=20, seed=0, bins=5)
    assert list(t.columns) == cal.ECE_LEVEL_COLUMNS
    groupings = t.groupby("dataset").grouping.unique().to_dict()
    assert list(groupings["LoCaL"]) == ["all", "region", "benchmark"]
    assert list(groupings["CodeScore_test"]) == ["all", "region"]
    assert (t[t.grouping != "all"].level != cal.ALL).all()
    assert set(t[(t.dataset == "LoCaL") & (t.grouping == "benchmark")].level) == {"APPS", "HumanEval", "MBPP", "PIE"}


def test_recalibration_splits_and_the_note_when_no_benchmark_is_left() -> None:
    local = _local()
    t, notes = cal.recalibration_splits(local, ["CodeBLEU"], ("HumanEval", "MBPP"), 0.5, n_boot=20, seed=0)
    assert list(t.columns) == cal.RECAL_SPLIT_COLUMNS and not notes
    assert t.split.str.startswith("benchmark: fit HumanEval + MBPP, test APPS + PIE").any()
    assert t.split.str.startswith("tasks: random 50% of tasks tested (seed 0").any()
    only = local[local.benchmark == "HumanEval"]
    t, notes = cal.recalibration_splits(only, ["CodeBLEU"], ("HumanEval",), 0.5, n_boot=20, seed=0)
    assert not t.split.str.startswith("benchmark").any()
    assert notes == ["Benchmark split skipped: the test benchmarks are not available here (present: HumanEval); "
                     "without the data mirror only HumanEval exists."]


def test_x4_findings_state_the_ece_table() -> None:
    local = _local()
    ece = cal.ece_levels({"LoCaL": local}, ["CodeBLEU"], n_boot=20, seed=0, bins=5)
    recal, _ = cal.recalibration_splits(local, ["CodeBLEU"], ("HumanEval", "MBPP"), 0.5, n_boot=20, seed=0)
    found, lines = cal.findings(ece, recal, ["CodeBLEU"], local, ("HumanEval", "MBPP"))
    row = ece[(ece.grouping == "all") & (ece.metric == "CodeBLEU")].iloc[0]
    by = {f.finding_id: f for f in found}
    assert by["X4.ece.codebleu"].value == float(row.ece) and by["X4.ece.surfacesim"].n == len(local)
    assert any(i.startswith("X4.recal_") for i in by) and "X4.recal_minus_constant_max" in by
    assert lines[0].startswith("- ECE on LoCaL (all pairs): SurfaceSim ")
    assert lines[-1].startswith("- Why: on the fitting pairs the scores and df_score are ordered CodeBLEU rho +")
    found, lines = cal.findings(ece, recal.iloc[:0], ["CodeBLEU"], local, ("HumanEval", "MBPP"))
    assert [f.finding_id for f in found] == ["X4.ece.surfacesim", "X4.ece.codebleu"]
    assert lines[-1] == "- Recalibration across benchmarks: skipped (only APPS, HumanEval, MBPP, PIE here)."


@dataclass
class _Released:
    seen: set[str]
    label_mean: float


class _Constant:
    """A metric that scores every pair 0.5."""

    def score(self, references: list[str], candidates: list[str], lang: str, ids: list[str] | None = None) -> list[float]:
        return [0.5] * len(references)


def test_held_out_evaluation_without_a_model_is_empty() -> None:
    t, notes, scored = tm.held_out_evaluation(_local(), _local().iloc[:0], None, None, ["CodeBLEU"], n_boot=20, seed=0)
    assert list(t.columns) == tm.MAE_COLUMNS and t.empty and notes == [] and scored == {}
    assert tm.cost(None, None, {}, 10, 0) == {}
    assert list(tm.cost_table({}).columns) == tm.COST_COLUMNS


def test_held_out_evaluation_scores_the_populations_it_has() -> None:
    local = _local()
    released = _Released(set(), 0.5)
    t, notes, scored = tm.held_out_evaluation(local, local.iloc[:0], released, _Constant(), ["CodeBLEU"],  # type: ignore[arg-type]
                                              n_boot=20, seed=0)
    assert notes == ["CodeScore_test (unseen pairs): no pairs here."]
    assert list(scored) == [tm.HELD_OUT, "LoCaL training benchmarks, unseen pairs (sensitivity: same tasks as training)"]
    held = t[(t.population == tm.HELD_OUT) & (t.grouping == "all")].set_index("predictor")
    pie = local[local.benchmark == "PIE"]
    assert held.loc[tm.LABEL, "mae"] == pytest.approx(round(float((pie.df_score - 0.5).abs().mean()), 4))
    assert held.loc[tm.MEAN, "minus_released"] == 0.0  # the mean predictor answers 0.5 too
    assert set(t[t.population == tm.HELD_OUT].grouping) == {"all", "region", "variant_type"}


def test_x5_findings_state_the_evaluation() -> None:
    x5 = pd.DataFrame([
        {"population": tm.HELD_OUT, "grouping": "all", "level": "all", "predictor": p, "n": 10, "mae": m,
         "ci_low": m - 0.05, "ci_high": m + 0.05, "minus_released": round(m - 0.2, 4),
         "minus_released_ci_low": m - 0.25, "minus_released_ci_high": m - 0.15}
        for p, m in ((tm.LABEL, 0.2), ("CodeBLEU", 0.3), ("CrystalBLEU", 0.4), (tm.MEAN, 0.25), (cal.SURFACE, 0.5))])
    cost = {"train_s": 10.0, "training pairs": 20, "train_s_per_pair": 0.5, "score_s_per_pair": 0.002, "timed_pairs": 5}
    found, lines = tm.findings(x5, ["CodeBLEU", "CrystalBLEU"], cost, pd.DataFrame(columns=["population"]),
                               pd.DataFrame())
    by = {f.finding_id: f for f in found}
    assert by["X5.mae_best_cem"].quantity == "MAE of the best CEM (CodeBLEU) on held-out PIE pairs"
    assert by["X5.best_cem_minus_released"].statement == (
        "The released model's MAE is 0.100 lower than the best CEM's on held-out PIE pairs (CI excludes 0).")
    assert by["X5.mean_minus_released"].statement.endswith("0.050 more than the released model (CI includes 0).")
    assert lines == [f"- Held-out PIE pairs (n = 10): {tm.LABEL} MAE 0.200 [0.150, 0.250]; best CEM CodeBLEU 0.300; "
                     "mean predictor 0.250; SurfaceSim 0.500.",
                     "- Cost: training 10.0 s (500.0 ms per pair); scoring 2.0 ms per pair on CPU."]
    assert tm.ci_words(float("nan"), 1.0) == " (no CI: fewer than 2 pairs)."


# ----------------------------------------------------------------------------- RQ5 (notebook 07)
def _runs() -> pd.DataFrame:
    rows = []
    for p, base in ((0, 0.4), (100, 0.2)):
        for k in range(2):
            for name in rq5.RQ5_SETS:
                rows.append({"p": p, "model": k, "seed": k, "set": name, "MAE": base + 0.02 * k,
                             "MAE (mean baseline)": 0.35, "n_eval": 4, "n_train": 8, "n_val": 1, "n_local": p // 10,
                             "steps": 5, "best_val_MAE": 0.3, "train_s": 2.0 + k, "model_hash": "h"})
    return pd.DataFrame(rows, columns=rq5.RUN_COLUMNS)


def test_setup_table_and_label_means() -> None:
    pool = [{"id": str(i), "df_score": d} for i, d in enumerate((0.0, 1.0, 0.5))]
    table, mean = rq5.setup_table(pool, pool[:1], [], 1, pool[1:], [])  # type: ignore[arg-type]
    assert table.pairs.tolist() == [3, 1, 0, 1, 2, 0]
    assert mean["base"] == 0.5 and mean["LoCaL"] == 0.0 and mean["Baseline"] == 0.75 and math.isnan(mean["LoCaL_test"])
    assert rq5.settings_text({"mode": "fast", "patience": 3}) == "mode=fast, patience=3"


def test_table6_notes_name_the_sets_and_what_was_removed() -> None:
    pool = [{"id": str(i), "df_score": 1.0} for i in range(3)]
    notes = rq5.table6_notes("M", {"mode": "fast"}, "CPU", SMOKE, base_pool=pool, base_dropped={"timeout": 2},  # type: ignore[arg-type]
                             local_pool=pool[:2], size=2, pie=pool, baseline=pool[:1], local_test=[],
                             removed={})
    assert notes[0] == "Model: M, MiniLM cross-encoder fine-tuned on CPU, not CodeScore; settings (fixed across p): mode=fast; device CPU."
    assert notes[3].endswith("dropped: timeout = 2.")
    assert "(the LoCaL pool is the smaller one" in notes[4]
    assert notes[-1] == "Removed from the training pools: nothing."


def test_runs_table_not_run_is_empty_with_the_columns() -> None:
    t = rq5.runs_table([], [], [], (0, 100), SMOKE, 0, {"mode": "fast"}, run=False)
    assert t.empty and list(t.columns) == rq5.RUN_COLUMNS


def test_table6_shown_summary_and_result_lines() -> None:
    runs = _runs()
    t6 = rq5.table6(runs)
    shown = rq5.table6_shown(t6)
    assert list(shown.columns) == ["0%", "100%"]
    assert shown.loc["LoCaL_test (ours)", "0%"] == "0.41 (±0.01)"
    assert shown.loc["LoCaL_test (mean baseline)", "100%"] == "0.35"
    row = rq5.summary_row("fine-tuned", t6)
    assert row["LoCaL_test MAE p=100"] == pytest.approx(0.21) and row["models per p"] == 2
    assert row["LoCaL_test reduction %"] == pytest.approx(100 * (0.41 - 0.21) / 0.41)
    sens = rq5.sensitivity_table([("a", t6), ("b", pd.DataFrame())])
    assert sens.run.tolist() == ["a", "b"] and sens.loc[1].drop("run").isna().all()
    gain = rq5.learned_gain(runs)
    lines = rq5.result_lines(t6, t6, None, gain, (0, 100), 2)
    assert lines[0].startswith("- Fine-tuned (2 model(s) per p): LoCaL_test MAE falls from 0.410 ± 0.014 (p = 0)")
    assert lines[2] == ("- Fine-tuned vs the mean baseline at p = 0 (MAE, mean over models): Combined 0.410 vs 0.350 "
                        "(not better); Baseline 0.410 vs 0.350 (not better); LoCaL_test 0.410 vs 0.350 (not better).")
    assert lines[5].startswith("- Learned gain over the mean predictor at p = 100: Combined +0.140 [")
    assert len(lines) == 6
    note = rq5.headline_note(rq5.headline(t6), {"RQ5.local_test_reduction": 85, "RQ5.baseline_increase": 9.1,
                                                "RQ5.combined_drop": 60})
    assert note.startswith("p = 100 vs p = 0: LoCaL_test MAE reduction 48.8% (paper ≈85%), Baseline MAE change -48.8%")
    assert rq5_capacity.finding_lines(pd.DataFrame(), (0, 100)) == []


def test_cost_table_puts_the_measured_rows_before_the_estimates(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rq5, "calibrate", lambda rows, cfg, batch=16: {"train_s_per_pair": 0.1,
                                                                         "predict_s_per_pair": 0.01,
                                                                         "first_pass_s_per_pair": 0.001})
    pool = [{"id": "1", "df_score": 1.0}]
    cost = rq5.cost_table([(_runs(), "fine-tuned", {"mode": "fast"})], pool, "smoke", get_profile("full"), "CPU")  # type: ignore[arg-type]
    assert cost.run.tolist() == ["fine-tuned", "estimate: this CPU setting, full profile grid",
                                 "estimate: paper-like fine-tuning, full profile grid"]
    assert cost.loc[0, "train s (all models)"] == 2 * (2.0 + 3.0)
    assert cost.loc[0, "settings"] == "mode=fast"


# ----------------------------------------------------------------------------- X2 / X3 (notebook 10)
def test_x2_findings() -> None:
    most = pd.DataFrame([{"metric": "CodeBERTScore[MiniLM]", "perturbation": "rename", "side": "variant", "kind": "OPT",
                          "shift": -0.1, "shift_ci_low": -0.2, "shift_ci_high": 0.0, "n": 7}])
    rejected = pd.DataFrame({"perturbed": [6, 4], "verified": [5, 3], "verified_by_label_verdicts": [1, 0],
                             "behaviour_changed": [1, 0]})
    found = rb.findings(most, rejected)
    assert [f.finding_id for f in found] == ["X2.largest_shift.CodeBERTScore_MiniLM", "X2.rejected_share"]
    assert found[1].value == 0.2 and found[1].statement == (
        "2 of 10 perturbed programs (20.0%) were not verified equivalent to their original (1 changed behaviour, "
        "1 could not be judged) and were dropped.")


def test_x3_findings_warn_below_the_group_minimum() -> None:
    counts = pd.DataFrame([{"groups_matched": 2, "groups": 5, "equivalent_matched": 3, "killed_matched": 4,
                            "mutants": 20}])
    auc = pd.DataFrame([{"benchmark": rh.ALL, "metric": "CodeBLEU", "auroc_within": 0.4, "auroc_within_ci_low": 0.1,
                         "auroc_within_ci_high": 0.7, "n_groups": 2},
                        {"benchmark": rh.ALL, "metric": "SurfaceSim", "auroc_within": float("nan"),
                         "auroc_within_ci_low": float("nan"), "auroc_within_ci_high": float("nan"), "n_groups": 0}])
    found = rh.findings(counts, auc, min_groups=10)
    assert [f.finding_id for f in found] == ["X3.matched_groups", "X3.auroc_within.CodeBLEU"]
    assert found[0].statement.startswith("2 of 5 task x operator groups hold both an equivalent (df = 1) and a killed")
    assert found[1].statement.endswith("the CI includes 0.5 (chance), but with fewer than 10 groups the interval says "
                                       "little.")


def test_x2_and_x3_sentences() -> None:
    shifts = pd.DataFrame({"metric": ["SurfaceSim", "CodeBLEU", "CodeBLEU", "CodeBLEU"],
                           "perturbation": ["rename", "rename", "comments", "rename" + rb.STORED],
                           "shift_ci_low": [0.1, 0.1, -0.1, 0.2], "shift_ci_high": [0.3, 0.2, 0.1, 0.3]})
    most = pd.DataFrame([{"metric": "CodeBLEU", "perturbation": "rename", "side": "variant", "kind": "OPT",
                          "shift": 0.15, "shift_ci_low": 0.1, "shift_ci_high": 0.2, "n": 7, "mean_before": 0.5,
                          "mean_after": 0.65}])
    rejected = pd.DataFrame({"perturbed": [10], "verified": [8], "verified_by_label_verdicts": [1],
                             "behaviour_changed": [1]})
    lines = rb.what_we_found(shifts, most, rejected, "Pairs: all.")
    assert lines == [
        "- 10 perturbed programs were fuzzed; 8 verified equivalent (1 of them by the labelled pair's verdicts), "
        "1 changed behaviour (perturbation bugs), 1 could not be judged. Pairs: all.",
        "- Of 2 (CEM x perturbation x side) cells, 1 have a mean shift whose 95% CI excludes 0: the CEM's score moved "
        "although the behaviour did not (sensitivity rows not counted).",
        "- CodeBLEU: largest shift +0.150 [+0.100, +0.200] under rename (OPT, variant, n = 7; mean score 0.500 -> "
        "0.650)."]
    counts = pd.DataFrame([{"groups_matched": 12}])
    auc = pd.DataFrame([{"benchmark": rh.ALL, "metric": m, "auroc_within": a, "auroc_within_ci_low": lo,
                         "auroc_within_ci_high": hi} for m, a, lo, hi in (("SurfaceSim", 0.6, 0.55, 0.7),
                                                                         ("CodeBLEU", 0.45, 0.3, 0.6))])
    assert rh.what_we_found(counts, auc, 10) == [
        "- X3: SurfaceSim 0.60 [0.55, 0.70], CodeBLEU 0.45 [0.30, 0.60] (within-group AUROC, equivalent vs killed "
        "mutants, 12 matched groups; SurfaceSim, the form-only reference line, 0.60).",
        "- X3 with 12 matched groups: CI includes 0.5 for CodeBLEU; above 0.5 for SurfaceSim; below 0.5 (equivalent "
        "mutants scored *lower* than killed ones) for none. The pooled AUROC and the per-benchmark rows of `x3_auroc` "
        "are the sensitivity rows."]


# ----------------------------------------------------------------------------- notebooks 02 and 05
def test_curation_sentences() -> None:
    assert curation.rule_sentence(pd.DataFrame(), None).startswith("**Rule applied:** a mutant is a LoCaL pair when")
    evidence = pd.DataFrame({"benchmark": "all", "kind": ["MUT", "OPT"], "pairs": [3, 2], "min df": [0.0, 0.6],
                             "max df": [0.4, 1.0], "mean df": [0.2, 0.8]})
    s = curation.rule_sentence(evidence, True)
    assert "the 3 mutants lie between 0 and 0.4 (mean 0.200)" in s and "separates them in every benchmark." in s
    mk = pd.DataFrame({"kind": ["MUT", "OPT"], "level": ["function", "program"], "Count (paper)": [10, 4],
                       curation.LOCAL_CURATED: [5, 1]})
    assert curation.sample_sentence(mk, 0.25, 3, 6) == (
        "**Sample:** fraction 0.250 of Table 2's counts, set by the OPT program-level cell (1 curated pairs for "
        "the paper's 4): LoCaL holds 3 of the 6 curated pairs.")
    assert curation.sample_sentence(mk.iloc[:0], 0.0, 0, 0).endswith("set by the (no cell has pairs): LoCaL holds 0 "
                                                                     "of the 0 curated pairs.")


def test_makeup_sentences() -> None:
    assert makeup.fmt_mean(None) == "—" and makeup.fmt_mean(0.12345) == "0.123"
    t2 = pd.DataFrame({"Variant Type": ["Mutated"], "Avg. df_score (paper)": [0.3], "Total (paper)": [500.0]})
    t2s = pd.DataFrame(columns=["Source", "Variant Type"])
    assert makeup.mutant_gap_note([], [], t2, t2s, SMOKE) == "- No mutant was labelled in this run."
    all_pairs = [{"variant_type": "MUT", "df_score": d} for d in (1.0, 0.5, 0.0, 0.2)]
    note = makeup.mutant_gap_note(all_pairs, all_pairs[2:], t2, t2s, SMOKE)  # type: ignore[arg-type]
    assert note.startswith("- **Curation of the mutants:** before it, our 4 mutants have mean df_score 0.425; 25.0% "
                           "are equivalent (df = 1). The 2 kept (df < 0.5) have mean 0.100 (paper 0.3, 500 mutants).")
    assert " 50.0% of LoCaL-all's mutants differ on some inputs only" in note


def test_with_sim_adds_the_recorded_surface_sim() -> None:
    rows = [{"id": "a", "reference": "x = 1", "candidate": "x = 2", "benchmark": "HumanEval", "task": "t",
             "level": "function", "variant_type": "MUT", "df_score": 0.0, "surface_sim": 0.9, "in_local": True}]
    f = effectiveness.with_sim(rows)  # type: ignore[arg-type]
    assert f.SurfaceSim.tolist() == [0.9] and "opt_source" in f.columns


def test_region_check_sentences() -> None:
    t = pd.DataFrame({"Thresholds": ["paper's", "ours (Algorithm 2)"], "Dataset": ["LoCaL_balanced"] * 2, "n": [10, 10],
                      "SFD": [3, 4], "DFS": [2, 1]})
    assert region_checks.paper_threshold_sentence(t) == (
        "- Under the paper's thresholds: LoCaL_balanced: SFD 3, DFS 2 of 10 (the paper's counts in the table above).")
    assert region_checks.paper_threshold_sentence(t.iloc[1:]).startswith("- **Not computed:** the counts under the "
                                                                         "paper's thresholds;")
    released = pd.DataFrame({"variant_type": ["OPT", "OPT", "MUT"], "benchmark": ["PIE", "PIE", "HumanEval"],
                             "SurfaceSim": [0.2, 0.9, 0.95], "df_score": [1.0, 1.0, 0.0]})
    th = Thresholds(0.3, 0.7, 0.3, 0.7, 0.0, 0.05, "squared")
    s = region_checks.released_sentence(region_checks.released_hits(released, th, th))
    assert s.startswith("- The authors' released variants under the paper's thresholds: 1 of 2 optimised in DFS (50.0%")
    assert s.endswith("Under ours: 50.0% and 100.0%.")
    assert region_checks.released_sentence(pd.DataFrame({"Variants": [], "n": []})).startswith("- **Not computed:**")
    abl = pd.DataFrame({"Fitted on": [region_checks.OUR_POINTS, "released"], "Metrics": ["all four", "paper's"],
                        region_checks.FLOOR_RULE: ["5%", "5%"], "x_lo": [0.3, 0.65], "x_hi": [0.8, 0.9],
                        "y_lo": [0.2, 0.1], "y_hi": [0.9, 0.9]})
    assert region_checks.ablation_sentence(abl) == (
        "- Algorithm 2 ablation: on our points, x_lo is 0.30 and x_hi 0.80 over 1 metric sets (first fitted row, "
        "all four: 0.30 / 0.80); paper's on released: 0.65 / 0.90 / 0.10 / 0.90 (x_lo / x_hi / y_lo / y_hi; the "
        "paper's in the last row of the table).")
