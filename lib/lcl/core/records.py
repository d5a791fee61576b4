"""The records every part of the compendium shares: ``Task``, ``Pair``, ``PairRow``, a
fuzzing outcome and a study's ``Finding``.

A *task* is one problem of a source benchmark with its reference solution (Section 3.3.1
of the paper reduces each benchmark to: task id, NL description, reference, test cases).
A *pair* is (reference, candidate) with an optional ground-truth ``df_score`` and optional
metric scores; every pair dataset (PIE, CodeScore_test, ShareCode, published LoCaL, ours)
loads into it. A :class:`PairRow` is one of our own pairs as the stages pass it from
candidate generation to the pair files (its columns: :data:`lcl.study.pair_files.SCHEMA`); an
:class:`Outcome` says what Algorithm 1 gave a pair (scored, every run excluded, or an error).
One vocabulary throughout: a pair's two codes are ``reference`` and ``candidate``; the other
names files use (``variant``, the published ``golden_code``/``generated_code``) are read and
written at the files only (:mod:`lcl.study.pair_files`, :func:`pair_from_row`, the fuzz engine's
pairs-file reader). A :class:`Finding` is one headline number of a study beyond the paper (notebooks
09-11): the research-question modules build them, :mod:`lcl.report.findings` writes them.
"""

from __future__ import annotations

import hashlib
import math
import numbers
import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from enum import Enum
from typing import Any, Literal, TypedDict, TypeGuard

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

    ``df_score`` is the differential-fuzzing similarity (Algorithm 1) in [0, 1],
    :data:`NO_KEPT_RUN` when every run was excluded, ``None`` when unknown (:attr:`outcome`
    says which). ``lang`` is ``python`` or ``java``.
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

    @property
    def outcome(self) -> Outcome:
        """What fuzzing gave this pair (:func:`outcome_of` its ``df_score``)."""
        return outcome_of(self.df_score)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class LabelCounts(TypedDict):
    """Algorithm 1's verdict counts over a pair's kept runs."""

    matches: int
    mismatches: int
    timeouts: int
    crashes: int
    invalid: int
    skipped: int


class PairRow(TypedDict, total=False):
    """One pair as the stages between loading and writing pass it: a candidate of Step I, a
    labelled pair of LoCaL-all, a clone pair, a published pair. The columns are those of
    :data:`lcl.study.pair_files.SCHEMA` (what each means is written there) with one difference: the
    files call the candidate ``variant`` and this record calls it ``candidate``;
    :mod:`lcl.study.pair_files` translates where the files are read and written."""

    id: str
    dataset: str
    benchmark: str | None
    task: str | None
    level: Level | None
    lang: str
    variant_type: str  # MUT | OPT | CLONE | PUBLISHED
    reference: str
    candidate: str
    entry: str | None  # the function under test (None for stdin programs); candidates only
    stdin: bool
    generator: str
    source: str  # RQ5: the training pool a pair was drawn from (base | LoCaL)
    # the label (Algorithm 1)
    df_score: float | None
    run_scores: list[float | None] | None
    counts: LabelCounts | None
    verdict_digest: str | None
    seeds: list[int] | None
    spec: str
    error: str
    # the surface (Eq. 1) and curation
    surface_sim: float
    curated: bool
    in_local: bool
    # MUT / OPT
    entry_point: str | None
    operator: str | None
    lineno: int | None
    strategies: list[str]
    rewrites: list[str]
    # CLONE
    cluster: str
    family: str
    domain: str
    observe: str
    cross_package: bool
    reference_package: str
    reference_module: str
    reference_function: str
    reference_licence: str | None
    reference_registry: str | None
    variant_package: str
    variant_module: str
    variant_function: str
    variant_licence: str | None
    variant_registry: str | None
    # PUBLISHED
    published_kind: str | None
    published_id: str
    surface_sim_published: float | None
    author_scores: dict[str, float] | None


def df_of(row: Mapping[str, object]) -> float:
    """A labelled pair's (or a fuzzing result's) df_score (Algorithm 1); a ``ValueError`` naming
    the pair when it has none (an unlabelled candidate, or a published pair without a score,
    reached code that needs one)."""
    df = row.get("df_score")
    if not isinstance(df, (int, float)):
        raise ValueError(f"pair {row.get('id', '?')!r} has no df_score")
    return float(df)


# ----------------------------------------------------------------------------- fuzzing outcomes
#: the df_score that files and the result store carry when Algorithm 1 kept no run (every run
#: timed out, exceeded its budget or had no valid input): the paper's -1
NO_KEPT_RUN = -1.0


class Outcome(Enum):
    """What differential fuzzing (Algorithm 1) gave a pair; ``value`` is how tables say it."""

    SCORED = "scored"  # a df_score in [0, 1]
    NO_KEPT_RUN = "every run excluded (df_score = -1)"
    ERROR = "cannot be fuzzed"  # an error, or no result at all


def has_score(df: object) -> TypeGuard[float]:
    """Whether ``df`` is a usable df_score: a number in [0, 1] (not None, NaN or :data:`NO_KEPT_RUN`)."""
    return isinstance(df, numbers.Real) and not isinstance(df, bool) and 0.0 <= float(df) <= 1.0


def outcome_of(df: object, error: object = None) -> Outcome:
    """The :class:`Outcome` of a df_score (and the error a fuzzing result may carry)."""
    if error or df is None or (isinstance(df, numbers.Real) and df != df):
        return Outcome.ERROR
    return Outcome.SCORED if has_score(df) else Outcome.NO_KEPT_RUN


def result_outcome(result: Mapping[str, Any]) -> Outcome:
    """The :class:`Outcome` of one fuzzing result or labelled row (``df_score``, ``error``)."""
    return outcome_of(result.get("df_score"), result.get("error"))


def df_band(df: object) -> str:
    """The df_score bands tables count by: ``0`` (differs on every input), ``between``, ``1``
    (equivalent on every input), ``n/a`` (no score)."""
    if not has_score(df):
        return "n/a"
    return "0" if df <= 0.0 else "1" if df >= 1.0 else "between"


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


# ----------------------------------------------------------------------------- ledgers
@dataclass
class Ledger:
    """Where every candidate went."""

    generated: Counter = field(default_factory=Counter)
    dropped: Counter = field(default_factory=Counter)  # (kind, reason) -> count

    def drop(self, kind: str, reason: str, n: int = 1) -> None:
        if n:
            self.dropped[f"{kind}: {reason}"] += n

    def to_rows(self) -> list[LedgerRow]:
        rows: list[LedgerRow] = [{"stage": "generated", "what": k, "count": v} for k, v in sorted(self.generated.items())]
        rows += [{"stage": "excluded", "what": k, "count": v} for k, v in sorted(self.dropped.items())]
        return rows

    def lines(self) -> list[str]:
        """One ``stage: what = count`` line per row of :meth:`to_rows` (the notes under a table)."""
        return [f"{r['stage']}: {r['what']} = {r['count']}" for r in self.to_rows()]


class LedgerRow(TypedDict):
    """One line of a ledger's table: a stage (generated / excluded), what, how many."""

    stage: str
    what: str
    count: int


# ----------------------------------------------------------------------------- findings
@dataclass(frozen=True)
class Finding:
    """One headline number of a study: ``value`` with its 95% interval (None where the number
    has no sampling uncertainty, e.g. a count), ``n`` the units it is computed over. The
    research-question modules build them (the statement is computed from the data);
    :func:`lcl.report.findings.save` writes a notebook's part."""

    finding_id: str
    study: str
    quantity: str
    value: float
    statement: str
    ci_low: float | None = None
    ci_high: float | None = None
    n: int | None = None

    def check(self) -> None:
        """A finding without a statement, or whose interval excludes its own value, is a bug
        in the code that made it, not a result."""
        where = f"finding {self.finding_id!r}"
        if not self.finding_id or not self.study:
            raise ValueError(f"{where}: id and study are required")
        if not self.statement.strip():
            raise ValueError(f"{where}: the statement is empty")
        if (self.ci_low is None) != (self.ci_high is None):
            raise ValueError(f"{where}: give both ends of the interval or neither")
        if self.ci_low is not None and self.ci_high is not None and not _nan(self.value):
            lo, hi = float(self.ci_low), float(self.ci_high)
            if not (_nan(lo) or _nan(hi)) and not lo - 1e-9 <= float(self.value) <= hi + 1e-9:
                raise ValueError(f"{where}: value {self.value} lies outside its interval [{lo}, {hi}]")


def _nan(x: float | None) -> bool:
    return x is None or (isinstance(x, float) and math.isnan(x))


def finding_slug(text: str) -> str:
    """A metric's or trait's name as part of a finding id: every run of other characters than ASCII
    letters and digits becomes one underscore (``CodeBERTScore[MiniLM]`` -> ``CodeBERTScore_MiniLM``)."""
    return re.sub(r"[^A-Za-z0-9]+", "_", text).strip("_")
