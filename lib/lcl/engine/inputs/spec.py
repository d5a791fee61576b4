"""Declarative input-constraint specs (paper Step II and
Figure 4): what a valid input of a task looks like, as reviewable data.

A spec is a small JSON document, one per task, under ``data/constraints/<benchmark>/``:

Function level (``level = "function"``): ``args`` is a list of *type nodes*, one per
positional argument, plus optional ``relations`` between arguments.

Program level (``level = "program"``): ``grammar`` is a list of *line nodes* producing the
stdin text.

Type nodes (``{"type": ..., ...}``):

- ``int``: ``min``, ``max`` (numbers, or names of earlier-bound ints / simple expressions
  such as ``"N-1"``); ``float``: ``min``, ``max``, ``digits`` (rounding, optional);
  ``bool``; ``none``; ``const``: ``value``; ``choice``: ``values``;
- ``str``: ``len`` ``[lo, hi]``, ``alphabet`` (a string of characters, or a list of tokens:
  the string is ``len`` draws from it, joined);
- ``list`` / ``tuple`` / ``set``: ``len`` ``[lo, hi]`` (or ``"N"``), ``elem`` (type node),
  ``sorted`` (``"asc"``/``"desc"``), ``distinct`` (bool);
- ``dict``: ``len``, ``key``, ``value``; ``fixed_tuple``: ``items`` (list of nodes);
- ``optional``: ``inner``, ``p_none`` (probability of ``None``);
- ``join``: ``items`` (a list/tuple node) rendered as a string, ``str(item)`` joined by ``sep``
  (default ``" "``): e.g. words separated by single spaces;
- any node may carry ``"bind": "NAME"`` (for ints and sized containers: the value or its
  length is bound to NAME for later nodes).

``lets`` (both levels): type nodes decoded *before* the arguments / grammar, only to bind
names (``{"type": "int", "min": 1, "max": 5, "bind": "W"}`` then every row ``"len": "W"``: a
matrix whose rows share one random width); their values are not part of the input.

Relations (function level): ``{"kind": "len_of", "arg": i, "of": j}`` (argument i equals
len(argument j)), ``{"kind": "index_in", "arg": i, "of": j}`` (0 <= arg i < len(arg j)),
``{"kind": "sum_max", "arg": i, "max": M}`` (sum of a numeric list at most M).

Line nodes (program level): ``{"tokens": [node, ...], "sep": " "}`` one line of tokens
(a token node may have ``"repeat": n|"NAME"`` to emit that many tokens), or
``{"repeat": n|"NAME", "lines": [...]}`` a block repeated (test cases, N rows). Ints bound
with ``bind`` size later repeats; ``"bind_count"`` on a block binds its repetition count (a
block with ``"lines": []`` prints nothing: ``{"repeat": "N-1", "lines": [], "bind_count": "M"}``
computes a hidden value, ``{"repeat": [lo, hi], ...}`` draws one). Tokens that render empty
(an empty list, ``repeat`` 0, a zero-length string) add no separator.

Fields ``verified`` (true only after a human-style review of the task's statement and
reference), ``origin`` (``inferred`` draft or ``reviewed``) and ``notes`` record review status.
``et_seeds`` (default true; written only when false): whether the extended tests' inputs
(MBPP-ET / HumanEval-ET) join the benchmark's own test inputs as seed inputs. A reviewed
``false`` keeps only the benchmark's own, e.g. when the ET inputs lie far outside the spec's
domain and make the reference alone exceed Algorithm 1's run budget (reason in ``notes``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Required, TypedDict

from lcl.core.errors import UserError

TYPE_NAMES = {"int", "float", "bool", "none", "const", "choice", "str", "list", "tuple", "set",
              "dict", "fixed_tuple", "optional", "join"}

#: a bound: a number, a name an earlier node bound (``"N"``) or a small expression (``"N-1"``)
Bound = int | float | str
#: a length or repeat count: a bound, or ``[lo, hi]`` bounds to draw it from
Size = int | str | list[Bound]


class TypeNode(TypedDict, total=False):
    """A type node (see the module docstring); which keys a node has depends on its ``type``."""

    type: Required[str]
    min: Bound  # int, float
    max: Bound
    digits: int  # float
    value: Any  # const: the value itself (any JSON value); dict: the values' type node
    values: list[Any]  # choice: the values (any JSON values; an inferred draft may hold others)
    len: Size  # str, list, tuple, set, dict
    alphabet: str | list[str]  # str: characters, or tokens
    elem: TypeNode  # list, tuple, set
    sorted: str | bool
    distinct: bool
    key: TypeNode  # dict
    items: list[TypeNode] | TypeNode  # fixed_tuple: one node per item; join: a list/tuple node
    inner: TypeNode  # optional
    p_none: float
    sep: str  # join
    bind: str  # any node: the name its value (int) or length (sized) is bound to
    repeat: Size  # a token of a line node: how many of it the line holds


class Relation(TypedDict, total=False):
    """A relation between function arguments: ``len_of``, ``index_in`` (``arg``, ``of``) or
    ``sum_max`` (``arg``, ``max``)."""

    kind: Required[str]
    arg: int
    of: int
    max: int | float


class LineNode(TypedDict, total=False):
    """A line node: one line of ``tokens`` (joined by ``sep``) or a block of ``lines`` repeated."""

    tokens: list[TypeNode]
    sep: str
    lines: list[LineNode]
    repeat: Size
    bind_count: str


class SpecDict(TypedDict, total=False):
    """A spec as its JSON file holds it (:meth:`Spec.to_dict`)."""

    task: Required[str]
    level: Required[str]
    verified: Required[bool]
    origin: Required[str]
    notes: Required[str]
    et_seeds: bool
    lets: list[TypeNode]
    entry_point: str | None  # function level
    args: list[TypeNode]
    relations: list[Relation]
    grammar: list[LineNode]  # program level


@dataclass
class Spec:
    task: str
    level: str  # "function" | "program"
    args: list[TypeNode] = field(default_factory=list)
    relations: list[Relation] = field(default_factory=list)
    grammar: list[LineNode] = field(default_factory=list)
    lets: list[TypeNode] = field(default_factory=list)
    entry_point: str | None = None
    verified: bool = False
    origin: str = "inferred"
    notes: str = ""
    #: whether the extended tests' inputs (MBPP-ET / HumanEval-ET) join the benchmark's own test
    #: inputs as seed inputs; a reviewed ``false`` (reason in ``notes``) keeps only the latter
    et_seeds: bool = True

    def to_dict(self) -> SpecDict:
        d: SpecDict = {"task": self.task, "level": self.level, "verified": self.verified,
                      "origin": self.origin, "notes": self.notes}
        if not self.et_seeds:  # written only when set, so every other spec (and its digest) is unchanged
            d["et_seeds"] = False
        if self.lets:
            d["lets"] = self.lets
        if self.level == "function":
            d.update({"entry_point": self.entry_point, "args": self.args, "relations": self.relations})
        else:
            d["grammar"] = self.grammar
        return d

    @classmethod
    def from_dict(cls, d: SpecDict) -> Spec:
        """The spec of a spec document (a decoded JSON file: checked by :func:`validate`)."""
        spec = cls(task=d["task"], level=d["level"], args=list(d.get("args", [])),
                   relations=list(d.get("relations", [])), grammar=list(d.get("grammar", [])),
                   lets=list(d.get("lets", [])),
                   entry_point=d.get("entry_point"), verified=bool(d.get("verified", False)),
                   origin=d.get("origin", "inferred"), notes=d.get("notes", ""),
                   et_seeds=d.get("et_seeds", True))
        validate(spec)
        return spec


def _check_node(node: object, where: str) -> None:
    if not isinstance(node, dict) or node.get("type") not in TYPE_NAMES:
        raise UserError(f"{where}: expected a type node with 'type' in {sorted(TYPE_NAMES)}, got {node!r}")
    t = node["type"]
    if t in ("list", "tuple", "set"):
        _check_node(node.get("elem"), f"{where}.elem")
    elif t == "dict":
        _check_node(node.get("key"), f"{where}.key")
        _check_node(node.get("value"), f"{where}.value")
    elif t == "fixed_tuple":
        for i, item in enumerate(node.get("items", [])):
            _check_node(item, f"{where}.items[{i}]")
    elif t == "optional":
        _check_node(node.get("inner"), f"{where}.inner")
    elif t == "join":
        _check_node(node.get("items"), f"{where}.items")
    elif t == "choice" and not node.get("values"):
        raise UserError(f"{where}: 'choice' needs a non-empty 'values'")


def _check_lines(lines: object, where: str) -> None:
    if not isinstance(lines, list):
        raise UserError(f"{where}: expected a list of line nodes")
    for i, line in enumerate(lines):
        if "tokens" in line:
            for j, tok in enumerate(line["tokens"]):
                _check_node(tok, f"{where}[{i}].tokens[{j}]")
        elif "lines" in line:
            _check_lines(line["lines"], f"{where}[{i}].lines")
        else:
            raise UserError(f"{where}[{i}]: a line node needs 'tokens' or 'lines'")


def validate(spec: Spec) -> None:
    """Raise :class:`UserError` naming the offending node when the spec is malformed."""
    if not isinstance(spec.et_seeds, bool):
        raise UserError(f"{spec.task}: 'et_seeds' must be true or false, got {spec.et_seeds!r}")
    for i, node in enumerate(spec.lets):
        _check_node(node, f"{spec.task}: lets[{i}]")
        if "bind" not in node:
            raise UserError(f"{spec.task}: lets[{i}] must bind a name ('bind')")
    if spec.level == "function":
        for i, node in enumerate(spec.args):
            _check_node(node, f"{spec.task}: args[{i}]")
        for rel in spec.relations:
            if rel.get("kind") not in ("len_of", "index_in", "sum_max"):
                raise UserError(f"{spec.task}: unknown relation {rel!r}")
    elif spec.level == "program":
        _check_lines(spec.grammar, f"{spec.task}: grammar")
    else:
        raise UserError(f"{spec.task}: level must be 'function' or 'program', got {spec.level!r}")


def load(path: str | Path) -> Spec:
    try:
        return Spec.from_dict(json.loads(Path(path).read_text()))
    except (OSError, json.JSONDecodeError, KeyError) as exc:
        raise UserError(f"{path}: not a valid constraint spec ({exc})") from exc


def dumps(spec: Spec, strict: bool = True) -> str:
    """The spec as JSON (indent 1). ``strict=False`` renders values JSON cannot hold (e.g. the
    complex numbers of an inferred ``choice``) with ``repr``: for digests, not for files."""
    return json.dumps(spec.to_dict(), indent=1, sort_keys=False, default=None if strict else repr) + "\n"
