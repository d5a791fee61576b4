"""A notebook reruns only when the library content it reads changed (``lcl.core.deps``, the Makefile's
``build/deps/PROFILE/<target>.digest`` prerequisites): the static analysis on a small fake library,
the digest files' write-if-changed, the real Makefile on a scratch copy (a second ``make all`` is a
no-op; a docstring edit reruns only the notebooks that reach the module), and a check that the
static analysis misses none of the modules a notebook's imports load when they run."""

from __future__ import annotations

import ast
import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from lcl.core import deps

from .conftest import ROOT

DEPS_PY = ROOT / "lib" / "lcl" / "core" / "deps.py"


# ----------------------------------------------------------------------------- a fake library
def _write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))


FAKE = {
    "lib/lcl/__init__.py": '"""The fake lcl; it mentions lcl.unused in words only."""\n',
    "lib/lcl/a/__init__.py": "",
    # a function-body import, and one that only a type checker runs
    "lib/lcl/a/top.py": """\
        from typing import TYPE_CHECKING

        if TYPE_CHECKING:
            from lcl import typing_only


        def f():
            from lcl.b import inner
            return inner.X
        """,
    "lib/lcl/b/__init__.py": "",
    "lib/lcl/b/inner.py": "from .rel import X\n",  # a relative import
    "lib/lcl/b/rel.py": '"""Relative."""\n\nX = 1\nREGISTRY = {"named": "lcl.c.named:function"}\n',  # a string literal
    "lib/lcl/c/__init__.py": "",
    "lib/lcl/c/named.py": "def function():\n    return 1\n",
    # a package that loads its submodules lazily by a name relative to itself
    "lib/lcl/d/__init__.py": "",
    "lib/lcl/d/lazy/__init__.py": """\
        import importlib

        _EXPORTS = {"thing": "impl"}


        def __getattr__(name):
            return getattr(importlib.import_module(f"{__name__}.{_EXPORTS[name]}"), name)
        """,
    "lib/lcl/d/lazy/impl.py": "thing = 1\n",
    "lib/lcl/d/lazy/other.py": "",
    "lib/lcl/unused.py": "",
    "lib/lcl/typing_only.py": "",
    # what deps.RUNNER and deps.COMMANDS name, so that the fake project has every target
    "lib/lcl/cli/__init__.py": 'COMMAND_MODULES = ["lcl.cli.notebook", "lcl.cli.metrics", "lcl.cli.outputs"]\n',
    "lib/lcl/cli/notebook.py": "from lcl.report import runner\n",
    "lib/lcl/report/__init__.py": "",
    "lib/lcl/report/runner.py": "",
    "lib/lcl/cli/metrics.py": """\
        from lcl.c import named


        def cmd_codescore_base(args):
            from lcl.study import codescore_base
            return helper(codescore_base)


        def helper(x):
            return x


        def cmd_local_trained(args):
            from lcl.b import inner
            return inner
        """,
    "lib/lcl/study/__init__.py": "",
    "lib/lcl/study/codescore_base.py": "",
    "lib/lcl/cli/outputs.py": "def cmd_findings(args):\n    pass\n\n\ndef cmd_report(args):\n    pass\n",
    "notebooks/00_x.py": "# %% [markdown]\n# words\n\n# %%\n%matplotlib inline\nfrom lcl.a import top\nfrom lcl.d import lazy\n",
    "notebooks/01_y.py": "# %%\nimport lcl.c.named\n",
}

RUNNER_FILES = {"lib/lcl/__init__.py", "lib/lcl/cli/__init__.py", "lib/lcl/cli/notebook.py",
                "lib/lcl/report/__init__.py", "lib/lcl/report/runner.py"}


@pytest.fixture
def fake(tmp_path: Path) -> Path:
    _write(tmp_path, FAKE)
    return tmp_path


def _files(lib: deps.Library, modules: set[str]) -> set[str]:
    return {lib.relative(m) for m in modules}


def test_the_closure_follows_function_bodies_relative_imports_parents_strings_and_lazy_loaders(fake: Path):
    lib = deps.Library(fake / "lib")
    got = _files(lib, lib.notebook_imports(fake / "notebooks" / "00_x.py"))
    assert got == {
        "lib/lcl/__init__.py", "lib/lcl/a/__init__.py", "lib/lcl/a/top.py",
        "lib/lcl/b/__init__.py", "lib/lcl/b/inner.py",  # imported inside f()
        "lib/lcl/b/rel.py",  # from .rel import X
        "lib/lcl/c/__init__.py", "lib/lcl/c/named.py",  # "lcl.c.named:function"
        "lib/lcl/d/__init__.py", "lib/lcl/d/lazy/__init__.py", "lib/lcl/d/lazy/impl.py",  # named by "impl"
    }  # not: typing_only (TYPE_CHECKING), unused (a docstring), lazy/other (never named)
    # a notebook's run also reaches what `lcl notebook run` executes
    assert _files(lib, lib.notebook(fake / "notebooks" / "01_y.py")) == RUNNER_FILES | {
        "lib/lcl/c/__init__.py", "lib/lcl/c/named.py"}


def test_a_lazy_loader_whose_names_are_computed_depends_on_every_submodule(fake: Path):
    _write(fake, {"lib/lcl/d/lazy/__init__.py": """\
        import importlib


        def __getattr__(name):
            return importlib.import_module(f"{__name__}.{name.lower()}")
        """})
    lib = deps.Library(fake / "lib")
    assert {"lcl.d.lazy.impl", "lcl.d.lazy.other"} <= lib.closure(["lcl.d.lazy"])


def test_a_command_reaches_its_own_function_not_the_other_commands(fake: Path):
    lib = deps.Library(fake / "lib")
    target = deps.targets(lib, fake / "notebooks")["codescore_base"]
    # cli/metrics.py's import-time `from lcl.c import named`, cmd_codescore_base's import and helper()
    assert {"lcl.cli.metrics", "lcl.c.named", "lcl.study.codescore_base"} <= target
    assert "lcl.b.inner" not in target  # imported by cmd_local_trained only
    assert "lcl.cli.outputs" not in target  # named in lcl.cli's COMMAND_MODULES, which are not followed
    with pytest.raises(KeyError, match="defines no function cmd_nothing"):
        lib.entry("lcl.cli.metrics:cmd_nothing")


def test_digest_files_change_only_when_the_content_they_list_does(fake: Path):
    out = fake / "build" / "deps" / "quick"
    first = deps.update(fake, out)
    assert set(first) == {"00_x", "01_y", "codescore_base", "findings", "report"}
    text = (out / "00_x.digest").read_text()
    digest, *listing = text.splitlines()
    assert [ln.split("  ")[1] for ln in listing] == sorted(_files(deps.Library(fake / "lib"),
                                                                  deps.Library(fake / "lib").notebook(fake / "notebooks" / "00_x.py")))
    assert digest == deps.notebook_digest(fake / "notebooks" / "00_x.py", fake / "lib")
    # a new file has the time of the newest file it lists, as `lib/` as a prerequisite gave
    newest = max((fake / ln.split("  ")[1]).stat().st_mtime for ln in listing)
    assert (out / "00_x.digest").stat().st_mtime == newest
    for f in out.glob("*.digest"):
        os.utime(f, (1_000_000, 1_000_000))
    (fake / "lib/lcl/unused.py").write_text("# reached by nothing\n")
    assert deps.update(fake, out) == {}  # nothing listed changed: every time stays
    assert {f.stat().st_mtime for f in out.glob("*.digest")} == {1_000_000}
    rel = fake / "lib/lcl/b/rel.py"
    rel.write_text(rel.read_text().replace('"""Relative."""', '"""Relative.\n\nOne more docstring line."""'))
    changed = deps.update(fake, out)
    assert changed == {"00_x": ["lib/lcl/b/rel.py"]}
    assert (out / "00_x.digest").stat().st_mtime > 1_000_000
    assert (out / "00_x.digest").read_text().splitlines()[0] != digest
    assert (out / "01_y.digest").stat().st_mtime == 1_000_000
    assert not list(out.glob(".*.tmp"))  # written through a temporary file, none left


def test_the_script_runs_on_the_standard_library_alone_and_says_what_it_did(fake: Path):
    imported = set()
    for node in ast.walk(ast.parse(DEPS_PY.read_text())):
        if isinstance(node, ast.Import):
            imported |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and not node.level:
            imported.add((node.module or "").split(".")[0])
    assert imported - {"__future__"} <= sys.stdlib_module_names, imported - sys.stdlib_module_names

    def script(*args: str) -> subprocess.CompletedProcess[str]:  # -S -I: no site-packages, no PYTHON* variables
        return subprocess.run([sys.executable, "-S", "-I", str(DEPS_PY), "--root", str(fake), *args],
                              capture_output=True, text=True, timeout=60)

    assert script("--help").returncode == 0
    r = script("--explain", "01_y")
    assert r.returncode == 0 and r.stdout.split() == sorted(RUNNER_FILES | {"lib/lcl/c/__init__.py", "lib/lcl/c/named.py"})
    assert script("--explain", "99_none").returncode == 2
    r = script("--profile", "quick")
    assert r.returncode == 0 and r.stdout == "" and (fake / "build/deps/quick/00_x.digest").exists()
    named = fake / "lib/lcl/c/named.py"
    named.write_text('"""Now documented."""\n' + named.read_text())
    r = script("--profile", "quick")
    assert r.stdout == "lcl changed for 00_x, 01_y, codescore_base: lib/lcl/c/named.py\n", r.stdout
    named.write_text("def function(:\n")
    r = script("--profile", "quick")
    assert r.returncode == 1 and r.stdout == ""
    assert re.fullmatch(r"deps\.py: error: \S*lib/lcl/c/named\.py:1: .+\n", r.stderr), r.stderr


# ----------------------------------------------------------------------------- the real library
def test_the_runner_reaches_no_study_or_research_code():
    """Every notebook depends on what `lcl notebook run` executes: were a study module among it (a
    string naming one, say), an edit there would rerun every notebook again."""
    lib = deps.Library(ROOT / "lib")
    runner = lib.entries(deps.RUNNER)
    assert {"lcl.report.runner", "lcl.cli.notebook", "lcl.core.deps"} <= runner
    assert not {m for m in runner if m.startswith(("lcl.engine.", "lcl.study.", "lcl.rq."))}, sorted(runner)


def test_the_runner_records_the_digest_make_compares(tmp_path: Path):
    deps.update(ROOT, tmp_path)
    from lcl.report import runner

    for name in ("00_data", "07_rq5_training"):
        assert runner.lib_digest(name, "quick") == (tmp_path / f"{name}.digest").read_text().splitlines()[0]


def test_an_executed_notebook_and_its_sidecars_say_which_library_content_made_them(tmp_path: Path,
                                                                                    monkeypatch: pytest.MonkeyPatch):
    import nbformat

    from lcl.core import provenance
    from lcl.report import runner

    monkeypatch.setattr(provenance, "git_commit", lambda: "c0ffee")  # neither git nor every package's version
    monkeypatch.setattr(provenance, "package_versions", dict)
    nb = tmp_path / "00_data.ipynb"
    nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("1")]), nb)
    runner.record_lib_digest(nb, "abc123")
    assert nbformat.read(nb, as_version=4).metadata["lcl"]["lib_digest"] == "abc123"
    table = tmp_path / "t.csv"
    monkeypatch.delenv("LCL_LIB_DIGEST", raising=False)
    assert "lib_digest" not in json.loads(provenance.record(table, profile="smoke", seed=1).read_text())
    monkeypatch.setenv("LCL_LIB_DIGEST", "abc123")  # what runner.run sets for the kernel
    assert json.loads(provenance.record(table, profile="smoke", seed=1).read_text())["lib_digest"] == "abc123"


_IMPORT_PROBE = r"""
import json, os, sys, traceback

def in_child(statements, report):
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        try:
            scope = {}
            for s in statements:
                exec(s, scope)
            out = report()
        except BaseException:
            out = {"error": traceback.format_exc()}
        with os.fdopen(w, "w") as fh:
            fh.write(json.dumps(out))
        os._exit(0)
    os.close(w)
    with os.fdopen(r) as fh:
        data = fh.read()
    os.waitpid(pid, 0)
    return json.loads(data)

notebooks = json.loads(sys.argv[1])
# first every notebook's imports at once, for the third-party modules they load: loaded here once,
# each child below starts with them (no third-party module imports lcl)
third = in_child([s for st in notebooks.values() for s in st],
                 lambda: [m for m in sys.modules if m.split(".")[0] != "lcl"])
for name in third if isinstance(third, list) else ():
    try:
        __import__(name)
    except BaseException:
        pass
assert not [m for m in sys.modules if m.split(".")[0] == "lcl"]
for name, statements in notebooks.items():  # each notebook's imports in a fresh child
    print(json.dumps([name, in_child(statements, lambda: sorted(m for m in sys.modules if m.split(".")[0] == "lcl"))]))
"""


@pytest.mark.slow
def test_the_static_closure_holds_every_module_a_notebooks_imports_load():
    """Exec each notebook's import statements (nothing else) and compare the lcl modules loaded
    with the static closure: a module loaded at import time that the analysis missed fails here."""
    sources = sorted((ROOT / "notebooks").glob(deps.NOTEBOOK_GLOB))
    statements = {}
    for src in sources:
        tree = ast.parse(deps.notebook_code(src.read_text()))
        nodes = sorted((n for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))), key=lambda n: n.lineno)
        statements[src.stem] = [ast.unparse(n) for n in nodes]
    env = {**os.environ, "MPLBACKEND": "Agg", "PYTHONHASHSEED": "0"}
    r = subprocess.run([sys.executable, "-c", _IMPORT_PROBE, json.dumps(statements)], cwd=ROOT, capture_output=True,
                       text=True, timeout=600, env=env)
    assert r.returncode == 0, r.stderr[-3000:]
    loaded = dict(json.loads(line) for line in r.stdout.splitlines())
    assert set(loaded) == set(statements)
    lib = deps.Library(ROOT / "lib")
    for src in sources:
        got = loaded[src.stem]
        assert isinstance(got, list), got["error"]
        assert "lcl" in got and len(got) > 3, (src.stem, got)  # the probe did import something
        missed = set(got) - lib.notebook_imports(src)
        assert not missed, f"{src.stem}: loaded at import but not in the static closure: {sorted(missed)}"


# ----------------------------------------------------------------------------- the Makefile
def _importers(target: str) -> set[str]:
    """The notebooks whose import lines reach ``target`` (a dotted lcl module), found by reading
    import lines with regular expressions, independently of lcl.core.deps: a module imports M when it
    has `import M`, `from M import`, `from PARENT import ..., NAME, ...` or, in M's package,
    `from . import NAME` / `from .NAME import`; to a fixpoint."""
    lib_files = {".".join(p.relative_to(ROOT / "lib").with_suffix("").parts).removesuffix(".__init__"): p
                 for p in (ROOT / "lib" / "lcl").rglob("*.py")}

    def imports(text: str, own_package: str, module: str) -> bool:
        parent, _, name = module.rpartition(".")
        m = re.escape(module)
        if re.search(rf"^\s*(import\s+{m}\b|from\s+{m}\s+import\b)", text, re.M):
            return True
        heads = [rf"from\s+{re.escape(parent)}\s+import"]
        if own_package == parent:
            heads.append(r"from\s+\.\s+import")
            if re.search(rf"^\s*from\s+\.{name}\s+import\b", text, re.M):
                return True
        for head in heads:
            for hit in re.finditer(rf"^\s*{head}\s+(\([^)]*\)|[^\n]*)", text, re.M):
                if re.search(rf"\b{name}\b", hit.group(1)):
                    return True
        return False

    reached = {target}
    changed = True
    while changed:
        changed = False
        for mod, path in lib_files.items():
            package = mod if path.name == "__init__.py" else mod.rpartition(".")[0]
            if mod not in reached and any(imports(path.read_text(), package, t) for t in reached):
                reached.add(mod)
                changed = True
    return {src.stem for src in (ROOT / "notebooks").glob(deps.NOTEBOOK_GLOB)
            if any(imports(src.read_text(), "", t) for t in reached)}


def _make(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MAKE", "MFLAGS", "LCL_"))}
    return subprocess.run(["make", "--no-print-directory", *args, "PROFILE=quick", f"PYTHON={sys.executable}"],
                          cwd=root, capture_output=True, text=True, timeout=300, env=env)


def _listed(stdout: str) -> set[str]:
    return set(re.findall(r"lcl notebook run (\S+)", stdout))


def _append_to_docstring(path: Path, line: str) -> None:
    text = path.read_text()
    end = text.index('"""', 3)
    path.write_text(text[:end] + f"\n{line}\n" + text[end:])


def test_make_reruns_only_the_notebooks_that_read_a_changed_module(tmp_path: Path):
    root = tmp_path / "p"
    ignore = shutil.ignore_patterns("__pycache__", "*.ipynb", ".ipynb_checkpoints")
    for d in ("notebooks", "lib", "requirements", "data/constraints"):
        shutil.copytree(ROOT / d, root / d, ignore=ignore)
    for f in ("Makefile", "pyproject.toml", "data/sources.toml", "data/reference/paper_claims.csv"):
        (root / f).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / f, root / f)
    # `make -t` touches files but creates no folder: the venv's stamp, the raw data's mark, the outputs'
    for d in (".venv", "data/raw", "data/processed", "build/notebooks/quick", "build/models/quick", "build/report",
              "tables", "figures"):
        (root / d).mkdir(parents=True, exist_ok=True)
    r = _make(root, "-t", "all")
    assert r.returncode == 0, r.stderr
    assert (root / ".venv/.lcl-installed").exists() and (root / "data/raw/.verified").exists()
    notebooks = {p.stem for p in (root / "notebooks").glob(deps.NOTEBOOK_GLOB)}
    assert {p.stem for p in (root / "build/notebooks/quick").glob("*.ipynb")} == notebooks

    # (a) everything built: a second make is a no-op
    r = _make(root, "-q", "all")
    assert r.returncode == 0, (r.stdout, r.stderr)

    # (b) a docstring line in lcl.rq.rq5: the notebooks whose imports reach it, 08_claims (it reads every
    # paper notebook's outputs) and the report; not CodeScore_base (lcl.cli.metrics imports
    # lcl.rq.trained_metric, which reaches rq5, only inside cmd_local_trained)
    _append_to_docstring(root / "lib/lcl/rq/rq5.py", "One more docstring line.")
    r = _make(root, "-n", "all")
    assert r.returncode == 0, r.stderr
    assert "lib/lcl/rq/rq5.py" in r.stderr  # what changed, said once
    listed = _listed(r.stdout)
    expected = _importers("lcl.rq.rq5")
    assert "07_rq5_training" in expected and not {"00_data", "01_inputs"} & expected
    assert listed == expected | {"08_claims"}, (sorted(listed), sorted(expected))
    assert "lcl report" in r.stdout and "lcl codescore-base" not in r.stdout
    assert _make(root, "-q", "all").returncode != 0

    # (c) a docstring line in lcl.core.paths, which the notebook runner imports: every notebook
    _append_to_docstring(root / "lib/lcl/core/paths.py", "One more docstring line.")
    r = _make(root, "-n", "all")
    assert r.returncode == 0, r.stderr
    assert _listed(r.stdout) == notebooks
    assert "lcl codescore-base" in r.stdout and "lcl findings" in r.stdout and "lcl report" in r.stdout

    # a library the script cannot read stops Make with one line, before anything runs
    (root / "lib/lcl/rq/rq5.py").write_text("def broken(:\n")
    r = _make(root, "-n", "all")
    assert r.returncode != 0 and r.stdout == ""
    assert re.fullmatch(r"Makefile:\d+: \*\*\* cannot tell what the notebooks read of lib/ .*rq5\.py:1: .*Stop\.\n",
                        r.stderr), r.stderr
