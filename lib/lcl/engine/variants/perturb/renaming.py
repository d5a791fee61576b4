"""``rename_identifiers``: local variables and parameters renamed to bland fresh names, resolved
with Python's scoping rules; what is never renamed, and why, is listed in
:mod:`lcl.engine.variants.perturb` (study X2).
"""

from __future__ import annotations

import ast
import keyword
import random
import re
from dataclasses import dataclass, field

from ..rewrite.astutil import BUILTINS, FUNC, all_identifiers, call_name, declared_anywhere, dynamic
from .source_text import checked_source, parse_checked_source


@dataclass(eq=False)
class _NameScope:
    node: ast.AST
    kind: str  # "module", "function", "lambda", "comprehension" or "class"
    parent: _NameScope | None
    bound: set[str] = field(default_factory=set)
    fixed: set[str] = field(default_factory=set)  # bound by def, class or import: never renamed
    params: dict[str, ast.arg] = field(default_factory=dict)
    declared: set[str] = field(default_factory=set)  # global or nonlocal here


@dataclass(frozen=True)
class _Site:
    holder: ast.AST  # the node whose ``attr`` holds the name
    attr: str
    name: str
    scope: _NameScope


_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)


class _Collector:
    """Every name occurrence with the scope it occurs in, and each scope's bindings."""

    def __init__(self, tree: ast.Module):
        self.sites: list[_Site] = []
        self.keywords: set[str] = set()
        self.double_star = False
        self.star_import = False
        self.module = _NameScope(tree, "module", None)
        for st in tree.body:
            self.visit(st, self.module)

    def _site(self, holder: ast.AST, attr: str, name: str, sc: _NameScope, binds: bool) -> None:
        self.sites.append(_Site(holder, attr, name, sc))
        if binds:
            sc.bound.add(name)

    def _args(self, a: ast.arguments, sc: _NameScope) -> None:
        for arg in [*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg]:
            if arg is not None:
                sc.params[arg.arg] = arg
                self._site(arg, "arg", arg.arg, sc, True)

    def _outer(self, a: ast.arguments, sc: _NameScope) -> None:
        """Defaults and annotations are evaluated in the enclosing scope."""
        for e in [*a.defaults, *a.kw_defaults]:
            if e is not None:
                self.visit(e, sc)
        for arg in [*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg]:
            if arg is not None and arg.annotation is not None:
                self.visit(arg.annotation, sc)

    def visit(self, node: ast.AST, sc: _NameScope) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for e in node.decorator_list:
                self.visit(e, sc)
            self._outer(node.args, sc)
            if node.returns is not None:
                self.visit(node.returns, sc)
            sc.bound.add(node.name)
            sc.fixed.add(node.name)
            inner = _NameScope(node, "function", sc)
            self._args(node.args, inner)
            for st in node.body:
                self.visit(st, inner)
        elif isinstance(node, ast.Lambda):
            self._outer(node.args, sc)
            inner = _NameScope(node, "lambda", sc)
            self._args(node.args, inner)
            self.visit(node.body, inner)
        elif isinstance(node, ast.ClassDef):
            outer: list[ast.AST] = [*node.decorator_list, *node.bases, *node.keywords]
            for part in outer:
                self.visit(part, sc)
            sc.bound.add(node.name)
            sc.fixed.add(node.name)
            inner = _NameScope(node, "class", sc)
            for st in node.body:
                self.visit(st, inner)
        elif isinstance(node, _COMPREHENSIONS):
            self._comprehension(node, sc)
        elif isinstance(node, ast.NamedExpr):
            owner = sc  # a walrus in a comprehension binds in the enclosing function
            while owner.kind == "comprehension" and owner.parent is not None:
                owner = owner.parent
            if isinstance(node.target, ast.Name):
                self._site(node.target, "id", node.target.id, owner, True)
            self.visit(node.value, sc)
        elif isinstance(node, ast.Name):
            self._site(node, "id", node.id, sc, not isinstance(node.ctx, ast.Load))
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            sc.declared.update(node.names)
        elif isinstance(node, ast.alias):
            self.star_import |= node.name == "*"
            name = (node.asname or node.name).split(".")[0]
            sc.bound.add(name)
            sc.fixed.add(name)
        else:
            if isinstance(node, ast.keyword):
                if node.arg is None:
                    self.double_star = True
                else:
                    self.keywords.add(node.arg)
            for attr in ("name", "rest"):
                value = getattr(node, attr, None)
                if isinstance(value, str) and isinstance(node, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar,
                                                                ast.MatchMapping)):
                    self._site(node, attr, value, sc, True)
            for child in ast.iter_child_nodes(node):
                self.visit(child, sc)

    def _comprehension(self, node: ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp,
                       sc: _NameScope) -> None:
        gens = node.generators
        self.visit(gens[0].iter, sc)  # the first iterable is evaluated outside
        inner = _NameScope(node, "comprehension", sc)
        for i, g in enumerate(gens):
            if i:
                self.visit(g.iter, inner)
            self.visit(g.target, inner)
            for cond in g.ifs:
                self.visit(cond, inner)
        for e in ([node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]):
            self.visit(e, inner)


def _resolve(sc: _NameScope, name: str, module: _NameScope) -> _NameScope | None:
    """The scope whose binding ``name`` refers to in ``sc``; None for builtins, unbound names
    and names in ``global``/``nonlocal`` statements (never renamed)."""
    if name in sc.declared:
        return None
    if name in sc.bound:
        return sc
    p = sc.parent
    while p is not None and p.kind != "module":
        if p.kind != "class":  # class scopes are invisible to the scopes nested in them
            if name in p.declared:
                return None
            if name in p.bound:
                return p
        p = p.parent
    return module if name in module.bound else None


def _is_program(tree: ast.Module) -> bool:
    """The module does work when run (a stdin program), not only define things."""
    for st in tree.body:
        if isinstance(st, ast.Expr) and isinstance(st.value, ast.Constant):
            continue
        if not isinstance(st, (*FUNC, ast.ClassDef, ast.Import, ast.ImportFrom, ast.Assign, ast.AnnAssign,
                               ast.AugAssign, ast.Pass)):
            return True
        if not isinstance(st, (*FUNC, ast.ClassDef)) and any(call_name(n) == "input" for n in ast.walk(st)):
            return True
    return False


_WORD = re.compile(r"[A-Za-z_]\w*")
_EVALS = frozenset({"eval", "exec", "compile"})


def _string_words(tree: ast.AST) -> set[str]:
    """Identifier-like words of every string literal, when the module can run strings as code."""
    if not any(isinstance(n, ast.Name) and n.id in _EVALS for n in ast.walk(tree)):
        return set()
    return {w for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)
            for w in _WORD.findall(n.value)}


_INTROSPECTION_ATTRS = frozenset({"__code__", "__defaults__", "__kwdefaults__", "__closure__", "__globals__"})


class _RenamePolicy:
    """Which (scope, name) bindings :func:`rename_identifiers` may rename."""

    def __init__(self, tree: ast.Module, col: _Collector, reference: ast.Module | None):
        self.col = col
        self.declared = declared_anywhere(tree)
        self.words = _string_words(tree)
        self.keywords = set(col.keywords)
        if reference is not None:
            self.keywords |= {n.arg for n in ast.walk(reference) if isinstance(n, ast.keyword) and n.arg}
        introspects = any(isinstance(n, ast.Attribute) and n.attr in _INTROSPECTION_ATTRS for n in ast.walk(tree))
        self.module_ok = _is_program(tree) and not dynamic(tree) and not col.star_import and not introspects
        self.locals_ok = not introspects
        self._unsafe: dict[int, bool] = {}

    def _scope_unsafe(self, sc: _NameScope) -> bool:
        if id(sc) not in self._unsafe:
            self._unsafe[id(sc)] = dynamic(sc.node) or any(isinstance(n, ast.ClassDef) for n in ast.walk(sc.node)) \
                or bool(getattr(sc.node, "type_params", None))
        return self._unsafe[id(sc)]

    def allows(self, sc: _NameScope, name: str) -> bool:
        if name in self.declared or name in self.words or name in sc.fixed:
            return False
        if name.startswith("__") and name.endswith("__"):
            return False
        if sc.kind == "class":
            return False
        if sc.kind == "module":
            return self.module_ok
        if not self.locals_ok or self._scope_unsafe(sc):
            return False
        return name not in sc.params or self._param_ok(sc, name)

    def _param_ok(self, sc: _NameScope, name: str) -> bool:
        fn = sc.node
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            return False
        if self.col.double_star or name in self.keywords:
            return False
        if sc.parent is not None and sc.parent.kind == "class":
            return False  # methods: their parameters are an interface
        a = fn.args
        if any(p.arg == name for p in a.kwonlyargs):
            return False
        if isinstance(fn, FUNC):
            if fn.decorator_list:
                return False
            if sc.parent is not None and sc.parent.kind == "module":
                positional = [*a.posonlyargs, *a.args]
                with_default = positional[len(positional) - len(a.defaults):] if a.defaults else []
                if any(p.arg == name for p in with_default):
                    return False
        return True


def _fresh_names(taken: set[str], count: int) -> list[str]:
    out: list[str] = []
    i = 0
    while len(out) < count:
        name = f"v{i}"
        if name not in taken and not keyword.iskeyword(name):
            out.append(name)
        i += 1
    return out


@checked_source
def rename_identifiers(candidate: str, reference: str, rng: random.Random) -> str | None:
    """Local variables and parameters renamed to ``v0``, ``v1``, ... (see
    :mod:`lcl.engine.variants.perturb`); ``rng`` decides which binding gets which number."""
    tree = parse_checked_source(candidate)
    if tree is None:
        return None
    col = _Collector(tree)
    policy = _RenamePolicy(tree, col, parse_checked_source(reference))
    groups: dict[tuple[int, str], list[_Site]] = {}
    owners: dict[tuple[int, str], _NameScope] = {}
    for site in col.sites:
        owner = _resolve(site.scope, site.name, col.module)
        if owner is not None:
            groups.setdefault((id(owner), site.name), []).append(site)
            owners[(id(owner), site.name)] = owner
    keys = [k for k in groups if policy.allows(owners[k], k[1])]
    if not keys:
        return None
    new = _fresh_names(all_identifiers(tree) | BUILTINS | _string_words(tree), len(keys))
    rng.shuffle(new)
    for key, name in zip(keys, new, strict=True):  # _fresh_names returns exactly len(keys) names
        for site in groups[key]:
            setattr(site.holder, site.attr, name)
    return ast.unparse(tree)
