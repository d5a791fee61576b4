"""Draft a constraint spec from a task's seed inputs (paper Step II).
The draft is marked ``origin = "inferred"``, ``verified = false``; a reviewer
corrects it and flips both, so inferred drafts and reviewed specs stay distinguishable.

Function level: per argument, the type of the seed values (recursively for containers),
numeric ranges widened by a margin, lengths, string alphabets (by character class), and
whether every seed list is sorted or distinct; relations: an int argument equal to the
length of a list argument in every seed (``len_of``), or always a valid index (``index_in``).

Program level: the seed stdin texts are split into lines and whitespace tokens. When every
seed has the same line shape, each line becomes a token line; a leading int that equals the
number of following lines or tokens becomes a bound count (``N`` then N values / N lines).
"""

from __future__ import annotations

import string
from typing import Any

from .spec import LineNode, Relation, Spec, TypeNode

MAX_LEN_DEFAULT = 10


def _widen(lo: float, hi: float, is_int: bool) -> tuple[float, float]:
    # margin: half the seed span, at most 10, so large-magnitude seeds are not inflated
    margin = min(max(hi - lo, 1) / 2, 10)
    lo2, hi2 = lo - margin, hi + margin
    if lo >= 0:  # keep non-negative domains non-negative
        lo2 = max(0, lo2)
    return (int(lo2 // 1), int(-(-hi2 // 1))) if is_int else (float(lo2), float(hi2))


def _alphabet(strings: list[str]) -> str:
    chars = set("".join(strings))
    out = set()
    for cls in (string.ascii_lowercase, string.ascii_uppercase, string.digits):
        if chars & set(cls):
            out |= set(cls)
    out |= chars - set(string.ascii_letters + string.digits)
    return "".join(sorted(out)) or string.ascii_lowercase


def infer_node(values: list[Any]) -> TypeNode:
    """A type node covering every value in ``values`` (seed values of one argument)."""
    non_null = [v for v in values if v is not None]
    if not non_null:
        return {"type": "none"}
    if len(non_null) < len(values):
        return {"type": "optional", "inner": infer_node(non_null), "p_none": 0.1}
    kinds = {type(v) for v in non_null}
    if kinds == {bool}:
        return {"type": "bool"}
    if kinds <= {int, float} and bool not in kinds:
        is_int = kinds == {int}
        lo, hi = _widen(min(non_null), max(non_null), is_int)
        return {"type": "int" if is_int else "float", "min": lo, "max": hi}
    if kinds == {str}:
        lens = [len(v) for v in non_null]
        return {"type": "str", "len": [0 if min(lens) == 0 else 1, max(max(lens), 1) + 2],
                "alphabet": _alphabet(non_null)}
    if len(kinds) == 1 and next(iter(kinds)) in (list, tuple, set):
        kind = next(iter(kinds))
        elems = [e for v in non_null for e in v]
        lens = [len(v) for v in non_null]
        kind_names: dict[type, str] = {list: "list", tuple: "tuple", set: "set"}
        node: TypeNode = {"type": kind_names[kind],
                          "len": [min(lens), min(max(lens) + 2, max(MAX_LEN_DEFAULT, max(lens)))],
                          "elem": infer_node(elems) if elems else {"type": "int", "min": -10, "max": 10}}
        seqs = [list(v) for v in non_null if kind is not set]
        if seqs and any(len(s) > 1 for s in seqs):
            try:
                if all(s == sorted(s) for s in seqs):
                    node["sorted"] = "asc"
                elif all(s == sorted(s, reverse=True) for s in seqs):
                    node["sorted"] = "desc"
            except TypeError:
                pass
            if all(len(set(map(repr, s))) == len(s) for s in seqs):
                node["distinct"] = True
        return node
    if kinds == {dict}:
        keys = [k for v in non_null for k in v]
        vals = [x for v in non_null for x in v.values()]
        lens = [len(v) for v in non_null]
        return {"type": "dict", "len": [min(lens), max(lens) + 2],
                "key": infer_node(keys) if keys else {"type": "str", "len": [1, 4]},
                "value": infer_node(vals) if vals else {"type": "int"}}
    return {"type": "choice", "values": list(non_null[:20])}


def _relations(seeds: list[list[Any]]) -> list[Relation]:
    rels: list[Relation] = []
    n_args = len(seeds[0])
    for i in range(n_args):
        if not all(isinstance(s[i], int) and not isinstance(s[i], bool) for s in seeds):
            continue
        for j in range(n_args):
            if i == j or not all(isinstance(s[j], (list, str, tuple)) for s in seeds):
                continue
            if all(s[i] == len(s[j]) for s in seeds):
                rels.append({"kind": "len_of", "arg": i, "of": j})
                break
            if len(seeds) >= 3 and all(0 <= s[i] < len(s[j]) for s in seeds):
                rels.append({"kind": "index_in", "arg": i, "of": j})
                break
    return rels


def infer_function(task: str, entry_point: str, seeds: list[list[Any]]) -> Spec:
    """Draft a function-level spec from seed argument lists."""
    seeds = [list(s) for s in seeds if isinstance(s, (list, tuple))]
    arities = {len(s) for s in seeds}
    if not seeds or len(arities) != 1:
        note = "no seed inputs" if not seeds else f"seed inputs disagree on arity {sorted(arities)}"
        return Spec(task=task, level="function", entry_point=entry_point, notes=f"inferred draft: {note}; review needed")
    n = arities.pop()
    args = [infer_node([s[i] for s in seeds]) for i in range(n)]
    return Spec(task=task, level="function", entry_point=entry_point, args=args, relations=_relations(seeds),
                notes=f"inferred draft from {len(seeds)} seed inputs")


# ----------------------------------------------------------------------------- programs
def _token_node(tokens: list[str]) -> TypeNode:
    try:
        ints = [int(t) for t in tokens]
        lo, hi = _widen(min(ints), max(ints), True)
        return {"type": "int", "min": lo, "max": hi}
    except ValueError:
        pass
    try:
        floats = [float(t) for t in tokens]
        lo, hi = _widen(min(floats), max(floats), False)
        return {"type": "float", "min": lo, "max": hi, "digits": 3}
    except ValueError:
        lens = [len(t) for t in tokens]
        return {"type": "str", "len": [max(1, min(lens)), max(lens) + 2], "alphabet": _alphabet(tokens)}


def infer_program(task: str, seeds: list[str]) -> Spec:
    """Draft a stdin grammar from example inputs."""
    texts = [s for s in seeds if isinstance(s, str) and s.strip()]
    if not texts:
        return Spec(task=task, level="program", notes="inferred draft: no example input; review needed")
    split = [[ln.split() for ln in t.strip("\n").split("\n")] for t in texts]
    # "N then N lines": a single int on line 1 equal to the number of remaining lines
    if all(len(s[0]) >= 1 and s[0][0].lstrip("-").isdigit() and int(s[0][0]) == len(s) - 1 and len(s) > 1
           for s in split):
        body = [tok for s in split for line in s[1:] for tok in line]
        width = {len(line) for s in split for line in s[1:]}
        head: list[TypeNode] = [{"type": "int", "min": 1, "max": max(int(s[0][0]) for s in split) + 3, "bind": "N"}]
        head += [_token_node([s[0][k] for s in split]) for k in range(1, min(len(s[0]) for s in split))]
        row: LineNode = ({"tokens": [_token_node([line[k] for s in split for line in s[1:]]) for k in range(width.pop())]}
                         if len(width) == 1 else {"tokens": [{**_token_node(body), "repeat": [1, 5]}]})
        return Spec(task=task, level="program", grammar=[{"tokens": head}, {"repeat": "N", "lines": [row]}],
                    notes=f"inferred draft (count line + N rows) from {len(texts)} examples")
    if len({len(s) for s in split}) == 1:
        grammar = _line_by_line(split)
        if grammar is not None:
            return Spec(task=task, level="program", grammar=grammar,
                        notes=f"inferred draft (line by line) from {len(texts)} examples")
    tokens = [t for s in split for line in s for t in line]
    return Spec(task=task, level="program",
                grammar=[{"repeat": [1, max(len(s) for s in split)],
                          "lines": [{"tokens": [{**_token_node(tokens), "repeat": [1, 5]}]}]}],
                notes="inferred draft (shapes vary: generic token lines); review needed")


def _line_by_line(split: list[list[list[str]]]) -> list[LineNode] | None:
    """Seeds with equal line counts: fixed-width lines become token lines; a varying-width
    line whose width always equals an earlier int token becomes ``repeat`` of that token."""
    grammar: list[LineNode] = []
    ints_seen: list[tuple[int, int, str]] = []  # (line, token, bind name)
    for li in range(len(split[0])):
        widths = {len(s[li]) for s in split}
        if len(widths) == 1:
            toks = [_token_node([s[li][k] for s in split]) for k in range(widths.pop())]
            for k, node in enumerate(toks):
                if node["type"] == "int":
                    ints_seen.append((li, k, f"N{li}_{k}"))
            grammar.append({"tokens": toks})
            continue
        for lj, k, name in ints_seen:
            if all(int(s[lj][k]) == len(s[li]) for s in split):
                tok = grammar[lj]["tokens"][k]
                tok.update({"bind": name, "min": max(1, int(tok["min"]))})
                grammar.append({"tokens": [{**_token_node([t for s in split for t in s[li]]), "repeat": name}]})
                break
        else:
            return None
    return grammar
