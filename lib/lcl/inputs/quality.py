"""Quality of a task's inputs (issue "Verified input constraints", item 4): validity rate
(share of generated inputs on which the *reference* neither raises nor times out; target
>= 95%), number of distinct inputs, and branch coverage of the reference under the inputs
(coverage.py, ``branch=True``), measured in a separate probe process (:mod:`.probe`)."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import tempfile
from collections import Counter
from dataclasses import asdict, dataclass, field
from typing import Any

from ..records import Task
from .generate import generate, with_seeds
from .spec import Spec

VALIDITY_TARGET = 0.95


@dataclass
class Quality:
    task: str
    n_inputs: int
    n_distinct: int
    validity: float
    verdicts: dict[str, int]
    line_coverage: float | None
    branch_coverage: float | None
    missing_lines: list[int] = field(default_factory=list)
    missing_branches: list[list[int]] = field(default_factory=list)
    examples: dict[str, str] = field(default_factory=dict)
    note: str = ""

    @property
    def meets_target(self) -> bool:
        return self.validity >= VALIDITY_TARGET

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def probe(code: str, entry: str | None, inputs: list[Any], *, timeout: float = 1.0,
          coverage: bool = True, total_timeout: float | None = None) -> dict[str, Any]:
    """Run the reference on ``inputs`` in a child process; returns verdicts (+ coverage)."""
    with tempfile.TemporaryDirectory(prefix="lcl-probe-job-") as tmp:
        job, res = os.path.join(tmp, "job.pkl"), os.path.join(tmp, "result.pkl")
        with open(job, "wb") as fh:
            pickle.dump({"code": code, "entry": entry, "inputs": inputs, "timeout": timeout,
                         "coverage": coverage}, fh)
        limit = total_timeout or (10 + timeout * len(inputs))
        try:
            proc = subprocess.run([sys.executable, "-m", "lcl.inputs.probe", job, res], capture_output=True,
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
    inputs = with_seeds(list(task.seed_inputs), generated, n)
    timeout = timeout or (1.0 if task.level == "function" else 2.0)
    out = probe(task.reference, task.entry_point, inputs, timeout=timeout)
    verdicts = Counter(out.get("verdicts", []))
    env = sum(n for v, n in verdicts.items() if v.startswith("env:"))
    done = sum(verdicts.values()) - env
    if env and not done:
        out.setdefault("error", "reference cannot run here: it imports " + ", ".join(
            sorted(v[4:] for v in verdicts if v.startswith("env:"))))
    cov = out.get("coverage") or {}
    branches = cov.get("num_branches", 0)
    return Quality(
        task=task.uid, n_inputs=len(inputs), n_distinct=len({repr(i) for i in inputs}),
        validity=(verdicts.get("ok", 0) / done) if done else (float("nan") if env else 0.0),
        verdicts=dict(verdicts),
        line_coverage=(cov["covered_lines"] / cov["num_statements"]) if cov.get("num_statements") else None,
        branch_coverage=(cov["covered_branches"] / branches) if branches else (1.0 if cov else None),
        missing_lines=cov.get("missing_lines", []), missing_branches=cov.get("missing_branches", []),
        examples=out.get("examples", {}), note=out.get("error", ""),
    )


def _cached_measure(task: Task, spec: Spec, n: int, seed: int) -> Quality:
    from .. import cache
    from .spec import dumps

    key = cache.key("inputs-quality-v1", task.reference, task.entry_point, list(map(repr, task.seed_inputs)),
                    dumps(spec), n, seed)
    return cache.cached("inputs-quality", key, lambda: measure(task, spec, n=n, seed=seed))


def quality_table(uids: list[str], *, n: int = 200, seed: int = 0, jobs: int = 2, progress: bool = True) -> Any:
    """Quality of every task's stored spec (reviewed, else inferred) as a DataFrame.

    One row per reference checked (PIE: several accepted programs per problem). Results are
    cached by (reference, spec, n, seed), so a rerun only measures what changed.
    """
    from concurrent.futures import ThreadPoolExecutor

    import pandas as pd
    from tqdm.auto import tqdm

    from .store import check_references, spec_for

    work = []
    for uid in uids:
        spec = spec_for(uid)
        for task in check_references(uid, 3):
            work.append((uid, task, spec))
    rows = []
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        futures = [pool.submit(_cached_measure, t, s, n, seed) for _, t, s in work]
        for (uid, task, spec), fut in tqdm(zip(work, futures), total=len(work), disable=not progress,
                                          desc="input quality"):
            q = fut.result()
            rows.append({"task": uid, "reference": task.uid, "benchmark": uid.split("/")[0],
                         "spec_origin": spec.origin, "verified": spec.verified, "n_inputs": q.n_inputs,
                         "n_distinct": q.n_distinct, "validity": q.validity, "branch_coverage": q.branch_coverage,
                         "line_coverage": q.line_coverage, "missing_lines": q.missing_lines,
                         "verdicts": q.verdicts, "note": q.note or spec.notes})
    return pd.DataFrame(rows)
