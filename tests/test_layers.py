"""The library's layers import only downward; the imports that still run upward are listed and may
only shrink.

Layers, lowest first, each a folder of ``lib/lcl/``: core (locations, files, caches, provenance, profiles, errors, records, the
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


def layer(module: str) -> str:
    """The layer of ``module``: the folder it sits in (``lcl.engine.fuzz.sandbox`` -> engine);
    the package itself (``lcl``) is core."""
    parts = module.split(".")
    if parts == ["lcl"]:
        return "core"
    if len(parts) < 2 or parts[1] not in ORDER:
        raise KeyError(module)
    return parts[1]


def module_name(path: Path) -> str:
    rel = path.relative_to(LIB).with_suffix("")
    parts = list(rel.parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_from(node: ast.ImportFrom, path: Path) -> str:
    """The absolute module a ``from ... import`` in ``path`` reads from (relative levels resolved)."""
    me = module_name(path)
    package = me if path.name == "__init__.py" else me.rpartition(".")[0]
    base = node.module or ""
    if node.level:
        anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
        base = ".".join(anchor + ([base] if base else []))
    return base


def imports(path: Path) -> set[str]:
    """Every ``lcl`` module that ``path`` imports, at any depth of the file."""
    me = module_name(path)
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names if a.name.split(".")[0] == "lcl"}
        elif isinstance(node, ast.ImportFrom):
            base = imported_from(node, path)
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


def test_every_module_sits_in_a_layer_folder() -> None:
    missing = [module_name(p) for p in (LIB / "lcl").rglob("*.py") if _unplaced(module_name(p))]
    assert not missing, f"move these modules into one of lib/lcl/{{{','.join(ORDER)}}}/: {missing}"


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
    for sub in ("core", "report"):
        (pkg / sub).mkdir(parents=True)
        (pkg / sub / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("")
    (pkg / "core" / "paths.py").write_text("def f():\n    from ..report import claims\n    return claims\n")
    (pkg / "report" / "claims.py").write_text("from ..core.paths import f\n")
    monkeypatch.setattr(sys.modules[__name__], "LIB", tmp_path)
    assert imports(pkg / "core" / "paths.py") == {"lcl.report.claims"}
    assert upward_imports() == {("lcl.core.paths", "lcl.report.claims")}


# ----------------------------------------------------------------------------- private names
def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def private_uses() -> set[tuple[str, str, str]]:
    """(module, other module, name) for every underscore name a module imports from another
    (``from .x import _f``) or reads off one it imported (``x._f``): a name another module needs
    is public, so its owner sees who depends on it."""
    found = set()
    for path in sorted((LIB / "lcl").rglob("*.py")):
        me = module_name(path)
        tree = ast.parse(path.read_text())
        modules: dict[str, str] = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                base = imported_from(node, path)
                if base.split(".")[0] != "lcl":
                    continue
                for a in node.names:
                    if _is_module(f"{base}.{a.name}"):
                        modules[a.asname or a.name] = f"{base}.{a.name}"
                    elif _private(a.name) and base != me:
                        found.add((me, base, a.name))
            elif isinstance(node, ast.Import):
                modules.update({a.asname or a.name: a.name for a in node.names if a.name.split(".")[0] == "lcl"})
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in modules
                    and _private(node.attr) and modules[node.value.id] != me):
                found.add((me, modules[node.value.id], node.attr))
    return found


def test_no_module_uses_another_modules_private_name() -> None:
    found = sorted(private_uses())
    assert not found, ("make these names public (drop the underscore) where they are defined: "
                       + "; ".join(f"{me} uses {other}.{name}" for me, other, name in found[:20]))


def test_the_check_sees_a_private_import_and_a_private_attribute(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pkg = tmp_path / "lcl"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("def _f():\n    return 1\n")
    (pkg / "b.py").write_text("from .a import _f\n")
    (pkg / "c.py").write_text("from . import a\n\ndef g():\n    return a._f()\n")
    monkeypatch.setattr(sys.modules[__name__], "LIB", tmp_path)
    assert private_uses() == {("lcl.b", "lcl.a", "_f"), ("lcl.c", "lcl.a", "_f")}


# ----------------------------------------------------------------------------- the README's picture
BLURB = {
    "cli": "the lcl command: one file per command group",
    "report": "claims, findings, outputs, notebook runner, HTML report, verify",
    "rq": "one module per research question and per study beyond the paper",
    "study": "benchmarks, LoCaL assembly, labelling, clones, CodeScore_base, scoring",
    "engine": "fuzzing (Algorithm 1), inputs, variants, metrics, SurfaceSim, statistics: no benchmark, no paper",
    "core": "locations, files, caches, provenance, profiles, seeds, records, the paper's numbers",
}
FILL = {"cli": "#f2e6ff", "report": "#ffe9d6", "rq": "#fff7cc", "study": "#e3f4e1", "engine": "#dcebfa",
        "core": "#ececec"}


def layer_members() -> dict[str, list[str]]:
    """Each layer's modules and packages (``fuzz/``), as they stand in its folder ``lib/lcl/<layer>/``."""
    out: dict[str, list[str]] = {name: [] for name in ORDER}
    for name in ORDER:
        for path in sorted((LIB / "lcl" / name).iterdir()):
            if path.name.startswith(("_", ".")) or not (path.suffix == ".py" or (path / "__init__.py").exists()):
                continue
            out[name].append(path.stem + ("/" if path.is_dir() else ""))
    return out


def _wrap(text: str, width: int) -> list[str]:
    lines: list[str] = []
    for word in text.split("  "):
        if lines and len(lines[-1]) + 2 + len(word) <= width:
            lines[-1] += "  " + word
        else:
            lines.append(word)
    return lines


def layers_svg() -> str:
    """docs/layers.svg: the layers from the top (cli) down, each with its members; every arrow
    of the library points down this picture."""
    width, pad = 980, 14
    rows = []
    y = pad
    for name in reversed(ORDER):
        cut = _wrap("  ".join(layer_members()[name]), 118)
        band = max(92, 50 + 18 * len(cut))  # every member shown: the band grows with its lines
        rows.append(f'<rect x="60" y="{y}" width="{width - 80}" height="{band}" rx="8" fill="{FILL[name]}" '
                    f'stroke="#888"/>')
        rows.append(f'<text x="76" y="{y + 24}" font-size="17" font-weight="bold">{name}</text>')
        rows.append(f'<text x="160" y="{y + 24}" font-size="14" fill="#333">{BLURB[name]}</text>')
        for k, ln in enumerate(cut):
            rows.append(f'<text x="76" y="{y + 50 + 18 * k}" font-size="13" font-family="monospace">{ln}</text>')
        y += band + pad
    height = y
    arrow = (f'<line x1="30" y1="{pad + 10}" x2="30" y2="{height - pad - 10}" stroke="#555" stroke-width="3" '
             f'marker-end="url(#a)"/><text x="22" y="{height // 2}" font-size="13" transform="rotate(-90 22 '
             f'{height // 2})" text-anchor="middle">imports point down only</text>')
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'font-family="sans-serif"><defs><marker id="a" markerWidth="10" markerHeight="10" refX="5" refY="5" '
            f'orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="#555"/></marker></defs>'
            + arrow + "".join(rows) + "</svg>\n")


def test_the_readme_picture_shows_todays_layers() -> None:
    drawn = (ROOT / "docs" / "layers.svg").read_text()
    assert drawn == layers_svg(), "docs/layers.svg is stale: python -m tests.test_layers > docs/layers.svg"


if __name__ == "__main__":
    sys.stdout.write(layers_svg())
