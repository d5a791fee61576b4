"""Rewrites of control flow and conditions: guard clauses, early ``continue``/``return``
(the paper's *cold path* strategy), and surface rewrites between ``if`` statements and conditional
expressions, of boolean returns, branch order, zero and length tests, and comparisons.
"""

from __future__ import annotations

import ast

from .astutil import (
    FUNC,
    assign,
    call_name,
    call_node,
    const_int,
    has,
    name_node,
    replace,
    size,
    stmt_lists,
    test_context,
)
from .context import Ctx, RuleSet
from .scope import Scope, ScopeCache, negate

#: this module's rewrites; registry.py puts them in the driver's order
RULES = RuleSet()


def _terminates(stmts: list[ast.stmt]) -> bool:
    if not stmts:
        return False
    last = stmts[-1]
    if isinstance(last, (ast.Return, ast.Raise)):
        return True
    if isinstance(last, ast.If):
        return _terminates(last.body) and _terminates(last.orelse)
    return False


@RULES("guard_clause", "cold path")
def rw_guard_clause(tree: ast.Module, ctx: Ctx) -> bool:
    """A function ending in ``if c: A else: B`` -> guard clause: the shorter branch first (under
    ``c`` or ``not c``), ending in ``return`` if it does not already, then the other branch."""
    changed = False
    for fn in [n for n in ast.walk(tree) if isinstance(n, FUNC)]:
        last = fn.body[-1] if fn.body else None
        if not (isinstance(last, ast.If) and last.orelse and last.body):
            continue
        a, b = last.body, last.orelse
        if sum(map(size, b)) < sum(map(size, a)):
            guard_test, guard, rest = negate(last.test, Scope(fn, tree)), b, a
        else:
            guard_test, guard, rest = last.test, a, b
        if not _terminates(guard):
            guard = [*guard, ast.Return(None)]
        fn.body[-1:] = [ast.If(test=guard_test, body=guard, orelse=[]), *rest]
        changed = True
    return changed


@RULES("if_to_conditional_expression", None)
def rw_if_to_ifexp(tree: ast.Module, ctx: Ctx) -> bool:
    """``if c: return a`` / ``else: return b`` (or a following ``return b``) -> ``return a if c
    else b``; ``if c: x = a else: x = b`` -> ``x = a if c else b``."""
    changed = False
    for _owner, stmts in list(stmt_lists(tree)):
        for k in range(len(stmts) - 1, -1, -1):
            st = stmts[k]
            if not (isinstance(st, ast.If) and len(st.body) == 1):
                continue
            a = st.body[0]
            if has(st, ast.IfExp):
                continue  # do not build nested conditional-expression chains
            if isinstance(a, ast.Return) and a.value is not None:
                if len(st.orelse) == 1 and isinstance(st.orelse[0], ast.Return) and st.orelse[0].value is not None:
                    stmts[k] = ast.Return(ast.IfExp(st.test, a.value, st.orelse[0].value))
                    changed = True
                elif not st.orelse and k + 1 < len(stmts) and isinstance(nxt := stmts[k + 1], ast.Return) \
                        and nxt.value is not None:
                    stmts[k:k + 2] = [ast.Return(ast.IfExp(st.test, a.value, nxt.value))]
                    changed = True
            elif (isinstance(a, ast.Assign) and len(a.targets) == 1 and isinstance(a.targets[0], ast.Name)
                  and len(st.orelse) == 1 and isinstance(st.orelse[0], ast.Assign)
                  and len(st.orelse[0].targets) == 1 and isinstance(st.orelse[0].targets[0], ast.Name)
                  and st.orelse[0].targets[0].id == a.targets[0].id):
                stmts[k] = ast.Assign(targets=[ast.Name(a.targets[0].id, ast.Store())],
                                      value=ast.IfExp(st.test, a.value, st.orelse[0].value))
                changed = True
    return changed


@RULES("conditional_expression_to_if", None)
def rw_ifexp_to_if(tree: ast.Module, ctx: Ctx) -> bool:
    """``return a if c else b`` -> ``if c: return a`` + ``return b``."""
    changed = False
    for _owner, stmts in list(stmt_lists(tree)):
        for k in range(len(stmts) - 1, -1, -1):
            st = stmts[k]
            if isinstance(st, ast.Return) and isinstance(st.value, ast.IfExp):
                e = st.value
                stmts[k:k + 1] = [ast.If(test=e.test, body=[ast.Return(e.body)], orelse=[]), ast.Return(e.orelse)]
                changed = True
    return changed


def _guard_worthy(body: list[ast.stmt]) -> bool:
    return len(body) >= 2 or isinstance(body[0], (ast.For, ast.While, ast.If, ast.With, ast.Try))


@RULES("early_continue", "cold path")
def rw_early_continue(tree: ast.Module, ctx: Ctx) -> bool:
    """A loop body ending in ``if c:`` (no else) with a nested or multi-statement body ->
    ``if not c: continue`` followed by that body, dedented."""
    changed = False
    sc = ScopeCache(tree)
    for loop in [n for n in ast.walk(tree) if isinstance(n, (ast.For, ast.AsyncFor, ast.While))]:
        last = loop.body[-1]
        if isinstance(last, ast.If) and not last.orelse and _guard_worthy(last.body):
            test = negate(last.test, sc.scope_at(loop))
            loop.body[-1:] = [ast.If(test=test, body=[ast.Continue()], orelse=[]), *last.body]
            changed = True
    return changed


@RULES("early_return", "cold path")
def rw_early_return(tree: ast.Module, ctx: Ctx) -> bool:
    """A function ending in ``if c:`` (no else) with a nested or multi-statement body ->
    ``if not c: return`` followed by that body (falling off the end returned None too)."""
    changed = False
    for fn in [n for n in ast.walk(tree) if isinstance(n, FUNC)]:
        last = fn.body[-1]
        if isinstance(last, ast.If) and not last.orelse and _guard_worthy(last.body):
            test = negate(last.test, Scope(fn, tree))
            fn.body[-1:] = [ast.If(test=test, body=[ast.Return(None)], orelse=[]), *last.body]
            changed = True
    return changed


def _len_call_of_seq(e: ast.AST, scope: Scope) -> str | None:
    if (isinstance(e, ast.Call) and call_name(e) == "len" and scope.builtin("len") and len(e.args) == 1
            and not e.keywords
            and isinstance(e.args[0], ast.Name) and scope.is_seq(e.args[0].id)):
        return e.args[0].id
    return None


@RULES("truthiness_to_len", None)
def rw_truthiness_to_len(tree: ast.Module, ctx: Ctx) -> bool:
    """For a list/str/tuple ``xs``: ``not xs`` -> ``len(xs) == 0``; a bare ``xs`` tested for truth
    -> ``len(xs) > 0``."""
    changed = False
    sc = ScopeCache(tree)
    for node in list(ast.walk(tree)):
        target = node.operand if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not) else node
        if not isinstance(target, ast.Name) or id(node) not in sc.parents:
            continue
        if node is target and not test_context(node, sc.parents):
            continue
        if node is target and isinstance(sc.parents.get(id(node)), ast.UnaryOp):
            continue  # handled as ``not xs``
        sn = sc.node(node)
        if sn is None or not sc.scope(sn).builtin("len") or not sc.scope(sn).is_seq(target.id):
            continue
        op = ast.Eq() if node is not target else ast.Gt()
        replace(node, ast.Compare(call_node("len", name_node(target.id)), [op], [ast.Constant(0)]), sc.parents)
        changed = True
    return changed


@RULES("len_to_truthiness", None)
def rw_len_to_truthiness(tree: ast.Module, ctx: Ctx) -> bool:
    """For a list/str/tuple ``xs``: ``len(xs) == 0`` -> ``not xs``; ``len(xs) > 0`` / ``!= 0`` /
    ``>= 1`` tested for truth -> ``xs``."""
    changed = False
    sc = ScopeCache(tree)
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
            replace(node, ast.UnaryOp(ast.Not(), name_node(xs)), sc.parents)
            changed = True
        elif ((isinstance(op, (ast.Gt, ast.NotEq)) and c == 0) or (isinstance(op, ast.GtE) and c == 1)) \
                and test_context(node, sc.parents):
            replace(node, name_node(xs), sc.parents)
            changed = True
    return changed


def _bool_return(st: ast.AST) -> bool | None:
    if isinstance(st, ast.Return) and isinstance(st.value, ast.Constant) and isinstance(st.value.value, bool):
        return st.value.value
    return None


@RULES("return_bool", None)
def rw_return_bool(tree: ast.Module, ctx: Ctx) -> bool:
    """``if c: return True`` + ``return False`` (or with ``else``) -> ``return bool(c)``; the
    ``False``/``True`` form -> ``return not c``; likewise ``True if c else False`` -> ``bool(c)``
    and ``False if c else True`` -> ``not c``. One truth test of ``c`` either way."""
    changed = False
    sc = ScopeCache(tree)
    for _owner, stmts in list(stmt_lists(tree)):
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
                value: ast.expr = call_node("bool", st.test)
            else:
                value = negate(st.test, sc.scope_at(st))
            stmts[k:k + span] = [ast.Return(value)]
            changed = True
    sc = ScopeCache(tree)
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
        replace(node, call_node("bool", node.test) if a else negate(node.test, scope), sc.parents)
        changed = True
    return changed


@RULES("swap_if_branches", None)
def rw_swap_if_branches(tree: ast.Module, ctx: Ctx) -> bool:
    """``if c: A else: B`` (not an elif chain) -> ``if not c: B else: A``."""
    changed = False
    sc = ScopeCache(tree)
    for node in [n for n in ast.walk(tree) if isinstance(n, ast.If)]:
        if node.orelse and not (len(node.orelse) == 1 and isinstance(node.orelse[0], ast.If)):
            node.test, node.body, node.orelse = negate(node.test, sc.scope_at(node)), node.orelse, node.body
            changed = True
    return changed


@RULES("conditional_assignment_to_if", None)
def rw_ifexp_assign_to_if(tree: ast.Module, ctx: Ctx) -> bool:
    """``x = a if c else b`` -> ``if c: x = a`` / ``else: x = b``."""
    changed = False
    for _owner, stmts in list(stmt_lists(tree)):
        for k in range(len(stmts) - 1, -1, -1):
            st = stmts[k]
            if isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name) \
                    and isinstance(st.value, ast.IfExp):
                x, e = st.targets[0].id, st.value
                stmts[k] = ast.If(test=e.test, body=[assign(x, e.body)], orelse=[assign(x, e.orelse)])
                changed = True
    return changed


@RULES("zero_test_to_truthiness", None)
def rw_zero_test(tree: ast.Module, ctx: Ctx) -> bool:
    """For a provable int ``e``: ``e == 0`` -> ``not e``; ``e != 0`` tested for truth -> ``e``."""
    changed = False
    sc = ScopeCache(tree)
    for node in list(ast.walk(tree)):
        if not (isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], (ast.Eq, ast.NotEq))
                and const_int(node.comparators[0]) == 0
                # a negated zero (-0) has no .value: the AttributeError rejects this rewrite
                and type(node.comparators[0].value) is int  # type: ignore[attr-defined]
                and id(node) in sc.parents):
            continue
        scope = sc.scope_at(node)
        if scope is None or not scope.is_int(node.left) or isinstance(node.left, ast.Compare):
            continue
        if isinstance(node.ops[0], ast.Eq):
            replace(node, ast.UnaryOp(ast.Not(), node.left), sc.parents)
        elif test_context(node, sc.parents):
            replace(node, node.left, sc.parents)
        else:
            continue
        changed = True
    return changed


@RULES("split_and_condition", None)
def rw_split_and_condition(tree: ast.Module, ctx: Ctx) -> bool:
    """``if a and b: X`` (no else) -> ``if a: if b: X``."""
    changed = False
    for node in [n for n in ast.walk(tree) if isinstance(n, ast.If)]:
        if not node.orelse and isinstance(node.test, ast.BoolOp) and isinstance(node.test.op, ast.And):
            first, rest = node.test.values[0], node.test.values[1:]
            inner = rest[0] if len(rest) == 1 else ast.BoolOp(ast.And(), rest)
            node.test, node.body = first, [ast.If(test=inner, body=node.body, orelse=[])]
            changed = True
    return changed


@RULES("merge_nested_ifs", None)
def rw_merge_nested_ifs(tree: ast.Module, ctx: Ctx) -> bool:
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


_MIRROR = {ast.Lt: ast.Gt, ast.Gt: ast.Lt, ast.LtE: ast.GtE, ast.GtE: ast.LtE}


@RULES("flip_comparison", None)
def rw_flip_comparison(tree: ast.Module, ctx: Ctx) -> bool:
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
