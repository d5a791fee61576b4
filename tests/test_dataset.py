"""The pair dataset files (lcl.study.pair_files, lcl.study.local_build, lcl.study.makeup): Parquet schema and round trip, the published pairs as
a third source, Table-2-like summaries by source, the ledger table, file locations."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq
import pytest

from lcl.study import candidate_generation, labelling, loaders, local_build, makeup, pair_files
from lcl.core import paths, records
from lcl.core.errors import UserError
from lcl.core.records import Pair

MUT = {"id": "LCL_HumanEval_HumanEval_0_MUT_1", "benchmark": "HumanEval", "task": "HumanEval/0", "level": "function",
       "variant_type": "MUT", "reference": "def f(x):\n    return x + 1", "candidate": "def f(x):\n    return x - 1",
       "df_score": 0.0, "run_scores": [0.0, None], "seeds": [2**62 + 5, 7], "spec": "verified",
       "counts": {"matches": 0, "mismatches": 200, "timeouts": 0, "crashes": 0, "invalid": 0, "skipped": 0},
       "operator": "AOR", "lineno": 2, "generator": "mutpy", "surface_sim": 0.95, "entry_point": "f",
       "verdict_digest": "ab"}
OPT = {**MUT, "id": "LCL_APPS_1_OPT_1", "benchmark": "APPS", "level": "program", "variant_type": "OPT",
       "df_score": 1.0, "surface_sim": 0.6, "strategies": ["S1"], "rewrites": ["r1", "r2"], "operator": None,
       "lineno": None, "generator": "rewriter", "entry_point": None}
CLONE = {**MUT, "id": "CLONE_sort_1_1", "benchmark": "Clones", "task": "Clones/sort#1", "variant_type": "CLONE",
         "df_score": 1.0, "surface_sim": 0.5, "cluster": "sort#1", "family": "sort", "domain": "int_list",
         "observe": "return_or_arg0", "cross_package": True, "reference_package": "algorithms",
         "reference_licence": "MIT", "variant_package": "pygorithm", "variant_licence": "MIT", "operator": None,
         "lineno": None, "generator": "human"}


def test_schema_documents_every_typed_column() -> None:
    assert set(pair_files.PARQUET_TYPES) <= set(pair_files.SCHEMA)
    for k in ("variant_type", "df_score", "surface_sim", "cluster", "published_kind", "reference_licence"):
        assert k in pair_files.SCHEMA


def test_parquet_round_trip(tmp_path: Path) -> None:
    rows = [MUT, OPT, CLONE, {"id": "x", "variant_type": "PUBLISHED", "author_scores": {"codebleu": 0.5},
                              "df_score": 0.25, "published_kind": None}]
    path = pair_files.write_parquet(tmp_path / "p.parquet", rows)
    t = pq.read_table(path)
    names = t.schema.names
    assert names[:4] == ["id", "benchmark", "task", "level"]  # SCHEMA order first
    assert str(t.schema.field("df_score").type) == "double"
    assert str(t.schema.field("seeds").type) == "list<element: int64>"
    assert str(t.schema.field("cross_package").type) == "bool"
    assert t.schema.field("counts").type.num_fields == 6
    assert t.schema.field("author_scores").metadata[b"encoding"] == b"json"
    assert t.schema.field("df_score").metadata[b"description"].startswith(b"Algorithm 1")
    df = t.to_pandas()
    assert df.loc[0, "seeds"].tolist() == [2**62 + 5, 7]
    assert pd.isna(df.loc[0, "run_scores"][1])
    assert df.loc[0, "counts"]["mismatches"] == 200
    assert list(df.loc[1, "rewrites"]) == ["r1", "r2"]
    assert json.loads(df.loc[3, "author_scores"]) == {"codebleu": 0.5}
    assert df.loc[2, "reference_licence"] == "MIT" and pd.isna(df.loc[0, "reference_licence"])


def test_write_pairs_writes_both_files(tmp_path: Path) -> None:
    from lcl.core.io import read_jsonl

    j, p = pair_files.write_pairs(tmp_path / "local_pairs_x.jsonl", [MUT, OPT])
    assert j.exists() and Path(p) == tmp_path / "local_pairs_x.parquet"
    # the files keep the released schema's name for the candidate; reading gives the record back
    on_disk = read_jsonl(j)
    assert [r["variant"] for r in on_disk] == [MUT["candidate"], OPT["candidate"]]
    assert not any("candidate" in r for r in on_disk)
    assert pair_files.read_pairs(j) == [MUT, OPT]
    assert pq.read_table(p).num_rows == 2 and "variant" in pq.read_table(p).schema.names
    # empty files are valid too (a profile or source with no pairs)
    _, p0 = pair_files.write_pairs(tmp_path / "empty.jsonl", [])
    assert pq.read_table(p0).num_rows == 0


def test_file_locations() -> None:
    assert paths.local_pairs("quick").name == "local_pairs_quick.jsonl"
    assert paths.clone_pairs("quick").name == "clone_pairs_quick.jsonl"
    assert paths.published_pairs().name == "published_pairs.jsonl"
    assert paths.local_pairs("q").parent == paths.clone_pairs("q").parent == paths.published_pairs().parent


def test_loaders_say_how_to_build(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(paths, "local_pairs", lambda profile: tmp_path / f"local_pairs_{profile}.jsonl")
    monkeypatch.setattr(paths, "clone_pairs", lambda profile: tmp_path / f"clone_pairs_{profile}.jsonl")
    monkeypatch.setattr(paths, "published_pairs", lambda: tmp_path / "published_pairs.jsonl")
    with pytest.raises(UserError, match="02_variants"):
        pair_files.load_local("nope")
    with pytest.raises(UserError, match="02_variants"):
        pair_files.load_clones("nope")
    assert pair_files.load_published() == []
    pair_files.write_pairs(tmp_path / "clone_pairs_q.jsonl", [CLONE])
    assert pair_files.load_clones("q") == [CLONE]


def _pub(i: int, kind: str | None, level: str, score: float | None, authors: dict | None = None) -> Pair:
    return Pair(id=f"P{i}", reference="def f(x):\n    return x", candidate="def f(y):\n    return y",
                dataset="LoCaL_published", benchmark="HumanEval" if level == "function" else "PIE",
                task="HumanEval/1", level=level, variant_type=kind, df_score=score,
                extra={"published_id": f"P{i}", **({"author_scores": authors} if authors else {})})


def test_published_pairs(monkeypatch: pytest.MonkeyPatch) -> None:
    fake = [_pub(1, "OPT", "function", 1.0, {"surfaceSim": 0.5}), _pub(2, "MUT", "program", 0.2),
            _pub(3, None, "program", -1.0), _pub(4, None, "program", None), _pub(5, None, "program", 0.0)]
    monkeypatch.setattr(loaders, "pairs_if_available", lambda name: fake if name == "LoCaL_published" else [])
    led = records.Ledger()
    rows = local_build.published_pairs(led)
    assert [r["id"] for r in rows] == ["P1", "P2", "P5"]
    assert {r["variant_type"] for r in rows} == {"PUBLISHED"}
    assert [r["published_kind"] for r in rows] == ["OPT", "MUT", None]
    assert rows[0]["surface_sim_published"] == 0.5 and rows[1]["surface_sim_published"] is None
    assert all(0 <= r["surface_sim"] <= 1 for r in rows)
    assert led.generated["PUBLISHED pairs in the release"] == 5
    assert led.dropped["PUBLISHED: timed out in the authors' fuzzing (score = -1)"] == 1
    assert led.dropped["PUBLISHED: no published score"] == 1


def test_published_pairs_absent(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(loaders, "pairs_if_available", lambda name: [])
    led = records.Ledger()
    assert local_build.published_pairs(led) == [] and not led.generated


def test_table2_sources() -> None:
    pub = [{"level": "function", "published_kind": "OPT", "surface_sim": 0.6, "df_score": 1.0},
           {"level": "program", "published_kind": "MUT", "surface_sim": 0.9, "df_score": 0.0},
           {"level": "program", "published_kind": None, "surface_sim": 0.8, "df_score": 0.5}]
    pub[1]["candidate"] = "print 'a Python 2 mutant'"
    pub.append({"level": "program", "published_kind": "MUT", "surface_sim": 0.95, "df_score": 0.0,
                "candidate": "print('parses')"})
    t = makeup.table2_sources([MUT, OPT], [CLONE], pub, "quick")
    assert list(t["Source"]) == ["ours (quick)"] * 3 + ["published release"] * 4 + [
        "published release, parses under Python 3", "published release, does not parse under Python 3"]
    assert list(t["Variant Type"]) == ["Optimized", "Mutated", "Clones (human-written)", "Optimized", "Mutated",
                                       "Untyped (PIE)", "All", "Mutated", "Mutated"]
    assert list(t["Total"]) == [1, 1, 1, 1, 2, 1, 4, 1, 1]
    assert t.loc[7, "Avg. SurfaceSim"] == 0.95 and t.loc[8, "Avg. SurfaceSim"] == 0.9
    assert t.loc[0, "Program-Level"] == 1 and t.loc[1, "Method-Level"] == 1
    assert t.loc[6, "Avg. df_score"] == 0.375 and t.loc[2, "share df = 1 (%)"] == 100.0
    # no published pairs, no pairs at all: still a table
    t0 = makeup.table2_sources([], [], [], "smoke")
    assert list(t0["Total"]) == [0, 0, 0] and t0["Avg. SurfaceSim"].isna().all()


def test_dfs_target_is_the_rewriters_and_sources_are_shown_apart() -> None:
    pie = {**OPT, "id": "LCL_PIE_p1_OPT_1", "benchmark": "PIE", "surface_sim": 0.99, "generator": "pie_fast"}
    near = {**OPT, "id": "LCL_APPS_2_OPT_1", "surface_sim": 0.78}
    d = makeup.dfs_target([MUT, OPT, pie])
    assert d == {"generator": "rewriter", "pairs": 1, "mean_surface_sim": 0.6, "mean_df_score": 1.0, "met": True}
    assert makeup.dfs_target([OPT, near])["mean_surface_sim"] == pytest.approx(0.69)
    assert makeup.dfs_target([OPT, near])["met"]  # 0.69 <= 0.70
    assert makeup.dfs_target([near])["met"] is False and makeup.dfs_target([MUT])["met"] is False
    t = makeup.opt_by_generator([MUT, OPT, near, pie])
    assert t.to_dict("records") == [
        {"benchmark": "APPS", "generator": "rewriter", "pairs": 2, "mean SurfaceSim": 0.69, "mean df_score": 1.0},
        {"benchmark": "PIE", "generator": "pie_fast", "pairs": 1, "mean SurfaceSim": 0.99, "mean df_score": 1.0}]
    assert makeup.opt_by_generator([MUT]).empty


def test_ledger_table() -> None:
    a, b = records.Ledger(), records.Ledger()
    a.generated["MUT candidates"] += 3
    a.drop("MUT", "duplicate", 2)
    a.drop("MUT", "nothing", 0)  # zero counts are not recorded
    b.drop("CLONE pair", "identical code")
    t = makeup.ledger_table({"LoCaL": a, "clones": b})
    assert t.to_dict("records") == [
        {"source": "LoCaL", "stage": "generated", "what": "MUT candidates", "count": 3},
        {"source": "LoCaL", "stage": "excluded", "what": "MUT: duplicate", "count": 2},
        {"source": "clones", "stage": "excluded", "what": "CLONE pair: identical code", "count": 1},
    ]
    assert list(makeup.ledger_table({}).columns) == ["source", "stage", "what", "count"]


def test_references_lose_their_docstrings_only():
    from lcl.study.candidate_generation import strip_docstrings

    code = '"""mod"""\ndef f(x):\n    """doc"""\n    return x\nclass A:\n    """d"""\ndef g():\n    """only"""\n'
    out = strip_docstrings(code)
    assert '"""' not in out and "'doc'" not in out and "return x" in out
    ns: dict = {}
    exec(compile(out, "t", "exec"), ns)  # trusted snippet
    assert ns["f"](3) == 3 and ns["g"]() is None
    assert strip_docstrings("x = 'not a docstring'\ny = 1\n").startswith("x = 'not a docstring'")


def test_cli_variants_label_fills_the_store_the_notebook_uses(project_data: dict, tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch,
                                                              capsys: pytest.CaptureFixture) -> None:
    from lcl.cli import main
    from lcl.engine.fuzz.store import ResultStore
    from lcl.core.profiles import PROFILES

    monkeypatch.setenv("LCL_CACHE", str(tmp_path / "cache"))  # an empty result store
    assert main(["variants", "label", "--profile", "smoke", "--status", "HumanEval"]) == 0
    out = capsys.readouterr().out
    assert "0 labelled (0.0%)" in out and "to fuzz: lcl variants label --profile smoke" in out
    assert len(ResultStore()) == 0  # --status fuzzes nothing
    assert main(["variants", "label", "--profile", "smoke", "--no-progress", "HumanEval"]) == 0
    out = capsys.readouterr().out
    assert "candidates of 2 tasks labelled" in out and "HumanEval  OPT" in out
    # the notebook's own call (same rows, seed and settings) is answered from the store
    profile = PROFILES["smoke"]
    tasks = [t for t in candidate_generation.selected_tasks(profile) if t.benchmark == "HumanEval"]
    rows = candidate_generation.candidates(tasks, profile, 20250101, records.Ledger())
    before = len(ResultStore())
    results = labelling.label_candidates(rows, labelling.profile_settings(profile), 20250101, jobs=1, progress=False)
    assert len(ResultStore()) == before and len(results) == len(rows)
    assert main(["variants", "label", "--profile", "smoke", "--no-progress", "--kind", "OPT", "HumanEval"]) == 0
    out = capsys.readouterr().out
    assert "HumanEval  MUT" not in out and "HumanEval  OPT" in out and "the rewriter's variants: " in out
    assert main(["variants", "label", "--profile", "smoke", "--status", "HumanEval"]) == 0
    out = capsys.readouterr().out
    assert f"{len(rows)} candidates of 2 tasks, {len(rows)} labelled (100.0%)" in out and "nothing left to fuzz" in out
    assert main(["variants", "label", "--profile", "smoke", "--recheck", "2", "--no-progress", "HumanEval"]) == 0
    out = capsys.readouterr().out
    assert "2 labelled pair(s) fuzzed again from scratch" in out
    assert len(ResultStore()) == len(rows)  # the recheck used a scratch store
    # --recheck-timed samples among the labels time decided part of: exactly those the predicate names
    stored = labelling.label_candidates(rows, labelling.profile_settings(profile), 20250101, jobs=1, progress=False)
    n_timed = sum(map(labelling.timed, stored))
    assert main(["variants", "label", "--profile", "smoke", "--recheck", "50", "--recheck-timed", "--no-progress",
                 "HumanEval"]) == 0
    out = capsys.readouterr().out
    assert (f"{n_timed} labelled pair(s) fuzzed again" in out) if n_timed else ("nothing to recheck" in out)
    assert main(["variants", "label", "--profile", "nope"]) == 2
    assert main(["variants", "label", "--profile", "smoke", "Nope"]) == 2
    assert "unknown benchmark" in capsys.readouterr().err


def test_candidates_are_cached_per_task_and_keyed_by_what_they_depend_on(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    from dataclasses import replace

    from lcl.core.profiles import PROFILES
    from lcl.core.records import Task

    monkeypatch.setenv("LCL_CACHE", str(tmp_path))
    ref = "def f(xs):\n    total = 0\n    for x in xs:\n        if x > 0:\n            total += x\n    return total\n"
    tasks = [Task("HumanEval", "HumanEval/9990", "function", ref, "f"),
             Task("HumanEval", "HumanEval/9991", "function", ref.replace("x > 0", "x > 1"), "f")]
    profile = PROFILES["smoke"]
    first, second = records.Ledger(), records.Ledger()
    rows = candidate_generation.candidates(tasks, profile, 7, first)
    assert rows and {r["task"] for r in rows} == {"HumanEval/9990", "HumanEval/9991"}
    calls: list[str] = []
    real = candidate_generation._task_candidates
    monkeypatch.setattr(candidate_generation, "_task_candidates", lambda task, *a: calls.append(task.task_id) or real(task, *a))
    assert candidate_generation.candidates(tasks, profile, 7, second) == rows and not calls  # all from the cache
    assert second.generated == first.generated and second.dropped == first.dropped
    # a changed reference, seed or cap is generated anew
    candidate_generation.candidates([replace(tasks[0], reference=ref.replace("total", "t"))], profile, 7, records.Ledger())
    candidate_generation.candidates(tasks[:1], profile, 8, records.Ledger())
    candidate_generation.candidates(tasks[:1], replace(profile, mutants_per_function=1), 7, records.Ledger())
    assert calls == ["HumanEval/9990"] * 3


def test_timed_names_the_labels_time_decided_part_of() -> None:
    assert labelling.timed({"variant_load": "timeout"})
    assert labelling.timed({"runs": [{"reason": "time budget exceeded", "counts": None}]})
    assert labelling.timed({"counts": {"timeouts": 2}})
    assert not labelling.timed({"counts": {"timeouts": 0, "crashes": 3}, "variant_load": "ok",
                                "runs": [{"reason": "reference alone exceeds the time budget"}]})


def test_pie_optimised_variants_come_from_pairs_outside_the_selected_slow_programs(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Table 1's footnote: PIE's k selected slow programs get mutants only; its optimised variants
    are other PIE pairs' fast programs (the release's ``LOCAL_PIE_extra_*`` ids), a seeded sample."""
    from types import SimpleNamespace

    from lcl.core.profiles import PROFILES
    from lcl.core.records import Task
    from lcl.study import loaders

    monkeypatch.setenv("LCL_CACHE", str(tmp_path))
    body = "n = int(input())\nfor i in range(n):\n    print(i * {k})\n"
    tasks = [Task("PIE", f"p{k:05d}_s{k}", "program", body.format(k=k) + "x = 1\n" * (30 - k), None,
                  extra={"problem_id": f"p{k:05d}", "fast": f"print({k})\n", "loc": 40 - k}) for k in range(12)]
    monkeypatch.setitem(loaders.LOADERS, "PIE", lambda: SimpleNamespace(tasks=tasks))
    monkeypatch.setitem(loaders.SELECT_K, "PIE", 4)
    monkeypatch.setattr(loaders, "benchmark_available", lambda b: True)
    profile = PROFILES["smoke"]  # two tasks per benchmark
    chosen = {t.task_id for t in loaders.select("PIE", tasks)}
    opt = candidate_generation.pie_opt_tasks(profile, 7)
    assert len(opt) == profile.max_tasks_per_benchmark and not chosen & {t.task_id for t in opt}
    assert [t.task_id for t in candidate_generation.pie_opt_tasks(profile, 7)] == [t.task_id for t in opt]  # seeded
    rows = candidate_generation.candidates([t for t in tasks if t.task_id in chosen], profile, 7, records.Ledger())
    assert rows and {r["variant_type"] for r in rows} == {"MUT"}  # the selected slow programs: mutants only
    ledger = records.Ledger()
    pairs = candidate_generation.pie_opt_candidates(opt, ledger)
    assert [r["generator"] for r in pairs] == ["pie_fast"] * len(opt) and ledger.generated["OPT candidates"] == len(opt)
    assert all(r["stdin"] and r["candidate"].startswith("print(") for r in pairs)
    assert {r["task"] for r in pairs} == {f"PIE/{t.extra['problem_id']}" for t in opt}
