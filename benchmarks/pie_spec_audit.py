#!/usr/bin/env python
"""Audit of the reviewed PIE input specs against *every* accepted program of their problem.

A verified spec of a CodeNet problem must give
valid inputs (the program neither raises nor times out) for every accepted program of that
problem, not only for the one reference it was reviewed against. For every PIE problem with a
reviewed spec (``data/constraints/PIE/<problem>.json``, ``origin: reviewed``), this script
takes every distinct program of that problem that appears in the PIE pairs (slow and fast
sides), generates ``--n`` inputs from the spec (seeded, the same inputs for every program of
the problem) and measures validity with the project's probe (:func:`lcl.engine.inputs.quality.probe`:
one child process per program, per-input timeout, memory limit; nothing runs in-process).

Prints one row per problem (pairs, programs, min/median validity, worst program and its first
error) and writes it to ``build/pie_spec_audit.csv``; the per-program rows go to
``build/pie_spec_audit_programs.csv``. Probe results are cached (``lcl.core.cache``, keyed by
program, inputs and timeout), so a rerun after a spec edit only measures what changed.

    python benchmarks/pie_spec_audit.py --jobs 1                 # all reviewed problems
    python benchmarks/pie_spec_audit.py --problems p02574 p03060 --n 50
    python benchmarks/pie_spec_audit.py --top 20                  # the 20 problems in most pairs

Verdicts: ``ok``; ``raise:<Exception>``; ``timeout`` (over ``--timeout`` s for one input);
``compile:SyntaxError`` (the program does not compile under this Python: checked with
``compile``, which runs nothing). A program whose inputs end in ``env:<module>`` imports a
package this environment lacks (numba, AtCoder's ahead-of-time module ``my_module``): it
cannot be judged here, its validity is NaN and it does not count as below target. An
ImportError from an *installed* package (``from fractions import gcd``, removed in Python 3.9;
``scipy.misc``) is a program broken here and counts as invalid.

A reviewed spec names, in its ``notes``, the programs that are broken under Python 3.11
whatever the input (2to3 ``eval(input())`` artefacts, ``fractions.gcd``, ``np.int``, ...);
the ``undocumented`` column counts below-target programs the notes do not name, and the exit
status is 1 when there is any (a spec problem to fix, or a broken program to record).
"""

from __future__ import annotations

import argparse
import csv
import importlib.util
import math
import pickle
import statistics
import sys
import time
from collections import Counter, defaultdict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "lib"))

from lcl.core import cache, paths
from lcl.study import loaders  # noqa: E402
from lcl.engine.inputs.generate import generate  # noqa: E402
from lcl.engine.inputs.quality import VALIDITY_TARGET, probe  # noqa: E402
from lcl.engine.inputs.spec import load  # noqa: E402
from lcl.study.task_specs import reviewed_path  # noqa: E402

TIMEOUT = 2.0  # seconds per input, as `lcl inputs check` uses for program-level tasks


@dataclass
class Program:
    problem: str
    submission: str  # CodeNet submission id (s...)
    side: str  # "slow", "fast" or "slow+fast" (the same program on both sides of some pairs)
    code: str


def pie_programs() -> tuple[dict[str, list[Program]], Counter[str]]:
    """problem -> distinct programs (by code) in the PIE pairs; problem -> number of pairs."""
    progs: dict[str, dict[str, Program]] = defaultdict(dict)
    n_pairs: Counter[str] = Counter()
    for pair in loaders.load_pie_pairs():
        pid = pair.extra["problem_id"]
        n_pairs[pid] += 1
        _, _, slow_id, fast_id = pair.id.split("_", 3)
        for sub, side, code in ((slow_id, "slow", pair.reference), (fast_id, "fast", pair.candidate)):
            prev = progs[pid].get(code)
            if prev is None:
                progs[pid][code] = Program(pid, sub, side, code)
            elif side not in prev.side:
                prev.side = "slow+fast"
    return {p: list(d.values()) for p, d in progs.items()}, n_pairs


def audited_problems() -> list[str]:
    out = []
    for path in sorted((paths.data() / "constraints" / "PIE").glob("*.json")):
        spec = load(path)
        if spec.verified or spec.origin == "reviewed":
            out.append(path.stem)
    return out


def _probe(code: str, inputs: list[str], timeout: float) -> dict:
    try:
        out = probe(code, None, inputs, timeout=timeout, coverage=False)
    except (EOFError, pickle.UnpicklingError) as exc:  # the child died while writing its result
        out = {"verdicts": [], "examples": {}, "error": f"probe result unreadable ({type(exc).__name__})"}
    return {"verdicts": out.get("verdicts", []), "examples": out.get("examples", {}), "error": out.get("error", "")}


def run_program(prog: Program, inputs: list[str], timeout: float) -> dict:
    """Verdicts of ``prog`` on ``inputs`` (cached). A program that does not compile under this
    Python gets ``compile:SyntaxError`` for every input without running (``compile`` executes
    nothing). When the probe of all inputs dies as a whole (e.g. a program whose module-level
    tables pile up over the re-executions until the probe's memory limit: p03013 s205446737
    builds 10^5 Fibonacci big ints per run), every input is probed in a child of its own."""
    try:
        compile(prog.code, f"{prog.submission}.py", "exec")
    except (SyntaxError, ValueError) as exc:
        msg = f"compile:{type(exc).__name__}"
        detail = f"{getattr(exc, 'msg', exc)} (line {getattr(exc, 'lineno', '?')})"
        return {"verdicts": [msg] * len(inputs), "examples": {msg: detail}, "error": ""}
    key = cache.key("pie-spec-audit-v1", prog.code, inputs, timeout)

    def compute() -> dict:
        out = _probe(prog.code, inputs, timeout)
        if out["error"] and len(out["verdicts"]) < len(inputs) and len(inputs) > 1:
            one = [_probe(prog.code, [inp], timeout) for inp in inputs]
            out = {"verdicts": [o["verdicts"][0] if o["verdicts"] else "probe-failed" for o in one],
                   "examples": {k: v for o in one for k, v in o["examples"].items()},
                   "error": next((o["error"] for o in one if o["error"]), "")}
            if "probe-failed" not in out["verdicts"]:
                out["error"] = ""
        return out

    res = cache.cached("pie-spec-audit", key, compute)
    if res.get("error") and len(res["verdicts"]) < len(inputs):  # do not keep a probe that failed as a whole
        path = paths.cache() / "pie-spec-audit" / key[:2] / f"{key}.pkl"
        path.unlink(missing_ok=True)
    return res


def _installed(module: str) -> bool:
    """Whether the top-level package of ``module`` is installed here (found, not imported)."""
    try:
        return importlib.util.find_spec(module.split(".")[0]) is not None
    except (ImportError, ValueError):
        return False


def summarise_program(res: dict, n: int) -> dict:
    # ``env:M`` (an ImportError) means "cannot be judged here" only when M's package is missing
    # (numba, AtCoder's AOT module my_module); an ImportError from an installed package is a
    # name the program needs that this Python/library version no longer has (fractions.gcd,
    # removed in Python 3.9; scipy.misc.comb): the program is broken here, an invalid verdict.
    verdicts: list[str] = [f"raise:ImportError({v[4:]})" if v.startswith("env:") and _installed(v[4:]) else v
                           for v in res["verdicts"]]
    counts = Counter(verdicts)
    env = sum(c for v, c in counts.items() if v.startswith("env:"))
    done = len(verdicts) - env
    if res.get("error") and len(verdicts) < n:  # killed by the overall limit: the rest count as bad
        done += n - len(verdicts)
        counts["probe-killed"] += n - len(verdicts)
    validity = counts.get("ok", 0) / done if done else float("nan")
    first = next((v for v in verdicts if v != "ok" and not v.startswith("env:")), None)
    if first is None and counts.get("probe-killed"):
        first = "probe-killed"
    if first is None and env:
        first = next(v for v in verdicts if v.startswith("env:"))
    detail = ""
    if first:
        example = res["examples"].get(first, "")
        sep = ": " if first.startswith("compile:") else " on "
        detail = f"{first}" + (f"{sep}{example[:120]}" if example else "")
        if first == "probe-killed":
            detail += f" ({res.get('error')})"
    return {"validity": validity, "verdicts": dict(counts), "first_error": detail}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--jobs", type=int, default=1, help="programs probed in parallel (default 1)")
    ap.add_argument("--n", type=int, default=30, help="generated inputs per program (default 30)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--timeout", type=float, default=TIMEOUT, help="seconds per input (default 2)")
    ap.add_argument("--problems", nargs="*", help="only these CodeNet problems (e.g. p02574)")
    ap.add_argument("--top", type=int, help="only the k audited problems that appear in most pairs")
    ap.add_argument("--out", default=str(ROOT / "build" / "pie_spec_audit.csv"))
    ap.add_argument("--quiet", action="store_true", help="no per-problem progress lines")
    args = ap.parse_args(argv)

    programs, n_pairs = pie_programs()
    problems = [p for p in audited_problems() if p in programs]
    if args.problems:
        wanted = {p.removeprefix("PIE/") for p in args.problems}
        problems = [p for p in problems if p in wanted]
    problems.sort(key=lambda p: (-n_pairs[p], p))
    if args.top:
        problems = problems[: args.top]

    t0 = time.time()
    rows, prog_rows = [], []
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for pid in problems:
            spec = load(reviewed_path(f"PIE/{pid}"))
            inputs = generate(spec, args.n, args.seed)
            progs = sorted(programs[pid], key=lambda p: p.submission)
            results = list(pool.map(lambda pr: run_program(pr, inputs, args.timeout), progs))
            summaries = [summarise_program(r, len(inputs)) for r in results]
            for pr, s in zip(progs, summaries):
                prog_rows.append({"problem": pid, "submission": pr.submission, "side": pr.side,
                                  "validity": round(s["validity"], 4), "verdicts": s["verdicts"],
                                  "first_error": s["first_error"]})
            judged = [(s["validity"], pr, s) for pr, s in zip(progs, summaries) if not math.isnan(s["validity"])]
            vals = [v for v, _, _ in judged]
            worst = min(judged, key=lambda x: x[0]) if judged else None
            unjudged = [pr.submission for pr, s in zip(progs, summaries) if math.isnan(s["validity"])]
            row = {
                "problem": pid, "verified": spec.verified, "pairs": n_pairs[pid], "programs": len(progs),
                "inputs": len(inputs), "distinct_inputs": len(set(inputs)),
                "min_validity": round(min(vals), 4) if vals else float("nan"),
                "median_validity": round(statistics.median(vals), 4) if vals else float("nan"),
                "below_target": sum(v < VALIDITY_TARGET for v in vals),
                # below-target programs the spec's notes do not name (a reviewed spec names the
                # programs that cannot run under this Python whatever the input)
                "undocumented": sum(v < VALIDITY_TARGET and pr.submission not in spec.notes for v, pr, _ in judged),
                "worst_program": f"{worst[1].submission} ({worst[1].side})" if worst else "",
                "first_error": worst[2]["first_error"] if worst and worst[0] < 1 else "",
                "n_not_judged": len(unjudged),
                "not_judged": " ".join(f"{s} ({r['first_error']})" for s, r in
                                       ((pr.submission, sm) for pr, sm in zip(progs, summaries)
                                        if pr.submission in unjudged)),
            }
            rows.append(row)
            if not args.quiet:
                flag = "BELOW" if row["undocumented"] else "noted" if row["below_target"] else "ok"
                print(f"[{time.time() - t0:6.0f}s] {pid} {flag:5} min {row['min_validity']:.2f} "
                      f"over {len(progs)} programs; worst {row['worst_program']} {row['first_error'][:100]}",
                      flush=True)

    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(out, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]) if rows else ["problem"])
        w.writeheader()
        w.writerows(rows)
    pout = out.with_name(out.stem + "_programs.csv")
    with open(pout, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=["problem", "submission", "side", "validity", "verdicts", "first_error"])
        w.writeheader()
        w.writerows(prog_rows)

    print()
    print(f"{'problem':<8} {'pairs':>5} {'progs':>5} {'min':>6} {'median':>6}  worst program / first error")
    for r in rows:
        print(f"{r['problem']:<8} {r['pairs']:>5} {r['programs']:>5} {r['min_validity']:>6.2f} "
              f"{r['median_validity']:>6.2f}  {r['worst_program']} {r['first_error'][:90]}")
    below = [r for r in rows if r["below_target"]]
    undoc = [r for r in rows if r["undocumented"]]
    nan = sum(r["n_not_judged"] for r in rows)
    print(f"\n{len(rows)} problems, {sum(r['programs'] for r in rows)} programs; "
          f"{len(below)} problems with some program below {VALIDITY_TARGET:.0%} validity "
          f"({sum(r['below_target'] for r in rows)} programs); of these, {len(undoc)} problems "
          f"({sum(r['undocumented'] for r in rows)} programs) not named in the spec's notes; "
          f"{nan} programs not judged (missing module); {time.time() - t0:.0f} s")
    print(f"wrote {out} and {pout}")
    return 1 if undoc else 0


if __name__ == "__main__":
    sys.exit(main())
