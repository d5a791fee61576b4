"""The two record types every part of the compendium shares: ``Task`` and ``Pair``.

A *task* is one problem of a source benchmark with its reference solution (Section 3.3.1
of the paper reduces each benchmark to: task id, NL description, reference, test cases).
A *pair* is (reference, candidate) with an optional ground-truth ``df_score`` and optional
metric scores; every pair dataset (PIE, CodeScore_test, ShareCode, published LoCaL, ours)
loads into it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

Level = Literal["function", "program"]


@dataclass(frozen=True)
class Task:
    """One source task.

    ``seed_inputs`` are the inputs parsed from the benchmark's own tests: for functions a
    list of positional-argument lists, for programs a list of stdin strings.
    """

    benchmark: str  # HumanEval | MBPP | APPS | PIE
    task_id: str  # benchmark-local id, e.g. "HumanEval/0", "11", "p02599"
    level: Level
    reference: str  # full reference code (imports + helpers + solution)
    entry_point: str | None  # function name; None for stdin programs
    description: str | None = None
    seed_inputs: tuple[Any, ...] = ()
    n_tests: int = 0
    source_file: str = ""
    source_line: int = 0
    extra: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    @property
    def uid(self) -> str:
        """Project-wide id, e.g. ``HumanEval/0``, ``MBPP/11``, ``PIE/p02599``."""
        if self.task_id.startswith(self.benchmark + "/"):
            return self.task_id
        return f"{self.benchmark}/{self.task_id}"

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["seed_inputs"] = list(self.seed_inputs)
        d["uid"] = self.uid
        return d


@dataclass(frozen=True)
class Pair:
    """A (reference, candidate) code pair.

    ``df_score`` is the differential-fuzzing similarity (Algorithm 1) in [0, 1], -1 when
    every run timed out, ``None`` when unknown. ``lang`` is ``python`` or ``java``.
    """

    id: str
    reference: str
    candidate: str
    dataset: str  # PIE | CodeScore_test | ShareCode_java | LoCaL_published | LoCaL
    benchmark: str | None = None  # source benchmark of the task (HE, MBPP, APPS, PIE)
    task: str | None = None  # task uid when known
    level: Level | None = None
    lang: str = "python"
    variant_type: str | None = None  # MUT | OPT | CLONE | PUBLISHED | EQ | NEQ
    df_score: float | None = None
    extra: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    @property
    def digest(self) -> str:
        """Content hash of the two codes (cache key for per-pair results)."""
        h = hashlib.sha256()
        h.update(self.reference.encode())
        h.update(b"\0")
        h.update(self.candidate.encode())
        return h.hexdigest()

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


# ----------------------------------------------------------------------------- one vocabulary
#: The names a pair's two codes go by in the files the compendium reads, in the order they are
#: looked up: ours (``reference``, ``candidate``), our LoCaL data files (``variant``, the
#: generated side, a column of the released-style schema), and the published LoCaL /
#: CodeScore_test format (``golden_code``, ``generated_code``). Code past loading says
#: ``reference`` and ``candidate`` only; :func:`pair_from_row` is where the names meet.
REFERENCE_KEYS = ("reference", "golden_code")
CANDIDATE_KEYS = ("candidate", "variant", "generated_code")


def _first(row: Mapping[str, Any], keys: tuple[str, ...]) -> str | None:
    for k in keys:
        v = row.get(k)
        if v is not None:
            return str(v)
    return None


def reference_of(row: Mapping[str, Any]) -> str | None:
    """A row's reference code under any of :data:`REFERENCE_KEYS` (None when it has none)."""
    return _first(row, REFERENCE_KEYS)


def candidate_of(row: Mapping[str, Any]) -> str | None:
    """A row's candidate code under any of :data:`CANDIDATE_KEYS` (None when it has none)."""
    return _first(row, CANDIDATE_KEYS)


def pair_from_row(row: Mapping[str, Any], *, dataset: str = "LoCaL") -> Pair:
    """A :class:`Pair` from a dict row of any vocabulary above; a row missing either code is a
    ``KeyError`` naming the keys looked for."""
    ref, cand = reference_of(row), candidate_of(row)
    if ref is None or cand is None:
        missing = REFERENCE_KEYS if ref is None else CANDIDATE_KEYS
        raise KeyError(f"pair {row.get('id', '?')!r} has none of {', '.join(missing)}")
    return Pair(id=str(row["id"]), reference=ref, candidate=cand, dataset=row.get("dataset") or dataset,
                benchmark=row.get("benchmark"), task=row.get("task"), level=row.get("level"),
                lang=row.get("lang") or "python", variant_type=row.get("variant_type"), df_score=row.get("df_score"))
