"""Quality of a task's inputs: validity rate
(share of *generated* inputs on which the reference neither raises nor times out; target
>= 95%; the benchmark's own test inputs come first and their validity is reported apart, as
``seed_validity``), number of distinct inputs, and branch coverage of the reference under the inputs
(coverage.py, ``branch=True``), measured in a separate probe process (:mod:`.probe`)."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import tempfile
from collections import Counter
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, TypedDict, cast

from lcl.core import cache
from lcl.core.records import Task

from .generate import Input, generate, task_seeds, with_seeds
from .spec import Spec, dumps

if TYPE_CHECKING:
    from .probe import CoverageSummary, ProbeResult

VALIDITY_TARGET = 0.95


class QualityDict(TypedDict):
    """:class:`Quality` as a dict: its fields."""

    task: str
    n_inputs: int
    n_distinct: int
    validity: float
    verdicts: dict[str, int]
    line_coverage: float | None
    branch_coverage: float | None
    missing_lines: list[int]
    missing_branches: list[list[int]]
    examples: dict[str, str]
    note: str
    seed_validity: float | None
    n_seed: int


@dataclass
class Quality:
    task: str
    n_inputs: int
    n_distinct: int
    validity: float  # on generated inputs (seeds would inflate it); seeds reported apart
    verdicts: dict[str, int]
    line_coverage: float | None
    branch_coverage: float | None
    missing_lines: list[int] = field(default_factory=list)
    missing_branches: list[list[int]] = field(default_factory=list)
    examples: dict[str, str] = field(default_factory=dict)
    note: str = ""
    seed_validity: float | None = None  # on the benchmark's own test inputs
    n_seed: int = 0

    @property
    def meets_target(self) -> bool:
        return self.validity >= VALIDITY_TARGET

    def to_dict(self) -> QualityDict:
        return cast("QualityDict", asdict(self))  # its fields, which QualityDict names


def probe(code: str, entry: str | None, inputs: list[Input], *, timeout: float = 1.0,
          coverage: bool = True, total_timeout: float | None = None) -> ProbeResult:
    """Run the reference on ``inputs`` in a child process; returns verdicts (+ coverage)."""
    with tempfile.TemporaryDirectory(prefix="lcl-probe-job-") as tmp:
        job, res = os.path.join(tmp, "job.pkl"), os.path.join(tmp, "result.pkl")
        with open(job, "wb") as fh:
            pickle.dump({"code": code, "entry": entry, "inputs": inputs, "timeout": timeout,
                         "coverage": coverage, "workdir": os.path.join(tmp, "work")}, fh)
        limit = total_timeout or (10 + timeout * len(inputs))
        try:
            proc = subprocess.run([sys.executable, "-m", "lcl.engine.inputs.probe", job, res], capture_output=True,
                                  text=True, timeout=limit, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            return {"verdicts": [], "examples": {}, "error": f"probe exceeded {limit:.0f} s"}
        if not os.path.exists(res):
            tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
            return {"verdicts": [], "examples": {}, "error": f"probe failed: {tail}"}
        with open(res, "rb") as fh:
            return pickle.load(fh)


def measure(task: Task, spec: Spec, n: int = 200, seed: int = 0, timeout: float | None = None) -> Quality:
    """Validity, distinctness and coverage of ``n`` inputs (seed inputs first) for ``task``."""
    generated = generate(spec, n, seed) if (spec.args or spec.grammar) else []
    seeds = task_seeds(task, spec)
    inputs = with_seeds(seeds, generated, n)
    n_seed = min(len(seeds), len(inputs))
    timeout = timeout or (1.0 if task.level == "function" else 2.0)
    out = probe(task.reference, task.entry_point, inputs, timeout=timeout)
    all_verdicts = out.get("verdicts", [])
    seed_v, gen_v = all_verdicts[:n_seed], all_verdicts[n_seed:]
    seed_ok = [v for v in seed_v if not v.startswith("env:")]
    seed_validity = (seed_ok.count("ok") / len(seed_ok)) if seed_ok else None
    verdicts = Counter(gen_v if gen_v else all_verdicts)
    env = sum(n for v, n in verdicts.items() if v.startswith("env:"))
    done = sum(verdicts.values()) - env
    if env and not done:
        out.setdefault("error", "reference cannot run here: it imports " + ", ".join(
            sorted(v[4:] for v in verdicts if v.startswith("env:"))))
    cov: CoverageSummary = out.get("coverage") or {}
    branches = cov.get("num_branches", 0)
    return Quality(
        task=task.uid, n_inputs=len(inputs), n_distinct=len({repr(i) for i in inputs}),
        validity=(verdicts.get("ok", 0) / done) if done else (float("nan") if env else 0.0),
        verdicts=dict(verdicts),
        line_coverage=(cov["covered_lines"] / cov["num_statements"]) if cov.get("num_statements") else None,
        branch_coverage=(cov["covered_branches"] / branches) if branches else (1.0 if cov else None),
        missing_lines=cov.get("missing_lines", []), missing_branches=cov.get("missing_branches", []),
        examples=out.get("examples", {}), note=out.get("error", ""), seed_validity=seed_validity, n_seed=n_seed,
    )


def cached_measure(task: Task, spec: Spec, n: int, seed: int) -> Quality:
    key = cache.key("inputs-quality-v2", task.reference, task.entry_point, list(map(repr, task.seed_inputs)),
                    dumps(spec, strict=False), n, seed)
    return cache.cached("inputs-quality", key, lambda: measure(task, spec, n=n, seed=seed))


def backend_inputs(backend: str, task: Task, spec: Spec, n: int, seed: int) -> list[Input]:
    """``n`` inputs for ``task`` from one backend: ``seeded`` random bytes, ``atheris``
    (coverage-guided, subprocess) or ``hypothesis``. Seed inputs are *not* included, so the
    backends are compared on what they generate themselves."""
    if backend == "seeded":
        return generate(spec, n, seed)
    if backend == "atheris":
        from .atheris_driver import coverage_guided

        return coverage_guided(task.reference, task.entry_point, spec.to_dict(), runs=n, seed=seed)
    if backend == "hypothesis":
        from .strategies import sample

        return sample(spec, n, seed)
    raise ValueError(f"unknown backend {backend!r}; choose seeded, atheris or hypothesis")
