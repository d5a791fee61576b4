#!/usr/bin/env python
"""Notebook 01's input-quality probe (lcl.engine.inputs.probe), before vs after freezing its long-lived
objects out of the garbage collector, measured side by side in one run.

For a few in-scope stdin-program tasks (APPS, PIE: the probe collects garbage after every
program input) and function tasks of the full profile, the same probe job (the task's 200
inputs, coverage on) runs in a child process twice: as committed (after) and with
``gc.freeze`` disabled (before: every per-input collection traverses the modules, coverage and
job too). Prints the wall and child CPU seconds of each, their ratios, and whether the two
results (verdicts, examples, coverage) are identical.

    python benchmarks/input_quality_speed.py            # 6 program + 3 function tasks
    python benchmarks/input_quality_speed.py --programs 12 --functions 4
"""

from __future__ import annotations

import argparse
import os
import pickle
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))

from lcl.study import input_quality
from lcl.core import profiles
from lcl.engine.inputs.generate import generate, task_seeds, with_seeds
from lcl.study.task_specs import check_references, spec_for

LIB = Path(__file__).resolve().parents[1] / "lib"

#: the probe as it was: gc.freeze a no-op, so every collection scans every object
BEFORE = "import gc, runpy; gc.freeze = lambda: None; runpy.run_module('lcl.engine.inputs.probe', run_name='__main__')"
AFTER = "import runpy; runpy.run_module('lcl.engine.inputs.probe', run_name='__main__')"


def run_probe(code: str, job: dict, tmp: Path, tag: str) -> tuple[float, float, dict]:
    """(wall s, child CPU s, result) of one probe child on ``job``."""
    job_path, res_path = tmp / f"{tag}.job", tmp / f"{tag}.res"
    with open(job_path, "wb") as fh:
        pickle.dump({**job, "workdir": str(tmp / f"{tag}-work")}, fh)
    env = {**os.environ, "PYTHONPATH": str(LIB)}
    cpu0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", code, str(job_path), str(res_path)], check=True, env=env,
                   stdin=subprocess.DEVNULL, capture_output=True)
    wall = time.perf_counter() - t0
    cpu1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    with open(res_path, "rb") as fh:
        return wall, (cpu1.ru_utime + cpu1.ru_stime) - (cpu0.ru_utime + cpu0.ru_stime), pickle.load(fh)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--programs", type=int, default=6)
    ap.add_argument("--functions", type=int, default=3)
    ap.add_argument("--seed", type=int, default=20250101)
    args = ap.parse_args()

    P = profiles.get("full")
    work = [(u, t) for u in input_quality.scope_uids(P.max_tasks_per_benchmark) for t in check_references(u, 3)]
    rng = random.Random(0)
    progs = [w for w in work if w[1].entry_point is None]
    funcs = [w for w in work if w[1].entry_point is not None]
    picked = rng.sample(progs, min(args.programs, len(progs))) + rng.sample(funcs, min(args.functions, len(funcs)))
    totals = {"before": [0.0, 0.0], "after": [0.0, 0.0]}
    same = 0
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        for i, (uid, task) in enumerate(picked):
            spec = spec_for(uid)
            generated = generate(spec, 200, args.seed) if (spec.args or spec.grammar) else []
            inputs = with_seeds(task_seeds(task, spec), generated, 200)
            job = {"code": task.reference, "entry": task.entry_point, "inputs": inputs,
                   "timeout": 1.0 if task.level == "function" else 2.0, "coverage": True}
            wb, cb, rb = run_probe(BEFORE, job, tmp, f"b{i}")
            wa, ca, ra = run_probe(AFTER, job, tmp, f"a{i}")
            totals["before"][0] += wb
            totals["before"][1] += cb
            totals["after"][0] += wa
            totals["after"][1] += ca
            same += rb == ra
            print(f"{task.uid:28s} {task.level:8s} before {wb:5.2f} s (cpu {cb:5.2f})  after {wa:5.2f} s (cpu {ca:5.2f})"
                  f"  {'identical' if rb == ra else 'DIFFERENT'}", flush=True)
    (wb, cb), (wa, ca) = totals["before"], totals["after"]
    print(f"total: before {wb:.1f} s wall / {cb:.1f} s cpu, after {wa:.1f} s / {ca:.1f} s; "
          f"before/after {wb / wa:.2f}x wall, {cb / ca:.2f}x cpu; identical results {same}/{len(picked)}")


if __name__ == "__main__":
    main()
