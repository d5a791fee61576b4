"""Scope analysis for the rewriter's safety checks: :class:`_Scope` (what is bound in one
function or module scope, and which names provably hold strings, ints, hashable or immutable
values), the per-tree :class:`_ScopeCache`, mutation checks and condition negation.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence

from .astutil import (
    BUILTINS,
    FUNC,
    NON_MUTATING_METHODS,
    PURE_BUILTINS,
    SCALAR_CALLS,
    SCOPES,
    ann_name,
    bound_anywhere,
    call_name,
    declared_anywhere,
    parent_map,
    scope_of,
    walk_many,
    walk_scope,
)

_STR_METHODS = frozenset({
    "lower", "upper", "strip", "lstrip", "rstrip", "join", "replace", "format", "title",
    "capitalize", "swapcase", "zfill", "center", "ljust", "rjust", "casefold", "expandtabs",
    "removeprefix", "removesuffix", "translate",
})
_SEQ_ANNOTATIONS = frozenset({"list", "List", "str", "tuple", "Tuple", "Sequence", "bytes"})
_INT_BINOPS = (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv, ast.Mod, ast.LShift, ast.RShift, ast.BitAnd, ast.BitOr,
               ast.BitXor)
_INT_CALLS = frozenset({"len", "int", "ord", "hash", "bool"})
_INT_METHODS = frozenset({"count", "find", "rfind", "index", "rindex"})


def _params(fn: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> list[ast.arg]:
    a = fn.args
    out = [*a.posonlyargs, *a.args, *a.kwonlyargs]
    if a.vararg:
        out.append(a.vararg)
    if a.kwarg:
        out.append(a.kwarg)
    return out


class Scope:
    """Facts about one scope (a function or the module), ignoring nested scopes."""

    def __init__(self, node: ast.AST, tree: ast.Module):
        self.node = node
        self.tree = tree
        self.bound_in_tree = bound_anywhere(tree)
        self.params: dict[str, ast.arg] = {p.arg: p for p in _params(node)} if isinstance(node, FUNC) else {}
        self.bindings: dict[str, list[tuple[str, ast.AST]]] = {}
        self.declared: set[str] = set()
        for n in walk_scope(node):
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
            elif isinstance(n, (*FUNC, ast.ClassDef)):
                self._add(n.name, "other", n)
            elif isinstance(n, ast.alias):
                self._add((n.asname or n.name).split(".")[0], "other", n)
            elif isinstance(n, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)) and n.name:
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

    def builtin(self, name: str | None) -> bool:
        # ``None`` (no call name: see _call_name) is never a builtin
        return name in BUILTINS and name not in self.bound_in_tree

    # -- str inference (greatest fixpoint over this scope's bindings)
    def str_names(self) -> set[str]:
        if self._str is not None:
            return self._str
        cand = set(self.bindings) | set(self.params)
        cand -= self.declared
        cand = {n for n in cand if n not in self.params or ann_name(self.params[n].annotation) == "str"}
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
            return isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Add) and self.is_str(node.value, env)
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
            name = call_name(e)
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
        name = call_name(e)
        return name in ("int", "len", "ord", "bool", "float", "hash", "str", "chr") and self.builtin(name)

    # -- int inference (greatest fixpoint, like the str inference)
    def int_names(self) -> set[str]:
        """Names that only ever hold an ``int`` (or ``bool``) in this scope: every binding is an
        int-valued expression, an integer augmented assignment or a loop over ``range``.
        Parameters count only when annotated ``int``/``bool`` (the input contract). Names in any
        ``global``/``nonlocal`` statement of the module are excluded."""
        if self._int is not None:
            return self._int
        anywhere = declared_anywhere(self.tree)
        cand = {n for n in self.bindings if n not in self.params}
        cand |= {p for p, arg in self.params.items() if ann_name(arg.annotation) in ("int", "bool")
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
            return (isinstance(node, ast.AugAssign) and isinstance(node.op, _INT_BINOPS)
                    and self.is_int(node.value, env))
        if kind == "for":
            return call_name(node) == "range" and self.builtin("range")
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
            name = call_name(e)
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
            return not binds and ann_name(self.params[name].annotation) in _SEQ_ANNOTATIONS
        if not binds:
            return False
        for kind, node in binds:
            if kind != "assign":
                return False
            if isinstance(node, (ast.List, ast.ListComp, ast.Tuple)) or self.is_str(node):
                continue
            cname = call_name(node)
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
            ann_name(self.params[name].annotation) in ("str", "tuple", "Tuple", "bytes")

    def scalar_names(self) -> set[str]:
        cand = {n for n in self.bindings if n not in self.params and n not in self.declared}
        changed = True
        while changed:
            changed = False
            for name in sorted(cand):
                for kind, node in self.bindings[name]:
                    if kind == "assign" and self._is_scalar(node, cand):
                        continue
                    if kind == "aug" and isinstance(node, ast.AugAssign) \
                            and not isinstance(node.op, (ast.BitOr, ast.BitAnd, ast.BitXor)):
                        continue  # number/str += x stays a number/str (barring exotic __radd__)
                    if kind == "for" and (call_name(node) == "range" or self.is_str(node)):
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
        name = call_name(e)
        if name in SCALAR_CALLS and self.builtin(name):
            return True
        return self.is_str(e)


def mutation_free(name: str, region: Sequence[ast.AST], scope: Scope) -> bool:
    """No statement in ``region`` can rebind or mutate the object bound to ``name``."""
    immutable = scope.is_immutable(name)
    scalars = None
    for n in walk_many(region):
        if isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Load):
            return False
        if isinstance(n, (ast.Global, ast.Nonlocal, ast.Yield, ast.YieldFrom, ast.Await, *SCOPES)):
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
            cname = call_name(n)
            if cname is not None:
                if not (cname in PURE_BUILTINS and scope.builtin(cname)):
                    return False
                if any(not isinstance(k.value, (ast.Constant, ast.Lambda)) for k in n.keywords):
                    return False
            elif not (isinstance(n.func, ast.Attribute) and n.func.attr in NON_MUTATING_METHODS):
                return False
    return True


_FLIP_ALWAYS = {ast.In: ast.NotIn, ast.NotIn: ast.In, ast.Is: ast.IsNot, ast.IsNot: ast.Is}
_FLIP_EQ = {ast.Eq: ast.NotEq, ast.NotEq: ast.Eq}
_FLIP_ORDER = {ast.Lt: ast.GtE, ast.GtE: ast.Lt, ast.Gt: ast.LtE, ast.LtE: ast.Gt}


def negate(test: ast.expr, scope: Scope | None = None) -> ast.expr:
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
            if op in _FLIP_EQ and all(i or t for i, t in zip(ints, strs, strict=False)):
                flip = _FLIP_EQ[op]
            elif op in _FLIP_ORDER and (all(ints) or all(strs)):
                flip = _FLIP_ORDER[op]
        if flip is not None:
            return ast.Compare(left=a, ops=[flip()], comparators=[b])
    return ast.UnaryOp(op=ast.Not(), operand=test)


def is_list(name: str, scope: Scope) -> bool:
    """``name`` is a list: a parameter annotated ``list``/``List`` never rebound, or a local
    whose every binding is a list display/comprehension, ``list(...)`` or ``sorted(...)``."""
    if name in scope.declared or name in declared_anywhere(scope.tree):
        return False
    binds = scope.bindings.get(name, [])
    if name in scope.params:
        return not binds and ann_name(scope.params[name].annotation) in ("list", "List")
    if not binds:
        return False
    for kind, node in binds:
        if kind != "assign":
            return False
        if not (isinstance(node, (ast.List, ast.ListComp))
                or (call_name(node) in ("list", "sorted") and scope.builtin(call_name(node)))):
            return False
    return True


class ScopeCache:
    def __init__(self, tree: ast.Module):
        self.tree = tree
        self.parents = parent_map(tree)
        self.unsafe = declared_anywhere(tree)
        self._scopes: dict[int, Scope] = {}

    def node(self, n: ast.AST) -> ast.AST | None:
        """The function or module scope of ``n``; None inside a class body or lambda."""
        sn = scope_of(n, self.parents)
        return None if isinstance(sn, (ast.ClassDef, ast.Lambda)) else sn

    def scope(self, sn: ast.AST) -> Scope:
        if id(sn) not in self._scopes:
            self._scopes[id(sn)] = Scope(sn, self.tree)
        return self._scopes[id(sn)]

    def scope_at(self, n: ast.AST) -> Scope | None:
        sn = self.node(n)
        return None if sn is None else self.scope(sn)
