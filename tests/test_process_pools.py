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
