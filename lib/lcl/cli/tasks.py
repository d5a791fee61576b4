"""``lcl tasks``: the source tasks of each benchmark and the rows rejected while loading them
(:mod:`lcl.study.loaders`)."""

from __future__ import annotations

import argparse
import json

from lcl.core.errors import UserError
from lcl.study.loaders import BENCHMARKS, LOADERS, benchmark_available, select


def cmd_tasks(args: argparse.Namespace) -> int:
    benches = args.benchmark or list(BENCHMARKS)
    unknown = [b for b in benches if b not in BENCHMARKS]
    if unknown:
        raise UserError(f"unknown benchmark(s) {', '.join(unknown)}; choose from {', '.join(BENCHMARKS)}")
    for b in benches:
        if not benchmark_available(b):
            print(f"{b:<10} skipped: source not available (see `lcl data status`)")
            continue
        res = LOADERS[b]()
        chosen = select(b, res.tasks) if args.selected else res.tasks
        print(f"{b:<10} {len(res.tasks):>5} tasks, {len(chosen):>4} {'selected' if args.selected else 'listed'}, "
              f"{len(res.rejected)} rejected")
        for r in res.rejected:
            print(f"    rejected {r.task_id} ({r.file}:{r.line}): {r.reason}")
        if args.jsonl:
            with open(args.jsonl, "a", encoding="utf-8") as fh:
                for t in chosen:
                    fh.write(json.dumps(t.to_dict(), default=repr) + "\n")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("tasks", help="list the source tasks of each benchmark (and rejected rows)",
                       description="Load HumanEval, MBPP, APPS and PIE tasks from data/raw and report counts and rejected rows.")
    p.add_argument("benchmark", nargs="*", metavar="BENCHMARK", help=f"any of {', '.join(BENCHMARKS)} (default: all)")
    p.add_argument("--selected", action="store_true", help="apply the paper's selection (Table 1's k)")
    p.add_argument("--jsonl", metavar="PATH", help="also append the tasks as JSON lines to PATH")
    p.set_defaults(func=cmd_tasks)
