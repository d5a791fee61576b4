"""Semantics-preserving perturbations of a pair's code: can a metric be fooled without changing
behaviour?

Study X2 (beyond the paper): semantics-preserving perturbations; each perturbed pair must be
re-verified by differential fuzzing (Algorithm 1) before use. The checks below are syntactic
and conservative; they argue why behaviour cannot change, and the fuzzer confirms it.

Each perturbation is a pure function ``(candidate_source, reference_source, rng) -> str | None``
registered in :data:`PERTURBATIONS`. ``None`` means "not applicable": the candidate does not
parse, nothing qualifies, or the output would equal the input. Every returned text parses and
compiles.

``misleading_comment``
    Comments that claim correctness ("# all tests pass") at the top of the module, after a
    shebang or encoding line, and before every function definition (above its decorators), at
    that definition's indentation. The edit is made on source lines, because comments exist only
    in source text. Comments are discarded by the tokenizer, so the compiled code is unchanged.
``reference_docstring``
    The reference's docstrings are copied into the candidate verbatim, as the reference's own
    source text. The module docstring goes to the module and each function's docstring goes to
    the function with the same qualified name. When no function name matches, the first
    function's docstring goes to the first function. Each copied docstring replaces the
    candidate's own. This changes only ``__doc__``, so the perturbation is not applied when the
    candidate reads ``__doc__``.
``rename_identifiers``
    Local variables and parameters get bland fresh names (``v0``, ``v1``, ...). A fresh name
    collides with no identifier in the module, not even attribute or keyword names. Names are
    resolved with Python's scoping rules: comprehension and lambda scopes, closures, class
    scopes that closures skip, and defaults, annotations and decorators evaluated in the
    enclosing scope. Every occurrence of one binding is renamed and nothing else is. The
    following are never renamed:

    * function, class and import names;
    * names in any ``global``/``nonlocal`` statement;
    * dunders and attributes;
    * names bound in class bodies, which are attributes;
    * builtins, and unbound names in general;
    * words that occur in string literals when the module calls ``eval``/``exec``/``compile``;
    * module-level names of function-level code, which an importer may read (a stdin program's
      globals are renamed, since nothing outside reads them);
    * parameters of methods and decorated functions;
    * keyword-only parameters, and parameters of top-level functions that have a default,
      because callers commonly pass those by keyword;
    * any parameter spelled like a keyword argument used in the candidate or the reference,
      and every parameter when the module unpacks ``**`` into a call.

    A scope that uses ``locals``, ``vars``, ``eval``, ``exec``, ``compile``, ``dir``,
    ``globals``, ``__import__`` or ``__dict__``, or that contains a class, is skipped entirely.
    So is the module level of a module that uses any of these. Nothing at all is renamed when
    the module reads introspection attributes such as ``__code__`` or ``__defaults__``.
``dead_code``
    No-effect statements at one to three random places. One kind is an ``if False:`` block of
    plausible code, which the compiler removes. The other is an unused constant assignment
    (``tmp = 0``), placed only at the top level of a function body so that it runs at most once
    per call, and never in a scope that can list its locals. Every name in the inserted code is
    fresh: a name assigned anywhere in a function is local to it, so reusing an existing name
    could shadow a global. Nothing is inserted before a docstring or a ``from __future__``
    import, and nothing into class bodies, where an assignment would add an attribute.
``reorder_statements``
    One pair of adjacent statements in the same block is swapped. Both statements must be
    assignments to plain names whose expressions contain no call, attribute, comprehension,
    lambda, walrus, f-string, yield or await. An augmented assignment qualifies only when its
    target is provably an ``int``, so ``+=`` cannot mutate a shared object. Neither statement
    may write a name that the other reads or writes. Neither may touch a ``global``/``nonlocal``
    name, and neither may write a name that a nested scope reads. At most one of the two may
    run user code or raise: the other may only load constants, parameters or names bound
    earlier in the same block. When one of them can raise, neither may be inside a ``try`` or
    ``with`` in its scope, so the frame that would observe the reordered write is unwound.
    Class bodies are never reordered, because attribute order is observable. Nor are modules
    with dynamic scope access.

:func:`mutant_with_reference_comments` is the SFD counterpart: a mutant that carries the
reference's docstrings (via the AST, as above) and its comments (via :mod:`tokenize`) verbatim.

:func:`perturb_pairs` applies perturbations to pair rows. Each RNG comes from a stable hash of
``(seed, id, name)``.

The AST-level perturbations (``rename_identifiers``, ``dead_code``, ``reorder_statements``)
write :func:`ast.unparse` text, the project's normal form for variants. The source-level ones
keep the candidate's layout. Nothing here executes the code it perturbs.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import io
import keyword
import random
import re
import tokenize
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..errors import UserError
from .rewrite.astutil import (
    _BUILTINS,
    _FUNC,
    _all_identifiers,
    _call_name,
    _captured,
    _declared_anywhere,
    _dynamic,
    _guarded,
    _names,
    _parents,
    _scope_of,
    _stmt_lists,
    _walk_scope,
)
from .rewrite.scope import _Scope

__all__ = [
    "PERTURBATIONS",
    "Perturbation",
    "apply_perturbation",
    "dead_code",
    "misleading_comment",
    "mutant_with_reference_comments",
    "perturb_pairs",
    "reference_docstring",
    "rename_identifiers",
    "reorder_statements",
]

Perturbation = Callable[[str, str, random.Random], "str | None"]
_Owner = ast.Module | ast.FunctionDef | ast.AsyncFunctionDef


# ----------------------------------------------------------------------------- source text

_CODING = re.compile(r"^[ \t\f]*#.*?coding[:=][ \t]*[-\w.]+")
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


def _parse(src: str) -> ast.Module | None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SyntaxWarning)  # the candidate's own dubious literals
            return ast.parse(src)
    except (SyntaxError, ValueError):
        return None


def _compiles(src: str) -> bool:
    """Stricter than parsing: also the symbol-table checks (``nonlocal`` targets, ``global``
    after use, ...). Compiling runs nothing."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SyntaxWarning)
            compile(src, "<perturbed>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError):
        return False
    return True


def _lines(src: str) -> list[str]:
    """Physical lines with their endings, split as the tokenizer counts them (``\\f`` and the
    other characters :meth:`str.splitlines` also splits on are not line breaks in Python)."""
    return _LINE.findall(src)


def _newline(lines: list[str]) -> str:
    for line in lines:
        for end in ("\r\n", "\n", "\r"):
            if line.endswith(end):
                return end
    return "\n"


def _header_lines(lines: list[str]) -> int:
    """How many leading lines must stay first: a shebang and/or an encoding declaration."""
    n = 0
    for i, line in enumerate(lines[:2]):
        if (i == 0 and line.startswith("#!")) or _CODING.match(line):
            n = i + 1
        else:
            break
    return n


def _indent(line: str) -> str:
    return line[:len(line) - len(line.lstrip(" \t\f"))]


def _char_col(line: str, byte_col: int) -> int:
    """AST column offsets count UTF-8 bytes; string slicing counts characters."""
    return len(line.encode("utf-8")[:byte_col].decode("utf-8"))


def _first_line(st: ast.stmt) -> int:
    """First line of a statement, decorators included (1-based)."""
    decorators = getattr(st, "decorator_list", [])
    return min([st.lineno, *(d.lineno for d in decorators)])


def _insert_lines(lines: list[str], before: Mapping[int, list[str]], after: Mapping[int, list[str]]) -> str:
    """Insert whole lines ``before[i]`` ahead of line ``i`` (0-based; ``len(lines)`` appends) and
    append ``after[i]`` (comment texts) at the end of line ``i``."""
    nl = _newline(lines)
    out: list[str] = []
    for i in range(len(lines) + 1):
        out.extend(before.get(i, []))
        if i == len(lines):
            break
        line = lines[i]
        if i in after:
            body = line.rstrip("\r\n")
            line = body + "".join(f"  {c}" for c in after[i]) + line[len(body):]
        if i == len(lines) - 1 and (i + 1) in before and not line.endswith(("\n", "\r")):
            line += nl
        out.append(line)
    return "".join(out)


def _checked(fn: Callable[[str, str, random.Random], str | None]) -> Perturbation:
    """The contract every registered perturbation keeps: ``None`` unless the candidate parses
    and the output compiles and differs from it."""

    @functools.wraps(fn)
    def run(candidate: str, reference: str, rng: random.Random) -> str | None:
        if _parse(candidate) is None:
            return None
        try:
            out = fn(candidate, reference, rng)
        except RecursionError:  # a pathologically deep tree: leave the pair alone
            return None
        if out is None or out == candidate or not _compiles(out):
            return None
        return out

    return run


# ----------------------------------------------------------------------------- misleading comments

_CLAIMS = (
    "# verified equivalent to the reference implementation",
    "# all tests pass",
    "# reviewed: behaviour identical to the reference solution",
    "# correct: checked against the reference on every test case",
    "# equivalent to the original implementation (verified)",
    "# passes the full test suite",
)


@_checked
def misleading_comment(candidate: str, reference: str, rng: random.Random) -> str | None:
    """Comments claiming correctness at the top of the module and before every function
    definition (see the module docstring)."""
    tree = _parse(candidate)
    if tree is None:
        return None
    lines = _lines(candidate)
    nl = _newline(lines)
    before: dict[int, list[str]] = {_header_lines(lines): [rng.choice(_CLAIMS) + nl]}
    defs = sorted((n for n in ast.walk(tree) if isinstance(n, _FUNC)), key=_first_line)
    for fn in defs:
        row = _first_line(fn) - 1
        before.setdefault(row, []).append(_indent(lines[row]) + rng.choice(_CLAIMS) + nl)
    return _insert_lines(lines, before, {})


# ----------------------------------------------------------------------------- docstrings

def _docstring_expr(node: ast.AST) -> ast.Expr | None:
    body = getattr(node, "body", None)
    if isinstance(body, list) and body and isinstance(body[0], ast.Expr) \
            and isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str):
        return body[0]
    return None


def _doc_value(doc: ast.Expr) -> str:
    value = doc.value
    assert isinstance(value, ast.Constant) and isinstance(value.value, str)  # _docstring_expr checked it
    return value.value


def _qualified_functions(tree: ast.AST) -> dict[str, ast.FunctionDef | ast.AsyncFunctionDef]:
    """Functions by qualified name (``Cls.method``, ``outer.inner``), first definition wins,
    in document order."""
    out: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = {}

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (*_FUNC, ast.ClassDef)):
                qual = prefix + child.name
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    out.setdefault(qual, child)
                visit(child, qual + ".")
            else:
                visit(child, prefix)

    visit(tree, "")
    return out


def _docstring_pairs(target: ast.Module, donor: ast.Module) -> list[tuple[_Owner, ast.Expr]]:
    """(target owner, donor docstring) pairs: the module, same-named functions, or, when no
    function name matches, the first function of each."""
    pairs: list[tuple[_Owner, ast.Expr]] = []
    doc = _docstring_expr(donor)
    if doc is not None:
        pairs.append((target, doc))
    tf, df = _qualified_functions(target), _qualified_functions(donor)
    common = [q for q in tf if q in df]
    matches = [(tf[q], df[q]) for q in common] if common else \
        [(next(iter(tf.values())), next(iter(df.values())))] if tf and df else []
    for owner, donor_fn in matches:
        doc = _docstring_expr(donor_fn)
        if doc is not None:
            pairs.append((owner, doc))
    return pairs


def _literal_text(donor_src: str, doc: ast.Expr) -> str:
    """The donor docstring's own source text when it stands alone as an expression with the
    same value (wrapped in parentheses for an implicit concatenation over lines), else its
    ``ast.unparse`` form (same value, other quoting)."""
    value = _doc_value(doc)
    seg = ast.get_source_segment(donor_src, doc.value)
    for text in ((seg, f"({seg})") if seg else ()):
        try:
            if ast.literal_eval(text) == value:
                return text
        except (SyntaxError, ValueError):
            continue
    return ast.unparse(doc.value)


@dataclass(frozen=True)
class _Edit:
    start: int  # absolute character offsets into the text
    end: int
    text: str


def _offset(starts: list[int], lines: list[str], lineno: int, byte_col: int) -> int:
    return starts[lineno - 1] + _char_col(lines[lineno - 1], byte_col)


def _docstring_edit(owner: _Owner, text: str, src: str, lines: list[str], starts: list[int]) -> _Edit:
    nl = _newline(lines)
    own = _docstring_expr(owner)
    if own is not None:
        v = own.value
        return _Edit(_offset(starts, lines, v.lineno, v.col_offset),
                     _offset(starts, lines, v.end_lineno or v.lineno, v.end_col_offset or 0), text)
    if not owner.body:  # an empty module
        pad = "" if not src or src.endswith(("\n", "\r")) else nl
        return _Edit(len(src), len(src), pad + text + nl)
    first = owner.body[0]
    row = _first_line(first)
    line = lines[row - 1]
    col = _char_col(line, first.col_offset) if row == first.lineno else len(_indent(line))
    if line[:col].strip():  # ``def f(): return x``: the body shares the header's line
        at = starts[row - 1] + col
        return _Edit(at, at, f"{text}; ")
    return _Edit(starts[row - 1], starts[row - 1], _indent(line) + text + nl)


def _apply_edits(src: str, edits: Iterable[_Edit]) -> str:
    for e in sorted(edits, key=lambda e: (e.start, e.end), reverse=True):
        src = src[:e.start] + e.text + src[e.end:]
    return src


def _docstrings_match(text: str, donor: ast.Module) -> bool:
    tree = _parse(text)
    if tree is None:
        return False
    for owner, doc in _docstring_pairs(tree, donor):
        own = _docstring_expr(owner)
        if own is None or _doc_value(own) != _doc_value(doc):
            return False
    return True


def _splice_docstrings(target_src: str, donor_src: str) -> str:
    """``target_src`` carrying ``donor_src``'s docstrings (see :func:`reference_docstring`);
    unchanged when the donor has none or either side does not parse."""
    target, donor = _parse(target_src), _parse(donor_src)
    if target is None or donor is None:
        return target_src
    pairs = _docstring_pairs(target, donor)
    if not pairs:
        return target_src
    lines = _lines(target_src)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))
    edits = [_docstring_edit(owner, _literal_text(donor_src, doc), target_src, lines, starts)
             for owner, doc in pairs]
    out = _apply_edits(target_src, edits)
    if _docstrings_match(out, donor):
        return out
    for owner, doc in pairs:  # the text edit failed its check: set the values on the AST
        new = ast.Expr(ast.Constant(_doc_value(doc)))
        if _docstring_expr(owner) is not None:
            owner.body[0] = new
        else:
            owner.body.insert(0, new)
    return ast.unparse(ast.fix_missing_locations(target))


def _reads_doc(tree: ast.AST) -> bool:
    return any((isinstance(n, ast.Attribute) and n.attr == "__doc__") or (isinstance(n, ast.Name) and n.id == "__doc__")
               for n in ast.walk(tree))


@_checked
def reference_docstring(candidate: str, reference: str, rng: random.Random) -> str | None:
    """The reference's docstrings, verbatim, in place of the candidate's (see the module
    docstring). Deterministic: ``rng`` is unused."""
    tree = _parse(candidate)
    if tree is None or _reads_doc(tree):
        return None
    return _splice_docstrings(candidate, reference)


# ----------------------------------------------------------------------------- renaming

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

    def visit(self, node: ast.AST, sc: _NameScope) -> None:  # noqa: C901 - one case per binding form
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
        if not isinstance(st, (*_FUNC, ast.ClassDef, ast.Import, ast.ImportFrom, ast.Assign, ast.AnnAssign,
                               ast.AugAssign, ast.Pass)):
            return True
        if not isinstance(st, (*_FUNC, ast.ClassDef)) and any(_call_name(n) == "input" for n in ast.walk(st)):
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
        self.declared = _declared_anywhere(tree)
        self.words = _string_words(tree)
        self.keywords = set(col.keywords)
        if reference is not None:
            self.keywords |= {n.arg for n in ast.walk(reference) if isinstance(n, ast.keyword) and n.arg}
        introspects = any(isinstance(n, ast.Attribute) and n.attr in _INTROSPECTION_ATTRS for n in ast.walk(tree))
        self.module_ok = _is_program(tree) and not _dynamic(tree) and not col.star_import and not introspects
        self.locals_ok = not introspects
        self._unsafe: dict[int, bool] = {}

    def _scope_unsafe(self, sc: _NameScope) -> bool:
        if id(sc) not in self._unsafe:
            self._unsafe[id(sc)] = _dynamic(sc.node) or any(isinstance(n, ast.ClassDef) for n in ast.walk(sc.node)) \
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
        if isinstance(fn, _FUNC):
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


@_checked
def rename_identifiers(candidate: str, reference: str, rng: random.Random) -> str | None:
    """Local variables and parameters renamed to ``v0``, ``v1``, ... (see the module
    docstring); ``rng`` decides which binding gets which number."""
    tree = _parse(candidate)
    if tree is None:
        return None
    col = _Collector(tree)
    policy = _RenamePolicy(tree, col, _parse(reference))
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
    new = _fresh_names(_all_identifiers(tree) | _BUILTINS | _string_words(tree), len(keys))
    rng.shuffle(new)
    for key, name in zip(keys, new):
        for site in groups[key]:
            setattr(site.holder, site.attr, name)
    return ast.unparse(tree)


# ----------------------------------------------------------------------------- dead code

_DEAD_BLOCKS = (
    "if False:\n    {a} = []\n    for {b} in range(10):\n        {a}.append({b} * {b})",
    "if False:\n    {a} = 0\n    while {a} < 10:\n        {a} += 1",
    "if False:\n    {a} = {{}}\n    {a}[0] = len({a})",
    "if False:\n    raise AssertionError('unreachable')",
)
_DEAD_ASSIGNMENTS = ("{a} = 0", "{a} = None", "{a} = ()")
_DEAD_NAMES = ("tmp", "buf", "acc", "cache", "seen", "unused", "scratch", "idx")


@dataclass(frozen=True)
class _Slot:
    stmts: list[ast.stmt]
    index: int
    live: bool  # an executed no-effect assignment may go here


def _is_future(st: ast.stmt) -> bool:
    return isinstance(st, ast.ImportFrom) and st.module == "__future__"


def _dead_slots(tree: ast.Module) -> list[_Slot]:
    parents = _parents(tree)
    slots: list[_Slot] = []
    for owner, stmts in _stmt_lists(tree):
        scope = owner if isinstance(owner, (*_FUNC, ast.ClassDef, ast.Module)) else _scope_of(owner, parents)
        if isinstance(scope, ast.ClassDef):
            continue
        start = 0
        if isinstance(owner, (*_FUNC, ast.Module)) and stmts is owner.body and _docstring_expr(owner) is not None:
            start = 1
        if isinstance(owner, ast.Module) and stmts is owner.body:
            while start < len(stmts) and _is_future(stmts[start]):
                start += 1
        live = isinstance(owner, _FUNC) and stmts is owner.body and not _dynamic(owner)
        slots.extend(_Slot(stmts, i, live) for i in range(start, len(stmts) + 1))
    return slots


class _Fresh:
    def __init__(self, tree: ast.AST):
        self.taken = _all_identifiers(tree) | _BUILTINS | set(keyword.kwlist)

    def __call__(self, base: str) -> str:
        name, i = base, 1
        while name in self.taken:
            i += 1
            name = f"{base}{i}"
        self.taken.add(name)
        return name


@_checked
def dead_code(candidate: str, reference: str, rng: random.Random) -> str | None:
    """One to three no-effect statements: ``if False:`` blocks, or unused constant assignments
    at the top of a function body (see the module docstring)."""
    tree = _parse(candidate)
    if tree is None:
        return None
    slots = _dead_slots(tree)
    if not slots:
        return None
    fresh = _Fresh(tree)
    chosen = rng.sample(slots, min(len(slots), rng.randint(1, 3)))
    for slot in sorted(chosen, key=lambda s: s.index, reverse=True):  # later slots first: indices stay valid
        templates = _DEAD_BLOCKS + (_DEAD_ASSIGNMENTS if slot.live else ())
        a, b = rng.sample(_DEAD_NAMES, 2)
        code = rng.choice(templates).format(a=fresh(a), b=fresh(b))
        slot.stmts[slot.index:slot.index] = ast.parse(code).body
    return ast.unparse(tree)


# ----------------------------------------------------------------------------- reordering

_PLAIN_NODES = (ast.Constant, ast.Name, ast.Tuple, ast.List, ast.Set, ast.Dict, ast.BinOp, ast.UnaryOp, ast.BoolOp,
                ast.Compare, ast.IfExp, ast.Subscript, ast.Slice, ast.expr_context, ast.operator, ast.unaryop,
                ast.boolop, ast.cmpop)


def _plain(e: ast.AST) -> bool:
    """No call, attribute, comprehension, lambda, walrus, f-string, starred, yield or await."""
    return all(isinstance(n, _PLAIN_NODES) for n in ast.walk(e))


def _silent(e: ast.AST, bound: set[str]) -> bool:
    """Evaluating ``e`` neither raises nor runs user code: constants, names certainly bound,
    and tuples/lists of those."""
    if isinstance(e, ast.Constant):
        return True
    if isinstance(e, ast.Name):
        return e.id in bound
    if isinstance(e, (ast.Tuple, ast.List)):
        return all(_silent(x, bound) for x in e.elts)
    return False


def _target_names(t: ast.AST) -> list[str] | None:
    if isinstance(t, ast.Name):
        return [t.id]
    if isinstance(t, (ast.Tuple, ast.List)):
        out: list[str] = []
        for elt in t.elts:
            names = _target_names(elt)
            if names is None:
                return None
            out += names
        return out
    return None


@dataclass(frozen=True)
class _Effect:
    reads: frozenset[str]
    writes: frozenset[str]
    loud: bool  # may raise or run user code


class _BlockFacts:
    """Facts about one function or module scope, computed on demand."""

    def __init__(self, node: ast.AST, tree: ast.Module):
        self.node = node
        self.tree = tree
        self.captured = _captured(node)
        deleted = {n.id for n in _walk_scope(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Del)}
        params: set[str] = set()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            a = node.args
            params = {p.arg for p in [*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg] if p is not None}
        self.deleted = deleted
        self.params = params - deleted
        self._ints: set[str] | None = None

    def ints(self) -> set[str]:
        if self._ints is None:
            self._ints = _Scope(self.node, self.tree).int_names()
        return self._ints

    def bound_before(self, stmts: list[ast.stmt], k: int) -> set[str]:
        """Names certainly bound when ``stmts[k]`` starts: parameters, and names bound by an
        earlier plain assignment, def, class or import of the same block (never deleted)."""
        out = set(self.params)
        for st in stmts[:k]:
            if isinstance(st, ast.Assign) and all(isinstance(t, ast.Name) for t in st.targets):
                out.update(t.id for t in st.targets if isinstance(t, ast.Name))
            elif isinstance(st, (*_FUNC, ast.ClassDef)):
                out.add(st.name)
        return out - self.deleted

    def effect(self, st: ast.stmt, bound: set[str]) -> _Effect | None:
        if isinstance(st, ast.Assign) and _plain(st.value):
            writes: list[str] = []
            for t in st.targets:
                names = _target_names(t)
                if names is None:
                    return None
                writes += names
            unpacks = any(not isinstance(t, ast.Name) for t in st.targets)
            return _Effect(frozenset(_names(st.value)), frozenset(writes), unpacks or not _silent(st.value, bound))
        if isinstance(st, ast.AugAssign) and isinstance(st.target, ast.Name) and _plain(st.value) \
                and st.target.id in self.ints():
            name = st.target.id
            return _Effect(frozenset(_names(st.value) | {name}), frozenset({name}), True)
        return None


def _swappable(a: _Effect, b: _Effect, facts: _BlockFacts, declared: set[str]) -> bool:
    if a.writes & (b.reads | b.writes) or b.writes & a.reads:
        return False
    if (a.reads | a.writes | b.reads | b.writes) & declared:
        return False
    if (a.writes | b.writes) & facts.captured:
        return False
    return not (a.loud and b.loud)


def _swap_sites(tree: ast.Module) -> list[tuple[list[ast.stmt], int]]:
    if _dynamic(tree):
        return []
    parents = _parents(tree)
    declared = _declared_anywhere(tree)
    facts: dict[int, _BlockFacts] = {}
    sites: list[tuple[list[ast.stmt], int]] = []
    for owner, stmts in _stmt_lists(tree):
        scope = owner if isinstance(owner, (*_FUNC, ast.ClassDef, ast.Module)) else _scope_of(owner, parents)
        if not isinstance(scope, (*_FUNC, ast.Module)):
            continue  # class bodies: attribute order is observable
        f = facts.setdefault(id(scope), _BlockFacts(scope, tree))
        for k in range(len(stmts) - 1):
            bound = f.bound_before(stmts, k)
            ea, eb = f.effect(stmts[k], bound), f.effect(stmts[k + 1], bound)
            if ea is None or eb is None or not _swappable(ea, eb, f, declared):
                continue
            if (ea.loud or eb.loud) and _guarded(stmts[k], parents):
                continue
            sites.append((stmts, k))
    return sites


@_checked
def reorder_statements(candidate: str, reference: str, rng: random.Random) -> str | None:
    """Swap one pair of adjacent, provably independent simple assignments (see the module
    docstring); ``rng`` picks the pair."""
    tree = _parse(candidate)
    if tree is None:
        return None
    sites = _swap_sites(tree)
    if not sites:
        return None
    stmts, k = rng.choice(sites)
    stmts[k], stmts[k + 1] = stmts[k + 1], stmts[k]
    return ast.unparse(tree)


# ----------------------------------------------------------------------------- registry

#: The perturbations by short name, in the study's order.
PERTURBATIONS: dict[str, Perturbation] = {
    "misleading_comment": misleading_comment,
    "reference_docstring": reference_docstring,
    "rename_identifiers": rename_identifiers,
    "dead_code": dead_code,
    "reorder_statements": reorder_statements,
}


def apply_perturbation(name: str, candidate: str, reference: str, rng: random.Random) -> str | None:
    """Run the perturbation ``name``; ``None`` when it does not apply."""
    if name not in PERTURBATIONS:
        raise UserError(f"unknown perturbation {name!r}; known: {', '.join(PERTURBATIONS)}")
    return PERTURBATIONS[name](candidate, reference, rng)


# ----------------------------------------------------------------------------- SFD counterpart

@dataclass(frozen=True)
class _Comment:
    row: int
    text: str
    full_line: bool  # alone on its line (else it trails code)


def _comments(src: str) -> list[_Comment]:
    """The comments of ``src``, without a shebang or an encoding declaration (they speak about
    the file, not the code)."""
    out: list[_Comment] = []
    try:
        for tok in tokenize.generate_tokens(io.StringIO(src).readline):
            if tok.type != tokenize.COMMENT:
                continue
            row, col = tok.start
            if (row == 1 and tok.string.startswith("#!")) or (row <= 2 and _CODING.match(tok.line)):
                continue
            out.append(_Comment(row, tok.string, not tok.line[:col].strip()))
    except (tokenize.TokenError, SyntaxError):
        return []
    return out


_Path = tuple[tuple[str, int], ...]


def _stmt_paths(tree: ast.AST) -> dict[_Path, ast.stmt]:
    """Each statement by its position: the chain of (field, index) from the module."""
    out: dict[_Path, ast.stmt] = {}

    def visit(node: ast.AST, path: _Path) -> None:
        for fld in ("body", "orelse", "finalbody", "handlers", "cases"):
            val = getattr(node, fld, None)
            if not isinstance(val, list):
                continue
            for i, child in enumerate(val):
                p = (*path, (fld, i))
                if isinstance(child, ast.stmt):
                    out[p] = child
                visit(child, p)

    visit(tree, ())
    return out


def _compound(st: ast.stmt) -> bool:
    return isinstance(getattr(st, "body", None), list) or isinstance(st, ast.Match)


def _one_line_header(st: ast.stmt) -> bool:
    """A compound statement whose header is exactly its first line (a comment can trail it)."""
    body = getattr(st, "body", None)
    return isinstance(body, list) and bool(body) and body[0].lineno == st.lineno + 1


def _anchor(c: _Comment, paths: dict[_Path, ast.stmt]) -> tuple[_Path | None, str]:
    """Where a reference comment sits: ("trail", the simple statement or compound header on its
    line), ("before", the simple statement around it or the next statement), or (None, "end")."""
    containing = [p for p, st in paths.items() if st.lineno <= c.row <= (st.end_lineno or st.lineno)]
    inner = max(containing, key=len) if containing else None
    if not c.full_line and inner is not None and (not _compound(paths[inner]) or paths[inner].lineno == c.row):
        return inner, "trail"
    # an ``else:``/``except:``/``finally:`` line's comment goes above that branch's first statement
    if inner is not None and not _compound(paths[inner]):
        return inner, "before"
    following = [p for p, st in paths.items() if _first_line(st) > c.row]
    if following:
        return min(following, key=lambda p: (_first_line(paths[p]), len(p))), "before"
    return None, "end"


def _enclosing_function(path: _Path, paths: dict[_Path, ast.stmt], qual: dict[int, str]) -> str | None:
    for n in range(len(path) - 1, 0, -1):
        st = paths.get(path[:n])
        if st is not None and isinstance(st, _FUNC):
            return qual.get(id(st))
    return None


def _place_comments(text: str, ref_tree: ast.Module, comments: list[_Comment]) -> str:
    tree = _parse(text)
    if tree is None or not comments:
        return text
    lines = _lines(text)
    nl = _newline(lines)
    ref_paths, mut_paths = _stmt_paths(ref_tree), _stmt_paths(tree)
    ref_qual = {id(fn): q for q, fn in _qualified_functions(ref_tree).items()}
    mut_functions = _qualified_functions(tree)
    before: dict[int, list[str]] = {}
    after: dict[int, list[str]] = {}

    def put_before(st: ast.stmt, comment: str) -> None:
        row = _first_line(st) - 1
        before.setdefault(row, []).append(_indent(lines[row]) + comment + nl)

    for c in comments:
        path, mode = _anchor(c, ref_paths)
        if path is None:
            before.setdefault(len(lines), []).append(c.text + nl)
            continue
        ref_st, mut_st = ref_paths[path], mut_paths.get(path)
        if mut_st is not None and type(mut_st) is type(ref_st):
            if mode == "trail" and not _compound(mut_st):
                after.setdefault((mut_st.end_lineno or mut_st.lineno) - 1, []).append(c.text)
            elif mode == "trail" and _one_line_header(mut_st):
                after.setdefault(mut_st.lineno - 1, []).append(c.text)
            else:
                put_before(mut_st, c.text)
            continue
        fn = mut_functions.get(_enclosing_function(path, ref_paths, ref_qual) or "")
        if fn is not None and fn.body:  # unaligned: the top of the enclosing function
            put_before(fn.body[0], c.text)
        else:
            before.setdefault(_header_lines(lines), []).append(c.text + nl)
    return _insert_lines(lines, before, after)


def mutant_with_reference_comments(mutant_source: str, reference_source: str) -> str:
    """The mutant carrying the reference's docstrings and comments verbatim: the SFD
    counterpart of :func:`reference_docstring` and :func:`misleading_comment` (study X2).

    Docstrings go by the AST, as in :func:`reference_docstring`. Comments are read from the
    reference with :mod:`tokenize`. A comment that trails code or precedes a statement is
    placed at the mutant's statement at the same position in the tree, when one of the same
    kind is there. Otherwise it goes at the top of the enclosing function, or at the top of the
    module. The result differs from the mutant only in docstrings and comments; if placing the
    comments would change anything else, only the docstrings are carried.
    """
    ref_tree, mut_tree = _parse(reference_source), _parse(mutant_source)
    if ref_tree is None or mut_tree is None:
        raise UserError("mutant_with_reference_comments: the mutant and the reference must both parse")
    text = _splice_docstrings(mutant_source, reference_source)
    out = _place_comments(text, ref_tree, _comments(reference_source))
    placed, spliced = _parse(out), _parse(text)
    if placed is None or spliced is None or ast.dump(placed) != ast.dump(spliced):
        return text
    return out


# ----------------------------------------------------------------------------- driver

def _pair_rng(seed: int, pair_id: str, name: str) -> random.Random:
    """An RNG per (seed, pair, perturbation) from a stable hash (Python's ``hash`` is salted)."""
    digest = hashlib.sha256(f"{seed}\x1f{pair_id}\x1f{name}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def perturb_pairs(rows: Iterable[Mapping[str, Any]], names: Sequence[str] | None = None, seed: int = 0, *,
                  side: str = "candidate") -> list[dict[str, Any]]:
    """Perturbed copies of pair rows (keys ``id``, ``reference``, ``candidate``; every other key
    is copied through).

    For each row and each perturbation in ``names`` (default: all, in :data:`PERTURBATIONS`
    order) that applies, the result has ``id = f"{id}~{name}"``, ``perturbation``, ``side``
    (``"candidate"``: the optimised variant is perturbed, the reference is the donor; or
    ``"reference"``: the other way round), ``parent_id`` and the perturbed code in place of that
    side's. Rows where a perturbation does not apply produce nothing for it. Study X2: every
    output row must be re-verified by differential fuzzing (Algorithm 1) before use.
    """
    if side not in ("candidate", "reference"):
        raise UserError(f"side must be 'candidate' or 'reference', not {side!r}")
    chosen = list(PERTURBATIONS) if names is None else list(names)
    unknown = [n for n in chosen if n not in PERTURBATIONS]
    if unknown:
        raise UserError(f"unknown perturbation(s) {', '.join(map(repr, unknown))}; known: {', '.join(PERTURBATIONS)}")
    other = "reference" if side == "candidate" else "candidate"
    out: list[dict[str, Any]] = []
    for row in rows:
        missing = [k for k in ("id", "reference", "candidate") if k not in row]
        if missing:
            raise UserError(f"pair row {row.get('id', '?')!r} lacks {', '.join(missing)}")
        for name in chosen:
            got = PERTURBATIONS[name](row[side], row[other], _pair_rng(seed, str(row["id"]), name))
            if got is None:
                continue
            new = dict(row)
            new.update({"id": f"{row['id']}~{name}", "perturbation": name, "side": side, "parent_id": row["id"],
                        side: got})
            out.append(new)
    return out
