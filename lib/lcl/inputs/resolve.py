"""Resolve a published LoCaL row (``id, golden_code, generated_code``) to its task's inputs,
for ``lcl fuzz batch`` (registered with :func:`lcl.fuzz.register_resolver`).

The id names the task (``LOCAL_HE_112_OP_1`` -> HumanEval/112, ``LOCAL_APPS_707_11_MUT_7`` ->
APPS/707, ``PIE_p02599_s870922238`` -> PIE/p02599). Inputs come from the task's spec
(reviewed if committed, else the inferred draft): the benchmark's own test inputs first, then
spec-generated ones from the run's seed (Algorithm 1: a fresh input set per run).
"""

from __future__ import annotations

import hashlib
import re
from functools import lru_cache
from typing import Any

from .. import loaders
from .generate import generate, task_seeds, with_seeds
from .spec import Spec, dumps
from .store import spec_for, spec_uid, tasks_for


class SpecGenerator:
    """``gen(seed, n)`` for the fuzzing engine; its ``__qualname__`` carries a digest of the
    spec and seed inputs, so cached fuzz results are invalidated when either changes."""

    def __init__(self, spec: Spec, seed_inputs: list[Any]) -> None:
        self.spec, self.seed_inputs = spec, seed_inputs
        digest = hashlib.sha256((dumps(spec, strict=False) + repr(seed_inputs)).encode()).hexdigest()[:16]
        self.__qualname__ = f"SpecGenerator[{spec.task}:{spec.origin}:{digest}]"
        self.__module__ = __name__

    def __call__(self, seed: int, n: int) -> list[Any]:
        return with_seeds(self.seed_inputs, generate(self.spec, n, seed), n)


_CS_MBPP = re.compile(r"^MBPP_(\d+)_\d+$")
_CS_APPS = re.compile(r"^APPS_test-(\d+)_\d+$")


def task_uid_of(pair_id: str) -> str | None:
    """The spec id of a published LoCaL or CodeScore_test APPS pair id (``APPS_test-0001_19``),
    or None when the id names no task (CodeScore_test MBPP ids need the code:
    :func:`task_uid_for_row`)."""
    pair_id = pair_id.split("#")[0]
    if _CS_MBPP.match(pair_id):
        return None
    if m := _CS_APPS.match(pair_id):
        return f"APPS/{int(m.group(1))}"
    uid = loaders.published_task(pair_id)
    if uid is None:
        return None
    if uid.startswith("PIE/"):
        return "PIE/" + uid.split("/", 1)[1].split("_")[0]
    return uid


def _norm(code: str) -> str:
    return re.sub(r"\s+", "", code.replace("\r\n", "\n"))


@lru_cache(maxsize=1)
def _mbpp_by_code() -> dict[str, str]:
    """Whitespace-free MBPP reference code -> task uid (CodeScore_test's MBPP ids are its own
    numbering, not MBPP task ids: ``MBPP_102_4`` holds MBPP task 171's reference)."""
    if not loaders.benchmark_available("MBPP"):
        return {}
    return {_norm(t.reference): t.uid for t in loaders.load_mbpp().tasks}


def task_uid_for_row(row: dict[str, Any]) -> str | None:
    """The spec id of a pair row: CodeScore_test MBPP rows by their reference code, the rest by id."""
    if isinstance(row.get("task"), str):  # our own rows name their task
        return row["task"]
    pid = str(row.get("id", ""))
    if _CS_MBPP.match(pid.split("#")[0]):
        return _mbpp_by_code().get(_norm(str(row.get("golden_code", ""))))
    return task_uid_of(pid)


def seed_inputs(uid: str, spec: Spec) -> list[Any]:
    """The seed inputs that open every run of spec ``uid``'s pairs (all its tasks', in order)."""
    return [s for t in tasks_for(uid) for s in task_seeds(t, spec)]


def resolve_published(row: dict[str, Any]) -> dict[str, Any] | None:
    """Resolver for :func:`lcl.fuzz.register_resolver`: entry/stdin and a spec generator."""
    uid = task_uid_for_row(row)
    if uid is None:
        return None
    task = tasks_for(uid)[0]  # raises UserError for an unknown task
    spec = spec_for(spec_uid(task))
    seeds = seed_inputs(uid, spec)
    return {"entry": task.entry_point, "stdin": task.level == "program", "generator": SpecGenerator(spec, seeds),
            "spec_origin": spec.origin, "spec_verified": spec.verified}
