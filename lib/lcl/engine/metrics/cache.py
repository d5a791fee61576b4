"""On-disk score cache: one float per (metric name, metric version, settings, language, pair).

Keys are :func:`lcl.core.cache.key` digests of those parts, the pair part being the SHA-256 of
``reference \\0 candidate`` (the same digest as :attr:`lcl.core.records.Pair.digest`). Values live
in one SQLite file under ``paths.cache()/metrics/`` (safe to delete; WAL mode, so concurrent
``lcl score`` runs and an interrupted run are both fine: whatever was committed is reused).
"""

from __future__ import annotations

import hashlib
import math
import sqlite3
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from lcl.core import paths
from lcl.core.cache import key as _key


def pair_digest(reference: str, candidate: str) -> str:
    h = hashlib.sha256()
    h.update(reference.encode())
    h.update(b"\0")
    h.update(candidate.encode())
    return h.hexdigest()


def score_key(metric: str, version: str, config: Any, lang: str, digest: str) -> str:
    # "lcl.metrics" is a key namespace, not a module path: the package has moved under engine/, and
    # keeping the string keeps every cached score valid
    return _key("lcl.metrics", metric, version, config, lang, digest)


class ScoreCache:
    """A tiny key -> float store (``None`` values are not stored)."""

    def __init__(self, path: str | Path | None = None):
        self.path = Path(path) if path else paths.metric_scores()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(self.path, timeout=60)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("CREATE TABLE IF NOT EXISTS score (k TEXT PRIMARY KEY, v REAL)")
        self._db.commit()

    def get_many(self, keys: Iterable[str]) -> dict[str, float]:
        keys = list(keys)
        out: dict[str, float] = {}
        for i in range(0, len(keys), 500):
            chunk = keys[i : i + 500]
            q = f"SELECT k, v FROM score WHERE k IN ({','.join('?' * len(chunk))})"
            for k, v in self._db.execute(q, chunk):
                out[k] = float("nan") if v is None else float(v)
        return out

    def put_many(self, items: Mapping[str, float]) -> None:
        rows = [(k, None if v is None or (isinstance(v, float) and math.isnan(v)) else float(v)) for k, v in items.items()]
        with self._db:
            self._db.executemany("INSERT OR REPLACE INTO score (k, v) VALUES (?, ?)", rows)

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> ScoreCache:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
