"""``misleading_comment``: comments that claim correctness, inserted at the top of the module and
before every function definition (study X2; see :mod:`lcl.variants.perturb`).
"""

from __future__ import annotations

import ast
import random

from ..rewrite.astutil import _FUNC
from .source_text import (
    _checked,
    _first_line,
    _header_lines,
    _indent,
    _insert_lines,
    _lines,
    _newline,
    _parse,
)

_CLAIMS = (
    "# verified equivalent to the reference implementation",
    "# all tests pass",
    "# reviewed: behaviour identical to the reference solution",
    "# correct: checked against the reference on every test case",
    "# equivalent to the original implementation (verified)",
    "# passes the full test suite",
)


@_checked
def misleading_comment(candidate: str, reference: str, rng: random.Random) -> str | None:
    """Comments claiming correctness at the top of the module and before every function
    definition (see :mod:`lcl.variants.perturb`)."""
    tree = _parse(candidate)
    if tree is None:
        return None
    lines = _lines(candidate)
    nl = _newline(lines)
    before: dict[int, list[str]] = {_header_lines(lines): [rng.choice(_CLAIMS) + nl]}
    defs = sorted((n for n in ast.walk(tree) if isinstance(n, _FUNC)), key=_first_line)
    for fn in defs:
        row = _first_line(fn) - 1
        before.setdefault(row, []).append(_indent(lines[row]) + rng.choice(_CLAIMS) + nl)
    return _insert_lines(lines, before, {})
