"""Rewrites for the paper's *memoization* and *data structures* strategies: caching pure
recursive functions, literal membership tests as sets, equality chains as membership tests.
"""

from __future__ import annotations

import ast

from .astutil import (
    FUNC,
    NON_MUTATING_METHODS,
    PURE_BUILTINS,
    SCALAR_CALLS,
    ann_name,
    call_name,
    has,
    parent_map,
    replace,
    scope_of,
    test_context,
    walk_many,
)
from .context import Ctx, RuleSet
from .scope import Scope, ScopeCache

#: this module's rewrites; registry.py puts them in the driver's order
RULES = RuleSet()
_HASHABLE_ANNOTATIONS = frozenset({"int", "float", "str", "bool", "bytes", "complex", "tuple",
                                   "Tuple", "frozenset", "FrozenSet", "Optional"})


def _ann_hashable(ann: ast.AST | None) -> bool:
    name = ann_name(ann)
    if name not in _HASHABLE_ANNOTATIONS:
        return False
    if isinstance(ann, ast.Subscript):
        inner = ann.slice.elts if isinstance(ann.slice, ast.Tuple) else [ann.slice]
        return all((isinstance(e, ast.Constant) and e.value is Ellipsis) or _ann_hashable(e) for e in inner)
    return True


def _is_pure_recursive(fn: ast.FunctionDef, tree: ast.Module) -> bool:
    scope = Scope(fn, tree)
    a = fn.args
    if fn.decorator_list or a.vararg or a.kwarg or a.kwonlyargs or not (a.posonlyargs or a.args):
        return False
    if any(not (isinstance(d, ast.Constant)) for d in a.defaults):
        return False
    body = fn.body
    if has(body, ast.Global, ast.Nonlocal, ast.Yield, ast.YieldFrom, ast.Await, ast.Lambda,
            *FUNC, ast.ClassDef, ast.NamedExpr, ast.Try, ast.With, ast.Raise, ast.Delete):
        return False
    calls_self = any(call_name(n) == fn.name for n in walk_many(body))
    if not calls_self:
        return False
    params = set(scope.params)
    locals_ = set(scope.bindings) - params
    if params & set(scope.bindings):
        return False  # parameters are never rebound
    for n in walk_many(body):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
            if n.id not in params | locals_ | {fn.name} and not (n.id in PURE_BUILTINS and scope.builtin(n.id)):
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
            if n.func.attr not in NON_MUTATING_METHODS and not (isinstance(base, ast.Name) and base.id in locals_):
                return False
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.keywords \
                and any(not isinstance(k.value, ast.Constant) for k in n.keywords):
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
    for n in walk_many(body):
        if isinstance(n, ast.Return) and n.value is not None and not _immutable_expr(n.value, env, scope, fn.name):
            return False
    return True


def _numeric_only(name: str, body: list[ast.stmt], fname: str) -> bool:
    parents = parent_map(ast.Module(body=body, type_ignores=[]))
    seen_numeric = False
    for n in walk_many(body):
        if not (isinstance(n, ast.Name) and n.id == name):
            continue
        p = parents.get(id(n))
        if isinstance(p, (ast.BinOp, ast.Compare, ast.UnaryOp)):
            others = [p.left, p.right] if isinstance(p, ast.BinOp) else \
                ([p.left, *p.comparators] if isinstance(p, ast.Compare) else [])
            if any(isinstance(o, ast.Constant) and type(o.value) in (int, float) for o in others):
                seen_numeric = True
            continue
        if isinstance(p, ast.Call) and call_name(p) in (fname, "range", "abs") and n in p.args:
            continue
        return False
    return seen_numeric


def _immutable_expr(e: ast.AST, env: set[str], scope: Scope, fname: str) -> bool:
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
    cname = call_name(e)
    if cname == fname:
        return True
    if cname in SCALAR_CALLS and scope.builtin(cname):
        return True
    if isinstance(e, ast.Call) and cname in ("min", "max") and scope.builtin(cname) and len(e.args) >= 2 \
            and not e.keywords:
        return all(_immutable_expr(v, env, scope, fname) for v in e.args)
    return scope.is_str(e)


@RULES("memoise_pure_recursive", "memoization")
def rw_memoise(tree: ast.Module, ctx: Ctx) -> bool:
    """Memoise pure, recursive module-level functions with a module-level dict keyed by the
    (type, value) of each argument; no wrapper, so recursion depth is unchanged."""
    changed = False
    for idx in range(len(tree.body) - 1, -1, -1):
        fn = tree.body[idx]
        if not isinstance(fn, ast.FunctionDef) or not _is_pure_recursive(fn, tree):
            continue
        if not Scope(fn, tree).builtin("type"):
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
        for n in walk_many(body):
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


@RULES("membership_literal_to_set", "data structures")
def rw_membership_literal(tree: ast.Module, ctx: Ctx) -> bool:
    """``x in [a, b, c]`` with constant elements -> a set literal when ``x`` is known hashable,
    else a tuple (identical semantics for lists of constants)."""
    parents = parent_map(tree)
    changed = False
    scopes: dict[int, Scope] = {}
    for n in list(ast.walk(tree)):
        if not (isinstance(n, ast.Compare) and len(n.ops) == 1 and isinstance(n.ops[0], (ast.In, ast.NotIn))
                and isinstance(n.comparators[0], ast.List)):
            continue
        lst = n.comparators[0]
        if (not lst.elts or not all(isinstance(e, ast.Constant) and not isinstance(e.value, (tuple, frozenset))
                                    and e.value is not Ellipsis for e in lst.elts)) \
                and (not lst.elts or not all(isinstance(e, ast.Constant) for e in lst.elts)):
            continue
        sc_node = scope_of(n, parents)
        if isinstance(sc_node, (ast.Lambda, ast.ClassDef)):
            sc_node = tree
        scope = scopes.setdefault(id(sc_node), Scope(sc_node, tree))
        hashable_elts = all(isinstance(e, ast.Constant) and isinstance(e.value, (str, int, bytes, bool, type(None)))
                            for e in lst.elts)
        if hashable_elts and scope.is_hashable(n.left):
            n.comparators[0] = ast.Set(elts=lst.elts)
        else:
            n.comparators[0] = ast.Tuple(elts=lst.elts, ctx=ast.Load())
        changed = True
    return changed


_EQ_CONSTANTS = (str, int, float, bytes, bool, type(None))


def _pure_operand(e: ast.AST, scope: Scope) -> bool:
    """Evaluating ``e`` twice or once is the same: a name, or an index into a list/str/tuple name."""
    if isinstance(e, ast.Name):
        return True
    return (isinstance(e, ast.Subscript) and isinstance(e.value, ast.Name) and scope.is_seq(e.value.id)
            and isinstance(e.slice, (ast.Name, ast.Constant)))


@RULES("equality_chain_to_membership", "data structures")
def rw_equality_chain_to_membership(tree: ast.Module, ctx: Ctx) -> bool:
    """``x == a or x == b ...`` -> ``x in {a, b}`` (``x != a and x != b`` -> ``not in``) for
    constants ``a, b``: a set when ``x`` is provably an int/str, else a tuple; outside a truth-value
    context only for provable ints/strs (both forms give a bool there)."""
    changed = False
    sc = ScopeCache(tree)
    for node in [n for n in ast.walk(tree) if isinstance(n, ast.BoolOp)]:
        sn = sc.node(node)
        if sn is None:
            continue
        scope = sc.scope(sn)
        cmp_op, new_op = (ast.Eq, ast.In) if isinstance(node.op, ast.Or) else (ast.NotEq, ast.NotIn)
        test_ctx = test_context(node, sc.parents)

        def key(v: ast.AST, cmp_op: type[ast.cmpop] = cmp_op, scope: Scope = scope) -> str | None:
            # this iteration's values, bound explicitly (called within the iteration only)
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
            cur = node.values[i]
            left = cur.left if kv is not None and isinstance(cur, ast.Compare) else None
            provable = left is not None and (scope.is_str(left) or scope.is_int(left))
            if j - i >= 2 and left is not None and (test_ctx or provable):  # left is set once two keys match
                elts = [c.comparators[0] for c in node.values[i:j] if isinstance(c, ast.Compare)]
                coll = ast.Set(elts) if provable else ast.Tuple(elts, ast.Load())
                values.append(ast.Compare(left, [new_op()], [coll]))
                changed = True
            else:
                values.extend(node.values[i:j])
            i = j
        if len(values) != len(node.values):
            if len(values) == 1:
                replace(node, values[0], sc.parents)
            else:
                node.values = values
    return changed
