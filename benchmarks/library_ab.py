#!/usr/bin/env python
"""Two revisions of the library side by side in one run: the same workloads, alternated.

A build's wall time moves with the machine (the same notebook has taken 2.86x longer on one day
than on another; docs/PERFORMANCE.md), so a change to ``lib/`` is judged by running both
revisions here, in the order ABBA per round, and printing each workload's median wall time and
the ratio after/before. Each side runs in its own checkout (its ``lib/`` on PYTHONPATH, its own
``benchmarks/`` scripts, a fresh score and fuzz cache per run); both use one interpreter, so
only the library differs.

Workloads (each a command, run as a subprocess):
  * ``startup``: ``lcl --help`` (what every notebook kernel and CLI call pays in imports);
  * ``metrics``: ``benchmarks/metrics_speed.py`` on N published pairs, cold, with CodeBLEU,
    CrystalBLEU and CodeBERTScore[MiniLM] (the metric plumbing every scoring notebook uses);
  * ``fuzz``: ``benchmarks/fuzz_throughput.py --quick`` (the sandboxed engine behind labelling,
    input probes and re-execution).

    python benchmarks/library_ab.py --before ../main-worktree --after . [--rounds 1] [--n 100]

A ratio above 1 means the after side took longer. Rounds are few, so ratios within about 5 %
are noise (compare the two rounds' spread printed beside them).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# The two benchmark scripts exit 1 when their own targets fail; for this comparison that is a
# finished run, not an error.
FINISHED = {"startup": {0}, "metrics": {0, 1}, "fuzz": {0, 1}}


def workloads(n: int) -> dict[str, list[str]]:
    """The commands timed, relative to a checkout's root; ``{py}`` is the interpreter."""
    return {
        "startup": ["{py}", "-c", "import sys; from lcl.cli import main; sys.exit(main(['--help']))"],
        "metrics": ["{py}", "benchmarks/metrics_speed.py", "--n", str(n), "--metrics", "codebleu,crystalbleu,codebertscore"],
        "fuzz": ["{py}", "benchmarks/fuzz_throughput.py", "--quick"],
    }


def run_once(checkout: Path, name: str, command: list[str], python: str) -> float:
    """Wall seconds of one run of ``command`` in ``checkout`` with its own lib/ and empty caches."""
    with tempfile.TemporaryDirectory(prefix="lcl-ab-") as cache:
        env = dict(os.environ, PYTHONPATH=str(checkout / "lib"), LCL_CACHE=cache)
        argv = [python if part == "{py}" else part for part in command]
        start = time.perf_counter()
        done = subprocess.run(argv, cwd=checkout, env=env, capture_output=True, text=True)
        took = time.perf_counter() - start
    if done.returncode not in FINISHED[name]:
        tail = done.stderr.strip().splitlines()[-1:] or ["(no output)"]
        raise SystemExit(f"library_ab: {name} exited {done.returncode} in {checkout}: {tail[0]}")
    return took


def measure(sides: dict[str, Path], commands: dict[str, list[str]], rounds: int, python: str) -> dict[str, dict[str, list[float]]]:
    """Per workload and side, the wall times of every run, the sides alternated ABBA per round."""
    times: dict[str, dict[str, list[float]]] = {w: {s: [] for s in sides} for w in commands}
    order = list(sides)
    for r in range(rounds):
        for side in order + order[::-1]:
            for name, command in commands.items():
                took = run_once(sides[side], name, command, python)
                times[name][side].append(took)
                print(f"  round {r + 1} {side:6s} {name:8s} {took:7.1f} s", file=sys.stderr, flush=True)
    return times


def report(times: dict[str, dict[str, list[float]]]) -> str:
    """A Markdown table: median wall per side, the ratio after/before, each side's range."""
    lines = ["| workload | before, s (median) | after, s (median) | after/before | before range | after range |",
             "|---|---:|---:|---:|---|---|"]
    totals = {"before": 0.0, "after": 0.0}
    for name, by_side in times.items():
        med = {s: statistics.median(v) for s, v in by_side.items()}
        totals = {s: totals[s] + med[s] for s in totals}
        span = {s: f"{min(v):.1f}-{max(v):.1f}" for s, v in by_side.items()}
        lines.append(f"| {name} | {med['before']:.1f} | {med['after']:.1f} | {med['after'] / med['before']:.3f} "
                     f"| {span['before']} | {span['after']} |")
    lines.append(f"| **sum of medians** | {totals['before']:.1f} | {totals['after']:.1f} "
                 f"| {totals['after'] / totals['before']:.3f} | | |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", type=Path, required=True, help="checkout of the earlier revision")
    ap.add_argument("--after", type=Path, default=Path("."), help="checkout of the later revision (default: here)")
    ap.add_argument("--rounds", type=int, default=1, help="ABBA rounds (default 1: two runs per side)")
    ap.add_argument("--n", type=int, default=100, help="pairs scored by the metrics workload (default 100)")
    ap.add_argument("--only", default="", help="comma-separated workloads (default: all)")
    args = ap.parse_args(argv)
    sides = {"before": args.before.resolve(), "after": args.after.resolve()}
    for side, root in sides.items():
        if not (root / "lib" / "lcl").is_dir():
            ap.error(f"--{side} {root}: no lib/lcl there")
    # Without data/raw the fuzz workload skips its HumanEval batch: the sides would differ in work.
    have_raw = {side: (root / "data" / "raw").is_dir() for side, root in sides.items()}
    if len(set(have_raw.values())) > 1:
        ap.error(f"data/raw only in {[s for s, h in have_raw.items() if h]}: fetch it (make data) or link it in both")
    commands = workloads(args.n)
    if args.only:
        commands = {k: v for k, v in commands.items() if k in args.only.split(",")}
    print(report(measure(sides, commands, args.rounds, sys.executable)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
