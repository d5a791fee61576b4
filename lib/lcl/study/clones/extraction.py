"""Step 1 of the clone pipeline (:mod:`lcl.study.clones`): every top-level function of every module of
the collections, as a *unit* (the function plus the top-level definitions it needs from its
module, docstrings removed, unparsed with :func:`ast.unparse`), with the reason a unit cannot
be used when it needs a relative, package or third-party import. Nothing here runs the code.
"""

from __future__ import annotations

import ast
import sys
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lcl.core import paths

from ..candidate_generation import strip_docstring_nodes

#: the four collections, as named in data/sources.toml and under data/raw/clones/
PACKAGES = ("algorithms", "pygorithm", "searchsort", "algos_py")


@dataclass(frozen=True)
class Function:
    package: str
    module: str  # path inside the package, e.g. "sorting/bubble_sort.py"
    name: str
    positional: int  # positional parameters
    required: int  # positional parameters without a default
    varargs: bool
    required_kwonly: int
    code: str  # the unit (function + what it needs), docstrings removed
    problem: str | None = None  # why the unit cannot be used (an import it needs)

    @property
    def qualname(self) -> str:
        return f"{self.package}/{self.module}:{self.name}"

    def accepts(self, arity: int) -> bool:
        """Callable with exactly ``arity`` positional arguments."""
        if self.required_kwonly:
            return False
        return self.required <= arity and (self.varargs or arity <= self.positional)


def _strip_docstrings(tree: ast.AST) -> None:
    strip_docstring_nodes(tree)


def _bound_names(stmt: ast.stmt) -> set[str]:
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {stmt.name}
    if isinstance(stmt, (ast.Import, ast.ImportFrom)):
        return {(a.asname or a.name).split(".")[0] for a in stmt.names}
    targets: list[ast.AST] = []
    if isinstance(stmt, ast.Assign):
        targets = list(stmt.targets)
    elif isinstance(stmt, (ast.AnnAssign, ast.AugAssign)):
        targets = [stmt.target]
    return {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}


class _Uses(ast.NodeVisitor):
    """Names a statement reads (annotations skipped when they are not evaluated)."""

    def __init__(self, skip_annotations: bool) -> None:
        self.skip = skip_annotations
        self.names: set[str] = set()

    def visit_Name(self, node: ast.Name) -> None:
        self.names.add(node.id)

    def visit_arg(self, node: ast.arg) -> None:
        if not self.skip and node.annotation is not None:
            self.visit(node.annotation)

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        for d in node.decorator_list:
            self.visit(d)
        self.visit(node.args)
        if not self.skip and node.returns is not None:
            self.visit(node.returns)
        for s in node.body:
            self.visit(s)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        if not self.skip:
            self.visit(node.annotation)
        self.visit(node.target)
        if node.value is not None:
            self.visit(node.value)


def _uses(stmt: ast.stmt, skip_annotations: bool) -> set[str]:
    v = _Uses(skip_annotations)
    v.visit(stmt)
    return v.names


def _has_annotations(stmts: list[ast.stmt]) -> bool:
    for s in stmts:
        for n in ast.walk(s):
            if isinstance(n, ast.arg) and n.annotation is not None:
                return True
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.returns is not None:
                return True
            if isinstance(n, ast.AnnAssign):
                return True
    return False


def _import_problem(stmt: ast.stmt) -> str | None:
    if isinstance(stmt, ast.ImportFrom):
        if stmt.level:
            return f"needs a relative import (from {'.' * stmt.level}{stmt.module or ''})"
        root = (stmt.module or "").split(".")[0]
        if root != "__future__" and root not in sys.stdlib_module_names:
            return f"needs a non-standard module ({root})"
    elif isinstance(stmt, ast.Import):
        for a in stmt.names:
            root = a.name.split(".")[0]
            if root not in sys.stdlib_module_names:
                return f"needs a non-standard module ({root})"
    return None


def units(package: str, module: str, source: str) -> list[Function]:
    with warnings.catch_warnings():  # old code: invalid escape sequences and the like
        warnings.simplefilter("ignore")
        tree = ast.parse(source)
    _strip_docstrings(tree)
    body = tree.body
    future = any(isinstance(s, ast.ImportFrom) and s.module == "__future__"
                 and any(a.name == "annotations" for a in s.names) for s in body)
    binders: dict[str, list[int]] = {}
    for i, s in enumerate(body):
        if isinstance(s, ast.ImportFrom) and s.module == "__future__":
            continue
        for name in _bound_names(s):
            binders.setdefault(name, []).append(i)
    out = []
    for i, s in enumerate(body):
        if not isinstance(s, ast.FunctionDef):
            continue
        keep, todo = {i}, [i]
        while todo:
            j = todo.pop()
            for name in _uses(body[j], future):
                for k in binders.get(name, ()):
                    if k not in keep:
                        keep.add(k)
                        todo.append(k)
        stmts = [body[k] for k in sorted(keep)]
        problem = next((p for st in stmts if (p := _import_problem(st))), None)
        if future and _has_annotations(stmts):
            stmts = [ast.ImportFrom(module="__future__", names=[ast.alias("annotations")], level=0), *stmts]
        code = "\n\n".join(ast.unparse(st) for st in stmts)
        a = s.args
        pos = len(a.posonlyargs) + len(a.args)
        out.append(Function(package, module, s.name, pos, pos - len(a.defaults), a.vararg is not None,
                            sum(1 for d in a.kw_defaults if d is None), code, problem))
    return out


def clones_root() -> Path:
    return paths.raw_clones()


def extract(root: Path | None = None, packages: tuple[str, ...] = PACKAGES,
            ledger: Any = None) -> list[Function]:
    """Every top-level function of every module of the collections that are present."""
    root = root or clones_root()
    out: list[Function] = []
    for pkg in packages:
        base = root / pkg
        if not base.is_dir():
            if ledger is not None:
                ledger.drop("CLONE package", f"{pkg} not fetched")
            continue
        for path in sorted(base.rglob("*.py")):
            rel = path.relative_to(base).as_posix()
            try:
                out += units(pkg, rel, path.read_text(encoding="utf-8"))
            except (SyntaxError, ValueError, UnicodeDecodeError):
                if ledger is not None:
                    ledger.drop("CLONE file", "does not parse")
    if ledger is not None:
        ledger.generated["CLONE functions extracted"] += len(out)
    return out
