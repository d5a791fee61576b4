"""``dead_code``: no-effect statements (``if False:`` blocks, unused constant assignments) at one
to three random places, every inserted name fresh (study X2; see :mod:`lcl.engine.variants.perturb`).
"""

from __future__ import annotations

import ast
import keyword
import random
from dataclasses import dataclass

from ..rewrite.astutil import BUILTINS, FUNC, all_identifiers, dynamic, parent_map, scope_of, stmt_lists
from .docstrings import docstring_expr
from .source_text import checked_source, parse_checked_source

_DEAD_BLOCKS = (
    "if False:\n    {a} = []\n    for {b} in range(10):\n        {a}.append({b} * {b})",
    "if False:\n    {a} = 0\n    while {a} < 10:\n        {a} += 1",
    "if False:\n    {a} = {{}}\n    {a}[0] = len({a})",
    "if False:\n    raise AssertionError('unreachable')",
)
_DEAD_ASSIGNMENTS = ("{a} = 0", "{a} = None", "{a} = ()")
_DEAD_NAMES = ("tmp", "buf", "acc", "cache", "seen", "unused", "scratch", "idx")


@dataclass(frozen=True)
class _Slot:
    stmts: list[ast.stmt]
    index: int
    live: bool  # an executed no-effect assignment may go here


def _is_future(st: ast.stmt) -> bool:
    return isinstance(st, ast.ImportFrom) and st.module == "__future__"


def _dead_slots(tree: ast.Module) -> list[_Slot]:
    parents = parent_map(tree)
    slots: list[_Slot] = []
    for owner, stmts in stmt_lists(tree):
        scope = owner if isinstance(owner, (*FUNC, ast.ClassDef, ast.Module)) else scope_of(owner, parents)
        if isinstance(scope, ast.ClassDef):
            continue
        start = 0
        if isinstance(owner, (*FUNC, ast.Module)) and stmts is owner.body and docstring_expr(owner) is not None:
            start = 1
        if isinstance(owner, ast.Module) and stmts is owner.body:
            while start < len(stmts) and _is_future(stmts[start]):
                start += 1
        live = isinstance(owner, FUNC) and stmts is owner.body and not dynamic(owner)
        slots.extend(_Slot(stmts, i, live) for i in range(start, len(stmts) + 1))
    return slots


class _Fresh:
    def __init__(self, tree: ast.AST):
        self.taken = all_identifiers(tree) | BUILTINS | set(keyword.kwlist)

    def __call__(self, base: str) -> str:
        name, i = base, 1
        while name in self.taken:
            i += 1
            name = f"{base}{i}"
        self.taken.add(name)
        return name


@checked_source
def dead_code(candidate: str, reference: str, rng: random.Random) -> str | None:
    """One to three no-effect statements: ``if False:`` blocks, or unused constant assignments
    at the top of a function body (see :mod:`lcl.engine.variants.perturb`)."""
    tree = parse_checked_source(candidate)
    if tree is None:
        return None
    slots = _dead_slots(tree)
    if not slots:
        return None
    fresh = _Fresh(tree)
    chosen = rng.sample(slots, min(len(slots), rng.randint(1, 3)))
    for slot in sorted(chosen, key=lambda s: s.index, reverse=True):  # later slots first: indices stay valid
        templates = _DEAD_BLOCKS + (_DEAD_ASSIGNMENTS if slot.live else ())
        a, b = rng.sample(_DEAD_NAMES, 2)
        code = rng.choice(templates).format(a=fresh(a), b=fresh(b))
        slot.stmts[slot.index:slot.index] = ast.parse(code).body
    return ast.unparse(tree)
