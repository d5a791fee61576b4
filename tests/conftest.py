"""Shared fixtures. Tests needing the local mirror are marked ``mirror`` and skip with a
reason when it is absent; the suite passes with and without it."""

from __future__ import annotations

import importlib.util
import os
import shutil
from pathlib import Path
from types import ModuleType

import pytest

from lcl.core import paths
from lcl.study import sources

ROOT = Path(__file__).resolve().parents[1]


# ----------------------------------------------------------------------------- the checkout stays as it was
#: the checkout's generated outputs (what `make all` writes): tests write under temporary folders
#: (``tmp_path``, ``tmp_root``), never here. Caches are not watched: ``.cache`` (the content cache, which
#: LCL_CACHE defaults to and some tests share on purpose), ``.pytest_cache``, ``.mypy_cache``,
#: ``.hypothesis``, ``__pycache__``; nor ``data/raw`` (the ``project_data`` fixture fetches into it).
WATCHED_DIRS = ("build", "tables", "figures", "data/processed", "data/interim")
WATCHED_GLOBS = ("notebooks/*.ipynb",)
NOT_WATCHED = frozenset({"__pycache__", ".ipynb_checkpoints"})


def checkout_outputs(root: Path = ROOT) -> dict[str, tuple[int, int]]:
    """Every file (and directory, with size -1) under the watched outputs of ``root``: relative
    path -> (mtime in ns, size). Links are listed, not followed."""
    found: dict[str, tuple[int, int]] = {}
    for top in WATCHED_DIRS:
        for folder, dirs, files in os.walk(root / top):
            dirs[:] = [d for d in dirs if d not in NOT_WATCHED]
            here = Path(folder)
            for name in [*files, *dirs]:
                path = here / name
                st = path.lstat()
                found[path.relative_to(root).as_posix()] = (st.st_mtime_ns, -1 if name in dirs else st.st_size)
    for pattern in WATCHED_GLOBS:
        for path in root.glob(pattern):
            st = path.lstat()
            found[path.relative_to(root).as_posix()] = (st.st_mtime_ns, st.st_size)
    return found


def checkout_changes(before: dict[str, tuple[int, int]], after: dict[str, tuple[int, int]]) -> list[str]:
    """``created PATH`` / ``modified PATH`` / ``deleted PATH`` lines; a directory is named only when
    it is new and holds nothing new (a new file names its new folders)."""
    lines = []
    for path in sorted(after.keys() - before.keys()):
        if after[path][1] == -1 and any(p.startswith(path + "/") for p in after.keys() - before.keys()):
            continue
        lines.append(f"created  {path}{'/' if after[path][1] == -1 else ''}")
    lines += [f"modified {path}" for path in sorted(after.keys() & before.keys())
              if after[path] != before[path] and after[path][1] != -1]
    lines += [f"deleted  {path}" for path in sorted(before.keys() - after.keys())]
    return lines


_CHECKOUT_BEFORE = pytest.StashKey[dict[str, tuple[int, int]]]()


def pytest_sessionstart(session: pytest.Session) -> None:
    if not hasattr(session.config, "workerinput"):  # the controller only, were the suite run distributed
        session.config.stash[_CHECKOUT_BEFORE] = checkout_outputs()


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Fail the session, naming the files, when the tests created, changed or deleted any of the
    checkout's generated outputs (a test must write under ``tmp_path`` / ``tmp_root``)."""
    before = session.config.stash.get(_CHECKOUT_BEFORE, None)
    if before is None:
        return
    changes = checkout_changes(before, checkout_outputs())
    if not changes:
        return
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    message = (f"the tests wrote into the checkout ({ROOT}); a test writes under tmp_path or tmp_root "
               "(LCL_ROOT), never into build/, tables/, figures/, data/processed/, data/interim/ or "
               "notebooks/*.ipynb (another process writing there while the tests ran shows here too):\n  "
               + "\n  ".join(changes))
    if reporter is not None:
        reporter.write("\n")
        reporter.write_sep("=", "files written into the checkout", red=True, bold=True)
        reporter.write_line(message)
    else:
        print(message)
    if session.exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


# ----------------------------------------------------------------------------- fixtures
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
    return mirror_absence() == ""


def mirror_absence() -> str:
    """Why the tests marked ``mirror`` cannot run ('' when they can): no mirror, or a mirror folder
    without the files the manifest takes from it (``LOCAL_DATA_MIRROR`` pointing at an empty or
    partial folder is as good as none)."""
    mirror = paths.mirror()
    if mirror is None:
        return "local data mirror absent (LOCAL_DATA_MIRROR / ../shared/datasets)"
    wanted = [f.mirror_path for s in sources.load_manifest(ROOT / "data" / "sources.toml") for f in s.files
              if f.mirror_path]
    held = [p for p in wanted if (mirror / p).is_file()]
    if len(held) < len(wanted):
        return f"local data mirror {mirror} holds {len(held)} of the {len(wanted)} files data/sources.toml takes from it"
    return ""


def pytest_collection_modifyitems(config, items):  # noqa: ANN001
    if why := mirror_absence():
        skip = pytest.mark.skip(reason=why)
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
