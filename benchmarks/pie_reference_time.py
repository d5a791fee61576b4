#!/usr/bin/env python
"""How long the selected PIE references take per run at the paper's N, under their specs.

Issue "Verified input constraints", item 2: input sizes must stay small enough that the slow
PIE programs finish well inside the time budget. For every selected PIE task (the 100 longest
slow programs), this script generates ``--n`` inputs from the task's spec (seeded), runs the
reference on them through the fuzzing engine exactly as labelling does
(:func:`lcl.fuzz.algorithm.compute_reference`: sandboxed, per-input CPU time measured), and
extrapolates its CPU time to one run of N = 1000 inputs (``C`` below). It then prints the run
budget that ``C`` gives (:func:`lcl.fuzz.semantics.run_time_budget`) and flags:

* ``tight``: 2 C exceeds the 30 s cap (the budget is raised to 2 C, up to 60 s);
* ``too slow``: C exceeds 60 s, so no variant, not even one identical to the reference, can
  finish a run inside T: every pair of the task ends at df = -1 (its spec needs smaller sizes);
* ``no valid input`` / ``cannot run``: the reference fails on the inputs or does not load.

One row per task goes to ``build/pie_reference_time.csv``. A sample, not a measurement of every
run: the extrapolation assumes a run's inputs cost what the sample's did on average.

    python benchmarks/pie_reference_time.py --jobs 2            # all 100 selected tasks
    python benchmarks/pie_reference_time.py --limit 10 --n 20
"""

from __future__ import annotations

import argparse
import csv
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "lib"))

SEED = 20250101
N_PAPER = 1000


def measure(task: object, n: int, seed: int) -> dict:
    from lcl.errors import UserError
    from lcl.fuzz import Settings
    from lcl.fuzz import semantics as S
    from lcl.fuzz.algorithm import compute_reference
    from lcl.fuzz.sandbox import CodeSpec
    from lcl.inputs.generate import generate
    from lcl.inputs.store import spec_for, spec_uid

    spec = spec_for(spec_uid(task))
    inputs = generate(spec, n, seed)
    s = Settings()
    row = {"task": task.uid, "spec": "verified" if spec.verified else spec.origin, "n_sample": len(inputs)}
    try:
        ref = compute_reference(CodeSpec("program", task.reference, None, "reference.py"), inputs, s)
    except UserError as exc:
        return {**row, "status": "cannot run", "detail": str(exc).splitlines()[0][:160]}
    ok = [c for k, c in zip(ref.kinds, ref.cpu) if k == S.OK]
    if not ok:
        return {**row, "status": "no valid input", "valid": 0.0}
    per_input = sum(ok) / len(ok)
    c = per_input * N_PAPER
    t = S.run_time_budget(c, s)
    status = "too slow" if c > 2 * s.run_budget else "tight" if 2 * c > s.run_budget else "ok"
    return {**row, "status": status, "valid": round(len(ok) / len(inputs), 3),
            "cpu_per_input_ms": round(1000 * per_input, 2), "C_run_s": round(c, 1), "T_s": round(t, 1),
            "max_input_s": round(max(ok), 2)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n\n", 1)[1])
    ap.add_argument("--n", type=int, default=30, help="sampled inputs per task (default 30)")
    ap.add_argument("--jobs", type=int, default=1, help="tasks measured at once (default 1)")
    ap.add_argument("--limit", type=int, default=None, help="only the first K selected tasks")
    ap.add_argument("--seed", type=int, default=SEED)
    ap.add_argument("--out", default=str(ROOT / "build" / "pie_reference_time.csv"))
    a = ap.parse_args()
    if a.n < 1 or a.jobs < 1:
        ap.error("--n and --jobs must be positive")
    from tqdm import tqdm

    from lcl import loaders

    if not loaders.benchmark_available("PIE"):
        print("PIE is not available (run `lcl data fetch` first)", file=sys.stderr)
        return 2
    tasks = loaders.select("PIE", loaders.LOADERS["PIE"]().tasks)[: a.limit]
    with ThreadPoolExecutor(a.jobs) as ex:
        rows = list(tqdm(ex.map(lambda t: measure(t, a.n, a.seed), tasks), total=len(tasks),
                         desc="PIE references", unit="task", file=sys.stderr))
    out = Path(a.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    keys = ["task", "spec", "status", "n_sample", "valid", "cpu_per_input_ms", "max_input_s", "C_run_s", "T_s",
            "detail"]
    with open(out, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=keys)
        w.writeheader()
        w.writerows({k: r.get(k) for k in keys} for r in rows)
    from collections import Counter

    counts = Counter(r["status"] for r in rows)
    print(f"{len(rows)} selected PIE tasks, {a.n} inputs each, extrapolated to N = {N_PAPER} per run:")
    for k in ("ok", "tight", "too slow", "no valid input", "cannot run"):
        print(f"  {k:15s} {counts.get(k, 0):4d}")
    slow = sorted((r for r in rows if r.get("C_run_s") is not None), key=lambda r: -r["C_run_s"])[:15]
    print("slowest (C = reference CPU per run, T = run budget):")
    for r in slow:
        print(f"  {r['task']:28s} C={r['C_run_s']:8.1f}s  T={r['T_s']:5.1f}s  per input {r['cpu_per_input_ms']:8.2f} ms"
              f"  ({r['status']})")
    print(f"rows: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
