"""Coverage-guided input generation with Atheris/libFuzzer, in a child process.

``atheris.Fuzz()`` never returns (libFuzzer exits the process), so it must never run inside
a notebook kernel or the caller's process: :func:`coverage_guided` starts this module as a
subprocess (``python -m lcl.engine.inputs.atheris_driver JOB.pkl OUT.pkl``). The child instruments
the reference (``atheris.instrument_func`` on its functions, or on its module code for stdin
programs, so libFuzzer sees its branches),
decodes every libFuzzer byte string with the spec (so every input is valid), runs the
reference on it and appends the input to the output file. libFuzzer's ``-runs=N`` bounds
the number of executions, ``-seed`` makes the run reproducible for a given binary.
"""

from __future__ import annotations

import io
import os
import pickle
import subprocess
import sys
import tempfile
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    from .generate import Input
    from .spec import SpecDict


def _child(job_path: str, out_path: str) -> None:  # pragma: no cover - runs in the subprocess
    import atheris

    from .generate import decode_bytes
    from .spec import Spec

    with open(job_path, "rb") as fh:
        job = pickle.load(fh)
    spec = Spec.from_dict(job["spec"])
    ns: dict[str, Any] = {"__name__": "reference"}  # the reference's globals: values of any type
    code = compile(job["code"], "reference.py", "exec")
    entry = job["entry"]
    if entry is None:
        # a module code object wrapped as a function can be instrumented like any function;
        # each input then runs the instrumented module code in fresh globals
        import types

        code = atheris.instrument_func(types.FunctionType(code, {"__builtins__": __builtins__})).__code__
    else:
        exec(code, ns)
        for name, obj in list(ns.items()):
            if callable(obj) and getattr(obj, "__code__", None) is not None:
                ns[name] = atheris.instrument_func(obj)
    # libFuzzer ends the process without running Python's atexit handlers, so every input is
    # appended (one pickle record each) to an unbuffered file as soon as it is decoded.
    sink = open(out_path, "ab", buffering=0)  # noqa: SIM115 - closed by process exit

    def run_program(text: str) -> None:
        old_in, old_out = sys.stdin, sys.stdout
        sys.stdin, sys.stdout = io.TextIOWrapper(io.BytesIO(text.encode())), io.StringIO()
        try:
            import types

            types.FunctionType(code, {"__name__": "__main__", "__builtins__": __builtins__})()
        except SystemExit:
            pass
        finally:
            sys.stdin, sys.stdout = old_in, old_out

    def one_input(data: bytes) -> None:
        inp = decode_bytes(spec, data)
        sink.write(pickle.dumps(inp))
        try:
            if entry is None:
                run_program(cast("str", inp))  # a program's input is its stdin text
            else:
                ns[entry](*pickle.loads(pickle.dumps(inp)))
        except Exception:  # noqa: BLE001 - the reference's own errors are not fuzzer crashes
            pass

    atheris.Setup([sys.argv[0], f"-runs={job['runs']}", f"-seed={job['seed']}", "-timeout=5",
                   f"-max_total_time={job['max_time']}", "-print_final_stats=0", "-close_fd_mask=3"],
                  one_input)
    atheris.Fuzz()


def coverage_guided(code: str, entry: str | None, spec_dict: SpecDict, runs: int, seed: int,
                    max_time: int = 120) -> list[Input]:
    """Run Atheris for ``runs`` executions on the reference and return the inputs it tried."""
    with tempfile.TemporaryDirectory(prefix="lcl-atheris-") as tmp:
        job, out = os.path.join(tmp, "job.pkl"), os.path.join(tmp, "out.pkl")
        with open(job, "wb") as fh:
            pickle.dump({"code": code, "entry": entry, "spec": spec_dict, "runs": runs, "seed": max(1, seed),
                         "max_time": max_time}, fh)
        subprocess.run([sys.executable, "-m", "lcl.engine.inputs.atheris_driver", job, out], cwd=tmp,
                       capture_output=True, timeout=max_time + 60, stdin=subprocess.DEVNULL, check=False)
        inputs: list[Input] = []
        if os.path.exists(out):
            with open(out, "rb") as fh:
                while len(inputs) < runs:
                    try:
                        inputs.append(pickle.load(fh))
                    except (EOFError, pickle.UnpicklingError):
                        break
        return inputs


if __name__ == "__main__":  # pragma: no cover
    _child(sys.argv[1], sys.argv[2])
