"""``lcl fuzz pair``, ``lcl fuzz batch`` and ``lcl fuzz archive``: differential fuzzing
(Algorithm 1, :mod:`lcl.engine.fuzz`) of one pair or a file of pairs, and the committed label archive
(:mod:`lcl.study.label_archive`)."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, TypedDict

from lcl.core.errors import UserError

from .common import add_run_options

if TYPE_CHECKING:
    from lcl.engine.fuzz.semantics import FuzzResult, Settings


def _settings_args(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("Algorithm 1 settings (defaults: the paper's N, R=5; see docs/FUZZING.md)")
    g.add_argument("--runs", type=int, metavar="R", help="repetitions R (default 5)")
    add_run_options(g, profile=False, jobs=False, progress=False,
                    seed={"default": int(os.environ.get("LCL_SEED", "0") or 0),
                          "help": "base seed; run r uses a seed derived from it (default $LCL_SEED or 0)"})
    g.add_argument("--budget", type=float, metavar="T",
                   help="a fixed time budget per run, seconds (default: adaptive, 3 s + 5 x the reference's CPU "
                        "time on the run's inputs, at most 30 s; at least 2 x that time, at most 60 s)")
    g.add_argument("--timeout-floor", type=float, metavar="S", help="minimum per-input timeout (default 0.1)")
    g.add_argument("--memory", type=int, metavar="MIB", help="memory limit per worker, MiB (default 2048)")
    g.add_argument("--workers", type=int, metavar="W", help="sandboxed workers per pair (default 1)")
    g.add_argument("--n-function", type=int, metavar="N",
                   help="generated inputs per run for functions (default 2000; generator inputs only)")
    g.add_argument("--n-program", type=int, metavar="N",
                   help="generated inputs per run for stdin programs (default 1000; generator inputs only)")
    g.add_argument("--over-budget", choices=("exclude", "score"), default=None,
                   help="a run the candidate pushes over T, or whose load hangs: exclude (default, the paper's "
                        "Algorithm 1: its one clock covers both programs) or score (its unfinished inputs are "
                        "timeouts, so an untrusted candidate cannot choose which runs count)")
    g.add_argument("--network", choices=("auto", "netns", "audit"), default=None,
                   help="network containment (default auto: private namespace, Landlock; the audit hook "
                        "refuses sockets where no namespace is available)")
    g.add_argument("--isolation", choices=("best", "strict"), default=None,
                   help="kernel isolation of the workers (default best: what the kernel has, said at start-up "
                        "where something is missing; strict: refuse to run without user-level Landlock, seccomp, "
                        "no_new_privs, dropped capabilities and a network namespace). Also $LCL_FUZZ_ISOLATION")


def _check_isolation(args: argparse.Namespace) -> None:
    """Start the fork-server now, so that a refused ``--isolation strict`` (or an unusable
    sandbox) is one line before any work, not a traceback after it."""
    from lcl.engine.fuzz.sandbox import SandboxError, get_forkserver

    if args.isolation:
        os.environ["LCL_FUZZ_ISOLATION"] = args.isolation  # the batch's local workers inherit it
    try:
        get_forkserver(args.network, heavy=False)
    except SandboxError as exc:
        raise UserError(str(exc)) from None


class _SettingsOptions(TypedDict, total=False):
    """The :class:`~lcl.engine.fuzz.semantics.Settings` fields the command line can set."""

    runs: int
    run_budget: float
    run_budget_floor: float
    run_budget_factor: float
    run_budget_ref_factor: float
    timeout_floor: float
    memory_bytes: int
    workers: int
    n_function: int
    n_program: int
    over_budget: str


def _settings(args: argparse.Namespace) -> Settings:
    from lcl.engine.fuzz.semantics import Settings

    kw: _SettingsOptions = {}
    if args.runs is not None:
        kw["runs"] = args.runs
    if args.budget is not None:
        kw["run_budget"] = args.budget
    if args.timeout_floor is not None:
        kw["timeout_floor"] = args.timeout_floor
    if args.memory is not None:
        kw["memory_bytes"] = args.memory << 20
    if args.workers is not None:
        kw["workers"] = args.workers
    if getattr(args, "n_function", None) is not None:
        kw["n_function"] = args.n_function
    if getattr(args, "n_program", None) is not None:
        kw["n_program"] = args.n_program
    if getattr(args, "over_budget", None) is not None:
        kw["over_budget"] = args.over_budget
    for k, v in kw.items():
        if isinstance(v, (int, float)) and v <= 0:
            raise UserError(f"--{k.replace('_', '-')}: must be positive")
    if args.budget is not None:  # a fixed T: floor = cap, nothing adaptive
        kw.update({"run_budget_floor": args.budget, "run_budget_factor": 0.0, "run_budget_ref_factor": 0.0})
    return Settings(**kw)


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("fuzz", help="differential fuzzing (Algorithm 1) of code pairs in a sandbox",
                              description="Differential fuzzing of (reference, variant) pairs: df_score of Algorithm 1.")
    sub = p.add_subparsers(dest="fuzz_command", metavar="SUBCOMMAND")
    p.set_defaults(func=lambda a: (p.print_help(), 2)[1])

    pp = sub.add_parser("pair", help="fuzz one pair and print its df_score",
                        description="Fuzz one pair. INPUTS.jsonl holds one JSON list of positional arguments "
                                    "per line (functions) or one JSON string of stdin per line (--stdin); they "
                                    "are used exactly as given (N = their count, or the first --n).")
    pp.add_argument("--reference", required=True, type=Path, metavar="A.py")
    pp.add_argument("--variant", required=True, type=Path, metavar="B.py")
    mode = pp.add_mutually_exclusive_group(required=True)
    mode.add_argument("--entry", metavar="NAME", help="function to call (function pairs)")
    mode.add_argument("--stdin", action="store_true", help="stdin/stdout programs")
    pp.add_argument("--inputs", required=True, type=Path, metavar="INPUTS.jsonl")
    pp.add_argument("--n", type=int, metavar="N", help="use only the first N inputs")
    pp.add_argument("--json", action="store_true", help="print the full result as JSON (last line)")
    _settings_args(pp)
    pp.set_defaults(func=cmd_fuzz_pair)

    pb = sub.add_parser("batch", help="fuzz many pairs (resumable, local pool or Dask)",
                        description="Fuzz every pair of PAIRS.jsonl. Rows: explicit (id, reference|reference_file, "
                                    "variant|variant_file, entry|stdin, inputs|inputs_file) or published LoCaL "
                                    "(id, golden_code, generated_code; needs a resolver). Finished pairs are kept "
                                    "in the store; rerunning resumes. RESULTS.jsonl is written atomically at the end.")
    pb.add_argument("pairs", type=Path, metavar="PAIRS.jsonl")
    pb.add_argument("--out", required=True, type=Path, metavar="RESULTS.jsonl")
    add_run_options(pb, profile=False, seed=False, progress=False,
                    jobs={"default": None, "help": "pairs fuzzed concurrently (default $JOBS/$LCL_JOBS or 1)"})
    pb.add_argument("--scheduler", metavar="ADDRESS", default=None,
                    help="run on a Dask distributed cluster (default $LCL_DASK_SCHEDULER)")
    pb.add_argument("--store", type=Path, default=None, help="result store (default .cache/fuzz/results.sqlite)")
    pb.add_argument("--keep-going", action="store_true",
                    help="record rows that cannot be fuzzed (unknown task, code that does not compile, a pair "
                         "the harness fails on) as error rows instead of stopping")
    pb.add_argument("--resolver", metavar="MODULE:FUNCTION", action="append", default=[],
                    help="input resolver for published-format rows (also $LCL_FUZZ_RESOLVER)")
    add_run_options(pb, profile=False, seed=False, jobs=False, progress={"help": "no progress bars"})
    _settings_args(pb)
    pb.set_defaults(func=cmd_fuzz_batch)

    pa = sub.add_parser("archive", help="the committed label archive data/labels/ (status, export)",
                        description="Finished results live in the result store (.cache/fuzz/results.sqlite), which "
                                    "a fresh clone lacks; data/labels/ is its committed, content-keyed counterpart "
                                    "(see lib/lcl/study/label_archive.py). Opening the store merges the archive in, so an "
                                    "archived pair is never fuzzed again; LCL_LABEL_ARCHIVE=off ignores it.",
                        epilog="example: lcl variants label --profile full; lcl fuzz archive export --profile full")
    pa.add_argument("action", nargs="?", choices=("status", "export"), default="status",
                    help="status: rows per shard and engine version, integrity; export: add the store's results "
                         "to the archive (default: %(default)s)")
    add_run_options(pa, seed=False, jobs=False, progress=False,
                    profile={"default": "full",
                             "help": "export only results fuzzed with this profile's N and R (or one run: the RQ2 "
                                     "pool's screen); full | quick | smoke | any (default: %(default)s)"})
    pa.set_defaults(func=cmd_fuzz_archive)


def _read_code(path: Path, side: str) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UserError(f"--{side} {path}: file not found") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UserError(f"--{side} {path}: cannot read ({exc})") from None


def cmd_fuzz_pair(args: argparse.Namespace) -> int:
    from lcl.engine.fuzz.algorithm import check_code, fuzz_pair
    from lcl.engine.fuzz.batch import read_inputs_file

    s = _settings(args)
    _check_isolation(args)
    level = "program" if args.stdin else "function"
    ref = _read_code(args.reference, "reference")
    var = _read_code(args.variant, "variant")
    check_code(ref, level=level, entry=args.entry, side="reference")
    check_code(var, level=level, entry=args.entry, side="variant")
    inputs = read_inputs_file(args.inputs, level=level)
    res = fuzz_pair(ref, var, entry=args.entry, stdin=args.stdin, inputs=inputs, n=args.n, seed=args.seed,
                    settings=s, network=args.network, isolation=args.isolation)
    d = res.to_dict()
    if args.json:
        print(json.dumps(d, sort_keys=True))
    else:
        c = d["counts"]
        runs = ", ".join("excluded" if r is None else f"{r:.4f}" for r in d["run_scores"])
        print(f"df_score {d['df_score']:.6f}  (runs: {runs})")
        print(f"N={d['n']}  matches {c['matches']}  mismatches {c['mismatches']}  timeouts {c['timeouts']}  "
              f"crashes {c['crashes']}  invalid {c['invalid']}  (totals over kept runs)")
        print(json.dumps({k: d[k] for k in ("df_score", "run_scores", "counts", "verdict_digest")}, sort_keys=True))
    return 0


def cmd_fuzz_batch(args: argparse.Namespace) -> int:
    from lcl.engine.fuzz.batch import load_resolver, results_summary, run_batch
    from lcl.engine.fuzz.store import ResultStore
    from lcl.study.label_archive import open_store

    s = _settings(args)
    if args.out.is_dir():  # found now, not after the fuzzing
        raise UserError(f"--out {args.out}: is a directory (give a file path for RESULTS.jsonl)")
    if not args.out.parent.is_dir():
        raise UserError(f"--out {args.out}: folder {args.out.parent} does not exist")
    _check_isolation(args)
    # default: the project's own resolver (task from the id, inputs from its constraint spec)
    resolvers = [load_resolver(spec) for spec in
                 args.resolver or [os.environ.get("LCL_FUZZ_RESOLVER") or "lcl.study.task_specs:resolve_published"]]
    if args.jobs is not None and args.jobs < 1:
        raise UserError("--jobs: must be at least 1")
    # an explicit --store is used as it is; the default one gets the committed labels merged in
    store = ResultStore(args.store) if args.store else open_store()
    try:
        results = run_batch(args.pairs, args.out, settings=s, seed=args.seed, jobs=args.jobs,
                            scheduler=args.scheduler, store=store, network=args.network,
                            progress=not args.no_progress, keep_going=args.keep_going, resolvers=resolvers)
    finally:
        store.close()
    summary = results_summary(results)
    summary["out"] = str(args.out)
    print(json.dumps(summary, sort_keys=True))
    if summary["errors"]:
        print(f"lcl fuzz batch: {summary['errors']} pair(s) could not be fuzzed; see 'error' in {args.out}",
              file=sys.stderr)
        return 1
    return 0


def cmd_fuzz_archive(args: argparse.Namespace) -> int:
    from lcl.study import label_archive as archive

    folder = archive.default_dir()
    if folder is None:
        raise UserError("the label archive is off (LCL_LABEL_ARCHIVE=off)")
    if args.action == "export":
        select = _profile_filter(args.profile)
        with archive.open_store() as store:
            added = archive.export(store, folder, select)
        print(f"{sum(added.values())} result(s) added to {folder}" +
              "".join(f"\n  {name:<24} +{n}" for name, n in sorted(added.items())))
    problems = archive.verify(folder)
    table = archive.summary(archive.read(folder))
    print(f"label archive {folder}: {sum(sum(v.values()) for v in table.values())} results")
    for name, versions in sorted(table.items()):
        print(f"  {name:<24} " + ", ".join(f"{n} (engine {v})" for v, n in sorted(versions.items())))
    for p in problems:
        print(f"  PROBLEM: {p}", file=sys.stderr)
    return 1 if problems else 0


def _profile_filter(name: str) -> Callable[[FuzzResult], bool] | None:
    """Results fuzzed with profile ``name``'s N and R, or N and one run (the RQ2 pool's screen,
    :func:`lcl.study.rq2_pool.screen`); ``any``: every result."""
    from lcl.core import profiles

    if name == "any":
        return None
    try:
        prof = profiles.get(name)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    want = {"n_function": prof.fuzz_inputs_function, "n_program": prof.fuzz_inputs_program}

    def select(result: FuzzResult) -> bool:
        s: Mapping[str, object] = result.get("settings") or {}
        return s.get("runs") in (prof.fuzz_runs, 1) and all(s.get(k) == v for k, v in want.items())

    return select
