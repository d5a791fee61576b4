"""The trusted fork-server (``python -c BOOT``, standard library only, own network namespace)
and its harness-side handle. The fork-server probes the kernel's isolation once, preloads the
modules programs import (a confined worker cannot read the library's or site-packages' files),
and then forks one worker per request it receives with a socket pair end and a memfd
(``SCM_RIGHTS``). Also which fork-server a piece of code runs in (:func:`needs_heavy`).

Standard library only (plus this package's ``isolation`` sibling, as before the split).
"""

from __future__ import annotations

import ast
import contextlib
import functools
import mmap
import os
import pickle
import select
import signal
import socket
import sys
import tempfile
import threading
import time
from typing import TypedDict

from .. import isolation as ISO
from .containment import TMP_PREFIX, load_libc, remove_tree
from .protocol import SandboxError, WorkerConfig, layout
from .worker import worker_entry
from .worker_handle import Worker

CLONE_NEWNET = 0x40000000
NETWORK_MODES = ("auto", "netns", "audit", "none")

#: common standard-library modules, loaded once here so that no forked worker imports them again
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


def _probe_isolation(netns: bool, mode: str, libdir: str) -> tuple[ISO.WorkerIsolation, int | None]:
    """The isolation report of this fork-server's workers (see ``isolation``) and the pid of
    their pid namespace's init (None without one); what the workers need to apply the rest
    travels in each worker's config. ``LCL_FUZZ_NO_KERNEL_ISOLATION`` simulates a kernel
    without Landlock, seccomp and namespaces (tests)."""
    init = None
    if os.environ.get("LCL_FUZZ_NO_KERNEL_ISOLATION"):
        probed: ISO.Probe = {"want": {}, "readable": []}
    else:
        try:
            probed = ISO.probe(os.environ.get("LCL_FUZZ_TMP") or None, exclude=(libdir,))
        except Exception as exc:  # noqa: BLE001 - a failed probe is reported, never fatal
            probed = {"want": {}, "readable": [], "errors": {"probe": str(exc)[:200]}}
        # after the probe, whose throw-away child would otherwise be the namespace's init
        try:
            init = ISO.enter_pid_namespace()
        except Exception as exc:  # noqa: BLE001 - no pid namespace is reported as such
            probed.setdefault("errors", {})["pidns"] = str(exc)[:200]
    rep = ISO.report(probed, netns, mode, pidns=init is not None)
    iso: ISO.WorkerIsolation = {**rep, "want": probed.get("want", {}) if any(rep["mechanisms"].values()) else {},
                                "readable": probed.get("readable", [])}
    return iso, init


def forkserver_main(ctl_fd: int, network: str, heavy: str = "1", mode: str = "best") -> None:
    """Loop: receive (config, [sock_fd, shm_fd]) and fork a worker. Exits on EOF. ``heavy``
    ("1"/"0"): whether the optional third-party modules are preloaded; ``mode``: isolation
    ``best`` (what the kernel has, reported) or ``strict`` (refuse to start without all)."""
    import importlib

    ctl = socket.socket(fileno=ctl_fd)
    netns = False
    if network in ("auto", "netns") and not os.environ.get("LCL_FUZZ_NO_NETNS"):
        try:
            libc = load_libc()
            netns = libc.unshare(CLONE_NEWNET) == 0
        except Exception:  # noqa: BLE001 - no network namespace is reported as such
            netns = False
    iso, init = _probe_isolation(netns, mode, sys.path[0])
    for name in _PRELOAD:
        with contextlib.suppress(Exception):
            importlib.import_module(name)
    for var in _SINGLE_THREAD_ENV:  # no BLAS thread pools: workers may not start threads, and results stay deterministic
        os.environ[var] = "1"
    for name in _PRELOAD_OPTIONAL if heavy == "1" else ():
        with contextlib.suppress(Exception):
            importlib.import_module(name)
    with contextlib.suppress(Exception):
        load_libc()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    error = None if netns or network != "netns" else "unshare(CLONE_NEWNET) failed"
    if mode == "strict" and iso["missing"] and error is None:
        error = f"--isolation strict: the kernel lacks {', '.join(iso['missing'])}"
    public = {k: v for k, v in iso.items() if k not in ("want", "readable")}  # the IsolationReport
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
        req = pickle.loads(msg)  # from the trusted harness (ForkServer.spawn, .make_tmpdir)
        tmpdirs = {d for d in tmpdirs if os.path.isdir(d)}
        if req.get("op") == "mkdtemp":  # (ForkServer.make_tmpdir) created here, so that a
            # harness killed at any moment leaves no directory this loop does not know of
            for fd in fds:
                os.close(fd)
            try:
                made = os.path.realpath(tempfile.mkdtemp(prefix=TMP_PREFIX, dir=req.get("base")))
                tmpdirs.add(made)
                ctl.send(pickle.dumps({"tmpdir": made}))
            except OSError as exc:
                ctl.send(pickle.dumps({"error": f"{type(exc).__name__}: {exc}"[:300]}))
            continue
        cfg: WorkerConfig = req
        tmpdirs.add(cfg["tmpdir"])
        sock_fd, shm_fd = fds
        try:
            pid = os.fork()
        except OSError:  # the pid namespace's init is gone (or no memory): the harness starts another fork-server
            break
        if pid == 0:
            ctl.close()
            # sockets are refused by the audit hook only where no namespace isolates them
            cfg["block_net"] = network == "audit" or (network == "auto" and not netns)
            cfg["isolation"] = iso
            worker_entry(sock_fd, shm_fd, cfg)
        os.close(sock_fd)
        os.close(shm_fd)
        children.add(pid)
        ctl.send(pickle.dumps({"pid": pid}))
    reap()
    for pid in children:
        with contextlib.suppress(OSError):
            os.killpg(pid, signal.SIGKILL)
    # reaped here, so that no dead worker waits for the machine's init to reap it (the
    # namespace's init, killed last, would wait for that too)
    deadline = time.monotonic() + 1.0
    for pid in sorted(children):
        while time.monotonic() < deadline:
            try:
                if os.waitpid(pid, os.WNOHANG)[0]:
                    break
            except ChildProcessError:
                break
            time.sleep(0.002)
    if init is not None:  # the kernel then kills whatever is left in the namespace
        with contextlib.suppress(OSError):
            os.kill(init, signal.SIGKILL)
        with contextlib.suppress(OSError):
            os.waitpid(init, 0)
    for d in tmpdirs:
        if os.path.basename(d).startswith("lcl-fuzz-"):
            remove_tree(d)
    os._exit(0)


#: importing the package loads all of it (worker included) before the fork-server forks anything
_BOOT = (
    "import sys; sys.path.insert(0, sys.argv[1]); "
    "from lcl.engine.fuzz.sandbox import forkserver_main; "
    "forkserver_main(int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5])"
)


class _Hello(TypedDict):
    """The fork-server's first message (:func:`forkserver_main`)."""

    netns: bool
    pid: int
    error: str | None
    isolation: ISO.IsolationReport


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
        # lib/, the directory above the ``lcl`` package (this file is lib/lcl/engine/fuzz/sandbox/forkserver.py):
        # the fork-server imports from it, and Landlock keeps every worker out of it
        here = os.path.abspath(__file__)
        libdir = here[: here.rindex(os.sep + "lcl" + os.sep)]  # the directory holding the lcl package
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
        hello: _Hello = pickle.loads(a.recv(1 << 16))  # from the trusted fork-server
        self.netns = bool(hello["netns"])
        self.isolation: ISO.IsolationReport = hello["isolation"]
        if hello.get("error"):
            self.close()
            raise SandboxError(f"fork-server: {hello['error']}")

    def spawn(self, cfg: WorkerConfig, slots: int) -> Worker:
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

    def make_tmpdir(self, base: str) -> str:
        """A new sandbox temporary directory under ``base``, created by the fork-server, which
        removes it when the harness goes away, even when the harness is killed (-9) between
        creating it and starting the first worker in it."""
        with self.lock:
            if self.proc.poll() is not None:
                raise SandboxError("fork-server died")
            self.ctl.send(pickle.dumps({"op": "mkdtemp", "base": base}))
            reply = pickle.loads(self.ctl.recv(1 << 16))
        if "error" in reply:
            raise SandboxError(f"fork-server: cannot create a directory in {base}: {reply['error']}")
        return str(reply["tmpdir"])

    def alive(self) -> bool:
        """False once the fork-server has exited. Its end of the control socket is closed as it
        exits, before its workers are killed (their parent-death signal, its pid namespace's
        init), so a worker found dead after its fork-server has this answer even while the
        fork-server's exit status is not yet there for ``poll``."""
        if self.proc.poll() is not None:
            return False
        with self.lock:  # no reply in flight: anything readable now is the end of the stream
            try:
                if not select.select([self.ctl], [], [], 0)[0]:
                    return True  # (a recv would first wait for the socket's 60 s timeout)
                return self.ctl.recv(1, socket.MSG_PEEK) != b""
            except (OSError, ValueError):
                return False

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
        if fs is None or not fs.alive():
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
    except (SyntaxError, ValueError, RecursionError, MemoryError):
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
