"""Syntax-only AST helpers of the offline rewriter: walking one scope, parents and enclosing
scopes, bound and used names, annotations, small node builders and in-place node replacement,
plus the builtin-name tables the rules' safety checks consult. Nothing here executes code.
"""

from __future__ import annotations

import ast
import builtins
from collections.abc import Iterable, Iterator

BUILTINS = frozenset(dir(builtins))
FUNC = (ast.FunctionDef, ast.AsyncFunctionDef)
SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
_DYNAMIC = frozenset({"locals", "globals", "vars", "eval", "exec", "__import__", "compile", "dir"})
PURE_BUILTINS = frozenset({
    "abs", "all", "any", "bin", "bool", "chr", "divmod", "enumerate", "float", "hash", "hex", "int",
    "isinstance", "len", "list", "max", "min", "oct", "ord", "pow", "range", "repr", "reversed",
    "round", "set", "sorted", "str", "sum", "tuple", "zip", "frozenset", "dict", "print", "input",
})
NON_MUTATING_METHODS = frozenset({
    "count", "index", "get", "keys", "values", "items", "copy", "startswith", "endswith", "lower",
    "upper", "strip", "lstrip", "rstrip", "split", "rsplit", "splitlines", "join", "find", "rfind",
    "replace", "isdigit", "isalpha", "isalnum", "isspace", "isupper", "islower", "istitle",
    "format", "title", "capitalize", "swapcase", "zfill", "center", "ljust", "rjust", "partition",
    "rpartition", "encode", "decode", "casefold", "isnumeric", "isdecimal", "translate",
    "bit_length", "conjugate", "issubset", "issuperset", "union", "intersection", "difference",
    "symmetric_difference", "isdisjoint", "most_common", "expandtabs", "removeprefix",
    "removesuffix", "rindex",
})
SCALAR_CALLS = frozenset({"len", "int", "float", "abs", "ord", "chr", "str", "bool", "round",
                           "sum", "hash", "repr", "bin", "hex", "oct"})


def walk_scope(node: ast.AST) -> Iterator[ast.AST]:
    """Nodes of one scope: do not descend into nested functions, lambdas or classes (their
    def/lambda/class node itself is yielded)."""
    stack = list(ast.iter_child_nodes(node))
    while stack:
        n = stack.pop()
        yield n
        if not isinstance(n, SCOPES):
            stack.extend(ast.iter_child_nodes(n))


def walk_many(nodes: Iterable[ast.AST]) -> Iterator[ast.AST]:
    for n in nodes:
        yield from ast.walk(n)


def parent_map(tree: ast.AST) -> dict[int, ast.AST]:
    return {id(c): p for p in ast.walk(tree) for c in ast.iter_child_nodes(p)}


def ancestors(node: ast.AST, parents: dict[int, ast.AST]) -> Iterator[ast.AST]:
    while id(node) in parents:
        node = parents[id(node)]
        yield node


def scope_of(node: ast.AST, parents: dict[int, ast.AST]) -> ast.AST:
    for a in ancestors(node, parents):
        if isinstance(a, (*SCOPES, ast.Module)):
            return a
    raise AssertionError("node outside module")


def guarded(node: ast.AST, parents: dict[int, ast.AST]) -> bool:
    """True when an exception raised at ``node`` could be caught inside its own scope."""
    for a in ancestors(node, parents):
        if isinstance(a, (*SCOPES, ast.Module)):
            return False
        if isinstance(a, (ast.Try, ast.With, ast.AsyncWith, ast.TryStar)):
            return True
    return False


def stmt_lists(tree: ast.AST) -> Iterator[tuple[ast.AST, list[ast.stmt]]]:
    for node in ast.walk(tree):
        for fld in ("body", "orelse", "finalbody"):
            val = getattr(node, fld, None)
            if isinstance(val, list) and val and isinstance(val[0], ast.stmt):
                yield node, val


def assigned_names(node: ast.AST | list) -> set[str]:
    nodes = node if isinstance(node, list) else [node]
    return {n.id for n in walk_many(nodes) if isinstance(n, ast.Name)}


def binding_name(n: ast.AST) -> str | None:
    """The name a definition-like node binds (argument, def/class, import alias, except/match
    target), or None."""
    if isinstance(n, ast.arg):
        return n.arg
    if isinstance(n, (*FUNC, ast.ClassDef)):
        return n.name
    if isinstance(n, ast.alias):
        return (n.asname or n.name).split(".")[0]
    if isinstance(n, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)):
        return n.name or None
    if isinstance(n, ast.MatchMapping):
        return n.rest or None
    return None


def all_identifiers(tree: ast.AST) -> set[str]:
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
        elif (name := binding_name(n)) is not None:
            out.add(name)
    return out


def bound_anywhere(tree: ast.AST) -> set[str]:
    out: set[str] = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load):
            out.add(n.id)
        elif (name := binding_name(n)) is not None:
            out.add(name)
    return out


def has(nodes: ast.AST | list, *types: type) -> bool:
    nodes = nodes if isinstance(nodes, list) else [nodes]
    return any(isinstance(n, types) for n in walk_many(nodes))


def dynamic(tree: ast.AST) -> bool:
    return any((isinstance(n, ast.Name) and n.id in _DYNAMIC)
               or (isinstance(n, ast.Attribute) and n.attr in ("__dict__", "f_locals", "f_globals"))
               for n in ast.walk(tree))


def declared_anywhere(tree: ast.AST) -> set[str]:
    """Names in any ``global``/``nonlocal`` statement: other scopes may rebind them."""
    return {x for n in ast.walk(tree) if isinstance(n, (ast.Global, ast.Nonlocal)) for x in n.names}


def captured_names(scope_node: ast.AST) -> set[str]:
    """Names read or written inside a function, lambda or class nested in ``scope_node``: a
    closure (or, at module level, any function reading a global) may observe them at any call."""
    out: set[str] = set()
    for n in walk_scope(scope_node):
        if isinstance(n, SCOPES):
            out |= assigned_names(n) | {x for m in ast.walk(n) if isinstance(m, (ast.Global, ast.Nonlocal)) for x in m.names}
    return out


def ann_name(ann: ast.AST | None) -> str | None:
    if isinstance(ann, ast.Name):
        return ann.id
    if isinstance(ann, ast.Attribute):
        return ann.attr
    if isinstance(ann, ast.Subscript):
        return ann_name(ann.value)
    if isinstance(ann, ast.Constant) and isinstance(ann.value, str):
        try:
            return ann_name(ast.parse(ann.value, mode="eval").body)
        except SyntaxError:
            return None
    return None


def call_name(node: ast.AST) -> str | None:
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        return node.func.id
    return None








def size(node: ast.AST) -> int:
    return sum(1 for _ in ast.walk(node))


def simple_expr(*nodes: ast.AST) -> bool:
    return not any(has(x, ast.NamedExpr, ast.Yield, ast.YieldFrom, ast.Await, ast.Lambda) for x in nodes)


def positional_only_callers(tree: ast.Module, name: str) -> bool:
    """Every reference to top-level function ``name`` in the module is a direct call without
    keyword arguments (so its parameter names are unobservable from inside the module)."""
    parents = parent_map(tree)
    for n in ast.walk(tree):
        if isinstance(n, ast.Name) and n.id == name:
            p = parents.get(id(n))
            if not (isinstance(p, ast.Call) and p.func is n and not p.keywords):
                return False
    return True


def simple_params(fn: ast.FunctionDef) -> bool:
    a = fn.args
    return not (a.posonlyargs or a.vararg or a.kwonlyargs or a.kwarg or a.defaults or a.kw_defaults)


def const_int(e: ast.AST) -> int | None:
    if isinstance(e, ast.Constant) and type(e.value) is int:
        return e.value
    if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.USub) and isinstance(e.operand, ast.Constant) \
            and type(e.operand.value) is int:
        return -e.operand.value
    return None


def test_context(node: ast.AST, parents: dict[int, ast.AST]) -> bool:
    """Only the truth value of ``node`` is used (an if/while/assert test, a comprehension
    condition, the operand of ``not``, or an operand of and/or in such a context)."""
    p = parents.get(id(node))
    if isinstance(p, (ast.If, ast.While, ast.IfExp, ast.Assert)) and p.test is node:
        return True
    if isinstance(p, ast.comprehension) and any(c is node for c in p.ifs):
        return True
    if isinstance(p, ast.UnaryOp) and isinstance(p.op, ast.Not):
        return True
    return isinstance(p, ast.BoolOp) and test_context(p, parents)


def name_node(x: str, store: bool = False) -> ast.Name:
    return ast.Name(x, ast.Store() if store else ast.Load())


def assign(x: str, value: ast.expr) -> ast.Assign:
    return ast.Assign(targets=[name_node(x, True)], value=value)


def call_node(fn: str, *args: ast.expr) -> ast.Call:
    return ast.Call(func=name_node(fn), args=list(args), keywords=[])


def replace(old: ast.AST, new: ast.AST, parents: dict[int, ast.AST]) -> None:
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


def side_effect_free(e: ast.AST) -> bool:
    """A keyword value whose evaluation cannot run code: constant, name, lambda, ``a.b``."""
    return isinstance(e, (ast.Constant, ast.Name, ast.Lambda)) or (
        isinstance(e, ast.Attribute) and isinstance(e.value, ast.Name))
