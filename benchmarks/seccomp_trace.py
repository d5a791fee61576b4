#!/usr/bin/env python
"""Which system calls honest candidates make in a confined worker, and whether the worker's
seccomp allowlist (``lcl.engine.fuzz.isolation.ALLOW_X86_64``) lets every one of them through.

Runs workloads under ``strace -f -ff`` (a tracer outside the worker: ptrace of the worker by
its ancestor is allowed, the worker's own ptrace is not), keeps for every worker the calls it
made after installing its filter (``PR_SET_SECCOMP``, and every thread it started afterwards),
and prints them with their counts and the filter's answer: allowed, allowed for its own
process or its listed arguments only, refused (EPERM), or not listed (ENOSYS).

Workloads:
  * ``sweep``: ``benchmarks/seccomp/sweep_steps.py`` run as a function (one step per input) and
    as a stdin program in one sandboxed worker each, the output of each step decoded from its
    digest and printed: every standard-library module imported, files, directories, links,
    threads, thread pools, sockets, select/poll/epoll, asyncio, sqlite, mmap, numpy, scipy,
    signals and timers, and a few operations the sandbox refuses;
  * ``tests``: the honest fuzzing tests (``tests/test_fuzz_semantics.py``, ``test_fuzz_pairs.py``).

Exit status 1 when an honest call is not allowed (a call of the sweep's refused steps is
expected, and listed as such).

    python benchmarks/seccomp_trace.py                 # sweep and tests (about 2 minutes)
    python benchmarks/seccomp_trace.py --only sweep
    python benchmarks/seccomp_trace.py --outputs       # also each sweep step's answer
"""

from __future__ import annotations

import argparse
import collections
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "lib"))

from lcl.engine.fuzz import isolation as ISO  # noqa: E402

SWEEP = ROOT / "benchmarks" / "seccomp" / "sweep_steps.py"
#: steps of the sweep the sandbox refuses on purpose: their calls are expected to be refused
REFUSED_STEPS = ("subproc", "mproc", "fork", "etc", "memfd", "unixsock", "shm", "chdir", "utime_")
#: calls made only by the refused steps (process creation, memfd, chmod, utime, AF_UNIX, System V)
EXPECTED_REFUSED = {"memfd_create", "chmod", "utimensat", "fork", "vfork", "execve"}
CALL = re.compile(r"^([a-z_0-9]+)\(")
CLONED = re.compile(r"^clone3?\(.*= (\d+)$")

SWEEP_RUNNER = r"""
import sys
sys.path.insert(0, {lib!r})
from lcl.engine.fuzz import Settings
from lcl.engine.fuzz import semantics as S
from lcl.engine.fuzz.sandbox.executor import CodeSpec, Executor
src = open({sweep!r}).read()
ns = {{}}
exec(compile(src, "sweep", "exec"), ns)
names = [ns["STEPS"][i].__name__ for i in range(len(ns["STEPS"]))]
import builtins
excs = [n for n, v in vars(builtins).items() if isinstance(v, type) and issubclass(v, BaseException)]
excs += ["Error", "OperationalError", "error", "gaierror", "UnsupportedOperation"]
answers = ["ok"] + [f"{{e}}:{{c}}" for e in excs for c in [None, *range(0, 140)]]
level = sys.argv[1]
if level == "program":
    src += "\nk = int(input())\nprint(f(k))\n"
    table = {{bytes(S.stdout_digest(a.encode())): a for a in answers}}
else:
    table = {{bytes(S.output_digest(a)): a for a in answers}}
s = Settings(runs=1, timeout_cap=5.0, reference_timeout=10.0)
with Executor(CodeSpec(level, src, "f" if level == "function" else None), s) as ex:
    ex.set_inputs([[i] for i in range(len(names))] if level == "function" else [f"{{i}}\n" for i in range(len(names))])
    res = ex.run_pass([10.0] * len(names), 120.0, 30.0)
for i, name in enumerate(names):
    d = bytes(res.digests[16 * i:16 * i + 16])
    print(f"{{level}} {{name}} " + (table.get(d, "?") if res.kinds[i] == 1 else f"kind={{res.kinds[i]}}"))
"""


def traced(cmd: list[str], out_dir: Path, what: str) -> str:
    """Run ``cmd`` under strace, one trace file per task; returns its stdout."""
    proc = subprocess.run(["strace", "-f", "-ff", "-qq", "-o", str(out_dir / "t"), *cmd], cwd=ROOT,
                          capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        sys.exit(f"seccomp_trace: the {what} workload failed: {(proc.stderr.strip().splitlines() or ['?'])[-1]}")
    return proc.stdout


def confined_calls(out_dir: Path) -> collections.Counter[str]:
    """Calls made after ``PR_SET_SECCOMP`` by each task that installed it, and by its later threads."""
    lines = {int(p.name.rsplit(".", 1)[1]): p.read_text(errors="replace").splitlines() for p in out_dir.glob("t.*")}
    start = {pid: i + 1 for pid, ls in lines.items() for i, line in enumerate(ls) if "PR_SET_SECCOMP" in line}
    todo = list(start)
    while todo:
        pid = todo.pop()
        for line in lines[pid][start[pid]:]:
            m = CLONED.match(line)
            if m and int(m.group(1)) in lines and int(m.group(1)) not in start:
                start[int(m.group(1))] = 0
                todo.append(int(m.group(1)))
    calls: collections.Counter[str] = collections.Counter()
    for pid, first in start.items():
        calls.update(m.group(1) for line in lines[pid][first:] if (m := CALL.match(line)))
    return calls


def answer(name: str) -> str:
    conditional = {"clone": "threads only", "clone3": "ENOSYS (libc falls back to clone)",
                   "ioctl": f"{len(ISO.IOCTL_X86_64)} requests", "prctl": f"{len(ISO.PRCTL_X86_64)} options",
                   "socket": "AF_INET/AF_INET6 only"}
    own = {"kill", "tgkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo", "prlimit64", "setpriority", "ioprio_set",
           "sched_setaffinity", "sched_setscheduler", "sched_setparam", "sched_setattr"}
    if name in conditional:
        return conditional[name]
    if name in own:
        return "its own process only"
    if name in ISO.DENY_X86_64:
        return "refused (EPERM)"
    return "allowed" if name in ISO.ALLOW_X86_64 else "NOT LISTED (ENOSYS)"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", choices=("sweep", "tests"), help="one workload")
    ap.add_argument("--outputs", action="store_true", help="print each sweep step's answer")
    args = ap.parse_args()
    if not shutil.which("strace"):
        sys.exit("seccomp_trace: strace is not installed (Debian: apt-get install strace)")
    calls: collections.Counter[str] = collections.Counter()
    with tempfile.TemporaryDirectory() as tmp:
        if args.only in (None, "sweep"):
            runner = SWEEP_RUNNER.format(lib=str(ROOT / "lib"), sweep=str(SWEEP))
            for level in ("function", "program"):
                d = Path(tmp) / level
                d.mkdir()
                out = traced([sys.executable, "-c", runner, level], d, f"{level} sweep")
                if args.outputs:
                    print(out, end="")
                calls += confined_calls(d)
        if args.only in (None, "tests"):
            d = Path(tmp) / "tests"
            d.mkdir()
            traced([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/test_fuzz_semantics.py",
                    "tests/test_fuzz_pairs.py"], d, "tests")
            calls += confined_calls(d)
    bad = []
    print(f"{'call':24s} {'times':>8s}  the filter's answer")
    for name, n in sorted(calls.items()):
        ans = answer(name)
        print(f"{name:24s} {n:8d}  {ans}")
        if (ans.startswith("NOT LISTED") or ans.startswith("refused")) and name not in EXPECTED_REFUSED:
            bad.append(name)
    print(f"\n{len(calls)} distinct calls; allowlist {len(ISO.ALLOW_X86_64)} calls; "
          f"honest calls not allowed: {', '.join(bad) or 'none'}")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
