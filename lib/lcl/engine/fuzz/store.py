"""Resumable result store: one SQLite file (WAL), one committed row per finished pair.

Two tables: ``results`` (result key -> the pair's deterministic result JSON) and ``refs``
(reference key -> reference outcomes, shared by every variant of a task). A result key
covers everything the result depends on (both codes, entry/stdin, inputs, seed, settings,
engine version), so a finished pair is never recomputed unless one of them changed, and
``kill -9`` loses at most the pairs that were running.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterable, Iterator, MutableMapping
from pathlib import Path
from typing import Any

from lcl.core import paths

from .semantics import FuzzResult


def default_path() -> Path:
    return paths.fuzz_results()


def open_default() -> ResultStore:
    """The default store, as it is on disk. The engine knows no committed labels: a study that
    has an archive of finished results merges it in and passes the store (``store=``) to
    :func:`lcl.engine.fuzz.run_batch` (the compendium's: :func:`lcl.study.label_archive.open_store`)."""
    return ResultStore()


class ResultStore:
    def __init__(self, path: str | Path | None = None) -> None:
        self.path = Path(path) if path else default_path()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self.db = sqlite3.connect(str(self.path), timeout=60, check_same_thread=False)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.execute("CREATE TABLE IF NOT EXISTS results (key TEXT PRIMARY KEY, id TEXT, result TEXT NOT NULL)")
        self.db.execute("CREATE TABLE IF NOT EXISTS refs (key TEXT PRIMARY KEY, blob BLOB NOT NULL)")
        self.db.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        self.db.commit()

    # -- results ---------------------------------------------------------------------------
    def get(self, key: str) -> FuzzResult | None:
        with self._lock:
            row = self.db.execute("SELECT result FROM results WHERE key = ?", (key,)).fetchone()
        return json.loads(row[0]) if row else None  # a FuzzResult, as put wrote it

    def has_many(self, keys: list[str]) -> set[str]:
        found: set[str] = set()
        with self._lock:
            for i in range(0, len(keys), 500):
                part = keys[i:i + 500]
                q = f"SELECT key FROM results WHERE key IN ({','.join('?' * len(part))})"
                found.update(k for (k,) in self.db.execute(q, part))
        return found

    def put(self, key: str, pair_id: str, result: FuzzResult) -> None:
        data = json.dumps(result, sort_keys=True)
        with self._lock:
            self.db.execute("INSERT OR REPLACE INTO results (key, id, result) VALUES (?, ?, ?)", (key, pair_id, data))
            self.db.commit()

    def put_many_missing(self, rows: Iterable[tuple[str, str, FuzzResult]]) -> int:
        """Insert (key, id, result) rows whose key is not stored yet, in one transaction; how many."""
        with self._lock:
            before = self.db.total_changes
            self.db.executemany("INSERT OR IGNORE INTO results (key, id, result) VALUES (?, ?, ?)",
                                ((k, i, json.dumps(r, sort_keys=True)) for k, i, r in rows))
            self.db.commit()
            return self.db.total_changes - before

    def items(self) -> Iterator[tuple[str, str, FuzzResult]]:
        """Every stored (key, id, result)."""
        with self._lock:
            rows = self.db.execute("SELECT key, id, result FROM results").fetchall()
        return ((k, i or "", json.loads(r)) for k, i, r in rows)

    def __len__(self) -> int:
        with self._lock:
            return int(self.db.execute("SELECT COUNT(*) FROM results").fetchone()[0])

    # -- bookkeeping -------------------------------------------------------------------------
    def meta(self, key: str) -> str | None:
        with self._lock:
            row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return str(row[0]) if row else None

    def set_meta(self, key: str, value: str) -> None:
        with self._lock:
            self.db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, value))
            self.db.commit()

    # -- reference outcomes ------------------------------------------------------------------
    def refs(self) -> RefCache:
        return RefCache(self)

    def close(self) -> None:
        with self._lock:
            self.db.close()

    def __enter__(self) -> ResultStore:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


class RefCache(MutableMapping[str, bytes]):
    """``MutableMapping`` view of the ``refs`` table (what ``compute_reference`` expects)."""

    def __init__(self, store: ResultStore) -> None:
        self.s = store

    def __getitem__(self, key: str) -> bytes:
        with self.s._lock:
            row = self.s.db.execute("SELECT blob FROM refs WHERE key = ?", (key,)).fetchone()
        if row is None:
            raise KeyError(key)
        return bytes(row[0])

    def __setitem__(self, key: str, blob: bytes) -> None:
        with self.s._lock:
            self.s.db.execute("INSERT OR REPLACE INTO refs (key, blob) VALUES (?, ?)", (key, sqlite3.Binary(blob)))
            self.s.db.commit()

    def __delitem__(self, key: str) -> None:
        with self.s._lock:
            self.s.db.execute("DELETE FROM refs WHERE key = ?", (key,))
            self.s.db.commit()

    def __iter__(self) -> Iterator[str]:
        with self.s._lock:
            keys = [k for (k,) in self.s.db.execute("SELECT key FROM refs")]
        return iter(keys)

    def __len__(self) -> int:
        with self.s._lock:
            return int(self.s.db.execute("SELECT COUNT(*) FROM refs").fetchone()[0])
