"""SurfaceSim (Eq. 1 of the paper): how alike two programs *look*, in [0, 1].

    SurfaceSim(c1, c2) = (Sim_Edit(c1, c2) + Sim_AST(c1, c2)) / 2

Two modes (see docs/METRICS.md for the full definitions and the agreement numbers):

``paper``
    What the LoCaL authors' released numbers compute, reverse-engineered from their
    per-pair values (``author_scores.surfaceSim`` of the published pairs; this module
    reproduces all 558 of them to floating-point precision):

    * Sim_Edit = 1 - Levenshtein(norm(c1), norm(c2)) / max(len(c1), len(c2)), where the
      denominator uses the *raw* texts and ``norm`` is the token text with comments and all
      inter-token whitespace removed, one ``\\n`` per logical or bracketed line break (blank
      lines dropped, ``\\r\\n`` read as ``\\n``), and runs of spaces/tabs inside a token
      (string literals) collapsed to one space.
    * Sim_AST = Jaccard overlap of the *sets* of AST node-type names, as Python 3.8 names
      them (3.8 wraps subscripts in ``Index`` / ``ExtSlice``, which 3.9+ no longer emit; we
      add them back). 0 when either side does not parse.

``tree``
    A principled variant: Sim_Edit = 1 - Levenshtein / max of the *normalised* lengths, and
    Sim_AST = 1 - TED / max(|T1|, |T2|) (clipped at 0; the TSED normalisation of Song et al.,
    ACL 2024) with TED the APTED tree edit distance between the ASTs (node-type labels, unit
    costs, expression contexts Load/Store/Del dropped). APTED costs ~0.1-0.5 s per pair of
    100-500 node trees, so :func:`surface_sim_many` caches and uses a process pool.

Java (ShareCode) is an extension of ours, not the authors': the edit part normalises Pygments
tokens the same way, and the AST part uses tree-sitter-java named node types.
"""

from __future__ import annotations

import ast
import functools
import importlib
import io
import os
import re
import sys
import tokenize
import warnings
from collections.abc import Sequence
from typing import TYPE_CHECKING, Literal

from rapidfuzz.distance import Levenshtein

from .process_pools import shared_pool

if TYPE_CHECKING:
    from multiprocessing.pool import Pool

Mode = Literal["paper", "tree"]
MODES: tuple[str, ...] = ("paper", "tree")

#: bump when a definition changes (part of every score-cache key)
VERSION = "2"  # 2: Python 3.8's parenthesised starred argument parses (it scored Sim_AST 0)

_SPACES = re.compile(r"[ \t\f]+")
_NEWLINES = re.compile(r"\n+")


class SimilarityWarning(UserWarning):
    """An input could not be handled normally (empty, untokenisable, unparsable)."""


def _warn(msg: str) -> None:
    warnings.warn(msg, SimilarityWarning, stacklevel=3)


# --------------------------------------------------------------------------- text part
def normalise_text(code: str, lang: str = "python") -> str:
    """Comment-free, whitespace-normalised token text used by Sim_Edit (both modes)."""
    if lang == "java":
        return _normalise_pygments(code, "java")
    code = code.replace("\r\n", "\n").replace("\r", "\n")
    out: list[str] = []
    try:
        for tok in tokenize.generate_tokens(io.StringIO(code).readline):
            if tok.type in (tokenize.NEWLINE, tokenize.NL):
                out.append("\n")
            elif tok.type in (tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER):
                continue
            else:
                out.append(_SPACES.sub(" ", tok.string))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        # not tokenisable (unbalanced brackets, bad dedent): same rule via Pygments' lexer
        return _normalise_pygments(code, "python")
    return _NEWLINES.sub("\n", "".join(out)).strip("\n")


@functools.lru_cache(maxsize=4)
def _lexer(lang: str):  # noqa: ANN202
    from pygments.lexers import JavaLexer, PythonLexer

    return JavaLexer() if lang == "java" else PythonLexer()


def _normalise_pygments(code: str, lang: str) -> str:
    from pygments import lex
    from pygments.token import Comment

    code = code.replace("\r\n", "\n").replace("\r", "\n")
    out: list[str] = []
    for ttype, value in lex(code, _lexer(lang)):
        if ttype in Comment or not value.strip():
            if "\n" in value and ttype not in Comment.Multiline:
                out.append("\n")
            continue
        out.append(_SPACES.sub(" ", value))
    return _NEWLINES.sub("\n", "".join(out)).strip("\n")


def _lev_sim(a: str, b: str, denom: int) -> float:
    if denom == 0:
        return 1.0
    return max(0.0, 1.0 - Levenshtein.distance(a, b) / denom)


def sim_edit(c1: str, c2: str, mode: Mode = "paper", lang: str = "python") -> float:
    n1, n2 = normalise_text(c1, lang), normalise_text(c2, lang)
    denom = max(len(c1), len(c2)) if mode == "paper" else max(len(n1), len(n2))
    return _lev_sim(n1, n2, denom)


# ---------------------------------------------------------------------------- AST part
def _parse(code: str) -> ast.AST | None:
    """The module's AST as Python 3.8 reads it (the authors' interpreter: their package pins 3.8),
    ``None`` when it does not parse. 3.8's grammar accepts one form 3.9+ rejects, a parenthesised
    lone starred argument (``print((*ans))``, read as ``print(*ans)``; 17 of PIE's 1,000 pairs):
    :func:`_py38_source` drops those parentheses before a second try."""
    code = code.replace("\r\n", "\n")
    tree = _try_parse(code)
    if tree is None and (fixed := _py38_source(code)) is not None:
        tree = _try_parse(fixed)
    return tree


def _try_parse(code: str) -> ast.AST | None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SyntaxWarning)
            return ast.parse(code)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None


def _py38_source(code: str) -> str | None:
    """``code`` with the parentheses around each lone starred call argument removed (``f((*a))`` ->
    ``f(*a)``, what Python 3.8's parser made of it); ``None`` when there is none or it does not tokenize."""
    try:
        toks = [t for t in tokenize.generate_tokens(io.StringIO(code).readline)
                if t.type not in (tokenize.NL, tokenize.COMMENT)]
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return None
    drop: list[tuple[int, int]] = []
    for i, t in enumerate(toks[1:-1], start=1):
        if t.string == "(" and toks[i + 1].string == "*" and toks[i - 1].string in ("(", ","):
            j = _closing(toks, i)
            if j is not None and j + 1 < len(toks) and toks[j + 1].string in (")", ","):
                drop += [t.start, toks[j].start]
    if not drop:
        return None
    lines = code.splitlines(keepends=True)
    for row, col in sorted(drop, reverse=True):  # right to left: earlier columns stay valid
        lines[row - 1] = lines[row - 1][:col] + lines[row - 1][col + 1:]
    return "".join(lines)


def _closing(toks: list[tokenize.TokenInfo], i: int) -> int | None:
    """Index of the ``)`` closing ``toks[i]``; ``None`` when a top-level comma comes first (a tuple)."""
    depth = 0
    for j in range(i, len(toks)):
        s = toks[j].string
        if s in "([{" and toks[j].type == tokenize.OP:
            depth += 1
        elif s in ")]}" and toks[j].type == tokenize.OP:
            depth -= 1
            if depth == 0:
                return j
        elif s == "," and depth == 1:
            return None
    return None


def py38_node_types(code: str) -> set[str] | None:
    """The set of AST node-type names Python 3.8's ``ast`` would produce; ``None`` if unparsable.

    3.8 differs from 3.9+ only around subscripts: ``x[i]`` and ``x[i, j]`` wrap the slice in
    ``Index``; a tuple slice that contains a ``Slice`` becomes ``ExtSlice(dims=[...])`` whose
    non-slice dims are ``Index`` nodes and which has no ``Tuple`` node. Literals are
    ``Constant`` in 3.8 already (``Num``/``Str``/``NameConstant`` were only produced up to
    3.7); checked empirically against the authors' values.
    """
    tree = _parse(code)
    if tree is None:
        return None
    names: set[str] = set()
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        names.add(type(node).__name__)
        if isinstance(node, ast.Subscript):
            stack.append(node.value)
            stack.append(node.ctx)
            sl = node.slice
            if isinstance(sl, ast.Slice):
                stack.append(sl)
            elif isinstance(sl, ast.Tuple) and any(isinstance(e, ast.Slice) for e in sl.elts):
                names.add("ExtSlice")
                for e in sl.elts:
                    if not isinstance(e, ast.Slice):
                        names.add("Index")
                    stack.append(e)
            else:
                names.add("Index")
                stack.append(sl)
            continue
        stack.extend(ast.iter_child_nodes(node))
    return names


@functools.lru_cache(maxsize=2)
def _ts_parser(lang: str):  # noqa: ANN202

    from tree_sitter import Language, Parser

    grammar = importlib.import_module("tree_sitter_java" if lang == "java" else "tree_sitter_python")
    return Parser(Language(grammar.language()))


def _ts_tree(code: str, lang: str):  # noqa: ANN202
    tree = _ts_parser(lang).parse(code.encode("utf-8"))
    return None if tree.root_node.has_error else tree.root_node


def java_node_types(code: str) -> set[str] | None:
    root = _ts_tree(code, "java")
    if root is None:
        return None
    names: set[str] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        names.add(node.type)
        stack.extend(node.named_children)
    return names


def node_types(code: str, lang: str = "python") -> set[str] | None:
    return java_node_types(code) if lang == "java" else py38_node_types(code)


def _jaccard(a: set[str] | None, b: set[str] | None) -> float:
    if a is None or b is None:
        return 0.0
    union = a | b
    return len(a & b) / len(union) if union else 1.0


class _Node:
    __slots__ = ("children", "name")

    def __init__(self, name: str, children: list[_Node]):
        self.name = name
        self.children = children


def _py_tree(code: str) -> _Node | None:
    tree = _parse(code)
    if tree is None:
        return None

    def conv(node: ast.AST) -> _Node:
        kids = [conv(c) for c in ast.iter_child_nodes(node) if not isinstance(c, ast.expr_context)]
        return _Node(type(node).__name__, kids)

    return conv(tree)


def _java_tree(code: str) -> _Node | None:
    root = _ts_tree(code, "java")
    if root is None:
        return None

    def conv(node) -> _Node:  # noqa: ANN001
        return _Node(node.type, [conv(c) for c in node.named_children])

    return conv(root)


def _size(node: _Node) -> int:
    return 1 + sum(_size(c) for c in node.children)


def tree_edit_distance(c1: str, c2: str, lang: str = "python") -> tuple[int, int, int] | None:
    """(APTED distance, |T1|, |T2|) between the two ASTs; ``None`` if either does not parse."""
    from apted import APTED, Config

    conv = _java_tree if lang == "java" else _py_tree
    t1, t2 = conv(c1), conv(c2)
    if t1 is None or t2 is None:
        return None

    class _Cfg(Config):
        def rename(self, a: _Node, b: _Node) -> int:
            return 0 if a.name == b.name else 1

        def children(self, node: _Node) -> list[_Node]:
            return node.children

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 20000))
    try:
        dist = APTED(t1, t2, _Cfg()).compute_edit_distance()
    finally:
        sys.setrecursionlimit(limit)
    return int(dist), _size(t1), _size(t2)


def sim_ast(c1: str, c2: str, mode: Mode = "paper", lang: str = "python") -> float:
    if mode == "paper":
        return _jaccard(node_types(c1, lang), node_types(c2, lang))
    ted = tree_edit_distance(c1, c2, lang)
    if ted is None:
        return 0.0
    dist, n1, n2 = ted
    return max(0.0, 1.0 - dist / max(n1, n2))


# -------------------------------------------------------------------------- SurfaceSim
def surface_sim(c1: str, c2: str, mode: Mode = "paper", lang: str = "python") -> float:
    """Eq. 1: mean of Sim_Edit and Sim_AST. Warns (never raises) on empty/unparsable code."""
    if mode not in MODES:
        raise ValueError(f"unknown SurfaceSim mode {mode!r}; use one of {MODES}")
    for which, code in (("reference", c1), ("candidate", c2)):
        if not code.strip():
            _warn(f"SurfaceSim: empty {which}; Sim_AST uses its empty AST")
        elif node_types(code, lang) is None:
            _warn(f"SurfaceSim: {which} does not parse as {lang}; Sim_AST = 0")
    return 0.5 * (sim_edit(c1, c2, mode, lang) + sim_ast(c1, c2, mode, lang))


def _one(args: tuple[str, str, str, str]) -> float:
    c1, c2, mode, lang = args
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SimilarityWarning)
        return surface_sim(c1, c2, mode, lang)  # type: ignore[arg-type]


def surface_sim_many(
    refs: Sequence[str],
    cands: Sequence[str],
    mode: Mode = "paper",
    lang: str = "python",
    workers: int | None = None,
    warn: bool = True,
) -> list[float]:
    """SurfaceSim of many pairs; ``tree`` mode fans out over a process pool (``workers``)."""
    jobs = [(r, c, mode, lang) for r, c in zip(refs, cands, strict=True)]
    for r, c in zip(refs, cands, strict=True) if warn else ():  # warnings in the parent
        for which, code in (("reference", r), ("candidate", c)):
            if not code.strip():
                _warn(f"SurfaceSim: empty {which}; Sim_AST uses its empty AST")
            elif node_types(code, lang) is None:
                _warn(f"SurfaceSim: {which} does not parse as {lang}; Sim_AST = 0")
    if workers is None:
        workers = min(len(os.sched_getaffinity(0)), 8) if mode == "tree" else 1
    if workers <= 1 or len(jobs) < 4:
        return [_one(j) for j in jobs]
    pool = _get_pool(workers)
    return list(pool.map(_one, jobs, chunksize=max(1, len(jobs) // (workers * 8))))


def _get_pool(workers: int) -> Pool:
    return shared_pool("surface_sim_tree", workers)
