"""Constraint specs: validation, decoding from any bytes, determinism, relations, grammars,
inference from seeds, and the Hypothesis backend."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lcl.core.errors import UserError
from lcl.engine.inputs import Spec, decode_bytes, generate, infer_function, infer_program, strategies

SORTED_SEARCH = Spec.from_dict({
    "task": "MBPP/34", "level": "function",
    "args": [{"type": "list", "len": [1, 8], "elem": {"type": "int", "min": -20, "max": 20},
              "sorted": "asc", "distinct": True},
             {"type": "int"}],
    "relations": [{"kind": "len_of", "arg": 1, "of": 0}],
})

PROGRAM = Spec.from_dict({
    "task": "PIE/x", "level": "program",
    "grammar": [
        {"tokens": [{"type": "int", "min": 1, "max": 5, "bind": "N"}, {"type": "int", "min": 0, "max": 9}]},
        {"tokens": [{"type": "int", "min": -3, "max": 3, "repeat": "N"}]},
        {"repeat": "N", "lines": [{"tokens": [{"type": "str", "len": [1, 3], "alphabet": "xy"}]}]},
    ],
})


def _valid_search(inp):
    xs, n = inp
    return xs == sorted(xs) and len(set(xs)) == len(xs) and n == len(xs) and all(-20 <= x <= 20 for x in xs)


def _valid_program(text):
    lines = text.rstrip("\n").split("\n")
    n, k = map(int, lines[0].split())
    row = list(map(int, lines[1].split()))
    return 1 <= n <= 5 and 0 <= k <= 9 and len(row) == n and len(lines) == 2 + n and all(
        set(s) <= {"x", "y"} and 1 <= len(s) <= 3 for s in lines[2:])


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=64))
def test_any_bytes_decode_to_a_valid_input(data):
    assert _valid_search(decode_bytes(SORTED_SEARCH, data))
    assert _valid_program(decode_bytes(PROGRAM, data))


def test_seeded_generation_is_deterministic_and_varied():
    a, b = generate(SORTED_SEARCH, 200, seed=7), generate(SORTED_SEARCH, 200, seed=7)
    assert a == b
    assert a != generate(SORTED_SEARCH, 200, seed=8)
    assert len({repr(x) for x in a}) > 100
    assert all(map(_valid_search, a))
    assert all(map(_valid_program, generate(PROGRAM, 100, seed=1)))


def test_index_relation_and_optional_and_dict():
    spec = Spec.from_dict({"task": "t", "level": "function", "args": [
        {"type": "list", "len": [1, 4], "elem": {"type": "str", "len": [0, 2], "alphabet": "ab"}},
        {"type": "int"},
        {"type": "optional", "inner": {"type": "int", "min": 0, "max": 1}, "p_none": 0.5},
        {"type": "dict", "len": [0, 3], "key": {"type": "str", "len": [1, 2], "alphabet": "k"},
         "value": {"type": "float", "min": 0, "max": 1, "digits": 2}}],
        "relations": [{"kind": "index_in", "arg": 1, "of": 0}]})
    out = generate(spec, 300, seed=3)
    assert all(0 <= i < len(xs) for xs, i, _, _ in out)
    assert {o is None for _, _, o, _ in out} == {True, False}
    assert all(isinstance(d, dict) for *_, d in out)


def test_malformed_specs_are_rejected_with_the_node_named():
    with pytest.raises(UserError, match=r"args\[0\]"):
        Spec.from_dict({"task": "t", "level": "function", "args": [{"type": "integer"}]})
    with pytest.raises(UserError, match="level"):
        Spec.from_dict({"task": "t", "level": "module"})
    with pytest.raises(UserError, match="tokens"):
        Spec.from_dict({"task": "t", "level": "program", "grammar": [{"nope": 1}]})


def test_infer_function_from_seeds():
    seeds = [[[1, 2, 3], 3], [[0, 5], 2], [[-4, -1, 0, 9], 4]]
    spec = infer_function("MBPP/x", "f", seeds)
    assert spec.origin == "inferred" and not spec.verified
    assert spec.args[0]["type"] == "list" and spec.args[0].get("sorted") == "asc"
    assert {"kind": "len_of", "arg": 1, "of": 0} in spec.relations
    for xs, n in generate(spec, 100, seed=0):
        assert n == len(xs) and xs == sorted(xs)


def test_infer_function_handles_strings_floats_and_none():
    spec = infer_function("t", "f", [["abc", 1.5, None], ["Zz", 2.0, 3]])
    types = [a["type"] for a in spec.args]
    assert types == ["str", "float", "optional"]
    assert set("abcZz") <= set(spec.args[0]["alphabet"])


def test_infer_program_count_then_rows():
    seeds = ["3\n1 a\n2 b\n3 c\n", "2\n5 x\n6 y\n"]
    spec = infer_program("APPS/1", seeds)
    for text in generate(spec, 50, seed=0):
        lines = text.rstrip("\n").split("\n")
        assert int(lines[0]) == len(lines) - 1
        assert all(len(line.split()) == 2 for line in lines[1:])


def test_infer_program_n_then_n_tokens():
    spec = infer_program("t", ["3\n1 2 3\n", "5\n9 8 7 6 5\n"])
    for text in generate(spec, 50, seed=0):
        first, second = text.rstrip("\n").split("\n")
        assert int(first) == len(second.split())


def test_hypothesis_backend_produces_valid_inputs_deterministically():
    a = strategies.sample(SORTED_SEARCH, 60, seed=5)
    assert a and a == strategies.sample(SORTED_SEARCH, 60, seed=5)
    assert all(map(_valid_search, a))
    assert all(map(_valid_program, strategies.sample(PROGRAM, 40, seed=5)))


def test_quality_probe_counts_validity_and_branch_coverage():
    from lcl.engine.inputs.quality import measure
    from lcl.core.records import Task

    ref = "def f(xs, n):\n    if n == 0:\n        return 0\n    if n > 100:\n        raise ValueError\n    return xs[0]\n"
    task = Task("MBPP", "t", "function", ref, "f", seed_inputs=([[1], 1],))
    q = measure(task, SORTED_SEARCH, n=50, seed=0)
    assert q.validity == 1.0 and q.n_inputs == 50
    assert q.branch_coverage is not None and q.branch_coverage < 1.0  # n == 0 and n > 100 never happen
    bad = Spec.from_dict({"task": "t", "level": "function", "args": [{"type": "list", "len": [0, 0], "elem": {"type": "int"}},
                                                                     {"type": "int", "min": 1, "max": 5}]})
    q2 = measure(task, bad, n=20, seed=0)
    assert q2.verdicts.get("raise:IndexError", 0) >= 19 and q2.validity < 0.1
    assert "raise:IndexError" in q2.examples


def test_quality_probe_programs_and_timeouts():
    from lcl.engine.inputs.quality import measure
    from lcl.core.records import Task

    prog = "import sys\nn, k = map(int, input().split())\nrow = sys.stdin.buffer.readline().split()\nprint(sum(map(int, row)))\n"
    task = Task("PIE", "p", "program", prog, None)
    q = measure(task, PROGRAM, n=30, seed=0)
    assert q.validity == 1.0, q.verdicts
    slow = Task("PIE", "s", "program", "while True:\n    pass\n", None)
    q2 = measure(slow, PROGRAM, n=2, seed=0, timeout=0.2)
    assert q2.verdicts == {"timeout": 2}


def test_atheris_coverage_guided_runs_in_a_subprocess_and_is_reproducible():
    from lcl.engine.inputs.atheris_driver import coverage_guided

    code = "def f(xs, n):\n    if n > 3:\n        return sum(xs)\n    return 0\n"
    a = coverage_guided(code, "f", SORTED_SEARCH.to_dict(), runs=300, seed=5)
    assert len(a) == 300 and all(map(_valid_search, a))
    assert a == coverage_guided(code, "f", SORTED_SEARCH.to_dict(), runs=300, seed=5)
    prog = coverage_guided("import sys\nprint(sys.stdin.read().count('x'))\n", None, PROGRAM.to_dict(), runs=50, seed=2)
    assert len(prog) == 50 and all(map(_valid_program, prog))


def test_published_ids_resolve_to_spec_generators(project_data):
    from lcl.study.task_specs import resolve_published, task_uid_of

    assert task_uid_of("LOCAL_HE_0_MUT_17") == "HumanEval/0"
    assert task_uid_of("PIE_p02599_s870922238#3") == "PIE/p02599"
    assert task_uid_of("nonsense") is None
    r = resolve_published({"id": "LOCAL_HE_0_MUT_17", "golden_code": "", "generated_code": ""})
    assert r["entry"] == "has_close_elements" and r["stdin"] is False
    gen = r["generator"]
    xs = gen(1, 50)
    assert len(xs) == 50 and xs == gen(1, 50) and "lcl.inputs.resolve.SpecGenerator[HumanEval/0" in gen.cache_name



def test_et_seeds_false_keeps_only_the_benchmarks_own_seed_inputs(project_data):
    from lcl.engine.inputs import dumps
    from lcl.engine.inputs.generate import task_seeds
    from lcl.core.records import Task

    base = {"task": "MBPP/1", "level": "function", "args": [{"type": "int", "min": 0, "max": 9}]}
    on, off = Spec.from_dict(base), Spec.from_dict({**base, "et_seeds": False})
    assert on.et_seeds and "et_seeds" not in dumps(on)  # every other spec's digest is unchanged
    assert Spec.from_dict(__import__("json").loads(dumps(off))).et_seeds is False
    with pytest.raises(UserError, match="et_seeds"):
        Spec.from_dict({**base, "et_seeds": "no"})
    t = Task("MBPP", "1", "function", "def f(x):\n    return x\n", "f", seed_inputs=([1], [2], [7], [8]),
             extra={"n_own_seeds": 2})
    assert task_seeds(t, on) == [[1], [2], [7], [8]] and task_seeds(t, off) == [[1], [2]]


@pytest.mark.mirror
def test_reviewed_et_seeds_false_spec_opens_runs_with_the_tasks_own_asserts(project_data):
    """MBPP/123 (reviewed et_seeds: false): its three asserts open every run, none of the 53 ET
    inputs. MBPP's full task list comes from the data mirror."""
    from lcl.engine.inputs.generate import task_seeds
    from lcl.study.task_specs import resolve_published
    from lcl.study.task_specs import spec_for, tasks_for

    task, spec = tasks_for("MBPP/123")[0], spec_for("MBPP/123")
    if task.extra.get("n_et_tests"):
        assert spec.et_seeds is False and task.extra["n_own_seeds"] == 3 and len(task.seed_inputs) > 50
        gen = resolve_published({"id": "x", "task": "MBPP/123", "golden_code": "", "generated_code": ""})["generator"]
        xs = gen(5, 20)
        assert xs[:3] == [[999], [9999], [99]] and all(1 <= x[0] <= 1000 for x in xs[3:])
    he = tasks_for("HumanEval/0")[0]
    assert task_seeds(he, spec_for("HumanEval/0")) == list(he.seed_inputs)  # default: ET inputs kept


def test_lets_bind_a_shared_width_and_join_renders_words():
    spec = Spec.from_dict({"task": "t", "level": "function",
                           "lets": [{"type": "int", "min": 1, "max": 4, "bind": "W"}],
                           "args": [{"type": "list", "len": [1, 5], "elem": {"type": "list", "len": "W",
                                                                              "elem": {"type": "int", "min": 0, "max": 9}}},
                                    {"type": "join", "sep": " ", "items": {"type": "list", "len": [1, 3], "elem": {
                                        "type": "str", "len": [1, 3], "alphabet": "ab"}}}]})
    out = generate(spec, 100, seed=0)
    assert {len({len(r) for r in m}) for m, _ in out} == {1}, "rows of one matrix share a width"
    assert len({len(m[0]) for m, _ in out}) > 1, "the width varies between inputs"
    assert all(isinstance(s, str) and "  " not in s and s.strip() == s for _, s in out)
    assert "lets" in spec.to_dict()
    with pytest.raises(UserError, match="bind"):
        Spec.from_dict({"task": "t", "level": "function", "lets": [{"type": "int"}], "args": []})


def test_infer_grammar_from_program_reads():
    from lcl.engine.inputs.infer_code import infer_from_code

    prog = ("import sys\ninput = sys.stdin.readline\nN, K = map(int, input().split())\n"
            "A = list(map(int, input().split()))\nfor _ in range(K):\n    l, r = map(int, input().split())\n"
            "print(sum(A))\n")
    spec = infer_from_code("PIE/x", prog)
    assert spec is not None and spec.origin == "inferred"
    for text in generate(spec, 30, seed=0):
        lines = text.rstrip("\n").split("\n")
        n, k = map(int, lines[0].split())
        assert len(lines[1].split()) == n and len(lines) == 2 + k
    assert infer_from_code("PIE/y", "import sys\nprint(sum(map(int, sys.stdin.read().split())))\n") is None


def test_long_inputs_do_not_run_out_of_bytes():
    spec = Spec.from_dict({"task": "t", "level": "function",
                           "args": [{"type": "list", "len": [200, 200], "elem": {"type": "int", "min": 0, "max": 1000}}]})
    (xs,), = generate(spec, 1, seed=3)
    assert len(set(xs[-50:])) > 30, "the tail of a long input must not collapse to the range minimum"


def test_probe_survives_a_program_that_closes_stdin():
    from lcl.engine.inputs.quality import measure
    from lcl.core.records import Task

    prog = "import os\nprint(open(0).read().count('x'))\n"
    q = measure(Task("PIE", "p", "program", prog, None), PROGRAM, n=20, seed=0)
    assert q.validity == 1.0, q.verdicts


def test_probe_still_frees_each_programs_cyclic_garbage():
    """A program's globals form cycles; the probe collects them after every input (the objects
    it holds for its whole life are frozen out of the collector, not the inputs' garbage). Each
    input here leaves a 200 MB cycle that only a collection frees: 30 of them kept alive would
    pass the probe's 4 GiB address-space limit and raise MemoryError."""
    from lcl.engine.inputs.quality import measure
    from lcl.core.records import Task

    prog = "class Node:\n    pass\nnode = Node()\nnode.me = node\nnode.blob = bytearray(200_000_000)\nprint(len(input()))\n"
    q = measure(Task("PIE", "p", "program", prog, None), PROGRAM, n=30, seed=0, timeout=5.0)
    assert q.verdicts == {"ok": 30}, q.verdicts


def test_sorted_sequence_of_unorderable_values_does_not_raise():
    from lcl.engine.inputs.generate import _sort

    items = ["B", 2, "A", 1]
    _sort(items, reverse=False)
    assert items == [1, 2, "A", "B"]
    nums = [3, 1, 2]
    _sort(nums, reverse=True)
    assert nums == [3, 2, 1]


def test_quality_of_an_inferred_spec_with_complex_values(tmp_path, monkeypatch):
    """MBPP/124 (the angle of a complex number): its inferred spec holds complex seeds, which JSON
    cannot; the quality report's cache key must still be computed (it once stopped the full 01)."""
    from lcl.core import paths
    from lcl.engine.inputs.quality import cached_measure
    from lcl.engine.inputs.spec import dumps
    from lcl.core.records import Task

    monkeypatch.setattr(paths, "cache", lambda: tmp_path)
    seeds = [[0, 1j], [2, 1j], [0, 2j]]
    spec = infer_function("MBPP/124", "angle_complex", seeds)
    with pytest.raises(TypeError):
        dumps(spec)  # strict: a file cannot hold it
    ref = "import cmath\ndef angle_complex(a, b):\n    return cmath.phase(a + b)\n"
    task = Task("MBPP", "124", "function", ref, "angle_complex", seed_inputs=tuple(seeds))
    q = cached_measure(task, spec, 10, 0)
    assert q.n_inputs == 10 and q.validity == 1.0
    assert cached_measure(task, spec, 10, 0) == q  # the second call is the cached value
