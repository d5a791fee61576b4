"""Surface rewrites of a program's structure and names: renaming locals and parameters,
extracting helpers and bodies, wrapping a stdin program in ``main`` (the paper's *hot path*:
locals are faster than globals), lambdas as ``def``, and the last-resort docstring trimming.
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Iterator, Sequence

from .astutil import (
    BUILTINS,
    FUNC,
    ancestors,
    assigned_names,
    binding_name,
    bound_anywhere,
    dynamic,
    has,
    name_node,
    parent_map,
    positional_only_callers,
    replace,
    scope_of,
    simple_params,
    size,
    stmt_lists,
    walk_many,
    walk_scope,
)
from .context import Ctx, RuleSet, new_name
from .scope import Scope, ScopeCache

#: this module's rewrites; registry.py puts them in the driver's order
RULES = RuleSet()
#: tried only when the other rewrites cannot reach the target similarity
LAST_RESORT = RuleSet()


@RULES("rename_locals", None)
def rw_rename_locals(tree: ast.Module, ctx: Ctx) -> bool:
    """Consistently rename variables (never parameters, functions, classes, imports, builtins,
    class attributes or names touched by dynamic scope access)."""
    if dynamic(tree):
        return False
    parents = parent_map(tree)
    bound = bound_anywhere(tree)
    excluded = set(BUILTINS)
    for n in ast.walk(tree):
        if isinstance(n, ast.arg):
            excluded.add(n.arg)
        elif isinstance(n, (*FUNC, ast.ClassDef)):
            excluded.add(n.name)
        elif isinstance(n, ast.alias):
            excluded.add((n.asname or n.name).split(".")[0])
        elif isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load) \
                and isinstance(scope_of(n, parents), ast.ClassDef):
            excluded.add(n.id)
    candidates = sorted(n for n in bound - excluded if not (n.startswith("__") and n.endswith("__")))
    if not candidates:
        return False
    mapping = {old: ctx.fresh(new_name(old, ctx.rng)) for old in candidates}
    for n in ast.walk(tree):
        if isinstance(n, ast.Name) and n.id in mapping:
            n.id = mapping[n.id]
        elif isinstance(n, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)) and n.name in mapping:
            n.name = mapping[n.name]
        elif isinstance(n, ast.MatchMapping) and n.rest in mapping:
            n.rest = mapping[n.rest]
        elif isinstance(n, (ast.Global, ast.Nonlocal)):
            n.names = [mapping.get(x, x) for x in n.names]
    return True


@RULES("extract_helper", None)
def rw_extract_helper(tree: ast.Module, ctx: Ctx) -> bool:
    """Extract a non-trivial ``if`` condition of a top-level function into a module-level
    predicate, passing the local names it reads (all definitely bound at that point)."""
    if dynamic(tree):
        return False
    for idx in range(len(tree.body) - 1, -1, -1):
        fn = tree.body[idx]
        if not isinstance(fn, ast.FunctionDef):
            continue
        scope = Scope(fn, tree)
        local_names = set(scope.bindings) | set(scope.params)
        parents = parent_map(fn)
        for top_i, top in enumerate(fn.body):
            for node in ast.walk(top):
                if not (isinstance(node, ast.If) and isinstance(node.test, (ast.BoolOp, ast.Compare))
                        and size(node.test) >= 8):
                    continue
                if scope_of(node, parents) is not fn:
                    continue  # inside a nested function: its locals are not fn's and cannot be passed
                test = node.test
                if has(test, ast.NamedExpr, ast.Yield, ast.YieldFrom, ast.Await, ast.Lambda, ast.ListComp,
                        ast.SetComp, ast.DictComp, ast.GeneratorExp):
                    continue
                free = sorted(assigned_names(test) & local_names)
                if {"super", "__class__"} & assigned_names(test):
                    continue
                definite = set(scope.params)
                for prev in fn.body[:top_i]:
                    if isinstance(prev, ast.Assign):
                        definite |= {n.id for t in prev.targets for n in ast.walk(t) if isinstance(n, ast.Name)}
                    elif isinstance(prev, ast.AugAssign) and isinstance(prev.target, ast.Name):
                        definite.add(prev.target.id)
                for a in ancestors(node, parents):
                    if isinstance(a, ast.For):
                        definite |= assigned_names(a.target)
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


@RULES("wrap_in_main", "hot path")
def rw_wrap_main(tree: ast.Module, ctx: Ctx) -> bool:
    """Program mode: move top-level statements into ``def main()`` + ``main()`` (local-variable
    access is faster), when no module-level function or class reads a name they bind."""
    if not ctx.program or dynamic(tree) or has(tree, ast.Global, ast.Nonlocal):
        return False
    keep: list[ast.stmt] = []
    moved: list[ast.stmt] = []
    body = tree.body
    i = 0
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        keep.append(body[0])
        i = 1
    while i < len(body) and isinstance(body[i], (ast.Import, ast.ImportFrom)):
        keep.append(body[i])
        i += 1
    for st in body[i:]:
        (keep if isinstance(st, (*FUNC, ast.ClassDef)) else moved).append(st)
    if len(moved) < 2 or has(moved, ast.Return, ast.Yield, ast.YieldFrom, ast.Await):
        return False
    if any(isinstance(n, ast.ImportFrom) and any(a.name == "*" for a in n.names) for n in walk_many(moved)):
        return False
    module = ast.Module(body=moved, type_ignores=[])
    bound = set(Scope(module, module).bindings)
    defs_read = set()
    for st in keep:
        if isinstance(st, (*FUNC, ast.ClassDef)):
            defs_read |= assigned_names(st) | {st.name}
    if bound & defs_read:
        return False
    for name in bound & BUILTINS:  # shadowed builtin: first use must be a plain binding
        first = next((st for st in moved if name in assigned_names(st)), None)
        if not (isinstance(first, ast.Assign) and len(first.targets) == 1 and isinstance(first.targets[0], ast.Name)
                and first.targets[0].id == name and name not in assigned_names(first.value)):
            return False
    main = ctx.fresh("main")
    fdef = ast.FunctionDef(name=main, args=ast.arguments(posonlyargs=[], args=[], vararg=None, kwonlyargs=[],
                                                         kw_defaults=[], kwarg=None, defaults=[]),
                           body=moved, decorator_list=[], returns=None, type_comment=None)
    tree.body = [*keep, fdef, ast.Expr(ast.Call(func=ast.Name(main, ast.Load()), args=[], keywords=[]))]
    return True


def _rename_in(nodes: Sequence[ast.AST], mapping: dict[str, str]) -> None:
    """Consistently rename identifiers (names, arguments, nonlocals) throughout ``nodes``."""
    for n in walk_many(nodes):
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
    for n in walk_many(fn.body):
        if isinstance(n, ast.ClassDef):
            return False
        if isinstance(n, ast.Global) and old & set(n.names):
            return False
        if isinstance(n, ast.keyword) and n.arg in old:
            return False  # a nested def/lambda with a same-named parameter, called by keyword
        if isinstance(n, (*FUNC, ast.alias, ast.ExceptHandler, ast.MatchAs, ast.MatchStar, ast.MatchMapping)) \
                and binding_name(n) in old:
            return False
    return not ({"super", "__class__"} & assigned_names(fn.body))


def _recursive(fn: ast.FunctionDef) -> bool:
    return fn.name in assigned_names(fn.body)


@RULES("extract_body", None)
def rw_extract_body(tree: ast.Module, ctx: Ctx) -> bool:
    """Function mode: move the entry point's body into a module-level helper with freshly named
    parameters; the entry point (same name, signature, decorators) returns ``helper(params...)``.
    Only for plain, non-recursive, non-generator functions (recursion would double the stack
    depth) whose parameters have no defaults, ``*args``/``**kwargs`` or keyword-only forms."""
    if ctx.program or ctx.entry_point is None or dynamic(tree):
        return False
    for idx, fn in enumerate(tree.body):
        if not (isinstance(fn, ast.FunctionDef) and fn.name == ctx.entry_point):
            continue
        body = fn.body
        doc = []
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                and isinstance(body[0].value.value, str):
            doc, body = body[:1], body[1:]
        if not body or not simple_params(fn) or _recursive(fn):
            return False
        if len(body) == 1 and isinstance(body[0], ast.Return) and isinstance(body[0].value, ast.Call):
            return False  # already a thin wrapper
        if any(isinstance(n, (ast.Yield, ast.YieldFrom, ast.Await, ast.Nonlocal)) for n in walk_scope(fn)):
            return False
        params = [a.arg for a in fn.args.args]
        if not _renamable_body(fn, set(params)):
            return False
        mapping = {p: ctx.fresh(new_name(p, ctx.rng)) for p in params}
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


@RULES("rename_parameters", None)
def rw_rename_params(tree: ast.Module, ctx: Ctx) -> bool:
    """Rename the parameters of a top-level function other than the entry point when every call
    to it in the module is a direct positional call (no defaults, ``*args``, ``**kwargs`` or
    keyword-only parameters)."""
    if dynamic(tree):
        return False
    fns = [fn for fn in tree.body if isinstance(fn, ast.FunctionDef) and fn.name != ctx.entry_point
           and fn.name in ctx.renamable and fn.args.args]
    ctx.rng.shuffle(fns)
    for fn in fns:
        params = {a.arg for a in fn.args.args}
        if not (simple_params(fn) and positional_only_callers(tree, fn.name) and _renamable_body(fn, params)):
            continue
        if fn.decorator_list:
            continue
        mapping = {p: ctx.fresh(new_name(p, ctx.rng)) for p in sorted(params)}
        _rename_in([*fn.args.args, *fn.body], mapping)
        return True
    return False


def _docstring_nodes(tree: ast.Module) -> Iterator[tuple[ast.AST, ast.Constant]]:
    for n in ast.walk(tree):
        if isinstance(n, (ast.Module, *FUNC, ast.ClassDef)) and n.body and isinstance(n.body[0], ast.Expr) \
                and isinstance(n.body[0].value, ast.Constant) and isinstance(n.body[0].value.value, str):
            yield n, n.body[0].value


@LAST_RESORT("trim_docstring_examples", None)
def rw_trim_docstrings(tree: ast.Module, ctx: Ctx) -> bool:
    """Cut docstrings before their examples (the first ``>>>`` / ``Example`` / ``For example``
    line); only ``__doc__`` changes. Tried before dropping docstrings entirely."""
    changed = False
    for _owner, const in _docstring_nodes(tree):
        assert isinstance(const.value, str)  # _docstring_nodes yields str constants only
        lines = const.value.split("\n")
        for i, line in enumerate(lines):
            low = line.strip().lower()
            if i and low.startswith((">>>", "example", "for example")):
                kept = "\n".join(lines[:i]).rstrip()
                if kept.strip():
                    const.value = kept + "\n    "
                    changed = True
                break
    return changed


@LAST_RESORT("drop_docstrings", None)
def rw_drop_docstrings(tree: ast.Module, ctx: Ctx) -> bool:
    """Remove docstrings (only ``__doc__`` changes). Tried last, only when still too similar."""
    changed = False
    for n in ast.walk(tree):
        if isinstance(n, (ast.Module, *FUNC, ast.ClassDef)) and n.body and isinstance(n.body[0], ast.Expr) \
                and isinstance(n.body[0].value, ast.Constant) and isinstance(n.body[0].value.value, str):
            n.body = n.body[1:] or [ast.Pass()]
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


@RULES("lambda_to_def", None)
def rw_lambda_to_def(tree: ast.Module, ctx: Ctx) -> bool:
    """A lambda (no defaults, not inside a comprehension) in an assignment, expression or
    return statement -> a local ``def`` right before that statement (same closure)."""
    changed = False
    sc = ScopeCache(tree)
    for _owner, stmts in list(stmt_lists(tree)):
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
                replace(lam, name_node(name), sc.parents)
            if defs:
                stmts[k:k] = defs
                changed = True
    return changed
