"""``lcl evaluate``: a metric's surface-bias report card (:mod:`lcl.report.report_card`, written by
:mod:`lcl.report.card_pages`).

    lcl evaluate --metric examples.toy_metric:score --profile quick

The metric is given as for ``lcl score``: a registry name, ``external:FILE`` (a JSONL of
``{id, score}`` keyed by pair id) or ``module:function``. The profile's outputs must be built
(``make all PROFILE=...``); nothing is fuzzed.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from .common import add_run_options, profile_from_env


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "evaluate",
        help="put a metric through every test of the paper and of the studies, beside the four CEMs",
        description=(
            "Report card of a code metric on a profile's built outputs: Table 5 MAE with 95% CIs per evaluation "
            "set, RQ1 Spearman with SurfaceSim, RQ2 distinguishability, RQ3 SFD/DFS pairs badly wrong, X2 score shifts, X3 AUROC, "
            "X4 ECE, next to CodeBLEU, CrystalBLEU, CodeBERTScore[MiniLM] and CodeScore-style (the last two are "
            "substitutes). Writes card.json, card.md, card.html (+ provenance) and adds the metric's row to "
            "build/evaluate/leaderboard.csv. Nothing is fuzzed: run 'make all PROFILE=...' first."),
        epilog="Example: lcl evaluate --metric examples.toy_metric:score --profile quick",
    )
    p.add_argument("--metric", "-m", required=True,
                   help="module:function (importable from the current folder or PYTHONPATH), external:FILE "
                        "(JSONL of id, score) or a built-in name (codebleu, surface_sim, ...)")
    p.add_argument("--out", "-o", type=Path, default=None,
                   help="folder for the card (default build/evaluate/<metric>/<profile>/)")
    add_run_options(p, profile=profile_from_env() | {"help": "whose built outputs to read (default $LCL_PROFILE, "
                                                                  "else full)"},
                    seed={"default": None, "help": "base seed (default: the one the profile was built with)"},
                    jobs={"default": 2, "help": "worker processes (default: %(default)s)"},
                    progress={"help": "no progress bars"})
    p.set_defaults(func=cmd_evaluate)


def cmd_evaluate(args: argparse.Namespace) -> int:
    from lcl.report import card_pages, report_card

    start = time.time()
    card = report_card.build(args.metric, args.profile, args.seed, args.jobs, progress=not args.no_progress)
    written = card_pages.write(card, args.out)
    print(card.verdict)
    print(f"wrote {', '.join(str(p) for p in written)} in {time.time() - start:.0f} s", file=sys.stderr)
    return 0
