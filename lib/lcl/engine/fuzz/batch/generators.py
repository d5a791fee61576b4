"""Generated input sets shared by the pairs of a batch: each ``gen(seed, n)`` set is generated
once per batch (not once per pair), optionally in a spawned helper process so that generation
does not hold the harness's GIL while the sandboxed workers wait.
"""

from __future__ import annotations

import pickle
import threading
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import Future
from typing import TYPE_CHECKING, Any

from ..algorithm import InputSet
from .jobs import PairJob, generator_name
from .scheduling import CHUNK_TASKS

if TYPE_CHECKING:  # imported where used, as before: the harness imports this module on every batch
    from collections import OrderedDict
    from concurrent.futures import Future


class GeneratorMemo:
    """Generated input sets shared by the pairs of a batch (a task's reference and all its
    variants use the same ``gen(seed, n)`` per run): each set is generated once, not once per
    pair, by the first thread asking for it (the others wait for it). A small LRU: pairs of
    one task are adjacent in a batch."""

    def __init__(self, size: int) -> None:
        self.size, self.lock = size, threading.Lock()
        self.items: OrderedDict[tuple[Any, ...], Future[InputSet]] = OrderedDict()

    def get(self, key: tuple[Any, ...], make: Callable[[], list[Any]]) -> InputSet:
        with self.lock:
            found = self.items.get(key)
            mine = found is None
            if found is None:
                fut: Future[InputSet] = Future()
                self.items[key] = fut
                while len(self.items) > self.size:
                    self.items.popitem(last=False)
            else:
                fut = found
                self.items.move_to_end(key)
        if mine:
            try:
                fut.set_result(InputSet(make()))
            except BaseException as exc:
                fut.set_exception(exc)
                with self.lock:
                    if self.items.get(key) is fut:
                        del self.items[key]
                raise
        return fut.result()


def _generate(gen: Any, seed: int, n: int) -> list[Any]:
    return list(gen(seed, n))


class GenerationProcess:
    """Input generation in one spawned helper process, so that on a thread pool it runs on
    its own core instead of holding the harness's GIL while the other threads' sandboxed
    workers wait for their next request. Started on first use, shut down with the batch;
    a generator that cannot be pickled (a lambda, a closure) is run in-process instead."""

    def __init__(self) -> None:
        self.pool: Any = None
        self.failed = False

    def generate(self, gen: Any, seed: int, n: int) -> list[Any]:
        if not self.failed:
            try:
                if self.pool is None:
                    import multiprocessing
                    from concurrent.futures import ProcessPoolExecutor

                    self.pool = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"))
                return self.pool.submit(_generate, gen, seed, n).result()
            except (pickle.PicklingError, AttributeError, TypeError):
                self.failed = True
        return _generate(gen, seed, n)

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown(wait=True, cancel_futures=True)
            self.pool = None


class SharedGenerator:
    """``gen`` whose outputs come from a :class:`_GeneratorMemo` (same name, so same cache keys)."""

    def __init__(self, gen: Any, memo: GeneratorMemo, process: GenerationProcess | None = None) -> None:
        self.gen, self.memo = gen, memo
        self.make = process.generate if process is not None else _generate
        self.name = self.cache_name = generator_name(gen)

    def __call__(self, seed: int, n: int) -> InputSet:
        return self.memo.get((self.name, int(seed), int(n)), lambda: self.make(self.gen, seed, n))


def share_generators(jobs: list[PairJob], runs: int, parallel: int,
                     process: GenerationProcess | None = None) -> GeneratorMemo:
    """Wrap every job's generator so a task's input sets are generated once per batch (in
    ``process`` when given)."""
    memo = GeneratorMemo(size=runs * CHUNK_TASKS * (3 + max(1, parallel)))
    for j in jobs:
        if j.generator is not None and not isinstance(j.generator, SharedGenerator):
            j.generator = SharedGenerator(j.generator, memo, process)
    return memo
