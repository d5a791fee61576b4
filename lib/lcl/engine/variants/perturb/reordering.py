"""``reorder_statements``: one pair of adjacent, provably independent simple assignments swapped
(study X2; the conditions are listed in :mod:`lcl.engine.variants.perturb`).
"""

from __future__ import annotations

import ast
import random
from dataclasses import dataclass

from ..rewrite.astutil import (
    FUNC,
    assigned_names,
    captured_names,
    declared_anywhere,
    dynamic,
    guarded,
    parent_map,
    scope_of,
    stmt_lists,
    walk_scope,
)
from ..rewrite.scope import Scope
from .source_text import checked_source, parse_checked_source

_PLAIN_NODES = (ast.Constant, ast.Name, ast.Tuple, ast.List, ast.Set, ast.Dict, ast.BinOp, ast.UnaryOp, ast.BoolOp,
                ast.Compare, ast.IfExp, ast.Subscript, ast.Slice, ast.expr_context, ast.operator, ast.unaryop,
                ast.boolop, ast.cmpop)


def _plain(e: ast.AST) -> bool:
    """No call, attribute, comprehension, lambda, walrus, f-string, starred, yield or await."""
    return all(isinstance(n, _PLAIN_NODES) for n in ast.walk(e))


def _silent(e: ast.AST, bound: set[str]) -> bool:
    """Evaluating ``e`` neither raises nor runs user code: constants, names certainly bound,
    and tuples/lists of those."""
    if isinstance(e, ast.Constant):
        return True
    if isinstance(e, ast.Name):
        return e.id in bound
    if isinstance(e, (ast.Tuple, ast.List)):
        return all(_silent(x, bound) for x in e.elts)
    return False


def _target_names(t: ast.AST) -> list[str] | None:
    if isinstance(t, ast.Name):
        return [t.id]
    if isinstance(t, (ast.Tuple, ast.List)):
        out: list[str] = []
        for elt in t.elts:
            names = _target_names(elt)
            if names is None:
                return None
            out += names
        return out
    return None


@dataclass(frozen=True)
class _Effect:
    reads: frozenset[str]
    writes: frozenset[str]
    loud: bool  # may raise or run user code


class _BlockFacts:
    """Facts about one function or module scope, computed on demand."""

    def __init__(self, node: ast.AST, tree: ast.Module):
        self.node = node
        self.tree = tree
        self.captured = captured_names(node)
        deleted = {n.id for n in walk_scope(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Del)}
        params: set[str] = set()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            a = node.args
            params = {p.arg for p in [*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg] if p is not None}
        self.deleted = deleted
        self.params = params - deleted
        self._ints: set[str] | None = None

    def ints(self) -> set[str]:
        if self._ints is None:
            self._ints = Scope(self.node, self.tree).int_names()
        return self._ints

    def bound_before(self, stmts: list[ast.stmt], k: int) -> set[str]:
        """Names certainly bound when ``stmts[k]`` starts: parameters, and names bound by an
        earlier plain assignment, def, class or import of the same block (never deleted)."""
        out = set(self.params)
        for st in stmts[:k]:
            if isinstance(st, ast.Assign) and all(isinstance(t, ast.Name) for t in st.targets):
                out.update(t.id for t in st.targets if isinstance(t, ast.Name))
            elif isinstance(st, (*FUNC, ast.ClassDef)):
                out.add(st.name)
        return out - self.deleted

    def effect(self, st: ast.stmt, bound: set[str]) -> _Effect | None:
        if isinstance(st, ast.Assign) and _plain(st.value):
            writes: list[str] = []
            for t in st.targets:
                names = _target_names(t)
                if names is None:
                    return None
                writes += names
            unpacks = any(not isinstance(t, ast.Name) for t in st.targets)
            return _Effect(frozenset(assigned_names(st.value)), frozenset(writes), unpacks or not _silent(st.value, bound))
        if isinstance(st, ast.AugAssign) and isinstance(st.target, ast.Name) and _plain(st.value) \
                and st.target.id in self.ints():
            name = st.target.id
            return _Effect(frozenset(assigned_names(st.value) | {name}), frozenset({name}), True)
        return None


def _swappable(a: _Effect, b: _Effect, facts: _BlockFacts, declared: set[str]) -> bool:
    if a.writes & (b.reads | b.writes) or b.writes & a.reads:
        return False
    if (a.reads | a.writes | b.reads | b.writes) & declared:
        return False
    if (a.writes | b.writes) & facts.captured:
        return False
    return not (a.loud and b.loud)


def _swap_sites(tree: ast.Module) -> list[tuple[list[ast.stmt], int]]:
    if dynamic(tree):
        return []
    parents = parent_map(tree)
    declared = declared_anywhere(tree)
    facts: dict[int, _BlockFacts] = {}
    sites: list[tuple[list[ast.stmt], int]] = []
    for owner, stmts in stmt_lists(tree):
        scope = owner if isinstance(owner, (*FUNC, ast.ClassDef, ast.Module)) else scope_of(owner, parents)
        if not isinstance(scope, (*FUNC, ast.Module)):
            continue  # class bodies: attribute order is observable
        f = facts.setdefault(id(scope), _BlockFacts(scope, tree))
        for k in range(len(stmts) - 1):
            bound = f.bound_before(stmts, k)
            ea, eb = f.effect(stmts[k], bound), f.effect(stmts[k + 1], bound)
            if ea is None or eb is None or not _swappable(ea, eb, f, declared):
                continue
            if (ea.loud or eb.loud) and guarded(stmts[k], parents):
                continue
            sites.append((stmts, k))
    return sites


@checked_source
def reorder_statements(candidate: str, reference: str, rng: random.Random) -> str | None:
    """Swap one pair of adjacent, provably independent simple assignments (see
    :mod:`lcl.engine.variants.perturb`); ``rng`` picks the pair."""
    tree = parse_checked_source(candidate)
    if tree is None:
        return None
    sites = _swap_sites(tree)
    if not sites:
        return None
    stmts, k = rng.choice(sites)
    stmts[k], stmts[k + 1] = stmts[k + 1], stmts[k]
    return ast.unparse(tree)
