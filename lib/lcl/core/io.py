"""Atomic, crash-safe file writing and JSON Lines helpers.

Every output of the compendium goes through :func:`atomic_write` (temp file in the same
directory, fsync, ``os.replace``), so an interrupted run never leaves a half-written table,
figure or dataset: readers see either the old file or the complete new one.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import IO, Any

from .errors import UserError


@contextlib.contextmanager
def atomic_write(path: str | Path, mode: str = "w", encoding: str | None = "utf-8") -> Iterator[IO[Any]]:
    """Open a temporary file next to ``path``; rename it over ``path`` only on success."""
    with atomic_path(path) as tmp, open(tmp, mode, encoding=None if "b" in mode else encoding) as fh:
        yield fh
        fh.flush()
        os.fsync(fh.fileno())


@contextlib.contextmanager
def atomic_path(path: str | Path) -> Iterator[Path]:
    """Yield a temporary path next to ``path`` (for writers that want a filename: matplotlib,
    pandas); it replaces ``path`` only when the block succeeds, and is removed otherwise."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=path.suffix or ".tmp", dir=path.parent)
    os.close(fd)
    try:
        yield Path(tmp)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def write_text(path: str | Path, text: str) -> Path:
    with atomic_write(path) as fh:
        fh.write(text)
    return Path(path)


def write_json(path: str | Path, obj: Any) -> Path:
    return write_text(path, json.dumps(obj, indent=2, sort_keys=True, default=str) + "\n")


def read_jsonl(path: str | Path) -> list[dict[str, Any]]:
    """Read JSON Lines; a malformed line raises ``ValueError`` naming file and line. Rows are
    decoded as they are (JSON values of any type, hence ``Any``; callers check what they use)."""
    rows: list[dict[str, Any]] = []
    with open(path, encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise ValueError(f"{path}:{lineno}: not valid JSON ({exc.msg})") from exc
    return rows


@contextlib.contextmanager
def temporary_environ(values: dict[str, str]) -> Iterator[None]:
    """Set ``values`` in this process's environment (what child processes started inside inherit)
    and put back what was there, unset variables included, on the way out."""
    old = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def read_user_jsonl(path: str | Path) -> list[dict[str, Any]]:
    """:func:`read_jsonl` for a file a person gave: every problem (not UTF-8, a malformed line)
    becomes one :class:`~lcl.core.errors.UserError` line naming the file (and line)."""
    try:
        return read_jsonl(path)
    except UnicodeDecodeError as exc:
        raise UserError(f"{path}: not UTF-8 text (byte {exc.start}: {exc.reason})") from None
    except ValueError as exc:
        raise UserError(str(exc)) from exc


def write_jsonl(path: str | Path, rows: Iterable[Mapping[str, object]]) -> Path:
    with atomic_write(path) as fh:
        for row in rows:
            fh.write(json.dumps(row, sort_keys=True, default=str) + "\n")
    return Path(path)
