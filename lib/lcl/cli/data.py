"""``lcl data fetch|status|digest``: obtain and verify the raw sources (:mod:`lcl.study.sources`)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from lcl.core.cache import file_digest
from lcl.study import sources


def cmd_data_fetch(args: argparse.Namespace) -> int:
    report = sources.fetch_all(args.source or None, strict=args.strict)
    for name, method in sorted(report.available.items()):
        print(f"  ok       {name:<22} ({method})")
    for name, msg in sorted(report.skipped.items()):
        print(f"  skipped  {name:<22} {msg.splitlines()[0].split(': ', 1)[-1]}")
    if report.skipped:
        print(f"{len(report.skipped)} optional source(s) skipped: the benchmarks they hold are left out and "
              "every notebook and the report say so. Provide them via LOCAL_DATA_MIRROR (see data/sources.toml).")
    return 0


def cmd_data_status(args: argparse.Namespace) -> int:
    st = sources.status()
    print(json.dumps(st, indent=2) if args.json else
          "\n".join([f"available: {', '.join(sorted(st['available'])) or '-'}",
                     f"skipped:   {', '.join(sorted(st['skipped'])) or '-'}",
                     f"mirror:    {st.get('mirror')}"]))
    return 0


def cmd_data_digest(args: argparse.Namespace) -> int:
    for p in args.paths:
        path = Path(p)
        print(f"{sources.tree_digest(path) if path.is_dir() else file_digest(path)}  {p}")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("data", help="fetch and verify raw sources (data/sources.toml)",
                       description=sources.__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    dsub = p.add_subparsers(dest="data_command", metavar="ACTION", required=True)
    f = dsub.add_parser("fetch", help="obtain every source (registry, then mirror) and verify its sha256")
    f.add_argument("source", nargs="*", help="only these sources (default: all)")
    f.add_argument("--strict", action="store_true", help="fail when an optional source is missing")
    f.set_defaults(func=cmd_data_fetch)
    s = dsub.add_parser("status", help="which sources the last fetch made available or skipped")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_data_status)
    d = dsub.add_parser("digest", help="print the sha256 (or tree digest for a directory) of paths")
    d.add_argument("paths", nargs="+")
    d.set_defaults(func=cmd_data_digest)
