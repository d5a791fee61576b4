"""Algorithm 1 of the paper on top of the sandboxed executor: runs, verdicts, ``df_score``.

Entry points: :func:`fuzz_pair` (one pair, explicit inputs or a generator) and
:func:`compute_reference` (reference outcomes, computed once per task and input set and
reused by every variant; pass a ``ref_cache`` to share them).
"""

from __future__ import annotations

import array
import ast
import hashlib
import json
import math
import operator
import threading
import time
import warnings
from collections.abc import Callable, MutableMapping, Sequence
from dataclasses import dataclass
from itertools import repeat
from typing import Any

from lcl.core.errors import UserError

from . import isolation as ISO
from . import semantics as S
from .sandbox import CodeSpec, Executor, LoadStatus, wipe_dir

Generator = Callable[[int, int], Sequence[Any]]


class LoadError(UserError):
    """A side cannot be loaded (syntax error, missing entry point, reference fails to import)."""


# ---------------------------------------------------------------------------- validation
_WARN_LOCK = threading.Lock()


def check_code(code: str, *, level: str, entry: str | None, side: str, label: str = "") -> None:
    """Static checks before anything runs: it parses; a function pair defines ``entry``."""
    where = f"{side}{f' of {label}' if label else ''}"
    if not isinstance(code, str) or not code.strip():
        raise LoadError(f"{where}: the code is empty")
    try:
        # benchmark code triggers Syntax/DeprecationWarnings; catch_warnings swaps process-wide
        # state, so batch threads take turns
        with _WARN_LOCK, warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(code)
            compile(tree, f"<{side}>", "exec")
    except SyntaxError as exc:
        raise LoadError(f"{where}: unparsable code (line {exc.lineno}: {exc.msg})") from None
    except ValueError as exc:
        raise LoadError(f"{where}: unparsable code ({exc})") from None
    except (RecursionError, MemoryError) as exc:  # nesting deeper than the compiler's stack
        raise LoadError(f"{where}: unparsable code ({type(exc).__name__}: nested too deeply)") from None
    if level == "program" and side == "reference" and never_runs(tree):
        raise LoadError(f"{where}: the program never runs: at top level it calls none of its own functions and "
                        "does no I/O, so it prints nothing on any input (the code probably lost its entry call, "
                        "e.g. `main()`)")
    if level == "function":
        if not entry:
            raise LoadError(f"{where}: a function pair needs an entry point (--entry NAME) or --stdin")
        if entry not in _top_level_names(tree):
            raise LoadError(f"{where}: missing entry point {entry!r} (no top-level def/assignment/import of it)")


#: calls and attribute calls that read stdin or write stdout (or may: eval, exec, open)
_IO_CALLS = frozenset({"print", "input", "open", "eval", "exec", "__import__", "exit", "quit"})
_IO_ATTRS = frozenset({"write", "writelines", "read", "readline", "readlines", "print", "buffer"})
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def _call_root(node: ast.expr) -> str | None:
    while isinstance(node, (ast.Attribute, ast.Call, ast.Subscript)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else None


def never_runs(tree: ast.Module) -> bool:
    """Whether a stdin program does nothing when run: the code outside its ``def``/``class`` bodies
    calls none of the module's own functions, classes or top-level names (``input =
    sys.stdin.readline`` then ``input()`` counts) and no I/O (``print``, ``input``, ``open``,
    ``eval``/``exec``, ``.write``/``.read*``). Such a program prints nothing on every input, so
    every variant that also prints nothing "matches" it: a pair with such a reference has no
    meaningful df_score (found in the published PIE pairs, whose code lost its ``main()`` call).
    Conservative: any such call anywhere at top level, even inside ``if __name__ == ...``, counts
    as running."""
    # not _top_level_names: imported modules must not count, or `sys.setrecursionlimit(...)` would "run"
    local = {n.name for n in tree.body if isinstance(n, _DEFS)}
    for stmt in tree.body:
        if isinstance(stmt, (ast.Assign, ast.AnnAssign)):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            local |= {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
    for stmt in tree.body:
        if isinstance(stmt, _DEFS):
            continue
        for node in ast.walk(stmt):
            if not isinstance(node, ast.Call):
                continue
            f = node.func
            if isinstance(f, ast.Name) and (f.id in _IO_CALLS or f.id in local):
                return False
            if isinstance(f, ast.Attribute) and (f.attr in _IO_ATTRS or _call_root(f) in local):
                return False
    return True


def _top_level_names(tree: ast.Module) -> set[str]:
    names: set[str] = set()

    def visit(body: list[ast.stmt]) -> None:
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(node.name)
            elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for t in targets:
                    for sub in ast.walk(t):
                        if isinstance(sub, ast.Name):
                            names.add(sub.id)
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                for a in node.names:
                    names.add((a.asname or a.name).split(".")[0])
            elif isinstance(node, (ast.If, ast.Try, ast.With, ast.For, ast.While)):
                for field_ in ("body", "orelse", "finalbody"):
                    visit(getattr(node, field_, []) or [])
                for h in getattr(node, "handlers", []) or []:
                    visit(h.body)

    visit(tree.body)
    return names


def check_inputs(inputs: Any, *, level: str, source: str = "inputs") -> list[Any]:
    if not isinstance(inputs, (list, tuple)) or len(inputs) == 0:
        raise UserError(f"{source}: no inputs (expected a non-empty list)")
    out = list(inputs)
    if {list, tuple}.issuperset(map(type, out)) if level == "function" else \
            (level == "program" and {str}.issuperset(map(type, out))):
        return out  # the common case, checked at C speed (exact types)
    for k, x in enumerate(out, 1):
        if level == "function" and not isinstance(x, (list, tuple)):
            raise UserError(f"{source}: input {k} is not a list of positional arguments: {str(x)[:80]!r}")
        if level == "program" and not isinstance(x, str):
            raise UserError(f"{source}: input {k} is not a string (stdin text): {str(x)[:80]!r}")
    return out


def inputs_digest(inputs: Sequence[Any]) -> str:
    """SHA-256 of the inputs' JSON (tuples encode like lists; non-JSON values by ``repr``)."""
    try:
        data = json.dumps(list(inputs), sort_keys=True, default=repr, separators=(",", ":"), ensure_ascii=False)
    except TypeError:  # a dict whose keys do not sort (e.g. 1 and "a"): encode dicts as sorted item lists
        data = json.dumps(_canonical(list(inputs)), default=repr, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(data.encode("utf-8", "surrogatepass")).hexdigest()


def _inputs_digest_yielding(inputs: Sequence[Any], step: int = 1024) -> str:
    """``inputs_digest(inputs)``, byte for byte (a JSON list is ``[`` + its items' encodings
    joined by ``,`` + ``]``), encoded ``step`` inputs at a time with the GIL released in
    between: a helper thread computing it then delays the harness's own thread by one step,
    not by the whole encoding."""
    items = list(inputs)
    if len(items) <= step:
        return inputs_digest(items)
    h = hashlib.sha256(b"[")
    sleep = time.sleep
    try:
        for k in range(0, len(items), step):
            part = json.dumps(items[k:k + step], sort_keys=True, default=repr, separators=(",", ":"),
                              ensure_ascii=False)
            if k:
                h.update(b",")
            h.update(part[1:-1].encode("utf-8", "surrogatepass"))
            sleep(0)
    except TypeError:  # unsortable dict keys somewhere: the whole list is encoded canonically
        return inputs_digest(items)
    h.update(b"]")
    return h.hexdigest()


def _canonical(x: object) -> object:
    """``x`` with its dicts as sorted ``(repr(key), value)`` pairs (JSON lists), encodable whatever the keys."""
    if isinstance(x, dict):
        return {"__dict__": sorted(((repr(k), _canonical(v)) for k, v in x.items()), key=lambda kv: kv[0])}
    if isinstance(x, (list, tuple)):
        return [_canonical(v) for v in x]
    return x


def code_digest(code: str) -> str:
    return hashlib.sha256(code.encode("utf-8", "surrogatepass")).hexdigest()


# ---------------------------------------------------------------------------- reference
@dataclass
class ReferenceOutcomes:
    kinds: bytes
    digests: bytes  # N * DIGEST_SIZE
    cpu: list[float]

    @property
    def n(self) -> int:
        return len(self.kinds)

    def digest(self, i: int) -> bytes:
        return self.digests[i * S.DIGEST_SIZE:(i + 1) * S.DIGEST_SIZE]

    def to_blob(self) -> bytes:
        cpu = array.array("d", self.cpu).tobytes()
        return len(self.kinds).to_bytes(8, "little") + bytes(self.kinds) + self.digests + cpu

    @classmethod
    def from_blob(cls, blob: bytes) -> ReferenceOutcomes:
        n = int.from_bytes(blob[:8], "little")
        kinds = blob[8:8 + n]
        digests = blob[8 + n:8 + n + n * S.DIGEST_SIZE]
        cpu = array.array("d")
        cpu.frombytes(blob[8 + n + n * S.DIGEST_SIZE:])
        return cls(kinds, digests, list(cpu))


def reference_key(spec: CodeSpec, inputs: Sequence[Any], settings: S.Settings, inputs_hash: str | None = None) -> str:
    s = settings
    relevant = {k: v for k, v in s.result_relevant().items()
                if k in ("reference_timeout", "memory_bytes", "file_bytes", "dir_bytes", "max_files",
                         "stdout_bytes", "watchdog_factor", "watchdog_grace", "workers")}
    return hashlib.sha256(json.dumps(
        ["ref", S.ENGINE_VERSION, spec.level, spec.entry, code_digest(spec.code), inputs_hash or inputs_digest(inputs), relevant],
        sort_keys=True).encode()).hexdigest()


def compute_reference(spec: CodeSpec, inputs: Sequence[Any], settings: S.Settings, *,
                      network: str | None = None, ref_cache: MutableMapping[str, bytes] | None = None,
                      label: str = "", inputs_hash: str | None = None,
                      blobs: list[bytes] | None = None, stop_over_budget: bool = False,
                      isolation: str | None = None) -> ReferenceOutcomes:
    """Reference outcomes for ``inputs`` (from ``ref_cache`` when present). ``blobs``: the
    same inputs already pickled by :meth:`Executor.set_inputs` of the same level (reused).

    ``stop_over_budget`` (Algorithm 1 only): stop the pass as soon as the CPU of the inputs
    finished so far (what ``ReferenceOutcomes.cpu`` records) exceeds 2 x ``run_budget``, which
    no run budget T exceeds (:func:`lcl.engine.fuzz.semantics.run_time_budget`). The run is then
    excluded whatever the variant does (:func:`lcl.engine.fuzz.semantics.reference_over_budget` holds
    for that CPU and for any larger one), so the pair's result is the one the whole pass gives;
    the inputs not run are ``NOTRUN``. A PIE reference needing 100-160 s per run then costs
    about 60 s. Other uses (clone fingerprints) need every outcome and leave it off."""
    key = reference_key(spec, inputs, settings, inputs_hash) if ref_cache is not None else ""
    if ref_cache is not None:
        blob = ref_cache.get(key)
        if blob is not None:
            return ReferenceOutcomes.from_blob(blob)
    s = settings  # with workers > 1 the reference is sharded the same way as the variant
    known = inputs if isinstance(inputs, InputSet) else None
    if blobs is None and known is not None:
        blobs = known.blobs.get(spec.level)
    with Executor(spec, s, network=network, isolation=isolation) as ex:
        ex.precise = True
        ex.single_pass = True  # each input runs once: plain unpickling, no per-input preparation
        if stop_over_budget:
            ex.stop_ok_cpu = 2 * s.run_budget
        ex.set_inputs(list(inputs), blobs=blobs)
        if known is not None:  # the variants of this input set reuse the pickles
            known.blobs.setdefault(spec.level, ex.blobs)
        res = ex.run_pass([s.reference_timeout] * len(inputs), float("inf"), s.reference_timeout)
    _raise_load(res.load, "reference", label, spec.entry)
    digests = bytearray(res.digests)
    zero = bytes(S.DIGEST_SIZE)
    for i, k in enumerate(res.kinds):
        if k not in (S.OK, S.EXC):
            digests[i * S.DIGEST_SIZE:(i + 1) * S.DIGEST_SIZE] = zero
    out = ReferenceOutcomes(bytes(res.kinds), bytes(digests),
                            [c if k == S.OK else 0.0 for k, c in zip(res.kinds, res.charges)])
    if ref_cache is not None:
        ref_cache[key] = out.to_blob()
    return out


def _raise_load(load: LoadStatus, side: str, label: str, entry: str | None) -> None:
    where = f"{side}{f' of {label}' if label else ''}"
    if load.status == "ok":
        return
    if load.status == "syntax":
        raise LoadError(f"{where}: unparsable code ({load.detail})")
    if load.status == "noentry":
        raise LoadError(f"{where}: missing entry point {entry!r}")
    if side == "reference":
        raise LoadError(f"{where}: the module failed to load ({load.status}{': ' + load.detail if load.detail else ''})")


# ---------------------------------------------------------------------------- verdicts
_NONZERO = bytes([0] + [1] * 255)  # translate table: non-zero bytes -> 1


def _nonzero_groups(x: bytes, size: int) -> list[int]:
    """Indices of the ``size``-byte groups of ``x`` that hold a non-zero byte."""
    t = x.translate(_NONZERO)
    out = []
    pos = t.find(1)
    while pos >= 0:
        g = pos // size
        out.append(g)
        pos = t.find(1, (g + 1) * size)
    return out


def _xor(a: bytes, b: bytes) -> bytes:
    if len(a) != len(b):
        raise ValueError("outcome records of different lengths")
    return (int.from_bytes(a, "little") ^ int.from_bytes(b, "little")).to_bytes(len(a), "little")


_SAME_TABLE = bytes((ord(S.MATCH) if b == S.OK else ord(S.INVALID)) for b in range(256))


def run_verdicts(ref: ReferenceOutcomes, kinds: bytes | bytearray, digests: bytes | bytearray) -> str:
    """The verdict string of one run (``semantics.verdict`` for every input), vectorised:
    only inputs whose outcome differs from the reference's are looked at one by one."""
    base = bytearray(ref.kinds.translate(_SAME_TABLE))  # M where the reference is OK, else I
    if bytes(kinds) == ref.kinds and bytes(digests) == ref.digests:
        return base.decode()
    ds = S.DIGEST_SIZE
    rk, rd = ref.kinds, ref.digests
    vk, vd = bytes(kinds), bytes(digests)
    # the inputs whose kind or digest differs, found at C speed: the non-zero bytes of the XOR
    # (numpy only when many differ: its import alone costs more than a whole small pair)
    differ = set(_nonzero_groups(_xor(rk, vk), 1))
    differ.update(_nonzero_groups(_xor(rd, vd), ds))
    if len(differ) > _VECTOR_FROM:  # e.g. a mutant differing almost everywhere: numpy, not a Python loop
        return _verdicts_numpy(rk, rd, vk, vd)
    for i in sorted(differ):
        if rk[i] == S.OK:  # invalid inputs stay I whatever the variant did
            a, b = i * ds, i * ds + ds
            base[i] = ord(S.verdict(rk[i], rd[a:b], vk[i], vd[a:b]))
    return base.decode()


_VECTOR_FROM = 256  # differing inputs from which the numpy path is faster (numpy is imported lazily)


def _verdicts_numpy(rk: bytes, rd: bytes, vk: bytes, vd: bytes) -> str:
    """``semantics.verdict`` for every input at once (same precedence as there)."""
    import numpy as np

    r_kind, v_kind = np.frombuffer(rk, np.uint8), np.frombuffer(vk, np.uint8)
    same = (np.frombuffer(rd, np.uint8).reshape(-1, S.DIGEST_SIZE)
            == np.frombuffer(vd, np.uint8).reshape(-1, S.DIGEST_SIZE)).all(axis=1) & (r_kind == v_kind)
    out = np.full(len(r_kind), ord(S.MISMATCH), np.uint8)
    out[same] = ord(S.MATCH)
    out[v_kind == S.CRASH] = ord(S.VCRASH)
    out[v_kind == S.TIMEOUT] = ord(S.VTIMEOUT)
    out[v_kind == S.NOTRUN] = ord(S.SKIPPED)
    out[r_kind != S.OK] = ord(S.INVALID)
    return out.tobytes().decode()


# ---------------------------------------------------------------------------- exclusions
_NOTRUN, _TIMEOUT = bytes([S.NOTRUN]), bytes([S.TIMEOUT])
_NOT_INVALID = bytes(ord(S.INVALID) if b == ord(S.INVALID) else ord(S.VTIMEOUT) for b in range(256))


def reference_exclusion(ref: ReferenceOutcomes, s: S.Settings) -> str | None:
    """Why a run with these reference outcomes is excluded before the variant runs, or None.

    Only the reference can exclude a run (``docs/FUZZING.md``, "Which runs are excluded"):
    its CPU times are no measurement (not finite, or negative: a fault of the measuring, not
    of the code, and T, the timeouts and ``math.fsum`` cannot use them), or it alone needs more
    than T. A run with no valid input is excluded later, by :func:`semantics.score_run`."""
    if not all(map(math.isfinite, ref.cpu)) or any(c < 0 for c in ref.cpu):
        return S.REFERENCE_UNMEASURED
    if S.reference_over_budget(math.fsum(ref.cpu), s):  # times out whatever the variant does
        return S.REFERENCE_OVER_BUDGET
    return None


def timed_out_verdicts(ref: ReferenceOutcomes) -> str:
    """The verdicts of a run in which the variant finished no input (its load hung): ``T``
    for every valid input, ``I`` for the reference's invalid ones."""
    return run_verdicts(ref, bytes([S.TIMEOUT]) * ref.n, bytes(ref.n * S.DIGEST_SIZE))


def _all_timeouts(verdicts: str) -> str:
    """:func:`timed_out_verdicts` from a run's verdicts (``I`` where the reference is invalid)."""
    return verdicts.encode().translate(_NOT_INVALID).decode()


# ---------------------------------------------------------------------------- one pair
class InputSet(list):
    """One run's generated inputs plus what the harness derives from them (their digest, and
    their pickled form per level), computed once and reused by every pair given the same set
    (a batch hands a task's set to its reference and to all its variants)."""

    __slots__ = ("blobs", "digest")

    def __init__(self, items: Any = ()) -> None:
        super().__init__(items)
        self.digest: str | None = None
        self.blobs: dict[str, list[bytes]] = {}

    def inputs_digest(self) -> str:
        if self.digest is None:
            self.digest = inputs_digest(self)
        return self.digest


class _Digest(threading.Thread):
    """``inputs_digest(items)`` in a helper thread (``start``) or in this one (``run``)."""

    def __init__(self, items: Sequence[Any]) -> None:
        super().__init__(name="lcl-fuzz-inputs-digest", daemon=True)
        self.items = items
        self.value: str | None = None
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            self.value = _inputs_digest_yielding(self.items) if self.ident is not None else inputs_digest(self.items)
        except BaseException as exc:  # noqa: BLE001 - re-raised by join
            self.error = exc

    def join(self, timeout: float | None = None) -> None:
        if self.ident is not None:
            super().join(timeout)
        if self.error is not None:
            err, self.error = self.error, None
            raise err


@dataclass
class PairResult:
    df_score: float
    runs: list[S.RunScore]
    n: int
    level: str
    entry: str | None
    base_seed: int
    settings: S.Settings
    variant_load: str
    inputs_mode: str  # explicit | generator
    inputs_digests: list[str]
    #: the variant workers' isolation (``isolation.provenance``): which kernel mechanisms confined them
    isolation: ISO.Provenance | None = None

    @property
    def verdict_digest(self) -> str:
        return S.verdict_digest(self.runs)

    def counts(self) -> S.Counts:
        tot = S.summary_counts("")  # every count 0
        for r in self.runs:
            if not r.excluded:
                for k in S.COUNT_KEYS:
                    tot[k] += r.counts[k]
        return tot

    def to_dict(self) -> S.FuzzResult:
        """Deterministic summary (no timings): same seeds, inputs, code and settings give the
        same dict, byte for byte once JSON-encoded with sorted keys."""
        return {
            "df_score": self.df_score,
            "run_scores": [r.score for r in self.runs],
            "runs": [
                {"run": r.run, "seed": r.seed, "score": r.score, "excluded": r.excluded, "reason": r.reason,
                 "counts": None if r.reason in S.UNCOUNTED_REASONS else r.counts}
                for r in self.runs
            ],
            "counts": self.counts(),
            "n": self.n,
            "kept_runs": sum(1 for r in self.runs if not r.excluded),
            "verdict_digest": self.verdict_digest,
            "level": self.level,
            "entry": self.entry,
            "base_seed": self.base_seed,
            "seeds": [r.seed for r in self.runs],
            "inputs_mode": self.inputs_mode,
            "inputs_digests": self.inputs_digests,
            "variant_load": self.variant_load,
            "settings": self.settings.to_dict(),
            "engine_version": S.ENGINE_VERSION,
            **({"isolation": self.isolation} if self.isolation is not None else {}),
        }


def fuzz_pair(reference: str, variant: str, *, entry: str | None = None, stdin: bool = False,
              inputs: Sequence[Any] | None = None, generator: Generator | None = None,
              n: int | None = None, seed: int = 0, settings: S.Settings | None = None,
              network: str | None = None, ref_cache: MutableMapping[str, bytes] | None = None,
              label: str = "", inputs_hash: str | None = None, only_runs: Sequence[int] | None = None,
              isolation: str | None = None) -> PairResult:
    """Algorithm 1 for one (reference, variant) pair.

    Give either explicit ``inputs`` (N = their count, or the first ``n``; every run
    re-executes them) or ``generator(seed, n)`` (run r uses ``run_seed(seed, r)``; N is
    ``n`` or the level's default). ``inputs_hash``: ``inputs_digest`` of the explicit inputs
    used (after ``n``) when the caller has it already. Raises :class:`LoadError`/``UserError``
    for bad code or inputs; never raises because of what the variant does at run time.

    Generator runs are independent (each in fresh workers, like a fresh fuzzing process per
    run), so ``only_runs`` may execute a subset of them, e.g. one run per thread of a batch;
    :func:`merge_runs` joins such parts into the result of the whole pair, identical to
    running all runs here. ``isolation``: ``best`` (default, or ``$LCL_FUZZ_ISOLATION``) runs
    with what the kernel enforces and reports it; ``strict`` raises ``SandboxError`` unless
    every mechanism is there (``docs/FUZZING.md``).
    """
    s = settings or S.Settings()
    level = "program" if stdin else "function"
    if (inputs is None) == (generator is None):
        raise UserError("give exactly one of inputs= or generator=")
    check_code(reference, level=level, entry=entry, side="reference", label=label)
    check_code(variant, level=level, entry=entry, side="variant", label=label)
    ref_spec = CodeSpec(level, reference, entry, "reference.py")
    var_spec = CodeSpec(level, variant, entry, "variant.py")
    seeds = [S.run_seed(seed, r) for r in range(s.runs)]
    order = list(range(s.runs)) if only_runs is None else sorted(set(only_runs))
    if only_runs is not None and (inputs is not None or not order or not set(order) <= set(range(s.runs))):
        raise UserError("only_runs: a non-empty subset of range(runs), with a generator")
    shared: dict[int, InputSet] = {}  # runs whose generated set comes with a shared digest / pickles
    if inputs is not None:
        items = check_inputs(inputs, level=level)
        if n is not None:
            if n < 1 or n > len(items):
                raise UserError(f"--n {n}: must be between 1 and the number of inputs ({len(items)})")
            items = items[:n]
        if isinstance(inputs, InputSet) and len(items) == len(inputs):  # e.g. a batch row's inputs
            items = inputs
            shared = dict.fromkeys(range(s.runs), inputs)
        per_run = [items] * s.runs
        mode = "explicit"
    else:
        count = n or s.n_default(level)
        per_run = [[]] * s.runs
        for r in order:
            raw = generator(seeds[r], count)  # type: ignore[misc]
            if isinstance(raw, InputSet):
                shared[r] = raw
            per_run[r] = check_inputs(list(raw), level=level, source=f"generator(seed={seeds[r]})")
        mode = "generator"
    hashes: list[Any] = [None] * s.runs  # inputs digests (str), computed once the variant's workers start
    runs: list[S.RunScore] = []
    load_status = "ok"
    with Executor(var_spec, s, network=network, isolation=isolation) as ex:
        iso = ISO.provenance(ex.fs.isolation)
        last_inputs: Any = None
        ref: ReferenceOutcomes | None = None
        timeouts: list[float] = []
        for r in order:
            items = per_run[r]
            if items is not last_inputs:
                # a generated run starts in fresh workers; the variant's workers fork, load and
                # receive their inputs while the reference runs in its own workers
                if last_inputs is not None:
                    ex.drop_workers()
                    wipe_dir(ex.tmpdir)
                known = shared.get(r)
                ex.set_inputs(items, blobs=known.blobs.get(level) if known is not None else None)
                if known is not None:
                    known.blobs.setdefault(level, ex.blobs)
                if load_status != "timeout":
                    ex.prestart(s.reference_timeout)
                digest = _Digest(items)
                if inputs_hash is not None and mode == "explicit":
                    digest.value = inputs_hash
                elif known is not None:
                    digest.value = known.inputs_digest()
                elif ref_cache is not None:
                    digest.run()  # the reference's cache key needs it
                    digest.join()
                else:
                    digest.start()  # computed while the reference runs (its key is not needed)
                try:
                    ref = compute_reference(ref_spec, items, s, network=network, ref_cache=ref_cache, label=label,
                                            inputs_hash=digest.value, blobs=ex.blobs, stop_over_budget=True,
                                            isolation=isolation)
                finally:
                    digest.join()  # an error of the digest comes first, as it did when it came first
                hashes[r] = digest.value
                if mode == "explicit":
                    hashes = [digest.value] * s.runs
                # = [S.input_timeout(c, s) for c in ref.cpu], at C speed
                timeouts = list(map(min, map(max, map(operator.mul, ref.cpu, repeat(s.timeout_factor)),
                                             repeat(s.timeout_floor)), repeat(s.timeout_cap)))
                last_inputs = items
            assert ref is not None
            scored = s.over_budget == "score"
            if load_status == "timeout" and not scored:  # hangs while loading: every run would, too (excluded)
                runs.append(S.score_run(r, seeds[r], S.SKIPPED * len(items), 0.0, True))
                continue
            excluded = reference_exclusion(ref, s)
            if excluded is not None:  # the reference's doing: the run is excluded whatever the variant does
                runs.append(S.score_run(r, seeds[r], S.SKIPPED * len(items), 0.0, True, excluded))
                continue
            if load_status == "timeout":  # hangs while loading: every run would, too (scored)
                runs.append(S.score_run(r, seeds[r], timed_out_verdicts(ref), 0.0, False))
                continue
            if r > order[0] and mode == "explicit":
                wipe_dir(ex.tmpdir)
            res = ex.run_pass(timeouts, S.run_time_budget(math.fsum(ref.cpu), s), s.reference_timeout)
            _raise_load(res.load, "variant", label, entry)
            if res.load.status != "ok":
                load_status = res.load.status
                kinds = bytearray([{"exc": S.EXC, "crash": S.CRASH}.get(load_status, S.TIMEOUT)]) * len(items)
                ed = S.exception_digest(res.load.detail or "?")
                res.kinds, res.digests = kinds, bytearray(ed * len(items))
                res.exceeded = load_status == "timeout"
            if res.exceeded and not scored:  # Algorithm 1: a run over T is excluded
                runs.append(S.score_run(r, seeds[r], S.SKIPPED * len(items), 0.0, True))
                continue
            if res.exceeded and res.load.status == "ok":
                # the variant alone went over T (the reference is within it, checked above): the
                # inputs it did not finish are its timeouts, and the run is scored
                res.kinds = bytearray(bytes(res.kinds).replace(_NOTRUN, _TIMEOUT))
            verdicts = run_verdicts(ref, res.kinds, res.digests)
            runs.append(S.score_run(r, seeds[r], verdicts, 0.0, False))
    return PairResult(S.df_score(runs), runs, len(per_run[order[0]]), level, entry, int(seed), s, load_status, mode,
                      [hashes[r] for r in order] if mode == "generator" else hashes[:1], iso)


def merge_runs(parts: Sequence[PairResult]) -> PairResult:
    """One pair's result from parts computed with ``fuzz_pair(..., only_runs=[r])`` (one per run,
    in any order): the result ``fuzz_pair`` gives for all runs at once.
    As there, a variant whose load hangs has every input of every later run timed out (the
    reference's invalid inputs stay invalid, and a run the reference excludes stays excluded)."""
    by_run = sorted(((run, p, i) for p in parts for i, run in enumerate(p.runs)), key=lambda x: x[0].run)
    first = parts[0]
    if [x[0].run for x in by_run] != list(range(first.settings.runs)) or any(len(p.runs) != 1 for p in parts):
        raise ValueError("merge_runs: one part per run, covering every run")
    runs: list[S.RunScore] = []
    load_status = "ok"
    scored = first.settings.over_budget == "score"
    for run, part, _ in by_run:
        if load_status == "timeout" and not scored:  # as there: every later run excluded
            run = S.score_run(run.run, run.seed, S.SKIPPED * part.n, 0.0, True)
        elif load_status == "timeout":
            if run.reason not in S.REFERENCE_REASONS:  # as there: every input the variant had is a timeout
                run = S.score_run(run.run, run.seed, _all_timeouts(run.verdicts), 0.0, False)
        elif part.variant_load != "ok":
            load_status = part.variant_load
        runs.append(run)
    hashes = [part.inputs_digests[i] for _, part, i in by_run]
    return PairResult(S.df_score(runs), runs, first.n, first.level, first.entry, first.base_seed, first.settings,
                      load_status, first.inputs_mode, hashes, first.isolation)
