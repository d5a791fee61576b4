"""Speed of every metric, in pairs/s, on the same 1000 real pairs.

    .venv/bin/python benchmarks/metrics_speed.py [--n 1000] [--tree-n 200] [--metrics a,b,...]

Pairs: a seeded sample of the published LoCaL pairs and the CodeScore_test baseline (Python,
from the data mirror). Every metric is timed cold (score cache off; model loading included,
reported separately). Targets checked, extrapolated linearly from the measured rate:

* CodeBLEU + CrystalBLEU: 3000 pairs in under 60 s together;
* CodeBERTScore[MiniLM]: 3000 pairs in under 300 s (2 CPU cores).

``surface_sim_tree`` (APTED) is timed on the first ``--tree-n`` pairs only: it costs ~0.1-1 s
per pair and core. ``codescore_style`` first trains a fast-mode model on pairs disjoint from
the timed ones (training time not counted).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import time
import warnings
from pathlib import Path


def cpu_seconds() -> float:
    """CPU time of this process, its finished children and its live children (worker pools)."""
    import resource

    total = sum(getattr(resource.getrusage(w), a) for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)
                for a in ("ru_utime", "ru_stime"))
    me, tick = os.getpid(), os.sysconf("SC_CLK_TCK")
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == me:  # ppid
            total += (int(fields[11]) + int(fields[12])) / tick  # utime + stime
    return total


def load_pairs(n: int, seed: int = 0) -> tuple[list[dict], list[dict]]:
    from lcl.core import paths

    mirror = paths.mirror()
    if mirror is None:
        sys.exit("metrics_speed: needs the data mirror (LOCAL_DATA_MIRROR or ../shared/datasets)")
    rows = []
    for rel in ("local_release/local_pairs_dev.jsonl", "codescore_test/Baseline_CS.jsonl"):
        with open(mirror / rel, encoding="utf-8") as fh:
            rows += [json.loads(line) for line in fh if line.strip()]
    random.Random(seed).shuffle(rows)
    return rows[:n], rows[n:]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--tree-n", type=int, default=200)
    ap.add_argument(
        "--metrics",
        default="surface_sim,codebleu,crystalbleu,codebertscore,codescore_style,surface_sim_tree",
    )
    args = ap.parse_args()
    os.environ.setdefault("LCL_CACHE", tempfile.mkdtemp(prefix="lcl-bench-"))
    warnings.simplefilter("ignore")
    import torch

    from lcl.engine import metrics

    cores = len(os.sched_getaffinity(0))
    timed, rest = load_pairs(args.n)
    refs = [r["golden_code"] for r in timed]
    cands = [r["generated_code"] for r in timed]
    print(
        f"{len(timed)} pairs (seeded sample of LoCaL published + CodeScore_test), "
        f"{len(os.sched_getaffinity(0))} CPUs, torch threads {torch.get_num_threads()}, "
        f"load avg {os.getloadavg()[0]:.2f}",
        flush=True,
    )
    results: dict[str, dict] = {}
    for name in [m.strip() for m in args.metrics.split(",") if m.strip()]:
        n = args.tree_n if name == "surface_sim_tree" else len(timed)
        opts: dict = {}
        if name == "codescore_style":
            from lcl.engine.metrics.codescore_style import TrainConfig, pairs_from_rows, train

            t = time.perf_counter()
            model = train(pairs_from_rows(rest), config=TrainConfig(mode="fast", seed=0),
                          exclude=list(zip(refs, cands)))
            opts["codescore_model"] = str(model.save(Path(os.environ["LCL_CACHE"]) / "models"))
            print(f"  (codescore_style: trained on {len(rest)} disjoint pairs in {time.perf_counter() - t:.0f}s)", flush=True)
        t0 = time.perf_counter()
        m = metrics.get_metric(name, **opts)
        if name == "codebertscore":
            m.all_components(["x = 1"], ["x = 2"])  # load the scorer
        load_s = time.perf_counter() - t0
        c1, t1 = cpu_seconds(), time.perf_counter()
        vals = m.score(refs[:n], cands[:n], "python", cache=False)
        run_s, cpu_s = time.perf_counter() - t1, cpu_seconds() - c1
        # what an idle machine would give: CPU seconds spread over the cores this metric uses
        par = 1 if name in ("surface_sim", "crystalbleu") else cores
        idle_s = max(cpu_s / par, 1e-9)
        results[name] = {"label": m.label, "n": n, "load_s": load_s, "run_s": run_s, "pairs_per_s": n / run_s,
                         "cpu_s": cpu_s, "idle_pairs_per_s": n / idle_s, "mean": float(vals.mean())}
        print(f"  {m.label:<30} {n:>5} pairs  {run_s:8.1f} s wall  {n / run_s:8.1f} pairs/s  "
              f"cpu {cpu_s:7.1f} s  (load model {load_s:.1f} s, load avg {os.getloadavg()[0]:.1f})", flush=True)

    print()
    print("wall = measured on this (shared) machine; idle = CPU seconds / cores the metric uses,")
    print("i.e. the rate with the machine to itself.")
    print(f"{'metric':<30} {'pairs':>6} {'pairs/s wall':>13} {'pairs/s idle':>13} "
          f"{'3000 wall (s)':>14} {'3000 idle (s)':>14} {'mean':>6}")
    for r in results.values():
        print(f"{r['label']:<30} {r['n']:>6} {r['pairs_per_s']:>13.1f} {r['idle_pairs_per_s']:>13.1f} "
              f"{3000 / r['pairs_per_s']:>14.0f} {3000 / r['idle_pairs_per_s']:>14.0f} {r['mean']:>6.3f}")
    ok = True
    for title, names, limit in (("CodeBLEU + CrystalBLEU", ("codebleu", "crystalbleu"), 60),
                                ("CodeBERTScore[MiniLM]", ("codebertscore",), 300)):
        if not all(n in results for n in names):
            continue
        wall = sum(3000 / results[n]["pairs_per_s"] for n in names)
        idle = sum(3000 / results[n]["idle_pairs_per_s"] for n in names)
        good = min(wall, idle) < limit
        ok &= good
        print(f"target {title}, 3000 pairs < {limit} s: wall {wall:.0f} s, idle {idle:.0f} s  "
              f"{'PASS' if wall < limit else ('PASS (idle estimate only)' if good else 'FAIL')}")
    return 0 if ok else 1


if __name__ == "__main__":  # required: CodeBLEU workers are spawned processes
    sys.exit(main())
