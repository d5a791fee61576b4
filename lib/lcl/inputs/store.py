"""Where specs live and how a task finds its spec.

- Reviewed specs (committed, ``origin = "reviewed"``, ``verified = true`` once reviewed):
  ``data/constraints/<Benchmark>/<id>.json`` (``HumanEval/0.json``, ``MBPP/11.json``,
  ``APPS/707.json``, ``PIE/p02599.json``: PIE specs are per CodeNet problem).
- Inferred drafts (regenerated on demand, never committed): ``data/interim/constraints_inferred/``.

:func:`spec_for` returns the reviewed spec when there is one, else the inferred draft (inferred
and cached on first use), so every output can label a pair whose task only has a draft.
"""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache
from pathlib import Path

from .. import loaders, paths
from ..errors import UserError
from ..io import write_text
from ..records import Task
from .infer import infer_function, infer_program
from .spec import Spec, dumps, load


def spec_uid(task: Task) -> str:
    """The spec id of a task: its uid, except PIE (one spec per CodeNet problem)."""
    if task.benchmark == "PIE":
        return f"PIE/{task.extra.get('problem_id') or task.task_id.split('_')[0]}"
    return task.uid


def _rel(uid: str) -> Path:
    bench, _, tid = uid.partition("/")
    if not bench or not tid or ".." in uid:
        raise UserError(f"not a task id: {uid!r} (expected e.g. HumanEval/0, MBPP/11, APPS/707, PIE/p02599)")
    return Path(bench) / f"{tid.replace('/', '_')}.json"


def reviewed_path(uid: str) -> Path:
    return paths.data() / "constraints" / _rel(uid)


def inferred_path(uid: str) -> Path:
    return paths.interim() / "constraints_inferred" / _rel(uid)


@lru_cache(maxsize=1)
def _all_tasks() -> dict[str, list[Task]]:
    """spec uid -> tasks (PIE: every pair's slow program of that problem)."""
    out: dict[str, list[Task]] = {}
    for bench in loaders.BENCHMARKS:
        if not loaders.benchmark_available(bench):
            continue
        for t in loaders.LOADERS[bench]().tasks:
            out.setdefault(spec_uid(t), []).append(t)
    return out


def tasks_for(uid: str) -> list[Task]:
    """Every task sharing spec ``uid`` (one for HumanEval/MBPP/APPS, all PIE pairs of a problem)."""
    try:
        return _all_tasks()[uid]
    except KeyError:
        raise UserError(f"unknown task id {uid!r}; see `lcl tasks` (ids like HumanEval/0, MBPP/11, APPS/707, "
                        f"PIE/p02599)") from None


def all_spec_uids() -> list[str]:
    return sorted(_all_tasks())


def infer(uid: str) -> Spec:
    """Draft a spec for ``uid`` from its tasks' seed inputs."""
    tasks = tasks_for(uid)
    t = tasks[0]
    if t.level == "function":
        return infer_function(uid, t.entry_point or "", [s for x in tasks for s in x.seed_inputs])
    seeds = [s for x in tasks for s in x.seed_inputs]
    if not seeds:  # PIE: no example inputs; read the layout off the programs' input reads
        from .infer_code import infer_from_code

        for x in tasks:
            for code in (x.reference, x.extra.get("fast") or ""):
                spec = infer_from_code(uid, code)
                if spec is not None:
                    return spec
    return infer_program(uid, seeds)


def spec_for(uid: str) -> Spec:
    """The reviewed spec of ``uid`` if committed, else the (cached) inferred draft."""
    rp = reviewed_path(uid)
    if rp.exists():
        return load(rp)
    ip = inferred_path(uid)
    if ip.exists():
        return load(ip)
    spec = infer(uid)
    try:
        write_text(ip, dumps(spec))
    except TypeError:  # values JSON cannot hold (complex seeds): use the draft without caching it
        pass
    return spec


def check_references(uid: str, limit: int = 5) -> list[Task]:
    """References a spec is checked against: the task's reference; for PIE, up to ``limit``
    accepted programs of the problem (slow and fast versions alike, all judged correct)."""
    tasks = tasks_for(uid)
    if not uid.startswith("PIE/"):
        return tasks[:1]
    out: list[Task] = []
    for t in tasks:
        out.append(t)
        if t.extra.get("fast"):
            out.append(replace(t, task_id=t.task_id + "_fast", reference=t.extra["fast"]))
    return out[:limit]
