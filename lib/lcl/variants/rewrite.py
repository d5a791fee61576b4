"""Optimised variants (DFS region), offline: a conservative, semantics-preserving AST rewriter.

The paper (Section 3.3.2, Step I) asked GPT-4 to optimise each reference with one or more of
five strategies. No model is reachable offline, so this module composes small rewrites, each
labelled with the paper's strategy it stands for (or ``None`` for the surface rewrites that real
optimisations bring with them: renaming, restructuring, helper extraction). Every rewrite only
fires when simple syntactic checks prove it safe; the result is still verified later by
differential fuzzing. See ``docs/VARIANTS.md`` for each rewrite's safety conditions.

Nothing here executes the code it rewrites.
"""

from __future__ import annotations

import ast
import builtins
import copy
import keyword
import random
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from rapidfuzz.distance import Levenshtein

from ..errors import UserError

__all__ = ["REWRITES", "STRATEGIES", "Variant", "edit_similarity", "optimise", "surface_similarity"]

#: The paper's five optimisation strategies, in its order.
STRATEGIES = ("algorithmic", "data structures", "cold path", "hot path", "memoization")

_BUILTINS = frozenset(dir(builtins))
_FUNC = (ast.FunctionDef, ast.AsyncFunctionDef)
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
_DYNAMIC = frozenset({"locals", "globals", "vars", "eval", "exec", "__import__", "compile", "dir"})
_PURE_BUILTINS = frozenset({
    "abs", "all", "any", "bin", "bool", "chr", "divmod", "enumerate", "float", "hash", "hex", "int",
    "isinstance", "len", "list", "max", "min", "oct", "ord", "pow", "range", "repr", "reversed",
    "round", "set", "sorted", "str", "sum", "tuple", "zip", "frozenset", "dict", "print", "input",
})
_NON_MUTATING_METHODS = frozenset({
    "count", "index", "get", "keys", "values", "items", "copy", "startswith", "endswith", "lower",
    "upper", "strip", "lstrip", "rstrip", "split", "rsplit", "splitlines", "join", "find", "rfind",
    "replace", "isdigit", "isalpha", "isalnum", "isspace", "isupper", "islower", "istitle",
    "format", "title", "capitalize", "swapcase", "zfill", "center", "ljust", "rjust", "partition",
    "rpartition", "encode", "decode", "casefold", "isnumeric", "isdecimal", "translate",
    "bit_length", "conjugate", "issubset", "issuperset", "union", "intersection", "difference",
    "symmetric_difference", "isdisjoint", "most_common", "expandtabs", "removeprefix",
    "removesuffix", "rindex",
})
_STR_METHODS = frozenset({
    "lower", "upper", "strip", "lstrip", "rstrip", "join", "replace", "format", "title",
    "capitalize", "swapcase", "zfill", "center", "ljust", "rjust", "casefold", "expandtabs",
    "removeprefix", "removesuffix", "translate",
})
_SCALAR_CALLS = frozenset({"len", "int", "float", "abs", "ord", "chr", "str", "bool", "round",
                           "sum", "hash", "repr", "bin", "hex", "oct"})
_SEQ_ANNOTATIONS = frozenset({"list", "List", "str", "tuple", "Tuple", "Sequence", "bytes"})
_INT_BINOPS = (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv, ast.Mod, ast.LShift, ast.RShift, ast.BitAnd, ast.BitOr,
               ast.BitXor)
_INT_CALLS = frozenset({"len", "int", "ord", "hash", "bool"})
_INT_METHODS = frozenset({"count", "find", "rfind", "index", "rindex"})
_HASHABLE_ANNOTATIONS = frozenset({"int", "float", "str", "bool", "bytes", "complex", "tuple",
                                   "Tuple", "frozenset", "FrozenSet", "Optional"})


@dataclass(frozen=True)
class Variant:
    """An optimised variant. ``strategies`` are the paper's labels of the optimisation rewrites
    applied (empty when only surface rewrites applied: the paper's "None"); ``rewrites`` are the
    concrete rewrite names in application order; ``similarity`` is SurfaceSim (Eq. 1, paper mode:
    see :func:`surface_similarity`) between ``original`` (``ast.unparse`` of the reference) and
    ``code``."""

    code: str
    original: str
    strategies: tuple[str, ...]
    rewrites: tuple[str, ...]
    similarity: float
    rejected: tuple[str, ...] = field(default=())  # rewrites whose output failed validation

    @property
    def changed(self) -> bool:
        return self.code != self.original

    @property
    def strategy_label(self) -> str:
        """The paper's strategy field: comma-separated labels, or ``"None"``."""
        return ", ".join(self.strategies) if self.strategies else "None"


def surface_similarity(a: str, b: str) -> float:
    """SurfaceSim (Eq. 1 of the paper, ``lcl.similarity.surface_sim(a, b, mode="paper")``): the
    mean of the normalised edit similarity and the Jaccard overlap of the AST node-type sets."""
    from ..similarity import SimilarityWarning, surface_sim

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SimilarityWarning)
        return float(surface_sim(a, b, mode="paper"))


def edit_similarity(a: str, b: str) -> float:
    """Normalised Levenshtein similarity of two texts (1.0 = identical)."""
    return float(Levenshtein.normalized_similarity(a, b))


# ----------------------------------------------------------------------------- AST utilities

def _walk_scope(node: ast.AST) -> Iterator[ast.AST]:
    """Nodes of one scope: do not descend into nested functions, lambdas or classes (their
    def/lambda/class node itself is yielded)."""
    stack = list(ast.iter_child_nodes(node))
    while stack:
        n = stack.pop()
        yield n
        if not isinstance(n, _SCOPES):
            stack.extend(ast.iter_child_nodes(n))


def _walk_many(nodes: list[ast.AST]) -> Iterator[ast.AST]:
    for n in nodes:
        yield from ast.walk(n)


def _parents(tree: ast.AST) -> dict[int, ast.AST]:
    return {id(c): p for p in ast.walk(tree) for c in ast.iter_child_nodes(p)}


def _ancestors(node: ast.AST, parents: dict[int, ast.AST]) -> Iterator[ast.AST]:
    while id(node) in parents:
        node = parents[id(node)]
        yield node


def _scope_of(node: ast.AST, parents: dict[int, ast.AST]) -> ast.AST:
    for a in _ancestors(node, parents):
        if isinstance(a, (*_SCOPES, ast.Module)):
            return a
    raise AssertionError("node outside module")


def _guarded(node: ast.AST, parents: dict[int, ast.AST]) -> bool:
    """True when an exception raised at ``node`` could be caught inside its own scope."""
    for a in _ancestors(node, parents):
        if isinstance(a, (*_SCOPES, ast.Module)):
            return False
        if isinstance(a, (ast.Try, ast.With, ast.AsyncWith, ast.TryStar)):
            return True
    return False


def _stmt_lists(tree: ast.AST) -> Iterator[tuple[ast.AST, list[ast.stmt]]]:
    for node in ast.walk(tree):
        for fld in ("body", "orelse", "finalbody"):
            val = getattr(node, fld, None)
            if isinstance(val, list) and val and isinstance(val[0], ast.stmt):
                yield node, val


def _names(node: ast.AST | list) -> set[str]:
    nodes = node if isinstance(node, list) else [node]
    return {n.id for n in _walk_many(nodes) if isinstance(n, ast.Name)}


def _binding_name(n: ast.AST) -> str | None:
    """The name a definition-like node binds (argument, def/class, import alias, except/match
    target), or None."""
    if isinstance(n, ast.arg):
        return n.arg
    if isinstance(n, (*_FUNC, ast.ClassDef)):
        return n.name
    if isinstance(n, ast.alias):
        return (n.asname or n.name).split(".")[0]
    if isinstance(n, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)):
        return n.name or None
    if isinstance(n, ast.MatchMapping):
        return n.rest or None
    return None


def _all_identifiers(tree: ast.AST) -> set[str]:
    out: set[str] = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.Name):
            out.add(n.id)
        elif isinstance(n, ast.Attribute):
            out.add(n.attr)
        elif isinstance(n, (ast.Global, ast.Nonlocal)):
            out.update(n.names)
        elif isinstance(n, ast.keyword) and n.arg:
            out.add(n.arg)
        elif (name := _binding_name(n)) is not None:
            out.add(name)
    return out


def _bound_anywhere(tree: ast.AST) -> set[str]:
    out: set[str] = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load):
            out.add(n.id)
        elif (name := _binding_name(n)) is not None:
            out.add(name)
    return out


def _has(nodes: ast.AST | list, *types: type) -> bool:
    nodes = nodes if isinstance(nodes, list) else [nodes]
    return any(isinstance(n, types) for n in _walk_many(nodes))


def _dynamic(tree: ast.AST) -> bool:
    return any((isinstance(n, ast.Name) and n.id in _DYNAMIC)
               or (isinstance(n, ast.Attribute) and n.attr in ("__dict__", "f_locals", "f_globals"))
               for n in ast.walk(tree))


def _declared_anywhere(tree: ast.AST) -> set[str]:
    """Names in any ``global``/``nonlocal`` statement: other scopes may rebind them."""
    return {x for n in ast.walk(tree) if isinstance(n, (ast.Global, ast.Nonlocal)) for x in n.names}


def _captured(scope_node: ast.AST) -> set[str]:
    """Names read or written inside a function, lambda or class nested in ``scope_node``: a
    closure (or, at module level, any function reading a global) may observe them at any call."""
    out: set[str] = set()
    for n in _walk_scope(scope_node):
        if isinstance(n, _SCOPES):
            out |= _names(n) | {x for m in ast.walk(n) if isinstance(m, (ast.Global, ast.Nonlocal)) for x in m.names}
    return out


def _ann_name(ann: ast.AST | None) -> str | None:
    if isinstance(ann, ast.Name):
        return ann.id
    if isinstance(ann, ast.Attribute):
        return ann.attr
    if isinstance(ann, ast.Subscript):
        return _ann_name(ann.value)
    if isinstance(ann, ast.Constant) and isinstance(ann.value, str):
        try:
            return _ann_name(ast.parse(ann.value, mode="eval").body)
        except SyntaxError:
            return None
    return None


def _ann_hashable(ann: ast.AST | None) -> bool:
    name = _ann_name(ann)
    if name not in _HASHABLE_ANNOTATIONS:
        return False
    if isinstance(ann, ast.Subscript):
        inner = ann.slice.elts if isinstance(ann.slice, ast.Tuple) else [ann.slice]
        return all((isinstance(e, ast.Constant) and e.value is Ellipsis) or _ann_hashable(e) for e in inner)
    return True


def _call_name(node: ast.AST) -> str | None:
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        return node.func.id
    return None


def _params(fn: ast.AST) -> list[ast.arg]:
    a = fn.args
    out = [*a.posonlyargs, *a.args, *a.kwonlyargs]
    if a.vararg:
        out.append(a.vararg)
    if a.kwarg:
        out.append(a.kwarg)
    return out


class _Scope:
    """Facts about one scope (a function or the module), ignoring nested scopes."""

    def __init__(self, node: ast.AST, tree: ast.Module):
        self.node = node
        self.tree = tree
        self.bound_in_tree = _bound_anywhere(tree)
        self.params: dict[str, ast.arg] = {p.arg: p for p in _params(node)} if isinstance(node, _FUNC) else {}
        self.bindings: dict[str, list[tuple[str, ast.AST]]] = {}
        self.declared: set[str] = set()
        for n in _walk_scope(node):
            if isinstance(n, (ast.Global, ast.Nonlocal)):
                self.declared.update(n.names)
            elif isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name):
                self._add(n.targets[0].id, "assign", n.value)
            elif isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name) and n.value is not None:
                self._add(n.target.id, "assign", n.value)
            elif isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name):
                self._add(n.target.id, "aug", n)
            elif isinstance(n, (ast.For, ast.comprehension)) and isinstance(n.target, ast.Name):
                self._add(n.target.id, "for", n.iter)
            elif isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
                self._add(n.id, "other", n)  # simple targets are de-duplicated below
            elif isinstance(n, (*_FUNC, ast.ClassDef)):
                self._add(n.name, "other", n)
            elif isinstance(n, ast.alias):
                self._add((n.asname or n.name).split(".")[0], "other", n)
            elif isinstance(n, ast.ExceptHandler) and n.name:
                self._add(n.name, "other", n)
            elif isinstance(n, (ast.MatchAs, ast.MatchStar)) and n.name:
                self._add(n.name, "other", n)
        # simple targets were recorded twice (as their statement and as a Store Name): drop the
        # Name-level "other" entry for them
        for name, binds in self.bindings.items():
            simple = sum(1 for k, _ in binds if k in ("assign", "aug", "for"))
            others = [b for b in binds if b[0] == "other"]
            stores = [b for b in others if isinstance(b[1], ast.Name)]
            if simple and len(stores) >= simple:
                drop = simple
                kept = []
                for b in binds:
                    if drop and b[0] == "other" and isinstance(b[1], ast.Name):
                        drop -= 1
                        continue
                    kept.append(b)
                self.bindings[name] = kept
        self._str: set[str] | None = None
        self._int: set[str] | None = None

    def _add(self, name: str, kind: str, node: ast.AST) -> None:
        self.bindings.setdefault(name, []).append((kind, node))

    def builtin(self, name: str) -> bool:
        return name in _BUILTINS and name not in self.bound_in_tree

    # -- str inference (greatest fixpoint over this scope's bindings)
    def str_names(self) -> set[str]:
        if self._str is not None:
            return self._str
        cand = set(self.bindings) | set(self.params)
        cand -= self.declared
        cand = {n for n in cand if n not in self.params or _ann_name(self.params[n].annotation) == "str"}
        changed = True
        while changed:
            changed = False
            for name in sorted(cand):
                ok = all(self._binding_is_str(kind, node, cand) for kind, node in self.bindings.get(name, []))
                if not ok:
                    cand.discard(name)
                    changed = True
        self._str = cand
        return cand

    def _binding_is_str(self, kind: str, node: ast.AST, env: set[str]) -> bool:
        if kind == "assign":
            return self.is_str(node, env)
        if kind == "aug":
            return isinstance(node.op, ast.Add) and self.is_str(node.value, env)
        if kind == "for":
            return self.is_str(node, env)
        return False

    def is_str(self, e: ast.AST, env: set[str] | None = None) -> bool:
        env = self.str_names() if env is None else env
        if isinstance(e, ast.Constant):
            return isinstance(e.value, str)
        if isinstance(e, ast.JoinedStr):
            return True
        if isinstance(e, ast.Name):
            return e.id in env
        if isinstance(e, ast.Call):
            name = _call_name(e)
            if name in ("str", "chr", "repr", "input", "format", "bin", "hex", "oct") and self.builtin(name):
                return True
            if isinstance(e.func, ast.Attribute) and e.func.attr in _STR_METHODS:
                return self.is_str(e.func.value, env)
            return False
        if isinstance(e, ast.BinOp):
            if isinstance(e.op, ast.Add):
                return self.is_str(e.left, env) and self.is_str(e.right, env)
            if isinstance(e.op, (ast.Mult, ast.Mod)):
                return self.is_str(e.left, env)
            return False
        if isinstance(e, ast.Subscript):
            return self.is_str(e.value, env)
        if isinstance(e, ast.IfExp):
            return self.is_str(e.body, env) and self.is_str(e.orelse, env)
        return False

    def is_hashable(self, e: ast.AST) -> bool:
        if isinstance(e, ast.Constant):
            return True
        if self.is_str(e):
            return True
        name = _call_name(e)
        return name in ("int", "len", "ord", "bool", "float", "hash", "str", "chr") and self.builtin(name)

    # -- int inference (greatest fixpoint, like the str inference)
    def int_names(self) -> set[str]:
        """Names that only ever hold an ``int`` (or ``bool``) in this scope: every binding is an
        int-valued expression, an integer augmented assignment or a loop over ``range``.
        Parameters count only when annotated ``int``/``bool`` (the input contract). Names in any
        ``global``/``nonlocal`` statement of the module are excluded."""
        if self._int is not None:
            return self._int
        anywhere = _declared_anywhere(self.tree)
        cand = {n for n in self.bindings if n not in self.params}
        cand |= {p for p, arg in self.params.items() if _ann_name(arg.annotation) in ("int", "bool")
                 and not isinstance(arg.annotation, ast.Subscript)}
        cand -= self.declared | anywhere
        changed = True
        while changed:
            changed = False
            for name in sorted(cand):
                if not all(self._int_binding(kind, node, cand) for kind, node in self.bindings.get(name, [])):
                    cand.discard(name)
                    changed = True
        self._int = cand
        return cand

    def _int_binding(self, kind: str, node: ast.AST, env: set[str]) -> bool:
        if kind == "assign":
            return self.is_int(node, env)
        if kind == "aug":
            return isinstance(node.op, _INT_BINOPS) and self.is_int(node.value, env)
        if kind == "for":
            return _call_name(node) == "range" and self.builtin("range")
        return False

    def is_int(self, e: ast.AST, env: set[str] | None = None) -> bool:
        """``e`` provably evaluates to an ``int``/``bool`` (or raises)."""
        env = self.int_names() if env is None else env
        if isinstance(e, ast.Constant):
            return type(e.value) in (int, bool)
        if isinstance(e, ast.Name):
            return e.id in env
        if isinstance(e, ast.UnaryOp):
            return isinstance(e.op, ast.Not) or self.is_int(e.operand, env)
        if isinstance(e, ast.BinOp):
            if isinstance(e.op, _INT_BINOPS):
                return self.is_int(e.left, env) and self.is_int(e.right, env)
            if isinstance(e.op, ast.Pow):  # int ** non-negative int constant stays an int
                return self.is_int(e.left, env) and isinstance(e.right, ast.Constant) \
                    and type(e.right.value) is int and e.right.value >= 0
            return False
        if isinstance(e, ast.Compare):
            return True  # a bool for builtin types (as in the scalar inference)
        if isinstance(e, ast.BoolOp):
            return all(self.is_int(v, env) for v in e.values)
        if isinstance(e, ast.IfExp):
            return self.is_int(e.body, env) and self.is_int(e.orelse, env)
        if isinstance(e, ast.Call) and not any(isinstance(a, ast.Starred) for a in e.args):
            name = _call_name(e)
            if name in _INT_CALLS and self.builtin(name):
                return True
            if name == "abs" and self.builtin(name) and len(e.args) == 1 and not e.keywords:
                return self.is_int(e.args[0], env)
            if name in ("min", "max") and self.builtin(name) and len(e.args) >= 2 and not e.keywords:
                return all(self.is_int(a, env) for a in e.args)
            if isinstance(e.func, ast.Attribute) and e.func.attr in _INT_METHODS:
                recv = e.func.value
                return self.is_str(recv) or (isinstance(recv, ast.Name) and self.is_seq(recv.id))
        return False

    def is_seq(self, name: str) -> bool:
        """``name`` is a list/str/tuple (by annotation or by every binding) in this scope."""
        if name in self.declared:
            return False
        binds = self.bindings.get(name, [])
        if name in self.params:
            return not binds and _ann_name(self.params[name].annotation) in _SEQ_ANNOTATIONS
        if not binds:
            return False
        for kind, node in binds:
            if kind != "assign":
                return False
            if isinstance(node, (ast.List, ast.ListComp, ast.Tuple)) or self.is_str(node):
                continue
            cname = _call_name(node)
            if cname in ("list", "sorted", "tuple", "str") and self.builtin(cname):
                continue
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr in ("split", "rsplit", "splitlines") and self.is_str(node.func.value)):
                continue
            return False
        return True

    def is_immutable(self, name: str) -> bool:
        if name in self.str_names():
            return True
        return name in self.params and not self.bindings.get(name) and \
            _ann_name(self.params[name].annotation) in ("str", "tuple", "Tuple", "bytes")

    def scalar_names(self) -> set[str]:
        cand = {n for n in self.bindings if n not in self.params and n not in self.declared}
        changed = True
        while changed:
            changed = False
            for name in sorted(cand):
                for kind, node in self.bindings[name]:
                    if kind == "assign" and self._is_scalar(node, cand):
                        continue
                    if kind == "aug" and not isinstance(node.op, (ast.BitOr, ast.BitAnd, ast.BitXor)):
                        continue  # number/str += x stays a number/str (barring exotic __radd__)
                    if kind == "for" and (_call_name(node) == "range" or self.is_str(node)):
                        continue
                    cand.discard(name)
                    changed = True
                    break
        return cand

    def _is_scalar(self, e: ast.AST, env: set[str]) -> bool:
        if isinstance(e, ast.Constant):
            return not isinstance(e.value, (tuple, frozenset))
        if isinstance(e, ast.Name):
            return e.id in env or e.id in self.str_names()
        if isinstance(e, ast.BinOp):
            return self._is_scalar(e.left, env) and self._is_scalar(e.right, env)
        if isinstance(e, ast.UnaryOp):
            return self._is_scalar(e.operand, env)
        if isinstance(e, ast.BoolOp):
            return all(self._is_scalar(v, env) for v in e.values)
        if isinstance(e, ast.Compare):
            return True  # always a bool for builtin types; custom __eq__ results are rare
        if isinstance(e, ast.IfExp):
            return self._is_scalar(e.body, env) and self._is_scalar(e.orelse, env)
        name = _call_name(e)
        if name in _SCALAR_CALLS and self.builtin(name):
            return True
        return self.is_str(e)


def _mutation_free(name: str, region: list[ast.AST], scope: _Scope) -> bool:
    """No statement in ``region`` can rebind or mutate the object bound to ``name``."""
    immutable = scope.is_immutable(name)
    scalars = None
    for n in _walk_many(region):
        if isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Load):
            return False
        if isinstance(n, (ast.Global, ast.Nonlocal, ast.Yield, ast.YieldFrom, ast.Await, *_SCOPES)):
            return False
        if immutable:
            continue
        if isinstance(n, (ast.Subscript, ast.Attribute)) and not isinstance(n.ctx, ast.Load):
            return False
        if isinstance(n, ast.AugAssign):
            if scalars is None:
                scalars = scope.scalar_names()
            if not (isinstance(n.target, ast.Name) and n.target.id in scalars):
                return False
        if isinstance(n, ast.Call):
            cname = _call_name(n)
            if cname is not None:
                if not (cname in _PURE_BUILTINS and scope.builtin(cname)):
                    return False
                if any(not isinstance(k.value, (ast.Constant, ast.Lambda)) for k in n.keywords):
                    return False
            elif not (isinstance(n.func, ast.Attribute) and n.func.attr in _NON_MUTATING_METHODS):
                return False
    return True


_FLIP_ALWAYS = {ast.In: ast.NotIn, ast.NotIn: ast.In, ast.Is: ast.IsNot, ast.IsNot: ast.Is}
_FLIP_EQ = {ast.Eq: ast.NotEq, ast.NotEq: ast.Eq}
_FLIP_ORDER = {ast.Lt: ast.GtE, ast.GtE: ast.Lt, ast.Gt: ast.LtE, ast.LtE: ast.Gt}


def _negate(test: ast.expr, scope: _Scope | None = None) -> ast.expr:
    """``not test``, simplified: ``not not c`` -> ``c``; ``in``/``is`` flip to ``not in``/``is not``
    (the language defines them as negations); ``==``/``!=`` flip when each side is a provable
    int or str, ``<``/``>=``... when both sides are (total orders, no NaN)."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return test.operand
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        op, a, b = type(test.ops[0]), test.left, test.comparators[0]
        flip = _FLIP_ALWAYS.get(op)
        if flip is None and scope is not None:
            ints = scope.is_int(a), scope.is_int(b)
            strs = scope.is_str(a), scope.is_str(b)
            if op in _FLIP_EQ and all(i or t for i, t in zip(ints, strs)):
                flip = _FLIP_EQ[op]
            elif op in _FLIP_ORDER and (all(ints) or all(strs)):
                flip = _FLIP_ORDER[op]
        if flip is not None:
            return ast.Compare(left=a, ops=[flip()], comparators=[b])
    return ast.UnaryOp(op=ast.Not(), operand=test)


def _terminates(stmts: list[ast.stmt]) -> bool:
    if not stmts:
        return False
    last = stmts[-1]
    if isinstance(last, (ast.Return, ast.Raise)):
        return True
    if isinstance(last, ast.If):
        return _terminates(last.body) and _terminates(last.orelse)
    return False


def _size(node: ast.AST) -> int:
    return sum(1 for _ in ast.walk(node))


class _Ctx:
    def __init__(self, tree: ast.Module, entry_point: str | None, rng: random.Random, program: bool):
        self.entry_point = entry_point
        self.rng = rng
        self.program = program
        self.renamable: frozenset[str] = frozenset()
        self.taken = _all_identifiers(tree) | _BUILTINS

    def fresh(self, base: str) -> str:
        if not base.isidentifier() or keyword.iskeyword(base):
            base = f"v_{base}" if f"v_{base}".isidentifier() else "var"
        name, i = base, 1
        while name in self.taken or keyword.iskeyword(name):
            i += 1
            name = f"{base}{i}"
        self.taken.add(name)
        return name


# ----------------------------------------------------------------------------- rewrites
# Each rewrite mutates ``tree`` in place (the driver hands it a copy) and returns True when it
# changed something.

_SYNONYMS = {
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


def _new_name(old: str, rng: random.Random) -> str:
    if old in _SYNONYMS:
        return rng.choice(_SYNONYMS[old])
    parts = [p for p in old.split("_") if p]
    options = [f"{old}_v", f"cur_{old}", f"{old}_val"]
    if len(parts) > 1:
        options.append("".join(p[0] for p in parts))
        options.append("_".join(reversed(parts)))
    if len(old) > 5:
        options.append(old[:4])
    return rng.choice(options)


def rw_rename_locals(tree: ast.Module, ctx: _Ctx) -> bool:
    """Consistently rename variables (never parameters, functions, classes, imports, builtins,
    class attributes or names touched by dynamic scope access)."""
    if _dynamic(tree):
        return False
    parents = _parents(tree)
    bound = _bound_anywhere(tree)
    excluded = set(_BUILTINS)
    for n in ast.walk(tree):
        if isinstance(n, ast.arg):
            excluded.add(n.arg)
        elif isinstance(n, (*_FUNC, ast.ClassDef)):
            excluded.add(n.name)
        elif isinstance(n, ast.alias):
            excluded.add((n.asname or n.name).split(".")[0])
        elif isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load):
            if isinstance(_scope_of(n, parents), ast.ClassDef):
                excluded.add(n.id)
    candidates = sorted(n for n in bound - excluded if not (n.startswith("__") and n.endswith("__")))
    if not candidates:
        return False
    mapping = {old: ctx.fresh(_new_name(old, ctx.rng)) for old in candidates}
    for n in ast.walk(tree):
        if isinstance(n, ast.Name) and n.id in mapping:
            n.id = mapping[n.id]
        elif isinstance(n, ast.ExceptHandler) and n.name in mapping:
            n.name = mapping[n.name]
        elif isinstance(n, (ast.MatchAs, ast.MatchStar)) and n.name in mapping:
            n.name = mapping[n.name]
        elif isinstance(n, ast.MatchMapping) and n.rest in mapping:
            n.rest = mapping[n.rest]
        elif isinstance(n, (ast.Global, ast.Nonlocal)):
            n.names = [mapping.get(x, x) for x in n.names]
    return True


def _is_pure_recursive(fn: ast.FunctionDef, tree: ast.Module) -> bool:
    scope = _Scope(fn, tree)
    a = fn.args
    if fn.decorator_list or a.vararg or a.kwarg or a.kwonlyargs or not (a.posonlyargs or a.args):
        return False
    if any(not (isinstance(d, ast.Constant)) for d in a.defaults):
        return False
    body = fn.body
    if _has(body, ast.Global, ast.Nonlocal, ast.Yield, ast.YieldFrom, ast.Await, ast.Lambda,
            *_FUNC, ast.ClassDef, ast.NamedExpr, ast.Try, ast.With, ast.Raise, ast.Delete):
        return False
    calls_self = any(_call_name(n) == fn.name for n in _walk_many(body))
    if not calls_self:
        return False
    params = set(scope.params)
    locals_ = set(scope.bindings) - params
    if params & set(scope.bindings):
        return False  # parameters are never rebound
    for n in _walk_many(body):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
            if n.id not in params | locals_ | {fn.name} and not (n.id in _PURE_BUILTINS and scope.builtin(n.id)):
                return False
            if n.id in ("print", "input"):
                return False
        if isinstance(n, (ast.Subscript, ast.Attribute)) and not isinstance(n.ctx, ast.Load):
            base = n.value
            while isinstance(base, (ast.Subscript, ast.Attribute)):
                base = base.value
            if not (isinstance(base, ast.Name) and base.id in locals_):
                return False
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute):
            base = n.func.value
            if n.func.attr not in _NON_MUTATING_METHODS:
                if not (isinstance(base, ast.Name) and base.id in locals_):
                    return False
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.keywords:
            if any(not isinstance(k.value, ast.Constant) for k in n.keywords):
                return False
        if isinstance(n, ast.AugAssign) and not isinstance(n.target, ast.Name):
            return False
    # every parameter must be hashable: by annotation, or used only as a number
    for name, arg in scope.params.items():
        if arg.annotation is not None:
            if not _ann_hashable(arg.annotation):
                return False
        elif not _numeric_only(name, body, fn.name):
            return False
    # every returned value must be immutable (callers may mutate what they get back)
    scalars = scope.scalar_names()
    env = scalars | {p for p, arg in scope.params.items()}
    for n in _walk_many(body):
        if isinstance(n, ast.Return) and n.value is not None and not _immutable_expr(n.value, env, scope, fn.name):
            return False
    return True


def _numeric_only(name: str, body: list[ast.stmt], fname: str) -> bool:
    parents = _parents(ast.Module(body=body, type_ignores=[]))
    seen_numeric = False
    for n in _walk_many(body):
        if not (isinstance(n, ast.Name) and n.id == name):
            continue
        p = parents.get(id(n))
        if isinstance(p, (ast.BinOp, ast.Compare, ast.UnaryOp)):
            others = [p.left, p.right] if isinstance(p, ast.BinOp) else \
                ([p.left, *p.comparators] if isinstance(p, ast.Compare) else [])
            if any(isinstance(o, ast.Constant) and type(o.value) in (int, float) for o in others):
                seen_numeric = True
            continue
        if isinstance(p, ast.Call) and _call_name(p) in (fname, "range", "abs") and n in p.args:
            continue
        return False
    return seen_numeric


def _immutable_expr(e: ast.AST, env: set[str], scope: _Scope, fname: str) -> bool:
    if isinstance(e, ast.Constant):
        return True
    if isinstance(e, ast.Name):
        return e.id in env
    if isinstance(e, (ast.BinOp,)):
        return _immutable_expr(e.left, env, scope, fname) and _immutable_expr(e.right, env, scope, fname)
    if isinstance(e, ast.UnaryOp):
        return _immutable_expr(e.operand, env, scope, fname)
    if isinstance(e, ast.BoolOp):
        return all(_immutable_expr(v, env, scope, fname) for v in e.values)
    if isinstance(e, ast.Compare):
        return True
    if isinstance(e, ast.IfExp):
        return _immutable_expr(e.body, env, scope, fname) and _immutable_expr(e.orelse, env, scope, fname)
    if isinstance(e, ast.Tuple):
        return all(_immutable_expr(v, env, scope, fname) for v in e.elts)
    cname = _call_name(e)
    if cname == fname:
        return True
    if cname in _SCALAR_CALLS and scope.builtin(cname):
        return True
    if cname in ("min", "max") and scope.builtin(cname) and len(e.args) >= 2 and not e.keywords:
        return all(_immutable_expr(v, env, scope, fname) for v in e.args)
    return scope.is_str(e)


def rw_memoise(tree: ast.Module, ctx: _Ctx) -> bool:
    """Memoise pure, recursive module-level functions with a module-level dict keyed by the
    (type, value) of each argument; no wrapper, so recursion depth is unchanged."""
    changed = False
    for idx in range(len(tree.body) - 1, -1, -1):
        fn = tree.body[idx]
        if not isinstance(fn, ast.FunctionDef) or not _is_pure_recursive(fn, tree):
            continue
        if not _Scope(fn, tree).builtin("type"):
            continue
        memo = ctx.fresh(f"_{fn.name}_memo")
        key = ctx.fresh("key")
        params = [p.arg for p in [*fn.args.posonlyargs, *fn.args.args]]
        key_elts: list[ast.expr] = []
        for p in params:
            key_elts += [ast.Call(func=ast.Name("type", ast.Load()), args=[ast.Name(p, ast.Load())], keywords=[]),
                         ast.Name(p, ast.Load())]
        doc = []
        body = fn.body
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                and isinstance(body[0].value.value, str):
            doc, body = [body[0]], body[1:]
        for n in _walk_many(body):
            if isinstance(n, ast.Return) and n.value is not None:
                n.value = ast.Call(func=ast.Attribute(ast.Name(memo, ast.Load()), "setdefault", ast.Load()),
                                   args=[ast.Name(key, ast.Load()), n.value], keywords=[])
        prologue = [
            ast.Assign(targets=[ast.Name(key, ast.Store())], value=ast.Tuple(key_elts, ast.Load())),
            ast.If(test=ast.Compare(ast.Name(key, ast.Load()), [ast.In()], [ast.Name(memo, ast.Load())]),
                   body=[ast.Return(ast.Subscript(ast.Name(memo, ast.Load()), ast.Name(key, ast.Load()), ast.Load()))],
                   orelse=[]),
        ]
        fn.body = doc + prologue + body
        tree.body.insert(idx, ast.Assign(targets=[ast.Name(memo, ast.Store())], value=ast.Dict([], [])))
        changed = True
    return changed


def rw_membership_literal(tree: ast.Module, ctx: _Ctx) -> bool:
    """``x in [a, b, c]`` with constant elements -> a set literal when ``x`` is known hashable,
    else a tuple (identical semantics for lists of constants)."""
    parents = _parents(tree)
    changed = False
    scopes: dict[int, _Scope] = {}
    for n in list(ast.walk(tree)):
        if not (isinstance(n, ast.Compare) and len(n.ops) == 1 and isinstance(n.ops[0], (ast.In, ast.NotIn))
                and isinstance(n.comparators[0], ast.List)):
            continue
        lst = n.comparators[0]
        if not lst.elts or not all(isinstance(e, ast.Constant) and not isinstance(e.value, (tuple, frozenset))
                                   and e.value is not Ellipsis for e in lst.elts):
            if not lst.elts or not all(isinstance(e, ast.Constant) for e in lst.elts):
                continue
        sc_node = _scope_of(n, parents)
        if isinstance(sc_node, (ast.Lambda, ast.ClassDef)):
            sc_node = tree
        scope = scopes.setdefault(id(sc_node), _Scope(sc_node, tree))
        hashable_elts = all(isinstance(e.value, (str, int, bytes, bool, type(None))) for e in lst.elts)
        if hashable_elts and scope.is_hashable(n.left):
            n.comparators[0] = ast.Set(elts=lst.elts)
        else:
            n.comparators[0] = ast.Tuple(elts=lst.elts, ctx=ast.Load())
        changed = True
    return changed


def _only_in(names: set[str], inside: ast.AST, scope_node: ast.AST) -> bool:
    """Every occurrence of ``names`` in ``scope_node`` (including nested scopes) is inside ``inside``."""
    inner = {id(x) for x in ast.walk(inside)}
    for n in ast.walk(scope_node):
        if isinstance(n, ast.Name) and n.id in names and id(n) not in inner:
            return False
        if isinstance(n, (ast.Global, ast.Nonlocal)) and names & set(n.names):
            return False
    return True


def _simple_expr(*nodes: ast.AST) -> bool:
    return not any(_has(x, ast.NamedExpr, ast.Yield, ast.YieldFrom, ast.Await, ast.Lambda) for x in nodes)


def rw_loop_to_comprehension(tree: ast.Module, ctx: _Ctx) -> bool:
    """``r = []`` + ``for t in it: [if c:] r.append(e)`` -> ``r = [e for t in it [if c]]``."""
    changed = False
    parents = _parents(tree)
    for owner, stmts in list(_stmt_lists(tree)):
        for k in range(len(stmts) - 2, -1, -1):
            init, loop = stmts[k], stmts[k + 1]
            if not (isinstance(init, ast.Assign) and len(init.targets) == 1 and isinstance(init.targets[0], ast.Name)):
                continue
            empty_list = isinstance(init.value, ast.List) and not init.value.elts
            empty_set = _call_name(init.value) == "set" and not init.value.args and not init.value.keywords
            if not (empty_list or empty_set):
                continue
            if not (isinstance(loop, ast.For) and not loop.orelse and len(loop.body) == 1):
                continue
            r = init.targets[0].id
            is_set = not isinstance(init.value, ast.List)
            method = "add" if is_set else "append"
            stmt, cond = loop.body[0], None
            if isinstance(stmt, ast.If) and not stmt.orelse and len(stmt.body) == 1:
                cond, stmt = stmt.test, stmt.body[0]
            if not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)
                    and isinstance(stmt.value.func, ast.Attribute) and stmt.value.func.attr == method
                    and isinstance(stmt.value.func.value, ast.Name) and stmt.value.func.value.id == r
                    and len(stmt.value.args) == 1 and not stmt.value.keywords
                    and not isinstance(stmt.value.args[0], ast.Starred)):
                continue
            elt = stmt.value.args[0]
            parts = [loop.target, loop.iter, elt] + ([cond] if cond is not None else [])
            if r in _names(parts) or not _simple_expr(*parts):
                continue
            scope_node = _scope_of(loop, parents)
            if isinstance(scope_node, (ast.ClassDef, ast.Lambda)) or _guarded(loop, parents):
                continue
            if is_set and not _Scope(scope_node, tree).builtin("set"):
                continue
            if not _only_in(_names(loop.target), loop, scope_node):
                continue
            if r in _Scope(scope_node, tree).declared:
                continue
            gen = ast.comprehension(target=loop.target, iter=loop.iter, ifs=[cond] if cond is not None else [],
                                    is_async=0)
            comp = ast.SetComp(elt=elt, generators=[gen]) if is_set else ast.ListComp(elt=elt, generators=[gen])
            stmts[k:k + 2] = [ast.Assign(targets=[ast.Name(r, ast.Store())], value=comp)]
            changed = True
    return changed


def rw_comprehension_to_loop(tree: ast.Module, ctx: _Ctx) -> bool:
    """``r = [e for t in it if c]`` (a statement) -> an explicit accumulating loop."""
    changed = False
    parents = _parents(tree)
    for owner, stmts in list(_stmt_lists(tree)):
        for k in range(len(stmts) - 1, -1, -1):
            st = stmts[k]
            if not (isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name)
                    and isinstance(st.value, ast.ListComp)):
                continue
            comp = st.value
            r = st.targets[0].id
            if r in _names(comp) or not _simple_expr(comp) or any(g.is_async for g in comp.generators):
                continue
            if _has([g.target for g in comp.generators], ast.Starred):
                continue
            scope_node = _scope_of(st, parents)
            if isinstance(scope_node, (ast.ClassDef, ast.Lambda)) or _guarded(st, parents):
                continue
            targets = set().union(*(_names(g.target) for g in comp.generators))
            if not _only_in(targets, st, scope_node) or r in _Scope(scope_node, tree).declared:
                continue
            append = ast.Expr(ast.Call(func=ast.Attribute(ast.Name(r, ast.Load()), "append", ast.Load()),
                                       args=[comp.elt], keywords=[]))
            stmts[k:k + 1] = [ast.Assign(targets=[ast.Name(r, ast.Store())], value=ast.List([], ast.Load())),
                              *_nested_loops(comp.generators, [append])]
            changed = True
    return changed


def rw_string_join(tree: ast.Module, ctx: _Ctx) -> bool:
    """``s = ''`` + loop doing ``s += e`` (``e`` provably a str) -> accumulate parts, then
    ``s = ''.join(parts)`` after the loop."""
    changed = False
    parents = _parents(tree)
    for owner, stmts in list(_stmt_lists(tree)):
        for k in range(len(stmts) - 2, -1, -1):
            init, loop = stmts[k], stmts[k + 1]
            if not (isinstance(init, ast.Assign) and len(init.targets) == 1 and isinstance(init.targets[0], ast.Name)
                    and isinstance(init.value, ast.Constant) and isinstance(init.value.value, str)):
                continue
            if not (isinstance(loop, (ast.For, ast.While)) and not loop.orelse):
                continue
            s = init.targets[0].id
            scope_node = _scope_of(loop, parents)
            if isinstance(scope_node, (ast.ClassDef, ast.Lambda)) or _guarded(loop, parents):
                continue
            scope = _Scope(scope_node, tree)
            if s in scope.declared:
                continue
            updates: list[tuple[list[ast.stmt], int, ast.expr]] = []
            ok = True

            def visit(body: list[ast.stmt]) -> None:
                nonlocal ok
                for i, b in enumerate(body):
                    val = None
                    if isinstance(b, ast.AugAssign) and isinstance(b.target, ast.Name) and b.target.id == s \
                            and isinstance(b.op, ast.Add):
                        val = b.value
                    elif (isinstance(b, ast.Assign) and len(b.targets) == 1 and isinstance(b.targets[0], ast.Name)
                          and b.targets[0].id == s and isinstance(b.value, ast.BinOp) and isinstance(b.value.op, ast.Add)
                          and isinstance(b.value.left, ast.Name) and b.value.left.id == s):
                        val = b.value.right
                    if val is not None:
                        if s in _names(val) or not scope.is_str(val) or not _simple_expr(val):
                            ok = False
                        updates.append((body, i, val))
                    elif isinstance(b, ast.If):
                        if s in _names(b.test):
                            ok = False
                        visit(b.body)
                        visit(b.orelse)
                    elif s in _names(b) or _has(b, *_SCOPES):
                        ok = False

            visit(loop.body)
            header = [loop.target, loop.iter] if isinstance(loop, ast.For) else [loop.test]
            if not ok or not updates or s in _names(header):
                continue
            parts = ctx.fresh("parts")
            for body, i, val in updates:
                body[i] = ast.Expr(ast.Call(func=ast.Attribute(ast.Name(parts, ast.Load()), "append", ast.Load()),
                                            args=[val], keywords=[]))
            start = [init.value] if init.value.value else []
            stmts[k:k + 2] = [
                ast.Assign(targets=[ast.Name(parts, ast.Store())], value=ast.List(start, ast.Load())),
                loop,
                ast.Assign(targets=[ast.Name(s, ast.Store())],
                           value=ast.Call(func=ast.Attribute(ast.Constant(""), "join", ast.Load()),
                                          args=[ast.Name(parts, ast.Load())], keywords=[])),
            ]
            changed = True
    return changed


def rw_any_all(tree: ast.Module, ctx: _Ctx) -> bool:
    """``for t in it: if c: return True`` + ``return False`` -> ``return any(c for t in it)``
    (and the ``False``/``True`` form -> ``return not any(...)``)."""
    changed = False
    parents = _parents(tree)
    for owner, stmts in list(_stmt_lists(tree)):
        for k in range(len(stmts) - 2, -1, -1):
            loop, ret = stmts[k], stmts[k + 1]
            if not (isinstance(loop, ast.For) and not loop.orelse and len(loop.body) == 1
                    and isinstance(loop.body[0], ast.If) and not loop.body[0].orelse
                    and len(loop.body[0].body) == 1 and isinstance(loop.body[0].body[0], ast.Return)):
                continue
            inner = loop.body[0].body[0].value
            if not (isinstance(inner, ast.Constant) and isinstance(inner.value, bool)
                    and isinstance(ret, ast.Return) and isinstance(ret.value, ast.Constant)
                    and ret.value.value is (not inner.value)):
                continue
            scope_node = _scope_of(loop, parents)
            if not isinstance(scope_node, _FUNC):
                continue
            cond = loop.body[0].test
            if not _simple_expr(loop.target, loop.iter, cond) or not _Scope(scope_node, tree).builtin("any"):
                continue
            gen = ast.GeneratorExp(elt=cond, generators=[ast.comprehension(loop.target, loop.iter, [], 0)])
            call: ast.expr = ast.Call(func=ast.Name("any", ast.Load()), args=[gen], keywords=[])
            if inner.value is False:
                call = ast.UnaryOp(ast.Not(), call)
            stmts[k:k + 2] = [ast.Return(call)]
            changed = True
    return changed


def _is_len_of(node: ast.AST, name: str) -> bool:
    return (_call_name(node) == "len" and len(node.args) == 1 and not node.keywords
            and isinstance(node.args[0], ast.Name) and node.args[0].id == name)


def rw_range_len_enumerate(tree: ast.Module, ctx: _Ctx) -> bool:
    """``for i in range(len(xs)): ... xs[i] ...`` -> ``for i, x in enumerate(xs): ... x ...``
    when ``xs`` is a list/str/tuple that the loop cannot mutate."""
    changed = False
    parents = _parents(tree)
    for loop in [n for n in ast.walk(tree) if isinstance(n, ast.For)]:
        it = loop.iter
        if not (isinstance(loop.target, ast.Name) and _call_name(it) == "range" and len(it.args) == 1
                and not it.keywords and isinstance(it.args[0], ast.Call) and _call_name(it.args[0]) == "len"
                and len(it.args[0].args) == 1 and isinstance(it.args[0].args[0], ast.Name)):
            continue
        xs, i = it.args[0].args[0].id, loop.target.id
        scope_node = _scope_of(loop, parents)
        if isinstance(scope_node, (ast.ClassDef, ast.Lambda)):
            continue
        scope = _Scope(scope_node, tree)
        if not all(scope.builtin(b) for b in ("range", "len", "enumerate")) or not scope.is_seq(xs):
            continue
        if any(isinstance(n, ast.Name) and n.id == i and not isinstance(n.ctx, ast.Load)
               for n in _walk_many(loop.body)):
            continue
        if not _mutation_free(xs, loop.body, scope):
            continue
        uses = [n for n in _walk_many(loop.body) if isinstance(n, ast.Subscript) and isinstance(n.ctx, ast.Load)
                and isinstance(n.value, ast.Name) and n.value.id == xs and isinstance(n.slice, ast.Name)
                and n.slice.id == i]
        if not uses:
            continue
        x = ctx.fresh(_SYNONYMS.get(xs, [xs])[0][:-1] if xs.endswith("s") and len(xs) > 2 else "elem")
        use_ids = {id(u) for u in uses}

        class Repl(ast.NodeTransformer):
            def visit_Subscript(self, node: ast.Subscript) -> ast.AST:
                if id(node) in use_ids:
                    return ast.Name(x, ast.Load())
                return self.generic_visit(node)

        loop.body = [Repl().visit(b) for b in loop.body]
        loop.target = ast.Tuple([ast.Name(i, ast.Store()), ast.Name(x, ast.Store())], ast.Store())
        loop.iter = ast.Call(func=ast.Name("enumerate", ast.Load()), args=[ast.Name(xs, ast.Load())], keywords=[])
        changed = True
    return changed


def rw_hoist_len(tree: ast.Module, ctx: _Ctx) -> bool:
    """Hoist ``len(xs)`` out of a loop header/body into a variable before the loop, when ``xs``
    is a list/str/tuple the loop cannot rebind or mutate (so ``len`` cannot fail or change)."""
    changed = False
    parents = _parents(tree)
    for owner, stmts in list(_stmt_lists(tree)):
        for k in range(len(stmts) - 1, -1, -1):
            loop = stmts[k]
            if not isinstance(loop, (ast.For, ast.While)) or loop.orelse:
                continue
            header = loop.iter if isinstance(loop, ast.For) else loop.test
            scope_node = _scope_of(loop, parents)
            if isinstance(scope_node, (ast.ClassDef, ast.Lambda)):
                continue
            scope = _Scope(scope_node, tree)
            if not scope.builtin("len"):
                continue
            names = sorted({n.args[0].id for n in ast.walk(header)
                            if _call_name(n) == "len" and len(n.args) == 1 and isinstance(n.args[0], ast.Name)})
            region = [loop] if isinstance(loop, ast.While) else [*loop.body, loop.target]
            for xs in names:
                if not scope.is_seq(xs) or not _mutation_free(xs, region, scope):
                    continue
                var = ctx.fresh(f"n_{xs}" if len(xs) > 1 else "length")
                targets = [n for n in ast.walk(loop) if _is_len_of(n, xs)]
                tids = {id(t) for t in targets}

                class Repl(ast.NodeTransformer):
                    def visit_Call(self, node: ast.Call) -> ast.AST:
                        if id(node) in tids:
                            return ast.Name(var, ast.Load())
                        return self.generic_visit(node)

                Repl().visit(loop)
                stmts.insert(k, ast.Assign(targets=[ast.Name(var, ast.Store())],
                                           value=ast.Call(func=ast.Name("len", ast.Load()),
                                                          args=[ast.Name(xs, ast.Load())], keywords=[])))
                changed = True
    return changed


def rw_guard_clause(tree: ast.Module, ctx: _Ctx) -> bool:
    """A function ending in ``if c: A else: B`` -> guard clause: the shorter branch first (under
    ``c`` or ``not c``), ending in ``return`` if it does not already, then the other branch."""
    changed = False
    for fn in [n for n in ast.walk(tree) if isinstance(n, _FUNC)]:
        last = fn.body[-1] if fn.body else None
        if not (isinstance(last, ast.If) and last.orelse and last.body):
            continue
        a, b = last.body, last.orelse
        if sum(map(_size, b)) < sum(map(_size, a)):
            guard_test, guard, rest = _negate(last.test, _Scope(fn, tree)), b, a
        else:
            guard_test, guard, rest = last.test, a, b
        if not _terminates(guard):
            guard = [*guard, ast.Return(None)]
        fn.body[-1:] = [ast.If(test=guard_test, body=guard, orelse=[]), *rest]
        changed = True
    return changed


def rw_if_to_ifexp(tree: ast.Module, ctx: _Ctx) -> bool:
    """``if c: return a`` / ``else: return b`` (or a following ``return b``) -> ``return a if c
    else b``; ``if c: x = a else: x = b`` -> ``x = a if c else b``."""
    changed = False
    for owner, stmts in list(_stmt_lists(tree)):
        for k in range(len(stmts) - 1, -1, -1):
            st = stmts[k]
            if not (isinstance(st, ast.If) and len(st.body) == 1):
                continue
            a = st.body[0]
            if _has(st, ast.IfExp):
                continue  # do not build nested conditional-expression chains
            if isinstance(a, ast.Return) and a.value is not None:
                if len(st.orelse) == 1 and isinstance(st.orelse[0], ast.Return) and st.orelse[0].value is not None:
                    stmts[k] = ast.Return(ast.IfExp(st.test, a.value, st.orelse[0].value))
                    changed = True
                elif not st.orelse and k + 1 < len(stmts) and isinstance(stmts[k + 1], ast.Return) \
                        and stmts[k + 1].value is not None:
                    stmts[k:k + 2] = [ast.Return(ast.IfExp(st.test, a.value, stmts[k + 1].value))]
                    changed = True
            elif (isinstance(a, ast.Assign) and len(a.targets) == 1 and isinstance(a.targets[0], ast.Name)
                  and len(st.orelse) == 1 and isinstance(st.orelse[0], ast.Assign)
                  and len(st.orelse[0].targets) == 1 and isinstance(st.orelse[0].targets[0], ast.Name)
                  and st.orelse[0].targets[0].id == a.targets[0].id):
                stmts[k] = ast.Assign(targets=[ast.Name(a.targets[0].id, ast.Store())],
                                      value=ast.IfExp(st.test, a.value, st.orelse[0].value))
                changed = True
    return changed


def rw_ifexp_to_if(tree: ast.Module, ctx: _Ctx) -> bool:
    """``return a if c else b`` -> ``if c: return a`` + ``return b``."""
    changed = False
    for owner, stmts in list(_stmt_lists(tree)):
        for k in range(len(stmts) - 1, -1, -1):
            st = stmts[k]
            if isinstance(st, ast.Return) and isinstance(st.value, ast.IfExp):
                e = st.value
                stmts[k:k + 1] = [ast.If(test=e.test, body=[ast.Return(e.body)], orelse=[]), ast.Return(e.orelse)]
                changed = True
    return changed


def rw_extract_helper(tree: ast.Module, ctx: _Ctx) -> bool:
    """Extract a non-trivial ``if`` condition of a top-level function into a module-level
    predicate, passing the local names it reads (all definitely bound at that point)."""
    if _dynamic(tree):
        return False
    for idx in range(len(tree.body) - 1, -1, -1):
        fn = tree.body[idx]
        if not isinstance(fn, ast.FunctionDef):
            continue
        scope = _Scope(fn, tree)
        local_names = set(scope.bindings) | set(scope.params)
        parents = _parents(fn)
        for top_i, top in enumerate(fn.body):
            for node in ast.walk(top):
                if not (isinstance(node, ast.If) and isinstance(node.test, (ast.BoolOp, ast.Compare))
                        and _size(node.test) >= 8):
                    continue
                if _scope_of(node, parents) is not fn:
                    continue  # inside a nested function: its locals are not fn's and cannot be passed
                test = node.test
                if _has(test, ast.NamedExpr, ast.Yield, ast.YieldFrom, ast.Await, ast.Lambda, ast.ListComp,
                        ast.SetComp, ast.DictComp, ast.GeneratorExp):
                    continue
                free = sorted(_names(test) & local_names)
                if {"super", "__class__"} & _names(test):
                    continue
                definite = set(scope.params)
                for prev in fn.body[:top_i]:
                    if isinstance(prev, ast.Assign):
                        definite |= {n.id for t in prev.targets for n in ast.walk(t) if isinstance(n, ast.Name)}
                    elif isinstance(prev, ast.AugAssign) and isinstance(prev.target, ast.Name):
                        definite.add(prev.target.id)
                for a in _ancestors(node, parents):
                    if isinstance(a, ast.For):
                        definite |= _names(a.target)
                if any(n not in definite or n in scope.declared for n in free):
                    continue
                helper = ctx.fresh(f"_{fn.name}_check" if not fn.name.startswith("_") else f"{fn.name}_check")
                hdef = ast.FunctionDef(
                    name=helper,
                    args=ast.arguments(posonlyargs=[], args=[ast.arg(a) for a in free], vararg=None, kwonlyargs=[],
                                       kw_defaults=[], kwarg=None, defaults=[]),
                    body=[ast.Return(test)], decorator_list=[], returns=None, type_comment=None)
                node.test = ast.Call(func=ast.Name(helper, ast.Load()), args=[ast.Name(a, ast.Load()) for a in free],
                                     keywords=[])
                tree.body.insert(idx, hdef)
                return True
    return False


def rw_wrap_main(tree: ast.Module, ctx: _Ctx) -> bool:
    """Program mode: move top-level statements into ``def main()`` + ``main()`` (local-variable
    access is faster), when no module-level function or class reads a name they bind."""
    if not ctx.program or _dynamic(tree) or _has(tree, ast.Global, ast.Nonlocal):
        return False
    keep, moved = [], []
    body = tree.body
    i = 0
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        keep.append(body[0])
        i = 1
    while i < len(body) and isinstance(body[i], (ast.Import, ast.ImportFrom)):
        keep.append(body[i])
        i += 1
    for st in body[i:]:
        (keep if isinstance(st, (*_FUNC, ast.ClassDef)) else moved).append(st)
    if len(moved) < 2 or _has(moved, ast.Return, ast.Yield, ast.YieldFrom, ast.Await):
        return False
    if any(isinstance(n, ast.ImportFrom) and any(a.name == "*" for a in n.names) for n in _walk_many(moved)):
        return False
    module = ast.Module(body=moved, type_ignores=[])
    bound = set(_Scope(module, module).bindings)
    defs_read = set()
    for st in keep:
        if isinstance(st, (*_FUNC, ast.ClassDef)):
            defs_read |= _names(st) | {st.name}
    if bound & defs_read:
        return False
    for name in bound & _BUILTINS:  # shadowed builtin: first use must be a plain binding
        first = next((st for st in moved if name in _names(st)), None)
        if not (isinstance(first, ast.Assign) and len(first.targets) == 1 and isinstance(first.targets[0], ast.Name)
                and first.targets[0].id == name and name not in _names(first.value)):
            return False
    main = ctx.fresh("main")
    fdef = ast.FunctionDef(name=main, args=ast.arguments(posonlyargs=[], args=[], vararg=None, kwonlyargs=[],
                                                         kw_defaults=[], kwarg=None, defaults=[]),
                           body=moved, decorator_list=[], returns=None, type_comment=None)
    tree.body = [*keep, fdef, ast.Expr(ast.Call(func=ast.Name(main, ast.Load()), args=[], keywords=[]))]
    return True


def _rename_in(nodes: list[ast.AST], mapping: dict[str, str]) -> None:
    """Consistently rename identifiers (names, arguments, nonlocals) throughout ``nodes``."""
    for n in _walk_many(nodes):
        if isinstance(n, ast.Name) and n.id in mapping:
            n.id = mapping[n.id]
        elif isinstance(n, ast.arg) and n.arg in mapping:
            n.arg = mapping[n.arg]
        elif isinstance(n, ast.Nonlocal):
            n.names = [mapping.get(x, x) for x in n.names]


def _renamable_body(fn: ast.FunctionDef, old: set[str]) -> bool:
    """Renaming ``old`` (parameters of ``fn``) consistently inside ``fn``'s body is safe: no class
    bodies (attribute names), no ``global`` of those names, no keyword argument spelled like one
    of them, no binding of them by imports,
    ``except``/``match`` targets or nested defs (those bind other objects under the same name)."""
    for n in _walk_many(fn.body):
        if isinstance(n, ast.ClassDef):
            return False
        if isinstance(n, ast.Global) and old & set(n.names):
            return False
        if isinstance(n, ast.keyword) and n.arg in old:
            return False  # a nested def/lambda with a same-named parameter, called by keyword
        if isinstance(n, (*_FUNC, ast.alias, ast.ExceptHandler, ast.MatchAs, ast.MatchStar, ast.MatchMapping)) \
                and _binding_name(n) in old:
            return False
    return not ({"super", "__class__"} & _names(fn.body))


def _positional_only_callers(tree: ast.Module, name: str) -> bool:
    """Every reference to top-level function ``name`` in the module is a direct call without
    keyword arguments (so its parameter names are unobservable from inside the module)."""
    parents = _parents(tree)
    for n in ast.walk(tree):
        if isinstance(n, ast.Name) and n.id == name:
            p = parents.get(id(n))
            if not (isinstance(p, ast.Call) and p.func is n and not p.keywords):
                return False
    return True


def _simple_params(fn: ast.FunctionDef) -> bool:
    a = fn.args
    return not (a.posonlyargs or a.vararg or a.kwonlyargs or a.kwarg or a.defaults or a.kw_defaults)


def _recursive(fn: ast.FunctionDef) -> bool:
    return fn.name in _names(fn.body)


def rw_extract_body(tree: ast.Module, ctx: _Ctx) -> bool:
    """Function mode: move the entry point's body into a module-level helper with freshly named
    parameters; the entry point (same name, signature, decorators) returns ``helper(params...)``.
    Only for plain, non-recursive, non-generator functions (recursion would double the stack
    depth) whose parameters have no defaults, ``*args``/``**kwargs`` or keyword-only forms."""
    if ctx.program or ctx.entry_point is None or _dynamic(tree):
        return False
    for idx, fn in enumerate(tree.body):
        if not (isinstance(fn, ast.FunctionDef) and fn.name == ctx.entry_point):
            continue
        body = fn.body
        doc = []
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                and isinstance(body[0].value.value, str):
            doc, body = body[:1], body[1:]
        if not body or not _simple_params(fn) or _recursive(fn):
            return False
        if len(body) == 1 and isinstance(body[0], ast.Return) and isinstance(body[0].value, ast.Call):
            return False  # already a thin wrapper
        if any(isinstance(n, (ast.Yield, ast.YieldFrom, ast.Await, ast.Nonlocal)) for n in _walk_scope(fn)):
            return False
        params = [a.arg for a in fn.args.args]
        if not _renamable_body(fn, set(params)):
            return False
        mapping = {p: ctx.fresh(_new_name(p, ctx.rng)) for p in params}
        new_body = copy.deepcopy(body)
        _rename_in(new_body, mapping)
        helper = ctx.fresh(f"_{fn.name.lstrip('_')}_impl")
        hdef = ast.FunctionDef(
            name=helper,
            args=ast.arguments(posonlyargs=[], args=[ast.arg(mapping[p]) for p in params], vararg=None,
                               kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[]),
            body=new_body, decorator_list=[], returns=None, type_comment=None)
        fn.body = [*doc, ast.Return(ast.Call(func=ast.Name(helper, ast.Load()),
                                             args=[ast.Name(p, ast.Load()) for p in params], keywords=[]))]
        tree.body.insert(idx, hdef)
        return True
    return False


def rw_rename_params(tree: ast.Module, ctx: _Ctx) -> bool:
    """Rename the parameters of a top-level function other than the entry point when every call
    to it in the module is a direct positional call (no defaults, ``*args``, ``**kwargs`` or
    keyword-only parameters)."""
    if _dynamic(tree):
        return False
    fns = [fn for fn in tree.body if isinstance(fn, ast.FunctionDef) and fn.name != ctx.entry_point
           and fn.name in ctx.renamable and fn.args.args]
    ctx.rng.shuffle(fns)
    for fn in fns:
        params = {a.arg for a in fn.args.args}
        if not (_simple_params(fn) and _positional_only_callers(tree, fn.name) and _renamable_body(fn, params)):
            continue
        if fn.decorator_list:
            continue
        mapping = {p: ctx.fresh(_new_name(p, ctx.rng)) for p in sorted(params)}
        _rename_in([*fn.args.args, *fn.body], mapping)
        return True
    return False


def _docstring_nodes(tree: ast.Module) -> Iterator[tuple[ast.AST, ast.Constant]]:
    for n in ast.walk(tree):
        if isinstance(n, (ast.Module, *_FUNC, ast.ClassDef)) and n.body and isinstance(n.body[0], ast.Expr) \
                and isinstance(n.body[0].value, ast.Constant) and isinstance(n.body[0].value.value, str):
            yield n, n.body[0].value


def rw_trim_docstrings(tree: ast.Module, ctx: _Ctx) -> bool:
    """Cut docstrings before their examples (the first ``>>>`` / ``Example`` / ``For example``
    line); only ``__doc__`` changes. Tried before dropping docstrings entirely."""
    changed = False
    for _owner, const in _docstring_nodes(tree):
        lines = const.value.split("\n")
        for i, line in enumerate(lines):
            low = line.strip().lower()
            if i and (low.startswith(">>>") or low.startswith("example") or low.startswith("for example")):
                kept = "\n".join(lines[:i]).rstrip()
                if kept.strip():
                    const.value = kept + "\n    "
                    changed = True
                break
    return changed


def rw_drop_docstrings(tree: ast.Module, ctx: _Ctx) -> bool:
    """Remove docstrings (only ``__doc__`` changes). Tried last, only when still too similar."""
    changed = False
    for n in ast.walk(tree):
        if isinstance(n, (ast.Module, *_FUNC, ast.ClassDef)) and n.body and isinstance(n.body[0], ast.Expr) \
                and isinstance(n.body[0].value, ast.Constant) and isinstance(n.body[0].value.value, str):
            n.body = n.body[1:] or [ast.Pass()]
            changed = True
    return changed


# ----------------------------------------------------------------------------- structural rewrites
# These change the *set* of AST node types (Sim_AST of Eq. 1) as well as the text: loop forms,
# reductions, comprehension kinds, membership tests, assignments, f-strings, lambdas.

_NO_STOP_ITERATION_CALLS = (_PURE_BUILTINS - {"print", "input"}) | {"iter", "map", "filter"}


def _stores(name: str, nodes: list[ast.AST]) -> bool:
    """``name`` is bound (assigned, deleted, a loop/with/except/import target...) somewhere in ``nodes``."""
    return any((isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Load))
               or _binding_name(n) == name for n in _walk_many(nodes))


def _plain_target(t: ast.AST) -> bool:
    """A loop target made only of names (possibly unpacked, starred)."""
    if isinstance(t, ast.Name):
        return True
    if isinstance(t, ast.Starred):
        return _plain_target(t.value)
    return isinstance(t, (ast.Tuple, ast.List)) and all(_plain_target(e) for e in t.elts)


def _const_int(e: ast.AST) -> int | None:
    if isinstance(e, ast.Constant) and type(e.value) is int:
        return e.value
    if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.USub) and isinstance(e.operand, ast.Constant) \
            and type(e.operand.value) is int:
        return -e.operand.value
    return None


def _loop_continues(body: list[ast.stmt]) -> bool:
    """A ``continue`` that belongs to the loop whose body is ``body``."""
    stack: list[ast.AST] = list(body)
    while stack:
        n = stack.pop()
        if isinstance(n, ast.Continue):
            return True
        if isinstance(n, (ast.For, ast.AsyncFor, ast.While)):
            stack.extend(n.orelse)  # a continue in an inner loop's else belongs to this loop
            continue
        if isinstance(n, _SCOPES):
            continue
        stack.extend(ast.iter_child_nodes(n))
    return False


def _dead_outside(name: str, loop: ast.AST, scope_node: ast.AST, unsafe: set[str]) -> bool:
    """Every occurrence of ``name`` in the scope outside ``loop`` is in the target or body of
    another ``for name in ...`` loop that does not enclose ``loop`` (which rebinds ``name`` before
    reading it), so the value ``loop`` leaves in ``name`` is never read."""
    if name in unsafe or name in _captured(scope_node):
        return False
    inside = {id(x) for x in ast.walk(loop)}
    covered: set[int] = set()
    for other in _walk_scope(scope_node):
        if (isinstance(other, ast.For) and other is not loop and isinstance(other.target, ast.Name)
                and other.target.id == name and id(loop) not in {id(x) for x in ast.walk(other)}):
            covered |= {id(x) for x in _walk_many([other.target, *other.body])}
    return not any(isinstance(n, ast.Name) and n.id == name and id(n) not in inside and id(n) not in covered
                   for n in _walk_scope(scope_node))


def _seq_expr(e: ast.AST, scope: _Scope) -> bool:
    """``e`` provably evaluates to a fresh or existing list/str/tuple."""
    if isinstance(e, ast.Name):
        return scope.is_seq(e.id)
    if isinstance(e, (ast.List, ast.Tuple, ast.ListComp)) or scope.is_str(e):
        return True
    name = _call_name(e)
    if name in ("sorted", "list", "tuple", "str") and scope.builtin(name):
        return True
    if isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute) \
            and e.func.attr in ("split", "rsplit", "splitlines") and scope.is_str(e.func.value):
        return True
    return isinstance(e, ast.Subscript) and isinstance(e.slice, ast.Slice) and _seq_expr(e.value, scope)


def _is_list(name: str, scope: _Scope) -> bool:
    """``name`` is a list: a parameter annotated ``list``/``List`` never rebound, or a local
    whose every binding is a list display/comprehension, ``list(...)`` or ``sorted(...)``."""
    if name in scope.declared or name in _declared_anywhere(scope.tree):
        return False
    binds = scope.bindings.get(name, [])
    if name in scope.params:
        return not binds and _ann_name(scope.params[name].annotation) in ("list", "List")
    if not binds:
        return False
    for kind, node in binds:
        if kind != "assign":
            return False
        if not (isinstance(node, (ast.List, ast.ListComp))
                or (_call_name(node) in ("list", "sorted") and scope.builtin(_call_name(node)))):
            return False
    return True


def _no_stop_iteration(node: ast.AST, scope: _Scope) -> bool:
    """Every call in ``node`` is an unshadowed pure builtin or a non-mutating method, so no
    ``StopIteration`` can escape it (a generator turns one into ``RuntimeError``, a list
    comprehension does not). No walrus/yield/await either."""
    for n in ast.walk(node):
        if isinstance(n, (ast.NamedExpr, ast.Yield, ast.YieldFrom, ast.Await)):
            return False
        if isinstance(n, ast.Call):
            name = _call_name(n)
            if name is not None:
                if not (name in _NO_STOP_ITERATION_CALLS and scope.builtin(name)):
                    return False
            elif not (isinstance(n.func, ast.Attribute) and n.func.attr in _NON_MUTATING_METHODS):
                return False
    return True


def _test_context(node: ast.AST, parents: dict[int, ast.AST]) -> bool:
    """Only the truth value of ``node`` is used (an if/while/assert test, a comprehension
    condition, the operand of ``not``, or an operand of and/or in such a context)."""
    p = parents.get(id(node))
    if isinstance(p, (ast.If, ast.While, ast.IfExp, ast.Assert)) and p.test is node:
        return True
    if isinstance(p, ast.comprehension) and any(c is node for c in p.ifs):
        return True
    if isinstance(p, ast.UnaryOp) and isinstance(p.op, ast.Not):
        return True
    return isinstance(p, ast.BoolOp) and _test_context(p, parents)


class _ScopeCache:
    def __init__(self, tree: ast.Module):
        self.tree = tree
        self.parents = _parents(tree)
        self.unsafe = _declared_anywhere(tree)
        self._scopes: dict[int, _Scope] = {}

    def node(self, n: ast.AST) -> ast.AST | None:
        """The function or module scope of ``n``; None inside a class body or lambda."""
        sn = _scope_of(n, self.parents)
        return None if isinstance(sn, (ast.ClassDef, ast.Lambda)) else sn

    def scope(self, sn: ast.AST) -> _Scope:
        if id(sn) not in self._scopes:
            self._scopes[id(sn)] = _Scope(sn, self.tree)
        return self._scopes[id(sn)]

    def scope_at(self, n: ast.AST) -> _Scope | None:
        sn = self.node(n)
        return None if sn is None else self.scope(sn)


def _name(x: str, store: bool = False) -> ast.Name:
    return ast.Name(x, ast.Store() if store else ast.Load())


def _assign(x: str, value: ast.expr) -> ast.Assign:
    return ast.Assign(targets=[_name(x, True)], value=value)


def _call(fn: str, *args: ast.expr) -> ast.Call:
    return ast.Call(func=_name(fn), args=list(args), keywords=[])


def _range_while(loop: ast.For, scope: _Scope, sn: ast.AST, ctx: _Ctx, unsafe: set[str]) -> list[ast.stmt] | None:
    it = loop.iter
    if not (isinstance(loop.target, ast.Name) and _call_name(it) == "range" and scope.builtin("range")
            and 1 <= len(it.args) <= 3 and not it.keywords):
        return None
    if any(isinstance(a, ast.Starred) for a in it.args) or _has(it, ast.NamedExpr, ast.Yield, ast.YieldFrom,
                                                                    ast.Await):
        return None
    step = 1 if len(it.args) < 3 else _const_int(it.args[2])
    if not step:
        return None
    start, stop = (ast.Constant(0), it.args[0]) if len(it.args) == 1 else (it.args[0], it.args[1])
    i = loop.target.id
    natural = (not loop.orelse and not _loop_continues(loop.body) and not _stores(i, loop.body)
               and i not in _names(stop) and _dead_outside(i, loop, sn, unsafe))
    counter = i if natural else ctx.fresh(ctx.rng.choice(("k", "pos", "cursor")))
    pre: list[ast.stmt] = []
    if not all(scope.is_int(a) for a in it.args[:2]):
        # bounds not provably ints: let ``range`` itself convert them (``__index__``) and raise
        # exactly as before, then count from its start to its stop
        span = ctx.fresh(ctx.rng.choice(("span", "bounds", "rng")))
        pre.append(_assign(span, it))
        start = ast.Attribute(_name(span), "start", ast.Load())
        stop = ast.Attribute(_name(span), "stop", ast.Load())
    pre.append(_assign(counter, start))
    if not (isinstance(stop, ast.Constant) or (isinstance(stop, ast.Name) and stop.id not in unsafe
                                               and stop.id != counter and not _stores(stop.id, [loop]))
            or isinstance(stop, ast.Attribute)):
        var = ctx.fresh(ctx.rng.choice(("stop", "limit", "bound")))
        pre.append(_assign(var, stop))
        stop = _name(var)
    test = ast.Compare(_name(counter), [ast.Lt() if step > 0 else ast.Gt()], [stop])
    incr = ast.AugAssign(_name(counter, True), ast.Add() if step > 0 else ast.Sub(), ast.Constant(abs(step)))
    if natural:
        loop.body.append(incr)
    else:
        loop.body[0:0] = [_assign(i, _name(counter)), incr]
    return [*pre, ast.While(test=test, body=loop.body, orelse=loop.orelse)]


def _seq_while(loop: ast.For, scope: _Scope, ctx: _Ctx, unsafe: set[str]) -> list[ast.stmt] | None:
    if not scope.builtin("len"):
        return None
    pre: list[ast.stmt] = []
    if isinstance(loop.iter, ast.Name):
        xs = loop.iter.id
        # a list iterator indexes the live list (and re-checks its length) at every step, just
        # like the while loop; only rebinding the name would differ
        if xs in unsafe or not scope.is_seq(xs) or _stores(xs, [loop.target, *loop.body]):
            return None
        seq = xs
    else:
        if not _seq_expr(loop.iter, scope) or _has(loop.iter, ast.NamedExpr):
            return None
        seq = ctx.fresh("chars" if scope.is_str(loop.iter) else ctx.rng.choice(("seq", "items")))
        pre.append(_assign(seq, loop.iter))
    k = ctx.fresh(ctx.rng.choice(("idx", "pos", "k")))
    loop.body[0:0] = [ast.Assign(targets=[loop.target], value=ast.Subscript(_name(seq), _name(k), ast.Load())),
                      ast.AugAssign(_name(k, True), ast.Add(), ast.Constant(1))]
    test = ast.Compare(_name(k), [ast.Lt()], [_call("len", _name(seq))])
    return [*pre, _assign(k, ast.Constant(0)), ast.While(test=test, body=loop.body, orelse=loop.orelse)]


def rw_for_to_while(tree: ast.Module, ctx: _Ctx) -> bool:
    """``for i in range(a, b[, c])`` (int bounds, constant step) and ``for x in xs`` (``xs`` a
    list/str/tuple) -> ``while`` loops with an explicit index."""
    changed = False
    sc = _ScopeCache(tree)
    for _owner, stmts in list(_stmt_lists(tree)):
        for k in range(len(stmts) - 1, -1, -1):
            loop = stmts[k]
            if not isinstance(loop, ast.For) or not _plain_target(loop.target):
                continue
            sn = sc.node(loop)
            if sn is None:
                continue
            scope = sc.scope(sn)
            new = _range_while(loop, scope, sn, ctx, sc.unsafe)
            if new is None and _call_name(loop.iter) != "range":
                new = _seq_while(loop, scope, ctx, sc.unsafe)
            if new is not None:
                stmts[k:k + 1] = new
                changed = True
    return changed


def _guard_worthy(body: list[ast.stmt]) -> bool:
    return len(body) >= 2 or isinstance(body[0], (ast.For, ast.While, ast.If, ast.With, ast.Try))


def rw_early_continue(tree: ast.Module, ctx: _Ctx) -> bool:
    """A loop body ending in ``if c:`` (no else) with a nested or multi-statement body ->
    ``if not c: continue`` followed by that body, dedented."""
    changed = False
    sc = _ScopeCache(tree)
    for loop in [n for n in ast.walk(tree) if isinstance(n, (ast.For, ast.AsyncFor, ast.While))]:
        last = loop.body[-1]
        if isinstance(last, ast.If) and not last.orelse and _guard_worthy(last.body):
            test = _negate(last.test, sc.scope_at(loop))
            loop.body[-1:] = [ast.If(test=test, body=[ast.Continue()], orelse=[]), *last.body]
            changed = True
    return changed


def rw_early_return(tree: ast.Module, ctx: _Ctx) -> bool:
    """A function ending in ``if c:`` (no else) with a nested or multi-statement body ->
    ``if not c: return`` followed by that body (falling off the end returned None too)."""
    changed = False
    for fn in [n for n in ast.walk(tree) if isinstance(n, _FUNC)]:
        last = fn.body[-1]
        if isinstance(last, ast.If) and not last.orelse and _guard_worthy(last.body):
            test = _negate(last.test, _Scope(fn, tree))
            fn.body[-1:] = [ast.If(test=test, body=[ast.Return(None)], orelse=[]), *last.body]
            changed = True
    return changed


def _scalar_targets(sc: _ScopeCache, st: ast.AST, name: str) -> bool:
    sn = sc.node(st)
    return sn is not None and name not in sc.unsafe and name in sc.scope(sn).scalar_names()


def rw_aug_to_plain(tree: ast.Module, ctx: _Ctx) -> bool:
    """``x op= e`` -> ``x = x op e`` when ``x`` only ever holds numbers/strings (no in-place
    ``__iadd__``, so both call the same ``__add__``/``__radd__``)."""
    changed = False
    sc = _ScopeCache(tree)
    for _owner, stmts in list(_stmt_lists(tree)):
        for k, st in enumerate(stmts):
            if isinstance(st, ast.AugAssign) and isinstance(st.target, ast.Name) \
                    and _scalar_targets(sc, st, st.target.id):
                stmts[k] = _assign(st.target.id, ast.BinOp(_name(st.target.id), st.op, st.value))
                changed = True
    return changed


def rw_plain_to_aug(tree: ast.Module, ctx: _Ctx) -> bool:
    """``x = x op e`` -> ``x op= e`` when ``x`` only ever holds numbers/strings."""
    changed = False
    sc = _ScopeCache(tree)
    for _owner, stmts in list(_stmt_lists(tree)):
        for k, st in enumerate(stmts):
            if (isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name)
                    and isinstance(st.value, ast.BinOp) and isinstance(st.value.left, ast.Name)
                    and st.value.left.id == st.targets[0].id and _scalar_targets(sc, st, st.targets[0].id)):
                stmts[k] = ast.AugAssign(_name(st.targets[0].id, True), st.value.op, st.value.right)
                changed = True
    return changed


_EQ_CONSTANTS = (str, int, float, bytes, bool, type(None))


def _pure_operand(e: ast.AST, scope: _Scope) -> bool:
    """Evaluating ``e`` twice or once is the same: a name, or an index into a list/str/tuple name."""
    if isinstance(e, ast.Name):
        return True
    return (isinstance(e, ast.Subscript) and isinstance(e.value, ast.Name) and scope.is_seq(e.value.id)
            and isinstance(e.slice, (ast.Name, ast.Constant)))


def rw_equality_chain_to_membership(tree: ast.Module, ctx: _Ctx) -> bool:
    """``x == a or x == b ...`` -> ``x in {a, b}`` (``x != a and x != b`` -> ``not in``) for
    constants ``a, b``: a set when ``x`` is provably an int/str, else a tuple; outside a truth-value
    context only for provable ints/strs (both forms give a bool there)."""
    changed = False
    sc = _ScopeCache(tree)
    for node in [n for n in ast.walk(tree) if isinstance(n, ast.BoolOp)]:
        sn = sc.node(node)
        if sn is None:
            continue
        scope = sc.scope(sn)
        cmp_op, new_op = (ast.Eq, ast.In) if isinstance(node.op, ast.Or) else (ast.NotEq, ast.NotIn)
        test_ctx = _test_context(node, sc.parents)

        def key(v: ast.AST) -> str | None:
            if (isinstance(v, ast.Compare) and len(v.ops) == 1 and isinstance(v.ops[0], cmp_op)
                    and isinstance(v.comparators[0], ast.Constant)
                    and isinstance(v.comparators[0].value, _EQ_CONSTANTS) and _pure_operand(v.left, scope)):
                return ast.dump(v.left)
            return None

        values: list[ast.expr] = []
        i = 0
        while i < len(node.values):
            kv = key(node.values[i])
            j = i + 1
            while kv is not None and j < len(node.values) and key(node.values[j]) == kv:
                j += 1
            left = node.values[i].left if kv is not None else None
            provable = left is not None and (scope.is_str(left) or scope.is_int(left))
            if j - i >= 2 and (test_ctx or provable):
                elts = [node.values[m].comparators[0] for m in range(i, j)]
                coll = ast.Set(elts) if provable else ast.Tuple(elts, ast.Load())
                values.append(ast.Compare(left, [new_op()], [coll]))
                changed = True
            else:
                values.extend(node.values[i:j])
            i = j
        if len(values) != len(node.values):
            if len(values) == 1:
                _replace(node, values[0], sc.parents)
            else:
                node.values = values
    return changed


def _replace(old: ast.AST, new: ast.AST, parents: dict[int, ast.AST]) -> None:
    """Put ``new`` where ``old`` is in its parent."""
    p = parents[id(old)]
    for fld, val in ast.iter_fields(p):
        if val is old:
            setattr(p, fld, new)
            parents[id(new)] = p
            return
        if isinstance(val, list):
            for i, x in enumerate(val):
                if x is old:
                    val[i] = new
                    parents[id(new)] = p
                    return
    raise AssertionError("node not found in its parent")


def _len_call_of_seq(e: ast.AST, scope: _Scope) -> str | None:
    if (_call_name(e) == "len" and scope.builtin("len") and len(e.args) == 1 and not e.keywords
            and isinstance(e.args[0], ast.Name) and scope.is_seq(e.args[0].id)):
        return e.args[0].id
    return None


def rw_truthiness_to_len(tree: ast.Module, ctx: _Ctx) -> bool:
    """For a list/str/tuple ``xs``: ``not xs`` -> ``len(xs) == 0``; a bare ``xs`` tested for truth
    -> ``len(xs) > 0``."""
    changed = False
    sc = _ScopeCache(tree)
    for node in list(ast.walk(tree)):
        target = node.operand if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not) else node
        if not isinstance(target, ast.Name) or id(node) not in sc.parents:
            continue
        if node is target and not _test_context(node, sc.parents):
            continue
        if node is target and isinstance(sc.parents.get(id(node)), ast.UnaryOp):
            continue  # handled as ``not xs``
        sn = sc.node(node)
        if sn is None or not sc.scope(sn).builtin("len") or not sc.scope(sn).is_seq(target.id):
            continue
        op = ast.Eq() if node is not target else ast.Gt()
        _replace(node, ast.Compare(_call("len", _name(target.id)), [op], [ast.Constant(0)]), sc.parents)
        changed = True
    return changed


def rw_len_to_truthiness(tree: ast.Module, ctx: _Ctx) -> bool:
    """For a list/str/tuple ``xs``: ``len(xs) == 0`` -> ``not xs``; ``len(xs) > 0`` / ``!= 0`` /
    ``>= 1`` tested for truth -> ``xs``."""
    changed = False
    sc = _ScopeCache(tree)
    for node in list(ast.walk(tree)):
        if not (isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.comparators[0], ast.Constant)
                and type(node.comparators[0].value) is int and id(node) in sc.parents):
            continue
        sn = sc.node(node)
        xs = _len_call_of_seq(node.left, sc.scope(sn)) if sn is not None else None
        if xs is None:
            continue
        op, c = node.ops[0], node.comparators[0].value
        if isinstance(op, ast.Eq) and c == 0:
            _replace(node, ast.UnaryOp(ast.Not(), _name(xs)), sc.parents)
            changed = True
        elif ((isinstance(op, (ast.Gt, ast.NotEq)) and c == 0) or (isinstance(op, ast.GtE) and c == 1)) \
                and _test_context(node, sc.parents):
            _replace(node, _name(xs), sc.parents)
            changed = True
    return changed


def _side_effect_free(e: ast.AST) -> bool:
    """A keyword value whose evaluation cannot run code: constant, name, lambda, ``a.b``."""
    return isinstance(e, (ast.Constant, ast.Name, ast.Lambda)) or (
        isinstance(e, ast.Attribute) and isinstance(e.value, ast.Name))


def rw_sorted_to_sort(tree: ast.Module, ctx: _Ctx) -> bool:
    """``r = sorted(e, key=.., reverse=..)`` -> ``r = list(e)`` + ``r.sort(...)`` (exactly how
    ``sorted`` is implemented); ``return sorted(e)`` likewise through a fresh local."""
    changed = False
    sc = _ScopeCache(tree)
    for _owner, stmts in list(_stmt_lists(tree)):
        for k in range(len(stmts) - 1, -1, -1):
            st = stmts[k]
            if isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name):
                r = st.targets[0].id
            elif isinstance(st, ast.Return):
                r = None
            else:
                continue
            call = st.value
            if not (_call_name(call) == "sorted" and len(call.args) == 1 and not isinstance(call.args[0], ast.Starred)
                    and all(kw.arg in ("key", "reverse") and _side_effect_free(kw.value) for kw in call.keywords)):
                continue
            sn = sc.node(st)
            if sn is None or _guarded(st, sc.parents) or (r is None and not isinstance(sn, _FUNC)):
                continue
            scope = sc.scope(sn)
            if not (scope.builtin("sorted") and scope.builtin("list")) or (r is not None and (r in sc.unsafe
                                                                                              or r in scope.declared)):
                continue
            var = r if r is not None else ctx.fresh(ctx.rng.choice(("ordered", "result", "out")))
            new: list[ast.stmt] = [
                _assign(var, _call("list", call.args[0])),
                ast.Expr(ast.Call(func=ast.Attribute(_name(var), "sort", ast.Load()), args=[],
                                  keywords=call.keywords)),
            ]
            if r is None:
                new.append(ast.Return(_name(var)))
            stmts[k:k + 1] = new
            changed = True
    return changed


def _consumer(call: ast.AST, scope: _Scope) -> bool:
    """A call that materialises its only argument into a list before doing anything else:
    ``sorted``/``tuple``/``list`` (unshadowed) or ``'<sep>'.join``."""
    if not (isinstance(call, ast.Call) and len(call.args) == 1):
        return False
    name = _call_name(call)
    if name in ("sorted", "tuple", "list") and scope.builtin(name):
        return name == "sorted" or not call.keywords
    f = call.func
    return (isinstance(f, ast.Attribute) and f.attr == "join" and isinstance(f.value, ast.Constant)
            and isinstance(f.value.value, str) and not call.keywords)


def rw_comprehension_to_generator(tree: ast.Module, ctx: _Ctx) -> bool:
    """``''.join([e for ...])`` / ``sorted([...])`` / ``tuple([...])`` / ``list([...])`` -> the same
    call over a generator expression (each consumes it fully before anything else happens)."""
    changed = False
    sc = _ScopeCache(tree)
    for node in list(ast.walk(tree)):
        if not (isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.ListComp)):
            continue
        sn = sc.node(node)
        if sn is None:
            continue
        scope = sc.scope(sn)
        comp = node.args[0]
        if not _consumer(node, scope) or not all(_side_effect_free(kw.value) for kw in node.keywords) \
                or not _no_stop_iteration(comp, scope):
            continue
        node.args[0] = ast.GeneratorExp(elt=comp.elt, generators=comp.generators)
        changed = True
    return changed


def rw_generator_to_comprehension(tree: ast.Module, ctx: _Ctx) -> bool:
    """``list(e for ...)`` -> ``[e for ...]``, ``set(e for ...)`` -> ``{e for ...}``, and the
    generator argument of ``''.join``/``sorted``/``tuple`` -> a list comprehension."""
    changed = False
    sc = _ScopeCache(tree)
    for node in list(ast.walk(tree)):
        if not (isinstance(node, ast.Call) and len(node.args) == 1 and isinstance(node.args[0], ast.GeneratorExp)
                and id(node) in sc.parents):
            continue
        sn = sc.node(node)
        if sn is None:
            continue
        scope = sc.scope(sn)
        gen = node.args[0]
        if not _no_stop_iteration(gen, scope) or not all(_side_effect_free(kw.value) for kw in node.keywords):
            continue
        name = _call_name(node)
        if name in ("list", "set") and scope.builtin(name) and not node.keywords:
            comp_cls = ast.ListComp if name == "list" else ast.SetComp
            _replace(node, comp_cls(elt=gen.elt, generators=gen.generators), sc.parents)
        elif _consumer(node, scope):
            node.args[0] = ast.ListComp(elt=gen.elt, generators=gen.generators)
        else:
            continue
        changed = True
    return changed


def _nested_loops(gens: list[ast.comprehension], inner: list[ast.stmt]) -> list[ast.stmt]:
    for g in reversed(gens):
        for c in reversed(g.ifs):
            inner = [ast.If(test=c, body=inner, orelse=[])]
        inner = [ast.For(target=g.target, iter=g.iter, body=inner, orelse=[])]
    return inner


def rw_reduction_to_loop(tree: ast.Module, ctx: _Ctx) -> bool:
    """``return any(c for ...)`` / ``all`` / ``not any`` / ``not all`` -> an explicit loop with an
    early return (same short-circuiting, one truth test per item); ``return sum(e for ...)`` with
    ``e`` provably an int -> an accumulating loop."""
    if _dynamic(tree):
        return False
    changed = False
    sc = _ScopeCache(tree)
    for _owner, stmts in list(_stmt_lists(tree)):
        for k in range(len(stmts) - 1, -1, -1):
            st = stmts[k]
            if not isinstance(st, ast.Return) or st.value is None:
                continue
            val, negated = st.value, False
            if isinstance(val, ast.UnaryOp) and isinstance(val.op, ast.Not):
                val, negated = val.operand, True
            fn = _call_name(val)
            if fn not in ("any", "all", "sum") or len(val.args) != 1 or val.keywords \
                    or not isinstance(val.args[0], ast.GeneratorExp) or (negated and fn == "sum"):
                continue
            sn = sc.node(st)
            if not isinstance(sn, _FUNC):
                continue
            scope = sc.scope(sn)
            gen = val.args[0]
            if not scope.builtin(fn) or any(g.is_async for g in gen.generators) or not _simple_expr(gen):
                continue
            targets = set().union(*(_names(g.target) for g in gen.generators))
            if not _only_in(targets, st, sn) or targets & sc.unsafe:
                continue
            if fn == "sum":
                if not scope.is_int(gen.elt):
                    continue
                acc = ctx.fresh(ctx.rng.choice(("total", "acc", "running")))
                loops = _nested_loops(gen.generators, [ast.AugAssign(_name(acc, True), ast.Add(), gen.elt)])
                new = [_assign(acc, ast.Constant(0)), *loops, ast.Return(_name(acc))]
            else:
                hit = fn == "any"  # the value that stops the scan: any -> a true item, all -> a false one
                test = gen.elt if hit else _negate(gen.elt, scope)
                result = hit != negated
                loops = _nested_loops(gen.generators, [ast.If(test=test, body=[ast.Return(ast.Constant(result))],
                                                              orelse=[])])
                new = [*loops, ast.Return(ast.Constant(not result))]
            stmts[k:k + 1] = new
            changed = True
    return changed


def rw_count_loop_to_sum(tree: ast.Module, ctx: _Ctx) -> bool:
    """``c = 0`` + ``for t in it: [if f:] c += e`` with ``e`` provably an int -> ``c = sum(e for
    t in it [if f])`` (integer addition is exact, so the order of additions is irrelevant)."""
    changed = False
    sc = _ScopeCache(tree)
    for _owner, stmts in list(_stmt_lists(tree)):
        for k in range(len(stmts) - 2, -1, -1):
            init, loop = stmts[k], stmts[k + 1]
            if not (isinstance(init, ast.Assign) and len(init.targets) == 1 and isinstance(init.targets[0], ast.Name)
                    and isinstance(init.value, ast.Constant) and init.value.value == 0
                    and type(init.value.value) is int):
                continue
            if not (isinstance(loop, ast.For) and not loop.orelse and len(loop.body) == 1):
                continue
            c = init.targets[0].id
            stmt, cond = loop.body[0], None
            if isinstance(stmt, ast.If) and not stmt.orelse and len(stmt.body) == 1:
                cond, stmt = stmt.test, stmt.body[0]
            if not (isinstance(stmt, ast.AugAssign) and isinstance(stmt.op, ast.Add)
                    and isinstance(stmt.target, ast.Name) and stmt.target.id == c):
                continue
            parts = [loop.target, loop.iter, stmt.value] + ([cond] if cond is not None else [])
            if c in _names(parts) or not _simple_expr(*parts):
                continue
            sn = sc.node(loop)
            if sn is None or _guarded(loop, sc.parents) or c in sc.unsafe or c in _captured(sn):
                continue
            scope = sc.scope(sn)
            if not scope.builtin("sum") or c in scope.declared or not _only_in(_names(loop.target), loop, sn):
                continue
            if not scope.is_int(stmt.value):
                continue
            gen = ast.GeneratorExp(elt=stmt.value, generators=[ast.comprehension(
                target=loop.target, iter=loop.iter, ifs=[cond] if cond is not None else [], is_async=0)])
            stmts[k:k + 2] = [_assign(c, _call("sum", gen))]
            changed = True
    return changed


def _top_lambdas(st: ast.stmt) -> list[ast.Lambda]:
    """Lambdas in ``st`` that are not inside another lambda or a comprehension."""
    out: list[ast.Lambda] = []
    stack: list[ast.AST] = list(ast.iter_child_nodes(st))
    while stack:
        n = stack.pop()
        if isinstance(n, ast.Lambda):
            out.append(n)
        elif not isinstance(n, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            stack.extend(ast.iter_child_nodes(n))
    return out


def rw_lambda_to_def(tree: ast.Module, ctx: _Ctx) -> bool:
    """A lambda (no defaults, not inside a comprehension) in an assignment, expression or
    return statement -> a local ``def`` right before that statement (same closure)."""
    changed = False
    sc = _ScopeCache(tree)
    for _owner, stmts in list(_stmt_lists(tree)):
        for k in range(len(stmts) - 1, -1, -1):
            st = stmts[k]
            if not isinstance(st, (ast.Assign, ast.Expr, ast.Return)) or sc.node(st) is None:
                continue
            defs: list[ast.stmt] = []
            for lam in _top_lambdas(st):
                if lam.args.defaults or any(d is not None for d in lam.args.kw_defaults):
                    continue
                p = sc.parents.get(id(lam))
                base = "key_fn" if isinstance(p, ast.keyword) and p.arg == "key" else ctx.rng.choice(("fn", "helper"))
                name = ctx.fresh(base)
                defs.append(ast.FunctionDef(name=name, args=lam.args, body=[ast.Return(lam.body)], decorator_list=[],
                                            returns=None, type_comment=None))
                _replace(lam, _name(name), sc.parents)
            if defs:
                stmts[k:k] = defs
                changed = True
    return changed


def rw_enumerate_to_range_len(tree: ast.Module, ctx: _Ctx) -> bool:
    """``for i, x in enumerate(xs):`` -> ``for i in range(len(xs)): x = xs[i]`` when ``xs`` is a
    list/str/tuple the loop cannot rebind or mutate."""
    changed = False
    sc = _ScopeCache(tree)
    for loop in [n for n in ast.walk(tree) if isinstance(n, ast.For)]:
        t, it = loop.target, loop.iter
        if not (isinstance(t, ast.Tuple) and len(t.elts) == 2 and all(isinstance(e, ast.Name) for e in t.elts)
                and t.elts[0].id != t.elts[1].id and _call_name(it) == "enumerate" and len(it.args) == 1
                and not it.keywords and isinstance(it.args[0], ast.Name)):
            continue
        sn = sc.node(loop)
        if sn is None:
            continue
        scope = sc.scope(sn)
        xs = it.args[0].id
        if not all(scope.builtin(b) for b in ("enumerate", "range", "len")) or not scope.is_seq(xs) \
                or xs in sc.unsafe or xs in (t.elts[0].id, t.elts[1].id) or not _mutation_free(xs, loop.body, scope):
            continue
        i, x = t.elts[0].id, t.elts[1].id
        loop.body.insert(0, _assign(x, ast.Subscript(_name(xs), _name(i), ast.Load())))
        loop.target = _name(i, True)
        loop.iter = _call("range", _call("len", _name(xs)))
        changed = True
    return changed


def rw_split_tuple_assignment(tree: ast.Module, ctx: _Ctx) -> bool:
    """``a, b = e0, e1`` -> ``a = e0`` + ``b = e1`` when ``e1`` does not read ``a`` (else through a
    temporary: ``t = e0; b = e1; a = t``)."""
    if _dynamic(tree):
        return False
    changed = False
    sc = _ScopeCache(tree)
    for _owner, stmts in list(_stmt_lists(tree)):
        for k in range(len(stmts) - 1, -1, -1):
            st = stmts[k]
            if not (isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Tuple)
                    and isinstance(st.value, ast.Tuple) and len(st.targets[0].elts) == len(st.value.elts) >= 2
                    and all(isinstance(e, ast.Name) for e in st.targets[0].elts)
                    and not any(isinstance(e, ast.Starred) for e in st.value.elts)):
                continue
            names = [e.id for e in st.targets[0].elts]
            vals = st.value.elts
            sn = sc.node(st)
            if sn is None or len(set(names)) != len(names) or _guarded(st, sc.parents) or not _simple_expr(*vals):
                continue
            if set(names) & (sc.unsafe | _captured(sn)):
                continue
            dependent = any(set(names[:j]) & _names(vals[j]) for j in range(1, len(vals)))
            if not dependent:
                new = [_assign(n, v) for n, v in zip(names, vals)]
            elif len(vals) == 2:
                tmp = ctx.fresh(f"new_{names[0]}" if len(names[0]) < 12 else "tmp")
                new = [_assign(tmp, vals[0]), _assign(names[1], vals[1]), _assign(names[0], _name(tmp))]
            else:
                continue
            stmts[k:k + 1] = new
            changed = True
    return changed


def rw_merge_assignments(tree: ast.Module, ctx: _Ctx) -> bool:
    """Consecutive ``a = e0`` and ``b = e1`` -> ``a, b = e0, e1`` when ``e1`` does not read ``a``."""
    if _dynamic(tree):
        return False
    changed = False
    sc = _ScopeCache(tree)
    for _owner, stmts in list(_stmt_lists(tree)):
        k = 0
        while k + 1 < len(stmts):
            s0, s1 = stmts[k], stmts[k + 1]
            ok = all(isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name)
                     and not isinstance(s.value, (ast.Tuple, ast.Starred)) for s in (s0, s1))
            if ok:
                a, b = s0.targets[0].id, s1.targets[0].id
                sn = sc.node(s0)
                ok = (sn is not None and a != b and a not in _names(s1.value) and _simple_expr(s0.value, s1.value)
                      and not _guarded(s0, sc.parents) and not ({a, b} & (sc.unsafe | _captured(sn))))
            if ok:
                stmts[k:k + 2] = [ast.Assign(targets=[ast.Tuple([_name(a, True), _name(b, True)], ast.Store())],
                                             value=ast.Tuple([s0.value, s1.value], ast.Load()))]
                changed = True
            k += 1
    return changed


def _concat_leaves(e: ast.AST, scope: _Scope, out: list[ast.expr]) -> bool:
    if isinstance(e, ast.BinOp) and isinstance(e.op, ast.Add):
        return _concat_leaves(e.left, scope, out) and _concat_leaves(e.right, scope, out)
    if not scope.is_str(e):
        return False
    out.append(e)
    return True


def rw_concat_to_fstring(tree: ast.Module, ctx: _Ctx) -> bool:
    """A chain ``a + b + ...`` of provable strs -> one f-string (no intermediate strings)."""
    changed = False
    sc = _ScopeCache(tree)
    for node in list(ast.walk(tree)):
        if not (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add) and id(node) in sc.parents):
            continue
        p = sc.parents[id(node)]
        if isinstance(p, ast.BinOp) and isinstance(p.op, ast.Add):
            continue  # only whole chains
        if any(isinstance(a, (ast.JoinedStr, ast.FormattedValue)) for a in _ancestors(node, sc.parents)):
            continue
        sn = sc.node(node)
        if sn is None:
            continue
        leaves: list[ast.expr] = []
        if not _concat_leaves(node, sc.scope(sn), leaves) or len(leaves) < 2:
            continue
        values: list[ast.expr] = []
        ok = True
        for leaf in leaves:
            if isinstance(leaf, ast.Constant):
                values.append(ast.Constant(leaf.value))
            elif isinstance(leaf, ast.JoinedStr):
                values.extend(leaf.values)
            elif _has(leaf, ast.JoinedStr, ast.Lambda, ast.NamedExpr, ast.Yield, ast.YieldFrom, ast.Await, ast.Dict,
                      ast.Set, ast.DictComp, ast.SetComp) \
                    or any(isinstance(c, ast.Constant) and isinstance(c.value, (str, bytes)) for c in ast.walk(leaf)):
                ok = False  # keep quoting and brace escaping out of the picture
            else:
                values.append(ast.FormattedValue(value=leaf, conversion=-1, format_spec=None))
        if not ok or not any(isinstance(v, ast.FormattedValue) for v in values):
            continue
        merged: list[ast.expr] = []
        for v in values:
            if merged and isinstance(v, ast.Constant) and isinstance(merged[-1], ast.Constant):
                merged[-1] = ast.Constant(merged[-1].value + v.value)
            else:
                merged.append(v)
        _replace(node, ast.JoinedStr(values=merged), sc.parents)
        changed = True
    return changed


def rw_reverse_slice(tree: ast.Module, ctx: _Ctx) -> bool:
    """``s[::-1]`` -> ``''.join(reversed(s))`` for a provable str; ``xs[::-1]`` ->
    ``list(reversed(xs))`` for a provable list."""
    changed = False
    sc = _ScopeCache(tree)
    for node in list(ast.walk(tree)):
        if not (isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load) and isinstance(node.slice, ast.Slice)
                and node.slice.lower is None and node.slice.upper is None and node.slice.step is not None
                and _const_int(node.slice.step) == -1 and id(node) in sc.parents):
            continue
        sn = sc.node(node)
        if sn is None:
            continue
        scope = sc.scope(sn)
        if not scope.builtin("reversed"):
            continue
        rev = _call("reversed", node.value)
        if scope.is_str(node.value) and not _has(node.value, ast.NamedExpr, ast.Yield, ast.Await):
            new: ast.expr = ast.Call(func=ast.Attribute(ast.Constant(""), "join", ast.Load()), args=[rev], keywords=[])
        elif isinstance(node.value, ast.Name) and _is_list(node.value.id, scope) and scope.builtin("list"):
            new = _call("list", rev)
        else:
            continue
        _replace(node, new, sc.parents)
        changed = True
    return changed


def _bool_return(st: ast.AST) -> bool | None:
    if isinstance(st, ast.Return) and isinstance(st.value, ast.Constant) and isinstance(st.value.value, bool):
        return st.value.value
    return None


def rw_return_bool(tree: ast.Module, ctx: _Ctx) -> bool:
    """``if c: return True`` + ``return False`` (or with ``else``) -> ``return bool(c)``; the
    ``False``/``True`` form -> ``return not c``; likewise ``True if c else False`` -> ``bool(c)``
    and ``False if c else True`` -> ``not c``. One truth test of ``c`` either way."""
    changed = False
    sc = _ScopeCache(tree)
    for _owner, stmts in list(_stmt_lists(tree)):
        for k in range(len(stmts) - 1, -1, -1):
            st = stmts[k]
            if not (isinstance(st, ast.If) and len(st.body) == 1 and _bool_return(st.body[0]) is not None):
                continue
            first = _bool_return(st.body[0])
            if len(st.orelse) == 1:
                second, span = _bool_return(st.orelse[0]), 1
            elif not st.orelse and k + 1 < len(stmts):
                second, span = _bool_return(stmts[k + 1]), 2
            else:
                continue
            if second is None or second == first:
                continue
            sn = sc.node(st)
            if first:
                if sn is None or not sc.scope(sn).builtin("bool"):
                    continue
                value: ast.expr = _call("bool", st.test)
            else:
                value = _negate(st.test, sc.scope_at(st))
            stmts[k:k + span] = [ast.Return(value)]
            changed = True
    sc = _ScopeCache(tree)
    for node in list(ast.walk(tree)):  # ``True if c else False`` -> ``bool(c)``; swapped -> ``not c``
        if not (isinstance(node, ast.IfExp) and id(node) in sc.parents):
            continue
        a, b = (x.value if isinstance(x, ast.Constant) and isinstance(x.value, bool) else None
                for x in (node.body, node.orelse))
        if a is None or b is None or a == b:
            continue
        scope = sc.scope_at(node)
        if a and (scope is None or not scope.builtin("bool")):
            continue
        _replace(node, _call("bool", node.test) if a else _negate(node.test, scope), sc.parents)
        changed = True
    return changed


def rw_swap_if_branches(tree: ast.Module, ctx: _Ctx) -> bool:
    """``if c: A else: B`` (not an elif chain) -> ``if not c: B else: A``."""
    changed = False
    sc = _ScopeCache(tree)
    for node in [n for n in ast.walk(tree) if isinstance(n, ast.If)]:
        if node.orelse and not (len(node.orelse) == 1 and isinstance(node.orelse[0], ast.If)):
            node.test, node.body, node.orelse = _negate(node.test, sc.scope_at(node)), node.orelse, node.body
            changed = True
    return changed


def _power_of_two(e: ast.AST) -> int | None:
    """k when ``e`` is the int constant 2**k (k >= 1)."""
    v = _const_int(e)
    if v is None or v < 2 or v & (v - 1):
        return None
    return v.bit_length() - 1


def rw_strength_reduction(tree: ast.Module, ctx: _Ctx) -> bool:
    """For a provable int ``e``: ``e % 2**k`` -> ``e & (2**k - 1)`` and ``e // 2**k`` -> ``e >> k``
    (Python's ``%`` and ``//`` floor, exactly like two's-complement masking and shifting), also in
    augmented assignments to int names."""
    changed = False
    sc = _ScopeCache(tree)
    for node in list(ast.walk(tree)):
        if isinstance(node, ast.BinOp):
            left, op, right = node.left, node.op, node.right
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            left, op, right = ast.Name(node.target.id, ast.Load()), node.op, node.value
        else:
            continue
        if not isinstance(op, (ast.Mod, ast.FloorDiv)):
            continue
        k = _power_of_two(right)
        scope = sc.scope_at(node)
        if k is None or scope is None or not scope.is_int(left):
            continue
        if isinstance(node, ast.AugAssign) and node.target.id in sc.unsafe:
            continue
        new_op, new_right = (ast.BitAnd(), ast.Constant((1 << k) - 1)) if isinstance(op, ast.Mod) \
            else (ast.RShift(), ast.Constant(k))
        node.op = new_op
        if isinstance(node, ast.BinOp):
            node.right = new_right
        else:
            node.value = new_right
        changed = True
    return changed


def _is_bool(e: ast.AST) -> bool:
    if isinstance(e, ast.Constant):
        return isinstance(e.value, bool)
    if isinstance(e, ast.BoolOp):
        return all(_is_bool(v) for v in e.values)
    return isinstance(e, ast.Compare) or (isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.Not)) \
        or _call_name(e) == "bool"


def _local_type(value: ast.AST, name: str, scope: _Scope) -> str | None:
    if name in scope.int_names() and scope.is_int(value):
        binds = scope.bindings.get(name, [])
        return "bool" if all(k == "assign" and _is_bool(v) for k, v in binds) else "int"
    if name in scope.str_names() and scope.is_str(value):
        return "str"
    if _is_list(name, scope):
        return "list"
    if isinstance(value, ast.Constant) and type(value.value) is float and all(
            k == "assign" and isinstance(v, ast.Constant) and type(v.value) is float
            for k, v in scope.bindings.get(name, [])):
        return "float"
    return None


def rw_annotate_locals(tree: ast.Module, ctx: _Ctx) -> bool:
    """Add a type hint (``int``/``bool``/``str``/``list``/``float``, as inferred) to the first
    assignment of a function's local variables. Annotations of locals are never evaluated."""
    changed = False
    for fn in [n for n in ast.walk(tree) if isinstance(n, _FUNC)]:
        scope = _Scope(fn, tree)
        unsafe = scope.declared | _declared_anywhere(tree)
        seen: set[str] = set(scope.params) | {n.target.id for n in _walk_scope(fn)
                                               if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)}
        for _owner, stmts in list(_stmt_lists(fn)):
            for k, st in enumerate(stmts):
                if not (isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name)):
                    continue
                name = st.targets[0].id
                if name in seen or name in unsafe or _scope_of(st, _parents(fn)) is not fn:
                    continue
                seen.add(name)
                kind = _local_type(st.value, name, scope)
                if kind is None or not scope.builtin(kind):
                    continue
                stmts[k] = ast.AnnAssign(target=_name(name, True), annotation=_name(kind), value=st.value, simple=1)
                changed = True
    return changed


def rw_ifexp_assign_to_if(tree: ast.Module, ctx: _Ctx) -> bool:
    """``x = a if c else b`` -> ``if c: x = a`` / ``else: x = b``."""
    changed = False
    for _owner, stmts in list(_stmt_lists(tree)):
        for k in range(len(stmts) - 1, -1, -1):
            st = stmts[k]
            if isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name) \
                    and isinstance(st.value, ast.IfExp):
                x, e = st.targets[0].id, st.value
                stmts[k] = ast.If(test=e.test, body=[_assign(x, e.body)], orelse=[_assign(x, e.orelse)])
                changed = True
    return changed


def rw_return_comprehension_to_loop(tree: ast.Module, ctx: _Ctx) -> bool:
    """``return [e for t in it if c]`` -> build the list with an explicit loop, then return it."""
    changed = False
    sc = _ScopeCache(tree)
    for _owner, stmts in list(_stmt_lists(tree)):
        for k in range(len(stmts) - 1, -1, -1):
            st = stmts[k]
            if not (isinstance(st, ast.Return) and isinstance(st.value, ast.ListComp)):
                continue
            comp = st.value
            sn = sc.node(st)
            if not isinstance(sn, _FUNC) or not _simple_expr(comp) or any(g.is_async for g in comp.generators):
                continue
            targets = set().union(*(_names(g.target) for g in comp.generators))
            if not _only_in(targets, st, sn) or targets & sc.unsafe:
                continue
            r = ctx.fresh(ctx.rng.choice(("result", "out", "collected")))
            append = ast.Expr(ast.Call(func=ast.Attribute(_name(r), "append", ast.Load()), args=[comp.elt],
                                       keywords=[]))
            stmts[k:k + 1] = [_assign(r, ast.List([], ast.Load())), *_nested_loops(comp.generators, [append]),
                              ast.Return(_name(r))]
            changed = True
    return changed


def rw_zero_test(tree: ast.Module, ctx: _Ctx) -> bool:
    """For a provable int ``e``: ``e == 0`` -> ``not e``; ``e != 0`` tested for truth -> ``e``."""
    changed = False
    sc = _ScopeCache(tree)
    for node in list(ast.walk(tree)):
        if not (isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], (ast.Eq, ast.NotEq))
                and _const_int(node.comparators[0]) == 0 and type(node.comparators[0].value) is int
                and id(node) in sc.parents):
            continue
        scope = sc.scope_at(node)
        if scope is None or not scope.is_int(node.left) or isinstance(node.left, ast.Compare):
            continue
        if isinstance(node.ops[0], ast.Eq):
            _replace(node, ast.UnaryOp(ast.Not(), node.left), sc.parents)
        elif _test_context(node, sc.parents):
            _replace(node, node.left, sc.parents)
        else:
            continue
        changed = True
    return changed


def rw_split_and_condition(tree: ast.Module, ctx: _Ctx) -> bool:
    """``if a and b: X`` (no else) -> ``if a: if b: X``."""
    changed = False
    for node in [n for n in ast.walk(tree) if isinstance(n, ast.If)]:
        if not node.orelse and isinstance(node.test, ast.BoolOp) and isinstance(node.test.op, ast.And):
            first, rest = node.test.values[0], node.test.values[1:]
            inner = rest[0] if len(rest) == 1 else ast.BoolOp(ast.And(), rest)
            node.test, node.body = first, [ast.If(test=inner, body=node.body, orelse=[])]
            changed = True
    return changed


def rw_merge_nested_ifs(tree: ast.Module, ctx: _Ctx) -> bool:
    """``if a: if b: X`` (neither has an else) -> ``if a and b: X``."""
    changed = False
    for node in [n for n in ast.walk(tree) if isinstance(n, ast.If)]:
        if (not node.orelse and len(node.body) == 1 and isinstance(node.body[0], ast.If)
                and not node.body[0].orelse):
            inner = node.body[0]
            node.test = ast.BoolOp(ast.And(), [node.test, inner.test])
            node.body = inner.body
            changed = True
    return changed


def rw_alias_append(tree: ast.Module, ctx: _Ctx) -> bool:
    """Hot loop appending to a local list ``r`` (bound earlier in the same block, never rebound
    in the loop) -> ``add = r.append`` before the loop and ``add(x)`` inside it."""
    changed = False
    sc = _ScopeCache(tree)
    for _owner, stmts in list(_stmt_lists(tree)):
        for k in range(len(stmts) - 1, 0, -1):
            loop = stmts[k]
            if not isinstance(loop, (ast.For, ast.While)):
                continue
            sn = sc.node(loop)
            if not isinstance(sn, _FUNC):
                continue
            scope = sc.scope(sn)
            calls: dict[str, list[ast.Call]] = {}
            for n in _walk_many(loop.body):  # nested functions/lambdas are excluded below
                if (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "append"
                        and isinstance(n.func.value, ast.Name)):
                    calls.setdefault(n.func.value.id, []).append(n)
            for r in sorted(calls):
                bound_before = any(isinstance(p, ast.Assign) and len(p.targets) == 1
                                   and isinstance(p.targets[0], ast.Name) and p.targets[0].id == r
                                   for p in stmts[:k])
                if (not bound_before or r in sc.unsafe or not _is_list(r, scope) or _stores(r, [loop])
                        or _has(loop.body, *_SCOPES) or _has([loop.target] if isinstance(loop, ast.For) else [],
                                                              ast.NamedExpr)):
                    continue
                alias = ctx.fresh(f"{r}_append" if len(r) <= 10 else "append")
                for c in calls[r]:
                    c.func = _name(alias)
                stmts.insert(k, _assign(alias, ast.Attribute(_name(r), "append", ast.Load())))
                changed = True
    return changed


def rw_negative_index(tree: ast.Module, ctx: _Ctx) -> bool:
    """For a list/str/tuple name ``xs``: ``xs[-1]`` -> ``xs[len(xs) - 1]`` and ``xs[:-1]`` ->
    ``xs[:len(xs) - 1]`` (equal for every length, the empty one included)."""
    changed = False
    sc = _ScopeCache(tree)
    for node in list(ast.walk(tree)):
        if not (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name)):
            continue
        scope = sc.scope_at(node)
        xs = node.value.id
        if scope is None or not scope.builtin("len") or not scope.is_seq(xs) or xs in sc.unsafe:
            continue

        def fixed() -> ast.expr:
            return ast.BinOp(_call("len", _name(xs)), ast.Sub(), ast.Constant(1))

        sl = node.slice
        if _const_int(sl) == -1:
            node.slice = fixed()
            changed = True
        elif isinstance(sl, ast.Slice) and sl.step is None and (sl.lower is None or _const_int(sl.lower) is not None):
            if sl.upper is not None and _const_int(sl.upper) == -1 and (sl.lower is None or _const_int(sl.lower) >= 0):
                sl.upper = fixed()
                changed = True
    return changed


_MIRROR = {ast.Lt: ast.Gt, ast.Gt: ast.Lt, ast.LtE: ast.GtE, ast.GtE: ast.LtE}


def rw_flip_comparison(tree: ast.Module, ctx: _Ctx) -> bool:
    """``a < b`` -> ``b > a`` (mirrored operator) when both sides are names, and ``0 < x`` ->
    ``x > 0``: nothing is evaluated in a different order, and builtin orderings mirror exactly."""
    changed = False
    for node in list(ast.walk(tree)):
        if not (isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in _MIRROR):
            continue
        a, b = node.left, node.comparators[0]
        if (isinstance(a, ast.Name) and isinstance(b, ast.Name)) or (
                isinstance(a, ast.Constant) and isinstance(b, ast.Name)):
            node.left, node.comparators, node.ops = b, [a], [_MIRROR[type(node.ops[0])]()]
            changed = True
    return changed


def rw_inline_return_variable(tree: ast.Module, ctx: _Ctx) -> bool:
    """``x = e`` immediately followed by ``return x`` -> ``return e`` when the local ``x`` occurs
    nowhere else in its function."""
    if _dynamic(tree):
        return False
    changed = False
    sc = _ScopeCache(tree)
    for _owner, stmts in list(_stmt_lists(tree)):
        for k in range(len(stmts) - 2, -1, -1):
            st, ret = stmts[k], stmts[k + 1]
            if not (isinstance(st, (ast.Assign, ast.AnnAssign)) and isinstance(ret, ast.Return)
                    and isinstance(ret.value, ast.Name) and st.value is not None):
                continue
            target = st.targets[0] if isinstance(st, ast.Assign) and len(st.targets) == 1 else \
                (st.target if isinstance(st, ast.AnnAssign) else None)
            if not (isinstance(target, ast.Name) and target.id == ret.value.id):
                continue
            sn = sc.node(st)
            x = target.id
            if not isinstance(sn, _FUNC) or x in sc.unsafe or x in sc.scope(sn).params:
                continue
            occurrences = sum(1 for n in ast.walk(sn) if isinstance(n, ast.Name) and n.id == x)
            if occurrences != 2:
                continue
            stmts[k:k + 2] = [ast.Return(st.value)]
            changed = True
    return changed


def rw_name_return_value(tree: ast.Module, ctx: _Ctx) -> bool:
    """``return e`` (a call, operation or comprehension) -> ``result = e`` + ``return result``."""
    changed = False
    sc = _ScopeCache(tree)
    for _owner, stmts in list(_stmt_lists(tree)):
        for k in range(len(stmts) - 1, -1, -1):
            st = stmts[k]
            if not (isinstance(st, ast.Return) and isinstance(st.value, (ast.Call, ast.BinOp, ast.BoolOp, ast.ListComp,
                                                                        ast.JoinedStr, ast.Compare, ast.IfExp))):
                continue
            if not isinstance(sc.node(st), _FUNC) or _has(st.value, ast.NamedExpr, ast.Yield, ast.YieldFrom,
                                                         ast.Await):
                continue
            name = ctx.fresh(ctx.rng.choice(("result", "res", "answer", "value")))
            stmts[k:k + 1] = [_assign(name, st.value), ast.Return(_name(name))]
            changed = True
    return changed


_FORMAT_SAFE_CALLS = _PURE_BUILTINS - {"print", "input", "list", "set", "dict", "sorted", "reversed", "enumerate",
                                      "zip", "range"}


def _no_effects(e: ast.AST, scope: _Scope) -> bool:
    """Evaluating ``e`` runs no user code that could change other values: names, constants,
    subscripts, attributes, operators and calls of unshadowed pure builtins only."""
    for n in ast.walk(e):
        if isinstance(n, (ast.NamedExpr, ast.Yield, ast.YieldFrom, ast.Await, ast.Lambda, ast.ListComp, ast.SetComp,
                          ast.DictComp, ast.GeneratorExp, ast.JoinedStr, ast.Starred)):
            return False
        if isinstance(n, ast.Call) and not (_call_name(n) in _FORMAT_SAFE_CALLS and scope.builtin(_call_name(n))):
            return False
        if isinstance(n, ast.Constant) and isinstance(n.value, (str, bytes)):
            return False  # keeps quoting out of the f-string expression
    return True


def rw_print_to_fstring(tree: ast.Module, ctx: _Ctx) -> bool:
    """``print(a, 'x', b)`` (two or more plain arguments, no keywords) -> ``print(f'{a} x {b}')``:
    ``print`` writes ``str(arg)`` and an f-string field ``format(arg, '')``, which is the same for
    every builtin type; the arguments must be free of side effects (print formats them only after
    evaluating all of them)."""
    changed = False
    sc = _ScopeCache(tree)
    for node in list(ast.walk(tree)):
        if not (isinstance(node, ast.Call) and _call_name(node) == "print" and len(node.args) >= 2
                and not node.keywords):
            continue
        scope = sc.scope_at(node)
        if scope is None or not scope.builtin("print"):
            continue
        if any(isinstance(a, ast.Constant) and not isinstance(a.value, str) for a in node.args) \
                or not all(isinstance(a, ast.Constant) or _no_effects(a, scope) for a in node.args):
            continue
        values: list[ast.expr] = []
        for i, a in enumerate(node.args):
            if i:
                values.append(ast.Constant(" "))
            values.append(ast.Constant(a.value) if isinstance(a, ast.Constant)
                          else ast.FormattedValue(value=a, conversion=-1, format_spec=None))
        if not any(isinstance(v, ast.FormattedValue) for v in values):
            continue
        merged: list[ast.expr] = []
        for v in values:
            if merged and isinstance(v, ast.Constant) and isinstance(merged[-1], ast.Constant):
                merged[-1] = ast.Constant(merged[-1].value + v.value)
            else:
                merged.append(v)
        node.args = [ast.JoinedStr(values=merged)]
        changed = True
    return changed


_MAP_SAFE = frozenset({"int", "str", "float", "abs", "len", "ord", "chr", "bool", "round", "sorted", "list", "tuple",
                       "set", "frozenset", "repr", "hex", "oct", "bin"})
_ITER_CONSUMERS = frozenset({"list", "tuple", "set", "sorted", "sum", "min", "max", "any", "all", "frozenset"})


def rw_map_to_comprehension(tree: ast.Module, ctx: _Ctx) -> bool:
    """``list(map(f, xs))`` -> ``[f(v) for v in xs]``; ``map(f, xs)`` consumed at once (a for
    loop, unpacking, ``sum``/``sorted``/...) -> a generator expression. ``f`` is an unshadowed
    builtin conversion (so nothing can raise ``StopIteration`` inside the generator)."""
    changed = False
    sc = _ScopeCache(tree)
    for node in list(ast.walk(tree)):
        if not (_call_name(node) == "map" and len(node.args) == 2 and not node.keywords
                and isinstance(node.args[0], ast.Name) and node.args[0].id in _MAP_SAFE
                and not isinstance(node.args[1], ast.Starred) and id(node) in sc.parents):
            continue
        scope = sc.scope_at(node)
        if scope is None or not scope.builtin("map") or not scope.builtin(node.args[0].id):
            continue
        p = sc.parents[id(node)]
        v = ctx.fresh(ctx.rng.choice(("v", "tok", "part")))
        elt = _call(node.args[0].id, _name(v))
        gens = [ast.comprehension(target=_name(v, True), iter=node.args[1], ifs=[], is_async=0)]
        if isinstance(p, ast.Call) and _call_name(p) == "list" and len(p.args) == 1 and not p.keywords \
                and scope.builtin("list") and id(p) in sc.parents:
            _replace(p, ast.ListComp(elt=elt, generators=gens), sc.parents)
        elif ((isinstance(p, ast.Call) and _call_name(p) in _ITER_CONSUMERS and scope.builtin(_call_name(p))
               and len(p.args) == 1 and p.args[0] is node)
              or (isinstance(p, ast.For) and p.iter is node)
              or (isinstance(p, ast.Assign) and p.value is node and len(p.targets) == 1
                  and isinstance(p.targets[0], (ast.Tuple, ast.List)))):
            _replace(node, ast.GeneratorExp(elt=elt, generators=gens), sc.parents)
        else:
            continue
        changed = True
    return changed


@dataclass(frozen=True)
class _Rewrite:
    name: str
    fn: Callable[[ast.Module, _Ctx], bool]
    strategy: str | None


#: All rewrites: (name, function, paper strategy or None for surface rewrites).
REWRITES: tuple[_Rewrite, ...] = (
    _Rewrite("memoise_pure_recursive", rw_memoise, "memoization"),
    _Rewrite("membership_literal_to_set", rw_membership_literal, "data structures"),
    _Rewrite("loop_to_comprehension", rw_loop_to_comprehension, "hot path"),
    _Rewrite("range_len_to_enumerate", rw_range_len_enumerate, "hot path"),
    _Rewrite("hoist_loop_invariant_len", rw_hoist_len, "hot path"),
    _Rewrite("wrap_in_main", rw_wrap_main, "hot path"),
    _Rewrite("accumulate_then_join", rw_string_join, "algorithmic"),
    _Rewrite("loop_to_any", rw_any_all, "algorithmic"),
    _Rewrite("guard_clause", rw_guard_clause, "cold path"),
    _Rewrite("count_loop_to_sum", rw_count_loop_to_sum, "algorithmic"),
    _Rewrite("equality_chain_to_membership", rw_equality_chain_to_membership, "data structures"),
    _Rewrite("concat_to_fstring", rw_concat_to_fstring, "hot path"),
    _Rewrite("early_continue", rw_early_continue, "cold path"),
    _Rewrite("early_return", rw_early_return, "cold path"),
    _Rewrite("strength_reduction", rw_strength_reduction, "hot path"),
    _Rewrite("alias_append", rw_alias_append, "hot path"),
    _Rewrite("rename_locals", rw_rename_locals, None),
    _Rewrite("comprehension_to_loop", rw_comprehension_to_loop, None),
    _Rewrite("if_to_conditional_expression", rw_if_to_ifexp, None),
    _Rewrite("conditional_expression_to_if", rw_ifexp_to_if, None),
    _Rewrite("extract_helper", rw_extract_helper, None),
    _Rewrite("extract_body", rw_extract_body, None),
    _Rewrite("rename_parameters", rw_rename_params, None),
    _Rewrite("for_to_while", rw_for_to_while, None),
    _Rewrite("augmented_to_plain_assignment", rw_aug_to_plain, None),
    _Rewrite("plain_to_augmented_assignment", rw_plain_to_aug, None),
    _Rewrite("truthiness_to_len", rw_truthiness_to_len, None),
    _Rewrite("len_to_truthiness", rw_len_to_truthiness, None),
    _Rewrite("sorted_to_sort", rw_sorted_to_sort, None),
    _Rewrite("comprehension_to_generator", rw_comprehension_to_generator, None),
    _Rewrite("generator_to_comprehension", rw_generator_to_comprehension, None),
    _Rewrite("reduction_to_loop", rw_reduction_to_loop, None),
    _Rewrite("lambda_to_def", rw_lambda_to_def, None),
    _Rewrite("enumerate_to_range_len", rw_enumerate_to_range_len, None),
    _Rewrite("split_tuple_assignment", rw_split_tuple_assignment, None),
    _Rewrite("merge_assignments", rw_merge_assignments, None),
    _Rewrite("reverse_slice_to_reversed", rw_reverse_slice, None),
    _Rewrite("return_bool", rw_return_bool, None),
    _Rewrite("swap_if_branches", rw_swap_if_branches, None),
    _Rewrite("annotate_locals", rw_annotate_locals, None),
    _Rewrite("conditional_assignment_to_if", rw_ifexp_assign_to_if, None),
    _Rewrite("return_comprehension_to_loop", rw_return_comprehension_to_loop, None),
    _Rewrite("zero_test_to_truthiness", rw_zero_test, None),
    _Rewrite("split_and_condition", rw_split_and_condition, None),
    _Rewrite("merge_nested_ifs", rw_merge_nested_ifs, None),
    _Rewrite("negative_index_to_len", rw_negative_index, None),
    _Rewrite("flip_comparison", rw_flip_comparison, None),
    _Rewrite("inline_return_variable", rw_inline_return_variable, None),
    _Rewrite("name_return_value", rw_name_return_value, None),
    _Rewrite("print_to_fstring", rw_print_to_fstring, None),
    _Rewrite("map_to_comprehension", rw_map_to_comprehension, None),
)
_LAST_RESORT = (_Rewrite("trim_docstring_examples", rw_trim_docstrings, None),
                _Rewrite("drop_docstrings", rw_drop_docstrings, None))


# ----------------------------------------------------------------------------- driver

def _signatures(tree: ast.Module, anonymous: frozenset[str] = frozenset()) -> dict[str, str]:
    """Top-level function signatures; for functions in ``anonymous`` (parameters renamable) only
    the shape counts, not the parameter names."""
    out = {}
    for n in tree.body:
        if isinstance(n, _FUNC):
            args = n.args
            if n.name in anonymous:
                args = copy.deepcopy(args)
                for a in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]:
                    if a is not None:
                        a.arg = "_"
            out[n.name] = ast.dump(args)
    return out


def _validated(tree: ast.Module, required: dict[str, str],
               anonymous: frozenset[str] = frozenset()) -> str | None:
    try:
        ast.fix_missing_locations(tree)
        text = ast.unparse(tree)
        reparsed = ast.parse(text)
        compile(text, "<variant>", "exec", dont_inherit=True)
    except Exception:  # noqa: BLE001 - any failure means the rewrite is rejected
        return None
    sigs = _signatures(reparsed, anonymous)
    if any(sigs.get(name) != sig for name, sig in required.items()):
        return None
    return text


def optimise(code: str, *, entry_point: str | None = None, seed: int = 0, target_similarity: float = 0.65,
             max_steps: int = 120, allow_docstring_removal: bool = True) -> Variant:
    """Rewrite ``code`` into a (conservatively) semantics-preserving optimised variant.

    First every applicable optimisation rewrite (labelled with a paper strategy) is applied, in
    an order drawn from ``seed``; then surface rewrites are composed, each kept only if it lowers
    SurfaceSim (Eq. 1) to the original, until it is at most ``target_similarity``, no rewrite
    lowers it, or ``max_steps`` surface attempts were made. ``entry_point`` marks function-level
    code (its name and signature are kept, as are those of every top-level function); ``None``
    means a stdin program.
    """
    try:
        tree = ast.parse(code)
    except SyntaxError as exc:
        raise UserError(f"reference does not parse: {exc}") from exc
    original = ast.unparse(tree)
    tree = ast.parse(original)
    if entry_point is not None and entry_point not in _signatures(tree):
        raise UserError(f"entry point {entry_point!r} is not a top-level function of the reference")
    renamable = frozenset(
        () if _dynamic(tree) else
        (n.name for n in tree.body if isinstance(n, ast.FunctionDef) and n.name != entry_point
         and _simple_params(n) and _positional_only_callers(tree, n.name)))
    required = _signatures(tree, renamable)
    rng = random.Random(seed)
    ctx = _Ctx(tree, entry_point, rng, program=entry_point is None)
    ctx.renamable = renamable
    applied: list[_Rewrite] = []
    rejected: list[str] = []
    cur_text = original
    steps = 0

    def attempt(rw: _Rewrite) -> str | None:
        nonlocal steps
        steps += 1
        cand = ast.parse(cur_text)  # a fresh tree: much cheaper than copy.deepcopy
        try:
            if not rw.fn(cand, ctx):
                return None
        except (RecursionError, AssertionError, AttributeError, TypeError, ValueError, IndexError, KeyError):
            rejected.append(rw.name)
            return None
        text = _validated(cand, required, renamable)
        if text is None:
            rejected.append(rw.name)
        return text

    optimisations = [r for r in REWRITES if r.strategy is not None]
    rng.shuffle(optimisations)
    for _ in range(3):
        progress = False
        for rw in optimisations:
            got = attempt(rw)
            if got is not None and got != cur_text:
                cur_text = got
                applied.append(rw)
                progress = True
        if not progress:
            break
    sim = surface_similarity(original, cur_text)
    steps = 0  # max_steps bounds the surface phase only
    surface = [r for r in REWRITES if r.strategy is None]
    while sim > target_similarity and steps < max_steps:
        rng.shuffle(surface)
        progress = False
        for rw in surface:
            if sim <= target_similarity or steps >= max_steps:
                break
            if rw.name == "rename_locals" and rw in applied:
                continue  # renaming renamed names only uglifies them
            got = attempt(rw)
            if got is not None:
                new_sim = surface_similarity(original, got)
                if new_sim < sim:
                    cur_text = got
                    sim = new_sim
                    applied.append(rw)
                    progress = True
        if not progress:
            break
    for rw in _LAST_RESORT if allow_docstring_removal else ():
        if sim <= target_similarity:
            break
        got = attempt(rw)
        if got is not None:
            cur_text = got
            sim = surface_similarity(original, cur_text)
            applied.append(rw)
    labels = {r.strategy for r in applied if r.strategy}
    return Variant(code=cur_text, original=original,
                   strategies=tuple(s for s in STRATEGIES if s in labels),
                   rewrites=tuple(r.name for r in applied), similarity=sim, rejected=tuple(rejected))
