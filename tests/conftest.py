"""Shared fixtures. Tests needing the local mirror are marked ``mirror`` and skip with a
reason when it is absent; the suite passes with and without it."""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path
from types import ModuleType

import pytest

from lcl.core import paths
from lcl.study import sources

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def no_label_archive(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests never merge the committed label archive (data/labels/) into their stores; the
    archive's own tests point LCL_LABEL_ARCHIVE at a scratch folder."""
    monkeypatch.setenv("LCL_LABEL_ARCHIVE", "off")


@pytest.fixture(scope="session")
def project_data() -> dict:
    """Fetch/verify the project's raw data once per session (idempotent, cached on disk)."""
    report = sources.fetch_all()
    return report.to_dict()


@pytest.fixture(scope="session")
def have_mirror() -> bool:
    return paths.mirror() is not None


def pytest_collection_modifyitems(config, items):  # noqa: ANN001
    if paths.mirror() is None:
        skip = pytest.mark.skip(reason="local data mirror absent (LOCAL_DATA_MIRROR / ../shared/datasets)")
        for item in items:
            if "mirror" in item.keywords:
                item.add_marker(skip)


@pytest.fixture
def tmp_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A scratch project root (manifest, reference data, notebooks) via ``LCL_ROOT``."""
    root = tmp_path / "project"
    (root / "data").mkdir(parents=True)
    shutil.copy(ROOT / "data" / "sources.toml", root / "data" / "sources.toml")
    shutil.copytree(ROOT / "data" / "reference", root / "data" / "reference")
    shutil.copytree(ROOT / "notebooks", root / "notebooks",
                    ignore=shutil.ignore_patterns("*.ipynb", ".ipynb_checkpoints"))
    (root / "pyproject.toml").write_text("")
    shutil.copy(ROOT / "Makefile", root / "Makefile")
    (root / "lib").mkdir()
    monkeypatch.setenv("LCL_ROOT", str(root))
    monkeypatch.setenv("LCL_CACHE", str(root / ".cache"))
    return root


def copy_raw_from_project(root: Path, names: list[str]) -> None:
    """Seed a scratch root's data/raw with already-verified project files (no network)."""
    for src in sources.load_manifest(ROOT / "data" / "sources.toml"):
        if src.name not in names:
            continue
        for f in src.files:
            a, b = ROOT / "data" / "raw" / f.path, root / "data" / "raw" / f.path
            b.parent.mkdir(parents=True, exist_ok=True)
            if a.is_dir():
                shutil.copytree(a, b)
            elif a.exists():
                shutil.copy(a, b)


def load_benchmark(name: str) -> ModuleType:
    """A script of benchmarks/ (not a package) loaded as a module, for tests of its pure parts."""
    spec = importlib.util.spec_from_file_location(name, ROOT / "benchmarks" / f"{name}.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
