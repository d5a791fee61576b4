"""Source-text helpers shared by the perturbations (:mod:`lcl.engine.variants.perturb`): parsing that
silences the candidate's own warnings, physical lines as the tokenizer counts them, line
insertion, and :func:`_checked`, the contract every registered perturbation keeps (``None``
unless the candidate parses and the output compiles and differs from it).
"""

from __future__ import annotations

import ast
import functools
import random
import re
import warnings
from collections.abc import Callable, Mapping

Perturbation = Callable[[str, str, random.Random], "str | None"]
Owner = ast.Module | ast.FunctionDef | ast.AsyncFunctionDef


# ----------------------------------------------------------------------------- source text

CODING = re.compile(r"^[ \t\f]*#.*?coding[:=][ \t]*[-\w.]+")
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


def parse_checked_source(src: str) -> ast.Module | None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SyntaxWarning)  # the candidate's own dubious literals
            return ast.parse(src)
    except (SyntaxError, ValueError):
        return None


def _compiles(src: str) -> bool:
    """Stricter than parsing: also the symbol-table checks (``nonlocal`` targets, ``global``
    after use, ...). Compiling runs nothing."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SyntaxWarning)
            compile(src, "<perturbed>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError):
        return False
    return True


def split_lines(src: str) -> list[str]:
    """Physical lines with their endings, split as the tokenizer counts them (``\\f`` and the
    other characters :meth:`str.splitlines` also splits on are not line breaks in Python)."""
    return _LINE.findall(src)


def newline_of(lines: list[str]) -> str:
    for line in lines:
        for end in ("\r\n", "\n", "\r"):
            if line.endswith(end):
                return end
    return "\n"


def header_lines(lines: list[str]) -> int:
    """How many leading lines must stay first: a shebang and/or an encoding declaration."""
    n = 0
    for i, line in enumerate(lines[:2]):
        if (i == 0 and line.startswith("#!")) or CODING.match(line):
            n = i + 1
        else:
            break
    return n


def indent_of(line: str) -> str:
    return line[:len(line) - len(line.lstrip(" \t\f"))]


def char_col(line: str, byte_col: int) -> int:
    """AST column offsets count UTF-8 bytes; string slicing counts characters."""
    return len(line.encode("utf-8")[:byte_col].decode("utf-8"))


def first_line(st: ast.stmt) -> int:
    """First line of a statement, decorators included (1-based)."""
    decorators = getattr(st, "decorator_list", [])
    return min([st.lineno, *(d.lineno for d in decorators)])


def insert_lines(lines: list[str], before: Mapping[int, list[str]], after: Mapping[int, list[str]]) -> str:
    """Insert whole lines ``before[i]`` ahead of line ``i`` (0-based; ``len(lines)`` appends) and
    append ``after[i]`` (comment texts) at the end of line ``i``."""
    nl = newline_of(lines)
    out: list[str] = []
    for i in range(len(lines) + 1):
        out.extend(before.get(i, []))
        if i == len(lines):
            break
        line = lines[i]
        if i in after:
            body = line.rstrip("\r\n")
            line = body + "".join(f"  {c}" for c in after[i]) + line[len(body):]
        if i == len(lines) - 1 and (i + 1) in before and not line.endswith(("\n", "\r")):
            line += nl
        out.append(line)
    return "".join(out)


def checked_source(fn: Callable[[str, str, random.Random], str | None]) -> Perturbation:
    """The contract every registered perturbation keeps: ``None`` unless the candidate parses
    and the output compiles and differs from it."""

    @functools.wraps(fn)
    def run(candidate: str, reference: str, rng: random.Random) -> str | None:
        if parse_checked_source(candidate) is None:
            return None
        try:
            out = fn(candidate, reference, rng)
        except RecursionError:  # a pathologically deep tree: leave the pair alone
            return None
        if out is None or out == candidate or not _compiles(out):
            return None
        return out

    return run
