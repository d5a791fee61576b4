"""The pair files notebook 02 writes and every later stage reads (``local_pairs_<profile>``,
``clone_pairs_<profile>``, ``published_pairs``): their columns (:data:`SCHEMA`), JSON Lines with
a Parquet twin, and reading them back.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, cast

from lcl.core import paths
from lcl.core.errors import UserError
from lcl.core.io import atomic_path, read_jsonl, write_jsonl
from lcl.core.provenance import record
from lcl.core.records import PairRow

from . import curation

SCHEMA = {
    # -- every pair file (local_pairs_<profile>, clone_pairs_<profile>, published_pairs) --
    "id": "LCL_<benchmark>_<task>_<MUT|OPT>_<k> | CLONE_<family>_<n>_<k> | the published id (#k for repeats)",
    "benchmark": "HumanEval | MBPP | APPS | PIE | Clones",
    "task": "task uid (spec id for PIE: PIE/<problem>; Clones/<cluster> for clones)",
    "level": "function | program",
    "variant_type": "MUT | OPT (local_pairs) | CLONE (clone_pairs) | PUBLISHED (published_pairs)",
    "reference": "the reference code (ast.unparse of the task's reference; a clone unit; the published golden_code)",
    "variant": "the variant's code (mutant, optimised variant, second clone unit, published generated_code)",
    "df_score": "Algorithm 1; mean over kept runs (PUBLISHED: the authors' published score)",
    "surface_sim": "Eq. 1, paper mode (ours, for every kind)",
    "generator": "mutpy | rewriter | pie_fast | human (CLONE) | published",
    "curated": "MUT / OPT: the pair passes the curation rule (lcl.study.curation; refactorings never do): in LoCaL-curated",
    "in_local": "MUT / OPT: curated and in the seeded sample at Table 2's makeup (lcl.study.curation): in LoCaL",
    # -- MUT / OPT / CLONE (our labels) --
    "run_scores": "per-run scores (None = excluded run)",
    "counts": "matches, mismatches, timeouts, crashes, invalid, skipped over kept runs",
    "verdict_digest": "SHA-256 of the verdict vector (lcl.engine.fuzz)",
    "seeds": "per-run input seeds",
    "spec": "verified | reviewed | inferred (the task's input spec); 'clone domain <name>' for clones",
    "entry_point": "function entry point (None for programs; the reference's function for clones)",
    # -- MUT / OPT --
    "operator": "MutPy operator (MUT)",
    "lineno": "line of the mutated node (MUT)",
    "strategies": "paper strategy labels (OPT; [] = surface rewrites only)",
    "rewrites": "concrete rewrites applied (OPT)",
    # -- CLONE (lcl.study.clones) --
    "cluster": "<family>#<n>: functions with identical behaviour fingerprints",
    "family": "candidate family (name/signature rule, lcl.study.clones.FAMILIES)",
    "domain": "input domain of the family (lcl.study.clones.DOMAINS)",
    "observe": "return | return_or_arg0 (what is compared: the returned value, or the mutated first argument when it returns None)",
    "cross_package": "the two functions come from different collections",
    "reference_package": "algorithms | pygorithm | searchsort | algos_py (also variant_package)",
    "reference_module": "module path inside the package (also variant_module)",
    "reference_function": "function name (also variant_function)",
    "reference_licence": "licence of the source package, from data/sources.toml (also variant_licence)",
    "reference_registry": "PyPI name==version it was read from (also variant_registry)",
    "variant_package": "see reference_package",
    "variant_module": "see reference_module",
    "variant_function": "see reference_function",
    "variant_licence": "see reference_licence",
    "variant_registry": "see reference_registry",
    # -- PUBLISHED --
    "published_kind": "MUT | OPT | None (the release's local_type; None: PIE pairs without one)",
    "published_id": "the id in the release (repeated ids keep it here)",
    "surface_sim_published": "the authors' surfaceSim (author_scores), when given",
    "author_scores": "the authors' per-pair metric scores (JSON text in Parquet)",
}

#: Parquet column types (pyarrow); any other column is stored as JSON text (see write_parquet)
_COUNTS = ("matches", "mismatches", "timeouts", "crashes", "invalid", "skipped")

PARQUET_TYPES = {
    **dict.fromkeys(("id", "benchmark", "task", "level", "variant_type", "reference", "variant", "generator", "verdict_digest", "spec", "entry_point", "operator", "cluster", "family", "domain", "observe", "published_kind", "published_id", *(f"{side}_{x}" for side in ("reference", "variant") for x in ("package", "module", "function", "licence", "registry"))), "string"),
    "df_score": "float64", "surface_sim": "float64", "in_local": "bool", "curated": "bool", "surface_sim_published": "float64",
    "lineno": "int64", "cross_package": "bool",
    "run_scores": "list<float64>", "seeds": "list<int64>", "strategies": "list<string>", "rewrites": "list<string>",
    "counts": "struct<" + ", ".join(f"{c}: int64" for c in _COUNTS) + ">",
}

#: where the files' column names differ from :class:`~lcl.core.records.PairRow`'s (file -> record); the
#: files keep the released schema's ``variant``, the code past loading says ``candidate``
FILE_TO_RECORD = {"variant": "candidate"}
RECORD_TO_FILE = {v: k for k, v in FILE_TO_RECORD.items()}


def from_file(row: dict[str, Any]) -> PairRow:
    """A pair-file row as the record every stage passes (the one place file names are read)."""
    return cast(PairRow, {FILE_TO_RECORD.get(k, k): v for k, v in row.items()})


def to_file(row: PairRow) -> dict[str, Any]:
    """A record as a pair-file row (the one place file names are written)."""
    return {RECORD_TO_FILE.get(k, k): v for k, v in row.items()}


def read_pairs(path: Path) -> list[PairRow]:
    """A pair file's rows as records."""
    return [from_file(r) for r in read_jsonl(path)]


def load_local(profile: str, subset: str = "local") -> list[PairRow]:
    """The pairs built by notebook 02 for ``profile`` (clear error when not built yet):
    ``subset`` 'local' LoCaL, 'curated' LoCaL-curated, 'all' every labelled candidate (LoCaL-all)."""
    path = paths.local_pairs(profile)
    if not path.exists():
        raise UserError(f"{path} does not exist yet: build it with 'make all PROFILE={profile}' "
                        f"(notebook 02_variants writes it)")
    try:
        return curation.select(read_pairs(path), subset)
    except ValueError as e:
        raise UserError(f"{path}: {e}") from None

# ============================================================================ files
def _arrow_type(spec: str) -> Any:
    import pyarrow as pa

    simple = {"string": pa.string(), "float64": pa.float64(), "int64": pa.int64(), "bool": pa.bool_()}
    if spec in simple:
        return simple[spec]
    if spec.startswith("list<"):
        return pa.list_(simple[spec[5:-1]])
    if spec.startswith("struct<"):
        return pa.struct([(name.strip(), simple[t.strip()]) for name, t in
                          (f.split(":") for f in spec[7:-1].split(","))])
    raise ValueError(spec)

def write_parquet(path: Path, rows: list[dict[str, Any]]) -> Path:
    """Rows -> Parquet (pyarrow), atomically. Columns: :data:`SCHEMA` order first, then the
    rest sorted; types from :data:`PARQUET_TYPES`; any other column (nested, heterogeneous:
    ``author_scores``) is JSON text. Each field carries its SCHEMA description as metadata."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    keys = {k for r in rows for k in r}
    cols = [k for k in SCHEMA if k in keys] + sorted(keys - set(SCHEMA))
    fields, arrays = [], []
    for k in cols:
        vals = [r.get(k) for r in rows]
        if k in PARQUET_TYPES:
            t = _arrow_type(PARQUET_TYPES[k])
            if PARQUET_TYPES[k].startswith("struct<"):
                vals = [None if v is None else {c: v.get(c, 0) for c in _COUNTS} for v in vals]
        else:
            t = pa.string()
            vals = [None if v is None else json.dumps(v, sort_keys=True, default=str) for v in vals]
        meta = {"description": SCHEMA.get(k, "JSON text"), "encoding": "native" if k in PARQUET_TYPES else "json"}
        fields.append(pa.field(k, t, metadata=meta))
        arrays.append(pa.array(vals, type=t))
    table = pa.Table.from_arrays(arrays, schema=pa.schema(fields, metadata={"lcl.schema": "lcl.study.pair_files.SCHEMA"}))
    with atomic_path(path) as tmp:
        pq.write_table(table, tmp)
    return path

def write_pairs(jsonl_path: Path, records: list[PairRow], *, profile: str | None = None,
                seed: int | None = None) -> tuple[Path, Path]:
    """``<name>.jsonl`` and ``<name>.parquet`` side by side; with ``profile``, each with its
    provenance sidecar, like every other declared output of the build."""
    p = Path(jsonl_path)
    rows = [to_file(r) for r in records]
    write_jsonl(p, rows)
    pq_path = write_parquet(p.with_suffix(".parquet"), rows)
    if profile is not None:
        for out in (p, pq_path):
            record(out, profile=profile, seed=seed, extra={"rows": len(rows)})
    return p, pq_path

def load_clones(profile: str) -> list[PairRow]:
    """The CLONE pairs built by notebook 02 for ``profile``."""
    path = paths.clone_pairs(profile)
    if not path.exists():
        raise UserError(f"{path} does not exist yet: run notebook 02_variants with --profile {profile}")
    return read_pairs(path)

def load_published() -> list[PairRow]:
    """The PUBLISHED pairs written by notebook 02 (``[]`` when the mirror was absent)."""
    path = paths.published_pairs()
    return read_pairs(path) if path.exists() else []
