"""The rewrite context and naming: the paper's five strategies (Section 3.3.2, Step I), the
per-variant context :class:`_Ctx` (entry point, seeded random source, names already taken), fresh
and synonym names for renaming, and the :class:`RuleSet` each rule module registers its rules in.
"""

from __future__ import annotations

import ast
import keyword
import random
from collections.abc import Callable
from dataclasses import dataclass

from .astutil import BUILTINS, all_identifiers

#: The paper's five optimisation strategies, in its order.
STRATEGIES = ("algorithmic", "data structures", "cold path", "hot path", "memoization")


class Ctx:
    def __init__(self, tree: ast.Module, entry_point: str | None, rng: random.Random, program: bool):
        self.entry_point = entry_point
        self.rng = rng
        self.program = program
        self.renamable: frozenset[str] = frozenset()
        self.taken = all_identifiers(tree) | BUILTINS

    def fresh(self, base: str) -> str:
        if not base.isidentifier() or keyword.iskeyword(base):
            base = f"v_{base}" if f"v_{base}".isidentifier() else "var"
        name, i = base, 1
        while name in self.taken or keyword.iskeyword(name):
            i += 1
            name = f"{base}{i}"
        self.taken.add(name)
        return name


SYNONYMS = {
    "i": ["idx", "pos", "k"], "j": ["jdx", "inner", "m"], "k": ["kk", "step", "key"],
    "n": ["size", "count", "num"], "m": ["width", "cols"], "x": ["item", "val", "elem"],
    "y": ["other", "yval"], "z": ["third", "zval"], "s": ["text", "acc"], "c": ["ch", "char"],
    "a": ["first", "lhs"], "b": ["second", "rhs"], "d": ["table", "mapping"], "l": ["seq", "items"],
    "res": ["result", "out", "acc"], "result": ["res", "out", "answer"],
    "ans": ["answer", "result", "out"], "ret": ["result", "out"], "count": ["cnt", "tally", "counter"],
    "cnt": ["count", "tally"], "total": ["acc", "running", "summed"], "temp": ["tmp", "buf"],
    "tmp": ["temp", "scratch"], "num": ["value", "number"], "lst": ["items", "seq"],
    "arr": ["values", "seq"], "val": ["value", "v"], "value": ["val", "v"], "word": ["token", "w"],
    "words": ["tokens", "parts"], "flag": ["found", "ok"], "start": ["lo", "begin"],
    "end": ["hi", "stop"], "left": ["lo", "lidx"], "right": ["hi", "ridx"], "mid": ["middle", "pivot"],
    "max_val": ["best", "largest"], "min_val": ["smallest", "lowest"], "new_list": ["out", "collected"],
    "idx": ["i", "pos"], "index": ["idx", "pos"], "key": ["k", "name"], "item": ["x", "elem"],
    "line": ["row", "ln"], "row": ["line", "r"], "col": ["column", "c2"], "q": ["queue", "pending"],
    "st": ["stack", "pending"], "stack": ["st", "pending"], "dp": ["table", "memo"],
}


def new_name(old: str, rng: random.Random) -> str:
    if old in SYNONYMS:
        return rng.choice(SYNONYMS[old])
    parts = [p for p in old.split("_") if p]
    options = [f"{old}_v", f"cur_{old}", f"{old}_val"]
    if len(parts) > 1:
        options.append("".join(p[0] for p in parts))
        options.append("_".join(reversed(parts)))
    if len(old) > 5:
        options.append(old[:4])
    return rng.choice(options)


#: A rewrite rule: it mutates ``tree`` in place (the driver hands it a fresh parse of the current
#: text) and returns True when it changed something.
RewriteFn = Callable[[ast.Module, Ctx], bool]


@dataclass(frozen=True)
class Rewrite:
    name: str
    fn: RewriteFn
    strategy: str | None


class RuleSet:
    """The rewrites one rule module defines, in definition order. Each rule registers itself with
    the decorator right above it; :mod:`.registry` puts all of them in the driver's fixed order."""

    def __init__(self) -> None:
        self.rules: list[Rewrite] = []

    def __call__(self, name: str, strategy: str | None) -> Callable[[RewriteFn], RewriteFn]:
        """Register the decorated function as rewrite ``name``, labelled with the paper's
        ``strategy`` (``None`` for a surface rewrite); the function itself is returned unchanged."""

        def register(fn: RewriteFn) -> RewriteFn:
            self.rules.append(Rewrite(name, fn, strategy))
            return fn

        return register
