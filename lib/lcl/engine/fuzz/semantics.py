"""The semantics of differential fuzzing (Algorithm 1), decided and implemented in one place.

Algorithm 1 of the paper fixes the skeleton: R runs, each generating N inputs, executing the
reference and the variant on every input and scoring ``matches / N``; a run exceeding the
time budget T is excluded (here: only when the reference alone exceeds it, see "Run budget
T"); ``df_score`` is the mean over kept runs, or -1 when every run was excluded. Everything the paper leaves open is decided here, and every other module of
``lcl.engine.fuzz`` imports these decisions instead of re-deciding them. ``docs/FUZZING.md`` explains
them at length; in short:

Outcomes
    Executing one side on one input yields an *outcome*: ``OK`` (a return value / the
    program's stdout), ``EXC`` (an exception; identified by its type, ``module.qualname``),
    ``TIMEOUT`` (the authors' harness recorded the string "TIMEOUT" on that side) or ``CRASH``
    (the worker process died: segfault, C stack overflow, SIGKILL by a resource limit, a
    file/disk limit). Only fixed-size digests of outcomes leave a worker.

Equality
    Functions: *type-strict deep equality* -- ``1 != 1.0 != True``, ``[1] != (1,)``, dicts
    and sets compare by content regardless of order, a ``Counter`` is not a ``dict``.
    Floats compare by value, except ``NaN == NaN`` (same output) and ``-0.0 == 0.0``.
    Instances of other classes compare by type name and, recursively, their ``__dict__`` /
    ``__slots__``; stateless objects (functions, generators, ...) by type name only.
    Programs: stdout stripped of leading/trailing ASCII whitespace (``bytes.strip()``), as the
    authors did; stderr and the exit status are ignored. A program that ends with an
    uncaught exception has the outcome ``EXC`` (its type), not its partial stdout.
    Two ``EXC`` outcomes match when the exception types are equal.

Invalid inputs
    An input on which the *reference* raises, times out or crashes is *invalid*: it is
    counted separately and excluded from the denominator, never counted as a match. A run's
    score is therefore ``matches / valid`` where ``valid = N - invalid`` (identical to the
    paper's ``matches / N`` whenever the reference handles every input). A run with no valid
    input has no score and is excluded like a timed-out run.

Verdicts (one character per input and run)
    ``M`` match, ``X`` mismatch (different value, value vs exception, different exception),
    ``T`` the variant timed out, ``C`` the variant crashed the worker, ``I`` invalid input,
    ``-`` not executed (the run was stopped by its time budget). The SHA-256 of the verdict
    vector is recorded with every result.

Timeouts
    Per input: ``clamp(factor * ref_cpu, floor, cap)`` seconds of *CPU time*, where
    ``ref_cpu`` is the reference's own CPU time on that input (measured once). CPU time keeps
    verdicts stable on a loaded machine. A worker-internal timer (``ITIMER_PROF``) raises in
    the callee; an external watchdog SIGKILLs the worker at the wall-clock deadline
    ``timeout * watchdog_factor + watchdog_grace`` (C-level loops, sleeps, code swallowing
    ``BaseException``). Either way the outcome is ``TIMEOUT``. The reference gets
    ``reference_timeout`` per input.

Run budget T
    Algorithm 1 compares wall-clock time with T (``now() - t0 > T``). Here a run's time is the
    CPU time its variant workers use from the moment they are ready (read from ``/proc`` every
    poll), so that whether a run is kept does not depend on how busy the machine is; a
    wall-clock cap of ``watchdog_factor`` x T + ``watchdog_grace`` (:func:`run_wall_cap`) stops
    a variant that sleeps or waits. The paper leaves T open; here it is
    adaptive, like the per-input timeout: ``T = min(run_budget, run_budget_floor +
    run_budget_factor * C)`` where ``C`` is the reference's own CPU time on the run's inputs
    (:func:`run_time_budget`; 3 s + 5 C, at most 30 s). A slow reference raises T to 2 C
    (at most 60 s): a reference whose inputs take 20 s of CPU would otherwise leave a variant
    as fast as itself too little of a 30 s budget, and every run of every variant of that task
    would be excluded (df_score -1) for the reference's slowness, not the variant's. Beyond
    that, when the reference alone needs more than T (C > 2 x run_budget), the run is excluded
    without running the variant (:func:`reference_over_budget`): Algorithm 1's one clock covers
    both programs, so the run times out whatever the variant does. A reference whose CPU
    times are not finite and non-negative excludes the run too (:data:`REFERENCE_UNMEASURED`).
    A run the *variant* pushes over T (or past the wall cap) is stopped at once (busy workers
    are killed) and, since engine version 8, scored: every input the harness holds no outcome
    for is a ``TIMEOUT``; a variant whose load hangs has ``TIMEOUT`` on every input of every
    run. Only the reference's doing excludes a run: a candidate that could get itself excluded
    could choose which runs count (one spinning past T exactly where its bug shows would score
    as if it had none). A variant that hangs on every input costs about R x T: 15 s for a
    HumanEval-sized pair instead of the 150 s a fixed 30 s budget cost. Per-input timeouts
    are CPU time, so the verdicts themselves do not depend on the machine's load, and since
    engine version 5 neither does T (before, a run of a variant near T, e.g. of HumanEval/75
    whose reference needs 38 s per run against T = 60 s, was kept on a quiet machine and
    excluded on a busy one).

Arguments and state
    Each side receives its own fresh copy of every input (unpickled from bytes), so mutation
    of arguments by the callee cannot leak into the other side or a later run. A function
    module is loaded afresh (a new module object) at the start of every run, as by a fresh
    fuzzing script, so module state persists across the inputs of one run, in input order,
    and never across runs. A generated run also starts in fresh workers, so state left in an
    imported module never reaches the next run either: runs are independent and a batch may
    run them in parallel (``fuzz_pair(only_runs=...)``, ``merge_runs``); explicit runs reuse
    their workers. ``random`` and ``numpy.random`` are seeded with 0 at every load. After a crash or a watchdog kill the worker is re-forked, the module
    reloaded and the run continues with the next input. Before every input the worker restores
    the recursion limit and int-string digits limit (to what the module set at import time),
    trace/profile hooks, standard streams, working directory and its timer's signal handler;
    a thread left running makes it replace itself. Programs get fresh globals
    (``__name__ == "__main__"``) on every input, like a new process.

Runs and seeds
    With explicit inputs the R runs re-execute the same inputs (their scores differ only
    through timeouts); with a generator ``gen(seed, n)`` run r uses
    ``run_seed(base_seed, r)``. The seeds are recorded per result.
"""

from __future__ import annotations

import hashlib
import marshal
import math
import sys
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields, replace
from typing import Any, Literal, NotRequired, TypedDict, cast

#: df_score when every run was excluded (the paper's -1); equal to lcl.core.records.NO_KEPT_RUN, written
#: out because the sandbox's modules import only the standard library (tests/test_core.py checks it)
NO_KEPT_RUN = -1.0

#: bump when a change alters any outcome, verdict or score (it invalidates stored results); what
#: each version changed, and why kernel isolation kept version 5: docs/FUZZING.md, "Engine versions"
ENGINE_VERSION = "8"

#: older engine versions whose stored results carry over when :func:`carries_over` says so
CARRY_OVER = ("7", "6", "5", "4")

# ---------------------------------------------------------------------------- result records
CountKey = Literal["matches", "mismatches", "timeouts", "crashes", "invalid", "skipped"]
#: the verdict counts of a run or a pair, in the order results list them
COUNT_KEYS: tuple[CountKey, ...] = ("matches", "mismatches", "timeouts", "crashes", "invalid", "skipped")


class Counts(TypedDict):
    """How many inputs got each verdict (one run, or a pair's kept runs together).

    The same fields as :class:`lcl.core.records.LabelCounts`, written again because the sandbox
    worker imports this module before it is confined and should load nothing outside the standard
    library and its own package; ``tests/test_core.py`` holds the two equal."""

    matches: int
    mismatches: int
    timeouts: int
    crashes: int
    invalid: int
    skipped: int


class RunRecord(TypedDict):
    """One run of a result (``runs``); ``counts`` is None for a run excluded before or while
    its variant ran (:data:`UNCOUNTED_REASONS`)."""

    run: int
    seed: int
    score: float | None
    excluded: bool
    reason: str | None
    counts: Counts | None


class SettingsDict(TypedDict):
    """:class:`Settings` as a result records it (``settings``) and jobs carry it: its fields."""

    runs: int
    n_function: int
    n_program: int
    run_budget: float
    run_budget_floor: float
    run_budget_factor: float
    run_budget_ref_factor: float
    timeout_floor: float
    timeout_factor: float
    timeout_cap: float
    reference_timeout: float
    watchdog_factor: float
    watchdog_grace: float
    memory_bytes: int
    file_bytes: int
    dir_bytes: int
    max_files: int
    stdout_bytes: int
    workers: int
    chunk: int
    over_budget: NotRequired[str]  # recorded only where it is not the default ("exclude")


class IsolationProvenance(TypedDict):
    """What a result records about the isolation of the workers that produced it: what
    ``lcl.engine.fuzz.isolation.provenance`` returns (``isolation.Provenance``), written out here
    because the sandbox's modules import only the standard library, each other's types
    included (mypy checks the two agree where ``PairResult.to_dict`` records it)."""

    mode: str
    active: list[str]
    missing: list[str]
    landlock_abi: int


class FuzzResult(TypedDict, total=False):
    """One pair's result as the store keeps it and a batch returns it: what
    ``PairResult.to_dict`` writes plus ``error`` (None, or why the pair has no score: then only
    ``df_score``, ``error``, ``settings``, ``engine_version`` and ``base_seed`` are there); a
    batch's rows add the pair's ``id`` and result ``key``."""

    df_score: float | None
    run_scores: list[float | None]
    runs: list[RunRecord]
    counts: Counts
    n: int
    kept_runs: int
    verdict_digest: str
    level: str
    entry: str | None
    base_seed: int
    seeds: list[int]
    inputs_mode: str
    inputs_digests: list[str]
    variant_load: str
    settings: SettingsDict
    engine_version: str
    isolation: IsolationProvenance
    error: str | None
    id: str
    key: str



def carries_over(result: FuzzResult) -> bool:
    """Whether a stored result of an older version is what this version computes.

    4 -> 5: unless a run was excluded for time. Verdicts are the same (per-input timeouts were
    CPU time already), and a run kept under the wall-clock budget (wall <= T) is kept under the
    CPU one, since a single-threaded worker's CPU time is at most its wall time; a run excluded
    for wall time might not be.

    5 -> 6: unless the variant crashed or timed out (at load or on an input of a kept run): only
    there do the changes reach a result (a crash may have been the disk limit, now ENOSPC; a
    replaced worker now loses its files; a timeout is now applied by the harness). What else
    changed (memfd, inotify, System V IPC, mknod, non-IP sockets refused; a uid of its own; at
    most 64 threads) no archived candidate uses (docs/FUZZING.md).

    6 -> 7: always. The changes reach only code that makes a system call off the allowlist or
    reads or signals its parent's pid; traced archived candidates make none, and re-fuzzed
    samples of every benchmark were identical (docs/FUZZING.md, "Engine version 7").

    7 -> 8: always. Version 8's harness decides from kernel facts what a worker used to report
    (which input runs, the load's status, the replies' order, finite charges), charges the
    load's CPU to the run, and refuses unix datagram sockets, socket buffer sizes and the
    host's ``/proc``: it reaches code that forges the protocol, uses those calls, or spends
    seconds of CPU at import. The default over-budget rule is the paper's, as before (the
    ``score`` rule is a setting with keys of its own). Re-fuzzed samples of every benchmark,
    and of the pairs with a run over T, were identical (docs/FUZZING.md, "Engine version 8")."""
    if result.get("engine_version") in ("7", "6"):
        return True
    # a stored result is JSON written by an older version: checked, not trusted, where it nests
    runs = [r for r in result.get("runs") or [] if isinstance(r, dict)]
    if result.get("engine_version") == "4" and any(r.get("reason") == "time budget exceeded" for r in runs):
        return False
    if result.get("variant_load", "ok") != "ok":
        return False
    for counts in [result.get("counts"), *(r.get("counts") for r in runs)]:
        if isinstance(counts, dict) and (counts.get("timeouts") or counts.get("crashes")):
            return False
    return True

# ---------------------------------------------------------------------------- outcome kinds
NOTRUN, OK, EXC, TIMEOUT, CRASH = 0, 1, 2, 3, 4

# ---------------------------------------------------------------------------- verdicts
MATCH, MISMATCH, VTIMEOUT, VCRASH, INVALID, SKIPPED = "M", "X", "T", "C", "I", "-"

DIGEST_SIZE = 16
FUNCTION_NAME = "__lcl_fuzz__"  # the module name both sides of a function pair run under


# ---------------------------------------------------------------------------- settings
#: :attr:`Settings.over_budget`'s values, the default (the paper's) first
OVER_BUDGET_RULES = ("exclude", "score")


@dataclass(frozen=True)
class Settings:
    """Every knob that can change a result. Recorded with each result; part of its key."""

    runs: int = 5  # R
    n_function: int = 2000  # N for functions when inputs come from a generator
    n_program: int = 1000  # N for programs when inputs come from a generator
    run_budget: float = 30.0  # cap of T, wall-clock seconds per run (see run_time_budget)
    run_budget_floor: float = 3.0  # T = min(run_budget, floor + factor * reference CPU of the run)
    run_budget_factor: float = 5.0
    run_budget_ref_factor: float = 2.0  # ... but never below ref_factor * that CPU (at most 2 x run_budget)
    timeout_floor: float = 0.1  # per-input timeout: clamp(factor * ref_cpu, floor, cap)
    timeout_factor: float = 10.0
    timeout_cap: float = 5.0
    reference_timeout: float = 10.0  # per input, for the reference itself
    watchdog_factor: float = 3.0  # wall deadline = timeout * factor + grace
    watchdog_grace: float = 0.5
    memory_bytes: int = 2 << 30  # RLIMIT_AS of every worker
    file_bytes: int = 16 << 20  # RLIMIT_FSIZE (one file)
    dir_bytes: int = 64 << 20  # total size of the pair's temporary directory
    max_files: int = 1000  # files/directories a worker may create
    stdout_bytes: int = 64 << 20  # program stdout beyond this is an EXC(OutputLimitExceeded)
    workers: int = 1  # workers per pair (inputs split into contiguous shards)
    chunk: int = 4096  # inputs per worker request (at most 4096)
    #: what a run the VARIANT pushes over T (or whose load hangs) counts as: ``exclude`` (the
    #: paper's Algorithm 1, whose one clock covers both programs: such a run is excluded; the
    #: labels of LoCaL) or ``score`` (its unfinished inputs are timeouts and the run is scored,
    #: so a candidate cannot choose which runs count: for untrusted candidates). See
    #: docs/FUZZING.md, "Which runs are excluded"
    over_budget: str = "exclude"

    def __post_init__(self) -> None:
        if self.over_budget not in OVER_BUDGET_RULES:
            raise ValueError(f"over_budget must be one of {OVER_BUDGET_RULES}, not {self.over_budget!r}")

    def to_dict(self) -> SettingsDict:
        # the default rule is left out, so that results and keys of the paper's rule stay
        # those every earlier result was recorded with
        d = asdict(self)
        if d["over_budget"] == OVER_BUDGET_RULES[0]:
            del d["over_budget"]
        return cast("SettingsDict", d)  # its fields, which SettingsDict names

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Settings:
        """Settings from a mapping of field names (``SettingsDict``, or settings given by hand:
        unknown names are refused)."""
        names = {f.name for f in fields(cls)}
        unknown = set(d) - names
        if unknown:
            raise ValueError(f"unknown fuzz settings: {', '.join(sorted(unknown))}")
        return cls(**d)

    def with_(self, **kw: Any) -> Settings:
        return replace(self, **kw)

    def n_default(self, level: str) -> int:
        return self.n_program if level == "program" else self.n_function

    def result_relevant(self) -> dict[str, float | str]:
        """The settings that enter a result's cache key (``chunk`` only changes batching)."""
        d: dict[str, float | str] = asdict(self)
        d.pop("chunk")
        if d["over_budget"] == OVER_BUDGET_RULES[0]:  # as to_dict: the keys of the paper's rule stay
            del d["over_budget"]
        return d


def run_seed(base_seed: int, run: int) -> int:
    """Seed of run ``run`` (0-based) derived from the recorded base seed (63-bit)."""
    # lcl.core.seeds.digest64("lcl-fuzz", base_seed, run) >> 1, written out: the sandbox's modules import
    # only the standard library (tests/test_seeds.py checks the two agree)
    h = hashlib.sha256(f"lcl-fuzz:{int(base_seed)}:{int(run)}".encode()).digest()
    return int.from_bytes(h[:8], "big") >> 1


def input_timeout(ref_cpu: float, s: Settings) -> float:
    """Per-input CPU-time timeout of the variant, adaptive from the reference's own time."""
    return min(max(ref_cpu * s.timeout_factor, s.timeout_floor), s.timeout_cap)


def run_time_budget(ref_cpu_total: float, s: Settings) -> float:
    """T of one run (Algorithm 1), adaptive from the reference's CPU time ``C`` on the run's
    inputs: ``min(cap, floor + factor * C)``, raised to ``ref_factor * C`` (at most 2 x cap)
    when the reference alone is slow, so that a variant as fast as its reference is never
    excluded for the reference's own slowness (a run of a worker reused for R runs then
    stays within its RLIMIT_CPU of 2 x R x cap)."""
    c = max(0.0, ref_cpu_total)
    adaptive = min(s.run_budget, s.run_budget_floor + s.run_budget_factor * c)
    return max(adaptive, min(2 * s.run_budget, s.run_budget_ref_factor * c))


def run_wall_cap(budget: float, s: Settings) -> float:
    """Wall-clock seconds after which a run is stopped whatever its CPU time (a variant that
    sleeps or waits uses no CPU): the run budget's watchdog, as for one input."""
    return budget * s.watchdog_factor + s.watchdog_grace if budget != float("inf") else budget


def wall_deadline(timeout: float, s: Settings) -> float:
    """Wall-clock seconds after which the external watchdog SIGKILLs the worker."""
    return timeout * s.watchdog_factor + s.watchdog_grace


def verdict(ref_kind: int, ref_digest: bytes, var_kind: int, var_digest: bytes) -> str:
    """The verdict for one input (see the module docstring)."""
    if ref_kind != OK:
        return INVALID
    if var_kind == NOTRUN:
        return SKIPPED
    if var_kind == TIMEOUT:
        return VTIMEOUT
    if var_kind == CRASH:
        return VCRASH
    if var_kind == ref_kind and var_digest == ref_digest:
        return MATCH
    return MISMATCH


def outcomes_match(kind_a: int, digest_a: bytes, kind_b: int, digest_b: bytes) -> bool:
    """Outcome equality irrespective of validity: same kind and same digest for OK and EXC
    (an EXC digest is the digest of the exception type, so same type = match)."""
    return kind_a == kind_b and kind_a in (OK, EXC) and digest_a == digest_b


# ---------------------------------------------------------------------------- digests
# A digest is 16 bytes: byte 0 is a tag (1 marshal-encoded value, 2 canonically encoded value,
# 3 exception type, 4 program stdout); encodings of at most 14 bytes are stored verbatim
# (tag, length, bytes, zero padding), longer ones as tag|0x80 + a 15-byte BLAKE2b. Equal
# outcomes have equal digests; different outcomes collide with probability ~2**-120.
_TAG_MARSHAL, _TAG_CANON, _TAG_EXC, _TAG_STDOUT = 1, 2, 3, 4


_PREFIX = {(t, n): bytes((t, n)) for t in range(1, 5) for n in range(15)}
_blake2b = hashlib.blake2b


def _d(tag: int, data: bytes) -> bytes:
    n = len(data)
    if n <= 14:
        return (_PREFIX[tag, n] + data).ljust(16, b"\0")
    return bytes((tag | 0x80,)) + _blake2b(data, digest_size=15).digest()


def exception_name(exc_type: type) -> str:
    mod = getattr(exc_type, "__module__", "?")
    if mod in (FUNCTION_NAME, "__main__"):
        mod = "<code>"
    return f"{mod}.{getattr(exc_type, '__qualname__', exc_type.__name__)}"


_EXC_CACHE: dict[str, bytes] = {}


def exception_digest(name: str) -> bytes:
    d = _EXC_CACHE.get(name)
    if d is None:
        d = _EXC_CACHE[name] = _d(_TAG_EXC, name.encode("utf-8", "surrogatepass"))
    return d


_SCALARS = (int, str, bytes, bool, type(None))
_D_TRUE = _d(_TAG_MARSHAL, marshal.dumps(True, 2))
_D_FALSE = _d(_TAG_MARSHAL, marshal.dumps(False, 2))


#: ``_d(_TAG_MARSHAL, data)`` for data of n <= 14 bytes is ``_M_HEAD[n] + data + _M_PAD[n]``
_M_HEAD = [bytes((_TAG_MARSHAL, n)) for n in range(15)]
_M_PAD = [bytes(14 - n) for n in range(15)]
_M_LONG = bytes((_TAG_MARSHAL | 0x80,))
_M_INT = _M_HEAD[5] + b"i"
_dumps = marshal.dumps


_M_SHORT = 16  # longer lists are cheaper through marshal, audit event and all


def _m2_items(items: Any) -> bytes | None:
    """marshal v2's bytes for the items of a short list or tuple of int32s, strs, None and
    bools (exact types), or None for anything else."""
    out = []
    for v in items:
        t = type(v)
        if t is int and -0x80000000 <= v <= 0x7FFFFFFF:
            out.append(b"i" + v.to_bytes(4, "little", signed=True))
        elif t is str:
            raw = v.encode("utf-8", "surrogatepass")
            out.append(b"u" + len(raw).to_bytes(4, "little") + raw)
        elif v is None:
            out.append(b"N")
        elif t is bool:
            out.append(b"T" if v else b"F")
        else:
            return None
    return b"".join(out)


def output_digest(value: Any) -> bytes:
    """Digest of a function's return value under type-strict deep equality."""
    t = type(value)
    if t is bool:
        return _D_TRUE if value else _D_FALSE
    # the bytes marshal v2 writes for an int32 and a str, built here: marshal.dumps raises an
    # audit event, which costs a call of the worker's audit hook (about 0.5 us) on every input
    if t is int and -0x80000000 <= value <= 0x7FFFFFFF:
        return _M_INT + value.to_bytes(4, "little", signed=True) + _M_PAD[5]
    if t is str:
        raw = value.encode("utf-8", "surrogatepass")
        data = b"u" + len(raw).to_bytes(4, "little") + raw
    elif (t is list or t is tuple) and len(value) <= _M_SHORT and (items := _m2_items(value)) is not None:
        data = (b"[" if t is list else b"(") + len(value).to_bytes(4, "little") + items
    elif t in _SCALARS or ((t is list or t is tuple) and all(type(v) in _SCALARS for v in value)):
        # marshal v2 (no back-references) is canonical for these exact types; the same bytes as
        # _d(_TAG_MARSHAL, data), inlined (it runs once per input)
        data = _dumps(value, 2)
    else:
        parts: list[bytes] = []
        _encode(value, parts, set())
        return _d(_TAG_CANON, b"".join(parts))
    n = len(data)
    if n <= 14:
        return _M_HEAD[n] + data + _M_PAD[n]
    return _M_LONG + _blake2b(data, digest_size=15).digest()


def _len(n: int) -> bytes:
    return n.to_bytes(8, "little")


def _encode(v: Any, out: list[bytes], path: set[int]) -> None:  # noqa: C901 - one dispatch table
    t = type(v)
    if t is int:
        s = str(v).encode() if abs(v) < (1 << 4000) else hashlib.sha256(v.to_bytes((v.bit_length() + 8) // 8, "little", signed=True)).digest()
        out += (b"i", _len(len(s)), s)
    elif t is bool:
        out.append(b"T" if v else b"F")
    elif v is None:
        out.append(b"N")
    elif t is float:
        if math.isnan(v):
            out.append(b"fnan")
        else:
            out += (b"f", (v + 0.0 if v != 0 else 0.0).hex().encode(), b";")
    elif t is str:
        s = v.encode("utf-8", "surrogatepass")
        out += (b"s", _len(len(s)), s)
    elif t is bytes or t is bytearray:
        out += (b"b" if t is bytes else b"B", _len(len(v)), bytes(v))
    elif t is complex:
        out.append(b"c")
        _encode(v.real, out, path)
        _encode(v.imag, out, path)
    else:
        if id(v) in path:
            out.append(b"<cycle>")
            return
        path.add(id(v))
        try:
            _encode_container(v, t, out, path)
        finally:
            path.discard(id(v))


def _sub(v: Any, path: set[int]) -> bytes:
    parts: list[bytes] = []
    _encode(v, parts, path)
    return b"".join(parts)


def _typename(t: type) -> bytes:
    mod = getattr(t, "__module__", "")
    if mod in (FUNCTION_NAME, "__main__"):
        mod = "<code>"
    return f"{mod}.{getattr(t, '__qualname__', t.__name__)}".encode("utf-8", "surrogatepass")


_HEAPTYPE = 1 << 9  # Py_TPFLAGS_HEAPTYPE: a class made by a class statement or type()


def _impostor(t: type) -> bool:
    """Whether ``t`` names itself after another type: a class (not the code's own) whose
    module and qualified name lead to a different object, e.g. a list subclass calling itself
    ``builtins.tuple``. Types are tagged by name, so such a class is tagged as what it is."""
    if not getattr(t, "__flags__", 0) & _HEAPTYPE:
        return False  # built-in types cannot be made by the code under test
    mod, qual = getattr(t, "__module__", None), getattr(t, "__qualname__", None)
    if type(mod) is not str or type(qual) is not str or mod in (FUNCTION_NAME, "__main__"):
        return False
    obj: Any = sys.modules.get(mod)
    if obj is None:
        return False
    for part in qual.split("."):
        try:
            obj = vars(obj)[part]
        except Exception:  # noqa: BLE001 - a name that leads nowhere impersonates nothing
            return False
    return obj is not t


def _encode_container(v: Any, t: type, out: list[bytes], path: set[int]) -> None:
    name = _typename(t)
    if _impostor(t):
        name = b"~" + name
    out += (b"(", _len(len(name)), name)
    if isinstance(v, (list, tuple)) or (t.__name__ == "deque" and hasattr(v, "maxlen")):
        items = list(v)
        out += (b"L", _len(len(items)))
        for x in items:
            _encode(x, out, path)
        if isinstance(v, tuple) and hasattr(v, "_fields"):
            pass  # namedtuple: type name + items
    elif isinstance(v, dict):
        enc = sorted((_sub(k, path), _sub(x, path)) for k, x in v.items())
        out += (b"D", _len(len(enc)))
        for k, x in enc:
            out += (k, x)
        if hasattr(v, "default_factory"):
            pass  # defaultdict: the factory is not part of the value
    elif isinstance(v, (set, frozenset)):
        members = sorted(_sub(x, path) for x in v)
        out += (b"S", _len(len(members)))
        out += members
    elif isinstance(v, range):
        out += (b"R", repr((v.start, v.stop, v.step)).encode())
    elif t.__module__ in ("fractions", "decimal"):
        out += (b"r", str(v).encode())
    elif isinstance(v, BaseException):
        out.append(b"E")
        _encode(list(v.args), out, path)
    else:
        state = getattr(v, "__dict__", None)
        slots = [s for k in t.__mro__ for s in getattr(k, "__slots__", ()) if isinstance(s, str)]
        if isinstance(state, dict) or slots:
            d = dict(state) if isinstance(state, dict) else {}
            for s in slots:
                if s not in ("__dict__", "__weakref__") and hasattr(v, s):
                    d[s] = getattr(v, s)
            out.append(b"O")
            _encode(d, out, path)
        else:
            out.append(b"?")  # stateless / opaque object: type name only


# ---------------------------------------------------------------------------- program stdout
class StrippedHasher:
    """Streaming digest of ``stdout.strip()`` with a size cap; memory stays O(whitespace run)."""

    __slots__ = ("_h", "_head", "_n", "_pending", "_started", "cap", "overflow", "total")

    def __init__(self, cap: int) -> None:
        self._h = hashlib.blake2b(digest_size=15)
        self._started = False
        self._pending = bytearray()
        self._head = b""
        self._n = 0
        self.total = 0
        self.cap = cap
        self.overflow = False

    def _emit(self, b: bytes | bytearray) -> None:
        if self._n < 15:
            self._head += bytes(b[: 15 - self._n])
        self._n += len(b)
        self._h.update(b)

    def feed(self, b: bytes) -> None:
        self.total += len(b)
        if self.total > self.cap:
            self.overflow = True
            return
        if not self._started:
            b = b.lstrip()
            if not b:
                return
            self._started = True
        body = b.rstrip()
        if body:
            if self._pending:
                self._emit(self._pending)
                self._pending.clear()
            self._emit(body)
            self._pending += b[len(body):]
        else:
            self._pending += b

    def digest(self) -> bytes:
        if self._n <= 14:
            return _d(_TAG_STDOUT, self._head)
        return bytes((_TAG_STDOUT | 0x80,)) + self._h.digest()


def stdout_digest(data: bytes) -> bytes:
    """Digest of ``data.strip()``; equal to what :class:`StrippedHasher` gives for the same bytes."""
    return _d(_TAG_STDOUT, data.strip()) if len(data.strip()) <= 14 else \
        bytes((_TAG_STDOUT | 0x80,)) + _blake2b(data.strip(), digest_size=15).digest()


#: source fragments after which a program gets real file descriptors 0/1 per input (memfds),
#: so ``open(0)``, ``os.read(0, ...)``, ``os.write(1, ...)`` behave as in a process
FD_LEVEL_HINTS = ("open(", "os.", "fileno", "/dev/std", "posix", "FileIO", "import os", "from os", "__import__",
                  "fdopen", "buffer.raw", "importlib", "exec(", "eval(")


def needs_fds(code: str) -> bool:
    return any(h in code for h in FD_LEVEL_HINTS)


def summary_counts(verdicts: str) -> Counts:
    return {
        "matches": verdicts.count(MATCH),
        "mismatches": verdicts.count(MISMATCH),
        "timeouts": verdicts.count(VTIMEOUT),
        "crashes": verdicts.count(VCRASH),
        "invalid": verdicts.count(INVALID),
        "skipped": verdicts.count(SKIPPED),
    }


@dataclass
class RunScore:
    """Score of one run (Algorithm 1's inner loop)."""

    run: int
    seed: int
    verdicts: str
    charged: float
    excluded: bool
    reason: str | None = None
    score: float | None = None
    counts: Counts = field(default_factory=lambda: summary_counts(""))


#: why a run was excluded. ``OVER_BUDGET``: the run went over T (engine versions up to 7, which
#: excluded a run the variant pushed over T; since version 8 such a run is scored and only the
#: reference's reasons below exclude one, with ``NO_VALID_INPUT``)
OVER_BUDGET = "time budget exceeded"
REFERENCE_OVER_BUDGET = "reference alone exceeds the time budget"
#: the reference's CPU times are no measurement (not finite, or negative): T and the per-input
#: timeouts cannot be derived from them, so the run is excluded without running the variant
REFERENCE_UNMEASURED = "reference CPU time not measurable"
NO_VALID_INPUT = "no valid input"
#: the reasons that exclude a run before the variant runs: the reference's doing alone
REFERENCE_REASONS = (REFERENCE_OVER_BUDGET, REFERENCE_UNMEASURED)
#: reasons of runs whose per-input counts are not part of a result (the variant did not run)
UNCOUNTED_REASONS = (OVER_BUDGET, *REFERENCE_REASONS)


def reference_over_budget(ref_cpu_total: float, s: Settings) -> bool:
    """Whether the reference alone needs more CPU on a run's inputs than the run's T. Algorithm 1
    times both programs with one clock (``now() - t0 > T`` around ``code_ori(x)`` and
    ``code_var(x)``), so such a run times out whatever the variant does: it is excluded without
    running the variant. T is at least 2 C up to 2 x ``run_budget``, so only a reference
    needing more than that (60 s by default) is concerned."""
    return ref_cpu_total > run_time_budget(ref_cpu_total, s)


def score_run(run: int, seed: int, verdicts: str, charged: float, budget_exceeded: bool,
              reason: str = OVER_BUDGET) -> RunScore:
    """One run's score from its verdicts; ``budget_exceeded``: excluded for ``reason`` instead
    (since engine version 8 only the reference's reasons, :data:`REFERENCE_REASONS`, exclude)."""
    counts = summary_counts(verdicts)
    valid = len(verdicts) - counts["invalid"]
    if budget_exceeded:
        return RunScore(run, seed, verdicts, charged, True, reason, None, counts)
    if valid == 0:
        return RunScore(run, seed, verdicts, charged, True, NO_VALID_INPUT, None, counts)
    return RunScore(run, seed, verdicts, charged, False, None, counts["matches"] / valid, counts)


def df_score(run_scores: list[RunScore]) -> float:
    """Mean over kept runs; :data:`NO_KEPT_RUN` when every run was excluded (Algorithm 1)."""
    kept = [r.score for r in run_scores if not r.excluded and r.score is not None]
    if not kept:
        return NO_KEPT_RUN
    return sum(kept) / len(kept)


def verdict_digest(run_scores: list[RunScore]) -> str:
    h = hashlib.sha256()
    for r in run_scores:
        h.update(f"{r.run}:{r.seed}:".encode())
        h.update(r.verdicts.encode())
        h.update(b"\n")
    return h.hexdigest()
