"""Which spec and inputs each benchmark task gets (paper Step II), and the resolver that turns a
published LoCaL row (``id, golden_code, generated_code``) into its task's inputs for Algorithm 1.

The input engine (:mod:`lcl.engine.inputs`) knows specs, not benchmarks; this module ties the two:

- Reviewed specs (committed, ``origin = "reviewed"``, ``verified = true`` once reviewed):
  ``data/constraints/<Benchmark>/<id>.json`` (``HumanEval/0.json``, ``MBPP/11.json``,
  ``APPS/707.json``, ``PIE/p02599.json``: PIE specs are per CodeNet problem).
- Inferred drafts (regenerated on demand, never committed): ``data/interim/constraints_inferred/``.
  :func:`spec_for` returns the reviewed spec when there is one, else the inferred draft (inferred
  and cached on first use), so every output can label a pair whose task only has a draft.
- :func:`resolve_published` (the resolver :func:`lcl.engine.fuzz.run_batch` is given): the id names
  the task (``LOCAL_HE_112_OP_1`` -> HumanEval/112, ``LOCAL_APPS_707_11_MUT_7`` -> APPS/707,
  ``PIE_p02599_s870922238`` -> PIE/p02599). Inputs come from the task's spec: the benchmark's own
  test inputs first, then spec-generated ones from the run's seed (Algorithm 1: a fresh input set
  per run).
"""

from __future__ import annotations

import contextlib
import hashlib
import re
from collections.abc import Mapping
from dataclasses import replace
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lcl.core import paths, records
from lcl.core.errors import UserError
from lcl.core.io import write_text
from lcl.core.records import Task
from lcl.engine.inputs.generate import generate, task_seeds, with_seeds
from lcl.engine.inputs.infer import infer_function, infer_program
from lcl.engine.inputs.infer_code import infer_from_code
from lcl.engine.inputs.spec import Spec, dumps, load

from . import loaders

if TYPE_CHECKING:  # the fuzzing engine is imported by whoever runs a batch, not here
    from lcl.engine.fuzz.batch.jobs import ResolvedInputs

#: The module name under which every stored fuzz result of a spec-driven pair was keyed (the
#: generator's name is part of the result key, :mod:`lcl.engine.fuzz.batch`). The generator has moved
#: since; keeping the name keeps the committed label archive valid.
GENERATOR_NAMESPACE = "lcl.inputs.resolve"


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
    return paths.reviewed_specs() / _rel(uid)


def inferred_path(uid: str) -> Path:
    return paths.inferred_specs() / _rel(uid)


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
        for x in tasks:
            for code in (x.reference, x.extra.get("fast") or ""):
                spec = infer_from_code(uid, code)
                if spec is not None:
                    return spec
    return infer_program(uid, seeds)


def write_draft(uid: str, force: bool = False) -> Path:
    """Start the reviewed spec of ``uid`` from its inferred draft (:func:`infer`), marked as pending
    review; returns its path. An existing reviewed spec is kept unless ``force``."""
    spec = infer(uid)
    path = reviewed_path(uid)
    if path.exists() and not force:
        raise UserError(f"{path} exists (a reviewed spec); use --force to overwrite it")
    spec.origin, spec.notes = "reviewed", "draft from inference; review pending: " + spec.notes
    try:
        text = dumps(spec)
    except TypeError as exc:
        raise UserError(f"{uid}: its seed inputs hold values JSON cannot represent ({exc}); "
                        "write this spec by hand") from None
    write_text(path, text)
    return path


def spec_for(uid: str) -> Spec:
    """The reviewed spec of ``uid`` if committed, else the (cached) inferred draft."""
    rp = reviewed_path(uid)
    if rp.exists():
        return load(rp)
    ip = inferred_path(uid)
    if ip.exists():
        return load(ip)
    spec = infer(uid)
    with contextlib.suppress(TypeError):  # values JSON cannot hold (complex seeds): use the draft uncached
        write_text(ip, dumps(spec))
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


class SpecGenerator:
    """``gen(seed, n)`` for the fuzzing engine; its ``cache_name`` carries a digest of the
    spec and seed inputs, so cached fuzz results are invalidated when either changes."""

    def __init__(self, spec: Spec, seed_inputs: list[Any]) -> None:
        self.spec, self.seed_inputs = spec, seed_inputs
        digest = hashlib.sha256((dumps(spec, strict=False) + repr(seed_inputs)).encode()).hexdigest()[:16]
        self.cache_name = f"{GENERATOR_NAMESPACE}.SpecGenerator[{spec.task}:{spec.origin}:{digest}]"

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


def task_uid_for_row(row: Mapping[str, Any]) -> str | None:
    """The spec id of a pair row (any vocabulary of :mod:`lcl.core.records`): CodeScore_test MBPP rows
    by their reference code, the rest by id."""
    if isinstance(row.get("task"), str):  # our own rows name their task
        return row["task"]
    pid = str(row.get("id", ""))
    if _CS_MBPP.match(pid.split("#")[0]):
        return _mbpp_by_code().get(_norm(records.reference_of(row) or ""))
    return task_uid_of(pid)


def seed_inputs(uid: str, spec: Spec) -> list[Any]:
    """The seed inputs that open every run of spec ``uid``'s pairs (all its tasks', in order)."""
    return [s for t in tasks_for(uid) for s in task_seeds(t, spec)]


def resolve_published(row: Mapping[str, Any]) -> ResolvedInputs | None:
    """Resolver for :func:`lcl.engine.fuzz.run_batch` (``resolvers=[...]``): entry/stdin and a spec generator."""
    uid = task_uid_for_row(row)
    if uid is None:
        return None
    task = tasks_for(uid)[0]  # raises UserError for an unknown task
    spec = spec_for(spec_uid(task))
    seeds = seed_inputs(uid, spec)
    return {"entry": task.entry_point, "stdin": task.level == "program", "generator": SpecGenerator(spec, seeds),
            "spec_origin": spec.origin, "spec_verified": spec.verified}
