"""The options that several command groups share: ``--profile``, ``--seed``, ``--jobs`` and
``--no-progress`` (:func:`add_run_options`), and the profile they name (:func:`profile_of`).

The commands that run a notebook's stage outside Jupyter take all four with the notebooks'
defaults (:data:`STAGE`); the other commands take some of them with defaults and help texts of
their own, which each passes to :func:`add_run_options` so that its ``--help`` stays as it was.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence
from typing import TypedDict

from lcl.core.errors import UserError
from lcl.core.profiles import DEFAULT_SEED, PROFILES, Profile, get

#: ``add_run_options(..., name=STAGE)``: the option as a notebook's stage takes it
STAGE = True


class ArgumentOptions(TypedDict, total=False):
    """``add_argument`` keywords that a command's own variant of an option may set."""

    default: str | int | None
    help: str
    choices: Sequence[str]


#: an option spec: :data:`STAGE`, ``False`` (omit the option) or the ``add_argument`` keywords
#: (``default``, ``help``, ``choices``) of a command's own variant of it
OptionSpec = bool | ArgumentOptions


def _stage_options() -> dict[str, ArgumentOptions]:
    return {
        "profile": {"default": "full", "help": f"{' | '.join(PROFILES)} (default: %(default)s)"},
        "seed": {"default": DEFAULT_SEED, "help": "base seed, as the notebooks' (default: %(default)s)"},
        "jobs": {"default": 2, "help": "pairs fuzzed at a time (default: %(default)s)"},
        "progress": {"help": "no progress bars"},
    }


def profile_from_env() -> ArgumentOptions:
    """``--profile`` of the commands that follow ``make``'s ``PROFILE`` (``$LCL_PROFILE``), read
    when the parser is built."""
    return {"default": os.environ.get("LCL_PROFILE", "full"), "choices": sorted(PROFILES)}


def add_run_options(parser: argparse._ActionsContainer, *, profile: OptionSpec = STAGE, seed: OptionSpec = STAGE,
                    jobs: OptionSpec = STAGE, progress: OptionSpec = STAGE) -> None:
    """Add ``--profile``, ``--seed`` (an int), ``--jobs`` (an int) and ``--no-progress`` (a flag),
    in this order, to ``parser`` (a parser or an argument group); each keyword says how (see
    :data:`OptionSpec`). Read the profile back with :func:`profile_of`."""
    stage = _stage_options()
    specs = {"profile": profile, "seed": seed, "jobs": jobs, "progress": progress}
    for name, spec in specs.items():
        if spec is False:
            continue
        kwargs = stage[name].copy() if spec is True else spec.copy()
        if name == "profile":
            parser.add_argument("--profile", **kwargs)
        elif name == "progress":
            parser.add_argument("--no-progress", action="store_true", **kwargs)
        else:
            parser.add_argument(f"--{name}", type=int, **kwargs)


def profile_of(args: argparse.Namespace) -> Profile:
    """The profile ``args.profile`` names; an unknown name is a :class:`~lcl.core.errors.UserError`."""
    try:
        return get(args.profile)
    except ValueError as exc:
        raise UserError(str(exc)) from None
