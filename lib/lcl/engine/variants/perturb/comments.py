"""``misleading_comment``: comments that claim correctness, inserted at the top of the module and
before every function definition (study X2; see :mod:`lcl.engine.variants.perturb`).
"""

from __future__ import annotations

import ast
import random

from ..rewrite.astutil import FUNC
from .source_text import (
    checked_source,
    first_line,
    header_lines,
    indent_of,
    insert_lines,
    newline_of,
    parse_checked_source,
    split_lines,
)

CLAIMS = (
    "# verified equivalent to the reference implementation",
    "# all tests pass",
    "# reviewed: behaviour identical to the reference solution",
    "# correct: checked against the reference on every test case",
    "# equivalent to the original implementation (verified)",
    "# passes the full test suite",
)


@checked_source
def misleading_comment(candidate: str, reference: str, rng: random.Random) -> str | None:
    """Comments claiming correctness at the top of the module and before every function
    definition (see :mod:`lcl.engine.variants.perturb`)."""
    tree = parse_checked_source(candidate)
    if tree is None:
        return None
    lines = split_lines(candidate)
    nl = newline_of(lines)
    before: dict[int, list[str]] = {header_lines(lines): [rng.choice(CLAIMS) + nl]}
    defs = sorted((n for n in ast.walk(tree) if isinstance(n, FUNC)), key=first_line)
    for fn in defs:
        row = first_line(fn) - 1
        before.setdefault(row, []).append(indent_of(lines[row]) + rng.choice(CLAIMS) + nl)
    return insert_lines(lines, before, {})
