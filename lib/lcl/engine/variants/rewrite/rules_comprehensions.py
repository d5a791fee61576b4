"""Rewrites between loops and comprehensions, reductions and generator expressions (the
paper's *hot path* and *algorithmic* strategies, and surface rewrites back the other way):
accumulate-then-join, loops to ``any``/``sum``, ``map`` to comprehensions, reductions to loops.
They change the set of AST node types (Sim_AST of Eq. 1) as well as the text.
"""

from __future__ import annotations

import ast

from .astutil import (
    FUNC,
    NON_MUTATING_METHODS,
    PURE_BUILTINS,
    SCOPES,
    assign,
    assigned_names,
    call_name,
    call_node,
    captured_names,
    dynamic,
    guarded,
    has,
    name_node,
    parent_map,
    replace,
    scope_of,
    side_effect_free,
    simple_expr,
    stmt_lists,
)
from .context import Ctx, RuleSet
from .scope import Scope, ScopeCache, negate

#: this module's rewrites; registry.py puts them in the driver's order
RULES = RuleSet()


def _only_in(names: set[str], inside: ast.AST, scope_node: ast.AST) -> bool:
    """Every occurrence of ``names`` in ``scope_node`` (including nested scopes) is inside ``inside``."""
    inner = {id(x) for x in ast.walk(inside)}
    for n in ast.walk(scope_node):
        if isinstance(n, ast.Name) and n.id in names and id(n) not in inner:
            return False
        if isinstance(n, (ast.Global, ast.Nonlocal)) and names & set(n.names):
            return False
    return True


@RULES("loop_to_comprehension", "hot path")
def rw_loop_to_comprehension(tree: ast.Module, ctx: Ctx) -> bool:
    """``r = []`` + ``for t in it: [if c:] r.append(e)`` -> ``r = [e for t in it [if c]]``."""
    changed = False
    parents = parent_map(tree)
    for _owner, stmts in list(stmt_lists(tree)):
        for k in range(len(stmts) - 2, -1, -1):
            init, loop = stmts[k], stmts[k + 1]
            if not (isinstance(init, ast.Assign) and len(init.targets) == 1 and isinstance(init.targets[0], ast.Name)):
                continue
            empty_list = isinstance(init.value, ast.List) and not init.value.elts
            empty_set = (isinstance(init.value, ast.Call) and call_name(init.value) == "set" and not init.value.args
                         and not init.value.keywords)
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
            if r in assigned_names(parts) or not simple_expr(*parts):
                continue
            scope_node = scope_of(loop, parents)
            if isinstance(scope_node, (ast.ClassDef, ast.Lambda)) or guarded(loop, parents):
                continue
            if is_set and not Scope(scope_node, tree).builtin("set"):
                continue
            if not _only_in(assigned_names(loop.target), loop, scope_node):
                continue
            if r in Scope(scope_node, tree).declared:
                continue
            gen = ast.comprehension(target=loop.target, iter=loop.iter, ifs=[cond] if cond is not None else [],
                                    is_async=0)
            comp = ast.SetComp(elt=elt, generators=[gen]) if is_set else ast.ListComp(elt=elt, generators=[gen])
            stmts[k:k + 2] = [ast.Assign(targets=[ast.Name(r, ast.Store())], value=comp)]
            changed = True
    return changed


@RULES("comprehension_to_loop", None)
def rw_comprehension_to_loop(tree: ast.Module, ctx: Ctx) -> bool:
    """``r = [e for t in it if c]`` (a statement) -> an explicit accumulating loop."""
    changed = False
    parents = parent_map(tree)
    for _owner, stmts in list(stmt_lists(tree)):
        for k in range(len(stmts) - 1, -1, -1):
            st = stmts[k]
            if not (isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name)
                    and isinstance(st.value, ast.ListComp)):
                continue
            comp = st.value
            r = st.targets[0].id
            if r in assigned_names(comp) or not simple_expr(comp) or any(g.is_async for g in comp.generators):
                continue
            if has([g.target for g in comp.generators], ast.Starred):
                continue
            scope_node = scope_of(st, parents)
            if isinstance(scope_node, (ast.ClassDef, ast.Lambda)) or guarded(st, parents):
                continue
            targets = set().union(*(assigned_names(g.target) for g in comp.generators))
            if not _only_in(targets, st, scope_node) or r in Scope(scope_node, tree).declared:
                continue
            append = ast.Expr(ast.Call(func=ast.Attribute(ast.Name(r, ast.Load()), "append", ast.Load()),
                                       args=[comp.elt], keywords=[]))
            stmts[k:k + 1] = [ast.Assign(targets=[ast.Name(r, ast.Store())], value=ast.List([], ast.Load())),
                              *_nested_loops(comp.generators, [append])]
            changed = True
    return changed


@RULES("accumulate_then_join", "algorithmic")
def rw_string_join(tree: ast.Module, ctx: Ctx) -> bool:
    """``s = ''`` + loop doing ``s += e`` (``e`` provably a str) -> accumulate parts, then
    ``s = ''.join(parts)`` after the loop."""
    changed = False
    parents = parent_map(tree)
    for _owner, stmts in list(stmt_lists(tree)):
        for k in range(len(stmts) - 2, -1, -1):
            init, loop = stmts[k], stmts[k + 1]
            if not (isinstance(init, ast.Assign) and len(init.targets) == 1 and isinstance(init.targets[0], ast.Name)
                    and isinstance(init.value, ast.Constant) and isinstance(init.value.value, str)):
                continue
            if not (isinstance(loop, (ast.For, ast.While)) and not loop.orelse):
                continue
            s = init.targets[0].id
            scope_node = scope_of(loop, parents)
            if isinstance(scope_node, (ast.ClassDef, ast.Lambda)) or guarded(loop, parents):
                continue
            scope = Scope(scope_node, tree)
            if s in scope.declared:
                continue
            updates: list[tuple[list[ast.stmt], int, ast.expr]] = []
            ok = True

            # this iteration's values, bound explicitly (called within the iteration only)
            def visit(body: list[ast.stmt], s: str = s, scope: Scope = scope,
                      updates: list[tuple[list[ast.stmt], int, ast.expr]] = updates) -> None:
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
                        if s in assigned_names(val) or not scope.is_str(val) or not simple_expr(val):
                            ok = False
                        updates.append((body, i, val))
                    elif isinstance(b, ast.If):
                        if s in assigned_names(b.test):
                            ok = False
                        visit(b.body)
                        visit(b.orelse)
                    elif s in assigned_names(b) or has(b, *SCOPES):
                        ok = False

            visit(loop.body)
            header = [loop.target, loop.iter] if isinstance(loop, ast.For) else [loop.test]
            if not ok or not updates or s in assigned_names(header):
                continue
            parts = ctx.fresh("parts")
            for body, i, val in updates:
                body[i] = ast.Expr(ast.Call(func=ast.Attribute(ast.Name(parts, ast.Load()), "append", ast.Load()),
                                            args=[val], keywords=[]))
            start: list[ast.expr] = [init.value] if init.value.value else []
            stmts[k:k + 2] = [
                ast.Assign(targets=[ast.Name(parts, ast.Store())], value=ast.List(start, ast.Load())),
                loop,
                ast.Assign(targets=[ast.Name(s, ast.Store())],
                           value=ast.Call(func=ast.Attribute(ast.Constant(""), "join", ast.Load()),
                                          args=[ast.Name(parts, ast.Load())], keywords=[])),
            ]
            changed = True
    return changed


@RULES("loop_to_any", "algorithmic")
def rw_any_all(tree: ast.Module, ctx: Ctx) -> bool:
    """``for t in it: if c: return True`` + ``return False`` -> ``return any(c for t in it)``
    (and the ``False``/``True`` form -> ``return not any(...)``)."""
    changed = False
    parents = parent_map(tree)
    for _owner, stmts in list(stmt_lists(tree)):
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
            scope_node = scope_of(loop, parents)
            if not isinstance(scope_node, FUNC):
                continue
            cond = loop.body[0].test
            if not simple_expr(loop.target, loop.iter, cond) or not Scope(scope_node, tree).builtin("any"):
                continue
            gen = ast.GeneratorExp(elt=cond, generators=[ast.comprehension(loop.target, loop.iter, [], 0)])
            call: ast.expr = ast.Call(func=ast.Name("any", ast.Load()), args=[gen], keywords=[])
            if inner.value is False:
                call = ast.UnaryOp(ast.Not(), call)
            stmts[k:k + 2] = [ast.Return(call)]
            changed = True
    return changed


_NO_STOP_ITERATION_CALLS = (PURE_BUILTINS - {"print", "input"}) | {"iter", "map", "filter"}


def _no_stop_iteration(node: ast.AST, scope: Scope) -> bool:
    """Every call in ``node`` is an unshadowed pure builtin or a non-mutating method, so no
    ``StopIteration`` can escape it (a generator turns one into ``RuntimeError``, a list
    comprehension does not). No walrus/yield/await either."""
    for n in ast.walk(node):
        if isinstance(n, (ast.NamedExpr, ast.Yield, ast.YieldFrom, ast.Await)):
            return False
        if isinstance(n, ast.Call):
            name = call_name(n)
            if name is not None:
                if not (name in _NO_STOP_ITERATION_CALLS and scope.builtin(name)):
                    return False
            elif not (isinstance(n.func, ast.Attribute) and n.func.attr in NON_MUTATING_METHODS):
                return False
    return True


def _consumer(call: ast.AST, scope: Scope) -> bool:
    """A call that materialises its only argument into a list before doing anything else:
    ``sorted``/``tuple``/``list`` (unshadowed) or ``'<sep>'.join``."""
    if not (isinstance(call, ast.Call) and len(call.args) == 1):
        return False
    name = call_name(call)
    if name in ("sorted", "tuple", "list") and scope.builtin(name):
        return name == "sorted" or not call.keywords
    f = call.func
    return (isinstance(f, ast.Attribute) and f.attr == "join" and isinstance(f.value, ast.Constant)
            and isinstance(f.value.value, str) and not call.keywords)


@RULES("comprehension_to_generator", None)
def rw_comprehension_to_generator(tree: ast.Module, ctx: Ctx) -> bool:
    """``''.join([e for ...])`` / ``sorted([...])`` / ``tuple([...])`` / ``list([...])`` -> the same
    call over a generator expression (each consumes it fully before anything else happens)."""
    changed = False
    sc = ScopeCache(tree)
    for node in list(ast.walk(tree)):
        if not (isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.ListComp)):
            continue
        sn = sc.node(node)
        if sn is None:
            continue
        scope = sc.scope(sn)
        comp = node.args[0]
        if not _consumer(node, scope) or not all(side_effect_free(kw.value) for kw in node.keywords) \
                or not _no_stop_iteration(comp, scope):
            continue
        node.args[0] = ast.GeneratorExp(elt=comp.elt, generators=comp.generators)
        changed = True
    return changed


@RULES("generator_to_comprehension", None)
def rw_generator_to_comprehension(tree: ast.Module, ctx: Ctx) -> bool:
    """``list(e for ...)`` -> ``[e for ...]``, ``set(e for ...)`` -> ``{e for ...}``, and the
    generator argument of ``''.join``/``sorted``/``tuple`` -> a list comprehension."""
    changed = False
    sc = ScopeCache(tree)
    for node in list(ast.walk(tree)):
        if not (isinstance(node, ast.Call) and len(node.args) == 1 and isinstance(node.args[0], ast.GeneratorExp)
                and id(node) in sc.parents):
            continue
        sn = sc.node(node)
        if sn is None:
            continue
        scope = sc.scope(sn)
        gen = node.args[0]
        if not _no_stop_iteration(gen, scope) or not all(side_effect_free(kw.value) for kw in node.keywords):
            continue
        name = call_name(node)
        if name in ("list", "set") and scope.builtin(name) and not node.keywords:
            comp_cls = ast.ListComp if name == "list" else ast.SetComp
            replace(node, comp_cls(elt=gen.elt, generators=gen.generators), sc.parents)
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


@RULES("reduction_to_loop", None)
def rw_reduction_to_loop(tree: ast.Module, ctx: Ctx) -> bool:
    """``return any(c for ...)`` / ``all`` / ``not any`` / ``not all`` -> an explicit loop with an
    early return (same short-circuiting, one truth test per item); ``return sum(e for ...)`` with
    ``e`` provably an int -> an accumulating loop."""
    if dynamic(tree):
        return False
    changed = False
    sc = ScopeCache(tree)
    for _owner, stmts in list(stmt_lists(tree)):
        for k in range(len(stmts) - 1, -1, -1):
            st = stmts[k]
            if not isinstance(st, ast.Return) or st.value is None:
                continue
            val, negated = st.value, False
            if isinstance(val, ast.UnaryOp) and isinstance(val.op, ast.Not):
                val, negated = val.operand, True
            fn = call_name(val)
            if not isinstance(val, ast.Call) or fn not in ("any", "all", "sum") or len(val.args) != 1 or val.keywords \
                    or not isinstance(val.args[0], ast.GeneratorExp) or (negated and fn == "sum"):
                continue
            sn = sc.node(st)
            if not isinstance(sn, FUNC):
                continue
            scope = sc.scope(sn)
            gen = val.args[0]
            if not scope.builtin(fn) or any(g.is_async for g in gen.generators) or not simple_expr(gen):
                continue
            targets = set().union(*(assigned_names(g.target) for g in gen.generators))
            if not _only_in(targets, st, sn) or targets & sc.unsafe:
                continue
            if fn == "sum":
                if not scope.is_int(gen.elt):
                    continue
                acc = ctx.fresh(ctx.rng.choice(("total", "acc", "running")))
                loops = _nested_loops(gen.generators, [ast.AugAssign(name_node(acc, True), ast.Add(), gen.elt)])
                new = [assign(acc, ast.Constant(0)), *loops, ast.Return(name_node(acc))]
            else:
                hit = fn == "any"  # the value that stops the scan: any -> a true item, all -> a false one
                test = gen.elt if hit else negate(gen.elt, scope)
                result = hit != negated
                loops = _nested_loops(gen.generators, [ast.If(test=test, body=[ast.Return(ast.Constant(result))],
                                                              orelse=[])])
                new = [*loops, ast.Return(ast.Constant(not result))]
            stmts[k:k + 1] = new
            changed = True
    return changed


@RULES("count_loop_to_sum", "algorithmic")
def rw_count_loop_to_sum(tree: ast.Module, ctx: Ctx) -> bool:
    """``c = 0`` + ``for t in it: [if f:] c += e`` with ``e`` provably an int -> ``c = sum(e for
    t in it [if f])`` (integer addition is exact, so the order of additions is irrelevant)."""
    changed = False
    sc = ScopeCache(tree)
    for _owner, stmts in list(stmt_lists(tree)):
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
            if c in assigned_names(parts) or not simple_expr(*parts):
                continue
            sn = sc.node(loop)
            if sn is None or guarded(loop, sc.parents) or c in sc.unsafe or c in captured_names(sn):
                continue
            scope = sc.scope(sn)
            if not scope.builtin("sum") or c in scope.declared or not _only_in(assigned_names(loop.target), loop, sn):
                continue
            if not scope.is_int(stmt.value):
                continue
            gen = ast.GeneratorExp(elt=stmt.value, generators=[ast.comprehension(
                target=loop.target, iter=loop.iter, ifs=[cond] if cond is not None else [], is_async=0)])
            stmts[k:k + 2] = [assign(c, call_node("sum", gen))]
            changed = True
    return changed


@RULES("return_comprehension_to_loop", None)
def rw_return_comprehension_to_loop(tree: ast.Module, ctx: Ctx) -> bool:
    """``return [e for t in it if c]`` -> build the list with an explicit loop, then return it."""
    changed = False
    sc = ScopeCache(tree)
    for _owner, stmts in list(stmt_lists(tree)):
        for k in range(len(stmts) - 1, -1, -1):
            st = stmts[k]
            if not (isinstance(st, ast.Return) and isinstance(st.value, ast.ListComp)):
                continue
            comp = st.value
            sn = sc.node(st)
            if not isinstance(sn, FUNC) or not simple_expr(comp) or any(g.is_async for g in comp.generators):
                continue
            targets = set().union(*(assigned_names(g.target) for g in comp.generators))
            if not _only_in(targets, st, sn) or targets & sc.unsafe:
                continue
            r = ctx.fresh(ctx.rng.choice(("result", "out", "collected")))
            append = ast.Expr(ast.Call(func=ast.Attribute(name_node(r), "append", ast.Load()), args=[comp.elt],
                                       keywords=[]))
            stmts[k:k + 1] = [assign(r, ast.List([], ast.Load())), *_nested_loops(comp.generators, [append]),
                              ast.Return(name_node(r))]
            changed = True
    return changed


_MAP_SAFE = frozenset({"int", "str", "float", "abs", "len", "ord", "chr", "bool", "round", "sorted", "list", "tuple",
                       "set", "frozenset", "repr", "hex", "oct", "bin"})
_ITER_CONSUMERS = frozenset({"list", "tuple", "set", "sorted", "sum", "min", "max", "any", "all", "frozenset"})


@RULES("map_to_comprehension", None)
def rw_map_to_comprehension(tree: ast.Module, ctx: Ctx) -> bool:
    """``list(map(f, xs))`` -> ``[f(v) for v in xs]``; ``map(f, xs)`` consumed at once (a for
    loop, unpacking, ``sum``/``sorted``/...) -> a generator expression. ``f`` is an unshadowed
    builtin conversion (so nothing can raise ``StopIteration`` inside the generator)."""
    changed = False
    sc = ScopeCache(tree)
    for node in list(ast.walk(tree)):
        if not (isinstance(node, ast.Call) and call_name(node) == "map" and len(node.args) == 2 and not node.keywords
                and isinstance(node.args[0], ast.Name) and node.args[0].id in _MAP_SAFE
                and not isinstance(node.args[1], ast.Starred) and id(node) in sc.parents):
            continue
        scope = sc.scope_at(node)
        if scope is None or not scope.builtin("map") or not scope.builtin(node.args[0].id):
            continue
        p = sc.parents[id(node)]
        v = ctx.fresh(ctx.rng.choice(("v", "tok", "part")))
        elt = call_node(node.args[0].id, name_node(v))
        gens = [ast.comprehension(target=name_node(v, True), iter=node.args[1], ifs=[], is_async=0)]
        if isinstance(p, ast.Call) and call_name(p) == "list" and len(p.args) == 1 and not p.keywords \
                and scope.builtin("list") and id(p) in sc.parents:
            replace(p, ast.ListComp(elt=elt, generators=gens), sc.parents)
        elif ((isinstance(p, ast.Call) and call_name(p) in _ITER_CONSUMERS and scope.builtin(call_name(p))
               and len(p.args) == 1 and p.args[0] is node)
              or (isinstance(p, ast.For) and p.iter is node)
              or (isinstance(p, ast.Assign) and p.value is node and len(p.targets) == 1
                  and isinstance(p.targets[0], (ast.Tuple, ast.List)))):
            replace(node, ast.GeneratorExp(elt=elt, generators=gens), sc.parents)
        else:
            continue
        changed = True
    return changed
