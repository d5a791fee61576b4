"""Nothing outside a worker is reachable: no datagram from a worker reaches a unix
socket of the host, a worker's ``/proc`` names no host process, and a worker cannot raise its
sockets' buffers (kernel memory outside its address-space limit). Each hostile candidate runs
through the real engine and reports what it reached in its return value; the reference returns
what a contained worker sees, so a contained candidate matches (``M``). A test skips where the
kernel lacks the mechanism that contains it (the isolation report says which)."""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest

from lcl.engine.fuzz import Settings, fuzz_pair
from lcl.engine.fuzz import sandbox as SB

FAST = Settings(runs=1, run_budget=5, timeout_floor=0.5, timeout_cap=2.0, watchdog_factor=2.0,
                watchdog_grace=0.3, reference_timeout=2.0)

pytestmark = pytest.mark.timeout(60)


def _need(*mechanisms: str) -> None:
    """Skip unless this machine's workers have every one of ``mechanisms``."""
    active = SB.get_forkserver(heavy=False).isolation["mechanisms"]
    lacking = [m for m in mechanisms if not active.get(m)]
    if lacking:
        pytest.skip(f"the kernel lacks {', '.join(lacking)} here")


def _run(variant: str, ref: str, inputs: list | None = None):
    res = fuzz_pair(ref, variant, entry="f", inputs=inputs or [[1]], settings=FAST)
    return "".join(r.verdicts for r in res.runs)


# ---------------------------------------------------------------- unix datagrams to the host
#: each way a worker could get a unix datagram (or seqpacket) socket and name a host path as the
#: destination; each entry's outcome is "refused" (the socket could not be made or could not
#: send to a path) or "sent"
DGRAM_ATTEMPTS = """
import errno, socket
def attempts(path):
    def pair(kind):
        a, b = socket.socketpair(socket.AF_UNIX, kind)
        return a
    def pair_flags(kind):
        a, b = socket.socketpair(socket.AF_UNIX, kind | socket.SOCK_CLOEXEC | socket.SOCK_NONBLOCK)
        return a
    def new(kind):
        return socket.socket(socket.AF_UNIX, kind)
    ways = [(pair, socket.SOCK_DGRAM), (pair, socket.SOCK_SEQPACKET), (pair_flags, socket.SOCK_DGRAM),
            (new, socket.SOCK_DGRAM), (new, socket.SOCK_SEQPACKET), (new, socket.SOCK_STREAM)]
    out = []
    for make, kind in ways:
        try:
            s = make(kind)
        except OSError:
            out.append('refused')
            continue
        try:
            s.sendto(b'pwned', path)
            out.append('sent')
        except OSError:
            try:
                s.sendmsg([b'pwned'], [], 0, path)
                out.append('sent')
            except OSError:
                try:
                    s.connect(path)
                    s.send(b'pwned')
                    out.append('sent')
                except OSError:
                    out.append('refused')
    # the honest kind stays: a connected stream pair refuses a destination (EISCONN)
    a, b = socket.socketpair()
    try:
        a.sendto(b'pwned', path)
        out.append('sent')
    except OSError:
        out.append('refused')
    return out
"""


def test_no_datagram_reaches_a_host_unix_socket(tmp_path: Path) -> None:
    _need("seccomp")
    path = tmp_path / "log.sock"  # a world-writable datagram socket, as syslog's /dev/log
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    srv.bind(str(path))
    os.chmod(path, 0o777)
    srv.settimeout(0.5)
    try:
        var = DGRAM_ATTEMPTS + f"def f(x):\n    return attempts({str(path)!r})\n"
        ref = "def f(x):\n    return ['refused'] * 7\n"
        v = _run(var, ref, inputs=[[1], [2]])
        with pytest.raises(socket.timeout):
            data = srv.recv(64)
            pytest.fail(f"a worker's datagram arrived: {data!r}")
        assert v == "MM", "a worker made a unix datagram/seqpacket socket or sent to a path"
    finally:
        srv.close()


def test_honest_socketpairs_and_asyncio_still_work() -> None:
    """``socketpair`` stays for ``AF_UNIX`` + ``SOCK_STREAM`` (with or without the CLOEXEC and
    NONBLOCK flags): asyncio's event loop needs it."""
    _need("seccomp")
    var = ("import asyncio, socket\n"
           "async def g(x):\n    await asyncio.sleep(0)\n    return x * 2\n"
           "def f(x):\n    a, b = socket.socketpair()\n    a.sendall(b'hi')\n    got = b.recv(2)\n"
           "    c, d = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM | socket.SOCK_NONBLOCK"
           " | socket.SOCK_CLOEXEC)\n"
           "    for s in (a, b, c, d):\n        s.close()\n    return [got.decode(), asyncio.run(g(x))]\n")
    ref = "def f(x):\n    return ['hi', x * 2]\n"
    assert _run(var, ref, inputs=[[1], [2]]) == "MM"


# ---------------------------------------------------------------- /proc of the host
def test_proc_names_no_host_process() -> None:
    """The candidate looks for host processes it was told about (this test's process and its
    parent, the machine's init) by ``stat``, for its own host pid through ``/proc/self``, and
    lists ``/proc``; it returns what it found (nothing, where contained)."""
    _need("procfs")
    host = sorted({1, os.getpid(), os.getppid()})
    var = ("import os\n"
           "def f(x):\n"
           "    me, seen = os.getpid(), []\n"
           f"    for pid in {host!r}:\n"
           "        if pid == me:\n            continue\n"
           "        try:\n"
           "            st = os.stat(f'/proc/{pid}')\n"
           "            seen.append(['stat', pid, st.st_uid])\n"
           "        except OSError:\n            pass\n"
           "    try:\n"
           "        s = os.readlink('/proc/self')\n"
           "        if s != str(me):\n            seen.append(['self', s])\n"
           "    except OSError:\n        pass\n"
           "    try:\n"
           "        others = [p for p in os.listdir('/proc') if p.isdigit() and int(p) != me]\n"
           "        if others:\n            seen.append(['listed', len(others)])\n"
           "    except OSError:\n        pass\n"
           "    return seen\n")
    assert _run(var, "def f(x):\n    return []\n", inputs=[[1], [2]]) == "MM", "a worker saw a host process"


def test_proc_of_the_pid_namespace_shows_no_other_worker() -> None:
    """Even the processes of the worker's own pid namespace (its init, pid 1, and the other
    workers) are invisible: ``stat`` of every small pid but its own fails."""
    _need("procfs", "pidns")
    var = ("import os\n"
           "def f(x):\n"
           "    me = os.getpid()\n"
           "    return [p for p in range(1, 200) if p != me and os.path.exists(f'/proc/{p}')]\n")
    assert _run(var, "def f(x):\n    return []\n", inputs=[[1], [2]]) == "MM"


# ---------------------------------------------------------------- socket buffers
def test_socket_buffers_cannot_be_raised() -> None:
    """``SO_SNDBUF``/``SO_RCVBUF`` and their ``FORCE`` variants are refused on every socket a
    worker can make (a unix stream pair, TCP, UDP); other options stay."""
    _need("seccomp")
    var = ("import socket\n"
           "OPTS = [socket.SO_SNDBUF, socket.SO_RCVBUF, 32, 33]\n"
           "def f(x):\n"
           "    a, b = socket.socketpair()\n"
           "    socks = [a, socket.socket(), socket.socket(socket.AF_INET, socket.SOCK_DGRAM)]\n"
           "    out = []\n"
           "    for s in socks:\n"
           "        for opt in OPTS:\n"
           "            try:\n"
           "                s.setsockopt(socket.SOL_SOCKET, opt, 1 << 30)\n"
           "                out.append(s.getsockopt(socket.SOL_SOCKET, {32: 7, 33: 8}.get(opt, opt)))\n"
           "            except PermissionError:\n"
           "                out.append('refused')\n"
           "        s.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)\n"
           "        out.append(s.getsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE) != 0)\n"
           "    return out\n")
    ref = "def f(x):\n    return (['refused'] * 4 + [True]) * 3\n"
    assert _run(var, ref) == "M", "a worker changed a socket buffer size"
