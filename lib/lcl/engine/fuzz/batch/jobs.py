"""Job planning of a batch: pairs-file rows (with explicit inputs, or resolved by the resolvers
the caller passes, as published LoCaL rows are) become checked :class:`PairJob` s with their
result and reference cache keys. Nothing here runs code under test.
"""

from __future__ import annotations

import importlib
import json
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, TypedDict

from lcl.core import cache, records
from lcl.core.errors import UserError
from lcl.core.io import read_jsonl

from .. import semantics as S
from ..algorithm import Generator, InputSet, check_code, check_inputs, code_digest, inputs_digest

# A pairs-file row is a decoded JSON object: ``Mapping[str, Any]`` below, its values being
# whatever the file holds (read and checked field by field here).


class ResolvedInputs(TypedDict, total=False):
    """What a resolver finds for a row it recognises: ``entry`` (a function pair) or ``stdin``
    (a program pair), and ``inputs`` or ``generator`` (``gen(seed, n)``) with ``n`` (the
    level's default N when None); ``spec_*``: where the project's resolver took the inputs'
    constraints from (informative; not part of any key)."""

    entry: str | None
    stdin: bool
    inputs: Sequence[Any]  # decoded inputs, whatever the task takes (checked by check_inputs)
    generator: Generator
    n: int | None
    spec_origin: str
    spec_verified: bool


#: ``fn(row) -> ResolvedInputs | None`` for rows without inputs (None: "not mine")
Resolver = Callable[[Mapping[str, Any]], "ResolvedInputs | None"]


def load_resolver(spec: str) -> Resolver:
    """The resolver ``module:function`` names (``--resolver``, ``LCL_FUZZ_RESOLVER``)."""
    mod, _, name = spec.partition(":")
    if not name:
        raise UserError(f"--resolver {spec}: expected MODULE:FUNCTION")
    try:
        m = importlib.import_module(mod)
    except ImportError as exc:
        raise UserError(f"--resolver {spec}: cannot import {mod} ({exc})") from None
    fn = getattr(m, name, None)
    if not callable(fn):
        raise UserError(f"--resolver {spec}: {mod} has no callable {name}")
    return fn


def with_env_resolver(resolvers: Sequence[Resolver]) -> list[Resolver]:
    """``resolvers``, then the one ``LCL_FUZZ_RESOLVER`` names (a batch run outside the project)."""
    spec = os.environ.get("LCL_FUZZ_RESOLVER")
    return [*resolvers, *([load_resolver(spec)] if spec else [])]


@dataclass
class PairJob:
    id: str
    reference: str
    candidate: str
    entry: str | None
    stdin: bool
    inputs: list[Any] | None  # decoded inputs (an InputSet where the batch shares them)
    generator: Generator | None
    n: int | None
    seed: int
    key: str = ""
    ref_key: str = ""
    inputs_hash: str | None = None
    error: str | None = None  # resolved rows whose code cannot be fuzzed: recorded, not fatal
    legacy_keys: tuple[str, ...] = ()  # the same pair's keys under engine versions it may carry over from

    @property
    def level(self) -> str:
        return "program" if self.stdin else "function"


#: where a row's code may be given instead, per side (relative paths: from the pairs file's folder)
_CODE_FILES = {"reference": ("reference_file",), "candidate": ("candidate_file", "variant_file")}
#: the columns of our own rows that name a code or its file (a row with none of them and
#: ``golden_code``/``generated_code`` is in the published LoCaL format)
_OWN_CODE_COLUMNS = ("reference", "reference_file", "candidate", "candidate_file", "variant", "variant_file")


def _published_format(row: Mapping[str, Any]) -> bool:
    return ("golden_code" in row or "generated_code" in row) and not any(k in row for k in _OWN_CODE_COLUMNS)


def _read_code(row: Mapping[str, Any], side: Literal["reference", "candidate"], base: Path, rid: str) -> str:
    """The row's code: under any name :func:`lcl.core.records.reference_of` / ``candidate_of``
    read (a JSON string), else from the file ``*_file`` names."""
    code = records.reference_of(row) if side == "reference" else records.candidate_of(row)
    keys = records.REFERENCE_KEYS if side == "reference" else records.CANDIDATE_KEYS
    given = next((row[k] for k in keys if row.get(k) is not None), None)  # what ``code`` is made from
    if code is not None and isinstance(given, str):
        return code
    if _published_format(row):
        raise UserError(f"pair {rid}: published rows need string 'golden_code' and 'generated_code'")
    for field in _CODE_FILES[side]:
        f = row.get(field)
        if isinstance(f, str):
            p = (base / f) if not os.path.isabs(f) else Path(f)
            try:
                return p.read_text(encoding="utf-8")
            except OSError as exc:
                raise UserError(f"pair {rid}: cannot read {field} {p}: {exc.strerror}") from None
    names = " or ".join(f"'{k}'" for k in (*keys, *_CODE_FILES[side]))
    raise UserError(f"pair {rid}: missing the {side}'s code: {names}")


def read_rows(p: Path, what: str) -> list[Any]:
    """JSON Lines, or a ``UserError`` naming the file when it is missing, not a file, not
    UTF-8 text or malformed."""
    try:
        return read_jsonl(p)
    except FileNotFoundError:
        raise UserError(f"{p}: {what} file not found") from None
    except IsADirectoryError:
        raise UserError(f"{p}: {what} file expected, found a directory") from None
    except UnicodeDecodeError as exc:
        raise UserError(f"{p}: {what} file is not UTF-8 text (byte {exc.start}: {exc.reason})") from None
    except ValueError as exc:
        raise UserError(str(exc)) from None
    except OSError as exc:
        raise UserError(f"{p}: cannot read the {what} file ({exc.strerror or exc})") from None


def _int_field(row: Mapping[str, Any], field: str, rid: str, default: int | None, minimum: int | None = None) -> int | None:
    """An integer field of a pairs-file row (JSON numbers only: ``"3"`` is refused, not guessed)."""
    v = row.get(field, default)
    if v is None:
        return None
    if not isinstance(v, int) or isinstance(v, bool):
        raise UserError(f"pair {rid}: '{field}' must be an integer, got {json.dumps(v)[:40]}")
    if minimum is not None and v < minimum:
        raise UserError(f"pair {rid}: '{field}' must be at least {minimum}, got {v}")
    return v


def read_inputs_file(path: str | Path, *, level: str) -> list[Any]:
    """INPUTS.jsonl: one JSON list of positional arguments (functions) or one JSON string of
    stdin (programs) per line. Empty or malformed files raise ``UserError``."""
    p = Path(path)
    rows = read_rows(p, "inputs")
    if not rows:
        raise UserError(f"{p}: empty inputs file (expected one JSON value per line)")
    return check_inputs(rows, level=level, source=str(p))


def has_inputs(row: Mapping[str, Any]) -> bool:
    """Whether a row gives its inputs (``inputs`` or ``inputs_file``); a row without is resolved
    by the batch's resolvers, and is accepted as it is: its repeated ids become ``id#2``, ...,
    and what cannot be fuzzed becomes an error row."""
    return "inputs" in row or "inputs_file" in row


def resolve_row(row: Mapping[str, Any], base: Path, default_seed: int,
                files: dict[tuple[str, str], InputSet] | None = None,
                resolvers: Sequence[Resolver] = ()) -> PairJob:
    """One pairs-file row -> a job. The two codes under any of the names
    :func:`lcl.core.records.reference_of` and ``candidate_of`` read (``reference`` | ``golden_code``;
    ``candidate`` | ``variant`` | ``generated_code``) or from ``reference_file`` /
    ``candidate_file`` | ``variant_file``. A row with ``inputs`` or ``inputs_file`` gives
    ``entry`` or ``stdin`` itself; any other row (the published LoCaL rows, a study's rows
    naming their ``task``) is resolved by the first of ``resolvers`` that recognises it.
    ``files``: inputs files already read in this batch, by (resolved path, level): rows naming
    the same file share one :class:`InputSet` (read, digested and pickled once; their task's
    reference runs once)."""
    if not isinstance(row, dict):
        raise UserError(f"pairs file: every line must be a JSON object, got {str(row)[:60]!r}")
    rid = row.get("id")
    if rid is None or not isinstance(rid, (str, int)):
        raise UserError(f"pairs file: a row has no 'id': {str(row)[:80]!r}")
    rid = str(rid)
    seed = _int_field(row, "seed", rid, default_seed) or 0
    n = _int_field(row, "n", rid, None, 1)
    ref = _read_code(row, "reference", base, rid)
    cand = _read_code(row, "candidate", base, rid)
    if has_inputs(row):
        stdin = bool(row.get("stdin", False))
        entry = row.get("entry")
        level = "program" if stdin else "function"
        if "inputs" in row:
            inputs = check_inputs(row["inputs"], level=level, source=f"pair {rid}: inputs")
        elif isinstance(row.get("inputs_file"), str):
            f = row["inputs_file"]
            path = os.path.realpath(base / f if not os.path.isabs(f) else f)
            known = files.get((path, level)) if files is not None else None
            if known is None:
                known = InputSet(read_inputs_file(path, level=level))
                if files is not None:
                    files[(path, level)] = known
            return PairJob(rid, ref, cand, entry, stdin, known, None, n, seed)
        else:
            raise UserError(f"pair {rid}: missing 'inputs' (a list) or 'inputs_file'")
        # an InputSet: the row's reference pass and its pair share one digest and one pickling
        return PairJob(rid, ref, cand, entry, stdin, InputSet(inputs), None, n, seed)
    if not resolvers:
        if _published_format(row):
            raise UserError(
                f"pair {rid}: published LoCaL row (golden_code/generated_code) but no input resolver was "
                "given to find its task and input constraints; pass --resolver MODULE:FUNCTION "
                "(or set LCL_FUZZ_RESOLVER), or give explicit 'reference', 'variant', 'entry'|'stdin', 'inputs'"
            )
        raise UserError(
            f"pair {rid}: no 'inputs' (a list) or 'inputs_file', and no input resolver was given to find its "
            "task and input constraints; pass --resolver MODULE:FUNCTION (or set LCL_FUZZ_RESOLVER), or give "
            "'entry'|'stdin' and 'inputs'|'inputs_file'"
        )
    spec = None
    for fn in resolvers:
        try:
            spec = fn(row)
        except (KeyError, LookupError) as exc:
            raise UserError(f"pair {rid}: unknown task id ({exc})") from None
        except UserError as exc:
            raise UserError(f"pair {rid}: {exc}") from None
        if spec is not None:
            break
    if spec is None:
        raise UserError(f"pair {rid}: unknown task id (no resolver recognises it)")
    stdin = bool(spec.get("stdin", False))
    level = "program" if stdin else "function"
    resolved = spec.get("inputs")
    if resolved is not None:
        resolved = check_inputs(resolved, level=level, source=f"pair {rid}: resolved inputs")
    elif spec.get("generator") is None:
        raise UserError(f"pair {rid}: the resolver returned neither inputs nor a generator")
    return PairJob(rid, ref, cand, spec.get("entry"), stdin, resolved, spec.get("generator"), spec.get("n", n), seed)


def generator_name(gen: object) -> str:
    """The name a generator enters result keys under: its ``cache_name`` where it has one (a
    generator object naming what it generates, wherever its class is defined), else
    ``module.qualname`` of the function."""
    name = getattr(gen, "cache_name", None)
    if isinstance(name, str):
        return name
    return f"{getattr(gen, '__module__', '?')}.{getattr(gen, '__qualname__', repr(gen))}"


def job_keys(job: PairJob, settings: S.Settings) -> None:
    if job.inputs is not None:
        job.inputs_hash = (job.inputs.inputs_digest() if job.n is None and isinstance(job.inputs, InputSet)
                           else inputs_digest(job.inputs if job.n is None else job.inputs[: job.n]))
        inputs_part: Any = job.inputs_hash
    else:
        inputs_part = ["generator", generator_name(job.generator), job.n]
    def result_key(version: str) -> str:
        return cache.key("lcl-fuzz-result", version, job.level, job.entry, code_digest(job.reference),
                         code_digest(job.candidate), inputs_part, job.seed, settings.result_relevant())

    job.key = result_key(S.ENGINE_VERSION)
    job.legacy_keys = tuple(result_key(v) for v in S.CARRY_OVER)
    # one reference computation per task, inputs (or generator, seed and n) and settings
    job.ref_key = cache.key("lcl-fuzz-ref", S.ENGINE_VERSION, job.level, job.entry, code_digest(job.reference),
                            inputs_part, None if job.inputs is not None else job.seed, settings.result_relevant())


def load_jobs(rows: Iterable[Mapping[str, Any]], base: Path, settings: S.Settings, seed: int,
              keep_going: bool = False, resolvers: Sequence[Resolver] = ()) -> list[PairJob]:
    """Resolve and check every row. Resolved rows (no inputs of their own: published LoCaL
    rows, a study's rows) that cannot be fuzzed (unknown task, code that does not compile) are
    errors; with ``keep_going`` they become error rows in the results instead (nothing is
    dropped), otherwise all of them are reported at once."""
    jobs: list[PairJob] = []
    seen: set[str] = set()
    dup: dict[str, int] = {}
    files: dict[tuple[str, str], InputSet] = {}
    for row in rows:
        resolved = isinstance(row, dict) and not has_inputs(row)
        try:
            job = resolve_row(row, base, seed, files, resolvers)
        except UserError as exc:
            if not resolved or not isinstance(row.get("id"), (str, int)):
                raise
            # e.g. a task whose reference does not compile here: an error row, not a dead batch
            job = PairJob(str(row["id"]), records.reference_of(row) or "", records.candidate_of(row) or "", None,
                          False, None, None, None, seed, error=str(exc).splitlines()[0])
        if job.id in seen:
            if not resolved:
                raise UserError(f"pair {job.id}: duplicate id in the pairs file")
            # the published LoCaL release repeats some ids: keep every row, as id#2, id#3, ...
            dup[job.id] = dup.get(job.id, 1) + 1
            job.id = f"{job.id}#{dup[job.id]}"
        seen.add(job.id)
        if job.error is not None:
            job.key = job.ref_key = cache.key("lcl-fuzz-error", job.id, job.error)
            jobs.append(job)
            continue
        try:
            check_code(job.reference, level=job.level, entry=job.entry, side="reference", label=f"pair {job.id}")
            # "variant": the side's name in messages, which error rows (and their keys) keep
            check_code(job.candidate, level=job.level, entry=job.entry, side="variant", label=f"pair {job.id}")
        except UserError as exc:
            if not (resolved or keep_going):
                raise
            # resolved rows are accepted as they are, and so are explicit ones under
            # keep_going: their broken rows become error rows
            job.error = str(exc).splitlines()[0]
        except Exception as exc:  # noqa: BLE001 - any failure to check a row is that row's error
            msg = f"pair {job.id}: the code cannot be checked ({type(exc).__name__})"
            if not (resolved or keep_going):
                raise UserError(msg) from None
            job.error = msg
        if job.n is not None and job.inputs is not None and not (1 <= int(job.n) <= len(job.inputs)):
            raise UserError(f"pair {job.id}: n={job.n} must be between 1 and the number of inputs ({len(job.inputs)})")
        job_keys(job, settings)
        jobs.append(job)
    if not jobs:
        raise UserError("pairs file: no pairs")
    bad = [j for j in jobs if j.error is not None]
    if bad and not keep_going:
        listed = "\n  ".join(f"{j.id}: {j.error}" for j in bad[:20])
        more = f"\n  ... and {len(bad) - 20} more" if len(bad) > 20 else ""
        raise UserError(f"{len(bad)} pair(s) cannot be fuzzed (nothing was run; pass --keep-going to record "
                        f"them as error rows and fuzz the rest):\n  {listed}{more}")
    return jobs
