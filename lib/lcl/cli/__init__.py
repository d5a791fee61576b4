"""The ``lcl`` command line: :func:`main` (the console script) and :func:`build_parser`.

One module of this package per command group, each exposing ``register(subparsers)``, which
adds the group's parser and sets ``func`` (called with the parsed namespace, returning an exit
code): :mod:`.data` (``lcl data``), :mod:`.tasks`, :mod:`.notebook`, :mod:`.outputs` (``lcl
report``, ``verify``, ``findings``), :mod:`.inputs`, :mod:`.fuzz`, :mod:`.variants` and
:mod:`.metrics` (``lcl score``, ``codescore-train``, ``codescore-base``, ``local-trained``) and
:mod:`.evaluate` (``lcl evaluate``, a metric's report card);
:mod:`.common` holds the options several groups share (``--profile``, ``--seed``, ``--jobs``,
``--no-progress``). Add a new group by appending its module to ``COMMAND_MODULES``.

The modules parse arguments and print; the work is done by the library modules they call.
Naming: the function that runs a command is ``cmd_`` followed by the command's words, with
``-`` as ``_`` (``lcl fuzz pair``: ``cmd_fuzz_pair``; ``lcl codescore-train``:
``cmd_codescore_train``).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from lcl import __version__
from lcl.core.errors import UserError

#: modules that provide ``register(subparsers)``; order = order in ``lcl --help``
COMMAND_MODULES: list[str] = [
    "lcl.cli.data",  # lcl data fetch|status|digest
    "lcl.cli.tasks",  # lcl tasks
    "lcl.cli.notebook",  # lcl notebook run|list
    "lcl.cli.outputs",  # lcl report, lcl verify, lcl findings
    "lcl.cli.inputs",  # lcl inputs draft|sample|check|status|agreement
    "lcl.cli.fuzz",  # lcl fuzz pair|batch|archive
    "lcl.cli.variants",  # lcl variants label|pool|clones
    "lcl.cli.metrics",  # lcl score, codescore-train, codescore-base, local-trained
    "lcl.cli.evaluate",  # lcl evaluate
]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="lcl",
        description="LoCaL compendium: rebuild the 'Looks Can Lie' benchmark and reproduce the paper.",
        epilog="Run 'lcl COMMAND --help' for the options of each command. See README.md for the workflow.",
    )
    parser.add_argument("--version", action="version", version=f"lcl {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except UserError as exc:
        print(f"lcl {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # e.g. `lcl tasks | head`
        return 0
    except KeyboardInterrupt:
        print(f"lcl {args.command}: interrupted; finished results are kept, rerun to resume", file=sys.stderr)
        return 130

