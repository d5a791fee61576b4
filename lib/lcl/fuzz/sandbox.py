"""The executor: a trusted fork-server, persistent sandboxed workers, and a watchdog.

Process layout (``docs/FUZZING.md`` has the full story)::

    harness (CLI / pool process / Dask worker)        trusted, never runs user code
      └── fork-server  (python -c BOOT, stdlib only)  trusted, own network namespace
            ├── worker  (setsid, rlimits, audit hook, temp dir)  runs the reference
            └── worker  ...                                      runs a variant

The harness asks the fork-server for a worker by sending it a fresh socket pair end and a
memfd (``SCM_RIGHTS``); the fork-server forks, the child contains itself and then only talks
to the harness. A worker executes *chunks* of inputs and writes one fixed-size record per
input (kind byte, 16-byte digest, charged seconds) into the shared memfd; nothing a worker
says is trusted beyond these fixed-size records and small capped JSON frames (no unpickling
of worker data, ever). The harness polls the records while it waits, which gives the
watchdog the input in flight: on a missed wall-clock deadline it SIGKILLs the worker
(``pidfd_send_signal``), records TIMEOUT, re-forks, reloads and continues with the next input;
on EOF (the worker died) it records CRASH the same way.

This module imports only the standard library: the fork-server loads it by path.
"""

from __future__ import annotations

import array
import ast
import builtins
import collections
import contextlib
import errno
import functools
import io
import json
import math
import mmap
import os
import pickle
import select
import shutil
import signal
import socket
import struct
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from typing import Any

try:  # package import (harness) or path import (fork-server)
    from . import isolation as ISO
    from . import semantics as S
except ImportError:  # pragma: no cover - the fork-server sets sys.path so this is not needed
    from lcl.fuzz import isolation as ISO  # type: ignore[no-redef]
    from lcl.fuzz import semantics as S  # type: ignore[no-redef]

HDR = 64  # shared-memory header: [0:8] files created (counter), rest reserved


def layout(slots: int) -> tuple[int, int, int, int]:
    """Offsets of the kinds (1 byte/slot), digests (16), charges (8) regions and the size.
    A worker writes a slot's digest and charge before its kind, so kind != 0 = complete."""
    k0 = HDR
    d0 = k0 + (slots + 7) // 8 * 8
    c0 = d0 + 16 * slots
    return k0, d0, c0, c0 + 8 * slots


CHARGE = struct.Struct("<d")
FRAME = struct.Struct("<I")
MAX_FRAME = 1 << 16  # cap on anything a worker sends
POLL = 0.05  # watchdog poll interval (s)
TICK = 0.02  # in-worker CPU timer tick (s)
CLONE_NEWNET = 0x40000000
PR_SET_PDEATHSIG = 1
_CLK_TCK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def proc_cpu(pid: int) -> float | None:
    """CPU seconds (user + system) that process ``pid`` has used so far, from Linux's
    ``/proc/<pid>/stat`` (a forked worker is not our child, so ``getrusage`` cannot see it);
    None where that is not available."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            data = fh.read()
        fields = data[data.rindex(b")") + 2:].split()
        return (int(fields[11]) + int(fields[12])) / _CLK_TCK
    except (OSError, ValueError, IndexError):
        return None


NETWORK_MODES = ("auto", "netns", "audit", "none")


class SandboxError(RuntimeError):
    """The sandbox itself failed (not the code under test)."""


class Aborted(SandboxError):
    """The batch this pass belongs to was interrupted (see :func:`set_abort_event`)."""


_TLS = threading.local()


def set_abort_event(event: threading.Event | None) -> None:
    """Passes run by this thread stop (raising :class:`Aborted`, workers killed) soon after
    ``event`` is set: the batch's threads get one, so an interrupted batch does not wait for
    the pairs in flight."""
    _TLS.abort = event


# ================================================================== worker side
class _Timeout(BaseException):
    """Raised by the in-worker CPU timer; a BaseException so ``except Exception`` cannot eat it."""


class _HardExit(BaseException):
    """Stands in for ``os._exit`` inside a worker (see docs/FUZZING.md)."""

    def __init__(self, code: int) -> None:
        super().__init__(code)
        self.code = code


class _State:
    """In-worker timer state. ``ticks`` counts ITIMER_PROF ticks (TICK seconds of CPU time)."""

    __slots__ = ("active", "start", "limit", "fired", "ticks")

    def __init__(self) -> None:
        self.active = False
        self.start = 0
        self.limit = 1.0
        self.fired = False
        self.ticks = 0


_ST = _State()


def _on_tick(signum: int, frame: Any) -> None:
    st = _ST
    st.ticks += 1
    if st.active and st.ticks - st.start > st.limit:
        st.fired = True
        raise _Timeout()


_LIBC: list[Any] = []


def _libc() -> Any:
    if not _LIBC:
        import ctypes

        _LIBC.append(ctypes.CDLL(None, use_errno=True))
    return _LIBC[0]


def _blocked(*_a: Any, **_k: Any) -> Any:
    raise PermissionError(errno.EPERM, "blocked by the lcl fuzz sandbox")


_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
_SPAWN_EVENTS = ("os.fork", "os.forkpty", "os.posix_spawn", "os.spawn", "os.exec", "os.system",
                 "subprocess.Popen", "os.startfile", "pty.spawn", "os.link", "os.symlink",
                 "signal.pthread_kill", "os.killpg", "resource.prlimit")
_PATH_EVENTS = ("os.remove", "os.rmdir", "os.chmod", "os.chown", "os.truncate", "os.utime",
                "os.chflags", "os.lchflags", "os.setxattr", "os.removexattr", "shutil.rmtree",
                "os.lchmod", "os.lchown")
_NET_EVENTS = ("socket.__new__", "socket.connect", "socket.bind", "socket.sendto", "socket.sendmsg",
               "socket.getaddrinfo", "socket.gethostbyname", "socket.gethostbyaddr",
               "socket.gethostbyname_ex", "socket.getnameinfo")
_BLOCKED_IMPORTS = frozenset({"_posixsubprocess", "posix", "_ctypes", "_socket", "_multiprocessing"})
#: with the kernel's confinement (see ``isolation``) the hook only counts created files (the
#: disk limit's trigger) and turns process creation, which seccomp refuses, into a
#: PermissionError at the call (``os.system`` would otherwise just return -1)
_KERNEL_SPAWN_EVENTS = ("os.fork", "os.forkpty", "os.posix_spawn", "os.spawn", "os.exec", "os.system",
                        "subprocess.Popen", "pty.spawn")


def _install_audit_hook(tmpdir: str, max_files: int, block_net: bool, shm: memoryview, kernel: bool = False) -> None:
    """Count created files (over ``max_files``: refused) and refuse process creation; without
    ``kernel`` confinement also confine writes to ``tmpdir``, forbid signals to others, rlimit
    changes, ctypes and fresh loads of dangerous extension modules; (optionally) sockets."""
    root = tmpdir.rstrip(os.sep) + os.sep
    me = os.getpid()
    abspath, fsdecode, isdir = os.path.abspath, os.fsdecode, os.path.isdir
    creates = shm[0:8].cast("q")
    import resource

    stack = resource.RLIMIT_STACK

    def deny(what: str) -> None:
        raise PermissionError(errno.EPERM, f"lcl fuzz sandbox: {what} is not allowed")

    def inside(p: Any) -> bool:
        if isinstance(p, int):
            return p in (1, 2)
        try:
            q = abspath(fsdecode(p))
        except Exception:  # noqa: BLE001
            return False
        return q == tmpdir or q.startswith(root)

    def created() -> None:
        creates[0] += 1
        if creates[0] > max_files:
            deny(f"creating more than {max_files} files")

    def on_open(a: tuple) -> None:
        path, mode, flags = a
        if isinstance(mode, str):
            write = any(c in mode for c in "wax+")
            create = any(c in mode for c in "wax")
        else:
            write = bool((flags or 0) & _WRITE_FLAGS)
            create = bool((flags or 0) & os.O_CREAT)
            if not write and not isinstance(path, int) and path is not None and isdir(path) and not inside(path):
                deny("opening a directory outside the temporary directory")
        if write:
            if path is None or not inside(path):
                deny(f"writing {path!r} outside the temporary directory")
            if create and not isinstance(path, int):
                created()

    def on_path(a: tuple) -> None:
        if a and not isinstance(a[0], int) and not inside(a[0]):
            deny(f"modifying {a[0]!r} outside the temporary directory")

    def on_mkdir(a: tuple) -> None:
        on_path(a)
        created()

    def on_rename(a: tuple) -> None:
        if not (inside(a[0]) and inside(a[1])):
            deny("renaming outside the temporary directory")

    def on_kill(a: tuple) -> None:
        if a[0] != me:
            deny("signalling another process")

    def on_setrlimit(a: tuple) -> None:
        if a[0] != stack:
            deny("changing resource limits")

    def on_import(a: tuple) -> None:
        if a[0] in _BLOCKED_IMPORTS:
            deny(f"loading module {a[0]}")

    def on_deny(a: tuple) -> None:
        deny("this operation")

    def on_chdir(a: tuple) -> None:
        _CHDIR[0] = True

    def count_open(a: tuple) -> None:
        path, mode, flags = a
        create = any(c in mode for c in "wax") if isinstance(mode, str) else bool((flags or 0) & os.O_CREAT)
        if create and not isinstance(path, int):
            created()

    def count_mkdir(a: tuple) -> None:
        created()

    if kernel:
        handlers: dict[str, Any] = {"open": count_open, "os.mkdir": count_mkdir, "os.chdir": on_chdir}
        for e in _KERNEL_SPAWN_EVENTS:
            handlers[e] = on_deny
    else:
        handlers = {"open": on_open, "os.mkdir": on_mkdir, "os.rename": on_rename, "os.replace": on_rename,
                    "os.kill": on_kill, "resource.setrlimit": on_setrlimit, "import": on_import, "os.chdir": on_chdir}
        for e in _SPAWN_EVENTS:
            handlers[e] = on_deny
        for e in _PATH_EVENTS:
            handlers[e] = on_path
    if block_net:
        for e in _NET_EVENTS:
            handlers[e] = on_deny
    get = handlers.get
    python_only = not kernel

    def hook(event: str, args: tuple) -> None:
        h = get(event)
        if h is not None:
            h(args)
        elif python_only and event[:7] == "ctypes.":
            deny("ctypes")

    sys.addaudithook(hook)


def _contain(cfg: dict[str, Any], shm: memoryview) -> None:
    """Everything a worker does to itself before it runs untrusted code."""
    import resource

    os.setsid()
    with contextlib.suppress(Exception):
        _libc().prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    tmpdir = cfg["tmpdir"]
    os.chdir(tmpdir)
    os.environ["TMPDIR"] = tmpdir
    os.environ["HOME"] = tmpdir
    tempfile.tempdir = tmpdir
    s = cfg["settings"]
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    limits = [
        (resource.RLIMIT_AS, s["memory_bytes"]),
        (resource.RLIMIT_CPU, int(cfg["cpu_seconds"])),
        (resource.RLIMIT_FSIZE, s["file_bytes"]),
        (resource.RLIMIT_NPROC, 0),  # effective for non-root users; root: see the audit hook
        (resource.RLIMIT_CORE, 0),
        (resource.RLIMIT_NOFILE, 256),
    ]
    for res, val in limits:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(res, (val, val))
    iso = cfg.get("isolation") or {}
    kernel = bool(iso.get("kernel"))
    # refused by the kernel (seccomp) where it confines the worker, but os.system would only
    # return -1: the call raises instead, as every refused call does
    names = ("fork", "forkpty", "system") if kernel else (
        "mkfifo", "mknod", "chroot", "setsid", "setpgid", "fork", "forkpty", "system")
    for mod in (os, sys.modules.get("posix")):
        for name in names:
            if mod is not None and hasattr(mod, name):
                setattr(mod, name, _blocked)
    if iso.get("want"):  # irrevocable; raises (the worker then dies) if a promised mechanism fails
        got = ISO.confine(tmpdir, iso["readable"], iso["want"])
        missing = [m for m, on in got.items() if iso["mechanisms"].get(m) and not on]
        if missing:
            raise SandboxError(f"isolation: {', '.join(missing)} could not be applied")
    _install_audit_hook(tmpdir, s["max_files"], cfg["block_net"], shm, kernel=kernel)


def _recv_exact(sock: socket.socket, n: int) -> bytes:
    buf = bytearray()
    while len(buf) < n:
        b = sock.recv(n - len(buf))
        if not b:
            raise EOFError
        buf += b
    return bytes(buf)


def _send_frame(sock: socket.socket, obj: dict[str, Any]) -> None:
    data = json.dumps(obj).encode()[:MAX_FRAME]
    sock.sendall(FRAME.pack(len(data)) + data)


class _Sink(io.RawIOBase):
    """Program stdout (Python level): bytes in memory, capped like a file (EFBIG beyond)."""

    def __init__(self, cap: int) -> None:
        super().__init__()
        self.parts: list[bytes] = []
        self.n = 0
        self.cap = cap
        self.closed_for_good = False

    def writable(self) -> bool:
        return True

    def write(self, b: Any) -> int:
        n = len(b)
        if self.closed_for_good:
            return n
        self.n += n
        if self.n > self.cap:
            raise OSError(errno.EFBIG, "File too large (lcl fuzz stdout limit)")
        self.parts.append(bytes(b))
        return n


class _Worker:
    """The code running inside a sandboxed worker process."""

    def __init__(self, sock: socket.socket, shm: mmap.mmap, cfg: dict[str, Any]) -> None:
        self.sock = sock
        self.shm = shm
        self.mv = memoryview(shm)
        self.cfg = cfg
        self.level = cfg["level"]
        self.fn: Any = None
        self.code: Any = None
        self.blobs: list[bytes] = []
        self.offset = 0
        self._limits: list[float] = []
        self._limits_of: Any = None
        self.rlimit = self.rlimit0 = sys.getrecursionlimit()
        self.int_digits = self.int_digits0 = sys.get_int_max_str_digits()
        self.null_out = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115
        self.null_in = io.StringIO("")
        self.tmpdir = cfg["tmpdir"]
        self.lay = layout(cfg["slots"])
        self.precise = bool(cfg.get("precise"))
        self.creates = self.mv[0:8].cast("q")
        self.creates_seen = 0
        self.base = 0

    def disk_exceeded(self) -> bool:
        """Called after an input that created files: over the directory limit -> the input
        counts as a crash (resource limit) and the directory is wiped."""
        self.creates_seen = self.creates[0]
        if dir_size(self.tmpdir) <= self.cfg["settings"]["dir_bytes"]:
            return False
        with contextlib.suppress(Exception):
            wipe_dir(self.tmpdir)
        return True

    # -- setup ------------------------------------------------------------------------------
    def setup_fds(self) -> None:
        devnull = os.open(os.devnull, os.O_RDWR)
        if self.level == "program":
            self.fd_in = os.memfd_create("lcl-stdin")
            self.fd_out = os.memfd_create("lcl-stdout")
        else:
            self.fd_in = self.fd_out = devnull
        os.dup2(self.fd_in, 0)
        os.dup2(self.fd_out, 1)
        os.dup2(devnull, 2)
        self.devnull = devnull
        sys.stdin = sys.__stdin__ = self.null_in  # type: ignore[misc]
        sys.stdout = sys.__stdout__ = self.null_out  # type: ignore[misc]
        sys.stderr = sys.__stderr__ = self.null_out  # type: ignore[misc]

    def load(self, msg: dict[str, Any]) -> dict[str, Any]:
        code_text, entry = msg["code"], msg.get("entry")
        try:
            code = compile(code_text, msg.get("filename", "<code>"), "exec")
        except (SyntaxError, ValueError) as exc:
            return {"status": "syntax", "detail": f"{type(exc).__name__}: {exc}"}
        _seed_random()
        if self.level == "program":
            self.code = code
            self.fd_mode = S.needs_fds(code_text)
            return {"status": "ok"}
        import types

        # a fresh module: the worker's defaults first; what the module sets at import time
        # (e.g. sys.setrecursionlimit) becomes the baseline restored before every input
        self.rlimit, self.int_digits = self.rlimit0, self.int_digits0
        sys.setrecursionlimit(self.rlimit0)
        sys.set_int_max_str_digits(self.int_digits0)
        mod = types.ModuleType(S.FUNCTION_NAME)
        mod.__file__ = msg.get("filename", "<code>")
        sys.modules[S.FUNCTION_NAME] = mod
        st = _ST
        signal.setitimer(signal.ITIMER_PROF, TICK, TICK)
        try:
            st.fired = False
            st.limit = float(msg["timeout"]) / TICK
            st.start = st.ticks
            st.active = True
            exec(code, mod.__dict__)  # noqa: S102 - sandboxed
            st.active = False
            self.rlimit = max(_getrl(), 50)
            self.int_digits = _getdigits()
        except _Timeout:
            st.active = False
            return {"status": "timeout"}
        except BaseException as exc:  # noqa: BLE001
            st.active = False
            if st.fired:
                return {"status": "timeout"}
            return {"status": "exc", "detail": S.exception_name(type(exc))[:200], "message": str(exc)[:500]}
        finally:
            st.active = False
            signal.setitimer(signal.ITIMER_PROF, 0, 0)
            self._hygiene()
        fn = mod.__dict__.get(entry)
        if not callable(fn):
            return {"status": "noentry", "detail": str(entry)}
        self.fn = fn
        return {"status": "ok"}

    # -- per-input hygiene ----------------------------------------------------------------------
    def _hygiene(self) -> bool:
        """Restore what an input may have changed; True when the worker must be replaced
        (a thread it started is still running)."""
        if _getrl() != self.rlimit:
            sys.setrecursionlimit(self.rlimit)
        if _getdigits() != self.int_digits:
            sys.set_int_max_str_digits(self.int_digits)
        if _gettrace() is not None or _getprofile() is not None:
            sys.settrace(None)
            sys.setprofile(None)
        if _getsignal(signal.SIGPROF) is not _on_tick:
            signal.signal(signal.SIGPROF, _on_tick)
        if sys.stdout is not self.null_out or sys.stderr is not self.null_out:
            sys.stdout = sys.__stdout__ = sys.stderr = sys.__stderr__ = self.null_out  # type: ignore[misc]
        if sys.stdin is not self.null_in:
            sys.stdin = sys.__stdin__ = self.null_in  # type: ignore[misc]
        if _CHDIR[0]:
            _CHDIR[0] = False
            os.chdir(self.tmpdir)
        return _thread_count() > 0

    # -- chunks ---------------------------------------------------------------------------------
    def run_chunk(self, start: int, end: int, timeouts: list[float], deadline: float) -> dict[str, Any]:
        """Inputs ``start..end``; records go to slots ``base + (i - start)``; stop after the
        input during which ``time.monotonic()`` passes ``deadline`` (the run's budget)."""
        signal.setitimer(signal.ITIMER_PROF, TICK, TICK)
        try:
            if self.level == "program":
                done, status = self._chunk_program(start, end, timeouts, deadline)
            else:
                done, status = self._chunk_function(start, end, timeouts, deadline)
        finally:
            signal.setitimer(signal.ITIMER_PROF, 0, 0)
        return {"done": done, "status": status}

    def _chunk_function(self, start: int, end: int, timeouts: list[float], budget: float) -> tuple[int, str]:
        fn, blobs, loads, off = self.fn, self.blobs, pickle.loads, self.offset
        st, shm, Flat = _ST, self.shm, _Flat
        k0, d0, c0, _ = self.lay
        dmv = self.mv[d0:c0]  # digests
        cmv = self.mv[c0:c0 + 8 * self.cfg["slots"]].cast("d")  # charges (native double, as read)
        wall = time.monotonic  # = perf_counter on Linux (CLOCK_MONOTONIC): one clock read per input
        clock = time.process_time if self.precise else wall
        out_digest, exc_name, exc_digest = S.output_digest, S.exception_name, S.exception_digest
        D_TRUE, D_FALSE = S.output_digest(True), S.output_digest(False)
        OK, EXC, TIMEOUT = S.OK, S.EXC, S.TIMEOUT
        if self._limits_of is not timeouts:  # CPU-tick limits, once per list of timeouts
            self._limits = [t / TICK for t in timeouts]
            self._limits_of = timeouts
        limits = self._limits
        hygiene = self._hygiene
        rl, getrl, tcount, chd = self.rlimit, _getrl, _thread_count, _CHDIR
        nout, nin, digits, SIGPROF = self.null_out, self.null_in, self.int_digits, signal.SIGPROF
        creates = self.creates
        budget_clock = wall if self.precise else None
        stop_at = budget
        status = "done"
        done = start
        t_prev = clock()
        base = self.base - start
        for i in range(start, end):
            j = i + base
            kind, digest = OK, None
            try:
                args = blobs[i - off]
                if args.__class__ is bytes:
                    args = loads(args)
                elif args.__class__ is Flat:  # fresh copies of the flat mutable arguments
                    tpl, idx = args
                    args = tpl.copy()
                    if idx.__class__ is int:
                        args[idx] = args[idx].copy()
                    else:
                        for k in idx:
                            args[k] = args[k].copy()
                st.fired = False
                st.limit = limits[i]
                st.start = st.ticks
                try:
                    st.active = True
                    value = fn(*args)
                    # still under the timer: encoding can run user code (bools: output_digest's
                    # own first case, inlined)
                    digest = D_TRUE if value is True else D_FALSE if value is False else out_digest(value)
                    st.active = False
                    value = None
                    if st.fired:
                        kind, digest = TIMEOUT, None
                except _Timeout:
                    st.active = False
                    kind = TIMEOUT
                except _HardExit:
                    st.active = False
                    kind, digest = (TIMEOUT, None) if st.fired else (EXC, exc_digest("os._exit"))
                except BaseException as exc:  # noqa: BLE001 - exceptions are outputs
                    st.active = False
                    kind, digest = (TIMEOUT, None) if st.fired else (EXC, exc_digest(exc_name(type(exc))))
                    exc = None  # noqa: F841 - drop the traceback
            except _Timeout:
                st.active = False
                kind, digest = TIMEOUT, None
            except MemoryError:
                st.active = False
                kind, digest = EXC, exc_digest("builtins.MemoryError")
            if creates[0] != self.creates_seen and self.disk_exceeded():
                kind, digest = S.CRASH, None
            t = clock()
            if digest is not None:
                dmv[16 * j:16 * j + 16] = digest
            cmv[j] = t - t_prev
            shm[k0 + j] = kind  # last: a non-zero kind marks the record complete
            t_prev = t
            done = i + 1
            if (getrl() != rl or chd[0] or tcount() or _gettrace() is not None or _getprofile() is not None
                    or sys.stdout is not nout or sys.stderr is not nout or sys.stdin is not nin
                    or _getdigits() != digits or _getsignal(SIGPROF) is not _on_tick) and hygiene():
                status = "restart"
                break
            if (t if budget_clock is None else budget_clock()) > stop_at:
                status = "budget"
                break
        return done, status

    def _chunk_program(self, start: int, end: int, timeouts: list[float], budget: float) -> tuple[int, str]:
        code, blobs, loads, off = self.code, self.blobs, pickle.loads, self.offset
        st, shm, pack = _ST, self.shm, CHARGE.pack_into
        k0, d0, c0, _ = self.lay
        clock = time.process_time if self.precise else time.perf_counter
        exc_name, exc_digest, stdout_digest = S.exception_name, S.exception_digest, S.stdout_digest
        OK, EXC, TIMEOUT = S.OK, S.EXC, S.TIMEOUT
        fd_in, fd_out, fds, devnull = self.fd_in, self.fd_out, self.fd_mode, self.devnull
        cap = min(self.cfg["settings"]["stdout_bytes"], self.cfg["settings"]["file_bytes"])
        TextIOWrapper, BufferedWriter, BytesIO = io.TextIOWrapper, io.BufferedWriter, io.BytesIO
        lseek, pread, dup2 = os.lseek, os.pread, os.dup2
        wall = time.monotonic
        stop_at = budget
        status = "done"
        done = start
        import atexit

        t_prev = clock()
        base = self.base - start
        for i in range(start, end):
            j = i + base
            kind, digest = OK, None
            data = loads(blobs[i - off])
            if isinstance(data, str):
                data = data.encode("utf-8", "surrogateescape")
            if fds:  # real descriptors: fd 0 reads this input, fd 1 is captured
                os.pwrite(fd_in, data, 0)
                os.ftruncate(fd_in, len(data))
                dup2(fd_in, 0)
                lseek(fd_in, 0, os.SEEK_SET)
                dup2(fd_out, 1)
            stdin = TextIOWrapper(BytesIO(data), encoding="utf-8", errors="surrogateescape")
            if fds:  # Python-level output goes through fd 1 as well, exactly like a process
                sink = None
                out = TextIOWrapper(BufferedWriter(io.FileIO(1, "w", closefd=False), 8192), encoding="utf-8")
            else:  # no file-descriptor tricks in the source: a cheaper in-memory stdout
                sink = _Sink(cap)
                out = TextIOWrapper(BufferedWriter(sink, 8192), encoding="utf-8")
            sys.stdin = sys.__stdin__ = stdin  # type: ignore[misc]
            sys.stdout = sys.__stdout__ = out  # type: ignore[misc]
            g = {"__name__": "__main__", "__builtins__": builtins, "__file__": "main.py"}
            try:
                st.fired = False
                st.limit = timeouts[i] / TICK
                st.start = st.ticks
                try:
                    st.active = True
                    try:
                        exec(code, g)  # noqa: S102 - sandboxed
                    except SystemExit:
                        pass
                    _join_threads()
                    atexit._run_exitfuncs()
                    out.flush()
                    st.active = False
                    if st.fired:
                        kind = TIMEOUT
                except _Timeout:
                    st.active = False
                    kind = TIMEOUT
                except _HardExit:  # os._exit: what was not flushed is lost, as in a process
                    st.active = False
                    kind = TIMEOUT if st.fired else OK
                except BaseException as exc:  # noqa: BLE001
                    st.active = False
                    kind, digest = (TIMEOUT, None) if st.fired else (EXC, exc_digest(exc_name(type(exc))))
                    exc = None  # noqa: F841
            except _Timeout:
                st.active = False
                kind = TIMEOUT
            except MemoryError:
                st.active = False
                kind, digest = EXC, exc_digest("builtins.MemoryError")
            # late flushes (e.g. of a buffer left unflushed by os._exit) must go nowhere
            if sink is not None:
                sink.closed_for_good = True
                parts, extra = sink.parts, sink.n
            else:
                dup2(devnull, 1)
                parts, extra = [], 0
            atexit._clear()
            g.clear()
            size = lseek(fd_out, 0, os.SEEK_CUR)
            if kind == OK:
                # without fd tricks, writes to fd 1 (if any) are placed before the Python-level
                # output, as in a process whose Python output stays under one 8 KiB buffer
                raw = pread(fd_out, min(size, cap + 1), 0) if size else b""
                if len(raw) + extra > cap:
                    kind, digest = EXC, exc_digest("lcl.OutputLimitExceeded")
                else:
                    digest = stdout_digest(raw + b"".join(parts) if raw else b"".join(parts))
            if size:
                os.ftruncate(fd_out, 0)
                lseek(fd_out, 0, os.SEEK_SET)
            del out, stdin, sink
            if self.creates[0] != self.creates_seen and self.disk_exceeded():
                kind, digest = S.CRASH, None
            t = clock()
            if digest is not None:
                shm[d0 + 16 * j:d0 + 16 * j + 16] = digest
            pack(shm, c0 + 8 * j, t - t_prev)
            shm[k0 + j] = kind
            t_prev = t
            done = i + 1
            if self._hygiene():
                status = "restart"
                break
            if wall() > stop_at:
                status = "budget"
                break
        return done, status

    # -- main loop -------------------------------------------------------------------------------
    def serve(self) -> None:
        sock = self.sock
        while True:
            try:
                (n,) = FRAME.unpack(_recv_exact(sock, 4))
                msg = pickle.loads(_recv_exact(sock, n))  # from the trusted harness
            except (EOFError, OSError):
                os._exit(0)
            op = msg["op"]
            if op == "load":
                reply = self.load(msg)
            elif op == "inputs":  # one shard: input i is blobs[i - offset]
                self.offset = int(msg.get("offset", 0))
                if self.level == "program" or not msg.get("prepare", True):
                    self.blobs = msg["blobs"]  # unpickled by every call
                else:
                    self.blobs = [_prepare_args(b) for b in msg["blobs"]]
                reply = {"status": "ok"}
            elif op == "chunk":
                if "timeouts" in msg:
                    self.timeouts = msg["timeouts"]
                self.base = int(msg.get("base", 0))
                reply = self.run_chunk(msg["start"], msg["end"], self.timeouts, msg["deadline"])
            else:
                os._exit(0)
            try:
                _send_frame(sock, reply)
            except OSError:
                os._exit(0)


_IMMUTABLE_SCALARS = (int, float, str, bytes, bool, type(None), complex)


def _immutable(x: Any, depth: int = 0) -> bool:
    t = type(x)
    if t in _IMMUTABLE_SCALARS:
        return True
    if (t is tuple or t is frozenset) and depth < 20:
        return all(_immutable(v, depth + 1) for v in x)
    return False


_SCALAR_TYPES = frozenset(_IMMUTABLE_SCALARS)


def _all_immutable(items: Any) -> bool:
    return _SCALAR_TYPES.issuperset(map(type, items)) or all(map(_immutable, items))


class _Flat(tuple):
    """(template list of the arguments, index or tuple of indices of the flat mutable ones):
    every call gets a new list of the arguments with fresh ``.copy()``s of those (see
    :func:`_prepare_args`)."""


def _prepare_args(blob: bytes) -> Any:
    """Arguments that cannot be mutated are unpickled once and shared by every call. Arguments
    whose only mutable parts are flat lists/dicts/bytearrays of immutable values (no container
    given twice) become a :class:`_Flat`: a shallow ``.copy()`` of each container is then exactly
    as fresh as an unpickled one (same types, values, order; the shared items are immutable)
    and costs a fraction of ``pickle.loads``. Anything else stays pickled: every call unpickles
    its own copy."""
    args = pickle.loads(blob)
    if type(args) is not tuple:
        return args if _immutable(args) else blob
    idx = []
    scalars = _SCALAR_TYPES
    for k, a in enumerate(args):
        t = type(a)
        if t in scalars:
            continue
        if t is list:
            if not _all_immutable(a):
                return blob
        elif t is dict:
            if not (_all_immutable(a) and _all_immutable(a.values())):
                return blob
        elif t is bytearray:
            pass
        elif _immutable(a):
            continue
        else:
            return blob
        idx.append(k)
    if not idx:
        return args
    if len(idx) > 1 and len({id(args[k]) for k in idx}) < len(idx):
        return blob  # the same container twice: unpickling keeps the aliasing
    return _Flat((list(args), idx[0] if len(idx) == 1 else tuple(idx)))


import _signal  # noqa: E402
import _thread  # noqa: E402

_thread_count = _thread._count
_getsignal = _signal.getsignal
_getrl, _getdigits, _gettrace, _getprofile = (sys.getrecursionlimit, sys.get_int_max_str_digits,
                                              sys.gettrace, sys.getprofile)
_CHDIR = [False]  # set by the audit hook on os.chdir


def _seed_random() -> None:
    """Every run starts from the same pseudo-random state (the fork-server's was seeded from
    os.urandom), so code that uses ``random`` or ``numpy.random`` unseeded is deterministic."""
    import random

    random.seed(0)
    np = sys.modules.get("numpy")
    if np is not None:
        with contextlib.suppress(Exception):
            np.random.seed(0)


def _join_threads() -> None:
    main = threading.main_thread()
    for t in threading.enumerate():
        if t is not main and not t.daemon:
            t.join()


def _worker_entry(sock_fd: int, shm_fd: int, cfg: dict[str, Any]) -> None:
    """Runs in the forked child. Never returns."""
    try:
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        shm = mmap.mmap(shm_fd, 0)
        os.close(shm_fd)
        sock = socket.socket(fileno=sock_fd)
        sock.setblocking(True)
        w = _Worker(sock, shm, cfg)
        w.setup_fds()
        keep = sorted({sock_fd, 0, 1, 2, w.devnull, w.fd_in, w.fd_out, w.null_out.fileno()})
        lo = 0
        for fd in keep + [65536]:
            if fd > lo:
                os.closerange(lo, fd)
            lo = fd + 1
        _contain(cfg, memoryview(shm))
        signal.signal(signal.SIGPROF, _on_tick)
        real_exit = os._exit

        def fake_exit(code: int = 0) -> None:
            raise _HardExit(code)

        os._exit = fake_exit  # type: ignore[assignment]
        if not (cfg.get("isolation") or {}).get("kernel"):  # ctypes is blocked at Python level
            for name in ("ctypes", "_ctypes", "ctypes._endian"):
                sys.modules.pop(name, None)
        w.real_exit = real_exit  # type: ignore[attr-defined]
        w.serve()
    except BaseException:  # noqa: BLE001
        pass
    finally:
        os.kill(os.getpid(), signal.SIGKILL)


# ================================================================== fork-server
_PRELOAD = ("resource", "types", "ctypes", "math", "itertools", "functools", "collections", "heapq", "bisect", "re", "string",
            "random", "operator", "copy", "fractions", "decimal", "statistics", "typing", "array",
            "dataclasses", "hashlib", "json", "datetime", "atexit", "types", "io", "enum")
#: third-party modules competitive programs import (numpy: 26 % of PIE's slow programs).
#: Loaded by the trusted fork-server when installed, single-threaded, because their import
#: uses ctypes, which a contained worker may not (the program's ``import numpy`` then finds
#: the loaded module). scipy loads ctypes lazily per submodule, so the submodules PIE's
#: programs import are named (``scipy.sparse.csgraph`` in 16 of PIE's 2000 programs,
#: ``scipy.sparse`` 5, ``scipy.spatial`` 1); any other scipy submodule stays unavailable, as
#: does numba (not installed). See docs/FUZZING.md.
_PRELOAD_OPTIONAL = ("numpy", "scipy", "scipy.sparse", "scipy.sparse.csgraph", "scipy.spatial")
_SINGLE_THREAD_ENV = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "NUMEXPR_NUM_THREADS")


def _probe_isolation(netns: bool, mode: str, libdir: str) -> dict[str, Any]:
    """The isolation report of this fork-server's workers (see ``isolation``); what it needs
    to apply them travels in each worker's config. ``LCL_FUZZ_NO_KERNEL_ISOLATION`` simulates
    a kernel without Landlock and seccomp (tests)."""
    if os.environ.get("LCL_FUZZ_NO_KERNEL_ISOLATION"):
        probed: dict[str, Any] = {"want": {}, "readable": []}
    else:
        try:
            probed = ISO.probe(os.environ.get("LCL_FUZZ_TMP") or None, exclude=(libdir,))
        except Exception as exc:  # noqa: BLE001
            probed = {"want": {}, "readable": [], "errors": {"probe": str(exc)[:200]}}
    rep = ISO.report(probed, netns, mode)
    rep["want"] = probed.get("want", {}) if any(rep["mechanisms"].values()) else {}
    rep["readable"] = probed.get("readable", [])
    return rep


def _forkserver_main(ctl_fd: int, network: str, heavy: str = "1", mode: str = "best") -> None:
    """Loop: receive (config, [sock_fd, shm_fd]) and fork a worker. Exits on EOF. ``heavy``
    ("1"/"0"): whether the optional third-party modules are preloaded; ``mode``: isolation
    ``best`` (what the kernel has, reported) or ``strict`` (refuse to start without all)."""
    import importlib

    ctl = socket.socket(fileno=ctl_fd)
    netns = False
    if network in ("auto", "netns") and not os.environ.get("LCL_FUZZ_NO_NETNS"):
        try:
            libc = _libc()
            netns = libc.unshare(CLONE_NEWNET) == 0
        except Exception:  # noqa: BLE001
            netns = False
    iso = _probe_isolation(netns, mode, sys.path[0])
    for name in _PRELOAD:
        with contextlib.suppress(Exception):
            importlib.import_module(name)
    for var in _SINGLE_THREAD_ENV:  # no BLAS thread pools: workers may not start threads, and results stay deterministic
        os.environ[var] = "1"
    for name in _PRELOAD_OPTIONAL if heavy == "1" else ():
        with contextlib.suppress(Exception):
            importlib.import_module(name)
    with contextlib.suppress(Exception):
        _libc()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    error = None if netns or network != "netns" else "unshare(CLONE_NEWNET) failed"
    if mode == "strict" and iso["missing"] and error is None:
        error = f"--isolation strict: the kernel lacks {', '.join(iso['missing'])}"
    public = {k: v for k, v in iso.items() if k not in ("want", "readable")}
    ctl.send(pickle.dumps({"netns": netns, "pid": os.getpid(), "error": error, "isolation": public}))
    # children are reaped only here, so an unreaped child's pid (= its process group, after
    # setsid) cannot have been reused when we signal it
    children: set[int] = set()
    tmpdirs: set[str] = set()  # removed when the harness goes away, even after kill -9

    def reap() -> None:
        while children:
            try:
                pid, _status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                children.clear()
                return
            if pid == 0:
                return
            children.discard(pid)

    while True:
        try:
            msg, fds, _flags, _addr = socket.recv_fds(ctl, 1 << 20, 4)
        except OSError:
            break
        if not msg:
            break
        reap()
        cfg = pickle.loads(msg)
        tmpdirs = {d for d in tmpdirs if os.path.isdir(d)}
        tmpdirs.add(cfg["tmpdir"])
        sock_fd, shm_fd = fds
        pid = os.fork()
        if pid == 0:
            ctl.close()
            # sockets are refused by the audit hook only where no namespace isolates them
            cfg["block_net"] = network == "audit" or (network == "auto" and not netns)
            cfg["isolation"] = iso
            _worker_entry(sock_fd, shm_fd, cfg)
        os.close(sock_fd)
        os.close(shm_fd)
        children.add(pid)
        ctl.send(pickle.dumps({"pid": pid}))
    reap()
    for pid in children:
        with contextlib.suppress(OSError):
            os.killpg(pid, signal.SIGKILL)
    time.sleep(0.05)
    for d in tmpdirs:
        if os.path.basename(d).startswith("lcl-fuzz-"):
            shutil.rmtree(d, ignore_errors=True)
    os._exit(0)


_BOOT = (
    "import sys; sys.path.insert(0, sys.argv[1]); "
    "from lcl.fuzz.sandbox import _forkserver_main; "
    "_forkserver_main(int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5])"
)


class ForkServer:
    """Harness-side handle of one fork-server process (thread-safe)."""

    def __init__(self, network: str = "auto", heavy: bool = True, isolation: str = "best") -> None:
        import subprocess

        if network not in NETWORK_MODES:
            raise ValueError(f"network must be one of {NETWORK_MODES}")
        if isolation not in ISO.MODES:
            raise ValueError(f"isolation must be one of {ISO.MODES}")
        self.network = network
        self.lock = threading.Lock()
        a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        libdir = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8",
               "PYTHONHASHSEED": "0", "PYTHONDONTWRITEBYTECODE": "1", "PYTHONIOENCODING": "utf-8"}
        for var in ("LCL_FUZZ_NO_NETNS", "LCL_FUZZ_NO_KERNEL_ISOLATION"):  # simulate an older kernel (tests)
            if os.environ.get(var):
                env[var] = "1"
        if os.environ.get("LCL_FUZZ_TMP"):
            env["LCL_FUZZ_TMP"] = os.environ["LCL_FUZZ_TMP"]
        self.proc = subprocess.Popen(
            [sys.executable, "-s", "-c", _BOOT, libdir, str(b.fileno()), network, "1" if heavy else "0", isolation],
            pass_fds=(b.fileno(),), env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=None, close_fds=True, start_new_session=True,  # outlives a killpg of the harness
        )
        b.close()
        self.ctl = a
        a.settimeout(60)
        hello = pickle.loads(a.recv(1 << 16))
        self.netns = bool(hello["netns"])
        self.isolation: dict[str, Any] = hello.get("isolation") or {}
        if hello.get("error"):
            self.close()
            raise SandboxError(f"fork-server: {hello['error']}")

    def spawn(self, cfg: dict[str, Any], slots: int) -> Worker:
        parent, child = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        shm_fd = os.memfd_create("lcl-results")
        os.ftruncate(shm_fd, layout(slots)[3])
        try:
            with self.lock:
                if self.proc.poll() is not None:
                    raise SandboxError("fork-server died")
                socket.send_fds(self.ctl, [pickle.dumps(cfg)], [child.fileno(), shm_fd])
                reply = pickle.loads(self.ctl.recv(1 << 16))
            pid = int(reply["pid"])
            shm = mmap.mmap(shm_fd, 0)
        finally:
            child.close()
            os.close(shm_fd)
        return Worker(pid, parent, shm, slots)

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.ctl.close()
        with contextlib.suppress(Exception):
            self.proc.wait(timeout=5)
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


_SERVERS: dict[tuple[str, bool, bool, str, bool], ForkServer] = {}
_SERVERS_LOCK = threading.Lock()
_REPORTED: set[str] = set()


def isolation_mode(isolation: str | None = None) -> str:
    """``isolation`` or ``$LCL_FUZZ_ISOLATION`` or ``best``."""
    mode = isolation or os.environ.get("LCL_FUZZ_ISOLATION") or "best"
    if mode not in ISO.MODES:
        raise ValueError(f"isolation must be one of {ISO.MODES}, not {mode!r}")
    return mode


def get_forkserver(network: str | None = None, heavy: bool = True, isolation: str | None = None) -> ForkServer:
    """The process-wide fork-server for ``network`` and ``isolation`` (started on first use);
    ``heavy``: the one with numpy and scipy preloaded (see :func:`needs_heavy`). The first
    fork-server whose isolation is incomplete says so on stderr."""
    network = network or os.environ.get("LCL_FUZZ_NETWORK", "auto")
    mode = isolation_mode(isolation)
    key = (network, bool(os.environ.get("LCL_FUZZ_NO_NETNS")), heavy, mode,
           bool(os.environ.get("LCL_FUZZ_NO_KERNEL_ISOLATION")))
    with _SERVERS_LOCK:
        fs = _SERVERS.get(key)
        if fs is None or fs.proc.poll() is not None:
            fs = _SERVERS[key] = ForkServer(network, heavy, mode)
            if fs.isolation.get("missing"):
                line = ISO.describe(fs.isolation)
                if line not in _REPORTED:
                    _REPORTED.add(line)
                    print(line, file=sys.stderr)
        return fs


@functools.lru_cache(maxsize=4096)
def needs_heavy(code: str) -> bool:
    """Whether ``code`` runs in the fork-server with numpy and scipy preloaded: unless every
    module it imports (statically) is in the standard library and it imports nothing
    dynamically. The lean fork-server's address space is a quarter of the heavy one's, and a
    worker forks and exits about 6x faster from it (0.5 ms instead of 3 ms), which matters
    because every generated run starts in fresh workers. Decided from the text alone, so the
    outcome of a piece of code never depends on what it is paired with."""
    if "__import__" in code or "importlib" in code:
        return True
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return True
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = [node.module or ""] if node.level == 0 else []
        else:
            continue
        if any(n.split(".")[0] not in sys.stdlib_module_names for n in names):
            return True
    return False


def shutdown_forkservers() -> None:
    with _SERVERS_LOCK:
        for fs in _SERVERS.values():
            fs.close()
        _SERVERS.clear()


import atexit as _atexit  # noqa: E402

_atexit.register(shutdown_forkservers)


# ================================================================== harness side
class Worker:
    """Harness-side handle of one sandboxed worker process."""

    def __init__(self, pid: int, sock: socket.socket, shm: mmap.mmap, slots: int) -> None:
        self.pid = pid
        self.sock = sock
        self.shm = shm
        self.slots = slots
        self.buf = bytearray()
        self.dead = False
        self._sender: threading.Thread | None = None
        self._send_failed = False
        self.lay = layout(slots)
        try:
            self.pidfd: int | None = os.pidfd_open(pid)
        except OSError:
            self.pidfd = None
        sock.settimeout(120)

    def send(self, msg: dict[str, Any], background: bool = False) -> None:
        """``background``: a large message (the inputs) is written by a helper thread, so the
        harness need not wait while the fresh worker is still starting up and not reading; the
        next :meth:`sent` (or :meth:`close`) waits for it. Messages stay in order."""
        self.sent()
        data = pickle.dumps(msg, protocol=pickle.HIGHEST_PROTOCOL)
        data = FRAME.pack(len(data)) + data
        if background and len(data) > 1 << 16:
            t = threading.Thread(target=self._send_bg, args=(data,), name="lcl-fuzz-send", daemon=True)
            self._sender = t
            t.start()
        else:
            self.sock.sendall(data)

    def _send_bg(self, data: bytes) -> None:
        try:
            self.sock.sendall(data)
        except OSError:  # the worker died: seen as EOF by the reader
            self._send_failed = True

    def sent(self) -> bool:
        """Wait for a background send; False if it failed."""
        t, self._sender = self._sender, None
        if t is not None:
            t.join()
        failed, self._send_failed = self._send_failed, False
        return not failed

    def recv_blocking(self, timeout: float) -> dict[str, Any] | None:
        """One frame, or None on EOF/timeout (the caller kills the worker)."""
        deadline = time.monotonic() + timeout
        while True:
            frame = self._take_frame()
            if frame is not None:
                return frame
            left = deadline - time.monotonic()
            if left <= 0 or self.dead:
                return None
            r, _, _ = select.select([self.sock], [], [], left)
            if r and not self.read_available():
                return self._take_frame()

    def read_available(self) -> bool:
        """Read what is there; False on EOF (or a protocol violation)."""
        try:
            b = self.sock.recv(1 << 16)
        except BlockingIOError:
            return True
        except OSError:
            b = b""
        if not b:
            self.dead = True
            return False
        self.buf += b
        if len(self.buf) > MAX_FRAME + 4:
            self.dead = True
            return False
        return True

    def _take_frame(self) -> dict[str, Any] | None:
        if len(self.buf) < 4:
            return None
        (n,) = FRAME.unpack_from(self.buf)
        if n > MAX_FRAME:
            self.dead = True
            return None
        if len(self.buf) < 4 + n:
            return None
        data = bytes(self.buf[4:4 + n])
        del self.buf[:4 + n]
        try:
            obj = json.loads(data)
        except ValueError:
            self.dead = True
            return None
        if not isinstance(obj, dict):
            self.dead = True
            return None
        return obj

    def completed(self, n: int, start: int = 0, base: int = 0) -> int:
        """Number of leading slots among ``base .. base+n`` holding a finished record
        (scanning from ``base + start``)."""
        k0 = self.lay[0] + base
        kinds = self.shm[k0 + start:k0 + n]
        z = kinds.find(0)
        return n if z < 0 else start + z

    def records(self, n: int, base: int = 0) -> tuple[bytes, bytes, bytes]:
        """(kinds, digests, charges) of ``n`` slots from ``base``, as raw bytes (never unpickled)."""
        k0, d0, c0, _ = self.lay
        shm = self.shm
        kinds = shm[k0 + base:k0 + base + n].translate(_KIND_MAP)
        return kinds, shm[d0 + 16 * base:d0 + 16 * (base + n)], shm[c0 + 8 * base:c0 + 8 * (base + n)]

    def creates(self) -> int:
        return struct.unpack_from("<q", self.shm, 0)[0]

    def kill(self) -> None:
        if self.pidfd is not None:
            with contextlib.suppress(OSError):
                signal.pidfd_send_signal(self.pidfd, signal.SIGKILL)
        elif not self.dead:
            with contextlib.suppress(OSError):
                os.kill(self.pid, signal.SIGKILL)
        self.dead = True

    def close(self) -> None:
        self.kill()
        if self._sender is not None:  # the worker is gone, so a background send ends now
            self._sender.join(10)
            self._sender = None
        with contextlib.suppress(OSError):
            self.sock.close()
        if self.pidfd is not None:
            with contextlib.suppress(OSError):
                os.close(self.pidfd)
            self.pidfd = None
        with contextlib.suppress(Exception):
            self.shm.close()


# anything that is not a valid kind byte from an untrusted worker becomes CRASH
_KIND_MAP = bytes(b if b in (S.OK, S.EXC, S.TIMEOUT) else S.CRASH for b in range(256))


def dir_size(path: str, limit_entries: int = 100_000) -> int:
    total = 0
    stack = [path]
    n = 0
    while stack:
        d = stack.pop()
        try:
            with os.scandir(d) as it:
                for e in it:
                    n += 1
                    if n > limit_entries:
                        return total
                    try:
                        if e.is_dir(follow_symlinks=False):
                            stack.append(e.path)
                        else:
                            total += e.stat(follow_symlinks=False).st_blocks * 512
                    except OSError:
                        pass
        except OSError:
            pass
    return total


def wipe_dir(path: str) -> None:
    with os.scandir(path) as it:
        for e in list(it):
            if e.is_dir(follow_symlinks=False):
                shutil.rmtree(e.path, ignore_errors=True)
            else:
                with contextlib.suppress(OSError):
                    os.unlink(e.path)


@dataclass
class LoadStatus:
    status: str  # ok | exc | timeout | crash | syntax | noentry
    detail: str = ""


@dataclass
class PassResult:
    """Outcomes of one side over one sequence of inputs (one run)."""

    kinds: bytearray  # one kind byte per input (NOTRUN = 0 when not executed)
    digests: bytearray  # 16 bytes per input (meaningful for OK and EXC)
    charges: array.array  # seconds per input (CPU for the reference, wall for a variant)
    exceeded: bool = False
    elapsed: float = 0.0  # wall-clock seconds of executing the inputs (compared with the wall cap)
    cpu: float = 0.0  # CPU seconds the workers used executing them (compared with the budget T)
    load: LoadStatus = field(default_factory=lambda: LoadStatus("ok"))
    restarts: int = 0
    watchdog_kills: int = 0


@dataclass
class CodeSpec:
    level: str  # function | program
    code: str
    entry: str | None = None
    filename: str = "<code>"


class Executor:
    """Runs one piece of code over a list of inputs in sandboxed workers.

    One ``Executor`` per side and pair: it owns the pair's temporary directory and the
    pickled inputs. ``run_pass`` executes every input once in fresh workers (one per shard)
    and returns the outcome records; it never raises because of the code under test.
    """

    def __init__(self, spec: CodeSpec, settings: S.Settings, *, network: str | None = None,
                 tmp_base: str | None = None, isolation: str | None = None) -> None:
        self.spec = spec
        self.s = settings
        self.fs = get_forkserver(network, needs_heavy(spec.code), isolation)
        base = tmp_base or os.environ.get("LCL_FUZZ_TMP") or None
        self.tmpdir = os.path.realpath(tempfile.mkdtemp(prefix="lcl-fuzz-", dir=base))
        self.blobs: list[bytes] = []
        self._version = 0
        self._live: list[Worker] = []
        self.slots = max(1, min(settings.chunk, 4096))
        self.precise = False  # per-input CPU clock (the reference) instead of wall clock
        self._pre: tuple | None = None  # workers started ahead of the first pass (prestart)
        self.single_pass = False  # every input runs once (the reference): no per-input preparation
        # stop a pass once its OK inputs' own CPU charges add up to more than this (the reference
        # of Algorithm 1: such a run is excluded whatever the variant does)
        self.stop_ok_cpu: float | None = None

    def close(self) -> None:
        self.drop_workers()
        shutil.rmtree(self.tmpdir, ignore_errors=True)

    def __enter__(self) -> Executor:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def set_inputs(self, inputs: list[Any], blobs: list[bytes] | None = None) -> None:
        """The inputs of the next passes; ``blobs``: the same inputs as pickled by this method
        (another executor's ``blobs`` for the same level), reused instead of pickling again."""
        self._version += 1
        if blobs is not None and len(blobs) == len(inputs):
            self.blobs = blobs
        elif self.spec.level == "program":
            self.blobs = [pickle.dumps(x if isinstance(x, (str, bytes)) else str(x)) for x in inputs]
        else:
            self.blobs = [pickle.dumps(tuple(x) if isinstance(x, list) else (x,)) for x in inputs]

    # -- workers -------------------------------------------------------------------------------
    def _cfg(self) -> dict[str, Any]:
        s = self.s
        cpu = max(60.0, 2 * s.runs * s.run_budget + s.reference_timeout * 4)
        return {"level": self.spec.level, "tmpdir": self.tmpdir, "settings": s.to_dict(), "cpu_seconds": cpu,
                "slots": 2 * self.slots, "precise": self.precise}

    def _start(self, load_timeout: float, reuse: Worker | None = None, lo: int = 0,
               hi: int | None = None) -> tuple[Worker | None, LoadStatus]:
        """A worker with the code freshly loaded (a new module object) and the inputs
        ``lo..hi`` (its shard). ``reuse`` is a live worker from the previous run of this executor."""
        return self._finish_start(self._begin_start(load_timeout, reuse, lo, hi))

    def _begin_start(self, load_timeout: float, reuse: Worker | None, lo: int, hi: int | None) -> tuple:
        """Send the load (and, pipelined behind it, the shard's inputs) without waiting, so the
        workers of a pass load in parallel; :meth:`_finish_start` collects the replies."""
        hi = len(self.blobs) if hi is None else hi
        if reuse is not None and reuse.dead:
            reuse.close()
            reuse = None
        w = reuse if reuse is not None else self.fs.spawn(self._cfg(), 2 * self.slots)
        tag = (self._version, lo, hi)
        send_inputs = getattr(w, "inputs_version", None) != tag
        try:
            w.send({"op": "load", "code": self.spec.code, "entry": self.spec.entry,
                    "filename": self.spec.filename, "timeout": load_timeout})
            if send_inputs:
                w.send({"op": "inputs", "blobs": self.blobs[lo:hi], "offset": lo, "prepare": not self.single_pass},
                       background=True)
        except (OSError, EOFError):
            w.close()
            return w, load_timeout, tag, send_inputs, LoadStatus("crash")
        return w, load_timeout, tag, send_inputs, None

    def _finish_start(self, started: tuple) -> tuple[Worker | None, LoadStatus]:
        w, load_timeout, tag, send_inputs, failed = started
        if failed is not None:
            return None, failed
        try:
            reply = w.recv_blocking(S.wall_deadline(load_timeout, self.s) + 5)
            if reply is None:
                st = "crash" if w.dead else "timeout"
                w.close()
                return None, LoadStatus(st)
            if reply.get("status") != "ok":
                w.close()
                return None, LoadStatus(str(reply.get("status")), str(reply.get("detail", ""))[:500])
            if send_inputs:
                if w.recv_blocking(60) is None or not w.sent():
                    w.close()
                    return None, LoadStatus("crash", "worker died while receiving inputs")
                w.inputs_version = tag  # type: ignore[attr-defined]
        except (OSError, EOFError):
            w.close()
            return None, LoadStatus("crash")
        return w, LoadStatus("ok")

    def _bounds(self) -> list[tuple[int, int]]:
        n = len(self.blobs)
        nw = max(1, min(self.s.workers, n)) if n else 1
        return [(k * n // nw, (k + 1) * n // nw) for k in range(nw)]

    def prestart(self, load_timeout: float) -> None:
        """Fork this executor's workers and send them the load and their shards now, without
        waiting, so that they get ready while the harness does something else (the pair's
        reference pass); the next :meth:`run_pass` with the same inputs and load timeout
        picks them up. Only before the first pass (no live workers)."""
        if self._live or self._pre is not None or not self.blobs:
            return
        bounds = self._bounds()
        self._pre = (self._version, load_timeout, bounds,
                     [self._begin_start(load_timeout, None, lo, hi) for lo, hi in bounds])

    def drop_workers(self) -> None:
        """Close this executor's workers, so the next pass starts in fresh ones."""
        self._drop_prestarted()
        live, self._live = self._live, []
        for w in live:
            w.close()

    def _drop_prestarted(self) -> None:
        pre, self._pre = self._pre, None
        if pre is not None:
            for started in pre[3]:
                started[0].close()

    def run_pass(self, timeouts: list[float], budget: float, load_timeout: float) -> PassResult:
        """Execute every input once. ``timeouts[i]`` is input i's CPU timeout (s)."""
        n = len(self.blobs)
        s = self.s
        self._load_timeout = load_timeout
        res = PassResult(bytearray(n), bytearray(16 * n), array.array("d", bytes(8 * n)))
        bounds = self._bounds()
        shards: list[dict[str, Any]] = []
        live, self._live = self._live, []
        pre, self._pre = self._pre, None
        if pre is not None and pre[:3] == (self._version, load_timeout, bounds) and not live:
            started = pre[3]
        else:
            if pre is not None:
                self._pre = pre
                self._drop_prestarted()
            for w in live[len(bounds):]:
                w.close()
            started = [self._begin_start(load_timeout, live[k] if k < len(live) else None, lo, hi)
                       for k, (lo, hi) in enumerate(bounds)]
        for k, (lo, hi) in enumerate(bounds):
            w, load = self._finish_start(started[k])
            if w is None:
                for sh in shards:
                    sh["w"].close()
                for other in started[k + 1:]:
                    other[0].close()
                res.load = load
                return res
            shards.append({"w": w, "lo": lo, "hi": hi, "next": lo})
        t0 = time.monotonic()  # Algorithm 1's t0: the run's workers are ready
        wall_cap = S.run_wall_cap(budget, s)
        self._deadline = t0 + wall_cap
        for sh in shards:
            sh["q"] = collections.deque()  # chunks sent, oldest first (at most 2: a pipeline)
            sh["half"] = 0
            sh["cpu_done"] = 0.0  # CPU of this shard's earlier workers in this run
            self._cpu_start(sh)
        cpu_check = t0
        abort = getattr(_TLS, "abort", None)
        try:
            while True:
                if abort is not None and abort.is_set():
                    raise Aborted("interrupted")
                now = time.monotonic()
                res.elapsed = now - t0
                if now >= cpu_check:  # T is charged in the variant's CPU time, read every POLL
                    cpu_check = now + POLL
                    res.cpu = self._cpu_used(shards, res.elapsed)
                    res.exceeded = res.exceeded or res.cpu > budget
                    if self.stop_ok_cpu is not None and res.cpu > self.stop_ok_cpu:  # cheap gate first
                        res.exceeded = res.exceeded or self._ok_cpu_so_far(shards, res) > self.stop_ok_cpu
                if res.elapsed > wall_cap or res.exceeded:
                    res.exceeded = True
                    break
                active = False
                for sh in shards:
                    while len(sh["q"]) < 2 and sh["next"] < sh["hi"] and not sh["w"].dead:
                        self._dispatch(sh, timeouts)
                    if sh["q"]:
                        active = True
                if not active:
                    break
                socks = {sh["w"].sock: sh for sh in shards if sh["q"]}
                wait = min(POLL, max(0.0, self._deadline - time.monotonic()) + 0.001)
                r, _, _ = select.select(list(socks), [], [], wait)
                now = time.monotonic()
                handled = set()
                for sock in r:
                    sh = socks[sock]
                    handled.add(id(sh))
                    w = sh["w"]
                    if w.read_available():
                        while sh["q"] and sh["w"] is w:
                            frame = w._take_frame()
                            if frame is None:
                                break
                            self._finish_chunk(sh, frame, res)
                        if not w.dead:
                            continue
                    if sh["q"]:
                        self._fail(sh, res, S.CRASH)
                for sh in shards:
                    if not sh["q"] or id(sh) in handled:
                        continue
                    self._watch(sh, res, timeouts, now)
        finally:
            res.elapsed = time.monotonic() - t0
            for sh in shards:
                w = sh["w"]
                if not sh["q"] and not w.dead and isinstance(w, Worker):
                    self._live.append(w)  # reused (with a fresh module) by the next run
                else:
                    w.close()  # includes workers still busy when the budget ran out
        return res

    def _dispatch(self, sh: dict[str, Any], timeouts: list[float]) -> None:
        start = sh["next"]
        end = min(sh["hi"], start + self.slots)
        base = sh["half"] * self.slots
        sh["half"] ^= 1
        w: Worker = sh["w"]
        k0 = w.lay[0]
        w.shm[k0 + base:k0 + base + end - start] = bytes(end - start)
        msg = {"op": "chunk", "start": start, "end": end, "base": base, "deadline": self._deadline}
        if getattr(w, "timeouts", None) is not timeouts:
            msg["timeouts"] = timeouts  # once per worker and pass
            w.timeouts = timeouts  # type: ignore[attr-defined]
        try:
            w.send(msg)
        except OSError:
            w.dead = True
        first = not sh["q"]
        sh["q"].append({"start": start, "end": end, "base": base, "seen": 0, "seen_at": time.monotonic(),
                        "started": first})
        sh["next"] = end
        sh["creates"] = w.creates()

    def _collect(self, sh: dict[str, Any], res: PassResult, c: dict[str, Any], upto: int) -> None:
        start = c["start"]
        n = upto - start
        if n <= 0:
            return
        kinds, digests, charges = sh["w"].records(n, c["base"])
        res.kinds[start:upto] = kinds
        res.digests[16 * start:16 * upto] = digests
        ch = array.array("d")
        ch.frombytes(charges)
        res.charges[start:upto] = ch

    def _ok_cpu_so_far(self, shards: list[dict[str, Any]], res: PassResult) -> float:
        """CPU charged to the OK inputs finished so far, including the finished records of
        chunks still in flight (a record's kind byte is written last, so a record seen complete
        is complete), which are collected into ``res``."""
        for sh in shards:
            w = sh["w"]
            if isinstance(w, Worker):
                for c in sh["q"]:
                    self._collect(sh, res, c, c["start"] + w.completed(c["end"] - c["start"], 0, c["base"]))
        return math.fsum(c for k, c in zip(res.kinds, res.charges) if k == S.OK)

    def _finish_chunk(self, sh: dict[str, Any], frame: dict[str, Any], res: PassResult) -> None:
        """A worker's reply to the oldest chunk in flight."""
        c = sh["q"].popleft()
        if sh["q"] and not sh["q"][0].get("started"):
            sh["q"][0]["started"] = True
            sh["q"][0]["seen_at"] = time.monotonic()
        start, end = c["start"], c["end"]
        w: Worker = sh["w"]
        try:
            done = int(frame.get("done", start))
        except (TypeError, ValueError):
            done = start
        done = max(start, min(done, end, start + w.completed(end - start, 0, c["base"])))
        self._collect(sh, res, c, done)
        status = frame.get("status")
        if status == "budget":
            res.exceeded = True
            return
        over = w.creates() > 0 and dir_size(self.tmpdir) > self.s.dir_bytes
        if over:
            wipe_dir(self.tmpdir)
        if over or status != "done" or done < end:
            # the worker must not go on: drop what it may have started of the next chunk and
            # continue from ``done`` in a fresh worker
            sh["q"].clear()
            sh["next"] = done
            self._respawn(sh, res)

    @staticmethod
    def _cpu_start(sh: dict[str, Any]) -> None:
        w = sh["w"]
        sh["cpu0"] = proc_cpu(w.pid) if isinstance(w, Worker) else None

    @staticmethod
    def _cpu_stop(sh: dict[str, Any]) -> None:
        """Bank the CPU of the shard's current worker (before it is killed or closed)."""
        w, c0 = sh["w"], sh.get("cpu0")
        now = proc_cpu(w.pid) if isinstance(w, Worker) and c0 is not None else None
        if now is not None:
            sh["cpu_done"] = sh.get("cpu_done", 0.0) + max(0.0, now - c0)
        sh["cpu0"] = None

    @staticmethod
    def _cpu_used(shards: list[dict[str, Any]], elapsed: float) -> float:
        """CPU seconds the run's workers have used since t0 (wall seconds where /proc is missing)."""
        total = 0.0
        for sh in shards:
            w, c0 = sh["w"], sh.get("cpu0")
            if isinstance(w, Worker) and c0 is None and not w.dead:
                return elapsed
            now = proc_cpu(w.pid) if isinstance(w, Worker) and c0 is not None else None
            total += sh.get("cpu_done", 0.0) + (max(0.0, now - c0) if now is not None else 0.0)
        return total

    def _respawn(self, sh: dict[str, Any], res: PassResult) -> None:
        self._cpu_stop(sh)
        sh["w"].close()
        sh["q"].clear()
        sh["half"] = 0
        if sh["next"] >= sh["hi"]:
            sh["w"] = _DeadWorker()
            return
        w, _load = self._start(self._load_timeout, None, sh["lo"], sh["hi"])
        res.restarts += 1
        if w is None:
            # it loaded before but not now (e.g. it depends on files it wrote): the rest of
            # the shard counts as crashed
            sh["w"] = _DeadWorker()
            for i in range(sh["next"], sh["hi"]):
                res.kinds[i] = S.CRASH
            sh["next"] = sh["hi"]
            return
        sh["w"] = w
        self._cpu_start(sh)

    def _fail(self, sh: dict[str, Any], res: PassResult, kind: int, charge: float = 0.0) -> None:
        """The worker died or was killed: keep the finished records, record ``kind`` for the
        input in flight and continue with the next one in a fresh worker."""
        w: Worker = sh["w"]
        self._cpu_stop(sh)  # read before the kill: a reaped worker's /proc entry is gone
        w.kill()
        nxt = sh["next"]
        for c in sh["q"]:
            start, end = c["start"], c["end"]
            done = start + w.completed(end - start, 0, c["base"])
            self._collect(sh, res, c, done)
            if done < end:
                res.kinds[done] = kind
                res.charges[done] = charge
                nxt = done + 1
                break
            nxt = end
        sh["q"].clear()
        sh["next"] = nxt
        if w.creates() and dir_size(self.tmpdir) > self.s.dir_bytes:
            wipe_dir(self.tmpdir)
        self._respawn(sh, res)

    def _watch(self, sh: dict[str, Any], res: PassResult, timeouts: list[float], now: float) -> None:
        """Watchdog, called on every poll for a worker with chunks in flight."""
        w: Worker = sh["w"]
        if w.dead:
            return self._fail(sh, res, S.CRASH)
        for c in sh["q"]:  # the input in flight is in the first chunk not yet complete
            n = c["end"] - c["start"]
            seen = w.completed(n, c["seen"], c["base"])
            if seen != c["seen"]:
                c["seen"] = seen
                c["seen_at"] = now
            if seen >= n:
                continue
            if not c.get("started"):
                # a queued chunk's clock starts once the one before it is seen complete
                c["started"] = True
                c["seen_at"] = now
                break
            deadline = S.wall_deadline(timeouts[c["start"] + seen], self.s)
            if now - c["seen_at"] > deadline:
                res.watchdog_kills += 1
                return self._fail(sh, res, S.TIMEOUT, now - c["seen_at"])
            break
        c_ = w.creates()
        if c_ != sh.get("creates"):
            sh["creates"] = c_
            if dir_size(self.tmpdir) > self.s.dir_bytes:
                return self._fail(sh, res, S.CRASH)
        return None


class _DeadWorker:
    """Placeholder for a shard that can no longer be served."""

    dead = True
    sock = None

    def close(self) -> None:
        pass

    def kill(self) -> None:
        pass

    def creates(self) -> int:
        return 0
