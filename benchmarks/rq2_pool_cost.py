#!/usr/bin/env python
"""Fuzzing cost of the RQ2 mutant population (paper Section 4.4.1), measured on a sample.

Takes the population's candidates (mutants of the slow programs of the PIE pairs,
``distinguish.population_candidates`` without the profile's candidate cap) in their seeded
order, and fuzzes the next ``--sample`` candidates after the first ``--skip`` exactly as the
pool does (the R = 1 screen, then the full label of the survivors; results go to the store),
timing CPU (this process and its workers) and wall clock. Candidates whose label is already
stored cost nothing and are left out of the sample. Writes
``data/reference/rq2_pool_cost.json``, which the 04 notebook reads and extrapolates with
``distinguish.fuzz_cost``.

    python benchmarks/rq2_pool_cost.py --skip 300 --sample 40 --jobs 2
"""

from __future__ import annotations

import argparse
import json
import resource
import time
from dataclasses import replace
from typing import Any


def _cpu() -> float:
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def measure(skip: int, sample: int, jobs: int, seed: int) -> dict[str, Any]:
    from lcl import dataset, profiles
    from lcl import distinguish as D

    P = replace(profiles.get("full"), rq2_pool_candidates=None)
    rows, _ = D.population_candidates(P, seed)
    window = rows[skip:skip + sample]
    stored = dataset.label_status(window, P, seed)
    first = dataset.label_status(window, replace(P, fuzz_runs=1), seed)
    todo = [r for r in window if not stored.get(r["id"]) and not first.get(r["id"])]
    t0, c0 = time.time(), _cpu()
    out = D.screen(todo, P, seed, jobs, progress=False)
    rest = [r for r in todo if r["id"] not in out]
    res = dataset.label(rest, P, seed, jobs, progress=False) if rest else []
    wall, cpu = time.time() - t0, _cpu() - c0
    df0 = sum(1 for r in res if not r.get("error") and r.get("df_score") == 0.0)
    return {"profile": "full", "seed": seed, "jobs": jobs, "population candidates": len(rows),
            "window": [skip, skip + sample], "sample": {"candidates": len(todo), "df0": df0, "cpu_s": round(cpu, 1)},
            "screened out": len(out), "full labels": len(rest), "wall_s": round(wall, 1),
            "date": time.strftime("%Y-%m-%d")}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--skip", type=int, default=300)
    ap.add_argument("--sample", type=int, default=40)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--seed", type=int, default=20250101)
    ap.add_argument("--out", default="")
    args = ap.parse_args()
    from lcl import paths

    result = measure(args.skip, args.sample, args.jobs, args.seed)
    out = args.out or str(paths.data() / "reference" / "rq2_pool_cost.json")
    with open(out, "w") as fh:
        json.dump(result, fh, indent=1)
        fh.write("\n")
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
