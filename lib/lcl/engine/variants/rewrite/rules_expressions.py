"""Rewrites of expressions and assignments: f-strings for concatenation and ``print``,
strength reduction (the paper's *hot path* strategy), and surface rewrites of slices, indices,
``sorted``, augmented, tuple and chained assignments, return values and local annotations.
"""

from __future__ import annotations

import ast

from .astutil import (
    FUNC,
    PURE_BUILTINS,
    ancestors,
    assign,
    assigned_names,
    call_name,
    call_node,
    captured_names,
    const_int,
    declared_anywhere,
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
    walk_scope,
)
from .context import Ctx, RuleSet
from .scope import Scope, ScopeCache, is_list

#: this module's rewrites; registry.py puts them in the driver's order
RULES = RuleSet()


def _scalar_targets(sc: ScopeCache, st: ast.AST, name: str) -> bool:
    sn = sc.node(st)
    return sn is not None and name not in sc.unsafe and name in sc.scope(sn).scalar_names()


@RULES("augmented_to_plain_assignment", None)
def rw_aug_to_plain(tree: ast.Module, ctx: Ctx) -> bool:
    """``x op= e`` -> ``x = x op e`` when ``x`` only ever holds numbers/strings (no in-place
    ``__iadd__``, so both call the same ``__add__``/``__radd__``)."""
    changed = False
    sc = ScopeCache(tree)
    for _owner, stmts in list(stmt_lists(tree)):
        for k, st in enumerate(stmts):
            if isinstance(st, ast.AugAssign) and isinstance(st.target, ast.Name) \
                    and _scalar_targets(sc, st, st.target.id):
                stmts[k] = assign(st.target.id, ast.BinOp(name_node(st.target.id), st.op, st.value))
                changed = True
    return changed


@RULES("plain_to_augmented_assignment", None)
def rw_plain_to_aug(tree: ast.Module, ctx: Ctx) -> bool:
    """``x = x op e`` -> ``x op= e`` when ``x`` only ever holds numbers/strings."""
    changed = False
    sc = ScopeCache(tree)
    for _owner, stmts in list(stmt_lists(tree)):
        for k, st in enumerate(stmts):
            if (isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name)
                    and isinstance(st.value, ast.BinOp) and isinstance(st.value.left, ast.Name)
                    and st.value.left.id == st.targets[0].id and _scalar_targets(sc, st, st.targets[0].id)):
                stmts[k] = ast.AugAssign(name_node(st.targets[0].id, True), st.value.op, st.value.right)
                changed = True
    return changed


@RULES("sorted_to_sort", None)
def rw_sorted_to_sort(tree: ast.Module, ctx: Ctx) -> bool:
    """``r = sorted(e, key=.., reverse=..)`` -> ``r = list(e)`` + ``r.sort(...)`` (exactly how
    ``sorted`` is implemented); ``return sorted(e)`` likewise through a fresh local."""
    changed = False
    sc = ScopeCache(tree)
    for _owner, stmts in list(stmt_lists(tree)):
        for k in range(len(stmts) - 1, -1, -1):
            st = stmts[k]
            if isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name):
                r = st.targets[0].id
            elif isinstance(st, ast.Return):
                r = None
            else:
                continue
            call = st.value
            if not (isinstance(call, ast.Call) and call_name(call) == "sorted" and len(call.args) == 1
                    and not isinstance(call.args[0], ast.Starred)
                    and all(kw.arg in ("key", "reverse") and side_effect_free(kw.value) for kw in call.keywords)):
                continue
            sn = sc.node(st)
            if sn is None or guarded(st, sc.parents) or (r is None and not isinstance(sn, FUNC)):
                continue
            scope = sc.scope(sn)
            if not (scope.builtin("sorted") and scope.builtin("list")) or (r is not None and (r in sc.unsafe
                                                                                              or r in scope.declared)):
                continue
            var = r if r is not None else ctx.fresh(ctx.rng.choice(("ordered", "result", "out")))
            new: list[ast.stmt] = [
                assign(var, call_node("list", call.args[0])),
                ast.Expr(ast.Call(func=ast.Attribute(name_node(var), "sort", ast.Load()), args=[],
                                  keywords=call.keywords)),
            ]
            if r is None:
                new.append(ast.Return(name_node(var)))
            stmts[k:k + 1] = new
            changed = True
    return changed


@RULES("split_tuple_assignment", None)
def rw_split_tuple_assignment(tree: ast.Module, ctx: Ctx) -> bool:
    """``a, b = e0, e1`` -> ``a = e0`` + ``b = e1`` when ``e1`` does not read ``a`` (else through a
    temporary: ``t = e0; b = e1; a = t``)."""
    if dynamic(tree):
        return False
    changed = False
    sc = ScopeCache(tree)
    for _owner, stmts in list(stmt_lists(tree)):
        for k in range(len(stmts) - 1, -1, -1):
            st = stmts[k]
            if not (isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Tuple)
                    and isinstance(st.value, ast.Tuple) and len(st.targets[0].elts) == len(st.value.elts) >= 2
                    and all(isinstance(e, ast.Name) for e in st.targets[0].elts)
                    and not any(isinstance(e, ast.Starred) for e in st.value.elts)):
                continue
            names = [e.id for e in st.targets[0].elts if isinstance(e, ast.Name)]  # all are names
            vals = st.value.elts
            sn = sc.node(st)
            if sn is None or len(set(names)) != len(names) or guarded(st, sc.parents) or not simple_expr(*vals):
                continue
            if set(names) & (sc.unsafe | captured_names(sn)):
                continue
            dependent = any(set(names[:j]) & assigned_names(vals[j]) for j in range(1, len(vals)))
            if not dependent:
                new = [assign(n, v) for n, v in zip(names, vals, strict=False)]
            elif len(vals) == 2:
                tmp = ctx.fresh(f"new_{names[0]}" if len(names[0]) < 12 else "tmp")
                new = [assign(tmp, vals[0]), assign(names[1], vals[1]), assign(names[0], name_node(tmp))]
            else:
                continue
            stmts[k:k + 1] = new
            changed = True
    return changed


@RULES("merge_assignments", None)
def rw_merge_assignments(tree: ast.Module, ctx: Ctx) -> bool:
    """Consecutive ``a = e0`` and ``b = e1`` -> ``a, b = e0, e1`` when ``e1`` does not read ``a``."""
    if dynamic(tree):
        return False
    changed = False
    sc = ScopeCache(tree)
    for _owner, stmts in list(stmt_lists(tree)):
        k = 0
        while k + 1 < len(stmts):
            s0, s1 = stmts[k], stmts[k + 1]
            ok = all(isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name)
                     and not isinstance(s.value, (ast.Tuple, ast.Starred)) for s in (s0, s1))
            if ok:
                assert isinstance(s0, ast.Assign) and isinstance(s1, ast.Assign)  # checked just above
                t0, t1 = s0.targets[0], s1.targets[0]
                assert isinstance(t0, ast.Name) and isinstance(t1, ast.Name)
                a, b = t0.id, t1.id
                sn = sc.node(s0)
                ok = (sn is not None and a != b and a not in assigned_names(s1.value) and simple_expr(s0.value, s1.value)
                      and not guarded(s0, sc.parents) and not ({a, b} & (sc.unsafe | captured_names(sn))))
            if ok:
                assert isinstance(s0, ast.Assign) and isinstance(s1, ast.Assign)
                stmts[k:k + 2] = [ast.Assign(targets=[ast.Tuple([name_node(a, True), name_node(b, True)], ast.Store())],
                                             value=ast.Tuple([s0.value, s1.value], ast.Load()))]
                changed = True
            k += 1
    return changed


def _concat_leaves(e: ast.expr, scope: Scope, out: list[ast.expr]) -> bool:
    if isinstance(e, ast.BinOp) and isinstance(e.op, ast.Add):
        return _concat_leaves(e.left, scope, out) and _concat_leaves(e.right, scope, out)
    if not scope.is_str(e):
        return False
    out.append(e)
    return True


@RULES("concat_to_fstring", "hot path")
def rw_concat_to_fstring(tree: ast.Module, ctx: Ctx) -> bool:
    """A chain ``a + b + ...`` of provable strs -> one f-string (no intermediate strings)."""
    changed = False
    sc = ScopeCache(tree)
    for node in list(ast.walk(tree)):
        if not (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add) and id(node) in sc.parents):
            continue
        p = sc.parents[id(node)]
        if isinstance(p, ast.BinOp) and isinstance(p.op, ast.Add):
            continue  # only whole chains
        if any(isinstance(a, (ast.JoinedStr, ast.FormattedValue)) for a in ancestors(node, sc.parents)):
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
            elif has(leaf, ast.JoinedStr, ast.Lambda, ast.NamedExpr, ast.Yield, ast.YieldFrom, ast.Await, ast.Dict,
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
                # a str or bytes mix raises TypeError here, which rejects the rewrite
                merged[-1] = ast.Constant(merged[-1].value + v.value)  # type: ignore[operator]
            else:
                merged.append(v)
        replace(node, ast.JoinedStr(values=merged), sc.parents)
        changed = True
    return changed


@RULES("reverse_slice_to_reversed", None)
def rw_reverse_slice(tree: ast.Module, ctx: Ctx) -> bool:
    """``s[::-1]`` -> ``''.join(reversed(s))`` for a provable str; ``xs[::-1]`` ->
    ``list(reversed(xs))`` for a provable list."""
    changed = False
    sc = ScopeCache(tree)
    for node in list(ast.walk(tree)):
        if not (isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load) and isinstance(node.slice, ast.Slice)
                and node.slice.lower is None and node.slice.upper is None and node.slice.step is not None
                and const_int(node.slice.step) == -1 and id(node) in sc.parents):
            continue
        sn = sc.node(node)
        if sn is None:
            continue
        scope = sc.scope(sn)
        if not scope.builtin("reversed"):
            continue
        rev = call_node("reversed", node.value)
        if scope.is_str(node.value) and not has(node.value, ast.NamedExpr, ast.Yield, ast.Await):
            new: ast.expr = ast.Call(func=ast.Attribute(ast.Constant(""), "join", ast.Load()), args=[rev], keywords=[])
        elif isinstance(node.value, ast.Name) and is_list(node.value.id, scope) and scope.builtin("list"):
            new = call_node("list", rev)
        else:
            continue
        replace(node, new, sc.parents)
        changed = True
    return changed


def _power_of_two(e: ast.AST) -> int | None:
    """k when ``e`` is the int constant 2**k (k >= 1)."""
    v = const_int(e)
    if v is None or v < 2 or v & (v - 1):
        return None
    return v.bit_length() - 1


@RULES("strength_reduction", "hot path")
def rw_strength_reduction(tree: ast.Module, ctx: Ctx) -> bool:
    """For a provable int ``e``: ``e % 2**k`` -> ``e & (2**k - 1)`` and ``e // 2**k`` -> ``e >> k``
    (Python's ``%`` and ``//`` floor, exactly like two's-complement masking and shifting), also in
    augmented assignments to int names."""
    changed = False
    sc = ScopeCache(tree)
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
        # an attribute or subscript target has no .id: the AttributeError rejects this rewrite
        if isinstance(node, ast.AugAssign) and node.target.id in sc.unsafe:  # type: ignore[union-attr]
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
        or call_name(e) == "bool"


def _local_type(value: ast.AST, name: str, scope: Scope) -> str | None:
    if name in scope.int_names() and scope.is_int(value):
        binds = scope.bindings.get(name, [])
        return "bool" if all(k == "assign" and _is_bool(v) for k, v in binds) else "int"
    if name in scope.str_names() and scope.is_str(value):
        return "str"
    if is_list(name, scope):
        return "list"
    if isinstance(value, ast.Constant) and type(value.value) is float and all(
            k == "assign" and isinstance(v, ast.Constant) and type(v.value) is float
            for k, v in scope.bindings.get(name, [])):
        return "float"
    return None


@RULES("annotate_locals", None)
def rw_annotate_locals(tree: ast.Module, ctx: Ctx) -> bool:
    """Add a type hint (``int``/``bool``/``str``/``list``/``float``, as inferred) to the first
    assignment of a function's local variables. Annotations of locals are never evaluated."""
    changed = False
    for fn in [n for n in ast.walk(tree) if isinstance(n, FUNC)]:
        scope = Scope(fn, tree)
        unsafe = scope.declared | declared_anywhere(tree)
        seen: set[str] = set(scope.params) | {n.target.id for n in walk_scope(fn)
                                               if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)}
        for _owner, stmts in list(stmt_lists(fn)):
            for k, st in enumerate(stmts):
                if not (isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name)):
                    continue
                name = st.targets[0].id
                if name in seen or name in unsafe or scope_of(st, parent_map(fn)) is not fn:
                    continue
                seen.add(name)
                kind = _local_type(st.value, name, scope)
                if kind is None or not scope.builtin(kind):
                    continue
                stmts[k] = ast.AnnAssign(target=name_node(name, True), annotation=name_node(kind), value=st.value, simple=1)
                changed = True
    return changed


@RULES("negative_index_to_len", None)
def rw_negative_index(tree: ast.Module, ctx: Ctx) -> bool:
    """For a list/str/tuple name ``xs``: ``xs[-1]`` -> ``xs[len(xs) - 1]`` and ``xs[:-1]`` ->
    ``xs[:len(xs) - 1]`` (equal for every length, the empty one included)."""
    changed = False
    sc = ScopeCache(tree)
    for node in list(ast.walk(tree)):
        if not (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name)):
            continue
        scope = sc.scope_at(node)
        xs = node.value.id
        if scope is None or not scope.builtin("len") or not scope.is_seq(xs) or xs in sc.unsafe:
            continue

        # this iteration's values, bound explicitly (called within the iteration only)
        def fixed(xs: str = xs) -> ast.expr:
            return ast.BinOp(call_node("len", name_node(xs)), ast.Sub(), ast.Constant(1))

        sl = node.slice
        if const_int(sl) == -1:
            node.slice = fixed()
            changed = True
        elif isinstance(sl, ast.Slice) and sl.step is None and (sl.lower is None or const_int(sl.lower) is not None) \
                and sl.upper is not None and const_int(sl.upper) == -1 \
                and (sl.lower is None or const_int(sl.lower) >= 0):  # type: ignore[operator]  # an int: checked above
            sl.upper = fixed()
            changed = True
    return changed


@RULES("inline_return_variable", None)
def rw_inline_return_variable(tree: ast.Module, ctx: Ctx) -> bool:
    """``x = e`` immediately followed by ``return x`` -> ``return e`` when the local ``x`` occurs
    nowhere else in its function."""
    if dynamic(tree):
        return False
    changed = False
    sc = ScopeCache(tree)
    for _owner, stmts in list(stmt_lists(tree)):
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
            if not isinstance(sn, FUNC) or x in sc.unsafe or x in sc.scope(sn).params:
                continue
            occurrences = sum(1 for n in ast.walk(sn) if isinstance(n, ast.Name) and n.id == x)
            if occurrences != 2:
                continue
            stmts[k:k + 2] = [ast.Return(st.value)]
            changed = True
    return changed


@RULES("name_return_value", None)
def rw_name_return_value(tree: ast.Module, ctx: Ctx) -> bool:
    """``return e`` (a call, operation or comprehension) -> ``result = e`` + ``return result``."""
    changed = False
    sc = ScopeCache(tree)
    for _owner, stmts in list(stmt_lists(tree)):
        for k in range(len(stmts) - 1, -1, -1):
            st = stmts[k]
            if not (isinstance(st, ast.Return) and isinstance(st.value, (ast.Call, ast.BinOp, ast.BoolOp, ast.ListComp,
                                                                        ast.JoinedStr, ast.Compare, ast.IfExp))):
                continue
            if not isinstance(sc.node(st), FUNC) or has(st.value, ast.NamedExpr, ast.Yield, ast.YieldFrom,
                                                         ast.Await):
                continue
            name = ctx.fresh(ctx.rng.choice(("result", "res", "answer", "value")))
            stmts[k:k + 1] = [assign(name, st.value), ast.Return(name_node(name))]
            changed = True
    return changed


_FORMAT_SAFE_CALLS = PURE_BUILTINS - {"print", "input", "list", "set", "dict", "sorted", "reversed", "enumerate",
                                      "zip", "range"}


def _no_effects(e: ast.AST, scope: Scope) -> bool:
    """Evaluating ``e`` runs no user code that could change other values: names, constants,
    subscripts, attributes, operators and calls of unshadowed pure builtins only."""
    for n in ast.walk(e):
        if isinstance(n, (ast.NamedExpr, ast.Yield, ast.YieldFrom, ast.Await, ast.Lambda, ast.ListComp, ast.SetComp,
                          ast.DictComp, ast.GeneratorExp, ast.JoinedStr, ast.Starred)):
            return False
        if isinstance(n, ast.Call) and not (call_name(n) in _FORMAT_SAFE_CALLS and scope.builtin(call_name(n))):
            return False
        if isinstance(n, ast.Constant) and isinstance(n.value, (str, bytes)):
            return False  # keeps quoting out of the f-string expression
    return True


@RULES("print_to_fstring", None)
def rw_print_to_fstring(tree: ast.Module, ctx: Ctx) -> bool:
    """``print(a, 'x', b)`` (two or more plain arguments, no keywords) -> ``print(f'{a} x {b}')``:
    ``print`` writes ``str(arg)`` and an f-string field ``format(arg, '')``, which is the same for
    every builtin type; the arguments must be free of side effects (print formats them only after
    evaluating all of them)."""
    changed = False
    sc = ScopeCache(tree)
    for node in list(ast.walk(tree)):
        if not (isinstance(node, ast.Call) and call_name(node) == "print" and len(node.args) >= 2
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
                # a str or bytes mix raises TypeError here, which rejects the rewrite
                merged[-1] = ast.Constant(merged[-1].value + v.value)  # type: ignore[operator]
            else:
                merged.append(v)
        node.args = [ast.JoinedStr(values=merged)]
        changed = True
    return changed
