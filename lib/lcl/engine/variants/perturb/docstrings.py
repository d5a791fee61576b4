"""``reference_docstring``: the reference's docstrings copied verbatim into the candidate, as the
reference's own source text (study X2; see :mod:`lcl.engine.variants.perturb`). The splicing here is
shared with :mod:`.mutant_comments`, the SFD counterpart.
"""

from __future__ import annotations

import ast
import random
from collections.abc import Iterable
from dataclasses import dataclass

from ..rewrite.astutil import FUNC
from .source_text import (
    Owner,
    char_col,
    checked_source,
    first_line,
    indent_of,
    newline_of,
    parse_checked_source,
    split_lines,
)


def docstring_expr(node: ast.AST) -> ast.Expr | None:
    body = getattr(node, "body", None)
    if isinstance(body, list) and body and isinstance(body[0], ast.Expr) \
            and isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str):
        return body[0]
    return None


def _doc_value(doc: ast.Expr) -> str:
    value = doc.value
    assert isinstance(value, ast.Constant) and isinstance(value.value, str)  # _docstring_expr checked it
    return value.value


def qualified_functions(tree: ast.AST) -> dict[str, ast.FunctionDef | ast.AsyncFunctionDef]:
    """Functions by qualified name (``Cls.method``, ``outer.inner``), first definition wins,
    in document order."""
    out: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = {}

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (*FUNC, ast.ClassDef)):
                qual = prefix + child.name
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    out.setdefault(qual, child)
                visit(child, qual + ".")
            else:
                visit(child, prefix)

    visit(tree, "")
    return out


def _docstring_pairs(target: ast.Module, donor: ast.Module) -> list[tuple[Owner, ast.Expr]]:
    """(target owner, donor docstring) pairs: the module, same-named functions, or, when no
    function name matches, the first function of each."""
    pairs: list[tuple[Owner, ast.Expr]] = []
    doc = docstring_expr(donor)
    if doc is not None:
        pairs.append((target, doc))
    tf, df = qualified_functions(target), qualified_functions(donor)
    common = [q for q in tf if q in df]
    matches = [(tf[q], df[q]) for q in common] if common else \
        [(next(iter(tf.values())), next(iter(df.values())))] if tf and df else []
    for owner, donor_fn in matches:
        doc = docstring_expr(donor_fn)
        if doc is not None:
            pairs.append((owner, doc))
    return pairs


def _literal_text(donor_src: str, doc: ast.Expr) -> str:
    """The donor docstring's own source text when it stands alone as an expression with the
    same value (wrapped in parentheses for an implicit concatenation over lines), else its
    ``ast.unparse`` form (same value, other quoting)."""
    value = _doc_value(doc)
    seg = ast.get_source_segment(donor_src, doc.value)
    for text in ((seg, f"({seg})") if seg else ()):
        try:
            if ast.literal_eval(text) == value:
                return text
        except (SyntaxError, ValueError):
            continue
    return ast.unparse(doc.value)


@dataclass(frozen=True)
class _Edit:
    start: int  # absolute character offsets into the text
    end: int
    text: str


def _offset(starts: list[int], lines: list[str], lineno: int, byte_col: int) -> int:
    return starts[lineno - 1] + char_col(lines[lineno - 1], byte_col)


def _docstring_edit(owner: Owner, text: str, src: str, lines: list[str], starts: list[int]) -> _Edit:
    nl = newline_of(lines)
    own = docstring_expr(owner)
    if own is not None:
        v = own.value
        return _Edit(_offset(starts, lines, v.lineno, v.col_offset),
                     _offset(starts, lines, v.end_lineno or v.lineno, v.end_col_offset or 0), text)
    if not owner.body:  # an empty module
        pad = "" if not src or src.endswith(("\n", "\r")) else nl
        return _Edit(len(src), len(src), pad + text + nl)
    first = owner.body[0]
    row = first_line(first)
    line = lines[row - 1]
    col = char_col(line, first.col_offset) if row == first.lineno else len(indent_of(line))
    if line[:col].strip():  # ``def f(): return x``: the body shares the header's line
        at = starts[row - 1] + col
        return _Edit(at, at, f"{text}; ")
    return _Edit(starts[row - 1], starts[row - 1], indent_of(line) + text + nl)


def _apply_edits(src: str, edits: Iterable[_Edit]) -> str:
    for e in sorted(edits, key=lambda e: (e.start, e.end), reverse=True):
        src = src[:e.start] + e.text + src[e.end:]
    return src


def _docstrings_match(text: str, donor: ast.Module) -> bool:
    tree = parse_checked_source(text)
    if tree is None:
        return False
    for owner, doc in _docstring_pairs(tree, donor):
        own = docstring_expr(owner)
        if own is None or _doc_value(own) != _doc_value(doc):
            return False
    return True


def splice_docstrings(target_src: str, donor_src: str) -> str:
    """``target_src`` carrying ``donor_src``'s docstrings (see :func:`reference_docstring`);
    unchanged when the donor has none or either side does not parse."""
    target, donor = parse_checked_source(target_src), parse_checked_source(donor_src)
    if target is None or donor is None:
        return target_src
    pairs = _docstring_pairs(target, donor)
    if not pairs:
        return target_src
    lines = split_lines(target_src)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))
    edits = [_docstring_edit(owner, _literal_text(donor_src, doc), target_src, lines, starts)
             for owner, doc in pairs]
    out = _apply_edits(target_src, edits)
    if _docstrings_match(out, donor):
        return out
    for owner, doc in pairs:  # the text edit failed its check: set the values on the AST
        new = ast.Expr(ast.Constant(_doc_value(doc)))
        if docstring_expr(owner) is not None:
            owner.body[0] = new
        else:
            owner.body.insert(0, new)
    return ast.unparse(ast.fix_missing_locations(target))


def _reads_doc(tree: ast.AST) -> bool:
    return any((isinstance(n, ast.Attribute) and n.attr == "__doc__") or (isinstance(n, ast.Name) and n.id == "__doc__")
               for n in ast.walk(tree))


@checked_source
def reference_docstring(candidate: str, reference: str, rng: random.Random) -> str | None:
    """The reference's docstrings, verbatim, in place of the candidate's (see
    :mod:`lcl.engine.variants.perturb`). Deterministic: ``rng`` is unused."""
    tree = parse_checked_source(candidate)
    if tree is None or _reads_doc(tree):
        return None
    return splice_docstrings(candidate, reference)
