"""Probe worker: run a *reference* on many inputs under coverage, in its own process.

Used by :mod:`lcl.engine.inputs.quality` for the validity rate and branch coverage of a spec
(Code2Bench's "Great Filter"). Only trusted benchmark references run here; mutants and
generated variants only ever run in the sandboxed fuzzing engine (:mod:`lcl.engine.fuzz`).

Protocol: ``python -m lcl.engine.inputs.probe JOB.pkl RESULT.pkl``; the job holds ``code``,
``entry`` (None for stdin programs), ``inputs``, ``timeout`` (seconds per input) and
``coverage`` (bool). Results are written after every input batch, so a probe killed by the
parent's overall timeout still reports what it finished.
"""

from __future__ import annotations

import copy
import gc
import io
import json
import os
import pickle
import resource
import shutil
import signal
import sys
import tempfile
from collections.abc import Callable, Sequence
from types import CodeType, FrameType
from typing import Any, TypedDict


class CoverageSummary(TypedDict, total=False):
    """The reference's coverage under the inputs (coverage.py's JSON report, one file): the
    probe writes every key; readers take ``{}`` for a probe without coverage."""

    num_statements: int
    covered_lines: int
    num_branches: int
    covered_branches: int
    missing_lines: list[int]
    missing_branches: list[list[int]]


class ProbeResult(TypedDict, total=False):
    """What a probe reports: a verdict per input (``ok``, ``timeout``, ``raise:NAME``,
    ``exit:CODE``, ``env:MODULE``), an example input per exception verdict, and the coverage;
    the parent adds ``error`` when the probe itself failed."""

    verdicts: list[str]
    examples: dict[str, str]
    coverage: CoverageSummary
    error: str


class _InputTimeout(BaseException):
    """Raised by the per-input timer (a BaseException so `except Exception` can't swallow it)."""


def _alarm(signum: int, frame: FrameType | None) -> None:
    raise _InputTimeout()


def _run_function(fn: Callable[..., object], args: Sequence[Any]) -> str:
    fn(*copy.deepcopy(args))
    return "ok"


def _run_program(code_obj: CodeType, text: str, fd_path: str) -> str:
    data = text.encode()
    with open(fd_path, "wb") as fh:
        fh.write(data)
    fd = os.open(fd_path, os.O_RDONLY)
    if fd != 0:  # a program that closed fd 0 makes os.open return 0: it already is stdin then
        os.dup2(fd, 0)
        os.close(fd)
    old_in, old_out = sys.stdin, sys.stdout
    sys.stdin = io.TextIOWrapper(io.BytesIO(data))
    sys.stdout = io.TextIOWrapper(io.BytesIO(), write_through=True)
    try:
        exec(code_obj, {"__name__": "__main__", "__builtins__": __builtins__})
    except SystemExit as exc:
        if exc.code not in (None, 0):
            return "exit:" + str(exc.code)[:40]
    finally:
        sys.stdin, sys.stdout = old_in, old_out
    return "ok"


def main(job_path: str, result_path: str) -> int:
    with open(job_path, "rb") as fh:
        job = pickle.load(fh)
    resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
    workdir = job.get("workdir") or tempfile.mkdtemp(prefix="lcl-probe-")
    os.makedirs(workdir, exist_ok=True)
    os.chdir(workdir)
    ref_path = os.path.join(workdir, "reference.py")
    with open(ref_path, "w") as fh:
        fh.write(job["code"])
    cov = None
    if job.get("coverage"):
        import coverage

        cov = coverage.Coverage(branch=True, data_file=None, include=[ref_path])
    signal.signal(signal.SIGALRM, _alarm)
    verdicts: list[str] = []
    examples: dict[str, str] = {}
    code_obj = compile(job["code"], ref_path, "exec")
    fn = None
    if cov:
        cov.start()
    try:
        if job["entry"] is not None:
            ns: dict[str, Any] = {"__name__": "reference"}  # the reference's globals: values of any type
            exec(code_obj, ns)
            fn = ns.get(job["entry"])
            if fn is None:
                raise SystemExit(f"entry point {job['entry']!r} not defined")
        # what exists now (modules, coverage, the job) lives until the probe exits: moved out of
        # the collector's sight, the per-input collection below only scans what the inputs
        # created (it traversed all of it each time, ~20 ms, most of a program probe's time)
        gc.freeze()
        for inp in job["inputs"]:
            signal.setitimer(signal.ITIMER_REAL, job["timeout"])
            try:
                v = _run_function(fn, inp) if fn is not None else _run_program(code_obj, inp, ref_path + ".stdin")
            except _InputTimeout:
                v = "timeout"
            except RecursionError:
                v = "raise:RecursionError"
            except ImportError as exc:  # the reference needs a module this environment lacks
                v = "env:" + (getattr(exc, "name", None) or type(exc).__name__)
            except Exception as exc:  # noqa: BLE001 - any exception is a verdict
                v = "raise:" + type(exc).__name__
                examples.setdefault(v, repr(inp)[:300])
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
                if fn is None:  # a program's globals form cycles (its functions point back at them): free them now
                    gc.collect()
            verdicts.append(v)
    finally:
        if cov:
            cov.stop()
    result: ProbeResult = {"verdicts": verdicts, "examples": examples}
    if cov:
        out = os.path.join(workdir, "cov.json")
        cov.json_report(outfile=out, include=[ref_path])
        with open(out) as fh:
            rep = json.load(fh)
        f = rep["files"].get(ref_path) or next(iter(rep["files"].values()), None)
        if f:
            s = f["summary"]
            result["coverage"] = {
                "num_statements": s["num_statements"], "covered_lines": s["covered_lines"],
                "num_branches": s.get("num_branches", 0), "covered_branches": s.get("covered_branches", 0),
                "missing_lines": f.get("missing_lines", []), "missing_branches": f.get("missing_branches", []),
            }
    with open(result_path, "wb") as fh:
        pickle.dump(result, fh)
    os.chdir("/")
    shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
