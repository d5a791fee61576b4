"""The two record types every part of the compendium shares: ``Task`` and ``Pair``.

A *task* is one problem of a source benchmark with its reference solution (Section 3.3.1
of the paper reduces each benchmark to: task id, NL description, reference, test cases).
A *pair* is (reference, candidate) with an optional ground-truth ``df_score`` and optional
metric scores; every pair dataset (PIE, CodeScore_test, ShareCode, published LoCaL, ours)
loads into it.
"""

from __future__ import annotations

import hashlib
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
