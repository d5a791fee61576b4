"""The boundary inside a worker: a candidate shares its process with the code that runs it
and talks to the harness, so everything it can reach there is hostile input to the harness.
Each test is one attack class, bounded (a few MiB, no threads, no connection attempts)."""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path

import pytest

from lcl.core.errors import UserError
from lcl.engine.fuzz import Settings, fuzz_pair
from lcl.engine.fuzz import sandbox as SB
from lcl.engine.fuzz import semantics as S

FAST = Settings(runs=1, run_budget=5, timeout_floor=0.2, timeout_cap=1.0, watchdog_factor=2.0,
                watchdog_grace=0.3, reference_timeout=2.0)
REF = "def f(x):\n    return x * 2\n"
INPUTS = [[1], [2], [3]]

pytestmark = pytest.mark.timeout(90)

#: sends ``payload`` as a reply frame on every socket of the process (the worker's own) and
#: gives the harness time to read it while the input is still in flight
_FORGE = (
    "import gc, socket, struct, time\n"
    "def _forge(payload):\n"
    "    for o in gc.get_objects():\n"
    "        if isinstance(o, socket.socket):\n"
    "            try:\n"
    "                o.sendall(struct.pack('<I', len(payload)) + payload)\n"
    "            except OSError:\n"
    "                pass\n"
    "    time.sleep(0.3)\n"
)


def _verdicts(res) -> str:
    return "".join(r.verdicts for r in res.runs)


@pytest.fixture
def sandbox_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    base = tmp_path / "sandboxes"
    base.mkdir()
    monkeypatch.setenv("LCL_FUZZ_TMP", str(base))
    return base


# ---------------------------------------------------------------- replies the candidate writes
def test_forged_budget_reply_does_not_exclude_the_run() -> None:
    """A wrong answer on input 3 hidden behind a forged 'budget' reply: the run must not be
    excluded (that would turn 0.67 into -1); the run's exclusion is the harness's decision."""
    var = _FORGE + ("def f(x):\n    if x == 3:\n        _forge(b'{\"done\": 2, \"status\": \"budget\"}')\n"
                    "        return 0\n    return x * 2\n")
    res = fuzz_pair(REF, var, entry="f", inputs=INPUTS, settings=FAST)
    assert not res.runs[0].excluded
    assert res.df_score != -1
    v = _verdicts(res)
    assert v[:2] == "MM" and v[2] in "XC"


@pytest.mark.parametrize("payload", [
    b'{"done": Infinity, "status": "done"}',
    b'{"done": NaN, "status": "done"}',
    b"[" * 30000 + b"]" * 30000,
    b'{"done": 1e999, "status": "done"}',
    b'{"done": [[[[1]]]], "status": {"x": 1}}',
    b"\xff\xfe not json",
    b'{"done": 1, "status": "done", "pad": "' + b"x" * 60000 + b'"}',
], ids=["infinity", "nan", "nested", "overflow", "wrong_types", "bytes", "oversized"])
def test_malformed_reply_fails_only_that_run(payload: bytes) -> None:
    var = _FORGE + f"def f(x):\n    if x == 2:\n        _forge({payload!r})\n    return x * 2\n"
    res = fuzz_pair(REF, var, entry="f", inputs=INPUTS, settings=FAST)  # must not raise
    v = _verdicts(res)
    assert v[0] == "M" and "C" in v[1:], v
    assert fuzz_pair(REF, REF, entry="f", inputs=INPUTS, settings=FAST).df_score == 1.0


def test_extra_reply_frame_does_not_desynchronise_later_runs() -> None:
    """A well-formed reply sent while an input is in flight is a lie about that input: the
    input fails (C), and every later input and run is read in step."""
    var = _FORGE + ("def f(x):\n    if x == 1:\n        _forge(b'{\"done\": 3, \"status\": \"done\"}')\n"
                    "    return x * 2\n")
    s = Settings(**{**FAST.to_dict(), "runs": 3})
    res = fuzz_pair(REF, var, entry="f", inputs=INPUTS, settings=s)
    assert _verdicts(res) == "CMM" * 3


def test_load_reply_cannot_claim_a_timeout() -> None:
    """'timeout' at load excludes every run; a candidate that says so while using no CPU is
    lying, and its runs must be scored, not excluded."""
    var = _FORGE + "_forge(b'{\"status\": \"timeout\"}')\ndef f(x):\n    return 0\n"
    res = fuzz_pair(REF, var, entry="f", inputs=INPUTS, settings=FAST)
    assert res.df_score == 0.0


# ---------------------------------------------------------------- nothing of the reference inside
def test_reference_timings_never_reach_the_candidate() -> None:
    """The per-input timeouts come from the reference's CPU time: a candidate that does no
    arithmetic on its input but finds them (in its caller's frames or anywhere in its
    process) answers 'is the reference slow here', which is this reference's output."""
    ref = ("import time\ndef f(x):\n    if x % 3 == 1:\n        t = time.process_time() + 0.05\n"
           "        while time.process_time() < t: pass\n    return x % 3 == 1\n")
    var = ("import gc, sys\n_n = [0]\n"
           "def f(x):\n"
           "    i = _n[0]\n    _n[0] = i + 1\n"
           "    seen = []\n    fr = sys._getframe(1)\n"
           "    while fr is not None:\n        seen += list(fr.f_locals.values())\n        fr = fr.f_back\n"
           "    for o in seen + gc.get_objects():\n"
           "        if type(o) is list and len(o) == 6 and all(type(v) is float for v in o) and len(set(o)) > 1:\n"
           "            return o[i] > min(o)\n"
           "    return False\n")
    res = fuzz_pair(ref, var, entry="f", inputs=[[k] for k in range(6)], settings=FAST)
    assert res.df_score < 1.0, "the candidate read the reference's timings"


# ---------------------------------------------------------------- the harness survives anything
def test_deeply_nested_source_is_a_user_error() -> None:
    var = "def f(x):\n    return " + "+".join(["1"] * 200_000) + "\n"
    with pytest.raises(UserError):
        fuzz_pair(REF, var, entry="f", inputs=INPUTS, settings=FAST)


def test_deeply_nested_source_is_an_error_row_with_keep_going(tmp_path: Path) -> None:
    from lcl.engine.fuzz.batch import run_batch
    from lcl.engine.fuzz.store import ResultStore

    deep = "def f(x):\n    return " + "+".join(["1"] * 200_000) + "\n"
    rows = [{"id": "deep", "reference": REF, "variant": deep, "entry": "f", "inputs": INPUTS},
            {"id": "ok", "reference": REF, "variant": REF, "entry": "f", "inputs": INPUTS}]
    res = run_batch(rows, tmp_path / "out.jsonl", settings=FAST, store=ResultStore(tmp_path / "s.sqlite"),
                    progress=False, keep_going=True)
    by_id = {r["id"]: r for r in res}
    assert by_id["deep"]["df_score"] is None and by_id["deep"]["error"]
    assert by_id["ok"]["df_score"] == 1.0


def test_deeply_nested_directories_are_removed(sandbox_tmp: Path) -> None:
    """3,000 nested directories (created through libc, so no audit event counts them):
    removing the temporary directory must neither recurse nor leave it behind."""
    var = ("import ctypes, os\n_libc = ctypes.CDLL(None)\n"
           "def f(x):\n    if x == 1:\n        for _ in range(3000):\n"
           "            if _libc.mkdir(b'd', 0o700) != 0 or _libc.chdir(b'd') != 0:\n                break\n"
           "    return x * 2\n")
    res = fuzz_pair(REF, var, entry="f", inputs=INPUTS, settings=FAST)
    assert res.df_score is not None
    assert list(sandbox_tmp.iterdir()) == [], "sandbox temp dir not removed"


def test_remove_tree_without_recursion(tmp_path: Path) -> None:
    from lcl.engine.fuzz.sandbox.containment import remove_tree

    root = tmp_path / "lcl-fuzz-deep"
    root.mkdir()
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for _ in range(3000):
            os.mkdir("d", dir_fd=fd)
            nxt = os.open("d", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = nxt
        os.close(os.open("f", os.O_WRONLY | os.O_CREAT, dir_fd=fd))
    finally:
        os.close(fd)
    remove_tree(str(root))
    assert not root.exists()
    keep = tmp_path / "not-ours"
    keep.mkdir()
    with pytest.raises(ValueError):
        remove_tree(str(keep))
    assert keep.exists()


@pytest.mark.parametrize("phase", ["load", "inputs"])
def test_dead_forkserver_is_never_a_score(phase: str) -> None:
    """The fork-server dies while a correct variant's pair is in flight (its workers die with
    it): the pair is retried in a fresh fork-server or fails; it never ends as crashes scored 0."""
    slow = ("import time\ntime.sleep(0.6)\ndef f(x):\n    return x * 2\n" if phase == "load" else
            "import time\ndef f(x):\n    if x == 2:\n        time.sleep(0.6)\n    return x * 2\n")

    def kill_servers() -> None:
        for fs in list(SB.forkserver._SERVERS.values()):
            if fs.proc.poll() is None:
                os.kill(fs.proc.pid, signal.SIGKILL)

    fuzz_pair(REF, REF, entry="f", inputs=INPUTS, settings=FAST)  # fork-servers up
    s = Settings(**{**FAST.to_dict(), "timeout_floor": 1.0, "timeout_cap": 2.0})
    timer = threading.Timer(0.3, kill_servers)
    timer.start()
    try:
        res = fuzz_pair(REF, slow, entry="f", inputs=INPUTS, settings=s)
    except SB.SandboxError:
        res = None
    finally:
        timer.cancel()
    assert res is None or res.df_score == 1.0, _verdicts(res)
    assert fuzz_pair(REF, REF, entry="f", inputs=INPUTS, settings=FAST).df_score == 1.0


# ---------------------------------------------------------------- digests
def test_list_subclass_named_tuple_is_not_a_tuple() -> None:
    var = ("class tuple(list):\n    pass\ntuple.__module__ = 'builtins'\n"
           "def f(x):\n    return tuple([tuple([x, x])])\n")
    res = fuzz_pair("def f(x):\n    return ((x, x),)\n", var, entry="f", inputs=INPUTS, settings=FAST)
    assert res.df_score == 0.0


def test_digest_tags_only_real_types_by_name() -> None:
    class tuple(list):  # a class that calls itself tuple
        pass

    tuple.__module__, tuple.__qualname__ = "builtins", "tuple"
    assert S.output_digest(tuple([(1, 2)])) != S.output_digest(((1, 2),))
    assert S.output_digest([tuple([1])]) != S.output_digest([(1,)])


def test_batch_jobs_retry_a_failed_sandbox_and_never_score_it() -> None:
    from lcl.engine.fuzz.batch import fuzz_jobs as FJ

    calls = []

    def flaky() -> str:
        calls.append(1)
        if len(calls) < FJ.SANDBOX_ATTEMPTS:
            raise SB.SandboxError("fork-server died")
        return "scored"

    assert FJ._sandboxed(flaky) == "scored"

    def dead() -> str:
        raise SB.SandboxError("fork-server died")

    with pytest.raises(UserError, match="sandbox failed"):
        FJ._sandboxed(dead)

    def aborted() -> str:
        raise SB.Aborted("interrupted")

    with pytest.raises(SB.Aborted):
        FJ._sandboxed(aborted)


# ---------------------------------------------------------------- kernel objects and limits
#: each returns True when the kernel let the worker do what it must not
KERNEL_OBJECTS = {
    "sysv_shared_memory": "import ctypes\n    libc = ctypes.CDLL(None, use_errno=True)\n"
                          "    sid = libc.shmget(0, 4096, 0o1600)\n"
                          "    if sid >= 0:\n        libc.shmctl(sid, 0, None)\n    return sid >= 0",
    "sysv_semaphore": "import ctypes\n    libc = ctypes.CDLL(None, use_errno=True)\n"
                      "    sid = libc.semget(0, 1, 0o1600)\n"
                      "    if sid >= 0:\n        libc.semctl(sid, 0, 0)\n    return sid >= 0",
    "memfd": "import os\n    os.close(os.memfd_create('m'))\n    return True",
    "inotify": "import ctypes, os\n    fd = ctypes.CDLL(None).inotify_init1(0)\n"
               "    if fd >= 0:\n        os.close(fd)\n    return fd >= 0",
    "mknod_fifo": "import os, stat\n    os.mknod('fifo', 0o600 | stat.S_IFIFO)\n    return True",
    "netlink_socket": "import socket\n    socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0).close()\n    return True",
    "vsock_socket": "import socket\n    socket.socket(socket.AF_VSOCK, socket.SOCK_STREAM).close()\n    return True",
    "packet_socket": "import socket\n    socket.socket(socket.AF_PACKET, socket.SOCK_RAW, 0).close()\n    return True",
    "runs_as_root": "import os\n    return os.getuid() == 0 or os.geteuid() == 0",
    "no_thread_limit": "import threading\n    threading.stack_size(1 << 16)\n    ev = threading.Event()\n"
                       "    ts = []\n    try:\n        for _ in range(80):\n"
                       "            t = threading.Thread(target=ev.wait)\n            t.start()\n            ts.append(t)\n"
                       "    except RuntimeError:\n        pass\n    ev.set()\n"
                       "    for t in ts:\n        t.join()\n    return len(ts) >= 80",
    "files_beyond_the_limit_via_libc": "import ctypes, os\n    libc = ctypes.CDLL(None)\n    n = 0\n"
                                       "    for i in range(1500):\n        fd = libc.creat(f'f{i}'.encode(), 0o600)\n"
                                       "        if fd < 0:\n            break\n        os.close(fd)\n        n += 1\n"
                                       "    return n > 1000",
    "bytes_beyond_the_limit_via_libc": "import ctypes\n    libc = ctypes.CDLL(None)\n    buf = b'x' * (1 << 20)\n"
                                       "    n = 0\n    for i in range(5):\n"
                                       "        fd = libc.creat(f'b{i}'.encode(), 0o600)\n        if fd < 0:\n            break\n"
                                       "        for _ in range(15):\n"
                                       "            if libc.write(fd, buf, len(buf)) != len(buf):\n                break\n"
                                       "            n += 1\n        libc.close(fd)\n    return n > 64",
    # its parent outside its pid namespace (getppid() 0), its own pid small: no pid of the machine's
    "sees_a_pid_outside_its_namespace": "import os\n    return os.getppid() != 0",
    # calls off the seccomp allowlist (the denylist before it let them through: pinned memory, a
    # machine-wide quota of asynchronous-I/O contexts)
    "lock_memory": "import ctypes\n    libc = ctypes.CDLL(None)\n    buf = ctypes.create_string_buffer(4096)\n"
                   "    return libc.mlock(buf, 4096) == 0",
    "linux_aio_context": "import ctypes\n    libc = ctypes.CDLL(None)\n    ctx = ctypes.c_ulong(0)\n"
                         "    return libc.syscall(206, 1, ctypes.byref(ctx)) == 0",  # io_setup: a machine-wide quota
}


@pytest.mark.parametrize("name", sorted(KERNEL_OBJECTS))
def test_kernel_objects_and_limits(name: str, sandbox_tmp: Path) -> None:
    var = (f"def probe():\n    {KERNEL_OBJECTS[name]}\ndef f(x):\n    try:\n        return bool(probe())\n"
           "    except BaseException:\n        return False\n")
    res = fuzz_pair("def f(x):\n    return False\n", var, entry="f", inputs=[[1]], settings=FAST)
    assert _verdicts(res) == "M", f"{name}: the worker could"
    assert list(sandbox_tmp.iterdir()) == []


def test_seccomp_lists_are_disjoint_and_fit_the_filter() -> None:
    """A call is allowed, refused or conditional, never two of these; the program stays within
    the kernel's 4096 instructions."""
    from lcl.engine.fuzz import isolation as ISO

    allowed, refused = set(ISO.ALLOW_X86_64.values()), set(ISO.DENY_X86_64.values())
    conditional = set(ISO._pid_args_x86_64(1234)) | {ISO.SYS_CLONE, ISO.SYS_CLONE3, ISO.SYS_IOCTL, ISO.SYS_PRCTL}
    assert not allowed & refused and not allowed & conditional and not refused & conditional
    assert len(ISO.ALLOW_X86_64) == len(allowed) and len(ISO.DENY_X86_64) == len(refused)
    assert len(ISO.seccomp_program(1234)) // 8 < 4096


def test_calls_off_the_allowlist_answer_enosys() -> None:
    """An unlisted call answers ENOSYS (as on a kernel without it); mlock was allowed before."""
    var = ("import ctypes\ndef f(x):\n    libc = ctypes.CDLL(None, use_errno=True)\n"
           "    buf = ctypes.create_string_buffer(4096)\n    rc = libc.mlock(buf, 4096)\n"
           "    return [rc, ctypes.get_errno()]\n")
    res = fuzz_pair("def f(x):\n    return [-1, 38]\n", var, entry="f", inputs=[[1]], settings=FAST)
    assert _verdicts(res) == "M"


def _descendants(pid: int) -> set[int]:
    """Every process below ``pid`` (from /proc: the parent field of each process's stat)."""
    parent: dict[int, int] = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                parent[int(d)] = int(Path(f"/proc/{d}/stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                pass
    out, todo = set(), [pid]
    while todo:
        p = todo.pop()
        kids = [c for c, pp in parent.items() if pp == p]
        out.update(kids)
        todo += kids
    return out


def test_no_worker_outlives_its_forkserver() -> None:
    """The fork-server is killed while its workers run: every worker is dead within a second.
    (The pid namespace's init is killed too, but its exit waits in the kernel until the
    machine's init has reaped the dead workers: it runs no code, so it is not counted.)"""
    fuzz_pair(REF, REF, entry="f", inputs=INPUTS, settings=FAST)  # fork-servers up
    fs = SB.get_forkserver(heavy=False)
    seen: set[int] = set()

    def kill_server() -> None:
        seen.update(_descendants(fs.proc.pid))
        os.kill(fs.proc.pid, signal.SIGKILL)

    timer = threading.Timer(0.4, kill_server)
    timer.start()
    try:
        fuzz_pair(REF, "import time\ndef f(x):\n    time.sleep(3)\n    return x * 2\n", entry="f", inputs=INPUTS,
                  settings=Settings(**{**FAST.to_dict(), "timeout_floor": 2.0, "timeout_cap": 4.0}))
    except SB.SandboxError:
        pass
    finally:
        timer.cancel()
    assert len(seen) >= 2, "no worker was running when the fork-server was killed"
    deadline = time.monotonic() + 1.0
    while time.monotonic() < deadline and [p for p in seen if _running(p)]:
        time.sleep(0.02)
    assert not [p for p in seen if _running(p)]


def _running(pid: int) -> bool:
    """Alive, not a zombie (a dead process waiting to be reaped) and no pid namespace's init."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
    return not fields.get("State", "Z").strip().startswith("Z") and fields.get("NSpid", "").split()[-1:] != ["1"]
