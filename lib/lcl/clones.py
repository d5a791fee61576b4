"""Human-written DFS pairs: independent implementations of the same behaviour ("clones").

Four algorithm collections from
PyPI (``data/raw/clones/{algorithms,pygorithm,searchsort,algos_py}``, see ``data/sources.toml``)
hold many implementations of the same few behaviours (sorting, searching, gcd, Fibonacci, ...)
written by different people, or by one person in different ways. Pairs of them are what the
paper's DFS corner asks for (different form, similar semantics), without any generator in the
loop. Their code is *untrusted*: it is read with :mod:`ast` and only ever executed inside the
sandboxed fuzzing engine :mod:`lcl.fuzz` (never installed, never imported here).

Pipeline (every step counts what it leaves out in a :class:`lcl.dataset.Ledger`):

1. **Extract** every top-level function of every module (:func:`extract`). A function's *unit*
   is the function plus the top-level definitions it needs from its module (helpers, constants,
   standard-library imports), in module order, docstrings removed (they are tutorial text, not
   code: comments are ignored by SurfaceSim anyway, docstrings would not be), unparsed with
   :func:`ast.unparse` like every LoCaL reference. A unit that needs another module of its
   package (relative or package import) or a third-party module is excluded.
2. **Candidate groups** (:data:`FAMILIES`): name/signature rules (e.g. "a name containing
   *sort*, callable with one argument") put functions into families, each with an *input
   domain* (:data:`DOMAINS`: seeded generators, e.g. lists of non-negative ints, sorted
   distinct ints + a target, small non-negative ints) and an *observation* rule (below).
   A function can be a candidate of more than one family (``power(a, n, mod=None)`` is a
   2-argument power and a 3-argument modular power).
3. **Behaviour fingerprints**: each candidate runs in the sandbox on ``N`` domain inputs (a
   probe on the 8 largest first, so that e.g. bogo sort is excluded in seconds); its
   fingerprint is the vector of outcomes (return-value digest under the engine's type-strict
   deep equality, or the exception type). Excluded: functions that cannot be loaded, time out
   or crash, raise on more than half of the inputs (outside their domain), or return the same
   value on every input (uninformative: also guards against outputs the engine compares by
   type only).
4. **Clusters** = candidates of a family with *identical* fingerprints (strict equivalence on
   the sampled domain, symmetric and transitive; an implementation that raises where another
   returns is a different behaviour). Singletons are excluded.
5. **Pairs**: all within-cluster pairs except textually identical units, at most
   ``pairs_per_cluster`` of them sampled with a recorded seed (so the ~50 equivalent sorts do
   not dominate; pairs across two collections are taken first, as the most independently
   written), each oriented (which side is the reference) by the same seeded generator. Each pair is then labelled
   independently by Algorithm 1 (:func:`lcl.fuzz.run_batch`; R runs of N *fresh* inputs from
   the domain generator, seeds derived from the run seed, not the clustering seed), and its
   SurfaceSim (Eq. 1, paper mode) computed on the two units. As for our optimised variants,
   a pair whose df_score < 1 is discarded (the equivalence was not confirmed), and counted.

Observation rule (in-place vs returning functions). Most sorting implementations of these
collections return the sorted list, but some sort in place and return ``None`` (algos-py's
``qsort0``), and others sort in place *and* return the same list. Sorting families therefore
observe ``returned value if it is not None, else the (mutated) first argument``
(``observe = "return_or_arg0"``): a function that returns a new sorted list and one that sorts
its argument in place are the same behaviour, while a function that returns ``None`` without
sorting is not. Every other family observes the returned value only (``"return"``: there,
``None`` is a meaningful answer, e.g. "not found"). In both modes an iterator (a generator)
is materialised into a list, so two generators are compared by what they yield, not by type.
The engine gives each side its own copy of every input, so mutations never leak between the
two sides. The rule is applied by a harness appended to each unit only when it runs
(:func:`harness`); the stored ``reference``/``variant`` code is the plain unit.
"""

from __future__ import annotations

import ast
import itertools
import random
import re
import string
import sys
import warnings
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: the four collections, as named in data/sources.toml and under data/raw/clones/
PACKAGES = ("algorithms", "pygorithm", "searchsort", "algos_py")

#: the harness's entry point (both sides of every clone pair are called through it)
ENTRY = "__lcl_clone_entry__"

#: bump when a domain generator, the harness or a family rule changes what is run
VERSION = "1"

#: probe: the largest inputs first, with a short per-input timeout (CPU seconds)
PROBE_INPUTS = 8
PROBE_TIMEOUT = 0.5
FINGERPRINT_TIMEOUT = 2.0


@dataclass(frozen=True)
class Caps:
    """How much clone work a profile does (module-level, keyed by profile name)."""

    families: tuple[str, ...] | None = None  # None = every family
    functions_per_family: int | None = None  # candidates kept per family (seeded sample); None = all
    pairs_per_cluster: int = 10  # emitted pairs per cluster (seeded sample)


CAPS: dict[str, Caps] = {
    "full": Caps(None, None, 10),
    "quick": Caps(None, None, 3),
    "smoke": Caps(("sort", "search", "gcd"), 6, 2),
}


def caps_for(profile: str) -> Caps:
    return CAPS.get(profile, CAPS["full"])


# ============================================================================ extraction
@dataclass(frozen=True)
class Function:
    package: str
    module: str  # path inside the package, e.g. "sorting/bubble_sort.py"
    name: str
    positional: int  # positional parameters
    required: int  # positional parameters without a default
    varargs: bool
    required_kwonly: int
    code: str  # the unit (function + what it needs), docstrings removed
    problem: str | None = None  # why the unit cannot be used (an import it needs)

    @property
    def qualname(self) -> str:
        return f"{self.package}/{self.module}:{self.name}"

    def accepts(self, arity: int) -> bool:
        """Callable with exactly ``arity`` positional arguments."""
        if self.required_kwonly:
            return False
        return self.required <= arity and (self.varargs or arity <= self.positional)


def _strip_docstrings(tree: ast.AST) -> None:
    from .dataset import strip_docstring_nodes

    strip_docstring_nodes(tree)


def _bound_names(stmt: ast.stmt) -> set[str]:
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {stmt.name}
    if isinstance(stmt, (ast.Import, ast.ImportFrom)):
        return {(a.asname or a.name).split(".")[0] for a in stmt.names}
    targets: list[ast.AST] = []
    if isinstance(stmt, ast.Assign):
        targets = list(stmt.targets)
    elif isinstance(stmt, (ast.AnnAssign, ast.AugAssign)):
        targets = [stmt.target]
    return {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}


class _Uses(ast.NodeVisitor):
    """Names a statement reads (annotations skipped when they are not evaluated)."""

    def __init__(self, skip_annotations: bool) -> None:
        self.skip = skip_annotations
        self.names: set[str] = set()

    def visit_Name(self, node: ast.Name) -> None:
        self.names.add(node.id)

    def visit_arg(self, node: ast.arg) -> None:
        if not self.skip and node.annotation is not None:
            self.visit(node.annotation)

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        for d in node.decorator_list:
            self.visit(d)
        self.visit(node.args)
        if not self.skip and node.returns is not None:
            self.visit(node.returns)
        for s in node.body:
            self.visit(s)

    visit_AsyncFunctionDef = visit_FunctionDef  # type: ignore[assignment]

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        if not self.skip:
            self.visit(node.annotation)
        self.visit(node.target)
        if node.value is not None:
            self.visit(node.value)


def _uses(stmt: ast.stmt, skip_annotations: bool) -> set[str]:
    v = _Uses(skip_annotations)
    v.visit(stmt)
    return v.names


def _has_annotations(stmts: list[ast.stmt]) -> bool:
    for s in stmts:
        for n in ast.walk(s):
            if isinstance(n, ast.arg) and n.annotation is not None:
                return True
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.returns is not None:
                return True
            if isinstance(n, ast.AnnAssign):
                return True
    return False


def _import_problem(stmt: ast.stmt) -> str | None:
    if isinstance(stmt, ast.ImportFrom):
        if stmt.level:
            return f"needs a relative import (from {'.' * stmt.level}{stmt.module or ''})"
        root = (stmt.module or "").split(".")[0]
        if root != "__future__" and root not in sys.stdlib_module_names:
            return f"needs a non-standard module ({root})"
    elif isinstance(stmt, ast.Import):
        for a in stmt.names:
            root = a.name.split(".")[0]
            if root not in sys.stdlib_module_names:
                return f"needs a non-standard module ({root})"
    return None


def _units(package: str, module: str, source: str) -> list[Function]:
    with warnings.catch_warnings():  # old code: invalid escape sequences and the like
        warnings.simplefilter("ignore")
        tree = ast.parse(source)
    _strip_docstrings(tree)
    body = tree.body
    future = any(isinstance(s, ast.ImportFrom) and s.module == "__future__"
                 and any(a.name == "annotations" for a in s.names) for s in body)
    binders: dict[str, list[int]] = {}
    for i, s in enumerate(body):
        if isinstance(s, ast.ImportFrom) and s.module == "__future__":
            continue
        for name in _bound_names(s):
            binders.setdefault(name, []).append(i)
    out = []
    for i, s in enumerate(body):
        if not isinstance(s, ast.FunctionDef):
            continue
        keep, todo = {i}, [i]
        while todo:
            j = todo.pop()
            for name in _uses(body[j], future):
                for k in binders.get(name, ()):
                    if k not in keep:
                        keep.add(k)
                        todo.append(k)
        stmts = [body[k] for k in sorted(keep)]
        problem = next((p for st in stmts if (p := _import_problem(st))), None)
        if future and _has_annotations(stmts):
            stmts = [ast.ImportFrom(module="__future__", names=[ast.alias("annotations")], level=0)] + stmts
        code = "\n\n".join(ast.unparse(st) for st in stmts)
        a = s.args
        pos = len(a.posonlyargs) + len(a.args)
        out.append(Function(package, module, s.name, pos, pos - len(a.defaults), a.vararg is not None,
                            sum(1 for d in a.kw_defaults if d is None), code, problem))
    return out


def clones_root() -> Path:
    from . import paths

    return paths.raw() / "clones"


def extract(root: Path | None = None, packages: tuple[str, ...] = PACKAGES,
            ledger: Any = None) -> list[Function]:
    """Every top-level function of every module of the collections that are present."""
    root = root or clones_root()
    out: list[Function] = []
    for pkg in packages:
        base = root / pkg
        if not base.is_dir():
            if ledger is not None:
                ledger.drop("CLONE package", f"{pkg} not fetched")
            continue
        for path in sorted(base.rglob("*.py")):
            rel = path.relative_to(base).as_posix()
            try:
                out += _units(pkg, rel, path.read_text(encoding="utf-8"))
            except (SyntaxError, ValueError, UnicodeDecodeError):
                if ledger is not None:
                    ledger.drop("CLONE file", "does not parse")
    if ledger is not None:
        ledger.generated["CLONE functions extracted"] += len(out)
    return out


# ============================================================================ input domains
def _int_list(r: random.Random, lo: int = 0, hi: int = 99, max_len: int = 12, min_len: int = 0) -> list[int]:
    return [r.randint(lo, hi) for _ in range(r.randint(min_len, max_len))]


def _word(r: random.Random, alphabet: str, max_len: int, min_len: int = 0) -> str:
    return "".join(r.choice(alphabet) for _ in range(r.randint(min_len, max_len)))


def _d_int_list(r: random.Random) -> list[Any]:
    return [_int_list(r)]


def _d_maybe_sorted(r: random.Random) -> list[Any]:
    xs = _int_list(r, 0, 30, 8)
    return [sorted(xs) if r.random() < 0.5 else xs]


def _d_signed_list(r: random.Random) -> list[Any]:
    return [_int_list(r, -20, 20, 10, 1)]


def _d_nonempty_list(r: random.Random) -> list[Any]:
    return [_int_list(r, 0, 50, 10, 1)]


def _d_distinct_small(r: random.Random) -> list[Any]:
    return [r.sample(range(-5, 20), r.randint(0, 5))]


def _d_sorted_target(r: random.Random) -> list[Any]:
    xs = sorted(r.sample(range(0, 80), r.randint(1, 15)))
    t = r.choice(xs) if r.random() < 0.5 else r.randint(-2, 82)
    return [xs, t]


def _d_two_sum(r: random.Random) -> list[Any]:
    xs = sorted(r.sample(range(0, 60), r.randint(2, 10)))
    i, j = sorted(r.sample(range(len(xs)), 2))
    t = xs[i] + xs[j] if r.random() < 0.7 else r.randint(0, 120)
    return [xs, t]


def _nat(lo: int, hi: int) -> Callable[[random.Random], list[Any]]:
    def d(r: random.Random) -> list[Any]:
        return [r.randint(lo, hi)]

    d.__name__ = f"_d_nat_{lo}_{hi}"
    return d


def _d_pos_pair(r: random.Random) -> list[Any]:
    return [r.randint(1, 1000), r.randint(1, 1000)]


def _d_pow_pair(r: random.Random) -> list[Any]:
    return [r.randint(-6, 9), r.randint(0, 15)]


def _d_modpow(r: random.Random) -> list[Any]:
    return [r.randint(0, 60), r.randint(0, 60), r.randint(2, 97)]


def _d_comb(r: random.Random) -> list[Any]:
    n = r.randint(0, 16)
    return [n, r.randint(0, n)]


def _d_grid(r: random.Random) -> list[Any]:
    return [r.randint(1, 7), r.randint(1, 7)]


def _d_order(r: random.Random) -> list[Any]:
    return [r.randint(1, 25), r.randint(2, 40)]


def _d_knapsack(r: random.Random) -> list[Any]:
    k = r.randint(1, 7)
    return [r.randint(0, 25), [r.randint(1, 30) for _ in range(k)], [r.randint(1, 12) for _ in range(k)]]


def _d_lcm_list(r: random.Random) -> list[Any]:
    return [[r.randint(1, 30) for _ in range(r.randint(1, 5))]]


def _d_text(r: random.Random) -> list[Any]:
    """Strings over letters of both cases, spaces and punctuation; half are (near-)palindromes."""
    w = _word(r, "abcAB ,!", 6)
    if r.random() < 0.5:
        w = w + (r.choice("abc") if r.random() < 0.5 else "") + w[::-1]
        if r.random() < 0.5:
            w = "".join(c.upper() if r.random() < 0.3 else c for c in w)
    return [w]


def _d_lower(r: random.Random) -> list[Any]:
    return [_word(r, "abcd", 12)]


def _d_short_lower(r: random.Random) -> list[Any]:
    return [_word(r, "abc", 7)]


def _d_word_pair(r: random.Random) -> list[Any]:
    a = _word(r, "abcde", 8)
    if r.random() < 0.5:
        b = "".join(r.sample(a, len(a)))
    else:
        b = _word(r, "abcde", 8)
    return [a, b]


def _d_rotation_pair(r: random.Random) -> list[Any]:
    a = _word(r, "abc", 8)
    if a and r.random() < 0.5:
        k = r.randrange(len(a))
        b = a[k:] + a[:k]
    else:
        b = _word(r, "abc", 8)
    return [a, b]


def _d_edit_pair(r: random.Random) -> list[Any]:
    a = _word(r, "abc", 7)
    b = list(a)
    for _ in range(r.choice((0, 1, 1, 1, 2))):
        op = r.choice("ids")
        if op == "i" or not b:
            b.insert(r.randint(0, len(b)), r.choice("abc"))
        elif op == "d":
            b.pop(r.randrange(len(b)))
        else:
            b[r.randrange(len(b))] = r.choice("abc")
    return [a, "".join(b)]


def _d_sentence(r: random.Random) -> list[Any]:
    if r.random() < 0.5:
        letters = list(string.ascii_lowercase)
        if r.random() < 0.5:
            letters.remove(r.choice(letters))
        extra = [r.choice(string.ascii_letters + " .,") for _ in range(r.randint(0, 10))]
        chars = letters + extra
        r.shuffle(chars)
        return ["".join(c.upper() if r.random() < 0.2 else c for c in chars)]
    return [_word(r, string.ascii_letters + " ", 30)]


def _d_decodings(r: random.Random) -> list[Any]:
    return [_word(r, "0121263", 10, 1)]


def _d_strobo(r: random.Random) -> list[Any]:
    if r.random() < 0.5:
        pairs = {"0": "0", "1": "1", "8": "8", "6": "9", "9": "6"}
        half = _word(r, "01869", 3)
        mid = r.choice(["", "0", "1", "8"])
        return [half + mid + "".join(pairs[c] for c in reversed(half)) or "1"]
    return [_word(r, "0123689", 6, 1)]


def _d_digit_list(r: random.Random) -> list[Any]:
    return [[r.randint(1, 9)] + [r.choice((9, 9, 9, r.randint(0, 9))) for _ in range(r.randint(0, 7))]]


def _d_list_k(r: random.Random) -> list[Any]:
    return [_int_list(r, 0, 20, 10, 1), r.randint(0, 12)]


def _d_list_nth(r: random.Random) -> list[Any]:
    return [_int_list(r, 0, 4, 12), r.randint(1, 3)]


def _d_window(r: random.Random) -> list[Any]:
    xs = _int_list(r, -10, 20, 10, 1)
    return [xs, r.randint(1, len(xs))]


def _d_missing(r: random.Random) -> list[Any]:
    n = r.randint(1, 12)
    xs = list(range(n + 1))
    xs.remove(r.choice(xs))
    r.shuffle(xs)
    return [xs]


def _d_next_square(r: random.Random) -> list[Any]:
    return [r.randint(0, 60) ** 2 if r.random() < 0.5 else r.randint(0, 3600)]


def _d_square_matrix(r: random.Random) -> list[Any]:
    n = r.randint(1, 4)
    return [[[r.randint(-5, 9) for _ in range(n)] for _ in range(n)]]


def _d_matrix_pair(r: random.Random) -> list[Any]:
    n = r.randint(1, 4)
    return [[[r.randint(-5, 9) for _ in range(n)] for _ in range(n)] for _ in range(2)]


def _d_sudoku(r: random.Random) -> list[Any]:
    digits = list(range(1, 10))
    r.shuffle(digits)
    board = [[digits[(3 * (i % 3) + i // 3 + j) % 9] for j in range(9)] for i in range(9)]
    if r.random() < 0.5:
        i, j = r.randrange(9), r.randrange(9)
        board[i][j] = r.choice([d for d in range(0, 10) if d != board[i][j]])
    return [board]


def _d_interleave(r: random.Random) -> list[Any]:
    a, b = _word(r, "ab", 4), _word(r, "bc", 4)
    merged, i, j = [], 0, 0
    while i < len(a) or j < len(b):
        if j >= len(b) or (i < len(a) and r.random() < 0.5):
            merged.append(a[i])
            i += 1
        else:
            merged.append(b[j])
            j += 1
    text = "".join(merged)
    if r.random() < 0.3 and text:
        k = r.randrange(len(text))
        text = text[:k] + r.choice("abc") + text[k + 1:]
    return [text, a, b]


def _d_prefix_strings(r: random.Random) -> list[Any]:
    stem = _word(r, "ab", 4)
    return [[stem + _word(r, "abc", 4) for _ in range(r.randint(1, 4))]]


def _d_letters_target(r: random.Random) -> list[Any]:
    letters = sorted(r.sample("abcdefghij", r.randint(2, 6)))
    return [letters, r.choice("abcdefghijk")]


def _d_stack(r: random.Random) -> list[Any]:
    if r.random() < 0.4:
        start = r.randint(-3, 10)
        xs = list(range(start, start + r.randint(0, 8)))
        if xs and r.random() < 0.5:
            xs[r.randrange(len(xs))] += r.choice((-2, 2))
        return [xs]
    return [_int_list(r, 0, 20, 9)]


def _d_text_pattern(r: random.Random) -> list[Any]:
    text = _word(r, "ab", 14, 1)
    if r.random() < 0.6:
        i = r.randrange(len(text))
        pat = text[i:i + r.randint(1, 4)]
    else:
        pat = _word(r, "abc", 3, 1)
    return [text, pat]


def _d_combo_sum(r: random.Random) -> list[Any]:
    return [sorted(r.sample(range(1, 10), r.randint(1, 4))), r.randint(1, 12)]


def _d_lcs_pair(r: random.Random) -> list[Any]:
    return [_word(r, "abc", 8), _word(r, "abc", 8)]


def _d_coords(r: random.Random) -> list[Any]:
    def num(lim: int) -> str:
        x = r.uniform(-lim * 1.2, lim * 1.2)
        return f"{x:.{r.randint(0, 3)}f}"

    s = f"{num(90)}, {num(180)}"
    if r.random() < 0.25:
        s = s.replace(",", r.choice(["", " ", ";"]), 1)
    if r.random() < 0.15:
        s = s.replace("-", "- ")
    return [s]


#: name -> (generator of one argument list, what it means)
DOMAINS: dict[str, tuple[Callable[[random.Random], list[Any]], str]] = {
    "int_list": (_d_int_list, "one list of 0-12 ints in [0, 99] (duplicates likely; empty lists included)"),
    "maybe_sorted": (_d_maybe_sorted, "one list of 0-8 ints in [0, 30], sorted half of the time"),
    "signed_list": (_d_signed_list, "one non-empty list of up to 10 ints in [-20, 20]"),
    "nonempty_list": (_d_nonempty_list, "one non-empty list of up to 10 ints in [0, 50]"),
    "distinct_small": (_d_distinct_small, "one list of 0-5 distinct ints in [-5, 19]"),
    "sorted_target": (_d_sorted_target, "a sorted list of 1-15 distinct ints in [0, 79] and a target (present half the time)"),
    "two_sum": (_d_two_sum, "a sorted list of 2-10 distinct ints and a target (a sum of two of them 70% of the time)"),
    "nat_20": (_nat(0, 20), "one int in [0, 20]"),
    "nat_6": (_nat(0, 6), "one int in [0, 6]"),
    "nat_30": (_nat(0, 30), "one int in [0, 30]"),
    "nat_300": (_nat(1, 300), "one int in [1, 300]"),
    "nat_2000": (_nat(0, 2000), "one int in [0, 2000]"),
    "nat_5000": (_nat(0, 5000), "one int in [0, 5000]"),
    "sieve_n": (_nat(2, 300), "one int in [2, 300]"),
    "fizz_n": (_nat(1, 40), "one int in [1, 40]"),
    "pos_pair": (_d_pos_pair, "two ints in [1, 1000]"),
    "pow_pair": (_d_pow_pair, "a base in [-6, 9] and an exponent in [0, 15]"),
    "modpow": (_d_modpow, "base and exponent in [0, 60], modulus in [2, 97]"),
    "comb": (_d_comb, "n in [0, 16], k in [0, n]"),
    "grid": (_d_grid, "two ints in [1, 7] (grid dimensions)"),
    "order": (_d_order, "a in [1, 25], n in [2, 40]"),
    "knapsack": (_d_knapsack, "capacity in [0, 25], 1-7 values in [1, 30] and as many weights in [1, 12]"),
    "lcm_list": (_d_lcm_list, "one list of 1-5 ints in [1, 30]"),
    "text": (_d_text, "one string over 'abcAB ,!' of length <= 13, half of them (near-)palindromes"),
    "lower": (_d_lower, "one string over 'abcd' of length <= 12"),
    "short_lower": (_d_short_lower, "one string over 'abc' of length <= 7"),
    "word_pair": (_d_word_pair, "two strings over 'abcde' of length <= 8 (half are anagrams)"),
    "rotation_pair": (_d_rotation_pair, "two strings over 'abc' of length <= 8 (half are rotations)"),
    "edit_pair": (_d_edit_pair, "a string over 'abc' and a copy with 0-2 edits"),
    "lcs_pair": (_d_lcs_pair, "two strings over 'abc' of length <= 8"),
    "sentence": (_d_sentence, "one string of letters, spaces and punctuation (half of them pangram candidates)"),
    "decodings": (_d_decodings, "one digit string over '0121263' of length 1-10"),
    "strobo": (_d_strobo, "one digit string, half of them strobogrammatic"),
    "digit_list": (_d_digit_list, "one list of 1-8 decimal digits, leading digit non-zero, many 9s"),
    "list_k": (_d_list_k, "a non-empty list of up to 10 ints in [0, 20] and k in [0, 12]"),
    "list_nth": (_d_list_nth, "a list of up to 12 ints in [0, 4] and n in [1, 3]"),
    "window": (_d_window, "a non-empty list of up to 10 ints in [-10, 20] and a window 1..len"),
    "missing": (_d_missing, "a shuffled list 0..n with one number missing (n in [1, 12])"),
    "next_square": (_d_next_square, "one int in [0, 3600], half of them perfect squares"),
    "square_matrix": (_d_square_matrix, "one n x n int matrix (n in [1, 4])"),
    "matrix_pair": (_d_matrix_pair, "two n x n int matrices (n in [1, 4])"),
    "sudoku": (_d_sudoku, "one solved 9 x 9 sudoku, half of them with one cell changed"),
    "interleave": (_d_interleave, "a string and two parts it may interleave (30% perturbed)"),
    "prefix_strings": (_d_prefix_strings, "1-4 strings sharing a random prefix"),
    "letters_target": (_d_letters_target, "a sorted list of 2-6 distinct letters and a target letter"),
    "stack": (_d_stack, "one list of ints (40% consecutive runs, some with one element off)"),
    "text_pattern": (_d_text_pattern, "a string over 'ab' and a pattern (a substring 60% of the time)"),
    "combo_sum": (_d_combo_sum, "1-4 sorted distinct ints in [1, 9] and a target in [1, 12]"),
    "coords": (_d_coords, "one 'lat, lon' string, some malformed or out of range"),
}


def generate(domain: str, seed: int, n: int) -> list[list[Any]]:
    """``n`` argument lists of ``domain`` from ``seed`` (deterministic)."""
    fn = DOMAINS[domain][0]
    r = random.Random(f"lcl-clones:{domain}:{int(seed)}")
    return [fn(r) for _ in range(n)]


class DomainGenerator:
    """``gen(seed, n)`` for the fuzzing engine (picklable; its ``__qualname__`` names the
    domain and :data:`VERSION`, so cached fuzz results follow generator changes)."""

    def __init__(self, domain: str) -> None:
        if domain not in DOMAINS:
            raise KeyError(f"unknown clone input domain {domain!r}")
        self.domain = domain
        self.__qualname__ = f"CloneDomain[{domain}:v{VERSION}]"
        self.__module__ = __name__

    def __call__(self, seed: int, n: int) -> list[list[Any]]:
        return generate(self.domain, seed, n)


# ============================================================================ families
@dataclass(frozen=True)
class Family:
    name: str
    domain: str
    arity: int
    pattern: str  # re.search over "package/module:name" (case-insensitive)
    observe: str = "return"  # return | return_or_arg0
    exclude: str | None = None  # re.search over the same string: not a candidate

    def matches(self, f: Function) -> bool:
        q = f.qualname
        return bool(re.search(self.pattern, q, re.I)) and not (self.exclude and re.search(self.exclude, q, re.I))


FAMILIES: tuple[Family, ...] = (
    Family("sort", "int_list", 1, r":\w*sort\w*$", "return_or_arg0", exclude=r":_?is_?sorted$"),
    Family("is_sorted", "maybe_sorted", 1, r":_?is_?sorted$"),
    Family("search", "sorted_target", 2, r":\w*(search|occurrence)\w*$", exclude=r":Available"),
    Family("two_sum", "two_sum", 2, r":two_sum\w*$"),
    Family("gcd", "pos_pair", 2, r":_?(x?gcd|gcf|xgcf|gcd_bit|extended_gcd|_extended_gcd)$"),
    Family("lcm_list", "lcm_list", 1, r"pygorithm/math/lcm\w*\.py:lcm\w*$"),
    Family("prime_check", "nat_2000", 1, r":_?(prime_check|is_prime)$"),
    Family("primes_upto", "sieve_n", 1, r":(get_primes|sieve_of_eratosthenes)$"),
    Family("fibonacci", "nat_20", 1, r"(fib\w*\.py:|:\w*fib\w*$)", exclude=r"search"),
    Family("factorial", "nat_20", 1, r":_?\w*factorial\w*$"),
    Family("power", "pow_pair", 2, r":(fpow\d|power|power_recur)$"),
    Family("modpow", "modpow", 3, r":(power|power_recur|modular_exponential)$"),
    Family("binomial", "comb", 2, r":(combination|combination_memo|fcomb|recursive_binomial_coefficient)$"),
    Family("knapsack", "knapsack", 3, r":_?knapsack\w*$"),
    Family("lis", "nonempty_list", 1, r":longest_increasing_subsequence\w*$"),
    Family("palindrome", "text", 1, r":is_palindrome\w*$"),
    Family("pangram", "sentence", 1, r":(check_pangram|panagram|is_pangram)$"),
    Family("anagram", "word_pair", 2, r":(anagram|is_anagram)$"),
    Family("reverse_string", "lower", 1, r"reverse_string\.py:(recursive|iterative|pythonic|ultra_pythonic)$"),
    Family("manacher", "lower", 1, r":manacher$"),
    Family("suffix_array", "lower", 1, r":sufar\w*$"),
    Family("subsets", "distinct_small", 1, r":(subsets\w*|build_powerset_\d)$"),
    Family("permutations", "distinct_small", 1, r":(permute\w*)$"),
    Family("count_ones", "nat_5000", 1, r":count_ones\w*$"),
    Family("max_subarray", "signed_list", 1, r":(max_subarray|max_contiguous_subsequence_sum)$"),
    Family("max_product", "signed_list", 1, r":(max_product|subarray_with_max_product)$"),
    Family("climb_stairs", "nat_30", 1, r":climb_stairs\w*$"),
    Family("count_paths", "grid", 2, r":count_paths\w*$"),
    Family("num_decodings", "decodings", 1, r":num_decodings\d?$"),
    Family("max_profit", "nonempty_list", 1, r":max_profit\w*$"),
    Family("alternating_bits", "nat_5000", 1, r":has_alternative_bit\w*$"),
    Family("missing_number", "missing", 1, r":find_missing_number\d?$"),
    Family("strobogrammatic", "strobo", 1, r":is_strobogrammatic\d?$"),
    Family("next_square", "next_square", 1, r":find_next_square\d?$"),
    Family("longest_non_repeat", "lower", 1, r":(get_)?longest_non_repeat\w*$"),
    Family("plus_one", "digit_list", 1, r":plus_one\w*$"),
    Family("rotate_array", "list_k", 2, r"array/rotate\.py:rotate\w*$", "return_or_arg0"),
    Family("delete_nth", "list_nth", 2, r":delete_nth\w*$"),
    Family("rotated_string", "rotation_pair", 2, r":is_rotated\w*$"),
    Family("one_edit", "edit_pair", 2, r":is_one_edit\d?$"),
    Family("edit_distance", "lcs_pair", 2, r":(min_distance\w*|edit_distance)$"),
    Family("common_subsequence", "lcs_pair", 2, r":(longest_common_subsequence|max_common_sub_string)$"),
    Family("common_prefix", "prefix_strings", 1, r":longest_common_prefix\w*$"),
    Family("merge_string", "interleave", 3, r":is_merge\w*$"),
    Family("fizzbuzz", "fizz_n", 1, r":fizzbuzz\w*$"),
    Family("coordinates", "coords", 1, r":is_valid_coordinates\w*$"),
    Family("factors", "nat_300", 1, r":(get_factors\w*|recursive_get_factors)$"),
    Family("combination_sum", "combo_sum", 2, r":combination_sum\w*$"),
    Family("palindromic_substrings", "short_lower", 1, r":palindromic_substrings\w*$"),
    Family("generate_parenthesis", "nat_6", 1, r":generate_parenthesis\w*$"),
    Family("next_letter", "letters_target", 2, r":next_greatest_letter\w*$"),
    Family("sliding_window_max", "window", 2, r":max_sliding_window$"),
    Family("stack_consecutive", "stack", 1, r":\w*is_consecutive$"),
    Family("stack_stutter", "stack", 1, r":\w*_stutter$", "return_or_arg0"),
    Family("stack_switch_pairs", "stack", 1, r":\w*_switch_pairs$", "return_or_arg0"),
    Family("substring_search", "text_pattern", 2, r":(knuth_morris_pratt|contain_string|z_search)$"),
    Family("euler_totient", "nat_300", 1, r":_?euler_totient$"),
    Family("multiplicative_order", "order", 2, r":_?find_order$"),
    Family("primitive_root", "nat_300", 1, r":_?find_primitive_root$"),
    Family("to_binary", "nat_5000", 1, r":(decimal_to_binary|to_base2)$"),
    Family("matrix_multiply", "matrix_pair", 2, r"matrix\w*\.py:multiply$"),
    Family("rotate_matrix", "square_matrix", 1, r":(rotate_clockwise|rotate)$", "return_or_arg0",
           exclude=r"^(?!.*matrix/)"),
    Family("sudoku_solution", "sudoku", 1, r":valid_solution\w*$"),
)

FAMILY = {f.name: f for f in FAMILIES}


# ============================================================================ harness
def harness(code: str, entry: str, observe: str) -> str:
    """The unit plus the entry point both sides are called through (see the module docstring)."""
    lines = [code, "", "", f"def {ENTRY}(*args):", f"    out = {entry}(*args)"]
    if observe == "return_or_arg0":
        lines += ["    if out is None and args:", "        out = args[0]"]
    elif observe != "return":
        raise ValueError(f"unknown observation rule {observe!r}")
    lines += ["    import collections.abc", "    if isinstance(out, collections.abc.Iterator):",
              "        out = list(out)", "    return out", ""]
    return "\n".join(lines)


# ============================================================================ candidates and clusters
@dataclass
class Candidate:
    family: Family
    function: Function
    fingerprint: bytes | None = None

    @property
    def code(self) -> str:
        return harness(self.function.code, self.function.name, self.family.observe)


@dataclass
class Cluster:
    id: str
    family: Family
    members: list[Function] = field(default_factory=list)

    @property
    def packages(self) -> list[str]:
        return sorted({m.package for m in self.members})


def candidates(functions: list[Function], caps: Caps, seed: int, ledger: Any) -> list[Candidate]:
    """Family candidates (one per family and matching function), signature and import checks."""
    out: list[Candidate] = []
    families = [f for f in FAMILIES if caps.families is None or f.name in caps.families]
    matched: set[str] = set()
    for fam in families:
        members = [f for f in functions if fam.matches(f)]
        matched.update(f.qualname for f in members)
        ledger.generated["CLONE candidates (family x function)"] += len(members)
        ok = []
        for f in members:
            if f.problem:
                ledger.drop("CLONE candidate", f.problem.split(" (")[0])
            elif not f.accepts(fam.arity):
                ledger.drop("CLONE candidate", f"signature does not fit the family ({fam.arity} argument(s))")
            else:
                ok.append(f)
        if caps.functions_per_family is not None and len(ok) > caps.functions_per_family:
            k = caps.functions_per_family
            ledger.drop("CLONE candidate", f"over the per-family cap of the profile ({k}, seeded sample)", len(ok) - k)
            keep = sorted(random.Random(f"{seed}:clones:{fam.name}").sample(range(len(ok)), k))
            ok = [ok[i] for i in keep]
        out += [Candidate(fam, f) for f in ok]
    ledger.drop("CLONE function", "in no candidate family (not a candidate)",
                sum(1 for f in functions if f.qualname not in matched))
    return out


def _settings(timeout: float) -> Any:
    from .fuzz import Settings

    return Settings().with_(reference_timeout=timeout, watchdog_grace=0.2)


def fingerprint_all(cands: list[Candidate], n: int, seed: int, ledger: Any, store: Any = None,
                    progress: bool = False) -> list[Candidate]:
    """Run every candidate on ``n`` inputs of its domain (probe first); keep those with a usable
    behaviour fingerprint. Reference outcomes are cached in the fuzz store's ``refs`` table."""
    from .fuzz import CodeSpec, compute_reference
    from .fuzz.semantics import EXC, OK, DIGEST_SIZE
    from .errors import UserError

    own = store is None
    if own:
        from .fuzz import ResultStore

        store = ResultStore()
    refs = store.refs()
    inputs_by_domain: dict[str, list[Any]] = {}
    kept = []
    try:
        for i, c in enumerate(cands):
            if progress:
                print(f"\rfingerprints {i + 1}/{len(cands)}", end="", file=sys.stderr)
            dom = c.family.domain
            if dom not in inputs_by_domain:
                inputs_by_domain[dom] = generate(dom, seed, n)
            items = inputs_by_domain[dom]
            spec = CodeSpec("function", c.code, ENTRY, "reference.py")
            probe = sorted(items, key=lambda x: -len(repr(x)))[:PROBE_INPUTS]
            try:
                pr = compute_reference(spec, probe, _settings(PROBE_TIMEOUT), ref_cache=refs)
                if any(k not in (OK, EXC) for k in pr.kinds):
                    ledger.drop("CLONE candidate", "times out or crashes on the probe (largest) inputs")
                    continue
                res = compute_reference(spec, items, _settings(FINGERPRINT_TIMEOUT), ref_cache=refs)
            except UserError:
                ledger.drop("CLONE candidate", "cannot be loaded in the sandbox")
                continue
            kinds = bytes(res.kinds)
            if any(k not in (OK, EXC) for k in kinds):
                ledger.drop("CLONE candidate", "times out or crashes on some domain inputs")
                continue
            ok = [i for i, k in enumerate(kinds) if k == OK]
            if 2 * len(ok) < len(kinds):
                ledger.drop("CLONE candidate", "raises on more than half of the domain inputs")
                continue
            if len({res.digest(i) for i in ok}) <= 1 and len(kinds) > 1:
                ledger.drop("CLONE candidate", "same output on every input (uninformative)")
                continue
            assert len(res.digests) == DIGEST_SIZE * len(kinds)
            c.fingerprint = kinds + bytes(res.digests)
            kept.append(c)
    finally:
        if progress:
            print(file=sys.stderr)
        if own:
            store.close()
    return kept


def cluster(cands: list[Candidate], ledger: Any) -> list[Cluster]:
    """Candidates of a family with identical fingerprints; singletons are counted and dropped."""
    groups: dict[tuple[str, bytes], list[Function]] = {}
    for c in cands:
        assert c.fingerprint is not None
        groups.setdefault((c.family.name, c.fingerprint), []).append(c.function)
    out: list[Cluster] = []
    by_family: dict[str, list[list[Function]]] = {}
    for (fam, _), members in groups.items():
        if len(members) < 2:
            ledger.drop("CLONE candidate", "no equivalent implementation among the candidates (singleton)")
            continue
        by_family.setdefault(fam, []).append(sorted(members, key=lambda f: f.qualname))
    for fam in FAMILY:
        ms = sorted(by_family.get(fam, []), key=lambda m: (-len(m), m[0].qualname))
        for k, members in enumerate(ms, 1):
            out.append(Cluster(f"{fam}#{k}", FAMILY[fam], members))
    return out


def _licences() -> dict[str, dict[str, Any]]:
    from .sources import load_manifest

    return {s.name: {"licence": s.licence, "registry": s.registry, "upstream": s.upstream}
            for s in load_manifest() if s.name in PACKAGES}


def pair_rows(clusters: list[Cluster], caps: Caps, seed: int, ledger: Any) -> list[dict[str, Any]]:
    """Within-cluster pairs (capped, seeded), not yet labelled."""
    lic = _licences()
    rows = []
    for cl in clusters:
        pairs = list(itertools.combinations(cl.members, 2))
        ledger.generated["CLONE candidate pairs"] += len(pairs)
        distinct = [(a, b) for a, b in pairs if a.code != b.code]
        ledger.drop("CLONE pair", "identical code (the same unit in two places)", len(pairs) - len(distinct))
        r = random.Random(f"{seed}:clones:{cl.id}")
        if len(distinct) > caps.pairs_per_cluster:
            # cross-package pairs first (more independent authorship), each group in seeded order
            order = list(range(len(distinct)))
            r.shuffle(order)
            order.sort(key=lambda i: distinct[i][0].package == distinct[i][1].package)
            ledger.drop("CLONE pair", f"over the per-cluster cap ({caps.pairs_per_cluster}, seeded sample, "
                        "cross-package pairs first)", len(distinct) - caps.pairs_per_cluster)
            distinct = [distinct[i] for i in sorted(order[:caps.pairs_per_cluster])]
        for k, (a, b) in enumerate(distinct, 1):
            if r.random() < 0.5:
                a, b = b, a
            fam = cl.family
            row = {
                "id": f"CLONE_{cl.id.replace('#', '_')}_{k}", "benchmark": "Clones", "task": f"Clones/{cl.id}",
                "level": "function", "variant_type": "CLONE", "cluster": cl.id, "family": fam.name,
                "domain": fam.domain, "observe": fam.observe, "generator": "human",
                "reference": a.code, "variant": b.code, "entry_point": a.name,
                "cross_package": a.package != b.package,
            }
            for side, f in (("reference", a), ("variant", b)):
                info = lic.get(f.package, {})
                row.update({f"{side}_package": f.package, f"{side}_module": f.module, f"{side}_function": f.name,
                            f"{side}_licence": info.get("licence"), f"{side}_registry": info.get("registry")})
            rows.append(row)
    return rows


def resolve_clone(row: dict[str, Any]) -> dict[str, Any] | None:
    """Resolver for :func:`lcl.fuzz.register_resolver`: clone rows carry their input domain."""
    if not str(row.get("id", "")).startswith("CLONE_") or "clone_domain" not in row:
        return None
    return {"entry": ENTRY, "generator": DomainGenerator(row["clone_domain"])}


def label(rows: list[dict[str, Any]], profile: Any, seed: int, jobs: int, progress: bool = True) -> list[dict[str, Any]]:
    """Algorithm 1 for every clone pair: R runs of N fresh domain inputs (profile settings)."""
    from .fuzz import Settings, register_resolver, run_batch

    if not rows:
        return []
    register_resolver(resolve_clone)
    settings = Settings().with_(runs=profile.fuzz_runs, n_function=profile.fuzz_inputs_function)
    batch = [{"id": r["id"], "golden_code": harness(r["reference"], r["reference_function"], r["observe"]),
              "generated_code": harness(r["variant"], r["variant_function"], r["observe"]),
              "clone_domain": r["domain"]} for r in rows]
    return run_batch(batch, settings=settings, seed=seed, jobs=jobs, progress=progress, keep_going=True)


def assemble(rows: list[dict[str, Any]], results: list[dict[str, Any]], ledger: Any) -> list[dict[str, Any]]:
    """Attach labels and SurfaceSim (of the plain units); discard unconfirmed pairs (counted)."""
    from .similarity import surface_sim

    by_id = {r["id"]: r for r in results}
    out = []
    for row in rows:
        res = by_id.get(row["id"], {})
        df = res.get("df_score")
        if res.get("error") or df is None:
            ledger.drop("CLONE pair", "cannot be fuzzed (" + str(res.get("error", "no result"))[:60] + ")")
            continue
        if df < 0:
            ledger.drop("CLONE pair", "every run timed out (df_score = -1)")
            continue
        if df < 1.0:
            ledger.drop("CLONE pair", "equivalence not confirmed on fresh inputs (df_score < 1): discarded")
            continue
        out.append({**row, "df_score": df, "run_scores": res.get("run_scores"), "counts": res.get("counts"),
                    "verdict_digest": res.get("verdict_digest"), "seeds": res.get("seeds"),
                    "spec": f"clone domain {row['domain']}",
                    "surface_sim": surface_sim(row["reference"], row["variant"], mode="paper")})
    return out


def build(profile: Any, seed: int, jobs: int, ledger: Any, progress: bool = True) -> tuple[list[dict[str, Any]], list[Cluster]]:
    """The whole pipeline for a profile: (labelled CLONE pairs, clusters)."""
    caps = caps_for(profile.name)
    functions = extract(ledger=ledger)
    cands = candidates(functions, caps, seed, ledger)
    kept = fingerprint_all(cands, profile.fuzz_inputs_function, seed, ledger, progress=progress)
    clusters = cluster(kept, ledger)
    rows = pair_rows(clusters, caps, seed, ledger)
    results = label(rows, profile, seed, jobs, progress=progress)
    return assemble(rows, results, ledger), clusters


def cluster_table(clusters: list[Cluster], pairs: list[dict[str, Any]]) -> Any:
    """One row per cluster: functions, emitted pairs, mean SurfaceSim and df_score."""
    import pandas as pd

    by: dict[str, list[dict[str, Any]]] = {}
    for p in pairs:
        by.setdefault(p["cluster"], []).append(p)
    rows = []
    for cl in clusters:
        ps = by.get(cl.id, [])
        rows.append({
            "cluster": cl.id, "family": cl.family.name, "domain": cl.family.domain,
            "functions": len(cl.members), "packages": ", ".join(cl.packages),
            "pairs": len(ps),
            "mean SurfaceSim": round(sum(p["surface_sim"] for p in ps) / len(ps), 3) if ps else None,
            "mean df_score": round(sum(p["df_score"] for p in ps) / len(ps), 3) if ps else None,
            "members": "; ".join(m.qualname for m in cl.members),
        })
    return pd.DataFrame(rows, columns=["cluster", "family", "domain", "functions", "packages", "pairs",
                                       "mean SurfaceSim", "mean df_score", "members"])


def summary(clusters: list[Cluster], pairs: list[dict[str, Any]]) -> dict[str, Any]:
    """Counts for the notebook's text: clusters, distinct functions in them, pairs, means."""
    fs = {m.qualname for c in clusters for m in c.members}
    return {"clusters": len(clusters), "functions": len(fs), "pairs": len(pairs),
            "mean_surface_sim": (sum(p["surface_sim"] for p in pairs) / len(pairs)) if pairs else None,
            "mean_df_score": (sum(p["df_score"] for p in pairs) / len(pairs)) if pairs else None,
            "cross_package_pairs": sum(1 for p in pairs if p.get("cross_package")),
            "families": dict(Counter(c.family.name for c in clusters))}


def cmd_clones(args: Any) -> int:
    """``lcl variants clones``: the human-written DFS (CLONE) pairs of a profile outside Jupyter,
    exactly as the 02 notebook builds them (same functions, clusters, pairs and seed), so the
    notebook then finds every fingerprint and label in the fuzz result store. Resumable: finished
    pairs are stored one by one."""
    from . import profiles
    from .dataset import Ledger

    profile = profiles.from_args(args)
    ledger = Ledger()
    pairs, clusters = build(profile, args.seed, args.jobs, ledger, progress=not args.no_progress)
    s = summary(clusters, pairs)
    mean = (lambda v: "n/a" if v is None else f"{v:.3f}")
    print(f"CLONE pairs (profile {profile.name}, seed {args.seed}): {s['clusters']} clusters of {s['functions']} "
          f"functions -> {s['pairs']} labelled pairs ({s['cross_package_pairs']} cross-package), mean SurfaceSim "
          f"{mean(s['mean_surface_sim'])}, mean df_score {mean(s['mean_df_score'])}; "
          "the 02_variants notebook finds them in the result store")
    rows = ledger.to_rows()
    width = max((len(r["what"]) for r in rows), default=0)
    for r in rows:
        print(f"  {r['stage']:<9} {r['what']:<{width}}  {r['count']:>6}")
    return 0
