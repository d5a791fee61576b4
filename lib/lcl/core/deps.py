"""Which library files each notebook and command reads, and a digest of their content, for Make.

Make reruns a notebook when a prerequisite is newer than its outputs. With every file under
``lib/`` as a prerequisite, a docstring edit anywhere reran every notebook (80 minutes at the
full profile). Instead each notebook's rule depends on ``build/deps/<PROFILE>/<target>.digest``,
which :func:`update` rewrites only when the content of the ``lcl`` modules that target reaches
changed, so the file's time moves only then.

What a target reaches is found statically, without importing anything: the Makefile runs this
file as a plain script (``python3.11 lib/lcl/core/deps.py``) at parse time, before the virtual
environment exists, so it uses the standard library only and nothing from ``lcl``.

- A notebook's ``import lcl.x``, ``from lcl.x import y`` (``y`` may be a submodule) and
  ``from lcl import x``, at any depth of its source.
- From each module reached, every import statement anywhere in it (inside functions too: a
  deferred import runs when the function does), relative ones resolved; not those under
  ``if TYPE_CHECKING:``, which never run.
- The ``__init__.py`` of every package above a module reached (importing ``lcl.rq.rq5`` runs
  ``lcl/__init__.py`` and ``lcl/rq/__init__.py``).
- String literals, docstrings aside, that name an existing ``lcl`` module: a registry's
  ``"lcl.x.y"``, ``python -m lcl.engine.inputs.probe``, a ``module:function`` default, the
  imports in a ``python -c`` line.
- A module that imports by a name computed relative to itself
  (``importlib.import_module(f"{__name__}.{mod}")``) depends on the submodules of its package
  that its string literals name, or on all of them when none is named.
- For every notebook, what ``lcl notebook run`` executes around it (:data:`RUNNER`): a change
  there reruns every notebook.

A command Make runs outside the notebooks (:data:`COMMANDS`) starts from the function behind it
(``module:function``): its module's references made at import, the function's own and those of
the functions and classes of that module it names. ``lcl.cli`` imports every command module by
name only to register its options, so the names in its strings are not followed
(:data:`NAMES_NOT_FOLLOWED`): a command depends on its own module, not on every other command's.

A digest file holds the digest, then one ``<sha256>  <path>`` line per file reached, sorted
(``sha256sum``'s format; the digest is the sha256 of those lines), so a person can see why a
target reran: ``python3.11 lib/lcl/core/deps.py --explain 07_rq5_training`` lists them. What
each file's parse found is cached by content in ``.scan.json`` beside the digest files.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import os
import re
import sys
import tempfile
import warnings
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

#: the package whose modules are followed
PACKAGE = "lcl"
#: what ``lcl notebook run`` executes around every notebook: a change here reruns every notebook
RUNNER: tuple[str, ...] = ("lcl.cli.notebook", "lcl.report.runner")
#: the targets that are commands, not notebooks: name -> entry points (``module:function`` or a module)
COMMANDS: dict[str, tuple[str, ...]] = {
    "codescore_base": ("lcl.cli.metrics:cmd_codescore_base", "lcl.study.codescore_base"),  # lcl codescore-base
    "findings": ("lcl.cli.outputs:cmd_findings",),  # lcl findings
    "report": ("lcl.cli.outputs:cmd_report",),  # lcl report
}
#: modules whose string literals name modules they do not run: ``lcl.cli``'s ``COMMAND_MODULES``
#: (each imported only to add its parser) and this module's targets (names to analyse)
NAMES_NOT_FOLLOWED = frozenset({"lcl.cli", "lcl.core.deps"})
NOTEBOOK_GLOB = "[0-9][0-9]_*.py"
#: bumped when what a scan records changes, so older caches are ignored
SCAN_VERSION = 1

_DOTTED = re.compile(r"\blcl(?:\.[A-Za-z_]\w*)+")
_LOADERS = frozenset({"import_module", "__import__"})
_TOP = ""  # the bucket of what runs at import: statements outside any function or class body
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)

Scan = dict[str, Any]  # what a file's parse found, before resolving names against the library (JSON)


# ---------------------------------------------------------------------- scanning one file
def scan(text: str, package: str, filename: str = "<string>") -> Scan:
    """What Python source ``text`` references, its relative imports resolved against ``package``.

    ``defs``: its top-level functions and classes. By bucket (``""``: what runs at import; else
    the top-level function or class whose body holds them): ``refs``, ``[kind, dotted name]``
    within ``lcl`` with kind ``m`` (a module or a name in one: the longest prefix that is a
    module counts), ``s`` (counts only if it is a module: ``from a import b``'s ``a.b``) or ``l``
    (named in a string literal); ``names``, the top-level functions and classes named. ``loader``
    (with ``idents``, its identifier-like strings): whether it imports by a name computed
    relative to itself."""
    try:
        with warnings.catch_warnings():  # e.g. an invalid escape sequence: the module's own business
            warnings.simplefilter("ignore")
            tree = ast.parse(text, filename=filename)
    except SyntaxError as exc:
        raise SyntaxError(f"{filename}:{exc.lineno}: {exc.msg}") from None
    defs = {n.name for n in tree.body if isinstance(n, _DEFS)}
    refs: dict[str, list[list[str]]] = {}
    names: dict[str, set[str]] = {}
    idents: set[str] = set()
    loader = False

    def absolute(module: str | None, level: int) -> str:
        if not level:
            return module or ""
        parts = package.split(".")
        return ".".join(parts[: len(parts) - level + 1] + ([module] if module else []))

    def walk(nodes: Iterable[ast.AST], bucket: str) -> None:
        nonlocal loader
        out = refs.setdefault(bucket, [])
        named = names.setdefault(bucket, set())
        stack = list(nodes)
        while stack:
            node = stack.pop()
            if isinstance(node, ast.Import):
                out += [["m", a.name] for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = absolute(node.module, node.level)
                out.append(["m", base])
                out += [["s", f"{base}.{a.name}"] for a in node.names if a.name != "*"]
            elif isinstance(node, ast.Constant):
                if isinstance(node.value, str):
                    value = node.value
                    if value.isidentifier():
                        idents.add(value)
                    if PACKAGE in value:
                        out += [["l", m.group(0)] for m in _DOTTED.finditer(value)]
                        if "import" in value:  # code in a string, e.g. a `python -c` boot line
                            try:
                                inner = scan(value, package)
                            except (SyntaxError, ValueError):
                                inner = None
                            if inner:
                                out += [["l", name] for refs_ in inner["refs"].values() for _, name in refs_]
            elif isinstance(node, ast.Name):
                if node.id in defs and node.id != bucket:
                    named.add(node.id)
            elif isinstance(node, ast.If) and _is_type_checking(node.test):
                stack += node.orelse  # the body runs only under a type checker
            elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
                pass  # a docstring or a bare string: words, not a reference
            else:
                if isinstance(node, ast.Call) and _loads_relative(node, out, absolute):
                    loader = True
                stack += ast.iter_child_nodes(node)

    for stmt in tree.body:
        if isinstance(stmt, _DEFS):
            # decorators, defaults and base classes run at import; the body when it is called
            head: list[ast.AST] = list(stmt.decorator_list)
            if isinstance(stmt, ast.ClassDef):
                head += [*stmt.bases, *stmt.keywords]
            else:
                head += [d for d in [*stmt.args.defaults, *stmt.args.kw_defaults] if d is not None]
            walk(head, _TOP)
            walk(stmt.body, stmt.name)
        else:
            walk([stmt], _TOP)
    ours = {b: sorted(map(list, {(k, n) for k, n in r if n.split(".")[0] == PACKAGE})) for b, r in refs.items()}
    return {"defs": sorted(defs), "refs": {b: r for b, r in ours.items() if r},
            "names": {b: sorted(n) for b, n in names.items() if n}, "loader": loader,
            "idents": sorted(idents) if loader else []}


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _loads_relative(node: ast.Call, out: list[list[str]], absolute: Callable[[str | None, int], str]) -> bool:
    """Whether ``node`` imports by a name computed relative to the module (``import_module(
    f"{__name__}.{x}")``, ``import_module(x, package=...)``); a literal relative name
    (``import_module(".x", __package__)``) is added to ``out`` instead."""
    func = node.func
    called = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    if called not in _LOADERS or not node.args:
        return False
    first = node.args[0]
    if isinstance(first, ast.Constant):
        if isinstance(first.value, str) and first.value.startswith("."):
            level = len(first.value) - len(first.value.lstrip("."))
            out.append(["m", absolute(first.value[level:] or None, level)])
        return False
    used = {n.id for arg in [*node.args, *(k.value for k in node.keywords)] for n in ast.walk(arg)
            if isinstance(n, ast.Name)}
    return bool(used & {"__name__", "__package__"}) or any(k.arg == "package" for k in node.keywords)


def notebook_code(text: str) -> str:
    """A notebook source (jupytext percent format) as Python: IPython magics and shell escapes a
    cell may hold uncommented (``%time``, ``!ls``) are blanked, keeping line numbers."""
    return "\n".join("" if ln.lstrip().startswith(("%", "!")) else ln for ln in text.splitlines()) + "\n"


# ---------------------------------------------------------------------- the library
class Library:
    """The ``lcl`` modules under ``lib_dir`` (the folder holding ``lcl/``). Paths in digests are
    relative to the folder above it (``lib/lcl/rq/rq5.py``). ``cache``: a JSON file of earlier
    scans, by path and content digest (read if there, written by :meth:`save_cache`)."""

    def __init__(self, lib_dir: Path, cache: Path | None = None) -> None:
        self.lib_dir = Path(lib_dir)
        self.root = self.lib_dir.parent
        self.files: dict[str, Path] = {}
        self.packages: set[str] = set()
        for path in sorted((self.lib_dir / PACKAGE).rglob("*.py")):
            parts = list(path.relative_to(self.lib_dir).with_suffix("").parts)
            if "__pycache__" in parts:
                continue
            if parts[-1] == "__init__":
                parts.pop()
                self.packages.add(".".join(parts))
            self.files[".".join(parts)] = path
        if PACKAGE not in self.files:
            raise FileNotFoundError(f"no {PACKAGE}/__init__.py under {self.lib_dir}")
        self.cache_path = cache
        self._cache: dict[str, Any] = {}
        if cache is not None:
            try:
                loaded = json.loads(cache.read_text(encoding="utf-8"))
                if loaded.get("version") == SCAN_VERSION:
                    self._cache = loaded.get("files", {})
            except (OSError, ValueError, AttributeError):
                pass
        self._used: dict[str, Any] = {}
        self._data: dict[str, bytes] = {}
        self._sha: dict[str, str] = {}
        self._reach: dict[tuple[str, tuple[str, ...] | None, bool], set[str]] = {}

    # ------------------------------------------------------------------ files and scans
    def relative(self, name: str) -> str:
        return self.files[name].relative_to(self.root).as_posix()

    def sha(self, path: Path) -> str:
        key = str(path)
        if key not in self._sha:
            self._data[key] = path.read_bytes()
            self._sha[key] = hashlib.sha256(self._data[key]).hexdigest()
        return self._sha[key]

    def scan_file(self, path: Path, package: str, *, notebook: bool = False) -> Scan:
        """``path``'s scan, from the cache when its content is the one scanned."""
        try:
            key = path.resolve().relative_to(self.root.resolve()).as_posix()
        except ValueError:
            key = str(path.resolve())
        sha = self.sha(path)
        hit = self._cache.get(key)
        if not (hit and hit.get("sha") == sha and hit.get("package") == package):
            text = self._data[str(path)].decode("utf-8")
            hit = {"sha": sha, "package": package, "scan": scan(notebook_code(text) if notebook else text, package,
                                                                str(path))}
        self._used[key] = hit
        return hit["scan"]

    def save_cache(self) -> None:
        """Write the scans used into the cache file (when one was given and they differ)."""
        if self.cache_path is not None:
            text = json.dumps({"version": SCAN_VERSION, "files": self._used}, sort_keys=True, separators=(",", ":"))
            write_if_changed(self.cache_path, text + "\n")

    # ------------------------------------------------------------------ names
    def existing(self, dotted: str) -> str | None:
        """The longest prefix of ``dotted`` that is an ``lcl`` module (None outside ``lcl``)."""
        parts = dotted.split(".")
        while parts:
            name = ".".join(parts)
            if name in self.files:
                return name
            parts.pop()
        return None

    def resolve(self, found: Scan, package: str, buckets: Iterable[str] | None = None, *,
                literals: bool = True) -> set[str]:
        """The modules a scan's ``buckets`` (all when None) reference."""
        out: set[str] = set()
        refs = found["refs"]
        for bucket in refs if buckets is None else buckets:
            for kind, dotted in refs.get(bucket, ()):
                if kind == "s":
                    if dotted in self.files:
                        out.add(dotted)
                elif kind == "m" or literals:
                    name = self.existing(dotted)
                    if name:
                        out.add(name)
        if found["loader"] and (buckets is None or _TOP in buckets):
            subs = {m for m in self.files if m.startswith(package + ".")}
            named = {f"{package}.{s}" for s in found["idents"]} & subs
            out |= named or subs
        return out

    def package_of(self, name: str) -> str:
        return name if name in self.packages else name.rpartition(".")[0]

    def reached(self, name: str, buckets: tuple[str, ...] | None = None) -> set[str]:
        """What module ``name`` references directly (in ``buckets``; all when None)."""
        key = (name, buckets, name not in NAMES_NOT_FOLLOWED)
        if key not in self._reach:
            package = self.package_of(name)
            found = self.scan_file(self.files[name], package)
            self._reach[key] = self.resolve(found, package, buckets, literals=key[2]) - {name}
        return self._reach[key]

    # ------------------------------------------------------------------ closures
    def closure(self, seeds: Iterable[str]) -> set[str]:
        """Every module reached from the modules ``seeds``, with the packages above each."""
        todo = list(seeds)
        seen: set[str] = set()
        while todo:
            name = todo.pop()
            if name in seen or name not in self.files:
                continue
            seen.add(name)
            parts = name.split(".")
            todo += [".".join(parts[:i]) for i in range(1, len(parts))]
            todo += self.reached(name)
        return seen

    def entry(self, spec: str) -> set[str]:
        """What an entry point reaches: a module's closure, or for ``module:function`` the module
        (its file and packages), what it references at import, and what the function and the
        module's functions and classes it names (transitively) reference, with their closures."""
        name, _, func = spec.partition(":")
        if name not in self.files:
            raise KeyError(f"{spec}: no module {name} under {self.lib_dir}")
        if not func:
            return self.closure([name])
        found = self.scan_file(self.files[name], self.package_of(name))
        if func not in found["defs"]:
            raise KeyError(f"{spec}: {name} defines no function {func}")
        buckets, todo = set(), [func]
        while todo:
            b = todo.pop()
            if b not in buckets:
                buckets.add(b)
                todo += found["names"].get(b, [])
        parts = name.split(".")
        direct = self.reached(name, (_TOP, *sorted(buckets)))
        return {name} | self.closure([".".join(parts[:i]) for i in range(1, len(parts))]) | self.closure(direct)

    def entries(self, specs: Iterable[str]) -> set[str]:
        out: set[str] = set()
        for spec in specs:
            out |= self.entry(spec)
        return out

    def notebook_imports(self, source: Path) -> set[str]:
        """The modules a notebook source (``notebooks/NN_name.py``) reaches by itself."""
        return self.closure(self.resolve(self.scan_file(source, PACKAGE, notebook=True), PACKAGE))

    def notebook(self, source: Path) -> set[str]:
        """The modules a notebook's run reaches: its own and :data:`RUNNER`'s."""
        return self.notebook_imports(source) | self.entries(RUNNER)

    # ------------------------------------------------------------------ digests
    def listing(self, modules: Iterable[str]) -> str:
        """``<sha256>  <path>`` per module file, sorted by path."""
        lines = sorted(f"{self.relative(m)}\0{self.sha(self.files[m])}" for m in modules)
        return "".join(f"{sha}  {rel}\n" for rel, sha in (ln.split("\0") for ln in lines))

    def digest(self, modules: Iterable[str]) -> str:
        return hashlib.sha256(self.listing(modules).encode()).hexdigest()

    def render(self, modules: Iterable[str]) -> str:
        """A digest file's text: the digest, then the listing it is the digest of."""
        listing = self.listing(modules)
        return hashlib.sha256(listing.encode()).hexdigest() + "\n" + listing


# ---------------------------------------------------------------------- targets and files
def default_lib_dir() -> Path:
    """The folder holding this ``lcl`` package (``lib/``)."""
    return Path(__file__).resolve().parents[2]


def targets(lib: Library, notebooks_dir: Path) -> dict[str, set[str]]:
    """target -> the ``lcl`` modules it reaches: one per notebook (``NN_name``), one per command."""
    out = {src.stem: lib.notebook(src) for src in sorted(notebooks_dir.glob(NOTEBOOK_GLOB))}
    for name, specs in COMMANDS.items():
        out[name] = lib.entries(specs)
    return out


def notebook_digest(source: str | Path, lib_dir: str | Path | None = None, cache: Path | None = None) -> str:
    """The digest of what the notebook ``source`` (``notebooks/NN_name.py``) reads of the library
    (the one Make compares; :mod:`lcl.report.runner` records it as ``lib_digest``). ``cache``: a
    scan cache to read (``build/deps/<profile>/.scan.json``), never written here."""
    lib = Library(Path(lib_dir) if lib_dir else default_lib_dir(), cache)
    return lib.digest(lib.notebook(Path(source)))


def write_if_changed(path: Path, text: str, *, mtime: float | None = None) -> bool:
    """Write ``text`` to ``path`` atomically unless it already holds exactly that; return whether
    it was written. A new file gets ``mtime`` when given (so creating the digest files does not
    make every output look out of date); a changed one the time now."""
    try:
        if path.read_text(encoding="utf-8") == text:
            return False
        existed = True
    except FileNotFoundError:
        existed = False
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.chmod(tmp, 0o644)
        if not existed and mtime is not None:
            os.utime(tmp, (mtime, mtime))
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return True


def changed_files(old_text: str, new_text: str) -> list[str]:
    """The paths whose line differs between two digest files' texts (added, edited or removed)."""
    before, after = set(old_text.splitlines()[1:]), set(new_text.splitlines()[1:])
    return sorted({line.partition("  ")[2] for line in before ^ after})


def update(root: Path, out_dir: Path) -> dict[str, list[str]]:
    """Write ``out_dir/<target>.digest`` for every target of the project at ``root`` whose text
    changed; return the targets written, each with the files that changed ([] for a new file).
    A new file's time is that of the newest file it lists: what ``lib/`` as a prerequisite gave."""
    lib = Library(root / "lib", out_dir / ".scan.json")
    changed: dict[str, list[str]] = {}
    for name, modules in targets(lib, root / "notebooks").items():
        path, text = out_dir / f"{name}.digest", lib.render(modules)
        try:
            why = changed_files(path.read_text(encoding="utf-8"), text)
        except FileNotFoundError:
            why = []
        newest = max(lib.files[m].stat().st_mtime for m in modules)
        if write_if_changed(path, text, mtime=newest):
            changed[name] = why
    lib.save_cache()
    return changed


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="deps.py",
        description=f"Write ROOT/build/deps/PROFILE/TARGET.digest for every notebook (NN_name) and command "
                    f"({', '.join(COMMANDS)}) whose library content changed: the digest of the lcl modules it "
                    "reaches, then each file's sha256 and path. A file whose text would not change is left "
                    "alone, so Make sees only real changes. Prints which targets changed and why.",
    )
    parser.add_argument("--root", type=Path, default=Path("."), help="the project root (default: .)")
    parser.add_argument("--profile", default="full", help="the profile whose folder gets the files (default: full)")
    parser.add_argument("--out", type=Path, default=None, help="where to write (default: ROOT/build/deps/PROFILE)")
    parser.add_argument("--explain", metavar="TARGET", help="print the files TARGET reaches and write nothing")
    parser.add_argument("--quiet", action="store_true", help="do not say which targets changed")
    args = parser.parse_args(argv)
    try:
        if args.explain:
            lib = Library(args.root / "lib")
            found = targets(lib, args.root / "notebooks")
            if args.explain not in found:
                parser.error(f"no target {args.explain}; targets: {', '.join(found)}")
            print("\n".join(sorted(lib.relative(m) for m in found[args.explain])))
            return 0
        changed = update(args.root, args.out or args.root / "build" / "deps" / args.profile)
    except (OSError, SyntaxError, KeyError, UnicodeDecodeError) as exc:
        print(f"deps.py: error: {exc.args[0] if isinstance(exc, KeyError) else exc}", file=sys.stderr)
        return 1
    by_cause: dict[tuple[str, ...], list[str]] = {}
    for name, files in changed.items():
        if files:  # a new digest file is no news
            by_cause.setdefault(tuple(files), []).append(name)
    for cause, names in by_cause.items():
        if not args.quiet:
            more = f" and {len(cause) - 3} more" if len(cause) > 3 else ""
            print(f"lcl changed for {', '.join(names)}: {', '.join(cause[:3])}{more}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
