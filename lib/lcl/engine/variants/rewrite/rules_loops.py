"""Rewrites of loop forms: ``range(len(...))`` and ``enumerate``, hoisting loop-invariant
``len`` calls, aliasing ``append``, and ``for`` loops as ``while`` loops (the paper's *hot path*
strategy, and surface rewrites).
"""

from __future__ import annotations

import ast
from collections.abc import Sequence

from .astutil import (
    FUNC,
    SCOPES,
    assign,
    assigned_names,
    binding_name,
    call_name,
    call_node,
    captured_names,
    const_int,
    has,
    name_node,
    parent_map,
    scope_of,
    stmt_lists,
    walk_many,
    walk_scope,
)
from .context import SYNONYMS, Ctx, RuleSet
from .scope import Scope, ScopeCache, is_list, mutation_free

#: this module's rewrites; registry.py puts them in the driver's order
RULES = RuleSet()


def _is_len_of(node: ast.AST, name: str) -> bool:
    return (isinstance(node, ast.Call) and call_name(node) == "len" and len(node.args) == 1 and not node.keywords
            and isinstance(node.args[0], ast.Name) and node.args[0].id == name)


@RULES("range_len_to_enumerate", "hot path")
def rw_range_len_enumerate(tree: ast.Module, ctx: Ctx) -> bool:
    """``for i in range(len(xs)): ... xs[i] ...`` -> ``for i, x in enumerate(xs): ... x ...``
    when ``xs`` is a list/str/tuple that the loop cannot mutate."""
    changed = False
    parents = parent_map(tree)
    for loop in [n for n in ast.walk(tree) if isinstance(n, ast.For)]:
        it = loop.iter
        if not (isinstance(loop.target, ast.Name) and isinstance(it, ast.Call) and call_name(it) == "range"
                and len(it.args) == 1
                and not it.keywords and isinstance(it.args[0], ast.Call) and call_name(it.args[0]) == "len"
                and len(it.args[0].args) == 1 and isinstance(it.args[0].args[0], ast.Name)):
            continue
        xs, i = it.args[0].args[0].id, loop.target.id
        scope_node = scope_of(loop, parents)
        if isinstance(scope_node, (ast.ClassDef, ast.Lambda)):
            continue
        scope = Scope(scope_node, tree)
        if not all(scope.builtin(b) for b in ("range", "len", "enumerate")) or not scope.is_seq(xs):
            continue
        if any(isinstance(n, ast.Name) and n.id == i and not isinstance(n.ctx, ast.Load)
               for n in walk_many(loop.body)):
            continue
        if not mutation_free(xs, loop.body, scope):
            continue
        uses = [n for n in walk_many(loop.body) if isinstance(n, ast.Subscript) and isinstance(n.ctx, ast.Load)
                and isinstance(n.value, ast.Name) and n.value.id == xs and isinstance(n.slice, ast.Name)
                and n.slice.id == i]
        if not uses:
            continue
        x = ctx.fresh(SYNONYMS.get(xs, [xs])[0][:-1] if xs.endswith("s") and len(xs) > 2 else "elem")
        use_ids = {id(u) for u in uses}

        class Repl(ast.NodeTransformer):
            def visit_Subscript(self, node: ast.Subscript, use_ids: set[int] = use_ids, x: str = x) -> ast.AST:
                # this iteration's values, bound explicitly (the transformer runs within the iteration only)
                if id(node) in use_ids:
                    return ast.Name(x, ast.Load())
                return self.generic_visit(node)

        loop.body = [Repl().visit(b) for b in loop.body]
        loop.target = ast.Tuple([ast.Name(i, ast.Store()), ast.Name(x, ast.Store())], ast.Store())
        loop.iter = ast.Call(func=ast.Name("enumerate", ast.Load()), args=[ast.Name(xs, ast.Load())], keywords=[])
        changed = True
    return changed


@RULES("hoist_loop_invariant_len", "hot path")
def rw_hoist_len(tree: ast.Module, ctx: Ctx) -> bool:
    """Hoist ``len(xs)`` out of a loop header/body into a variable before the loop, when ``xs``
    is a list/str/tuple the loop cannot rebind or mutate (so ``len`` cannot fail or change)."""
    changed = False
    parents = parent_map(tree)
    for _owner, stmts in list(stmt_lists(tree)):
        for k in range(len(stmts) - 1, -1, -1):
            loop = stmts[k]
            if not isinstance(loop, (ast.For, ast.While)) or loop.orelse:
                continue
            header = loop.iter if isinstance(loop, ast.For) else loop.test
            scope_node = scope_of(loop, parents)
            if isinstance(scope_node, (ast.ClassDef, ast.Lambda)):
                continue
            scope = Scope(scope_node, tree)
            if not scope.builtin("len"):
                continue
            names = sorted({n.args[0].id for n in ast.walk(header)
                            if isinstance(n, ast.Call) and call_name(n) == "len" and len(n.args) == 1
                            and isinstance(n.args[0], ast.Name)})
            region = [loop] if isinstance(loop, ast.While) else [*loop.body, loop.target]
            for xs in names:
                if not scope.is_seq(xs) or not mutation_free(xs, region, scope):
                    continue
                var = ctx.fresh(f"n_{xs}" if len(xs) > 1 else "length")
                targets = [n for n in ast.walk(loop) if _is_len_of(n, xs)]
                tids = {id(t) for t in targets}

                class Repl(ast.NodeTransformer):
                    def visit_Call(self, node: ast.Call, tids: set[int] = tids, var: str = var) -> ast.AST:
                        # this iteration's values, bound explicitly (the transformer runs within the iteration)
                        if id(node) in tids:
                            return ast.Name(var, ast.Load())
                        return self.generic_visit(node)

                Repl().visit(loop)
                stmts.insert(k, ast.Assign(targets=[ast.Name(var, ast.Store())],
                                           value=ast.Call(func=ast.Name("len", ast.Load()),
                                                          args=[ast.Name(xs, ast.Load())], keywords=[])))
                changed = True
    return changed


def _stores(name: str, nodes: Sequence[ast.AST]) -> bool:
    """``name`` is bound (assigned, deleted, a loop/with/except/import target...) somewhere in ``nodes``."""
    return any((isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Load))
               or binding_name(n) == name for n in walk_many(nodes))


def _plain_target(t: ast.AST) -> bool:
    """A loop target made only of names (possibly unpacked, starred)."""
    if isinstance(t, ast.Name):
        return True
    if isinstance(t, ast.Starred):
        return _plain_target(t.value)
    return isinstance(t, (ast.Tuple, ast.List)) and all(_plain_target(e) for e in t.elts)


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
        if isinstance(n, SCOPES):
            continue
        stack.extend(ast.iter_child_nodes(n))
    return False


def _dead_outside(name: str, loop: ast.AST, scope_node: ast.AST, unsafe: set[str]) -> bool:
    """Every occurrence of ``name`` in the scope outside ``loop`` is in the target or body of
    another ``for name in ...`` loop that does not enclose ``loop`` (which rebinds ``name`` before
    reading it), so the value ``loop`` leaves in ``name`` is never read."""
    if name in unsafe or name in captured_names(scope_node):
        return False
    inside = {id(x) for x in ast.walk(loop)}
    covered: set[int] = set()
    for other in walk_scope(scope_node):
        if (isinstance(other, ast.For) and other is not loop and isinstance(other.target, ast.Name)
                and other.target.id == name and id(loop) not in {id(x) for x in ast.walk(other)}):
            covered |= {id(x) for x in walk_many([other.target, *other.body])}
    return not any(isinstance(n, ast.Name) and n.id == name and id(n) not in inside and id(n) not in covered
                   for n in walk_scope(scope_node))


def _seq_expr(e: ast.AST, scope: Scope) -> bool:
    """``e`` provably evaluates to a fresh or existing list/str/tuple."""
    if isinstance(e, ast.Name):
        return scope.is_seq(e.id)
    if isinstance(e, (ast.List, ast.Tuple, ast.ListComp)) or scope.is_str(e):
        return True
    name = call_name(e)
    if name in ("sorted", "list", "tuple", "str") and scope.builtin(name):
        return True
    if isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute) \
            and e.func.attr in ("split", "rsplit", "splitlines") and scope.is_str(e.func.value):
        return True
    return isinstance(e, ast.Subscript) and isinstance(e.slice, ast.Slice) and _seq_expr(e.value, scope)


def _range_while(loop: ast.For, scope: Scope, sn: ast.AST, ctx: Ctx, unsafe: set[str]) -> list[ast.stmt] | None:
    it = loop.iter
    if not (isinstance(loop.target, ast.Name) and isinstance(it, ast.Call) and call_name(it) == "range"
            and scope.builtin("range")
            and 1 <= len(it.args) <= 3 and not it.keywords):
        return None
    if any(isinstance(a, ast.Starred) for a in it.args) or has(it, ast.NamedExpr, ast.Yield, ast.YieldFrom,
                                                                    ast.Await):
        return None
    step = 1 if len(it.args) < 3 else const_int(it.args[2])
    if not step:
        return None
    start, stop = (ast.Constant(0), it.args[0]) if len(it.args) == 1 else (it.args[0], it.args[1])
    i = loop.target.id
    natural = (not loop.orelse and not _loop_continues(loop.body) and not _stores(i, loop.body)
               and i not in assigned_names(stop) and _dead_outside(i, loop, sn, unsafe))
    counter = i if natural else ctx.fresh(ctx.rng.choice(("k", "pos", "cursor")))
    pre: list[ast.stmt] = []
    if not all(scope.is_int(a) for a in it.args[:2]):
        # bounds not provably ints: let ``range`` itself convert them (``__index__``) and raise
        # exactly as before, then count from its start to its stop
        span = ctx.fresh(ctx.rng.choice(("span", "bounds", "rng")))
        pre.append(assign(span, it))
        start = ast.Attribute(name_node(span), "start", ast.Load())
        stop = ast.Attribute(name_node(span), "stop", ast.Load())
    pre.append(assign(counter, start))
    if not (isinstance(stop, ast.Constant) or (isinstance(stop, ast.Name) and stop.id not in unsafe
                                               and stop.id != counter and not _stores(stop.id, [loop]))
            or isinstance(stop, ast.Attribute)):
        var = ctx.fresh(ctx.rng.choice(("stop", "limit", "bound")))
        pre.append(assign(var, stop))
        stop = name_node(var)
    test = ast.Compare(name_node(counter), [ast.Lt() if step > 0 else ast.Gt()], [stop])
    incr = ast.AugAssign(name_node(counter, True), ast.Add() if step > 0 else ast.Sub(), ast.Constant(abs(step)))
    if natural:
        loop.body.append(incr)
    else:
        loop.body[0:0] = [assign(i, name_node(counter)), incr]
    return [*pre, ast.While(test=test, body=loop.body, orelse=loop.orelse)]


def _seq_while(loop: ast.For, scope: Scope, ctx: Ctx, unsafe: set[str]) -> list[ast.stmt] | None:
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
        if not _seq_expr(loop.iter, scope) or has(loop.iter, ast.NamedExpr):
            return None
        seq = ctx.fresh("chars" if scope.is_str(loop.iter) else ctx.rng.choice(("seq", "items")))
        pre.append(assign(seq, loop.iter))
    k = ctx.fresh(ctx.rng.choice(("idx", "pos", "k")))
    loop.body[0:0] = [ast.Assign(targets=[loop.target], value=ast.Subscript(name_node(seq), name_node(k), ast.Load())),
                      ast.AugAssign(name_node(k, True), ast.Add(), ast.Constant(1))]
    test = ast.Compare(name_node(k), [ast.Lt()], [call_node("len", name_node(seq))])
    return [*pre, assign(k, ast.Constant(0)), ast.While(test=test, body=loop.body, orelse=loop.orelse)]


@RULES("for_to_while", None)
def rw_for_to_while(tree: ast.Module, ctx: Ctx) -> bool:
    """``for i in range(a, b[, c])`` (int bounds, constant step) and ``for x in xs`` (``xs`` a
    list/str/tuple) -> ``while`` loops with an explicit index."""
    changed = False
    sc = ScopeCache(tree)
    for _owner, stmts in list(stmt_lists(tree)):
        for k in range(len(stmts) - 1, -1, -1):
            loop = stmts[k]
            if not isinstance(loop, ast.For) or not _plain_target(loop.target):
                continue
            sn = sc.node(loop)
            if sn is None:
                continue
            scope = sc.scope(sn)
            new = _range_while(loop, scope, sn, ctx, sc.unsafe)
            if new is None and call_name(loop.iter) != "range":
                new = _seq_while(loop, scope, ctx, sc.unsafe)
            if new is not None:
                stmts[k:k + 1] = new
                changed = True
    return changed


@RULES("enumerate_to_range_len", None)
def rw_enumerate_to_range_len(tree: ast.Module, ctx: Ctx) -> bool:
    """``for i, x in enumerate(xs):`` -> ``for i in range(len(xs)): x = xs[i]`` when ``xs`` is a
    list/str/tuple the loop cannot rebind or mutate."""
    changed = False
    sc = ScopeCache(tree)
    for loop in [n for n in ast.walk(tree) if isinstance(n, ast.For)]:
        t, it = loop.target, loop.iter
        if not (isinstance(t, ast.Tuple) and len(t.elts) == 2 and isinstance(t.elts[0], ast.Name)
                and isinstance(t.elts[1], ast.Name) and t.elts[0].id != t.elts[1].id and isinstance(it, ast.Call)
                and call_name(it) == "enumerate" and len(it.args) == 1
                and not it.keywords and isinstance(it.args[0], ast.Name)):
            continue
        sn = sc.node(loop)
        if sn is None:
            continue
        scope = sc.scope(sn)
        xs = it.args[0].id
        if not all(scope.builtin(b) for b in ("enumerate", "range", "len")) or not scope.is_seq(xs) \
                or xs in sc.unsafe or xs in (t.elts[0].id, t.elts[1].id) or not mutation_free(xs, loop.body, scope):
            continue
        i, x = t.elts[0].id, t.elts[1].id
        loop.body.insert(0, assign(x, ast.Subscript(name_node(xs), name_node(i), ast.Load())))
        loop.target = name_node(i, True)
        loop.iter = call_node("range", call_node("len", name_node(xs)))
        changed = True
    return changed


@RULES("alias_append", "hot path")
def rw_alias_append(tree: ast.Module, ctx: Ctx) -> bool:
    """Hot loop appending to a local list ``r`` (bound earlier in the same block, never rebound
    in the loop) -> ``add = r.append`` before the loop and ``add(x)`` inside it."""
    changed = False
    sc = ScopeCache(tree)
    for _owner, stmts in list(stmt_lists(tree)):
        for k in range(len(stmts) - 1, 0, -1):
            loop = stmts[k]
            if not isinstance(loop, (ast.For, ast.While)):
                continue
            sn = sc.node(loop)
            if not isinstance(sn, FUNC):
                continue
            scope = sc.scope(sn)
            calls: dict[str, list[ast.Call]] = {}
            for n in walk_many(loop.body):  # nested functions/lambdas are excluded below
                if (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "append"
                        and isinstance(n.func.value, ast.Name)):
                    calls.setdefault(n.func.value.id, []).append(n)
            for r in sorted(calls):
                bound_before = any(isinstance(p, ast.Assign) and len(p.targets) == 1
                                   and isinstance(p.targets[0], ast.Name) and p.targets[0].id == r
                                   for p in stmts[:k])
                if (not bound_before or r in sc.unsafe or not is_list(r, scope) or _stores(r, [loop])
                        or has(loop.body, *SCOPES) or has([loop.target] if isinstance(loop, ast.For) else [],
                                                              ast.NamedExpr)):
                    continue
                alias = ctx.fresh(f"{r}_append" if len(r) <= 10 else "append")
                for c in calls[r]:
                    c.func = name_node(alias)
                stmts.insert(k, assign(alias, ast.Attribute(name_node(r), "append", ast.Load())))
                changed = True
    return changed
