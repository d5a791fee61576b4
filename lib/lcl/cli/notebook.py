"""``lcl notebook run|list``: execute the numbered notebooks with papermill (:mod:`lcl.report.runner`)."""

from __future__ import annotations

import argparse
import os

from lcl.core import paths
from lcl.report import runner

from .common import add_run_options, profile_from_env


def cmd_notebook_run(args: argparse.Namespace) -> int:
    names = runner.available_notebooks() if args.name == ["all"] else args.name
    for name in names:
        out = runner.run(name, profile=args.profile, seed=args.seed, jobs=args.jobs, progress=not args.quiet)
        print(f"executed {name} -> {out.relative_to(paths.root()) if out.is_relative_to(paths.root()) else out}")
    return 0


def cmd_notebook_list(args: argparse.Namespace) -> int:
    print("\n".join(runner.available_notebooks()))
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("notebook", help="execute numbered notebooks with papermill",
                       description=runner.__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    nsub = p.add_subparsers(dest="nb_command", metavar="ACTION", required=True)
    r = nsub.add_parser("run", help="execute notebooks into build/notebooks/<profile>/")
    r.add_argument("name", nargs="+", help="notebook names such as 00_data, or 'all'")
    add_run_options(r, profile=profile_from_env(),
                    seed={"default": 20250101, "help": "base seed recorded in every output (default: %(default)s)"},
                    jobs={"default": int(os.environ.get("LCL_JOBS", "2")), "help": "parallel workers inside notebooks"},
                    progress=False)
    r.add_argument("--quiet", action="store_true", help="no progress bar")
    r.set_defaults(func=cmd_notebook_run)
    ls = nsub.add_parser("list", help="list the notebooks")
    ls.set_defaults(func=cmd_notebook_list)
