"""``lcl variants label|pool|clones``: the command group that generates and labels the LoCaL
candidates (``lcl.dataset``), the RQ2 pool of df = 0 PIE mutants (``lcl.distinguish``) and the
human-written CLONE pairs (``lcl.clones``). It sits above the three so that none of them needs to
import another for the command line."""

from __future__ import annotations

from typing import Any

from . import clones, dataset, distinguish, loaders, profiles


def register(sub: Any) -> None:
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
    profiles.add_cli_options(q)
    q.add_argument("--kind", choices=("MUT", "OPT"), help="only mutants or only optimised variants (the OPT "
                   "pairs are few: label them first to check the DFS target at full scale)")
    q.add_argument("--status", action="store_true", help="fuzz nothing: count the candidates already labelled "
                   "in the result store and those still to fuzz, per benchmark and kind")
    q.add_argument("--recheck", type=int, metavar="K", help="fuzz nothing new: re-fuzz K already labelled "
                   "candidates (a seeded sample) from scratch in an empty store and compare with the stored or "
                   "archived labels (exit status 1 if a df_score differs)")
    q.set_defaults(func=dataset.cmd_label)
    o = s.add_parser("pool", help="build the RQ2 pool of df = 0 PIE mutants with Algorithm 1 (resumable)",
                     description="Fuzz mutants of PIE slow programs in the 04 notebook's seeded order until "
                                 "3 x the profile's RQ2 pairs per dataset have df_score = 0 (first runs screened "
                                 "at R >= 3), exactly as the notebook does, so it then finds every label in the "
                                 "fuzz result store. Interrupt it and rerun it freely.",
                     epilog="example: lcl variants pool --profile full --jobs 2")
    profiles.add_cli_options(o)
    o.add_argument("--status", action="store_true", help="fuzz nothing: count the candidates with a stored label, "
                   "those with df_score = 0, those the screen left out and those still to fuzz")
    o.set_defaults(func=distinguish.cmd_pool)
    c = s.add_parser("clones", help="build and label the human-written CLONE pairs with Algorithm 1 (resumable)",
                     description="Extract the functions of the four PyPI algorithm collections, group them into "
                                 "clusters of identical behaviour (fingerprints on the profile's N inputs), emit "
                                 "the capped within-cluster pairs and label each with Algorithm 1, exactly as the "
                                 "02_variants notebook does, so the notebook then finds every fingerprint and label "
                                 "in the fuzz result store. Interrupt it and rerun it freely.",
                     epilog="example: lcl variants clones --profile full --jobs 2")
    profiles.add_cli_options(c)
    c.set_defaults(func=clones.cmd_clones)
    p.set_defaults(func=lambda _args: p.print_help() or 2)
