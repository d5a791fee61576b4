"""The SFD counterpart of the prose perturbations (study X2): :func:`mutant_with_reference_comments`
gives a mutant the reference's docstrings (via the AST, as ``reference_docstring`` does) and its
comments (via :mod:`tokenize`), verbatim.
"""

from __future__ import annotations

import ast
import io
import tokenize
from dataclasses import dataclass

from lcl.core.errors import UserError

from ..rewrite.astutil import FUNC
from .docstrings import qualified_functions, splice_docstrings
from .source_text import (
    CODING,
    first_line,
    header_lines,
    indent_of,
    insert_lines,
    newline_of,
    parse_checked_source,
    split_lines,
)


@dataclass(frozen=True)
class _Comment:
    row: int
    text: str
    full_line: bool  # alone on its line (else it trails code)


def _comments(src: str) -> list[_Comment]:
    """The comments of ``src``, without a shebang or an encoding declaration (they speak about
    the file, not the code)."""
    out: list[_Comment] = []
    try:
        for tok in tokenize.generate_tokens(io.StringIO(src).readline):
            if tok.type != tokenize.COMMENT:
                continue
            row, col = tok.start
            if (row == 1 and tok.string.startswith("#!")) or (row <= 2 and CODING.match(tok.line)):
                continue
            out.append(_Comment(row, tok.string, not tok.line[:col].strip()))
    except (tokenize.TokenError, SyntaxError):
        return []
    return out


_Path = tuple[tuple[str, int], ...]


def _stmt_paths(tree: ast.AST) -> dict[_Path, ast.stmt]:
    """Each statement by its position: the chain of (field, index) from the module."""
    out: dict[_Path, ast.stmt] = {}

    def visit(node: ast.AST, path: _Path) -> None:
        for fld in ("body", "orelse", "finalbody", "handlers", "cases"):
            val = getattr(node, fld, None)
            if not isinstance(val, list):
                continue
            for i, child in enumerate(val):
                p = (*path, (fld, i))
                if isinstance(child, ast.stmt):
                    out[p] = child
                visit(child, p)

    visit(tree, ())
    return out


def _compound(st: ast.stmt) -> bool:
    return isinstance(getattr(st, "body", None), list) or isinstance(st, ast.Match)


def _one_line_header(st: ast.stmt) -> bool:
    """A compound statement whose header is exactly its first line (a comment can trail it)."""
    body = getattr(st, "body", None)
    return isinstance(body, list) and bool(body) and body[0].lineno == st.lineno + 1


def _anchor(c: _Comment, paths: dict[_Path, ast.stmt]) -> tuple[_Path | None, str]:
    """Where a reference comment sits: ("trail", the simple statement or compound header on its
    line), ("before", the simple statement around it or the next statement), or (None, "end")."""
    containing = [p for p, st in paths.items() if st.lineno <= c.row <= (st.end_lineno or st.lineno)]
    inner = max(containing, key=len) if containing else None
    if not c.full_line and inner is not None and (not _compound(paths[inner]) or paths[inner].lineno == c.row):
        return inner, "trail"
    # an ``else:``/``except:``/``finally:`` line's comment goes above that branch's first statement
    if inner is not None and not _compound(paths[inner]):
        return inner, "before"
    following = [p for p, st in paths.items() if first_line(st) > c.row]
    if following:
        return min(following, key=lambda p: (first_line(paths[p]), len(p))), "before"
    return None, "end"


def _enclosing_function(path: _Path, paths: dict[_Path, ast.stmt], qual: dict[int, str]) -> str | None:
    for n in range(len(path) - 1, 0, -1):
        st = paths.get(path[:n])
        if st is not None and isinstance(st, FUNC):
            return qual.get(id(st))
    return None


def _place_comments(text: str, ref_tree: ast.Module, comments: list[_Comment]) -> str:
    tree = parse_checked_source(text)
    if tree is None or not comments:
        return text
    lines = split_lines(text)
    nl = newline_of(lines)
    ref_paths, mut_paths = _stmt_paths(ref_tree), _stmt_paths(tree)
    ref_qual = {id(fn): q for q, fn in qualified_functions(ref_tree).items()}
    mut_functions = qualified_functions(tree)
    before: dict[int, list[str]] = {}
    after: dict[int, list[str]] = {}

    def put_before(st: ast.stmt, comment: str) -> None:
        row = first_line(st) - 1
        before.setdefault(row, []).append(indent_of(lines[row]) + comment + nl)

    for c in comments:
        path, mode = _anchor(c, ref_paths)
        if path is None:
            before.setdefault(len(lines), []).append(c.text + nl)
            continue
        ref_st, mut_st = ref_paths[path], mut_paths.get(path)
        if mut_st is not None and type(mut_st) is type(ref_st):
            if mode == "trail" and not _compound(mut_st):
                after.setdefault((mut_st.end_lineno or mut_st.lineno) - 1, []).append(c.text)
            elif mode == "trail" and _one_line_header(mut_st):
                after.setdefault(mut_st.lineno - 1, []).append(c.text)
            else:
                put_before(mut_st, c.text)
            continue
        fn = mut_functions.get(_enclosing_function(path, ref_paths, ref_qual) or "")
        if fn is not None and fn.body:  # unaligned: the top of the enclosing function
            put_before(fn.body[0], c.text)
        else:
            before.setdefault(header_lines(lines), []).append(c.text + nl)
    return insert_lines(lines, before, after)


def mutant_with_reference_comments(mutant_source: str, reference_source: str) -> str:
    """The mutant carrying the reference's docstrings and comments verbatim: the SFD
    counterpart of :func:`reference_docstring` and :func:`misleading_comment` (study X2).

    Docstrings go by the AST, as in :func:`reference_docstring`. Comments are read from the
    reference with :mod:`tokenize`. A comment that trails code or precedes a statement is
    placed at the mutant's statement at the same position in the tree, when one of the same
    kind is there. Otherwise it goes at the top of the enclosing function, or at the top of the
    module. The result differs from the mutant only in docstrings and comments; if placing the
    comments would change anything else, only the docstrings are carried.
    """
    ref_tree, mut_tree = parse_checked_source(reference_source), parse_checked_source(mutant_source)
    if ref_tree is None or mut_tree is None:
        raise UserError("mutant_with_reference_comments: the mutant and the reference must both parse")
    text = splice_docstrings(mutant_source, reference_source)
    out = _place_comments(text, ref_tree, _comments(reference_source))
    placed, spliced = parse_checked_source(out), parse_checked_source(text)
    if placed is None or spliced is None or ast.dump(placed) != ast.dump(spliced):
        return text
    return out
