"""What a sandboxed worker does to itself before it runs untrusted code: a new session, the
parent-death signal, rlimits, its temporary directory, the kernel's confinement (``isolation``:
Landlock, seccomp, no capabilities, where available) and the audit hook, which counts created
files and refuses what the kernel does not (everything, where the kernel confines nothing);
also the temporary directory's size check and wipe (the disk limit). See docs/FUZZING.md.

Standard library only (plus this package's ``isolation`` and ``semantics`` siblings, as before
the split): the fork-server imports it before it forks the workers.
"""

from __future__ import annotations

import contextlib
import errno
import os
import signal
import sys
import tempfile
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NoReturn

from .. import isolation as ISO
from .protocol import OBSERVED_MODULE, SandboxError, WorkerConfig

if TYPE_CHECKING:  # imported when first needed (load_libc)
    import ctypes

PR_SET_PDEATHSIG = 1
MAX_TASKS = 64  # RLIMIT_NPROC of an unprivileged worker: the process and its threads
CHDIR = [False]  # set by the audit hook on os.chdir (the worker returns to its temporary directory)

_LIBC: list[ctypes.CDLL] = []


def load_libc() -> ctypes.CDLL:
    if not _LIBC:
        import ctypes

        _LIBC.append(ctypes.CDLL(None, use_errno=True))
    return _LIBC[0]


def _blocked(*_a: object, **_k: object) -> NoReturn:
    raise PermissionError(errno.EPERM, "blocked by the lcl fuzz sandbox")


_blocked.__module__ = OBSERVED_MODULE  # what the code under test sees as, e.g., os.fork


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


def _install_audit_hook(tmpdir: str, max_files: int | None, block_net: bool, shm: memoryview,
                        kernel: bool = False) -> None:
    """Count created files (over ``max_files``: refused; None: not counted) and refuse process creation; without
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
        except Exception:  # noqa: BLE001 - a path the worker cannot decode is not allowed
            return False
        return q == tmpdir or q.startswith(root)

    def created() -> None:
        creates[0] += 1
        if max_files is not None and creates[0] > max_files:
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
        CHDIR[0] = True

    def count_open(a: tuple) -> None:
        path, mode, flags = a
        create = any(c in mode for c in "wax") if isinstance(mode, str) else bool((flags or 0) & os.O_CREAT)
        if create and not isinstance(path, int):
            created()

    def count_mkdir(a: tuple) -> None:
        created()

    if kernel:
        handlers: dict[str, Callable[[tuple[Any, ...]], None]] = {"os.chdir": on_chdir}
        if max_files is not None:
            handlers.update({"open": count_open, "os.mkdir": count_mkdir})
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


def contain(cfg: WorkerConfig, shm: memoryview) -> None:
    """Everything a worker does to itself before it runs untrusted code."""
    import resource

    os.setsid()
    parent = os.getppid()
    with contextlib.suppress(Exception):
        load_libc().prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    tmpdir = cfg["tmpdir"]
    os.chdir(tmpdir)
    os.environ["TMPDIR"] = tmpdir
    os.environ["HOME"] = tmpdir
    tempfile.tempdir = tmpdir
    s = cfg["settings"]
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    iso = cfg.get("isolation")
    kernel = bool(iso and iso.get("kernel"))
    want: ISO.Want = (iso.get("want") if iso else None) or {}
    limits = [
        (resource.RLIMIT_AS, s["memory_bytes"]),
        (resource.RLIMIT_CPU, int(cfg["cpu_seconds"])),
        (resource.RLIMIT_FSIZE, s["file_bytes"]),
        # tasks of the worker's own uid (it has one when unprivileged): itself and its threads;
        # ignored for root, where seccomp refuses processes and threads are not limited
        (resource.RLIMIT_NPROC, MAX_TASKS if want.get("unprivileged") else 0),
        (resource.RLIMIT_CORE, 0),
        (resource.RLIMIT_NOFILE, 256),
    ]
    for res, val in limits:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(res, (val, val))
    # refused by the kernel (seccomp) where it confines the worker, but os.system would only
    # return -1: the call raises instead, as every refused call does
    names = ("fork", "forkpty", "system") if kernel else (
        "mkfifo", "mknod", "chroot", "setsid", "setpgid", "fork", "forkpty", "system")
    for mod in (os, sys.modules.get("posix")):
        for name in names:
            if mod is not None and hasattr(mod, name):
                setattr(mod, name, _blocked)
    if want and iso:  # irrevocable; raises (the worker then dies) if a promised mechanism fails
        got = ISO.confine(tmpdir, iso["readable"], want, (s["dir_bytes"], s["max_files"]))
        missing = [m for m, on in got.items() if iso["mechanisms"].get(m) and not on]
        if missing:
            raise SandboxError(f"isolation: {', '.join(missing)} could not be applied")
    # a change of uid cleared the parent-death signal: set it again, and go if the parent is
    # already gone (it died before the signal was armed)
    with contextlib.suppress(Exception):
        load_libc().prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:
        raise SandboxError("the fork-server is gone")
    # where the kernel keeps the directory's size and file count (a tmpfs), nothing is counted
    max_files = None if want.get("namespaces") else s["max_files"]
    _install_audit_hook(tmpdir, max_files, cfg["block_net"], shm, kernel=kernel)


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


_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def _empty_dir(top: int) -> None:
    """Remove everything in the directory open as ``top``, at any depth, without recursion
    and without long paths: each pass empties the directories directly below ``top`` by
    moving their subdirectories up into ``top`` (renames between two open descriptors) and
    unlinking their other entries; a chain of D nested directories takes D passes. Stops when
    a pass removes nothing (what cannot be removed stays)."""
    moved = 0
    while True:
        with os.scandir(top) as it:
            entries = [(e.name, e.is_dir(follow_symlinks=False)) for e in it]
        if not entries:
            return
        progress = False
        for name, is_dir in entries:
            try:
                if not is_dir:
                    os.unlink(name, dir_fd=top)
                    progress = True
                    continue
                sub = os.open(name, _DIR_FLAGS, dir_fd=top)
                try:
                    with os.scandir(sub) as it:
                        inner = [(e.name, e.is_dir(follow_symlinks=False)) for e in it]
                    for iname, idir in inner:
                        with contextlib.suppress(OSError):
                            if idir:
                                moved += 1
                                os.rename(iname, f".lcl-rm-{moved}", src_dir_fd=sub, dst_dir_fd=top)
                            else:
                                os.unlink(iname, dir_fd=sub)
                            progress = True
                finally:
                    os.close(sub)
                os.rmdir(name, dir_fd=top)
                progress = True
            except OSError:
                pass
        if not progress:
            return


#: only the sandbox's own temporary directories are ever emptied or removed, whatever path a
#: caller passes (a mistaken path must not empty someone else's directory)
TMP_PREFIX = "lcl-fuzz-"


def _ours(path: str) -> bool:
    return os.path.basename(os.path.normpath(path)).startswith(TMP_PREFIX)


def wipe_dir(path: str) -> None:
    """Empty ``path``, a sandbox temporary directory (see :func:`_empty_dir`); it stays."""
    if not _ours(path):
        raise ValueError(f"not a sandbox temporary directory: {path}")
    try:
        top = os.open(path, _DIR_FLAGS)
    except OSError:
        return
    try:
        _empty_dir(top)
    finally:
        os.close(top)


def remove_tree(path: str) -> None:
    """Remove ``path`` (a sandbox temporary directory) and all below it, whatever its depth (``shutil.rmtree`` recurses once
    per level and fails on a few thousand nested directories); never raises."""
    if not _ours(path):
        raise ValueError(f"not a sandbox temporary directory: {path}")
    try:
        wipe_dir(path)
        os.rmdir(path)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(path)
