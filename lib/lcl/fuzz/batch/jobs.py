"""Job planning of a batch: pairs-file rows (explicit or published LoCaL, through the resolvers
the caller passes) become checked :class:`PairJob` s with their result and reference cache keys.
Nothing here runs code under test.
"""

from __future__ import annotations

import importlib
import json
import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ... import cache
from ...errors import UserError
from ...io import read_jsonl
from .. import semantics as S
from ..algorithm import InputSet, check_code, check_inputs, code_digest, inputs_digest

#: ``fn(row) -> {"entry"|"stdin", "inputs"|"generator", "n"} | None`` for published-format rows
Resolver = Callable[[dict[str, Any]], "dict[str, Any] | None"]


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
    variant: str
    entry: str | None
    stdin: bool
    inputs: list[Any] | None
    generator: Any
    n: int | None
    seed: int
    key: str = ""
    ref_key: str = ""
    inputs_hash: str | None = None
    error: str | None = None  # published rows whose code cannot be fuzzed: recorded, not fatal
    legacy_keys: tuple[str, ...] = ()  # the same pair's keys under engine versions it may carry over from

    @property
    def level(self) -> str:
        return "program" if self.stdin else "function"


def _read_code(row: dict[str, Any], field: str, base: Path, rid: str) -> str:
    if isinstance(row.get(field), str):
        return row[field]
    f = row.get(f"{field}_file")
    if isinstance(f, str):
        p = (base / f) if not os.path.isabs(f) else Path(f)
        try:
            return p.read_text(encoding="utf-8")
        except OSError as exc:
            raise UserError(f"pair {rid}: cannot read {field}_file {p}: {exc.strerror}") from None
    raise UserError(f"pair {rid}: missing '{field}' (code) or '{field}_file'")


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


def _int_field(row: dict[str, Any], field: str, rid: str, default: int | None, minimum: int | None = None) -> int | None:
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


def resolve_row(row: dict[str, Any], base: Path, default_seed: int,
                files: dict[tuple[str, str], InputSet] | None = None,
                resolvers: Sequence[Resolver] = ()) -> PairJob:
    """One pairs-file row -> a job. ``files``: inputs files already read in this batch, by
    (resolved path, level): rows naming the same file share one :class:`InputSet` (read,
    digested and pickled once; their task's reference runs once). A published-format row is
    resolved by the first of ``resolvers`` that recognises it."""
    if not isinstance(row, dict):
        raise UserError(f"pairs file: every line must be a JSON object, got {str(row)[:60]!r}")
    rid = row.get("id")
    if rid is None or not isinstance(rid, (str, int)):
        raise UserError(f"pairs file: a row has no 'id': {str(row)[:80]!r}")
    rid = str(rid)
    seed = _int_field(row, "seed", rid, default_seed) or 0
    n = _int_field(row, "n", rid, None, 1)
    explicit = any(k in row for k in ("reference", "reference_file", "variant", "variant_file"))
    published = "golden_code" in row or "generated_code" in row
    if explicit or not published:
        ref = _read_code(row, "reference", base, rid)
        var = _read_code(row, "variant", base, rid)
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
            return PairJob(rid, ref, var, entry, stdin, known, None, n, seed)
        else:
            raise UserError(f"pair {rid}: missing 'inputs' (a list) or 'inputs_file'")
        # an InputSet: the row's reference pass and its pair share one digest and one pickling
        return PairJob(rid, ref, var, entry, stdin, InputSet(inputs), None, n, seed)
    golden, generated = row.get("golden_code"), row.get("generated_code")
    if not isinstance(golden, str) or not isinstance(generated, str):
        raise UserError(f"pair {rid}: published rows need string 'golden_code' and 'generated_code'")
    if not resolvers:
        raise UserError(
            f"pair {rid}: published LoCaL row (golden_code/generated_code) but no input resolver was "
            "given to find its task and input constraints; pass --resolver MODULE:FUNCTION "
            "(or set LCL_FUZZ_RESOLVER), or give explicit 'reference', 'variant', 'entry'|'stdin', 'inputs'"
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
    return PairJob(rid, golden, generated, spec.get("entry"), stdin, resolved, spec.get("generator"),
                   spec.get("n", n), seed)


def generator_name(gen: Any) -> str:
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
                         code_digest(job.variant), inputs_part, job.seed, settings.result_relevant())

    job.key = result_key(S.ENGINE_VERSION)
    job.legacy_keys = tuple(result_key(v) for v in S.CARRY_OVER)
    # one reference computation per task, inputs (or generator, seed and n) and settings
    job.ref_key = cache.key("lcl-fuzz-ref", S.ENGINE_VERSION, job.level, job.entry, code_digest(job.reference),
                            inputs_part, None if job.inputs is not None else job.seed, settings.result_relevant())


def load_jobs(rows: Iterable[dict[str, Any]], base: Path, settings: S.Settings, seed: int,
              keep_going: bool = False, resolvers: Sequence[Resolver] = ()) -> list[PairJob]:
    """Resolve and check every row. Published-format rows that cannot be fuzzed (unknown task,
    code that does not compile) are errors; with ``keep_going`` they become error rows in the
    results instead (nothing is dropped), otherwise all of them are reported at once."""
    jobs: list[PairJob] = []
    seen: set[str] = set()
    dup: dict[str, int] = {}
    files: dict[tuple[str, str], InputSet] = {}
    for row in rows:
        published = isinstance(row, dict) and ("golden_code" in row or "generated_code" in row)
        try:
            job = resolve_row(row, base, seed, files, resolvers)
        except UserError as exc:
            if not published or not isinstance(row.get("id"), (str, int)):
                raise
            # e.g. a task whose reference does not compile here: an error row, not a dead batch
            job = PairJob(str(row["id"]), str(row.get("golden_code")), str(row.get("generated_code")), None, False,
                          None, None, None, seed, error=str(exc).splitlines()[0])
        if job.id in seen:
            if not ("golden_code" in row or "generated_code" in row):
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
            check_code(job.variant, level=job.level, entry=job.entry, side="variant", label=f"pair {job.id}")
        except UserError as exc:
            if not (published or keep_going):
                raise
            # a published file is accepted as it is, and so is an explicit one under
            # keep_going: its broken rows become error rows
            job.error = str(exc).splitlines()[0]
        except Exception as exc:  # noqa: BLE001 - any failure to check a row is that row's error
            msg = f"pair {job.id}: the code cannot be checked ({type(exc).__name__})"
            if not (published or keep_going):
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
