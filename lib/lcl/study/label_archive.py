"""Committed archive of finished fuzzing results, so that labelling survives a fresh clone.

Labelling the full profile with Algorithm 1 costs more than ten CPU-hours on the 2-core
reference machine: more than one sitting, and every sitting starts from a fresh clone with
an empty ``.cache``. The fuzzing engine's result store (:mod:`lcl.engine.fuzz.store`) therefore has a committed
counterpart, ``data/labels/``: gzip'd JSON Lines shards of ``{"key", "id", "result"}`` rows,
one shard per id prefix (``LCL_HumanEval``, ``LCL_MBPP``, ...), rows sorted by key, plus a
``MANIFEST.json`` with each shard's row count and SHA-256.

Nothing in it is trusted by name. A row's key is the store's result key, which covers both
codes, the inputs, the seed, every setting and the engine version; an archived row is used
only for the exact pair and configuration that produced it, and anything else is fuzzed
anew. :func:`open_store` opens the engine's default store with the archive merged in (rows
already in the store win), once per archive content; the study's labelling opens its store
that way, while the engine itself knows no archive. ``LCL_LABEL_ARCHIVE=off`` (or deleting ``data/labels/``) recomputes
everything from scratch; ``lcl variants label --recheck K`` (:func:`lcl.study.labelling.recheck`)
re-fuzzes a sample of archived pairs and compares.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import os
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TypedDict

from lcl.core import cache, paths
from lcl.core.errors import UserError
from lcl.core.io import atomic_write
from lcl.engine.fuzz.semantics import ENGINE_VERSION, FuzzResult
from lcl.engine.fuzz.store import ResultStore

from .loaders import BENCHMARKS

#: one archived result: (result key, pair id, result)
Archived = tuple[str, str, FuzzResult]

MANIFEST = "MANIFEST.json"
SUFFIX = ".jsonl.gz"
_META = "archive-digest:"


def default_dir() -> Path | None:
    """``data/labels`` (``LCL_LABEL_ARCHIVE`` overrides it; ``off`` disables the archive)."""
    env = os.environ.get("LCL_LABEL_ARCHIVE")
    if env is not None:
        return None if env.strip().lower() in ("", "off", "0", "no", "false") else Path(env)
    return paths.label_archive()


#: second id tokens that name a benchmark (the loaders' names, and the published release's
#: ``HE``): such ids are sharded by their first two tokens
BENCHMARK_TOKENS = frozenset(BENCHMARKS) | {"HE"}


def shard_of(pair_id: str) -> str:
    """Shard name of a pair id: its first ``_``/``/``-separated token, and the second too when it
    names a benchmark (``LCL_MBPP_3_MUT_1`` -> ``LCL_MBPP``, ``CLONE_sort_1_2`` -> ``CLONE``,
    ``MBPP_102_4`` -> ``MBPP``), so a source has a handful of shards, not one per task."""
    tokens = [t for t in re.split(r"[_/]", pair_id) if t][:2] or ["misc"]
    keep = tokens if len(tokens) == 2 and tokens[1] in BENCHMARK_TOKENS else tokens[:1]
    return re.sub(r"[^A-Za-z0-9._-]+", "-", "_".join(keep)) or "misc"


def _shards(folder: Path) -> list[Path]:
    return sorted(folder.glob("*" + SUFFIX)) if folder.is_dir() else []


def read(folder: Path) -> Iterator[Archived]:
    """Every archived (key, id, result), shard by shard; a damaged line names file and line."""
    for shard in _shards(folder):
        with gzip.open(shard, "rt", encoding="utf-8") as fh:
            for lineno, line in enumerate(fh, 1):
                try:
                    row = json.loads(line)
                    yield row["key"], row["id"], row["result"]
                except (json.JSONDecodeError, KeyError, TypeError) as exc:
                    raise ValueError(f"{shard}:{lineno}: not an archive row ({exc})") from exc


def _shard_digests(folder: Path) -> dict[str, str]:
    """Shard name (without suffix) -> SHA-256 of its bytes."""
    return {p.name[: -len(SUFFIX)]: cache.file_digest(p) for p in _shards(folder)}


def open_store() -> ResultStore:
    """The engine's default result store with this archive merged in: every labelling run opens
    its store here, so a fresh clone finds the committed labels before fuzzing anything."""
    store = ResultStore()
    try:
        restore(store)
    except BaseException:
        store.close()
        raise
    return store


def restore(store: ResultStore, folder: Path | None = None) -> int:
    """Merge the archive into ``store`` (existing rows win); rows added. A no-op, reading only
    the shards' bytes, when this archive content was merged before."""
    folder = default_dir() if folder is None else folder
    if folder is None or not _shards(folder):
        return 0
    shas = _shard_digests(folder)
    d = cache.key("lcl-label-archive", shas)  # what the store remembers having merged
    if store.meta(_META + str(folder.resolve())) == d:
        return 0
    problems = _problems(_read_manifest(folder), shas)
    try:
        if problems:
            raise ValueError("; ".join(problems))
        added = store.put_many_missing((k, i, r) for k, i, r in read(folder))
    except ValueError as exc:
        raise UserError(f"label archive {folder} is damaged ({exc}); restore it (git checkout -- {folder}) "
                        "or ignore it with LCL_LABEL_ARCHIVE=off") from None
    store.set_meta(_META + str(folder.resolve()), d)
    return added


def _write_shard(path: Path, rows: list[Archived]) -> str:
    """Deterministic gzip (mtime 0, no file name), rows sorted by key; its SHA-256."""
    buf = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buf, mtime=0, compresslevel=9) as gz:
        for key, pair_id, result in sorted(rows, key=lambda r: r[0]):
            line = json.dumps({"key": key, "id": pair_id, "result": result}, sort_keys=True, separators=(",", ":"))
            gz.write(line.encode() + b"\n")
    data = buf.getvalue()
    with atomic_write(path, "wb") as fh:
        fh.write(data)
    return hashlib.sha256(data).hexdigest()


def export(store: ResultStore, folder: Path | None = None,
           select: Callable[[FuzzResult], bool] | None = None) -> dict[str, int]:
    """Add the store's results that ``select`` accepts to the archive (a union: rows already
    archived stay); rewrite only the shards that gain rows. Rows added per shard.

    A result the store holds only because an archived result of an older engine version carried
    over (:func:`lcl.engine.fuzz.batch.carry_over`: the same result under the new version's key) adds
    nothing: a fresh clone carries it over the same way. Only results the engine computed anew
    are added, so a version change grows the archive by what it re-fuzzed, not by a copy."""
    folder = default_dir() if folder is None else folder
    if folder is None:
        raise ValueError("the label archive is disabled (LCL_LABEL_ARCHIVE=off)")
    by_shard: dict[str, dict[str, Archived]] = {}
    archived: dict[str, list[FuzzResult]] = {}
    for key, pair_id, result in read(folder):
        by_shard.setdefault(shard_of(pair_id), {})[key] = (key, pair_id, result)
        archived.setdefault(pair_id, []).append(_versionless(result))
    added: Counter[str] = Counter()
    for key, pair_id, result in store.items():
        if select is not None and not select(result):
            continue
        if pair_id in archived and _versionless(result) in archived[pair_id]:
            continue  # a carried-over copy of an archived result
        name = shard_of(pair_id)
        rows = by_shard.setdefault(name, {})
        if key not in rows:
            rows[key] = (key, pair_id, result)
            added[name] += 1
    manifest = _read_manifest(folder)
    for name in sorted(added):
        sha = _write_shard(folder / (name + SUFFIX), list(by_shard[name].values()))
        manifest[name] = {"rows": len(by_shard[name]), "sha256": sha}
    if added or not (folder / MANIFEST).exists():
        _write_manifest(folder, manifest)
    return dict(added)


def _versionless(result: FuzzResult) -> FuzzResult:
    out = result.copy()
    out.pop("engine_version", None)
    return out


class ShardEntry(TypedDict):
    """A shard as the manifest lists it."""

    rows: int
    sha256: str


def _read_manifest(folder: Path) -> dict[str, ShardEntry]:
    p = folder / MANIFEST
    return dict(json.loads(p.read_text()).get("shards", {})) if p.exists() else {}


def _write_manifest(folder: Path, shards: dict[str, ShardEntry]) -> None:
    doc = {"about": "finished Algorithm 1 results, content-keyed; see lib/lcl/study/label_archive.py",
           "engine_version": ENGINE_VERSION, "rows": sum(int(v["rows"]) for v in shards.values()),
           "shards": dict(sorted(shards.items()))}
    with atomic_write(folder / MANIFEST) as fh:
        fh.write(json.dumps(doc, indent=1, sort_keys=True) + "\n")


def verify(folder: Path | None = None) -> list[str]:
    """Problems with the archive's integrity (shard missing from / unlike its manifest entry)."""
    folder = default_dir() if folder is None else folder
    if folder is None or not folder.exists():
        return []
    return _problems(_read_manifest(folder), _shard_digests(folder))


def _problems(manifest: dict[str, ShardEntry], on_disk: dict[str, str]) -> list[str]:
    problems = []
    for name in sorted(set(manifest) | set(on_disk)):
        if name not in on_disk:
            problems.append(f"{name}{SUFFIX}: in {MANIFEST} but missing")
        elif name not in manifest:
            problems.append(f"{name}{SUFFIX}: not in {MANIFEST}")
        elif on_disk[name] != manifest[name]["sha256"]:
            problems.append(f"{name}{SUFFIX}: SHA-256 differs from {MANIFEST}")
    return problems


def size(folder: Path) -> int:
    """Rows in the archive, as its manifest records them (0 when there is none)."""
    return sum(int(v["rows"]) for v in _read_manifest(folder).values())


def summary(rows: Iterable[Archived]) -> dict[str, dict[str, int]]:
    """Rows per shard and engine version (for ``lcl fuzz archive status``)."""
    out: dict[str, dict[str, int]] = {}
    for _key, pair_id, result in rows:
        v = str(result.get("engine_version", "?"))
        d = out.setdefault(shard_of(pair_id), {})
        d[v] = d.get(v, 0) + 1
    return out
