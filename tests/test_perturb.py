"""Semantics-preserving perturbations (study X2, ``lcl.engine.variants.perturb``).

Behaviour is compared by running the fixture programs in-process. They are this file's own
trusted code, so ``exec`` is acceptable here. The perturbations themselves never execute code.
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import io
import random
import sys
from collections.abc import Callable
from typing import Any

import pytest

from lcl.core.errors import UserError
from lcl.engine.variants import perturb as P
from lcl.engine.variants.mutants import normalise

# ----------------------------------------------------------------------------- fixtures

FUNCS = '''\
SCALE = 3


def helper(values, factor=2):
    total = 0
    for v in values:
        total += v * factor
    return total


def entry(items, limit=10, *, flag=False):
    """Sum scaled items below a limit."""
    kept = [x for x in items if x < limit]
    count = len(kept)

    def inner(y):
        return y + count
    first = 1
    second = 2
    biased = [inner(k) for k in kept]
    result = helper(biased, factor=SCALE) + first + second
    if flag:
        result = -result
    return result
'''

STDIN = '''\
import sys
n = int(input())
nums = list(map(int, input().split()))
best = 0
acc = 0
for x in nums:
    acc = max(0, acc + x)
    best = max(best, acc)
print(best)
print(sum(nums) * n, sys.maxsize > 0)
'''

LOOPS = '''\
def gcd(a, b):
    while b:
        a, b = b, a % b
    return a


def solve(pairs):
    out = {}
    for p, q in pairs:
        try:
            out[p, q] = p // q
        except ZeroDivisionError as err:
            out[p, q] = str(err)[:4]
    lo = 0
    step = 2
    hi = len(pairs)
    return sorted(out.items(), key=lambda kv: kv[0]), gcd(hi + 12, 18), lo, step
'''

SCOPES = '''\
counter = 0


def bump():
    global counter
    counter += 1
    return counter


def make_acc(start):
    total = start

    def add(x):
        nonlocal total
        total += x
        return total
    return add


def gen(n):
    i = 0
    while i < n:
        yield i * i
        i += 1


def run(n):
    acc = make_acc(n)
    return [bump(), bump(), acc(2), acc(3), list(gen(n)), {k: v for k, v in enumerate(gen(3))}]
'''

CLASSY = '''\
class Solution:
    def twoSum(self, nums, target):
        seen = {}
        for i, x in enumerate(nums):
            if target - x in seen:
                return [seen[target - x], i]
            seen[x] = i
        return []
'''

Probe = Callable[[dict[str, Any]], Any]


FIXTURES: dict[str, tuple[str, list[Probe], str]] = {
    # name: (source, probes, stdin text or "" for function-level code)
    "funcs": (FUNCS, [lambda ns: ns["entry"]([1, 5, 12, 7]),
                      lambda ns: ns["entry"]([1, 5, 12, 7], limit=6, flag=True),
                      lambda ns: ns["helper"]([1, 2], factor=5),
                      lambda ns: ns["entry"]([], 3)], ""),
    "stdin": (STDIN, [lambda ns: ns["__stdout__"]], "5\n3 -4 5 -1 2 -8 6\n"),
    "loops": (LOOPS, [lambda ns: ns["solve"]([(6, 3), (5, 0), (9, 4)]), lambda ns: ns["gcd"](84, 36)], ""),
    "scopes": (SCOPES, [lambda ns: ns["run"](4), lambda ns: ns["run"](1)], ""),
    "classy": (CLASSY, [lambda ns: ns["Solution"]().twoSum([2, 7, 11, 15], 9),
                        lambda ns: ns["Solution"]().twoSum([1, 2], 99)], ""),
}


def behaviour(src: str, fixture: str, monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Run ``src`` as the fixture's program (stdin fed, stdout captured) and apply its probes."""
    _, probes, stdin = FIXTURES[fixture]
    out: list[Any] = []
    for probe in probes:  # a fresh namespace per probe: globals such as ``counter`` restart
        ns: dict[str, Any] = {"__name__": "__main__" if stdin else "fixture"}
        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            exec(compile(src, f"<{fixture}>", "exec"), ns)  # noqa: S102 - trusted fixture code
        ns["__stdout__"] = buf.getvalue()
        try:
            out.append(("ok", probe(ns)))
        except Exception as exc:  # noqa: BLE001 - an exception is behaviour too
            out.append(("raised", type(exc).__name__))
    return out


def identifiers(src: str) -> set[str]:
    return {n.id for n in ast.walk(ast.parse(src)) if isinstance(n, ast.Name)} | \
        {n.arg for n in ast.walk(ast.parse(src)) if isinstance(n, ast.arg)}


def without_docstrings(src: str) -> str:
    tree = ast.parse(src)
    for n in ast.walk(tree):
        body = getattr(n, "body", None)
        if isinstance(n, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and body \
                and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                and isinstance(body[0].value.value, str):
            n.body = body[1:] or [ast.Pass()]
    return ast.dump(tree)


REFERENCE = '''\
"""Reference module."""


def entry(items, limit=10, *, flag=False):
    """Reference docstring,
    on two lines."""
    return sum(items)


def gcd(a, b):
    \'\'\'Greatest common divisor.\'\'\'
    return a
'''

# where each perturbation must apply (elsewhere it may return None)
MUST_APPLY = {
    "misleading_comment": set(FIXTURES),
    "reference_docstring": {"funcs", "loops", "stdin", "scopes", "classy"},
    "rename_identifiers": set(FIXTURES),
    "dead_code": set(FIXTURES),
    "reorder_statements": {"funcs", "stdin", "loops"},
}


# ----------------------------------------------------------------------------- every perturbation

@pytest.mark.parametrize("fixture", sorted(FIXTURES))
@pytest.mark.parametrize("name", list(P.PERTURBATIONS))
def test_perturbation_parses_changes_and_preserves_behaviour(name: str, fixture: str,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    src = FIXTURES[fixture][0]
    expected = behaviour(src, fixture, monkeypatch)
    assert all(tag == "ok" for tag, _ in expected)  # the fixtures themselves run cleanly
    applied = 0
    for seed in range(4):
        out = P.PERTURBATIONS[name](src, REFERENCE, random.Random(seed))
        if out is None:
            continue
        applied += 1
        ast.parse(out)
        assert out != src
        assert behaviour(out, fixture, monkeypatch) == expected, out
    if fixture in MUST_APPLY[name]:
        assert applied == 4


@pytest.mark.parametrize("name", list(P.PERTURBATIONS))
def test_deterministic_per_seed(name: str) -> None:
    for fixture in MUST_APPLY[name]:
        src = FIXTURES[fixture][0]
        assert P.PERTURBATIONS[name](src, REFERENCE, random.Random(3)) == \
            P.PERTURBATIONS[name](src, REFERENCE, random.Random(3))


@pytest.mark.parametrize("name", ["misleading_comment", "rename_identifiers", "dead_code", "reorder_statements"])
def test_seed_sensitive_where_choices_exist(name: str) -> None:
    several_pairs = "def f(p):\n    a = 1\n    b = 2\n    c = 3\n    d = p\n    return a + b + c + d\n"
    src = several_pairs if name == "reorder_statements" else FIXTURES["funcs"][0]
    outs = {P.PERTURBATIONS[name](src, REFERENCE, random.Random(seed)) for seed in range(8)}
    assert None not in outs and len(outs) > 1


@pytest.mark.parametrize("name", list(P.PERTURBATIONS))
def test_not_applicable_to_unparsable_candidates(name: str) -> None:
    assert P.PERTURBATIONS[name]("def f(:\n", REFERENCE, random.Random(0)) is None


def test_registry_order_and_unknown_name() -> None:
    assert list(P.PERTURBATIONS) == ["misleading_comment", "reference_docstring", "rename_identifiers", "dead_code",
                                     "reorder_statements"]
    with pytest.raises(UserError, match="unknown perturbation"):
        P.apply_perturbation("nope", "x = 1\n", "", random.Random(0))


# ----------------------------------------------------------------------------- misleading_comment

def test_misleading_comment_only_adds_comments_at_valid_indentation() -> None:
    src = "#!/usr/bin/env python\n# -*- coding: utf-8 -*-\n" + CLASSY + "\n\n@staticmethod\ndef g():\n    return 1\n"
    out = P.misleading_comment(src, "", random.Random(0))
    assert out is not None and ast.dump(ast.parse(out)) == ast.dump(ast.parse(src))
    lines = out.splitlines()
    assert lines[:2] == src.splitlines()[:2]  # shebang and encoding stay first
    assert lines[2] in P.CLAIMS
    method = lines.index("    def twoSum(self, nums, target):")
    assert lines[method - 1].startswith("    # ") and lines[method - 1].strip() in P.CLAIMS
    decorator = lines.index("@staticmethod")
    assert lines[decorator - 1] in P.CLAIMS  # above the decorator, not between it and the def
    assert sum(line.strip() in P.CLAIMS for line in lines) == 3  # top, the method, g (none for a class)


def test_misleading_comment_keeps_crlf_and_applies_to_an_empty_module() -> None:
    out = P.misleading_comment("x = 1\r\ny = 2\r\n", "", random.Random(0))
    assert out is not None and out.endswith("x = 1\r\ny = 2\r\n") and "\r\n" in out.split("x = 1")[0]
    assert P.misleading_comment("", "", random.Random(0)) is not None


# ----------------------------------------------------------------------------- reference_docstring

def test_reference_docstring_copies_verbatim_and_replaces() -> None:
    out = P.reference_docstring(LOOPS + '\n\ndef entry():\n    "candidate\'s own"\n    return 0\n', REFERENCE,
                                random.Random(0))
    assert out is not None
    tree = ast.parse(out)
    fns = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    assert ast.get_docstring(tree, clean=False) == "Reference module."
    assert ast.get_docstring(fns["entry"], clean=False) == "Reference docstring,\n    on two lines."
    assert "\'\'\'Greatest common divisor.\'\'\'" in out  # the reference's own quoting
    assert ast.get_docstring(fns["solve"]) is None  # no same-named reference function
    assert "candidate's own" not in out
    assert without_docstrings(out) == without_docstrings(LOOPS + '\n\ndef entry():\n    return 0\n')


def test_reference_docstring_first_function_when_names_differ_and_one_line_defs() -> None:
    out = P.reference_docstring("def other(x): return x + 1\n", REFERENCE, random.Random(0))
    assert out is not None
    fn = ast.parse(out).body[1]
    assert isinstance(fn, ast.FunctionDef) and fn.name == "other"
    assert ast.get_docstring(fn, clean=False) == "Reference docstring,\n    on two lines."
    ns: dict[str, Any] = {}
    exec(out, ns)  # noqa: S102 - trusted fixture code
    assert ns["other"](1) == 2


def test_reference_docstring_not_applicable() -> None:
    assert P.reference_docstring(FUNCS, "def entry():\n    return 1\n", random.Random(0)) is None  # no docstrings
    reads_doc = 'def entry():\n    """x"""\n    return entry.__doc__\n'
    assert P.reference_docstring(reads_doc, REFERENCE, random.Random(0)) is None
    same = 'def entry():\n    """Reference docstring,\n    on two lines."""\n'
    assert P.reference_docstring('"""Reference module."""\n' + same, REFERENCE, random.Random(0)) is None


# ----------------------------------------------------------------------------- rename_identifiers

def _fn(src: str, name: str) -> ast.FunctionDef:
    return next(n for n in ast.walk(ast.parse(src)) if isinstance(n, ast.FunctionDef) and n.name == name)


def _fn_src(src: str, name: str) -> str:
    return ast.unparse(_fn(src, name))


def test_rename_keeps_entry_point_and_keyword_interface() -> None:
    out = P.rename_identifiers(FUNCS, REFERENCE, random.Random(0))
    assert out is not None
    entry, helper = _fn(out, "entry"), _fn(out, "helper")
    # defaulted and keyword-only parameters of top-level functions, and names used as keywords
    assert [a.arg for a in entry.args.args][1:] == ["limit"] and [a.arg for a in entry.args.kwonlyargs] == ["flag"]
    assert [a.arg for a in helper.args.args][1:] == ["factor"]
    assert _fn(out, "inner") is not None and "SCALE" in identifiers(out)  # function names, module globals
    gone = {"total", "kept", "count", "first", "second", "biased", "result", "values", "items", "x", "y", "k", "v"}
    assert not gone & identifiers(out)
    assert {"v0", "v1", "v2"} <= identifiers(out)


def test_rename_skips_global_nonlocal_methods_and_fresh_names_never_collide() -> None:
    out = P.rename_identifiers(SCOPES, "", random.Random(0))
    assert out is not None and {"counter", "total"} <= identifiers(out)  # global / nonlocal
    assert not {"i", "start", "n", "acc"} & identifiers(out)  # plain locals and parameters are renamed
    out = P.rename_identifiers(CLASSY, "", random.Random(0))
    assert out is not None and [a.arg for a in _fn(out, "twoSum").args.args] == ["self", "nums", "target"]
    assert not {"seen", "i", "x"} & identifiers(out)
    src = "def f(a):\n    v0 = a + 1\n    v1 = v0 * 2\n    return v1 + a\n"
    out = P.rename_identifiers(src, "", random.Random(0))
    assert out is not None and identifiers(out) == {"v2", "v3", "v4"}
    ns: dict[str, Any] = {}
    exec(out, ns)  # noqa: S102 - trusted fixture code
    assert ns["f"](5) == 17


def test_rename_respects_keyword_calls_dynamic_scopes_and_shadowing() -> None:
    kw = "def f(a, b):\n    return a - b\n\n\ndef g():\n    return f(1, b=2)\n"
    out = P.rename_identifiers(kw, "", random.Random(0))
    assert out is not None and [a.arg for a in _fn(out, "f").args.args][1] == "b"
    assert P.rename_identifiers("def f(a):\n    x = a\n    return locals()\n", "", random.Random(0)) is None
    assert P.rename_identifiers("def f(a, b):\n    return g(**a)\n", "", random.Random(0)) is None
    ev = "def f():\n    x = 1\n    return eval('x + 1')\n\n\ndef g(y):\n    x = y\n    return x\n"
    out = P.rename_identifiers(ev, "", random.Random(0))
    assert out is not None and "eval('x + 1')" in out and "x" in identifiers(_fn_src(out, "f"))  # f untouched
    assert "x" in identifiers(_fn_src(out, "g")) and "y" not in identifiers(out)  # a word of an eval string
    # a comprehension variable shadowing a global must not drag the global along
    shadow = "i = 10\n\n\ndef f(xs):\n    return [i for i in xs] + [i]\n"
    out = P.rename_identifiers(shadow, "", random.Random(0))
    assert out is not None and out.rstrip().endswith("+ [i]")
    ns: dict[str, Any] = {}
    exec(out, ns)  # noqa: S102 - trusted fixture code
    assert ns["f"]([1, 2]) == [1, 2, 10]


SCOPING = '''\
x = 5
found = -1


class A:
    x = 1

    def f(self):
        return x


def first_big(xs):
    if any((hit := v) > 2 for v in xs):
        return hit
    return None


print(A().f(), A.x, first_big([1, 3, 4]), first_big([0]), found)
'''


def test_rename_follows_python_scoping() -> None:
    """Class scopes are invisible to their methods; a walrus in a comprehension binds in the
    enclosing function."""
    def run(src: str) -> str:
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            exec(src, {"__name__": "__main__"})  # noqa: S102 - trusted fixture code
        return buf.getvalue()

    for seed in range(3):
        out = P.rename_identifiers(SCOPING, "", random.Random(seed))
        assert out is not None and run(out) == run(SCOPING) == "5 1 3 None -1\n"
        assert "hit" not in identifiers(out) and "x = 1" in out  # the class attribute keeps its name


def test_rename_function_level_module_globals_kept_stdin_program_globals_renamed() -> None:
    assert P.rename_identifiers("LIMIT = 3\nTABLE = [LIMIT]\n", "", random.Random(0)) is None
    out = P.rename_identifiers(STDIN, "", random.Random(0))
    assert out is not None and not {"n", "nums", "best", "acc", "x"} & identifiers(out)
    assert {"sys", "input", "print", "map", "max", "sum"} <= identifiers(out)


# ----------------------------------------------------------------------------- dead_code

def test_dead_code_uses_fresh_names_and_keeps_docstrings_and_future_imports() -> None:
    src = 'from __future__ import annotations\ncache = 5\n\n\ndef f():\n    """Doc."""\n    return cache\n'
    for seed in range(20):
        out = P.dead_code(src, "", random.Random(seed))
        assert out is not None
        tree = ast.parse(out)
        assert isinstance(tree.body[0], ast.ImportFrom) and tree.body[0].module == "__future__"
        assert ast.get_docstring(_fn(out, "f")) == "Doc."
        ns: dict[str, Any] = {}
        exec(out, ns)  # noqa: S102 - trusted fixture code
        assert ns["f"]() == 5  # an inserted ``cache = ...`` would have made it local
        added = identifiers(out) - identifiers(src) - set(dir(builtins))
        assert all(name[:3] in {"tmp", "buf", "acc", "cac", "see", "unu", "scr", "idx"} for name in added)


def test_dead_code_runs_assignments_only_at_function_top_level_and_never_beside_locals() -> None:
    src = "X = 1\n\n\ndef f(p):\n    for q in p:\n        r = q\n    return sorted(locals())\n\n\n" \
          "def g(p):\n    while p:\n        p -= 1\n    return p\n"
    g_body_positions = 0
    for seed in range(30):
        out = P.dead_code(src, "", random.Random(seed))
        assert out is not None
        tree = ast.parse(out)
        parents = {id(c): p for p in ast.walk(tree) for c in ast.iter_child_nodes(p)}
        for n in ast.walk(tree):
            if isinstance(n, ast.Assign) and not {t.id for t in n.targets if isinstance(t, ast.Name)} & {"X", "r"}:
                owner = parents[id(n)]
                if not (isinstance(owner, ast.If) and isinstance(owner.test, ast.Constant)):  # not inside ``if False``
                    assert isinstance(owner, ast.FunctionDef) and owner.name == "g", out
                    g_body_positions += 1
        ns: dict[str, Any] = {}
        exec(out, ns)  # noqa: S102 - trusted fixture code
        assert ns["f"]([1]) == ["p", "q", "r"] and ns["g"](3) == 0
    assert g_body_positions  # the live form is used at all


def test_dead_code_never_touches_class_bodies() -> None:
    src = "class A:\n    x = 1\n"
    assert P.dead_code(src, "", random.Random(0)) is not None
    for seed in range(10):
        out = P.dead_code(src, "", random.Random(seed))
        assert out is not None
        cls = next(n for n in ast.parse(out).body if isinstance(n, ast.ClassDef))
        assert ast.unparse(cls) == "class A:\n    x = 1"


# ----------------------------------------------------------------------------- reorder_statements

@pytest.mark.parametrize("src", [
    "a = 1\nb = a + 1\n",  # b reads a
    "def f(p):\n    x = p + 1\n    y = x * 2\n    return y\n",  # read after write
    "def f(p):\n    x = 1\n    x = 2\n    return x\n",  # write after write
    "def f(p):\n    y = x\n    x = 2\n    return x\n",  # write after read
    "def f(p, q):\n    a = p / q\n    b = p % q\n    return a, b\n",  # both may raise
    "def f(p, q):\n    try:\n        a = p / q\n        b = 1\n    except ZeroDivisionError:\n        return b\n",
    "def f(p):\n    a = len(p)\n    b = 1\n    return a + b\n",  # a call
    "def f(p):\n    p.x = 1\n    b = 2\n    return b\n",  # an attribute store
    "def f(p):\n    p[0] = 1\n    b = 2\n    return b\n",  # a subscript store
    "def f(p):\n    a = p.x\n    b = p\n    return a, b\n",  # an attribute load (properties run code)
    "def f(p):\n    a = 1\n    b = 2\n    g = lambda: a\n    return g, b\n",  # a is captured
    "def f(p):\n    acc = []\n    acc += p\n    b = 1\n    return acc, b\n",  # += on a list mutates it
    "class A:\n    x = 1\n    y = 2\n",  # class attribute order is observable
    "def f():\n    global g\n    a = 1\n    g = 2\n",  # global
    "def f(p):\n    a = q\n    b = r\n    return a, b\n",  # both loads may raise NameError
    "def f(p):\n    a = 1\n    b = 2\n    return locals()\n",  # dynamic scope access
])
def test_reorder_leaves_dependent_or_unsafe_pairs_alone(src: str) -> None:
    assert P.reorder_statements(src, "", random.Random(0)) is None


def test_reorder_swaps_an_independent_pair() -> None:
    src = "def f(p):\n    a = 1\n    b = p\n    return a - b\n"
    out = P.reorder_statements(src, "", random.Random(0))
    assert out == "def f(p):\n    b = p\n    a = 1\n    return a - b"
    # one statement may raise when the other is silent and nothing catches in between
    src = "def f(p, q):\n    a = p // q\n    b = 0\n    return a + b\n"
    swapped = "def f(p, q):\n    b = 0\n    a = p // q\n    return a + b"
    assert P.reorder_statements(src, "", random.Random(0)) == swapped
    # an int counter's += qualifies
    src = "def f(p):\n    n = 0\n    for _ in p:\n        n += 1\n        m = 5\n    return n\n"
    assert "m = 5\n        n += 1" in (P.reorder_statements(src, "", random.Random(0)) or "")


# ----------------------------------------------------------------------------- SFD counterpart

COMMENTED = '''\
"""Sum things."""
# module comment


def total(items, start=0):
    """Add up items."""
    # running sum
    acc = start  # initial value
    for x in items:  # every item
        if x:
            acc += x
        else:  # zero adds nothing
            continue
    return acc
'''


def test_mutant_carries_reference_comments_and_docstrings() -> None:
    mutant = normalise(COMMENTED).replace("acc += x", "acc -= x")
    mutant = mutant.replace('    """Add up items."""\n', "")  # the mutant lacks one docstring
    out = P.mutant_with_reference_comments(mutant, COMMENTED)
    lines = out.splitlines()
    for comment in ("# module comment", "# running sum", "# initial value", "# every item"):
        assert comment in out
    assert lines[lines.index("    acc = start  # initial value") - 1] == "    # running sum"
    assert "    for x in items:  # every item" in lines
    assert lines[lines.index("            continue") - 1] == "            # zero adds nothing"
    tree = ast.parse(out)
    assert ast.get_docstring(tree) == "Sum things." and ast.get_docstring(_fn(out, "total")) == "Add up items."
    assert "acc -= x" in out  # still the mutant


def test_mutant_comment_without_an_aligned_statement_goes_to_the_function_top() -> None:
    mutant = normalise(COMMENTED).replace("acc = start", "pass")  # the statement changed kind
    out = P.mutant_with_reference_comments(mutant, COMMENTED)
    lines = out.splitlines()
    body = lines.index("def total(items, start=0):") + 1
    assert "# initial value" in lines[body] or "# initial value" in lines[body + 1]
    assert ast.dump(ast.parse(out)) == ast.dump(ast.parse(mutant))  # only comments were added
    with pytest.raises(UserError):
        P.mutant_with_reference_comments("def f(:", COMMENTED)


# ----------------------------------------------------------------------------- driver

ROWS = [
    {"id": "he/0", "reference": REFERENCE, "candidate": FUNCS, "label": "OPT"},
    {"id": "he/1", "reference": "a = 1\n", "candidate": "a = 1\nb = a + 1\n", "label": "SFD"},
]


def test_perturb_pairs_rows_ids_and_sides() -> None:
    out = P.perturb_pairs(ROWS, ["reorder_statements", "reference_docstring"], 7)
    assert [r["id"] for r in out] == ["he/0~reorder_statements", "he/0~reference_docstring"]  # he/1: not applicable
    for r in out:
        assert r["parent_id"] == "he/0" and r["side"] == "candidate" and r["label"] == "OPT"
        assert r["reference"] == REFERENCE and r["candidate"] != FUNCS
        assert r["perturbation"] == r["id"].split("~")[1]
        ast.parse(r["candidate"])
    ref_side = P.perturb_pairs(ROWS[:1], ["misleading_comment"], 7, side="reference")
    assert ref_side[0]["candidate"] == FUNCS and ref_side[0]["reference"] != REFERENCE
    assert ref_side[0]["side"] == "reference"
    assert len(P.perturb_pairs(ROWS, None, 0)) >= 5


def test_perturb_pairs_is_deterministic_and_seeded_by_stable_hash() -> None:
    assert P.perturb_pairs(ROWS, ["rename_identifiers", "dead_code"], 3) == \
        P.perturb_pairs(ROWS, ["rename_identifiers", "dead_code"], 3)
    outs = {P.perturb_pairs(ROWS[:1], ["dead_code"], seed)[0]["candidate"] for seed in range(6)}
    assert len(outs) > 1
    assert P.pair_rng(1, "he/0", "dead_code").random() == P.pair_rng(1, "he/0", "dead_code").random()
    assert P.pair_rng(1, "he/0", "dead_code").random() != P.pair_rng(1, "he/1", "dead_code").random()


def test_perturb_pairs_rejects_bad_arguments() -> None:
    with pytest.raises(UserError, match="unknown perturbation"):
        P.perturb_pairs(ROWS, ["bogus"], 0)
    with pytest.raises(UserError, match="side"):
        P.perturb_pairs(ROWS, None, 0, side="both")
    with pytest.raises(UserError, match="lacks"):
        P.perturb_pairs([{"id": "x", "candidate": "a = 1\n"}], None, 0)
