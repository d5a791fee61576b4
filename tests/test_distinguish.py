"""RQ2 (Section 4.4, Eq. 3, Table 4): dataset construction and the Table 4 arithmetic."""

from __future__ import annotations

import random

import numpy as np
import pandas as pd
import pytest

import dataclasses

from lcl.rq import distinguish as D

from lcl.study import rq2_pool
from lcl.core.records import Pair


def _pie(n_problems: int = 6, per_problem: int = 3) -> list[Pair]:
    out = []
    for p in range(n_problems):
        for s in range(per_problem):
            out.append(Pair(id=f"PIE_p{p}_s{s}_f{s}", reference=f"slow {p} {s}", candidate=f"fast {p} {s}",
                            dataset="PIE", benchmark="PIE", task=f"PIE/p{p}_s{s}", level="program",
                            variant_type="EQ", df_score=1.0, extra={"problem_id": f"p{p}"}))
    return out


def _pool(k: int) -> list[dict]:
    return [{"id": f"LCL_PIE_p{i % 6}_MUT_{i}", "task": f"PIE/p{i % 6}", "reference": f"slow {i}",
             "candidate": f"mutant {i}", "df_score": 0.0} for i in range(k)]


def test_cross_pairs_never_pair_a_problem_with_itself() -> None:
    pairs = _pie()
    by_id = {p.id: p for p in pairs}
    for seed in range(30):
        xs = D.cross_pairs(pairs, 15, random.Random(seed))
        assert len(xs) == 15
        for x in xs:
            a, b = x["id"][len("RQ2X_"):].split("__")
            assert by_id[a].extra["problem_id"] != by_id[b].extra["problem_id"]
            assert x["reference"] == by_id[a].reference and x["candidate"] == by_id[b].candidate
        assert len({x["candidate"] for x in xs}) == 15  # fast sides drawn without replacement


def test_cross_pairs_impossible_raises() -> None:
    with pytest.raises(ValueError):
        D.cross_pairs(_pie(n_problems=1), 2, random.Random(0))


def test_equivalent_pairs_are_same_problem_and_distinct() -> None:
    eq = D.equivalent_pairs(_pie(), 10, random.Random(1))
    assert len({r["id"] for r in eq}) == 10
    assert all(r["reference"].split()[1] == r["candidate"].split()[1] for r in eq)
    assert all(r["variant_type"] == D.EQ and r["df_score"] == 1.0 for r in eq)


def test_build_is_deterministic_given_seed() -> None:
    pairs, pool = _pie(), _pool(12)
    pools = [pool] * 3
    a, b = D.build(pairs, pool, 5, 123), D.build(pairs, pool, 5, 123)
    assert a == b
    c = D.build(pairs, pool, 5, 124)
    assert (a.eq, a.neq_orig, a.neq_repl) != (c.eq, c.neq_orig, c.neq_repl)
    assert a.ds_orig[:5] == a.ds_replaced[:5] == a.eq  # equivalent pairs shared by both datasets
    reps = D.repetitions(pairs, pools, 5, 3, seed=7)
    assert [r.seed for r in reps] == [r.seed for r in D.repetitions(pairs, pools, 5, 3, seed=7)]
    assert len({r.seed for r in reps}) == 3
    with pytest.raises(ValueError):
        D.repetitions(pairs, pools[:2], 5, 3, seed=7)


def test_each_repetition_uses_its_own_mutant_pool() -> None:
    """Section 4.4.1 repeats the whole construction: repetition r draws from pools[r] only."""
    pools = [[{**m, "id": f"R{r}_{m['id']}"} for m in _pool(5)] for r in range(3)]
    reps = D.repetitions(_pie(), pools, 5, 3, seed=1)
    for r, rep in enumerate(reps):
        assert {m["id"] for m in rep.neq_repl} == {m["id"] for m in pools[r]}
    assert D.overlap(reps) == 0.0
    shared = D.repetitions(_pie(), [_pool(5)] * 3, 5, 3, seed=1)
    assert D.overlap(shared) == 1.0
    assert np.isnan(D.overlap(reps[:1]))


def test_with_mutants_keeps_the_rest_of_the_construction() -> None:
    reps = D.repetitions(_pie(), [_pool(6)] * 2, 4, 2, seed=3)
    alt = [[{**m, "id": f"ALT{r}_{m['id']}"} for m in _pool(6)] for r in range(2)]
    swapped = D.with_mutants(reps, alt, 4)
    for a, b in zip(reps, swapped):
        assert (a.eq, a.neq_orig, a.seed) == (b.eq, b.neq_orig, b.seed)
        assert len(b.neq_repl) == 4 and all(m["id"].startswith("ALT") for m in b.neq_repl)
    assert D.with_mutants(reps, alt, 4) == swapped
    with pytest.raises(ValueError):
        D.with_mutants(reps, alt[:1], 4)


def test_repetition_order_is_seeded_and_differs_per_repetition() -> None:
    rows = [{"id": f"M{i:02d}"} for i in range(40)]
    a, b = rq2_pool.repetition_order(rows, 1), rq2_pool.repetition_order(list(reversed(rows)), 1)
    assert a == b and sorted(r["id"] for r in a) == [r["id"] for r in rows]  # input order does not matter
    assert rq2_pool.repetition_order(rows, 2) != a


def test_text_form_is_unparse_without_docstrings() -> None:
    raw = '"""doc"""\n\nimport sys\n\n# comment\n\nn = int(input())  # trailing\n\nprint(n*2)\n'
    assert D.text_form(raw) == "import sys\nn = int(input())\nprint(n * 2)"
    assert D.text_form(D.text_form(raw)) == D.text_form(raw)


def test_usable_pairs_put_both_sides_in_text_form() -> None:
    """Equivalent and cross pairs take the mutants' text form (ast.unparse), not PIE's raw layout."""
    pairs = [Pair(id="a", reference="x=1\n\n# c\nprint( x )\n", candidate="print(1)  # fast\n", dataset="PIE",
                  extra={"problem_id": "p1"}),
             Pair(id="b", reference="y = 2\n", candidate="print(y)\n", dataset="PIE", extra={"problem_id": "p2"})]
    keep, _ = D.usable_pairs(pairs)
    assert keep[0].reference == "x = 1\nprint(x)" and keep[0].candidate == "print(1)"
    assert keep[0].extra == {"problem_id": "p1"}
    for row in D.cross_pairs(keep, 2, random.Random(0)) + D.equivalent_pairs(keep, 2, random.Random(0)):
        assert D.text_form(row["reference"]) == row["reference"]
        assert D.text_form(row["candidate"]) == row["candidate"]


def test_small_pool_uses_what_exists() -> None:
    rep = D.build(_pie(), _pool(3), 5, 0)
    assert len(rep.neq_repl) == 3 and len(rep.neq_orig) == 5


def test_union_has_every_pair_once() -> None:
    reps = D.repetitions(_pie(), [_pool(8)] * 3, 4, 3, seed=0)
    u = D.union(reps)
    ids = [r["id"] for r in u]
    assert len(ids) == len(set(ids))
    assert {p["id"] for r in reps for p in r.eq + r.neq_orig + r.neq_repl} == set(ids)


def _synthetic() -> tuple[pd.DataFrame, list[D.Repetition]]:
    """Two repetitions with hand-set scores for one metric ``M`` and SurfaceSim."""
    def row(i: str, m: float, s: float) -> dict:
        return {"id": i, "M": m, "SurfaceSim": s}

    rows = [row("e1", 0.6, 0.7), row("e2", 0.4, 0.9), row("e3", 0.8, 0.8),
            row("x1", 0.2, 0.5), row("x2", 0.1, 0.4), row("x3", 0.3, 0.5),
            row("m1", 0.9, 0.95), row("m2", 1.0, 0.85), row("m3", 0.8, 0.9)]
    mk = lambda ids: [{"id": i} for i in ids]  # noqa: E731
    reps = [D.Repetition(0, 11, mk(["e1", "e2"]), mk(["x1", "x2"]), mk(["m1", "m2"])),
            D.Repetition(1, 12, mk(["e2", "e3"]), mk(["x2", "x3"]), mk(["m2", "m3"]))]
    return pd.DataFrame(rows), reps


def test_repetition_scores_and_table4_math() -> None:
    scored, reps = _synthetic()
    long = D.repetition_scores(scored, reps, columns=["SurfaceSim", "M"])
    assert len(long) == 2 * 2 * 2
    r0 = long[(long.repetition == 0) & (long.dataset == D.ORIG) & (long.metric == "M")].iloc[0]
    assert r0["eq_score"] == pytest.approx(0.5) and r0["neq_score"] == pytest.approx(0.15)
    assert r0["d"] == pytest.approx(0.5 / 0.15)  # Eq. 3: ratio of means, not mean of ratios
    r1 = long[(long.repetition == 1) & (long.dataset == D.REPL) & (long.metric == "M")].iloc[0]
    assert r1["eq_score"] == pytest.approx(0.6) and r1["neq_score"] == pytest.approx(0.9)
    assert r1["d"] == pytest.approx(0.6 / 0.9)

    t = D.table4(long).set_index("metric")
    m = t.loc["M"]
    d_orig = [0.5 / 0.15, 0.6 / 0.2]
    d_repl = [0.5 / 0.95, 0.6 / 0.9]
    assert m["EQ"] == pytest.approx(0.55) and m["EQ std"] == pytest.approx(np.std([0.5, 0.6], ddof=1))
    assert m["NEQ orig"] == pytest.approx(0.175) and m["NEQ orig std"] == pytest.approx(np.std([0.15, 0.2], ddof=1))
    assert m["d orig"] == pytest.approx(np.mean(d_orig)) and m["d orig std"] == pytest.approx(np.std(d_orig, ddof=1))
    assert m["NEQ repl"] == pytest.approx(0.925)
    assert m["d repl"] == pytest.approx(np.mean(d_repl)) and m["d repl std"] == pytest.approx(np.std(d_repl, ddof=1))
    assert m["drop %"] == pytest.approx((np.mean(d_orig) - np.mean(d_repl)) / np.mean(d_orig) * 100)
    assert (m["n_eq"], m["n_neq_orig"], m["n_neq_repl"], m["repetitions"]) == (2, 2, 2, 2)
    s = t.loc["SurfaceSim"]
    assert s["EQ"] == pytest.approx(np.mean([0.8, 0.85])) and s["NEQ repl"] == pytest.approx(np.mean([0.9, 0.875]))


def test_against_constant_reads_each_side_of_one() -> None:
    scored, reps = _synthetic()
    scored["Constant"] = 0.7
    long = D.repetition_scores(scored, reps, columns=["M", "Constant"])
    t = D.against_constant(long).set_index(["metric", "dataset"])
    # M: d = 3.3 and 3.0 on ds_orig, 0.53 and 0.67 on ds_replaced (the synthetic table above)
    assert t.loc[("M", D.ORIG), "above 1"] == 2 and t.loc[("M", D.ORIG), "reading"].startswith("above")
    assert t.loc[("M", D.REPL), "below 1"] == 2 and t.loc[("M", D.REPL), "reading"].startswith("below")
    # a constant metric is the reference itself: d = 1 exactly, on neither side
    const = t.loc[("Constant", D.ORIG)]
    assert const["d mean"] == pytest.approx(1.0) and (const["above 1"], const["below 1"]) == (0, 0)
    assert const["reading"].startswith("not separated")
    long.loc[(long.metric == "M") & (long.dataset == D.ORIG) & (long.repetition == 1), "d"] = 0.9
    mixed = D.against_constant(long).set_index(["metric", "dataset"]).loc[("M", D.ORIG)]
    assert (mixed["above 1"], mixed["below 1"]) == (1, 1) and mixed["reading"].startswith("not separated")


def test_drops_percentage() -> None:
    t = pd.DataFrame({"d orig": [8.60, 2.0, 1.0], "d repl": [0.40, 1.0, 2.0]})
    assert D.drops(t).tolist() == pytest.approx([(8.60 - 0.40) / 8.60 * 100, 50.0, -100.0])


def test_table4_claim_links_read_paper_names() -> None:
    from lcl.core import claim_links

    scored, reps = _synthetic()
    scored = scored.rename(columns={"M": "CodeBERTScore[MiniLM]"})
    t = D.table4(D.repetition_scores(scored, reps, columns=["SurfaceSim", "CodeBERTScore[MiniLM]"]))
    links = {link.claim_id: link for link in D.CLAIMS}
    eq = claim_links.read_link(t, links["T4.CodeBERTScore.eq"])
    assert eq is not None and eq.value == pytest.approx(0.55)
    surf = claim_links.read_link(t, links["RQ2.surf.eq"])
    assert surf is not None and surf.value == pytest.approx(0.825)
    assert "T4.SurfaceSim.eq" not in links
    shown = D.with_paper(t)
    assert "d orig (paper)" in shown.columns and len(shown) == len(t)


def test_fmt() -> None:
    assert D.fmt(0.494, 0.031) == "0.49 (±0.03)"
    assert D.fmt(float("nan"), 0.1) == "—"


def test_usable_pairs_leaves_out_unparsable_programs() -> None:
    pairs = [Pair(id=f"ok{i}", reference=f"x = {i}", candidate=f"print({i})", dataset="PIE",
                  extra={"problem_id": f"p{i}"}) for i in range(3)]
    pairs[0] = Pair(id="bad", reference="print 'py2'", candidate="print(1)", dataset="PIE", extra={"problem_id": "p0"})
    keep, skipped = D.usable_pairs(pairs)
    assert [p.id for p in keep] == [p.id for p in pairs[1:]]
    assert sum(skipped.values()) == 1


def test_mutant_pool_keeps_exact_zero_and_stops_at_target(monkeypatch: pytest.MonkeyPatch) -> None:
    """The pool logic without fuzzing: labels are faked by id (df = 0 when i % 3 == 0)."""
    from collections import Counter

    from lcl.study import candidate_generation
    from lcl.core.profiles import get

    rows = [{"id": f"M{i:02d}", "variant_type": "MUT", "task": "PIE/p1", "reference": "x = 1",
             "candidate": f"x = {i}", "operator": "AOR"} for i in range(30)]
    dfs = {f"M{i:02d}": (0.0 if i % 3 == 0 else [0.5, 1.0, -1.0, 1e-9][i % 4]) for i in range(30)}
    # the first run alone: M03, M06 and M09 still score 0 there (df > 0 comes from later runs)
    first = {k: (0.0 if k in ("M01", "M05", "M07") else v) for k, v in dfs.items()}
    labelled: list[str] = []
    screened: list[str] = []

    def fake_label(chunk, settings, seed, jobs, progress=True):  # noqa: ANN001, ANN202
        (screened if settings.runs == 1 else labelled).extend(r["id"] for r in chunk)
        df = first if settings.runs == 1 else dfs
        return [{"id": r["id"], "df_score": df[r["id"]], "error": None, "counts": {}, "runs": []} for r in chunk]

    monkeypatch.setattr(rq2_pool, "pool_programs", lambda profile, seed, population: ([], Counter()))
    monkeypatch.setattr(candidate_generation, "candidates", lambda tasks, profile, seed, ledger: rows)
    monkeypatch.setattr(rq2_pool, "label_candidates", fake_label)
    stored = {"M00", "M02"}  # full labels already in the store: used as they are, not screened
    monkeypatch.setattr(rq2_pool, "candidates_stored", lambda chunk, settings, seed: {r["id"]: r["id"] in stored
                                                                                 for r in chunk})
    P = get("full")  # R = 5: screened (R = 2 is not: the screen would save nothing there)
    everything, c = rq2_pool.mutant_pool(P, 1, 1, progress=False)
    assert {r["id"] for r in everything} == {k for k, v in dfs.items() if v == 0.0}  # 1e-9 is not 0
    assert c["kept: df_score = 0"] == 10 and c["mutants fuzzed"] == 30
    assert sorted(screened) == sorted(set(dfs) - stored)
    out = {k for k in dfs if k not in stored and first[k] > 0}  # the first run shows df > 0: no full label
    assert out and not out & set(labelled) and set(labelled) == set(dfs) - out
    assert c["excluded: its first run already matches on some input (df_score > 0; screened, R = 1)"] == len(out)
    assert c["excluded: differs on some inputs only (0 < df_score < 1)"] >= 1  # M01, M05, M07
    small = {b: rq2_pool.mutant_pool(P, 1, 1, progress=False, target=4, batch=b)[0] for b in (1, 5, 30)}
    assert all(len(v) == 4 for v in small.values())
    assert small[1] == small[5] == small[30]  # the pool does not depend on the batch size
    screened.clear()
    assert rq2_pool.mutant_pool(get("quick"), 1, 1, progress=False)[0] == everything and not screened
    labelled.clear()
    _, c = rq2_pool.mutant_pool(P, 1, 1, progress=False, target=4, batch=5)
    seen = set(labelled) | set(screened)
    assert c["mutants fuzzed"] == len(seen) < 30 and c["not fuzzed: pool target reached"] == 30 - len(seen)
    # a repetition's own order draws other df = 0 mutants from the same labels
    mine = [rq2_pool.mutant_pool(P, 1, 1, progress=False, target=4, batch=5, order_seed=s)[0] for s in (11, 12)]
    assert all(len(p) == 4 for p in mine) and mine[0] != mine[1]
    assert all({r["id"] for r in p} <= {r["id"] for r in everything} for p in mine)
    pools, ledgers = rq2_pool.repetition_pools(P, 1, 1, 4, 3, progress=False)
    assert [len(p) for p in pools] == [4, 4, 4] and len(ledgers) == 3
    assert pools[0] == rq2_pool.mutant_pool(P, 1, 1, progress=False, target=4, order_seed=rq2_pool.repetition_seed(1, 0))[0]
    capped, c = rq2_pool.mutant_pool(dataclasses.replace(P, rq2_pool_candidates=6), 1, 1, progress=False)
    assert c["MUT candidates in the population"] == 6 and c["mutants fuzzed"] == 6
    assert c["MUT candidates outside the sampled population (profile cap)"] == 24


def test_pool_programs_of_each_population(monkeypatch: pytest.MonkeyPatch) -> None:
    """``pie-pairs`` mutates every PIE pair's slow program (Section 4.4.1), ``local`` the
    SELECT_K longest ones LoCaL is built on; unverified specs and the profile cap apply to both."""
    from dataclasses import replace
    from types import SimpleNamespace

    from lcl.study import loaders
    from lcl.study import task_specs as store
    from lcl.core.profiles import get
    from lcl.core.records import Task

    tasks = [Task("PIE", f"p{i:03d}_s1", "program", "print(1)\n", None, extra={"problem_id": f"p{i:03d}", "loc": i})
             for i in range(40)]
    monkeypatch.setattr(loaders, "load_pie", lambda: SimpleNamespace(tasks=tasks))
    monkeypatch.setitem(loaders.SELECT_K, "PIE", 10)
    fake_spec = lambda uid: SimpleNamespace(verified=uid != "PIE/p035", grammar=["x"])  # noqa: E731
    monkeypatch.setattr(store, "spec_for", fake_spec)
    monkeypatch.setattr(rq2_pool, "spec_for", fake_spec)  # imported there by name
    P = replace(get("full"), rq2_pool_programs=None)
    kept, counts = rq2_pool.pool_programs(P, 1, rq2_pool.LOCAL)
    assert [t.task_id for t in kept] == [f"p{i:03d}_s1" for i in (39, 38, 37, 36, 34, 33, 32, 31, 30)]
    assert counts["slow program skipped: spec not verified"] == 1
    capped, counts = rq2_pool.pool_programs(replace(P, rq2_pool_programs=4), 1, rq2_pool.LOCAL)
    assert len(capped) == 4 and set(capped) <= set(kept)
    assert counts["slow program not sampled (profile cap)"] == 5
    every, counts = rq2_pool.pool_programs(P, 1)
    assert len(every) == 39 and "p035_s1" not in {t.task_id for t in every}
    assert rq2_pool.pool_programs(P, 1, rq2_pool.PIE_PAIRS)[0] == every
    with pytest.raises(ValueError):
        rq2_pool.pool_programs(P, 1, "nope")


def test_empty_inputs_give_empty_tables() -> None:
    """No PIE (registry-only data): the notebook still writes its tables, with no rows."""
    long = D.repetition_scores(pd.DataFrame({"id": [], "M": []}), [], columns=["M"])
    t = D.with_paper(D.table4(long))
    assert len(t) == 0 and {"d orig", "drop %", "d orig (paper)"} <= set(t.columns)
    rep = D.build(_pie(), [], 3, 0)
    assert rep.neq_repl == []
    scored = pd.DataFrame({"id": [r["id"] for r in rep.eq + rep.neq_orig], "M": 0.5})
    row = D.table4(D.repetition_scores(scored, [rep], columns=["M"])).iloc[0]
    assert row["n_neq_repl"] == 0 and np.isnan(row["d repl"])


def test_pool_cli_runs_the_notebook_pool(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture) -> None:
    """``lcl variants pool`` draws every repetition's mutants of both populations with the 04
    notebook's target (rq2_pairs), orders (repetition seeds) and seed."""
    from collections import Counter

    from lcl.study import loaders
    from lcl.cli import main
    from lcl.core.profiles import get

    calls: list[tuple] = []

    def fake_pool(profile, seed, jobs, progress=True, *, target=None, order_seed=None,  # noqa: ANN001, ANN202
                  population=rq2_pool.PIE_PAIRS):
        calls.append((profile.name, seed, jobs, target, order_seed, population))
        return _pool(2), Counter({"mutants fuzzed": 7, "kept: df_score = 0": 2})

    monkeypatch.setattr(rq2_pool, "mutant_pool", fake_pool)
    monkeypatch.setattr(loaders, "benchmark_available", lambda name: True)
    assert main(["variants", "pool", "--profile", "smoke", "--jobs", "1", "--seed", "7", "--no-progress"]) == 0
    S = get("smoke")
    assert calls == [("smoke", 7, 1, S.rq2_pairs, rq2_pool.repetition_seed(7, r), pop)
                     for pop in rq2_pool.POPULATIONS for r in range(S.rq2_repetitions)]
    out = capsys.readouterr().out
    assert "mutants fuzzed" in out and f"2 of {S.rq2_pairs} mutants" in out
    assert "ran out before the target" in out
    monkeypatch.setattr(loaders, "benchmark_available", lambda name: False)
    assert main(["variants", "pool", "--profile", "smoke"]) == 0  # no PIE: skipped with a note, nothing run
    assert "PIE is not available" in capsys.readouterr().err
    assert main(["variants", "pool", "--profile", "nope"]) == 2 and len(calls) == len(rq2_pool.POPULATIONS) * S.rq2_repetitions


def test_pool_cli_population_and_cap(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture) -> None:
    """``--population`` runs one population; ``--population-cap`` replaces the profile's cap (``all``: none) for
    this run only; a cap that is not a positive whole number is a one-line error, nothing run."""
    from collections import Counter

    from lcl.study import loaders
    from lcl.cli import main

    caps: list[tuple] = []

    def fake_pool(profile, seed, jobs, progress=True, *, target=None, order_seed=None,  # noqa: ANN001, ANN202
                  population=rq2_pool.PIE_PAIRS):
        caps.append((population, profile.rq2_pool_candidates))
        return _pool(2), Counter()

    monkeypatch.setattr(rq2_pool, "mutant_pool", fake_pool)
    monkeypatch.setattr(loaders, "benchmark_available", lambda name: True)
    assert main(["variants", "pool", "--profile", "smoke", "--population", rq2_pool.PIE_PAIRS, "--population-cap", "all",
                 "--no-progress"]) == 0
    assert caps and set(caps) == {(rq2_pool.PIE_PAIRS, None)}
    caps.clear()
    assert main(["variants", "pool", "--profile", "smoke", "--population", rq2_pool.PIE_PAIRS, "--population-cap", "37",
                 "--no-progress"]) == 0
    assert set(caps) == {(rq2_pool.PIE_PAIRS, 37)}
    caps.clear()
    capsys.readouterr()
    for bad in ("0", "-3", "many"):
        assert main(["variants", "pool", "--profile", "smoke", "--population-cap", bad]) == 2
        err = capsys.readouterr().err
        assert "--population-cap" in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert caps == []


def test_pool_status_reads_the_store_and_fuzzes_nothing(monkeypatch: pytest.MonkeyPatch,
                                                        capsys: pytest.CaptureFixture) -> None:
    """``lcl variants pool --status``: stored full labels (df = 0 or not), screened-out candidates,
    screened ones waiting for their full label, unfuzzable and unfuzzed ones; and whether the pool
    run would fuzz anything more for a target."""
    from collections import Counter

    from lcl.study import loaders
    from lcl.cli import main
    from lcl.core.profiles import get

    rows = [{"id": f"M{i}", "variant_type": "MUT"} for i in range(7)]
    full = {"M0": 0.0, "M1": 0.5, "M5": 0.0}                # full labels in the store
    first = {"M2": 0.3, "M3": 0.0}                          # run-1 screen results in the store
    status = {**{k: True for k in full}, "M2": False, "M3": False, "M4": None, "M6": False}

    def fake_label(chunk, settings, seed, jobs, progress=True):  # noqa: ANN001, ANN202
        src = first if settings.runs == 1 else full
        assert all(r["id"] in src for r in chunk), "status must not fuzz"
        return [{"id": r["id"], "df_score": src[r["id"]], "error": None} for r in chunk]

    monkeypatch.setattr(rq2_pool, "pool_candidates", lambda profile, seed, order_seed=None, population=rq2_pool.PIE_PAIRS:
                        (rows, Counter()))
    monkeypatch.setattr(rq2_pool, "label_candidates", fake_label)
    monkeypatch.setattr(rq2_pool, "candidates_stored", lambda chunk, settings, seed: {
        r["id"]: (r["id"] in first) if settings.runs == 1 else status[r["id"]] for r in chunk})
    state, complete = rq2_pool.pool_status(get("full"), 1, target=1)
    assert state == Counter({"candidates": 7, "full label stored": 3, "of which df_score = 0": 2, "cannot be fuzzed": 1,
                             "screened out (first run already matches: df_score > 0)": 1,
                             "screened, full label still to fuzz": 1, "still to fuzz": 1})
    assert complete  # M0 (df = 0) comes before M3, the first candidate still waiting
    assert not rq2_pool.pool_status(get("full"), 1, target=2)[1]  # the second df = 0 (M5) comes after M3, still waiting
    monkeypatch.setattr(loaders, "benchmark_available", lambda name: True)
    assert main(["variants", "pool", "--profile", "full", "--status"]) == 0
    out = capsys.readouterr().out
    assert "still to fuzz" in out and "2 with df_score = 0 stored" in out and "resume with" in out


def test_mean_lines_counts_non_blank_lines() -> None:
    assert D.mean_lines(["a = 1\n\nb = 2\n\n", "x\n"]) == 1.5  # PIE's doubled newlines do not count
    assert D.mean_lines([]) != D.mean_lines([])  # NaN for no code


def test_ledger_frame_aligns_repetitions() -> None:
    from collections import Counter

    f = rq2_pool.ledger_frame([Counter({"a": 2, "b": 1}), Counter({"b": 3, "c": 4})])
    assert list(f.columns) == ["what", "r0", "r1"]
    assert f.set_index("what").to_dict("index") == {"a": {"r0": 2, "r1": 0}, "b": {"r0": 1, "r1": 3},
                                                     "c": {"r0": 0, "r1": 4}}
    assert list(rq2_pool.ledger_frame([]).columns) == ["what"]


def test_population_rows_put_populations_side_by_side() -> None:
    scored, reps = _synthetic()
    scored = scored.rename(columns={"M": "CodeBLEU"})
    t = D.table4(D.repetition_scores(scored, reps, columns=["SurfaceSim", "CodeBLEU"]))
    swapped = D.with_mutants(reps, [[{"id": "x1", "reference": "", "candidate": ""}]] * 2, 1)
    u = D.table4(D.repetition_scores(scored, swapped, columns=["SurfaceSim", "CodeBLEU"]))
    rows = D.population_rows({"pie-pairs": t, "local": u})
    assert len(rows) == 4 and list(rows.columns[:2]) == ["metric", "population"]
    code = rows[rows.metric == "CodeBLEU"].set_index("population")
    assert code.loc["pie-pairs", "NEQ repl"] == pytest.approx(0.925)
    assert code.loc["local", "NEQ repl"] == pytest.approx(0.2)  # x1 only, in both repetitions
    from lcl.report.claims import paper_value

    assert code.loc["local", "d repl (paper)"] == paper_value("T4.CodeBLEU.d_repl")
    assert len(D.population_rows({})) == 0


def test_candidates_per_df0_leaves_out_what_came_after_the_target() -> None:
    from collections import Counter

    a = Counter({"mutants fuzzed": 400, "fuzzed after the pool target was reached (not used)": 50,
                 "kept: df_score = 0": 100})
    b = Counter({"mutants fuzzed": 300, "kept: df_score = 0": 100})
    assert rq2_pool.candidates_per_df0([a, b]) == pytest.approx((3.5 + 3.0) / 2)
    assert np.isnan(rq2_pool.candidates_per_df0([Counter({"mutants fuzzed": 10})]))


def test_fuzz_cost_extrapolates_from_the_sample() -> None:
    c = rq2_pool.fuzz_cost({"candidates": 40, "df0": 10, "cpu_s": 200.0}, 300)
    assert c["candidates per df = 0 mutant"] == 4.0 and c["CPU s per candidate"] == 5.0
    assert c["candidates needed"] == 1200 and c["CPU hours"] == pytest.approx(1200 * 5 / 3600)
    with pytest.raises(ValueError):
        rq2_pool.fuzz_cost({"candidates": 5, "df0": 0, "cpu_s": 1.0}, 10)
