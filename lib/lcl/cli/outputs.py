"""``lcl report``, ``lcl verify`` and ``lcl findings``: the commands over the regenerated outputs
(:mod:`lcl.report`, :mod:`lcl.verify`, :mod:`lcl.findings`)."""

from __future__ import annotations

import argparse

from .. import findings, paths, report, sources, verify
from .common import add_run_options, profile_from_env


def cmd_report(args: argparse.Namespace) -> int:
    index = report.build_index(args.profile)
    missing = [p for p in report.linked_files(index) if not p.exists()]
    print(f"report: {index}")
    if missing:
        print("missing linked files:\n  " + "\n  ".join(map(str, missing)))
        return 1
    return 0


def cmd_verify(args: argparse.Namespace) -> int:
    if args.record:
        only = [n.strip() for n in args.only.split(",") if n.strip()] if args.only else None
        for p in verify.record(args.profile, only):
            print(f"recorded {p.relative_to(paths.root())}")
        return 0
    checked, mismatches, missing = verify.verify(args.profile)
    skipped = sorted(sources.status().get("skipped", {}))
    if skipped:
        print(f"note: sources {', '.join(skipped)} were skipped; the reference outputs were recorded with "
              "every source available, so tables built from them are expected to differ")
    for m in mismatches[:50]:
        print(f"MISMATCH {m.table} row {m.row} [{m.column}]: expected {m.expected!r}, got {m.got!r}")
    for name in missing:
        print(f"MISSING  {name}: not regenerated (run `make all PROFILE={args.profile}`)")
    print(f"verify ({args.profile}): {len(checked)} tables checked, {len(mismatches)} mismatching cells, "
          f"{len(missing)} missing")
    return 1 if mismatches or missing else 0


def cmd_findings(args: argparse.Namespace) -> int:
    path, table = findings.write_joined(args.profile, args.seed)
    print(f"wrote {path} ({len(table)} findings)")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("report", help="render executed notebooks to HTML with an index page",
                       description=report.__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_run_options(p, profile=profile_from_env(), seed=False, jobs=False, progress=False)
    p.set_defaults(func=cmd_report)

    v = sub.add_parser("verify", help="compare regenerated tables with recorded reference outputs",
                       description=verify.__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_run_options(v, profile=profile_from_env(), seed=False, jobs=False, progress=False)
    v.add_argument("--record", action="store_true", help="record the current tables as the reference")
    v.add_argument("--only", default="", help="with --record: comma-separated table names to record")
    v.set_defaults(func=cmd_verify)

    f = sub.add_parser("findings", help="join the findings of notebooks 09-11 into tables/findings.csv",
                       description="Join tables/findings_<notebook>.csv (written by notebooks 09-11) into "
                                   "tables/findings.csv, checking columns and unique ids.")
    add_run_options(f, profile={"default": "full", "choices": ("full", "quick", "smoke")}, seed={"default": 20250101},
                    jobs=False, progress=False)
    f.set_defaults(func=cmd_findings)
