"""Where a batch's jobs run: in-process (``--jobs 1``: each job runs when its result is asked
for), a thread pool (``--jobs J``) or a Dask cluster (``--scheduler``), each with its way of
handing back finished futures.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable, Iterable
from concurrent.futures import as_completed
from typing import Any, Generic, Protocol, TypeVar

from lcl.core.errors import UserError

_T = TypeVar("_T")
_T_co = TypeVar("_T_co", covariant=True)


class JobFuture(Protocol[_T_co]):
    """What every executor's ``submit`` returns (a ``concurrent.futures.Future``, a Dask future,
    a :class:`_Lazy`): the job's return value, by ``result()``."""

    def result(self) -> _T_co: ...


class _Lazy(Generic[_T]):
    """A job of the in-process executor: runs when its result is asked for, so finished pairs
    reach the store one by one (and ``kill -9`` loses only the pair that was running)."""

    def __init__(self, fn: Callable[..., _T], args: tuple[Any, ...]) -> None:
        self.fn, self.args = fn, args

    def result(self) -> _T:
        return self.fn(*self.args)


class _Inline:
    def submit(self, fn: Callable[..., _T], *args: Any) -> _Lazy[_T]:
        return _Lazy(fn, args)


def _in_order(futs: list[Any]) -> Iterable[Any]:
    return iter(futs)


def _as_completed_local(futs: list[Any]) -> Iterable[Any]:
    return as_completed(futs)


@contextlib.contextmanager
def make_executor(jobs: int, scheduler: str | None):
    if scheduler:
        try:
            from distributed import Client, as_completed
        except ImportError:  # pragma: no cover
            raise UserError("--scheduler needs dask[distributed]") from None
        try:
            client = Client(scheduler, timeout="30s")
        except (OSError, TimeoutError) as exc:
            raise UserError(f"--scheduler {scheduler}: cannot connect ({exc})") from None
        except (ValueError, TypeError) as exc:  # not an address at all
            raise UserError(f"--scheduler {scheduler}: not a scheduler address ({exc})") from None

        class _Dask:
            def submit(self, fn: Callable[..., _T], *args: Any) -> JobFuture[_T]:
                return client.submit(fn, *args, pure=False)  # a distributed.Future

        limit = float(os.environ.get("LCL_DASK_NO_WORKER_TIMEOUT") or NO_WORKER_TIMEOUT)
        try:
            yield _Dask(), lambda futs: dask_completed(as_completed(futs), lambda: _dask_workers(client), limit)
        finally:
            client.close()
    elif jobs <= 1:
        yield _Inline(), _in_order
    else:
        # Threads, not processes: the harness never runs user code and spends its time waiting
        # for its sandboxed workers (select releases the GIL), so J threads keep J pairs' workers
        # busy. A process pool would pay, per pool process, a Python start, the imports and a
        # fork-server of its own (about 0.5 s of CPU on the very cores the workers need).
        import threading
        from concurrent.futures import ThreadPoolExecutor

        from ..sandbox import set_abort_event

        abort = threading.Event()
        pool = ThreadPoolExecutor(max_workers=jobs, thread_name_prefix="lcl-fuzz", initializer=set_abort_event,
                                  initargs=(abort,))
        try:
            yield pool, _as_completed_local
        except BaseException:
            abort.set()  # e.g. Ctrl-C: the pairs in flight stop within a poll interval
            raise
        finally:
            pool.shutdown(wait=True, cancel_futures=True)


#: seconds a Dask batch waits with no worker connected before it gives up (the pairs
#: finished so far are in the store; rerunning resumes)
NO_WORKER_TIMEOUT = 120.0


def _dask_workers(client: Any) -> int:
    try:
        return len(client.nthreads())
    except Exception:  # noqa: BLE001 - a lost scheduler counts as no worker
        return 0


def dask_completed(ac: Any, workers: Callable[[], int], limit: float, poll: float = 0.1,
                   check_every: float = 1.0) -> Iterable[Any]:
    """The futures of a ``distributed.as_completed`` as they finish, or a ``UserError`` once
    no worker has been connected for ``limit`` seconds (Dask would wait for one forever)."""
    lonely_since: float | None = None
    next_check = 0.0
    while not ac.is_empty():
        if ac.has_ready():
            yield from ac.next_batch(block=False)
            lonely_since = None
            continue
        now = time.monotonic()
        if now >= next_check:
            next_check = now + check_every
            if workers() > 0:
                lonely_since = None
            elif lonely_since is None:
                lonely_since = now
            elif now - lonely_since > limit:
                raise UserError(f"Dask: no worker connected for {limit:.0f} s, pairs still pending; the finished "
                                "pairs are kept in the store (rerun to resume)")
        time.sleep(poll)


def default_jobs() -> int:
    for var in ("JOBS", "LCL_JOBS"):
        v = os.environ.get(var)
        if v and v.isdigit() and int(v) > 0:
            return int(v)
    return 1
