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


def library() -> Path:
    """The ``lcl`` package's own source folder (its code digests key cached candidates)."""
    return Path(__file__).resolve().parent.parent


def local_pairs(profile: str) -> Path:
    """The LoCaL pairs notebook 02 writes for ``profile`` (and the Parquet twin beside it)."""
    return processed() / f"local_pairs_{profile}.jsonl"


def clone_pairs(profile: str) -> Path:
    """The human-written clone pairs (CLONE) notebook 02 writes for ``profile``."""
    return processed() / f"clone_pairs_{profile}.jsonl"


def published_pairs() -> Path:
    """The published LoCaL pairs notebook 02 writes (profile-independent)."""
    return processed() / "published_pairs.jsonl"


def paper_claims() -> Path:
    """The paper's numbers, one row per claim."""
    return reference() / "paper_claims.csv"


def label_causes() -> Path:
    """Recorded causes of disagreements with the published labels."""
    return reference() / "label_causes.csv"


def expected_outputs(profile: str) -> Path:
    """Recorded tables of a complete run of ``profile``, compared by ``make verify``."""
    return reference() / "expected" / profile


def tolerances() -> Path:
    """How far each verified table may move, with the reason."""
    return reference() / "expected" / "tolerances.toml"


def paper_figure(name: str) -> Path:
    """The paper's own figure ``name``, shown beside ours in the report."""
    return reference() / "figures" / f"{name}.png"


def label_archive() -> Path:
    """The committed archive of finished fuzzing results (``data/labels``)."""
    return data() / "labels"


def raw_clones() -> Path:
    """The fetched algorithm collections the clone pairs are extracted from."""
    return raw() / "clones"


def verified_stamp() -> Path:
    """Which raw sources have been verified against their SHA-256."""
    return raw() / ".verified"


def sources_manifest() -> Path:
    return data() / "sources.toml"


def tables() -> Path:
    return root() / "tables"


def figures() -> Path:
    return root() / "figures"


def claims_table() -> Path:
    """The claim-by-claim verdict table written by notebook 08."""
    return tables() / "claims.csv"


def findings_table() -> Path:
    """The headline numbers of the studies beyond the paper (``lcl findings``)."""
    return tables() / "findings.csv"


def build() -> Path:
    return root() / "build"


def models(profile: str) -> Path:
    """Trained models of one run profile (``build/models/<profile>``)."""
    return build() / "models" / profile


def evaluations() -> Path:
    """Report cards of metrics put through every test (``lcl evaluate``) and their leaderboard."""
    return build() / "evaluate"


def leaderboard() -> Path:
    """One row per metric, profile and version evaluated by ``lcl evaluate`` (rows replaced on a rerun)."""
    return evaluations() / "leaderboard.csv"


def codescore_base_record(profile: str) -> Path:
    """The record of CodeScore_base that ``make`` writes for ``profile`` (``lcl codescore-base``)."""
    return models(profile) / "codescore_base.json"


def codescore_models() -> Path:
    """Trained CodeScore-style models, one folder per configuration digest."""
    return build() / "models" / "codescore_style"


def rq5_models() -> Path:
    """Intermediate RQ5 training runs (resumable)."""
    return interim() / "models"


def local_trained_model(profile: str) -> Path:
    """Directory of the released ``local_trained`` metric's model for ``profile``."""
    return models(profile) / "local_trained"


def cache() -> Path:
    """Content-keyed cache of intermediate results (safe to delete)."""
    return Path(os.environ.get("LCL_CACHE", str(root() / ".cache")))


def fuzz_results() -> Path:
    """The fuzzing engine's resumable result store."""
    return cache() / "fuzz" / "results.sqlite"


def metric_scores() -> Path:
    """Cached metric scores, keyed by metric configuration and code."""
    return cache() / "metrics" / "scores.sqlite"


def embeddings() -> Path:
    """Cached encoder embeddings of the CodeScore-style metric."""
    return cache() / "metrics" / "embeddings.sqlite"


def llm_responses() -> Path:
    """Cached responses of an optional model endpoint for LLM-written variants."""
    return interim() / "llm_cache"


def notebooks() -> Path:
    return root() / "notebooks"


def notebook_source(name: str) -> Path:
    """The jupytext source of notebook ``name`` (the file a person edits)."""
    return notebooks() / f"{name}.py"


def notebook_ipynb(name: str) -> Path:
    """The .ipynb paired with the source (generated, never committed)."""
    return notebooks() / f"{name}.ipynb"


def executed_notebooks() -> Path:
    return build() / "notebooks"


def executed_notebook(profile: str, name: str) -> Path:
    """Notebook ``name`` as executed for ``profile``."""
    return executed_notebooks() / profile / f"{name}.ipynb"


def notebook_timings(profile: str) -> Path:
    """Wall time of each executed notebook of ``profile``."""
    return executed_notebooks() / profile / "timings.json"


def notebook_log(profile: str, name: str) -> Path:
    """What notebook ``name`` printed to stderr when executed for ``profile`` (progress bars,
    warnings), moved out of the rendered notebook so that red blocks there mean errors."""
    return executed_notebooks() / profile / f"{name}.stderr.log"


def interactive_outputs(profile: str) -> Path:
    """Where a notebook run by hand (JupyterLab's "Run All") writes its tables and figures, so that
    it never overwrites a build's outputs; ``make all`` runs write to :func:`tables`/:func:`figures`."""
    return build() / "interactive" / profile


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
