"""``lcl variants label|pool|clones``: the command group that generates and labels the LoCaL
candidates (:mod:`lcl.study.candidate_generation`, :mod:`lcl.study.local_build`), the RQ2 pool of df = 0 PIE mutants (:mod:`lcl.study.rq2_pool`)
and the human-written CLONE pairs (:mod:`lcl.study.clones`), each exactly as its notebook does, so that
the notebook then finds every label in the fuzz result store."""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from dataclasses import replace

from lcl.core import records
from lcl.core.errors import UserError
from lcl.core.records import Outcome, PairRow, df_band, result_outcome
from lcl.study import clones, labelling, loaders, local_build, makeup, rq2_pool
from lcl.study.labelling import Recheck

from .common import add_run_options, profile_of


# ----------------------------------------------------------------------------- lcl variants label
def cmd_variants_label(args: argparse.Namespace) -> int:
    """``lcl variants label``: Step III for a profile's candidates, outside the notebook."""
    profile = profile_of(args)
    unknown = [b for b in args.benchmark if b not in loaders.BENCHMARKS]
    if unknown:
        raise UserError(f"unknown benchmark(s) {', '.join(unknown)}; choose from {', '.join(loaders.BENCHMARKS)}")
    benchmarks, kind = tuple(args.benchmark), args.kind or None
    if args.status or args.recheck is not None:  # candidates only: nothing is fuzzed here
        stage = local_build.local_candidates(profile, args.seed, benchmarks=benchmarks, kind=kind)
    else:  # the notebook's stage, so notebook 02 then finds every label stored
        stage = local_build.build_local(profile, args.seed, args.jobs, progress=not args.no_progress,
                                    benchmarks=benchmarks, kind=kind)
    tasks, rows, results = stage.tasks, stage.rows, stage.results
    if not tasks:
        raise UserError("no selected task is available (see `lcl data status`)")
    if args.status:
        return _print_status(rows, labelling.candidates_stored(rows, labelling.profile_settings(profile), args.seed),
                             profile.name, len(tasks))
    if args.recheck is not None:
        return _print_recheck(labelling.recheck(rows, labelling.profile_settings(profile), args.seed, args.recheck,
                                                args.jobs, progress=not args.no_progress,
                                                only_timed=args.recheck_timed))
    summary: Counter = Counter()
    for row, res in zip(rows, results):
        what = {"n/a": "excluded (df = -1)", "0": "df = 0", "1": "df = 1", "between": "0 < df < 1"}[
            df_band(res.get("df_score"))] if result_outcome(res) is not Outcome.ERROR else "cannot be fuzzed"
        summary[(row["benchmark"], row["variant_type"], what)] += 1
    print(f"{len(rows)} candidates of {len(tasks)} tasks labelled (profile {profile.name}, seed {args.seed}); "
          "the 02_variants notebook finds them in the result store")
    for (bench, vtype, what), n in sorted(summary.items()):
        print(f"  {bench:<10} {vtype:<4} {what:<20} {n:>6}")
    # SurfaceSim of OPT only
    kept = local_build.assemble([r for r in rows if r["variant_type"] == "OPT"], results, records.Ledger())
    if kept:
        print("kept optimised variants (df_score = 1):")
        print(makeup.opt_by_generator(kept).to_string(index=False))
        d = makeup.dfs_target(kept)
        if d["pairs"]:
            # their SurfaceSim follows the released variants by construction (lcl.study.surface_budget): no target
            print(f"the rewriter's variants: {d['pairs']} pairs, mean SurfaceSim {d['mean_surface_sim']:.3f} (its "
                  f"targets are drawn from the released GPT-4 variants'), mean df_score {d['mean_df_score']:.3f}")
    return 0


def _print_recheck(rows: list[Recheck]) -> int:
    """``lcl variants label --recheck K``: stored vs freshly fuzzed labels; 1 if any df differs."""
    if not rows:
        print("nothing to recheck: no candidate of this selection is labelled yet")
        return 0
    same = sum(r["identical"] for r in rows)
    diffs = [abs(r["stored_df"] - r["fresh_df"]) for r in rows
             if r["stored_df"] is not None and r["fresh_df"] is not None]
    print(f"{len(rows)} labelled pair(s) fuzzed again from scratch: {same} identical (df_score and every run), "
          f"max |stored - fresh| df_score = {max(diffs, default=0.0):.4f}")
    for r in rows:
        if not r["identical"]:
            print(f"  {r['id']}: stored {r['stored_df']} {r['stored_runs']}, fresh {r['fresh_df']} {r['fresh_runs']}")
    return 0 if all(r["stored_df"] == r["fresh_df"] for r in rows) else 1


def _print_status(rows: list[PairRow], status: dict[str, bool | None], profile: str, n_tasks: int) -> int:
    """``lcl variants label --status``: labelled / to fuzz / cannot be fuzzed, per benchmark and kind."""
    import pandas as pd

    from lcl.engine.fuzz.store import default_path
    from lcl.study import label_archive as archive

    what = {True: "labelled", False: "to fuzz", None: "cannot be fuzzed"}
    t = pd.DataFrame([{"benchmark": r["benchmark"], "kind": r["variant_type"], "state": what[status[r["id"]]]}
                      for r in rows])
    table = (t.groupby(["benchmark", "kind", "state"]).size().unstack("state", fill_value=0)
             .reindex(columns=list(what.values()), fill_value=0))
    table["candidates"] = table.sum(axis=1)
    table.loc[("all", ""), :] = table.sum()
    done, todo = int(table.loc[("all", ""), "labelled"]), int(table.loc[("all", ""), "to fuzz"])
    print(f"profile {profile}: {len(rows)} candidates of {n_tasks} tasks, {done} labelled "
          f"({100 * done / max(1, len(rows)):.1f}%) in {default_path()}")
    print(table.astype(int).to_string())
    folder = archive.default_dir()
    print(f"label archive: {'off (LCL_LABEL_ARCHIVE)' if folder is None else folder}"
          + ("" if folder is None else f", {archive.size(folder)} results merged into the store"))
    print("nothing left to fuzz" if not todo else
          f"{todo} to fuzz: lcl variants label --profile {profile} (resumable; interrupt it freely)")
    return 0


# ----------------------------------------------------------------------------- lcl variants pool
def _positive_int(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise UserError(f"--population-cap: expected a positive whole number or 'all', got {text!r}")
    return int(text)


def _print_counts(counts: Counter) -> None:
    width = max(map(len, counts), default=0)
    for what, c in counts.items():
        print(f"  {what:<{width}}  {c:>6}")


def cmd_variants_pool(args: argparse.Namespace) -> int:
    """``lcl variants pool``: every repetition's df = 0 mutants of a profile outside Jupyter, for
    both populations, exactly as the 04 notebook draws them (same candidates, orders, screen,
    target and seed), so the notebook then finds every label in the fuzz result store. Resumable
    like every batch. Without PIE (registry-only data) it says so and exits 0, as the notebook
    skips RQ2, so ``make labels`` goes on with the stages that can run."""
    profile = profile_of(args)
    if args.population_cap is not None:
        # label a larger population than the profile's before the profile adopts it: labels are keyed by the pair
        # and the fuzzing settings, not by the cap, so they carry over unchanged when the profile's cap moves
        profile = replace(profile, rq2_pool_candidates=None if args.population_cap == "all" else
                          _positive_int(args.population_cap))
    if not loaders.benchmark_available("PIE"):
        print("RQ2 pool skipped: PIE is not available here (it comes from the data mirror; see `lcl data status`)",
              file=sys.stderr)
        return 0
    n, k = profile.rq2_pairs, profile.rq2_repetitions
    populations = rq2_pool.POPULATIONS if args.population is None else (args.population,)
    for population in populations:
        def head(r: int, population: str = population) -> str:
            return f"RQ2 mutants ({population}, repetition {r}, profile {profile.name}, seed {args.seed})"

        if getattr(args, "status", False):
            for r in range(k):
                state, complete = rq2_pool.pool_status(profile, args.seed, n, rq2_pool.repetition_seed(args.seed, r),
                                                          population)
                _print_counts(state)
                print(f"{head(r)}: {state['of which df_score = 0']} with df_score = 0 stored, target {n}; " +
                      ("nothing left to fuzz" if complete else
                       f"resume with: lcl variants pool --profile {profile.name} (interrupt it freely)"))
            continue
        # the notebook's stage (rq2_pool.repetition_pools), so notebook 04 then finds every label stored
        pools, ledgers = rq2_pool.repetition_pools(profile, args.seed, args.jobs, n, k, population,
                                                      progress=not args.no_progress)
        for r, (pool, counts) in enumerate(zip(pools, ledgers)):
            _print_counts(counts)
            print(f"{head(r)}: {len(pool)} of {n} mutants with df_score = 0"
                  f"{'' if len(pool) >= n else ' (candidates ran out before the target)'}")
    print("the 04 notebook finds these labels in the result store")
    return 0


# ----------------------------------------------------------------------------- lcl variants clones
def cmd_variants_clones(args: argparse.Namespace) -> int:
    """``lcl variants clones``: the human-written DFS (CLONE) pairs of a profile outside Jupyter,
    exactly as the 02 notebook builds them (same functions, clusters, pairs and seed), so the
    notebook then finds every fingerprint and label in the fuzz result store. Resumable: finished
    pairs are stored one by one."""
    profile = profile_of(args)
    ledger = records.Ledger()
    # through the package's namespace, so that a replaced ``lcl.study.clones.build`` (as in the tests) takes effect
    pairs, clusters = clones.build(profile, args.seed, args.jobs, ledger, progress=not args.no_progress)
    s = clones.summary(clusters, pairs)

    def mean(v: float | None) -> str:
        return "n/a" if v is None else f"{v:.3f}"

    print(f"CLONE pairs (profile {profile.name}, seed {args.seed}): {s['clusters']} clusters of {s['functions']} "
          f"functions -> {s['pairs']} labelled pairs ({s['cross_package_pairs']} cross-package), mean SurfaceSim "
          f"{mean(s['mean_surface_sim'])}, mean df_score {mean(s['mean_df_score'])}; "
          "the 02_variants notebook finds them in the result store")
    rows = ledger.to_rows()
    width = max((len(r["what"]) for r in rows), default=0)
    for r in rows:
        print(f"  {r['stage']:<9} {r['what']:<{width}}  {r['count']:>6}")
    return 0


# ----------------------------------------------------------------------------- the group
def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("variants", help="generate and label the LoCaL candidates (Steps I and III)",
                       description="Generate and label the LoCaL candidates of a profile.")
    s = p.add_subparsers(dest="variants_command", metavar="SUBCOMMAND")
    q = s.add_parser("label", help="label a profile's MUT/OPT candidates with Algorithm 1 (resumable)",
                     description="Generate a profile's MUT/OPT candidates and label every one with Algorithm 1, "
                                 "exactly as the 02_variants notebook does (same ids, seeds and settings), so the "
                                 "notebook then finds every result in the fuzz result store. Finished pairs are "
                                 "stored one by one: interrupt it and rerun it freely, e.g. to spread the full "
                                 "profile (hours on 2 cores) over several sittings.",
                     epilog="example: lcl variants label --profile full --jobs 2 HumanEval MBPP")
    q.add_argument("benchmark", nargs="*", metavar="BENCHMARK",
                   help=f"only these benchmarks ({', '.join(loaders.BENCHMARKS)}; default: all available)")
    add_run_options(q)
    q.add_argument("--kind", choices=("MUT", "OPT"), help="only mutants or only optimised variants (the OPT "
                   "pairs are few: label them first to check the DFS target at full scale)")
    q.add_argument("--status", action="store_true", help="fuzz nothing: count the candidates already labelled "
                   "in the result store and those still to fuzz, per benchmark and kind")
    q.add_argument("--recheck", type=int, metavar="K", help="fuzz nothing new: re-fuzz K already labelled "
                   "candidates (a seeded sample) from scratch in an empty store and compare with the stored or "
                   "archived labels (exit status 1 if a df_score differs)")
    q.add_argument("--recheck-timed", action="store_true", help="with --recheck: sample only among labels that "
                   "time decided part of (a run excluded for the budget T, a per-input timeout, a load that timed "
                   "out), where a change of the harness's clocks shows first")
    q.set_defaults(func=cmd_variants_label)
    o = s.add_parser("pool", help="build the RQ2 pool of df = 0 PIE mutants with Algorithm 1 (resumable)",
                     description="Fuzz mutants of PIE slow programs in the 04 notebook's seeded order until "
                                 "3 x the profile's RQ2 pairs per dataset have df_score = 0 (first runs screened "
                                 "at R >= 3), exactly as the notebook does, so it then finds every label in the "
                                 "fuzz result store. Interrupt it and rerun it freely.",
                     epilog="example: lcl variants pool --profile full --jobs 2")
    add_run_options(o)
    o.add_argument("--status", action="store_true", help="fuzz nothing: count the candidates with a stored label, "
                   "those with df_score = 0, those the screen left out and those still to fuzz")
    o.add_argument("--population", choices=rq2_pool.POPULATIONS,
                   help="only this mutant population (default: both, the PIE pairs' slow programs first)")
    o.add_argument("--population-cap", metavar="N|all",
                   help="of the PIE pairs' population, draw from the first N candidates of its seeded order "
                        "(all: every candidate) instead of the profile's cap, to label the pool that independent "
                        "repetitions need ahead of the profile; the profile's own results are unchanged")
    o.set_defaults(func=cmd_variants_pool)
    c = s.add_parser("clones", help="build and label the human-written CLONE pairs with Algorithm 1 (resumable)",
                     description="Extract the functions of the four PyPI algorithm collections, group them into "
                                 "clusters of identical behaviour (fingerprints on the profile's N inputs), emit "
                                 "the capped within-cluster pairs and label each with Algorithm 1, exactly as the "
                                 "02_variants notebook does, so the notebook then finds every fingerprint and label "
                                 "in the fuzz result store. Interrupt it and rerun it freely.",
                     epilog="example: lcl variants clones --profile full --jobs 2")
    add_run_options(c)
    c.set_defaults(func=cmd_variants_clones)
    p.set_defaults(func=lambda _args: p.print_help() or 2)
