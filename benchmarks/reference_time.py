#!/usr/bin/env python
"""How long the selected references take per run at the paper's N, under their specs.

Input sizes must stay small enough that the slow references finish well inside Algorithm 1's
time budget. For every selected task of the chosen
benchmarks (default: all four), this script takes the task's seed inputs (the benchmark's own
tests, plus MBPP-ET / HumanEval-ET where present: they open every run) and ``--n`` inputs from
its spec (seeded), runs the reference on them through the fuzzing engine exactly as labelling does
(:func:`lcl.engine.fuzz.algorithm.compute_reference`: sandboxed, per-input CPU time measured), and
extrapolates its CPU time (seed inputs measured, the rest of the run
at the spec sample's mean) to one run of the paper's N (2000 inputs for functions, 1000 for
stdin programs: ``C`` below). It then prints the run budget that ``C`` gives
(:func:`lcl.engine.fuzz.semantics.run_time_budget`) and flags:

* ``tight``: 2 C exceeds the 30 s cap (the budget is raised to 2 C, up to 60 s);
* ``too slow``: C exceeds 60 s, so no variant, not even one identical to the reference, can
  finish a run inside T: every pair of the task ends at df = -1 (its spec needs smaller sizes);
* ``no valid input`` / ``cannot run``: the reference fails on the inputs or does not load.

Labelling a task costs about R x C for its reference plus R x min(C', T) for each of its
variants (C' the variant's own CPU), so a ``tight`` task with dozens of mutants costs hours.

One row per task goes to ``build/reference_time.csv``. A sample, not a measurement of every
run: the extrapolation assumes a run's inputs cost what the sample's did on average.

    python benchmarks/reference_time.py --jobs 2                      # every selected task
    python benchmarks/reference_time.py --benchmark PIE --limit 10 --n 20
    python benchmarks/reference_time.py --scope labels --out build/reference_time_labels.csv
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
N_PAPER = {"function": 2000, "program": 1000}  # Algorithm 1's N per level


def measure(task: object, n: int, seed: int) -> dict:
    """One task: every seed input (they open every run) and ``n`` spec inputs, extrapolated."""
    from lcl.core.errors import UserError
    from lcl.engine.fuzz import Settings
    from lcl.engine.fuzz import semantics as S
    from lcl.engine.fuzz.algorithm import compute_reference
    from lcl.engine.fuzz.sandbox import CodeSpec
    from lcl.engine.inputs.generate import generate
    from lcl.study.task_specs import seed_inputs, spec_for, spec_uid

    n_run = N_PAPER[task.level]
    spec = spec_for(spec_uid(task))
    seeds = seed_inputs(spec_uid(task), spec)[:n_run]
    sample = generate(spec, n, seed)
    s = Settings()
    row = {"task": task.uid, "spec": "verified" if spec.verified else spec.origin, "n_seed": len(seeds),
           "n_sample": len(sample)}
    try:
        ref = compute_reference(CodeSpec(task.level, task.reference, task.entry_point, "reference.py"),
                                seeds + sample, s)
    except UserError as exc:
        return {**row, "status": "cannot run", "detail": str(exc).splitlines()[0][:160]}
    k, cpu = ref.kinds, ref.cpu
    seed_cpu = sum(c for kk, c in zip(k[: len(seeds)], cpu) if kk == S.OK)
    seed_to = sum(kk == S.TIMEOUT for kk in k[: len(seeds)])
    ok = [c for kk, c in zip(k[len(seeds):], cpu[len(seeds):]) if kk == S.OK]
    if not ok and not seed_cpu:
        return {**row, "status": "no valid input", "valid": 0.0}
    per_input = sum(ok) / len(ok) if ok else 0.0
    rest = max(0, n_run - len(seeds))
    c = seed_cpu + per_input * rest * len(ok) / max(1, len(sample))  # the engine's C: CPU of valid inputs
    t = S.run_time_budget(c, s)
    status = "too slow" if c > 2 * s.run_budget else "tight" if 2 * c > s.run_budget else "ok"
    return {**row, "status": status, "valid": round(len(ok) / max(1, len(sample)), 3),
            "cpu_per_input_ms": round(1000 * per_input, 2), "seed_cpu_s": round(seed_cpu, 1),
            "seed_timeouts": seed_to, "C_run_s": round(c, 1), "T_s": round(t, 1),
            "ref_wall_run_s": round(c + seed_to * s.reference_timeout, 1),
            "max_input_s": round(max([*ok, *(c for kk, c in zip(k, cpu) if kk == S.OK)]), 2)}


def label_tasks() -> list:
    """One task per spec id referenced by the published LoCaL pairs or CodeScore_test (sorted)."""
    from lcl.study import loaders
    from lcl.study.task_specs import task_uid_for_row, tasks_for

    uids: set[str] = set()
    for ds in ("LoCaL_published", "CodeScore_test"):
        for p in loaders.PAIR_LOADERS[ds]():
            uid = task_uid_for_row({"id": p.id, "golden_code": p.reference})
            if uid:
                uids.add(uid)
    out = []
    for uid in sorted(uids):
        try:
            out.append(tasks_for(uid)[0])
        except Exception:  # noqa: BLE001 - a task missing from our copy (counted by notebook 01)
            continue
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n\n", 1)[1])
    ap.add_argument("--n", type=int, default=30, help="sampled inputs per task (default 30)")
    ap.add_argument("--jobs", type=int, default=1, help="tasks measured at once (default 1)")
    ap.add_argument("--limit", type=int, default=None, help="only the first K selected tasks of each benchmark")
    ap.add_argument("--seed", type=int, default=SEED)
    ap.add_argument("--benchmark", action="append", choices=("HumanEval", "MBPP", "APPS", "PIE"),
                    help="only this benchmark (repeatable; default: all available)")
    ap.add_argument("--scope", choices=("selected", "labels"), default="selected",
                    help="selected: the tasks LoCaL pairs come from (default); labels: the tasks of the published "
                         "LoCaL pairs and CodeScore_test, whose labels notebook 01 re-derives")
    ap.add_argument("--out", default=str(ROOT / "build" / "reference_time.csv"))
    a = ap.parse_args()
    if a.n < 1 or a.jobs < 1:
        ap.error("--n and --jobs must be positive")
    from tqdm import tqdm

    from lcl.study import loaders

    benches = a.benchmark or [b for b in loaders.BENCHMARKS if loaders.benchmark_available(b)]
    missing = [b for b in benches if not loaders.benchmark_available(b)]
    if missing or not benches:
        print(f"not available: {', '.join(missing) or 'any benchmark'} (run `lcl data fetch` first)", file=sys.stderr)
        return 2
    if a.scope == "labels":
        tasks = [t for t in label_tasks() if t.benchmark in benches]
        by: dict[str, list] = {}
        for t in tasks:
            by.setdefault(t.benchmark, []).append(t)
        tasks = [t for b in benches for t in by.get(b, [])[: a.limit]]
    else:
        tasks = [t for b in benches for t in loaders.select(b, loaders.LOADERS[b]().tasks)[: a.limit]]
    with ThreadPoolExecutor(a.jobs) as ex:
        rows = list(tqdm(ex.map(lambda t: measure(t, a.n, a.seed), tasks), total=len(tasks),
                         desc="references", unit="task", file=sys.stderr))
    out = Path(a.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    keys = ["task", "spec", "status", "n_seed", "n_sample", "valid", "cpu_per_input_ms", "seed_cpu_s",
            "seed_timeouts", "max_input_s", "C_run_s", "T_s", "ref_wall_run_s", "detail"]
    with open(out, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=keys)
        w.writeheader()
        w.writerows({k: r.get(k) for k in keys} for r in rows)
    from collections import Counter

    counts = Counter(r["status"] for r in rows)
    print(f"{len(rows)} {'selected' if a.scope == 'selected' else 'label-set'} tasks ({', '.join(benches)}), {a.n} inputs each, extrapolated to N = "
          f"{N_PAPER['function']} (functions) / {N_PAPER['program']} (programs) per run:")
    for k in ("ok", "tight", "too slow", "no valid input", "cannot run"):
        print(f"  {k:15s} {counts.get(k, 0):4d}")
    slow = sorted((r for r in rows if r.get("C_run_s") is not None), key=lambda r: -r["C_run_s"])[:15]
    print("slowest (C = reference CPU per run, T = run budget):")
    for r in slow:
        print(f"  {r['task']:28s} C={r['C_run_s']:8.1f}s  T={r['T_s']:5.1f}s  spec input {r['cpu_per_input_ms']:8.2f} ms"
              f"  seeds {r['n_seed']:4d}: {r['seed_cpu_s']:6.1f}s + {r['seed_timeouts']} timeouts  ({r['status']})")
    print(f"rows: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
