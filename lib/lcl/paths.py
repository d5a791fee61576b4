"""Every location the compendium reads or writes, in one place (showyourwork's ``paths``).

The project root is found from this file, so paths work from notebooks, tests and the CLI
alike. Environment variables override the defaults:

- ``LCL_ROOT``: the project root (tests point it at a temporary copy).
- ``LOCAL_DATA_MIRROR``: a local mirror of raw benchmark files; defaults to
  ``<root>/../shared/datasets`` when that directory exists.
"""

from __future__ import annotations

import os
from pathlib import Path


def root() -> Path:
    """The project root (the directory holding ``pyproject.toml``)."""
    env = os.environ.get("LCL_ROOT")
    if env:
        return Path(env).resolve()
    here = Path(__file__).resolve()
    for parent in here.parents:
        if (parent / "pyproject.toml").exists() and (parent / "lib").is_dir():
            return parent
    return Path.cwd().resolve()


def data() -> Path:
    return root() / "data"


def raw() -> Path:
    """Fetched raw sources; immutable after fetching (files are made read-only)."""
    return data() / "raw"


def interim() -> Path:
    return data() / "interim"


def reviewed_specs() -> Path:
    """Committed, reviewed input specs: ``data/constraints/<Benchmark>/<id>.json``."""
    return data() / "constraints"


def inferred_specs() -> Path:
    """Inferred spec drafts, regenerated on demand and never committed."""
    return interim() / "constraints_inferred"


def processed() -> Path:
    return data() / "processed"


def reference() -> Path:
    """Committed reference data: the paper's numbers and recorded outputs for ``make verify``."""
    return data() / "reference"


def sources_manifest() -> Path:
    return data() / "sources.toml"


def tables() -> Path:
    return root() / "tables"


def figures() -> Path:
    return root() / "figures"


def build() -> Path:
    return root() / "build"


def models(profile: str) -> Path:
    """Trained models of one run profile (``build/models/<profile>``)."""
    return build() / "models" / profile


def local_trained_model(profile: str) -> Path:
    """Directory of the released ``local_trained`` metric's model for ``profile``."""
    return models(profile) / "local_trained"


def cache() -> Path:
    """Content-keyed cache of intermediate results (safe to delete)."""
    return Path(os.environ.get("LCL_CACHE", str(root() / ".cache")))


def notebooks() -> Path:
    return root() / "notebooks"


def executed_notebooks() -> Path:
    return build() / "notebooks"


def report() -> Path:
    return build() / "report"


def mirror() -> Path | None:
    """The local raw-data mirror, or ``None`` when there is none.

    ``LOCAL_DATA_MIRROR`` set to an empty string disables the mirror explicitly.
    """
    env = os.environ.get("LOCAL_DATA_MIRROR")
    if env is not None:
        return Path(env).resolve() if env and Path(env).is_dir() else None
    default = root().parent / "shared" / "datasets"
    return default if default.is_dir() else None
