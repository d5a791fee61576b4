"""Notebook 04's sentences and shown tables, computed from small hand-set Table 4s."""

from __future__ import annotations

from collections import Counter

import pandas as pd
import pytest

from lcl.rq import distinguish as D
from lcl.rq import rq2_findings as F
from lcl.study.rq2_pool import LOCAL, PIE_PAIRS

from .test_distinguish import _synthetic


def _t4() -> pd.DataFrame:
    scored, reps = _synthetic()
    scored = scored.rename(columns={"M": "CodeBLEU"})
    return D.with_paper(D.table4(D.repetition_scores(scored, reps, columns=["SurfaceSim", "CodeBLEU"])))


def test_table4_sentences_read_the_table_and_the_paper_columns() -> None:
    t4 = _t4()
    lines = F.table4_sentences(t4, k=2)
    # CodeBLEU: d orig 3.17 > 1, d repl 0.60 < 1 in the synthetic table
    assert lines[0] == ("- Table 4 (mutants: LoCaL's df = 0 mutants, every benchmark (the authors' script)): "
                        "d > 1 on ds_orig: CodeBLEU of 1 CEMs (paper: all four).")
    assert lines[1] == "- d < 1 on ds_replaced: CodeBLEU of 1 (paper: all four)."
    drop = t4.set_index("metric").loc["CodeBLEU", "drop %"]
    paper_drop = t4.set_index("metric").loc["CodeBLEU", "drop % (paper)"]
    assert lines[2] == f"- Drop in d: CodeBLEU {drop:.1f}% (paper {paper_drop})."
    assert lines[-1].startswith("- Sizes: 2 equivalent / 2 cross / 2 mutant pairs per repetition")
    surface = F.surface_sentence(t4)[0]
    assert surface.startswith("- SurfaceSim: equivalent pairs 0.83 (±0.04)") and surface.endswith(
        "the replaced non-equivalents look more alike than the equivalent pairs.")
    assert F.surface_sentence(t4[t4.metric != D.SURFACE_LABEL]) == []


def test_the_constant_sentence_counts_repetitions_on_each_side() -> None:
    scored, reps = _synthetic()
    scored = scored.rename(columns={"M": "CodeBLEU"})
    vs = D.against_constant(D.repetition_scores(scored, reps, columns=["CodeBLEU"]))
    assert F.constant_sentence(vs, ["CodeBLEU"]) == [
        "- Against a constant score (d = 1 in every repetition): CodeBLEU ds_orig 2 of 2 repetitions above 1, "
        "ds_replaced 2 of 2 below 1."]
    assert F.constant_sentence(vs.iloc[0:0], ["CodeBLEU"]) == []


def test_cost_sentences_need_a_measurement_or_a_realised_rate() -> None:
    assert F.cost_sentences(None, 10, 100, None, []) == []
    ledger = Counter({"mutants fuzzed": 400, "fuzzed after the pool target was reached (not used)": 70,
                      "kept: df_score = 0": 100})
    cost = {"sample": {"candidates": 40, "df0": 10, "cpu_s": 200.0}}
    first, realised = F.cost_sentences(cost, 10, 100, 3300, [ledger])
    assert "4.0 candidates per df = 0 mutant, so 10 x 100 fresh mutants need about 4000 candidates" in first
    assert first.endswith("the first 3300 candidates of the population's seeded order, the ones whose labels are "
                          "archived; the repetitions draw from those.")
    assert realised == "- Realised in this profile's repetitions: 3.3 candidates examined per df = 0 mutant kept " \
                       "(screened ones included)."


def test_population_sentences_skip_a_population_without_mutants() -> None:
    scored, reps = _synthetic()
    scored = scored.rename(columns={"M": "CodeBLEU"})
    long = D.repetition_scores(scored, reps, columns=["SurfaceSim", "CodeBLEU"])
    t4 = D.with_paper(D.table4(long))
    pools = {PIE_PAIRS: [[{"task": "PIE/a", "reference": "x = 1\ny = 2"}], [{"task": "PIE/b", "reference": "z = 3"}]],
             LOCAL: [[], []]}
    reps = [D.Repetition(r.r, r.seed, [{**row, "reference": "a\n\nb\nc"} for row in r.eq], r.neq_orig, r.neq_repl)
            for r in reps]
    lines = F.population_sentences(t4, F.population_tables({PIE_PAIRS: long, LOCAL: long}), pools, reps)
    assert len(lines) == 1 and lines[0].startswith("- fresh mutants of the slow programs of the PIE pairs: SurfaceSim")
    assert "from 2 programs of mean 2 non-blank lines (slow programs of the equivalent pairs: 3)" in lines[0]
    assert lines[0].endswith("NEQ score on ds_replaced: CodeBLEU 0.93; d on ds_replaced: CodeBLEU 0.60 (±0.10).")


def test_shown_table4_prints_mean_and_std_as_the_paper_does() -> None:
    shown = F.shown_table4(_t4()).set_index("metric")
    assert shown.loc["CodeBLEU", "EQ"] == "0.55 (±0.07)"
    assert list(shown.columns[-3:]) == ["d ds_orig (paper)", "d ds_replaced (paper)", "drop % (paper)"]


def test_small_helpers() -> None:
    assert F.short_repetitions([[1, 2], [1], []], 2) == [1, 2]
    assert F.counted(Counter({"a": 1, "b": 2})) == ["a = 1", "b = 2"]
    ledger = pd.DataFrame({"what": ["kept"], "r0": [3], "r1": [4]})
    assert F.ledger_notes(ledger) == ["kept = 3, 4 (per repetition)"]
    costs = F.cost_designs({"candidates": 40, "df0": 10, "cpu_s": 200.0}, 10, 100)
    assert costs["df = 0 mutants"].tolist() == [300, 1000] and costs["candidates needed"].tolist() == [1200, 4000]
    assert F.overlap_sentence(0.11, []) == []
    t4 = _t4()
    assert F.low_equivalent_scores(t4) == []  # 0.55 against the paper's CodeBLEU EQ (0.49)
    t4.loc[t4.metric == "CodeBLEU", "EQ"] = 0.1
    assert F.low_equivalent_scores(t4) == ["CodeBLEU"]
    with pytest.raises(KeyError):
        F.population_notes({"nope": 1.0})
