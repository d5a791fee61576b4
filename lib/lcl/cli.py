"""The ``lcl`` command line: one entry point, one sub-command group per module.

Each group lives next to the code it drives and exposes ``register(subparsers)``; the group
adds its parser and sets ``func`` (called with the parsed namespace, returning an exit code).
Add a new group by appending its module to ``COMMAND_MODULES``.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from . import __version__
from .errors import UserError

#: modules that provide ``register(subparsers)``; order = order in ``lcl --help``
COMMAND_MODULES: list[str] = [
    "lcl.sources",  # lcl data fetch|verify|status
    "lcl.loaders",  # lcl tasks
    "lcl.runner",  # lcl notebook
    "lcl.report",  # lcl report
    "lcl.verify",  # lcl verify
    "lcl.findings",  # lcl findings
    "lcl.inputs.cli",  # lcl inputs draft|sample|check|status
    "lcl.fuzz.cli",  # lcl fuzz pair|batch
    "lcl.cli_variants",  # lcl variants label|pool|clones
    "lcl.metrics.cli",  # lcl score, lcl codescore-train
    "lcl.trained_metric",  # lcl local-trained
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


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
