#!/usr/bin/env python
"""Fuzzing cost of the RQ2 mutant population (paper Section 4.4.1), measured on a sample.

Takes the population's candidates (mutants of the slow programs of the PIE pairs,
``distinguish.population_candidates`` without the profile's candidate cap) in their seeded
order, and fuzzes the next ``--sample`` candidates after the first ``--skip`` exactly as the
pool does (the R = 1 screen, then the full label of the survivors; results go to the store),
timing CPU (this process and every worker, sampled) and wall clock. Candidates whose label is already
stored cost nothing and are left out of the sample; candidates before the window whose screen
is stored without their full label get it first, untimed. Writes
``data/reference/rq2_pool_cost.json``, which the 04 notebook reads and extrapolates with
``distinguish.fuzz_cost``.

    python benchmarks/rq2_pool_cost.py --skip 300 --sample 40 --jobs 2
    python benchmarks/rq2_pool_cost.py --merge w300.json w340.json ...   # consecutive windows as one
"""

from __future__ import annotations

import argparse
import json
import threading
import time
from dataclasses import replace
from typing import Any


class CpuMeter:
    """CPU seconds of this process and every descendant. The fuzz workers are grandchildren kept
    alive by fork servers that are never waited for, so ``RUSAGE_CHILDREN`` misses them; their
    times are sampled every ``interval`` seconds instead (the last sample of each process counts)."""

    def __init__(self, interval: float = 0.5) -> None:
        import psutil

        self.me, self.interval, self.seen = psutil.Process(), interval, {}
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _sample(self) -> None:
        import psutil

        for p in self.me.children(recursive=True):
            try:
                t = p.cpu_times()
                self.seen[p.pid] = t.user + t.system
            except psutil.Error:
                pass

    def _run(self) -> None:
        while not self.stop.wait(self.interval):
            self._sample()

    def __enter__(self) -> CpuMeter:
        self._sample()
        self.base = dict(self.seen)
        t = self.me.cpu_times()
        self.own0 = t.user + t.system
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join()
        self._sample()
        t = self.me.cpu_times()
        self.total = t.user + t.system - self.own0 + sum(v - self.base.get(pid, 0.0) for pid, v in self.seen.items())


def _complete(rows: list[dict[str, Any]], P: Any, seed: int, jobs: int) -> None:
    """Give every candidate before the window whose screen is stored but not its full label (an
    interrupted run) its full label, untimed, so the population's prefix is fully labelled."""
    from lcl.study import labelling as L
    from lcl.study import rq2_pool

    s = L.profile_settings(P)
    stored = L.candidates_stored(rows, s, seed)
    first = L.candidates_stored(rows, rq2_pool.screen_settings(s), seed)
    pending = [r for r in rows if not stored.get(r["id"]) and first.get(r["id"])]
    out = rq2_pool.screen(pending, s, seed, jobs, progress=False) if pending else set()
    rest = [r for r in pending if r["id"] not in out]
    if rest:
        L.label_candidates(rest, s, seed, jobs, progress=False)


def measure(skip: int, sample: int, jobs: int, seed: int) -> dict[str, Any]:
    from lcl.study import labelling as L
    from lcl.core import profiles
    from lcl.study import rq2_pool

    P = replace(profiles.get("full"), rq2_pool_candidates=None)
    rows, _ = rq2_pool.population_candidates(P, seed)
    _complete(rows[:skip], P, seed, jobs)
    window = rows[skip:skip + sample]
    s = L.profile_settings(P)
    stored = L.candidates_stored(window, s, seed)
    first = L.candidates_stored(window, rq2_pool.screen_settings(s), seed)
    todo = [r for r in window if not stored.get(r["id"]) and not first.get(r["id"])]
    t0 = time.time()
    with CpuMeter() as meter:
        out = rq2_pool.screen(todo, s, seed, jobs, progress=False)
        rest = [r for r in todo if r["id"] not in out]
        res = L.label_candidates(rest, s, seed, jobs, progress=False) if rest else []
    wall, cpu = time.time() - t0, meter.total
    df0 = sum(1 for r in res if not r.get("error") and r.get("df_score") == 0.0)
    return {"profile": "full", "seed": seed, "jobs": jobs, "population candidates": len(rows),
            "window": [skip, skip + sample], "sample": {"candidates": len(todo), "df0": df0, "cpu_s": round(cpu, 1)},
            "screened out": len(out), "full labels": len(rest), "wall_s": round(wall, 1),
            "date": time.strftime("%Y-%m-%d")}


def merge(parts: list[dict[str, Any]]) -> dict[str, Any]:
    """Consecutive windows measured in separate runs (a time-boxed loop) as one measurement."""
    parts = sorted(parts, key=lambda p: p["window"][0])
    for a, b in zip(parts, parts[1:]):
        if a["window"][1] != b["window"][0]:
            raise ValueError(f"windows {a['window']} and {b['window']} are not consecutive")
    total = {k: sum(p["sample"][k] for p in parts) for k in ("candidates", "df0", "cpu_s")}
    return {**parts[-1], "window": [parts[0]["window"][0], parts[-1]["window"][1]],
            "sample": {**total, "cpu_s": round(total["cpu_s"], 1)},
            "screened out": sum(p["screened out"] for p in parts), "full labels": sum(p["full labels"] for p in parts),
            "wall_s": round(sum(p["wall_s"] for p in parts), 1), "runs": len(parts)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--skip", type=int, default=300)
    ap.add_argument("--sample", type=int, default=40)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--seed", type=int, default=20250101)
    ap.add_argument("--out", default="")
    ap.add_argument("--merge", nargs="+", default=[], help="merge the JSON results of consecutive windows instead")
    args = ap.parse_args()
    from lcl.core import paths

    if args.merge:
        result = merge([json.loads(open(f).read()) for f in args.merge])
    else:
        result = measure(args.skip, args.sample, args.jobs, args.seed)
    out = args.out or str(paths.data() / "reference" / "rq2_pool_cost.json")
    with open(out, "w") as fh:
        json.dump(result, fh, indent=1)
        fh.write("\n")
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
