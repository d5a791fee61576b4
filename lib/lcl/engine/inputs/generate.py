"""Decode constraint specs into concrete inputs from any byte source (paper Step II).

One decoder, :func:`decode`, walks a :class:`~lcl.engine.inputs.spec.Spec` and asks a *choice
source* for every decision (an int in a range, a float, a bool, an element of a list). Three
sources share it, so every backend yields only valid inputs:

- :class:`BytesSource` wraps ``atheris.FuzzedDataProvider``: any byte string decodes to a
  valid input; the coverage-guided mode feeds it libFuzzer's bytes.
- seeded random bytes (:func:`generate`): deterministic, fast, usable inside a notebook;
  input *i* of seed *s* decodes ``random.Random(f"{s}:{i}").randbytes(...)``;
- Hypothesis (``lcl.engine.inputs.strategies``) drives the same decoder with ``data.draw``.

The benchmark's own test inputs (``Task.seed_inputs``) always come first (:func:`with_seeds`).
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Protocol, cast

from lcl.core import seeds

from .spec import Bound, LineNode, Spec, TypeNode

if TYPE_CHECKING:
    from lcl.core.records import Task

DEFAULT_INT = (-100, 100)
DEFAULT_LEN = (0, 8)
PRINTABLE = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 "

#: one input: a function's positional arguments (values of any type the spec describes) or a
#: program's stdin text
Input = list[Any] | str


class ChoiceSource(Protocol):
    def int_in(self, lo: int, hi: int) -> int: ...
    def float_in(self, lo: float, hi: float) -> float: ...
    def boolean(self) -> bool: ...
    def probability(self) -> float: ...


class BytesSource:
    """Choices decoded from bytes with ``atheris.FuzzedDataProvider`` (exhausted bytes give
    the range minimum, as libFuzzer's provider does)."""

    def __init__(self, data: bytes) -> None:
        import atheris

        self.fdp = atheris.FuzzedDataProvider(data)

    def int_in(self, lo: int, hi: int) -> int:
        return lo if hi <= lo else int(self.fdp.ConsumeIntInRange(lo, hi))

    def float_in(self, lo: float, hi: float) -> float:
        return lo if hi <= lo else float(self.fdp.ConsumeFloatInRange(lo, hi))

    def boolean(self) -> bool:
        return bool(self.fdp.ConsumeBool())

    def probability(self) -> float:
        return float(self.fdp.ConsumeProbability())


# ----------------------------------------------------------------------------- expressions
_OPS: dict[type[ast.operator], Callable[[float, float], float]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.FloorDiv: operator.floordiv,
    ast.Pow: operator.pow,
}


def bound(value: Bound, env: dict[str, int]) -> int | float:
    """Evaluate a bound: a number, a bound name (``"N"``) or a small expression (``"N-1"``)."""
    if not isinstance(value, str):
        return value
    return _eval(_parse_bound(value), env)


@lru_cache(maxsize=4096)
def _parse_bound(text: str) -> ast.expr:
    """The parsed bound expression (parsed once: generation evaluates it for every input)."""
    return ast.parse(text, mode="eval").body


def _eval(node: ast.AST, env: dict[str, int]) -> int | float:
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
        return node.value
    if isinstance(node, ast.Name):
        if node.id not in env:
            raise KeyError(f"bound name {node.id!r} used before it is bound")
        return env[node.id]
    if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
        return _OPS[type(node.op)](_eval(node.left, env), _eval(node.right, env))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_eval(node.operand, env)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("min", "max"):
        fn = min if node.func.id == "min" else max
        return fn(_eval(a, env) for a in node.args)
    raise ValueError(f"unsupported bound expression: {ast.unparse(node)}")


# ----------------------------------------------------------------------------- decoding
def _size(node: TypeNode, src: ChoiceSource, env: dict[str, int]) -> int:
    spec = node.get("len", list(DEFAULT_LEN))
    if isinstance(spec, (int, str)):
        return max(0, int(bound(spec, env)))
    lo, hi = (int(bound(x, env)) for x in spec)
    return src.int_in(max(0, lo), max(0, hi))


def value(node: TypeNode, src: ChoiceSource, env: dict[str, int]) -> Any:
    """Decode one value of a type node (binding ``node['bind']`` into ``env``): of whatever type
    the node describes (``const`` and ``choice`` values are any JSON values), hence ``Any``."""
    t = node["type"]
    out: Any
    if t == "int":
        lo, hi = int(bound(node.get("min", DEFAULT_INT[0]), env)), int(bound(node.get("max", DEFAULT_INT[1]), env))
        out = src.int_in(lo, max(lo, hi))
    elif t == "float":
        flo, fhi = float(bound(node.get("min", -100.0), env)), float(bound(node.get("max", 100.0), env))
        out = src.float_in(flo, max(flo, fhi))
        if "digits" in node:
            out = round(out, int(node["digits"]))
    elif t == "bool":
        out = src.boolean()
    elif t == "none":
        out = None
    elif t == "const":
        out = node["value"]
    elif t == "choice":
        vals = node["values"]
        out = vals[src.int_in(0, len(vals) - 1)]
    elif t == "str":
        alphabet = node.get("alphabet", PRINTABLE)
        n = _size(node, src, env)
        out = "".join(alphabet[src.int_in(0, len(alphabet) - 1)] for _ in range(n))
    elif t in ("list", "tuple", "set"):
        out = _sequence(node, src, env)
    elif t == "dict":
        n = _size(node, src, env)
        out = {}
        for _ in range(n):
            out[_hashable(value(node["key"], src, env))] = value(node["value"], src, env)
    elif t == "fixed_tuple":
        out = tuple(value(item, src, env) for item in cast("list[TypeNode]", node["items"]))  # validate()d
    elif t == "optional":
        out = None if src.probability() < float(node.get("p_none", 0.2)) else value(node["inner"], src, env)
    elif t == "join":
        out = str(node.get("sep", " ")).join(str(x) for x in value(cast("TypeNode", node["items"]), src, env))
    else:  # pragma: no cover - validate() rejects unknown types
        raise ValueError(f"unknown type {t!r}")
    if "bind" in node:
        env[node["bind"]] = len(out) if isinstance(out, (list, tuple, set, dict, str)) else out
    return out


def _hashable(v: object) -> object:
    return tuple(v) if isinstance(v, list) else v


def _sort(items: list[Any], reverse: bool) -> None:
    """Sort in place; values Python cannot order against each other (an inferred draft may mix
    ints and strings) are ordered by type name, then by ``repr``, deterministically."""
    try:
        items.sort(reverse=reverse)
    except TypeError:
        items.sort(key=lambda v: (type(v).__name__, repr(v)), reverse=reverse)


def _sequence(node: TypeNode, src: ChoiceSource, env: dict[str, int]) -> list[Any] | tuple[Any, ...] | set[Any]:
    n = _size(node, src, env)
    items: list[Any] = []
    distinct = bool(node.get("distinct")) or node["type"] == "set"
    seen: set[object] = set()
    attempts = 0
    while len(items) < n and attempts < 20 * n + 20:
        attempts += 1
        v = value(node["elem"], src, env)
        if distinct:
            key = _hashable(v)
            if key in seen:
                continue
            seen.add(key)
        items.append(v)
    order = node.get("sorted")
    if order in ("asc", True, "desc"):
        _sort(items, reverse=order == "desc")
    if node["type"] == "tuple":
        return tuple(items)
    if node["type"] == "set":
        return set(items)
    return items


def _apply_relations(spec: Spec, args: list[Any], src: ChoiceSource) -> list[Any]:
    for rel in spec.relations:
        i, kind = int(rel["arg"]), rel["kind"]
        if kind == "len_of":
            args[i] = len(args[int(rel["of"])])
        elif kind == "index_in":
            n = len(args[int(rel["of"])])
            args[i] = src.int_in(0, n - 1) if n else 0
        elif kind == "sum_max":
            limit, xs = rel["max"], args[i]
            while xs and sum(xs) > limit:
                xs.pop()
    return args


def _lines(nodes: list[LineNode], src: ChoiceSource, env: dict[str, int], out: list[str]) -> None:
    for node in nodes:
        if "lines" in node:
            count = node.get("repeat", 1)
            n = int(bound(count, env)) if not isinstance(count, list) else src.int_in(*(int(bound(x, env)) for x in count))
            if "bind_count" in node:
                env[node["bind_count"]] = n
            for _ in range(max(0, n)):
                _lines(node["lines"], src, env, out)
            continue
        toks: list[str] = []
        for tok in node["tokens"]:
            reps = tok.get("repeat", 1)
            k = int(bound(reps, env)) if not isinstance(reps, list) else src.int_in(*(int(bound(x, env)) for x in reps))
            for _ in range(max(0, k)):
                toks.append(_render(value(tok, src, env)))
        # tokens that render empty (an empty list, repeat 0, a zero-length string) add no separator
        out.append(node.get("sep", " ").join(t for t in toks if t != ""))


def _render(v: object) -> str:
    if isinstance(v, bool):
        return "Yes" if v else "No"
    if isinstance(v, (list, tuple)):
        return " ".join(_render(x) for x in v)
    return str(v)


def decode(spec: Spec, src: ChoiceSource) -> Input:
    """One input: a list of positional arguments (functions) or a stdin string (programs)."""
    env: dict[str, int] = {}
    for node in spec.lets:  # hidden bindings: decoded first, not part of the input
        value(node, src, env)
    if spec.level == "function":
        args = [value(node, src, env) for node in spec.args]
        return _apply_relations(spec, args, src)
    lines: list[str] = []
    _lines(spec.grammar, src, env, lines)
    return "\n".join(lines) + "\n"


def decode_bytes(spec: Spec, data: bytes) -> Input:
    """Decode an input from raw bytes (what Atheris/libFuzzer hands a fuzz target)."""
    return decode(spec, BytesSource(data))


def generate(spec: Spec, n: int, seed: int, n_bytes: int = 4096) -> list[Input]:
    """``n`` inputs from seeded random bytes: deterministic for (spec, n, seed).

    ``n_bytes`` per input is large enough that sizable inputs never run out of bytes (an
    exhausted provider returns range minima, which would flatten the tail of long inputs)."""
    out = []
    for i in range(n):
        data = seeds.rng(seed, i).randbytes(n_bytes)
        out.append(decode_bytes(spec, data))
    return out


def task_seeds(task: Task, spec: Spec) -> list[Any]:
    """The seed inputs of ``task`` under ``spec``: the benchmark's own test inputs, then the
    extended tests' (MBPP-ET / HumanEval-ET) unless the spec says ``et_seeds: false``."""
    if spec.et_seeds:
        return list(task.seed_inputs)
    return list(task.seed_inputs[: task.extra.get("n_own_seeds", len(task.seed_inputs))])


def with_seeds(seed_inputs: list[Input], generated: list[Input], n: int) -> list[Input]:
    """The benchmark's own test inputs first, then generated ones, ``n`` in total."""
    return (list(seed_inputs) + list(generated))[:n] if n else list(seed_inputs) + list(generated)
