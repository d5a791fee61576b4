"""The library's layers import only downward; the imports that still run upward are listed and may
only shrink.

Layers, lowest first: core (locations, files, caches, provenance, profiles, errors, records, the
paper's numbers and where each lives in our tables) <-
engine (fuzzing, inputs, variants, metrics, similarity, statistics, regions: no benchmark or paper)
<- study (sources, loaders, labelling, LoCaL assembly, clones, CodeScore_base, scoring) <- rq (one
module per research question or study) <- report (claims, findings, outputs, runner, report,
verify) <- cli (argument parsing). Every import counts, including those inside functions, because
a deferred import is still a dependency. ``UPWARD`` lists allowed exceptions: none today; an
upward import fails the test, and so does an entry that no longer occurs.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

from .conftest import ROOT

LIB = ROOT / "lib"
ORDER = ["core", "engine", "study", "rq", "report", "cli"]
LAYER_OF = {
    "lcl": "core", "lcl.paths": "core", "lcl.io": "core", "lcl.cache": "core", "lcl.provenance": "core",
    "lcl.profiles": "core", "lcl.seeds": "core", "lcl.errors": "core", "lcl.records": "core", "lcl.claim_links": "core",
    "lcl.fuzz": "engine", "lcl.inputs": "engine", "lcl.variants": "engine", "lcl.metrics": "engine",
    "lcl.similarity": "engine", "lcl.stats": "engine", "lcl.regions": "engine",
    "lcl.sources": "study", "lcl.loaders": "study", "lcl.labels": "study", "lcl.dataset": "study",
    "lcl.curation": "study", "lcl.clones": "study", "lcl.training": "study", "lcl.scoring": "study",
    "lcl.overview": "study", "lcl.label_archive": "study", "lcl.task_specs": "study", "lcl.input_quality": "study",
    "lcl.labelling": "study",
    "lcl.correlation": "rq", "lcl.distinguish": "rq", "lcl.coverage": "rq", "lcl.effectiveness": "rq",
    "lcl.label_sensitivity": "rq", "lcl.sparse_tests": "rq", "lcl.robustness": "rq", "lcl.red_herrings": "rq",
    "lcl.calibration": "rq", "lcl.trained_metric": "rq",
    "lcl.claims": "report", "lcl.conclusions": "report", "lcl.reasons": "report",
    "lcl.findings": "report", "lcl.outputs": "report", "lcl.runner": "report", "lcl.report": "report",
    "lcl.verify": "report", "lcl.pipeline": "report",
    "lcl.cli": "cli",
}


def layer(module: str) -> str:
    """The layer of ``module``: its own entry, else its package's (``lcl.fuzz.sandbox`` -> engine)."""
    parts = module.split(".")
    for i in range(len(parts), 0, -1):
        if ".".join(parts[:i]) in LAYER_OF:
            return LAYER_OF[".".join(parts[:i])]
    raise KeyError(module)


def module_name(path: Path) -> str:
    rel = path.relative_to(LIB).with_suffix("")
    parts = list(rel.parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path) -> set[str]:
    """Every ``lcl`` module that ``path`` imports, at any depth of the file."""
    me = module_name(path)
    package = me if path.name == "__init__.py" else me.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names if a.name.split(".")[0] == "lcl"}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            if base.split(".")[0] != "lcl":
                continue
            for a in node.names:  # `from . import claims` names a module; `from .x import f` a member
                out.add(f"{base}.{a.name}" if _is_module(f"{base}.{a.name}") else base)
    return out - {me}


def _is_module(name: str) -> bool:
    p = LIB / Path(*name.split("."))
    return p.with_suffix(".py").exists() or (p / "__init__.py").exists()


def upward_imports() -> set[tuple[str, str]]:
    found = set()
    for path in sorted((LIB / "lcl").rglob("*.py")):
        me = module_name(path)
        for dep in imports(path):
            if ORDER.index(layer(dep)) > ORDER.index(layer(me)):
                found.add((me, dep))
    return found


#: allowed upward imports (none: the layering holds everywhere; never add to it)
UPWARD: set[tuple[str, str]] = set()


def test_every_module_has_a_layer() -> None:
    missing = [module_name(p) for p in (LIB / "lcl").rglob("*.py") if _unplaced(module_name(p))]
    assert not missing, f"place these modules in LAYER_OF: {missing}"


def _unplaced(module: str) -> bool:
    try:
        layer(module)
    except KeyError:
        return True
    return False


def test_no_new_upward_imports_and_the_list_only_shrinks() -> None:
    found = upward_imports()
    new, gone = sorted(found - UPWARD), sorted(UPWARD - found)
    assert not new, f"imports that run up the layers ({' <- '.join(ORDER)}): {new}"
    assert not gone, f"no longer upward, remove from UPWARD: {gone}"


def test_the_check_sees_an_upward_import_inside_a_function(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pkg = tmp_path / "lcl"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "paths.py").write_text("def f():\n    from . import claims\n    return claims\n")
    (pkg / "claims.py").write_text("from .paths import f\n")
    monkeypatch.setattr(sys.modules[__name__], "LIB", tmp_path)
    assert imports(pkg / "paths.py") == {"lcl.claims"}
    assert upward_imports() == {("lcl.paths", "lcl.claims")}
