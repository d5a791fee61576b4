"""The small library functions notebooks 04, 05 and 08 call in place of loops of their own (a notebook
holds no computation: tests/test_notebook_rule.py). Each is checked against the expression the
notebook held before, so moving it changed no table."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from lcl.core.records import Pair, PairRow
from lcl.engine import regions
from lcl.engine.similarity import surface_sim_many
from lcl.report import claims, conclusions
from lcl.rq import coverage, distinguish, rq2_findings


def test_count_table_keeps_the_ledger_order_and_counts():
    counts = {"LoCaL mutants": 7, "with df_score = 0": 3}
    t = rq2_findings.count_table(counts)
    assert list(t.columns) == ["what", "count"]
    assert t.to_dict("records") == [{"what": "LoCaL mutants", "count": 7}, {"what": "with df_score = 0", "count": 3}]
    # the notes under Table 4 read the same ledger the same way
    assert rq2_findings.counted(counts) == ["LoCaL mutants = 7", "with df_score = 0 = 3"]


def _row(i: str, kind: str) -> PairRow:
    return PairRow(id=i, reference=f"print({i!r})", candidate=f"print({i!r} * 2)", task=f"t{i}", df_score=0.0,
                   benchmark="PIE", variant_type=kind)


def _reps() -> list[distinguish.Repetition]:
    return [distinguish.Repetition(r, 100 + r, [_row(f"e{r}", "EQ")], [_row(f"x{r}", "NEQ")], [_row(f"m{r}", "MUT")])
            for r in range(2)]


def test_repetition_sets_swap_only_the_mutants():
    reps = _reps()
    pools = {"fresh": [[_row(f"p{r}{j}", "MUT") for j in range(3)] for r in range(2)]}
    sets = distinguish.repetition_sets(reps, pools, ["fresh"], 2, "primary")
    assert list(sets) == ["primary", "fresh"]
    assert sets["primary"] == reps
    assert sets["fresh"] == distinguish.with_mutants(reps, pools["fresh"], 2)
    for old, new in zip(reps, sets["fresh"], strict=True):
        assert new.eq == old.eq and new.neq_orig == old.neq_orig
        assert len(new.neq_repl) == 2 and all(m["id"].startswith(f"p{old.r}") for m in new.neq_repl)


def test_repetition_sets_without_populations_is_the_primary_alone():
    # notebook 04 without PIE: no sensitivity population, no pools
    assert distinguish.repetition_sets([], {}, [], 5, "primary") == {"primary": []}


def test_released_frame_keeps_the_df0_mutants_with_both_surface_sims():
    pairs = [
        Pair("a", "x = 1\nprint(x)", "x = 2\nprint(x)", "LoCaL_published", variant_type="MUT", df_score=0.0,
             extra={"author_scores": {"surfaceSim": 0.9}}),
        Pair("b", "print(1)", "print(2)", "LoCaL_published", variant_type="MUT", df_score=0.5),
        Pair("c", "print(1)", "print(1 )", "LoCaL_published", variant_type="OPT", df_score=0.0),
        Pair("d", "print 1", "print(1)", "LoCaL_published", variant_type="MUT", df_score=0.0,
             extra={"author_scores": None}),
    ]
    f = distinguish.released_frame(pairs)
    assert list(f.columns) == ["reference", "candidate", "surface_sim", "surface_sim_published"]
    assert list(f.reference) == ["x = 1\nprint(x)", "print 1"]
    assert list(f.surface_sim) == surface_sim_many(list(f.reference), list(f.candidate), warn=False)
    assert f.surface_sim_published.iloc[0] == 0.9 and pd.isna(f.surface_sim_published.iloc[1])


def test_released_frame_of_nothing_has_the_columns_released_surface_reads():
    f = distinguish.released_frame([])
    assert f.empty and list(f.columns) == distinguish.RELEASED_FRAME_COLUMNS
    assert len(distinguish.released_surface(f, [])) == 4  # two samples x two SurfaceSims, all empty


def _frames(n: int, seed: int = 7) -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    x, y = rng.uniform(0, 1, n), rng.uniform(0, 1, n)
    return {"a": pd.DataFrame({"SurfaceSim": x, "df_score": y,
                               "M": np.clip(0.5 * x + 0.5 * y + rng.normal(0, 0.05, n), 0, 1)})}


def test_fit_rule_sets_fits_each_rule_set_in_order():
    frames = _frames(400)
    rules = [regions.AS_PRINTED, regions.FLOOR_2PCT]
    fitted = coverage.fit_rule_sets(frames, ["M"], rules)
    assert fitted == [coverage.fit(frames, ["M"], rules=r) for r in rules]
    assert all(th is not None for th in fitted)
    # the thresholds table the notebook builds from them: one row per fit in that order, then the paper's
    assert list(coverage.thresholds_table(fitted, {}, rules).procedure) == [r.name for r in rules] + ["paper"]


def test_fit_rule_sets_gives_none_where_no_tuple_qualifies():
    frames = _frames(30)
    fitted = coverage.fit_rule_sets(frames, ["M"], [coverage.PRIMARY_RULES, regions.AS_PRINTED])
    assert fitted[0] is None  # the authors' minimum region sizes need more than 30 points
    assert fitted[1] == coverage.fit(frames, ["M"], rules=regions.AS_PRINTED)


def test_point_count_counts_every_frame_before_dropping():
    f = pd.DataFrame({"SurfaceSim": [0.1, np.nan], "df_score": [0.2, 0.3], "M": [0.5, 0.5]})
    assert coverage.point_count({"a": f, "b": f.iloc[:1]}) == 3
    assert coverage.point_count({}) == 0


def _claims_table(premise: str, consequence: str) -> pd.DataFrame:
    return pd.DataFrame({"claim_id": ["P", "C"], "status": [premise, consequence], "ci_low": [np.nan, np.nan]})


@pytest.fixture
def one_implication(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(conclusions, "IMPLIES", [conclusions.Implication("P", "C", "C is P's premise")])


@pytest.mark.usefixtures("one_implication")
def test_contradiction_lines_name_each_broken_implication():
    table = _claims_table(conclusions.HOLDS, conclusions.FAILS)
    assert claims.contradiction_lines(table) == ["- P passes while C does not: C is P's premise."]


@pytest.mark.usefixtures("one_implication")
def test_contradiction_lines_say_so_when_none_is_broken():
    for premise, consequence in ((conclusions.HOLDS, conclusions.HOLDS), (conclusions.FAILS, conclusions.FAILS)):
        assert claims.contradiction_lines(_claims_table(premise, consequence)) == [claims.NO_CONTRADICTION]
    assert claims.NO_CONTRADICTION == "No pair of verdicts contradicts (every declared implication is respected)."
