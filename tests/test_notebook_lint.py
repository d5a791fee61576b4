"""Notebook sources are code, checked before a run that can take 20 minutes: ``make test`` runs ruff
(the rules of lib/, with pyproject's ``per-file-ignores`` for ``notebooks/*.py``) and mypy (calls into
the typed ``lcl`` library) on ``notebooks/NN_name.py``. A scratch notebook that calls a name an ``lcl``
module does not have, passes a str where the library wants an int, imports what it does not use and
reads an undefined name fails both, naming the file and the line; the real notebooks pass.

mypy runs from the repository root with the project's configuration: on the real notebooks with its
``.mypy_cache`` (warm after ``make test``'s own mypy lines: a few seconds; the first run on a fresh
checkout takes one to two minutes, most of it in transformers and torch), on the scratch notebook with
a cache of its own in tmp_path (about 2 s: it imports two modules of ``lcl.core``; mypy's cache keeps
the path a module was first read from and would name an earlier run's tmp_path in its errors). ruff on
the scratch notebook reads a copy of pyproject.toml beside it, so that the ``notebooks/*.py`` ignores
apply there as in the checkout.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

from .conftest import ROOT

NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.py"))
#: the jupytext header every notebook source starts with
HEADER = (ROOT / "notebooks" / "00_data.py").read_text().split("# ---\n\n", 1)[0] + "# ---\n\n"
SCRATCH = HEADER + """# %% [markdown]
# # 99 · A notebook with mistakes the lint is for

# %% tags=["parameters"]
profile = "full"
seed = 20250101
jobs = 2
tables_dir = ""
figures_dir = ""

# %%

import json

from lcl.core import paths, seeds

# %%
print(paths.no_such_thing())
draw = seeds.unit_seed(str(seed), "draws")
print(draw, tables)
"""
#: (line in SCRATCH, what the check reports there)
LINE = {what: SCRATCH.splitlines().index(text) + 1 for what, text in [
    ("unused", "import json"), ("attr", "print(paths.no_such_thing())"),
    ("arg", 'draw = seeds.unit_seed(str(seed), "draws")'), ("undefined", "print(draw, tables)")]}


def ruff(files: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """`ruff check --quiet FILES` as `make test` runs it (one line per finding, to read back)."""
    return subprocess.run([sys.executable, "-m", "ruff", "check", "--quiet", "--no-cache", "--output-format",
                           "concise", *files], cwd=cwd, capture_output=True, text=True, timeout=120)


def mypy(files: list[str], cache: Path | None = None) -> subprocess.CompletedProcess[str]:
    """`mypy FILES` from the repository root, as `make test` runs it on the notebook sources
    (``cache``: a cache folder other than the project's ``.mypy_cache``)."""
    return subprocess.run([sys.executable, "-m", "mypy", *(["--cache-dir", str(cache)] if cache else []), *files],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)


def findings(output: str, path: str, pattern: str) -> set[tuple[int, str]]:
    """(line, code) of each finding reported for ``path`` (``pattern`` captures the line and the code)."""
    return {(int(m.group(1)), m.group(2)) for m in re.finditer(re.escape(path) + pattern, output)}


def test_there_are_notebook_sources() -> None:
    assert len(NOTEBOOKS) >= 12


def test_the_lint_catches_a_wrong_name_a_wrong_type_and_an_undefined_name(tmp_path: Path) -> None:
    (tmp_path / "notebooks").mkdir()
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")  # the same rules and ignores
    (tmp_path / "lib").symlink_to(ROOT / "lib")  # lcl is first-party there too (import sorting)
    nb = tmp_path / "notebooks" / "99_scratch.py"
    nb.write_text(SCRATCH)

    r = ruff(["notebooks/99_scratch.py"], tmp_path)
    assert r.returncode == 1, r.stdout + r.stderr
    # exactly these: the imports after the parameters cell (E402) are allowed in a notebook
    assert findings(r.stdout, "notebooks/99_scratch.py", r":(\d+):\d+: ([A-Z]+\d+)") == {
        (LINE["unused"], "F401"), (LINE["undefined"], "F821")}, r.stdout

    m = mypy([str(nb)], cache=tmp_path / ".mypy_cache")
    assert m.returncode == 1, m.stdout + m.stderr
    assert findings(m.stdout, str(nb), r":(\d+): error: .*\[([a-z-]+)\]") == {
        (LINE["attr"], "attr-defined"), (LINE["arg"], "arg-type"), (LINE["undefined"], "name-defined")}, m.stdout
    assert f'{nb}:{LINE["attr"]}: error: Module has no attribute "no_such_thing"' in m.stdout, m.stdout
    assert (f'{nb}:{LINE["arg"]}: error: Argument 1 to "unit_seed" has incompatible type "str"; '
            f'expected "int"') in m.stdout, m.stdout


def test_the_notebook_sources_pass_ruff_and_mypy() -> None:
    files = [str(p.relative_to(ROOT)) for p in NOTEBOOKS]
    r = ruff(files, ROOT)
    assert r.returncode == 0, r.stdout + r.stderr
    m = mypy(files)
    assert m.returncode == 0, m.stdout + m.stderr
