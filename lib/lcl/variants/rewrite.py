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
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from rapidfuzz.distance import Levenshtein

from ..errors import UserError

__all__ = ["REWRITES", "STRATEGIES", "Variant", "optimise", "surface_similarity"]

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
_HASHABLE_ANNOTATIONS = frozenset({"int", "float", "str", "bool", "bytes", "complex", "tuple",
                                   "Tuple", "frozenset", "FrozenSet", "Optional"})


@dataclass(frozen=True)
class Variant:
    """An optimised variant. ``strategies`` are the paper's labels of the optimisation rewrites
    applied (empty when only surface rewrites applied: the paper's "None"); ``rewrites`` are the
    concrete rewrite names in application order; ``similarity`` is the normalised Levenshtein
    similarity between ``original`` (``ast.unparse`` of the reference) and ``code``."""

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


def _negate(test: ast.expr) -> ast.expr:
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return test.operand
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
            inner: list[ast.stmt] = [ast.Expr(ast.Call(func=ast.Attribute(ast.Name(r, ast.Load()), "append", ast.Load()),
                                                         args=[comp.elt], keywords=[]))]
            for g in reversed(comp.generators):
                for c in reversed(g.ifs):
                    inner = [ast.If(test=c, body=inner, orelse=[])]
                inner = [ast.For(target=g.target, iter=g.iter, body=inner, orelse=[])]
            stmts[k:k + 1] = [ast.Assign(targets=[ast.Name(r, ast.Store())], value=ast.List([], ast.Load())), *inner]
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
            guard_test, guard, rest = _negate(last.test), b, a
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
    _Rewrite("rename_locals", rw_rename_locals, None),
    _Rewrite("comprehension_to_loop", rw_comprehension_to_loop, None),
    _Rewrite("if_to_conditional_expression", rw_if_to_ifexp, None),
    _Rewrite("conditional_expression_to_if", rw_ifexp_to_if, None),
    _Rewrite("extract_helper", rw_extract_helper, None),
)
_LAST_RESORT = (_Rewrite("trim_docstring_examples", rw_trim_docstrings, None),
                _Rewrite("drop_docstrings", rw_drop_docstrings, None))


# ----------------------------------------------------------------------------- driver

def _signatures(tree: ast.Module) -> dict[str, str]:
    return {n.name: ast.dump(n.args) for n in tree.body if isinstance(n, _FUNC)}


def _validated(tree: ast.Module, required: dict[str, str]) -> str | None:
    try:
        ast.fix_missing_locations(tree)
        text = ast.unparse(tree)
        reparsed = ast.parse(text)
        compile(text, "<variant>", "exec", dont_inherit=True)
    except Exception:  # noqa: BLE001 - any failure means the rewrite is rejected
        return None
    sigs = _signatures(reparsed)
    if any(sigs.get(name) != sig for name, sig in required.items()):
        return None
    return text


def optimise(code: str, *, entry_point: str | None = None, seed: int = 0, target_similarity: float = 0.7,
             max_steps: int = 40, allow_docstring_removal: bool = True) -> Variant:
    """Rewrite ``code`` into a (conservatively) semantics-preserving optimised variant.

    First every applicable optimisation rewrite (labelled with a paper strategy) is applied, in
    an order drawn from ``seed``; then surface rewrites are composed, each kept only if it lowers
    the similarity to the original, until the similarity is below ``target_similarity`` or no
    rewrite applies. ``entry_point`` marks function-level code (its name and signature are kept,
    as are those of every top-level function); ``None`` means a stdin program.
    """
    try:
        tree = ast.parse(code)
    except SyntaxError as exc:
        raise UserError(f"reference does not parse: {exc}") from exc
    original = ast.unparse(tree)
    tree = ast.parse(original)
    required = _signatures(tree)
    if entry_point is not None and entry_point not in required:
        raise UserError(f"entry point {entry_point!r} is not a top-level function of the reference")
    rng = random.Random(seed)
    ctx = _Ctx(tree, entry_point, rng, program=entry_point is None)
    applied: list[_Rewrite] = []
    rejected: list[str] = []
    cur, cur_text, sim = tree, original, 1.0
    steps = 0

    def attempt(rw: _Rewrite) -> tuple[ast.Module, str] | None:
        nonlocal steps
        steps += 1
        cand = copy.deepcopy(cur)
        try:
            if not rw.fn(cand, ctx):
                return None
        except (RecursionError, AssertionError, AttributeError, TypeError, ValueError, IndexError, KeyError):
            rejected.append(rw.name)
            return None
        text = _validated(cand, required)
        if text is None:
            rejected.append(rw.name)
            return None
        return ast.parse(text), text

    optimisations = [r for r in REWRITES if r.strategy is not None]
    rng.shuffle(optimisations)
    for _ in range(3):
        progress = False
        for rw in optimisations:
            got = attempt(rw)
            if got and got[1] != cur_text:
                cur, cur_text = got
                applied.append(rw)
                progress = True
        if not progress:
            break
    sim = surface_similarity(original, cur_text)
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
            if got:
                new_sim = surface_similarity(original, got[1])
                if new_sim < sim:
                    cur, cur_text = got
                    sim = new_sim
                    applied.append(rw)
                    progress = True
        if not progress:
            break
    for rw in _LAST_RESORT if allow_docstring_removal else ():
        if sim <= target_similarity:
            break
        got = attempt(rw)
        if got:
            cur, cur_text = got
            sim = surface_similarity(original, cur_text)
            applied.append(rw)
    labels = {r.strategy for r in applied if r.strategy}
    return Variant(code=cur_text, original=original,
                   strategies=tuple(s for s in STRATEGIES if s in labels),
                   rewrites=tuple(r.name for r in applied), similarity=sim, rejected=tuple(rejected))
