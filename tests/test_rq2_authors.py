"""RQ2 as the authors' released script builds it (Section 4.4.1; ``Experiments/RQ2/scripts/
analyze_distinguishability.py``): LoCaL's df = 0 mutants of every benchmark as ``ds_replaced``,
mismatched cross pairs as ``ds_orig``, one seeded stream per repetition; and the paper's NEQ-repl
SurfaceSim read on released mutants, parseable or not."""

from __future__ import annotations

import pandas as pd
import pytest

from lcl.rq import distinguish as D
from lcl.rq import rq2_findings as F
from lcl.study import rq2_pool

from .test_distinguish import _pie, _synthetic


def _local_rows() -> list[dict]:
    """LoCaL pair rows of every benchmark: df = 0 mutants, mutants that are not df = 0, OPT variants."""
    rows = []
    for b, bench in enumerate(("HumanEval", "MBPP", "APPS", "PIE")):
        for i in range(5):
            rows.append({"id": f"LCL_{bench}_{i}_MUT_{b}", "benchmark": bench, "task": f"{bench}/{i}",
                         "level": "function" if bench in ("HumanEval", "MBPP") else "program", "variant_type": "MUT",
                         "reference": f"x = {i}", "candidate": f"x = {i + 1}", "operator": "AOR",
                         "df_score": 0.0 if i < 3 else [0.5, None][i - 3]})
        rows.append({"id": f"LCL_{bench}_9_OPT_0", "benchmark": bench, "task": f"{bench}/9", "variant_type": "OPT",
                     "reference": "y = 1", "candidate": "y = 1", "df_score": 0.0})
    rows.append({"id": "LCL_PIE_8_MUT_0", "benchmark": "PIE", "variant_type": "MUT", "reference": "",
                 "candidate": "z = 1", "df_score": 0.0})
    return rows


def test_the_pool_is_every_benchmarks_df0_mutants() -> None:
    pool, counts = rq2_pool.local_df0_pool(_local_rows())
    assert len(pool) == 12 and {m["benchmark"] for m in pool} == {"HumanEval", "MBPP", "APPS", "PIE"}
    assert all(m["df_score"] == 0.0 and m["id"].split("_")[-2] == "MUT" for m in pool)
    assert counts["left out: df_score is not 0"] == 8 and counts["left out: an empty program"] == 1
    assert counts["kept (df_score = 0): APPS"] == 3 and counts[rq2_pool.KEPT] == 12


def test_mismatched_cross_pairs_reuse_the_equivalent_pairs_programs() -> None:
    eq = [{"id": p.id, "reference": p.reference, "candidate": p.candidate, "task": f"PIE/{p.extra['problem_id']}"}
          for p in _pie()[:8]]
    for seed in range(20):
        neq = D.mismatch_pairs(eq, D.random.Random(seed))
        assert [x["reference"] for x in neq] == [e["reference"] for e in eq]  # each positive's reference, in order
        for e, x in zip(eq, neq, strict=True):
            other = next(o for o in eq if o["candidate"] == x["candidate"])
            assert other is not e and D._task_problem(other) != D._task_problem(e)


def test_table4_repetitions_draw_from_every_benchmark_afresh_and_reproducibly() -> None:
    """Table 4's primary ds_replaced: LoCaL's df = 0 mutants (not fresh PIE mutants), resampled per repetition."""
    rows = _local_rows()
    reps = D.table4_repetitions(_pie(), rows, 6, 4, seed=7)
    pool_ids = {m["id"] for m in rq2_pool.local_df0_pool(rows)[0]}
    assert all(len(r.eq) == len(r.neq_orig) == len(r.neq_repl) == 6 for r in reps)
    assert all({m["id"] for m in r.neq_repl} <= pool_ids for r in reps)
    assert len({m["benchmark"] for r in reps for m in r.neq_repl}) > 1
    assert len({tuple(m["id"] for m in r.neq_repl) for r in reps}) > 1  # each repetition samples its own
    assert [r.seed for r in reps] == [rq2_pool.repetition_seed(7, r) for r in range(4)]
    again = D.table4_repetitions(_pie(), rows, 6, 4, seed=7)
    assert [r.neq_repl for r in again] == [r.neq_repl for r in reps] and [r.neq_orig for r in again] == [
        r.neq_orig for r in reps]
    small = D.table4_repetitions(_pie(), rows[:5], 6, 1, seed=7)  # 3 df = 0 mutants: all of them, not 6
    assert len(small[0].neq_repl) == 3
    assert D.union(reps)  # every id names one pair


def test_union_refuses_one_id_for_two_pairs() -> None:
    row = {"id": "a", "reference": "x = 1", "candidate": "x = 2"}
    rep = D.Repetition(0, 1, [row], [], [{**row, "candidate": "x = 3"}])
    with pytest.raises(ValueError):
        D.union([rep])


def test_score_populations_scores_shared_pairs_once(monkeypatch) -> None:
    seen: list[int] = []

    def fake_score(frame: pd.DataFrame, **_: object) -> pd.DataFrame:
        seen.append(len(frame))
        return frame.assign(SurfaceSim=1.0)

    monkeypatch.setattr(F.scoring, "score_frame", fake_score)
    reps = D.table4_repetitions(_pie(), _local_rows(), 4, 2, seed=3)
    other = D.with_mutants(reps, [[{"id": "fresh", "reference": "a = 1", "candidate": "a = 2"}]] * 2, 4)
    longs, n_scored, _ = F.score_populations({rq2_pool.LOCAL_DF0: reps, rq2_pool.PIE_PAIRS: other}, None)
    assert seen == [len(D.union([*reps, *other]))]
    assert n_scored[rq2_pool.PIE_PAIRS] == len(D.union(other)) and set(longs) == {rq2_pool.LOCAL_DF0, rq2_pool.PIE_PAIRS}


def test_population_rows_name_the_primary() -> None:
    scored, reps = _synthetic()
    t = D.table4(D.repetition_scores(scored.rename(columns={"M": "CodeBLEU"}), reps, columns=["CodeBLEU"]))
    rows = D.population_rows({"b": t, "a": t}, primary="a")
    assert rows.population.tolist() == ["a", "b"] and rows.role.tolist() == [D.PRIMARY, D.SENSITIVITY]


def test_released_surface_separates_what_does_not_parse() -> None:
    """A pair with a side that Python 3 cannot parse scores low (Sim_AST = 0) and pulls the mean down."""
    frame = pd.DataFrame({"reference": ["x = 1", "print 'a'", "y = 2", "z = 3"],
                          "candidate": ["x = 2", "print 'b'", "y = 3", "z = 4"],
                          "surface_sim": [0.9, 0.45, 1.0, 0.95], "surface_sim_published": [0.9, 0.4, 1.0, None]})
    t = D.released_surface(frame, [[0, 1], [1, 2]])
    ours, theirs, drawn = t.iloc[0], t.iloc[1], t.iloc[2]
    assert (ours["pairs"], ours["do not parse"], ours["share not parsing"]) == (4, 1, 0.25)
    assert ours["SurfaceSim all"] == pytest.approx(3.3 / 4) and ours["SurfaceSim parseable"] == pytest.approx(0.95)
    assert ours["SurfaceSim not parsing"] == pytest.approx(0.45)
    assert theirs["SurfaceSim parseable"] == pytest.approx(0.95)  # a missing published value is left out
    assert (drawn["pairs"], drawn["do not parse"]) == (4, 2)  # a mutant drawn twice counts twice
    lines = F.released_sentences(t, 0.84)
    assert lines[0].startswith("- Released LoCaL mutants with df_score = 0, each released one once, SurfaceSim ours "
                               "(Eq. 1): 1 of 4 (25.0%) do not parse under Python 3")
    assert lines[0].endswith("the paper's 0.84 is nearer the mean over all of them.")
    assert F.released_sentences(t, 0.94)[0].endswith("nearer the mean over the parseable ones.")
    empty = D.released_surface(frame.iloc[0:0], [])
    assert F.released_sentences(empty, 0.89)[0].startswith("- **Not computed:**")


def test_script_draws_sample_without_replacement_per_run() -> None:
    draws = D.script_draws(30, 10, 3, seed=5)
    assert [len(set(d)) for d in draws] == [10, 10, 10] and draws == D.script_draws(30, 10, 3, seed=5)
    assert [len(d) for d in D.script_draws(4, 10, 2, seed=5)] == [4, 4]


def test_primary_sentence_names_the_population_or_says_not_computed() -> None:
    _, counts = rq2_pool.local_df0_pool(_local_rows())
    line = F.primary_sentences(counts, 12, 6, 10)[0]
    assert line.startswith("- Table 4 and every RQ2 claim come from LoCaL's df = 0 mutants, every benchmark")
    assert "6 of the 12 mutants with df_score = 0 in our LoCaL (HumanEval 3, MBPP 3, APPS 3, PIE 3)" in line
    assert F.primary_sentences(counts, 0, 6, 10)[0].startswith("- **Not computed:**")
