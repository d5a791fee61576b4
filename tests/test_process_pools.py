"""The shared pools of spawned workers the parallel metrics use."""

from __future__ import annotations

import os

from lcl.engine import process_pools


def _hash_seed(_: int) -> str | None:
    return os.environ.get("PYTHONHASHSEED")


def test_a_pool_is_kept_replaced_on_resize_and_started_with_its_environment() -> None:
    before = os.environ.get("PYTHONHASHSEED")
    try:
        a = process_pools.shared_pool("test-pool", 1, env={"PYTHONHASHSEED": "0"})
        assert process_pools.shared_pool("test-pool", 1) is a  # kept, not restarted
        assert a.map(_hash_seed, [0]) == ["0"]  # the workers saw the environment
        assert os.environ.get("PYTHONHASHSEED") == before  # the parent's environment is restored
        b = process_pools.shared_pool("test-pool", 2)
        assert b is not a and sorted(b.map(abs, [-1, -2])) == [1, 2]
    finally:
        process_pools.close_all()


def _pid(_: int) -> int:
    return os.getpid()


def test_a_worker_outlives_an_interrupt_sent_to_its_process_group() -> None:
    # a kernel's interrupt at the end of a notebook run reaches every process of its group
    import signal
    import time

    try:
        pool = process_pools.shared_pool("test-interrupt", 1)
        (pid,) = pool.map(_pid, [0])
        os.kill(pid, signal.SIGINT)
        time.sleep(0.5)  # a worker that died would be replaced by a new process by now
        assert pool.map(_pid, [0]) == [pid]
    finally:
        process_pools.close_all()
