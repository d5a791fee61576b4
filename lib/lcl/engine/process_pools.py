"""Persistent pools of spawned worker processes, one per use, shared by the metrics that score
in parallel (CodeBLEU, CodeBERTScore[MiniLM], tree-mode SurfaceSim).

*Spawned*, never forked: once torch has started threads a forked child can deadlock. A pool is
started on first use, kept for the rest of the process (starting one costs seconds: every worker
imports its libraries), replaced when a different size is asked for, and terminated at exit.
"""

from __future__ import annotations

import atexit
import multiprocessing
import signal
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from lcl.core.io import temporary_environ

if TYPE_CHECKING:
    from multiprocessing.pool import Pool

_POOLS: dict[str, tuple[int, Pool]] = {}
_LOCK = threading.Lock()


def shared_pool(name: str, workers: int, initializer: Callable[[], None] | None = None,
                env: dict[str, str] | None = None) -> Pool:
    """The pool called ``name`` with ``workers`` processes, each started with ``initializer``
    and with ``env`` set in its environment (e.g. ``PYTHONHASHSEED``, read at interpreter start)."""
    with _LOCK:
        size, pool = _POOLS.get(name, (0, None))
        if pool is not None and size != workers:
            pool.terminate()
            pool = None
        if pool is None:
            pool = _start(workers, initializer, env or {})
            _POOLS[name] = (workers, pool)
        return pool


def _start(workers: int, initializer: Callable[[], None] | None, env: dict[str, str]) -> Pool:
    with temporary_environ(env):  # multiprocessing.Pool starts every worker now, with this environment
        return multiprocessing.get_context("spawn").Pool(workers, initializer=_worker_start, initargs=(initializer,))


def _worker_start(initializer: Callable[[], None] | None) -> None:
    """A worker ignores SIGINT. Ctrl-C, and the interrupt a Jupyter kernel gets when a notebook run
    ends, reach the whole process group; the parent decides what happens to its pool (it terminates
    it at exit), so a worker must not die on its own and print a KeyboardInterrupt traceback."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if initializer is not None:
        initializer()


def close_all() -> None:
    with _LOCK:
        for _size, pool in _POOLS.values():
            pool.terminate()
        _POOLS.clear()


atexit.register(close_all)
