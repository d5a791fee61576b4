"""The rule for what a notebook holds (README, "Changing the library"): parameters, loading, calls
into ``lcl``, display (tables, figures the library returns) and the words. Computation and figures
live in the library, where they are unit-tested and shared by the notebook, the report card and
the CLI.

A notebook source (``notebooks/NN_name.py``, jupytext percent format, so valid Python) fails here
when it defines a function or class, loops (a ``for`` or ``while`` statement, a comprehension or a
generator expression: going over rows or metrics is computation, and the sentences a loop would
build are library functions), imports matplotlib, or draws: calls ``plt.subplots`` /
``plt.figure`` (any ``plt.`` attribute), ``.plot(...)``, or touches an axes or figure object
(``ax.``, ``axes.``, ``fig.``). Each failure names the notebook and the line.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from .conftest import ROOT

NOTEBOOKS = ROOT / "notebooks"
#: the loops a notebook may not hold, by how a failure names them
LOOPS: dict[type, str] = {ast.For: "a for statement", ast.AsyncFor: "a for statement", ast.While: "a while statement",
                          ast.ListComp: "a list comprehension", ast.SetComp: "a set comprehension",
                          ast.DictComp: "a dict comprehension", ast.GeneratorExp: "a generator expression"}
#: names whose attributes are drawing: pyplot and the axes and figure objects it returns
DRAWING_NAMES = frozenset({"plt", "ax", "axes", "fig"})
#: (notebook, line, what) that may stay although the rule forbids it: none. An entry needs a
#: comment saying why the case is display only and cannot be a library call; the test fails when
#: an entry no longer occurs, so the list only shrinks.
ALLOWED: set[tuple[str, int, str]] = set()


def violations(path: Path) -> list[tuple[str, int, str]]:
    """(notebook, line, what) for every function or class defined, matplotlib import and drawing
    call in the notebook source ``path`` (comments and markdown cells are not code, so never count)."""
    tree = ast.parse(path.read_text(), filename=str(path))
    name = path.stem
    found: list[tuple[str, int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            found.append((name, node.lineno, f"defines the function {node.name}()"))
        elif isinstance(node, ast.ClassDef):
            found.append((name, node.lineno, f"defines the class {node.name}"))
        elif isinstance(node, ast.Lambda):
            found.append((name, node.lineno, "defines a lambda"))
        elif isinstance(node, tuple(LOOPS)):
            found.append((name, node.lineno, f"loops: {LOOPS[type(node)]}"))
        elif isinstance(node, ast.Import) and any(a.name.split(".")[0] == "matplotlib" for a in node.names):
            found.append((name, node.lineno, "imports matplotlib"))
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "matplotlib":
            found.append((name, node.lineno, "imports from matplotlib"))
        elif isinstance(node, ast.Attribute):
            if isinstance(node.value, ast.Name) and node.value.id in DRAWING_NAMES:
                found.append((name, node.lineno, f"draws: {node.value.id}.{node.attr}"))
            elif node.attr == "plot":
                found.append((name, node.lineno, "draws: .plot(...)"))
    return sorted(set(found), key=lambda v: (v[0], v[1], v[2]))


def notebook_sources() -> list[Path]:
    return sorted(NOTEBOOKS.glob("[0-9][0-9]_*.py"))


def test_there_are_notebooks_to_check() -> None:
    assert len(notebook_sources()) >= 12


@pytest.mark.parametrize("path", notebook_sources(), ids=lambda p: p.stem)
def test_a_notebook_holds_no_computation_and_draws_no_figure(path: Path) -> None:
    found = [v for v in violations(path) if v not in ALLOWED]
    assert not found, (
        "a notebook holds parameters, loading, calls into lcl, display and words; move these into the "
        "library module of its research question or study (a plot_<what> function returning the Figure, "
        "a function building the table, the findings or the sentences):\n"
        + "\n".join(f"  notebooks/{nb}.py:{line}: {what}" for nb, line, what in found))


def test_the_allowlist_only_shrinks() -> None:
    found = {v for path in notebook_sources() for v in violations(path)}
    gone = sorted(ALLOWED - found)
    assert not gone, f"no longer in the notebooks, remove from ALLOWED: {gone}"


def test_the_check_sees_a_function_a_drawing_and_a_matplotlib_import(tmp_path: Path) -> None:
    nb = tmp_path / "99_example.py"
    nb.write_text("# %% [markdown]\n# def in a markdown cell, ax.plot( in words: not code\n\n"
                  "# %%\nimport matplotlib.pyplot as plt\n\n\ndef helper(x):\n    return x\n\n\n"
                  "fig, ax = plt.subplots()\nax.set_title('t')\nseries.plot(kind='bar')\n"
                  "rows = sorted(rows, key=lambda r: r[0])\nfig = lcl.rq.x.plot_thing(frame)\n"
                  "names = [m for m in metrics if m]\nfor r in rows:\n    pass\n"
                  "text = ', '.join(str(n) for n in names)\n")
    assert violations(nb) == [
        ("99_example", 5, "imports matplotlib"),
        ("99_example", 8, "defines the function helper()"),
        ("99_example", 12, "draws: plt.subplots"),
        ("99_example", 13, "draws: ax.set_title"),
        ("99_example", 14, "draws: .plot(...)"),
        ("99_example", 15, "defines a lambda"),
        ("99_example", 17, "loops: a list comprehension"),
        ("99_example", 18, "loops: a for statement"),
        ("99_example", 20, "loops: a generator expression"),
    ]
