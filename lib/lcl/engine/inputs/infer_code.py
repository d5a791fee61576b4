"""Draft a stdin grammar from how a program *reads* its input (for PIE, which ships no example
inputs).

A small abstract interpretation of the program's top-level statements (and of a ``main()``
it calls) in order: each read becomes a line node.

- ``int(input())`` -> one int (bound to the assigned name, e.g. ``N``);
- ``a, b = map(int, input().split())`` -> a line of two ints (bound to ``a``, ``b``);
- ``A = list(map(int, input().split()))`` -> a line of ints whose count is the most recent
  bound int (``repeat: "N"``), else 1..8;
- ``S = input()`` -> a lowercase string; ``input().split()`` -> tokens;
- ``for _ in range(N): <reads>`` and ``[<read> for _ in range(N)]`` -> a block repeated N times.

Ranges are deliberately small (counts 1..8, values 1..20): these are drafts to review, marked
``origin: inferred``. Programs that slurp all input at once (``sys.stdin.read().split()``,
``open(0)``) get no grammar (None): their layout is not visible in the reads.
"""

from __future__ import annotations

import ast

from .spec import LineNode, Spec, TypeNode

COUNT: TypeNode = {"type": "int", "min": 1, "max": 8}
VALUE: TypeNode = {"type": "int", "min": 1, "max": 20}
WORD: TypeNode = {"type": "str", "len": [1, 8], "alphabet": "abcdefghijklmnopqrstuvwxyz"}


def _is_line_read(node: ast.AST) -> bool:
    """input(), sys.stdin.readline(), sys.stdin.buffer.readline(), optionally .strip()/.rstrip()."""
    while isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in (
            "strip", "rstrip", "decode"):
        node = node.func.value
    if not isinstance(node, ast.Call):
        return False
    f = node.func
    if isinstance(f, ast.Name) and f.id in ("input", "readline", "rl", "ri", "inp"):
        return True
    return isinstance(f, ast.Attribute) and f.attr == "readline"


def _is_slurp(node: ast.AST) -> bool:
    for sub in ast.walk(node):
        if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute) and sub.func.attr in ("read", "readlines"):
            return True
        if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Name) and sub.func.id == "open":
            return True
    return False


def _split_of_read(node: ast.AST) -> bool:
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "split"
            and _is_line_read(node.func.value))


def _classify(value: ast.AST) -> str | None:
    """'int' | 'ints' | 'str' | 'strs' | None for an expression that reads one line."""
    v = value
    if isinstance(v, ast.Call) and isinstance(v.func, ast.Name) and v.func.id in ("list", "tuple", "sorted", "set") \
            and v.args:
        v = v.args[0]
    if isinstance(v, ast.Call) and isinstance(v.func, ast.Name):
        if v.func.id == "int" and v.args and _is_line_read(v.args[0]):
            return "int"
        if v.func.id == "map" and len(v.args) == 2 and _split_of_read(v.args[1]):
            fn = v.args[0]
            return "ints" if isinstance(fn, ast.Name) and fn.id in ("int", "float") else "strs"
    if isinstance(v, ast.ListComp) and _split_of_read(v.generators[0].iter):
        return "ints" if "int(" in ast.unparse(v.elt) else "strs"
    if _split_of_read(v):
        return "strs"
    if _is_line_read(v):
        return "str"
    return None


class _Reader:
    def __init__(self) -> None:
        self.lines: list[LineNode] = []
        self.bound: list[str] = []
        self.slurp = False

    def _count_name(self) -> str | None:
        return self.bound[0] if self.bound else None

    def _line(self, kind: str, targets: list[str]) -> LineNode:
        if kind == "int":
            tok = (COUNT if not self.bound else VALUE).copy()
            if targets:
                tok["bind"] = targets[0]
                self.bound.append(targets[0])
            return {"tokens": [tok]}
        if kind == "ints":
            if len(targets) > 1:
                toks: list[TypeNode] = []
                for t in targets:
                    toks.append({**(COUNT if not self.bound else VALUE), "bind": t})
                self.bound.extend(targets)
                return {"tokens": toks}
            name = self._count_name()
            return {"tokens": [{**VALUE, "repeat": name if name else [1, 8]}]}
        if kind == "strs":
            return {"tokens": [{**WORD, "repeat": len(targets) if len(targets) > 1 else [1, 4]}]}
        return {"tokens": [WORD.copy()]}

    def stmt(self, node: ast.stmt, funcs: dict[str, ast.FunctionDef], depth: int = 0) -> None:
        if self.slurp or depth > 3:
            return
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            value = node.value
            targets: list[str] = []
            tgt = node.targets[0] if isinstance(node, ast.Assign) else node.target
            if isinstance(tgt, ast.Name):
                targets = [tgt.id]
            elif isinstance(tgt, (ast.Tuple, ast.List)):
                targets = [e.id if isinstance(e, ast.Name) else "_" for e in tgt.elts]
            kind = _classify(value)
            if kind:
                self.lines.append(self._line(kind, targets))
                return
            if isinstance(value, ast.ListComp) and len(value.generators) == 1:
                inner = _classify(value.elt)
                rng = value.generators[0].iter
                if inner and isinstance(rng, ast.Call) and getattr(rng.func, "id", "") == "range" and rng.args:
                    count = ast.unparse(rng.args[-1])
                    sub = _Reader()
                    sub.bound = list(self.bound)
                    self.lines.append({"repeat": count if count in self.bound else [1, 8],
                                       "lines": [sub._line(inner, [])]})
                    return
            if _is_slurp(value):
                self.slurp = True
                return
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            f = node.value.func
            if isinstance(f, ast.Name) and f.id in funcs:
                for s in funcs[f.id].body:
                    self.stmt(s, funcs, depth + 1)
                return
        if isinstance(node, ast.For) and isinstance(node.iter, ast.Call) and getattr(node.iter.func, "id", "") == "range":
            sub = _Reader()
            sub.bound = list(self.bound)
            for s in node.body:
                sub.stmt(s, funcs, depth + 1)
            if sub.lines:
                count = ast.unparse(node.iter.args[-1]) if node.iter.args else "1"
                self.lines.append({"repeat": count if count in self.bound else [1, 8], "lines": sub.lines})
            self.slurp = self.slurp or sub.slurp
            return
        if isinstance(node, ast.If) and isinstance(node.test, ast.Compare) and "__name__" in ast.unparse(node.test):
            for s in node.body:
                self.stmt(s, funcs, depth + 1)


def infer_from_code(task: str, code: str) -> Spec | None:
    """A draft grammar from the program's reads, or None when its input layout is not visible."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return None
    funcs = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    reader = _Reader()
    for node in tree.body:
        reader.stmt(node, funcs)
    if reader.slurp or not reader.lines:
        return None
    return Spec(task=task, level="program", grammar=reader.lines,
                notes="inferred draft from how the program reads stdin (counts 1..8, values 1..20); review needed")
