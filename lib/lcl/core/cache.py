"""Content-keyed on-disk cache for intermediate results.

A cache key is the SHA-256 of a canonical JSON encoding of everything a result depends on
(inputs, settings, code version). Entries are written atomically, so an interrupted run
resumes from whatever finished, and a second run with the same inputs is nearly free.
"""

from __future__ import annotations

import hashlib
import json
import pickle
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from . import paths
from .io import atomic_write

T = TypeVar("T")


def key(*parts: Any) -> str:
    """Stable SHA-256 hex digest of ``parts`` (JSON-canonicalised; bytes hashed raw)."""
    h = hashlib.sha256()
    for part in parts:
        if isinstance(part, bytes):
            h.update(part)
        else:
            h.update(json.dumps(part, sort_keys=True, default=str, separators=(",", ":")).encode())
        h.update(b"\x1f")
    return h.hexdigest()


def file_digest(path: str | Path, chunk: int = 1 << 20) -> str:
    """SHA-256 of a file's bytes."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        while block := fh.read(chunk):
            h.update(block)
    return h.hexdigest()


def cached(namespace: str, cache_key: str, compute: Callable[[], T], root: Path | None = None) -> T:
    """Return the cached value for (namespace, key) or compute, store and return it."""
    base = (root or paths.cache()) / namespace
    path = base / cache_key[:2] / f"{cache_key}.pkl"
    if path.exists():
        try:
            with open(path, "rb") as fh:
                return pickle.load(fh)  # noqa: S301 - our own cache files
        except (AttributeError, ImportError, EOFError, pickle.UnpicklingError):
            pass  # a class that has moved or gone since the entry was written: computed again, overwritten
    value = compute()
    with atomic_write(path, "wb") as fh:
        pickle.dump(value, fh, protocol=pickle.HIGHEST_PROTOCOL)
    return value
