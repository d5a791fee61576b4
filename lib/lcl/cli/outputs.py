"""``lcl report``, ``lcl verify`` and ``lcl findings``: the commands over the regenerated outputs
(:mod:`lcl.report.html_report`, :mod:`lcl.report.verify`, :mod:`lcl.report.findings`)."""

from __future__ import annotations

import argparse
from pathlib import Path

import pandas as pd

from lcl.core import paths
from lcl.core.errors import UserError
from lcl.report import findings, verify
from lcl.report import html_report as report
from lcl.study import sources

from .common import add_run_options, profile_from_env


def cmd_report(args: argparse.Namespace) -> int:
    if args.evaluator_table:
        print(report.readme_evaluator_table())
        return 0
    index = report.build_index(args.profile)
    missing = [p for p in report.linked_files(index) if not p.exists()]
    print(f"report: {index}")
    if missing:
        print("missing linked files:\n  " + "\n  ".join(map(str, missing)))
        return 1
    return 0


def cmd_verify(args: argparse.Namespace) -> int:
    if args.spread:
        other = Path(args.spread)
        if not other.is_dir():
            raise UserError(f"--spread {other}: not a folder of tables (another build's tables/)")
        table = verify.spread(paths.tables(), other)
        with pd.option_context("display.width", 200, "display.max_rows", 200):
            print(table.to_string(index=False))
        return 0
    skipped = sorted(sources.status().get("skipped", {}))
    # a run without the mirror is compared with outputs recorded by such a run: its tables differ
    # from the full-data ones by design (skipped benchmarks), and a table it cannot build is skipped
    registry_only = bool(skipped)
    if args.record:
        only = [n.strip() for n in args.only.split(",") if n.strip()] if args.only else None
        for p in verify.record(args.profile, only, registry_only=registry_only):
            print(f"recorded {p.relative_to(paths.root())}")
        return 0
    if registry_only:
        print(f"note: sources {', '.join(skipped)} were skipped (no data mirror); comparing with the outputs "
              f"recorded by a run without them ({verify.expected_dir(args.profile, registry_only=True)})")
        if not verify.expected_dir(args.profile, registry_only=True).is_dir():
            print(f"verify ({args.profile}, without the mirror): no outputs recorded without the mirror for this "
                  "profile, so nothing was compared; run with the mirror to check every table")
            return 0
    checked, mismatches, missing = verify.verify(args.profile, registry_only=registry_only)
    for m in mismatches[:50]:
        print(f"MISMATCH {m.table} row {m.row} [{m.column}]: expected {m.expected!r}, got {m.got!r}")
    for name in missing:
        print(f"MISSING  {name}: not regenerated (run `make all PROFILE={args.profile}`)")
    if registry_only:
        full = {p.name for p in verify.expected_dir(args.profile).glob("*.csv")}
        for name in sorted(full - set(checked) - set(missing)):
            print(f"SKIPPED  {name}: needs the skipped sources")
    print(f"verify ({args.profile}{', without the mirror' if registry_only else ''}): {len(checked)} tables checked, "
          f"{len(mismatches)} mismatching cells, {len(missing)} missing")
    return 1 if mismatches or missing else 0


def cmd_findings(args: argparse.Namespace) -> int:
    path, table = findings.write_joined(args.profile, args.seed)
    print(f"wrote {path} ({len(table)} findings)")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("report", help="render executed notebooks to HTML with an index page",
                       description=report.__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_run_options(p, profile=profile_from_env(), seed=False, jobs=False, progress=False)
    p.add_argument("--evaluator-table", action="store_true",
                   help="print the README's evaluator table (from the recorded full run) and stop")
    p.set_defaults(func=cmd_report)

    v = sub.add_parser("verify", help="compare regenerated tables with recorded reference outputs",
                       description=verify.__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_run_options(v, profile=profile_from_env(), seed=False, jobs=False, progress=False)
    v.add_argument("--record", action="store_true", help="record the current tables as the reference")
    v.add_argument("--only", default="", help="with --record: comma-separated table names to record")
    v.add_argument("--spread", metavar="DIR", default="",
                   help="print the largest difference, per table and tolerance rule, between this build's tables "
                        "and another build's tables/ folder DIR (how a rule's tolerance is measured), and stop")
    v.set_defaults(func=cmd_verify)

    f = sub.add_parser("findings", help="join the findings of notebooks 09-11 into tables/findings.csv",
                       description="Join tables/findings_<notebook>.csv (written by notebooks 09-11) into "
                                   "tables/findings.csv, checking columns and unique ids.")
    add_run_options(f, profile={"default": "full", "choices": ("full", "quick", "smoke")}, seed={"default": 20250101},
                    jobs=False, progress=False)
    f.set_defaults(func=cmd_findings)
