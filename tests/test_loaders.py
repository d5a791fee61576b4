"""Loaders: seed-input parsing, selection, rejection reporting, pair datasets."""

from __future__ import annotations

import pytest

from lcl.study import loaders
from lcl.core.records import Pair, Task


def test_calls_to_extracts_literal_arguments_only():
    tests = """
def check(candidate):
    assert candidate([1, 2], 3) == True
    assert abs(candidate([0.5], 1e-3) - 1) < 1e-6
    assert candidate(x) == 1          # not a literal: skipped
    for i in range(3):
        assert candidate(i)           # not a literal: skipped
    assert candidate('a', b=2)        # keywords: skipped
"""
    assert loaders.calls_to(tests, "candidate") == [[[1, 2], 3], [[0.5], 1e-3]]
    assert loaders.count_asserts(tests) == 5


def test_parse_error_reports_line_and_python38_hint():
    assert loaders.parse_error("x = 1\n") is None
    err = loaders.parse_error("def f(:\n  pass")
    assert err and err.startswith("SyntaxError") and "line 1" in err
    err = loaders.parse_error("print((*[1, 2]))\n")
    assert err and "Python 3.8" in err


def test_published_ids_map_to_tasks():
    assert loaders.published_task("LOCAL_HE_112_OP_1") == "HumanEval/112"
    assert loaders.published_task("LOCAL_APPS_0707_11_MUT_7") == "APPS/707"
    assert loaders.published_task("LOCAL_MBPP_971_MUT_3") == "MBPP/971"
    assert loaders.published_task("LOCAL_PIE_extra_p03309_s289814925_OP_1") == "PIE/p03309_s289814925"
    assert loaders.published_task("garbage") is None


def test_select_takes_the_longest():
    tasks = [Task("MBPP", str(i), "function", "x=1\n" * i, "f") for i in range(1, 150)]
    chosen = loaders.select("MBPP", tasks)
    assert len(chosen) == 100 and loaders.loc(chosen[0].reference) == 149
    assert min(loaders.loc(t.reference) for t in chosen) == 50


def test_dependency_kinds():
    from lcl.study.overview import cyclomatic, dependency_kind

    assert dependency_kind("x = 1") == "self-contained"
    assert dependency_kind("import math\nfrom collections import Counter") == "stdlib"
    assert dependency_kind("import numpy as np") == "third-party"
    assert cyclomatic("def f(x):\n  if x:\n    return 1\n  return 2\n") == 2


def test_humaneval_from_registry(project_data):
    res = loaders.load_humaneval()
    assert len(res.tasks) == 164 and not res.rejected
    t = res.tasks[0]
    assert t.uid == "HumanEval/0" and t.entry_point == "has_close_elements" and t.level == "function"
    assert t.seed_inputs and all(isinstance(a, list) for a in t.seed_inputs)
    assert t.description and "threshold" in t.description
    # every seed input is callable on the reference without error (the tests' own inputs)
    ns: dict = {}
    exec(compile(t.reference, "<ref>", "exec"), ns)
    for args in t.seed_inputs[:20]:
        ns[t.entry_point](*args)


@pytest.mark.mirror
def test_mirror_benchmarks_counts(project_data):
    mbpp = loaders.load_mbpp()
    assert len(mbpp.tasks) + len(mbpp.rejected) == 974
    assert sum(t.n_tests for t in loaders.select("MBPP", mbpp.tasks)) == 300
    pie = loaders.load_pie()
    assert len(pie.tasks) + len(pie.rejected) == 1000
    assert all(r.file.endswith("py_reference.jsonl") and r.line > 0 for r in pie.rejected)
    apps = loaders.load_apps()
    assert len(loaders.select("APPS", apps.tasks)) == 100


@pytest.mark.mirror
def test_pair_datasets(project_data):
    counts = {name: len(f()) for name, f in loaders.PAIR_LOADERS.items()}
    assert counts == {"PIE": 1000, "CodeScore_test": 854, "ShareCode_java": 1000, "LoCaL_published": 616}
    pub = loaders.load_local_published()
    assert all(isinstance(p, Pair) and p.task for p in pub)
    with_scores = [p for p in pub if "author_scores" in p.extra]
    assert with_scores and "surfaceSim" in with_scores[0].extra["author_scores"]
    java = loaders.load_sharecode_java()
    assert {p.variant_type for p in java} == {"EQ", "NEQ"} and all(p.lang == "java" for p in java)
