"""Kernel-enforced isolation of a sandboxed worker (Linux, standard library only).

A worker confines itself with :func:`confine` after the fork-server forked it and before it
receives any untrusted code; every step is irrevocable for the process and the threads it
starts later:

* ``no_new_privs`` (``PR_SET_NO_NEW_PRIVS``): nothing it could run gains privileges; it is
  also what lets an unprivileged process install the next two.
* ``landlock_fs``: reads only below the interpreter's prefixes, the system libraries and a few
  files of ``/etc`` and ``/dev``; reads and writes only in its private temporary directory.
  ``/proc``, the checkout, the harness's inputs and result store, ``$HOME`` and every other
  worker's directory cannot be opened, listed, created, removed, linked or renamed.
* ``landlock_net`` (Landlock ABI >= 4): TCP bind and connect are refused.
* ``landlock_scope`` (ABI >= 6): signals and abstract UNIX sockets cannot reach a process
  outside the worker (the fork-server, the harness, other workers).
* ``seccomp``: a BPF filter allows only the system calls of :data:`ALLOW_X86_64` (what
  confined workers make on honest code; any other call answers ``ENOSYS``) and refuses
  (``EPERM``) process creation and ``execve``, ``ptrace`` and cross-process memory access,
  namespaces and mounts, kernel keyrings, BPF, io_uring, file metadata changes
  (``chmod``/``chown``/``utime``/xattrs, which Landlock does not cover), memfd, inotify, device
  nodes, System V IPC, sockets other than ``AF_INET``/``AF_INET6`` (``socketpair`` only as
  ``AF_UNIX`` + ``SOCK_STREAM``: no unix datagram socket whose ``sendto`` names a host path),
  socket buffer sizes (``SO_SNDBUF``/``SO_RCVBUF`` and their ``FORCE`` variants: kernel memory
  outside ``RLIMIT_AS``), and signals, rlimits, priorities and affinities aimed at any process
  but the worker.
* ``capabilities``: the worker drops every capability (effective, permitted, inheritable
  and the bounding set), so a worker running as root cannot raise its rlimits or bypass
  file permissions.
* ``namespaces`` (needs the fork-server to run as root): a private IPC namespace (System V
  objects and POSIX message queues of its own, gone with it) and a private mount namespace
  in which its temporary directory is a tmpfs of at most ``dir_bytes`` and ``max_files``
  inodes: the kernel keeps the disk and file-count limits.
* ``procfs`` (in that mount namespace): a fresh ``proc`` over ``/proc``, of the fork-server's
  pid namespace and with ``hidepid=invisible``: not even ``stat`` finds a host process, and
  ``/proc/self`` no longer names the worker's host pid.
* ``unprivileged`` (root only, too): the worker runs as a uid of its own (``UID_BASE`` + its
  pid), so the kernel's per-user limits (``RLIMIT_NPROC``: threads) apply to it alone. It keeps
  one capability, ``CAP_DAC_READ_SEARCH``, because the interpreter may live below a directory
  only root may search (``/root/.pyenv``); Landlock still decides what it reads.

The fork-server's private network namespace (``netns``) is set up in ``sandbox``; its pid
namespace (``pidns``) by :func:`enter_pid_namespace`, which the fork-server calls after the probe. What a
kernel lacks is reported by :func:`probe`, run once per fork-server in a throw-away child.
"""

from __future__ import annotations

import ctypes
import errno
import json
import os
import platform
import struct
import sys
import tempfile
from collections.abc import Callable, Iterable
from typing import Literal, TypedDict

#: every mechanism, in report order (``netns`` and ``pidns`` are the fork-server's, the rest each worker's)
FORKSERVER_MECHANISMS = ("netns", "pidns")
MECHANISMS = ("netns", "pidns", "no_new_privs", "landlock_fs", "landlock_net", "landlock_scope", "seccomp", "capabilities",
              "namespaces", "procfs", "unprivileged")
MODES = ("best", "strict")


class Want(TypedDict, total=False):
    """The mechanisms the probe found and a worker is to apply (:func:`confine`); a step that
    failed in the probe is False (``no_new_privs`` appears only then)."""

    landlock_abi: int
    landlock_fs: bool
    capabilities: bool
    seccomp: bool
    namespaces: bool
    procfs: bool
    unprivileged: bool
    no_new_privs: bool


class Probe(TypedDict, total=False):
    """What :func:`probe` found: each step's outcome in the throw-away child (``landlock`` is
    False where the kernel has no Landlock), its errors, ``want`` and the paths a worker reads."""

    landlock_abi: int
    errors: dict[str, str]
    namespaces: bool
    procfs: bool
    no_new_privs: bool
    landlock: bool
    landlock_fs: bool
    landlock_net: bool
    landlock_scope: bool
    unprivileged: bool
    capabilities: bool
    seccomp: bool
    want: Want
    readable: list[str]


class IsolationReport(TypedDict):
    """The isolation report (:func:`report`): printed by ``lcl fuzz pair --json``, and what a
    fork-server's handle says about its workers."""

    mode: str
    mechanisms: dict[str, bool]  # every name of MECHANISMS -> active
    missing: list[str]
    landlock_abi: int
    kernel: bool
    python_fallback: list[str]
    errors: dict[str, str]


class WorkerIsolation(IsolationReport):
    """The report as the fork-server hands it to each worker: plus what the worker applies."""

    want: Want
    readable: list[str]


class Provenance(TypedDict):
    """What a result records about its workers' isolation (:func:`provenance`)."""

    mode: str
    active: list[str]
    missing: list[str]
    landlock_abi: int

# ---------------------------------------------------------------- syscalls and constants
SYS_LANDLOCK_CREATE_RULESET, SYS_LANDLOCK_ADD_RULE, SYS_LANDLOCK_RESTRICT_SELF = 444, 445, 446
LANDLOCK_CREATE_RULESET_VERSION = 1
LANDLOCK_RULE_PATH_BENEATH = 1
PR_SET_NO_NEW_PRIVS, PR_GET_NO_NEW_PRIVS, PR_CAPBSET_DROP, PR_SET_SECCOMP = 38, 39, 24, 22
PR_SET_PDEATHSIG = 1
SECCOMP_MODE_FILTER = 2
O_PATH = getattr(os, "O_PATH", 0o10000000)

FS_EXECUTE, FS_WRITE_FILE, FS_READ_FILE, FS_READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
FS_ALL_V1 = (1 << 13) - 1  # execute .. make_sym
FS_REFER, FS_TRUNCATE, FS_IOCTL_DEV = 1 << 13, 1 << 14, 1 << 15
FILE_RIGHTS = FS_EXECUTE | FS_WRITE_FILE | FS_READ_FILE | FS_TRUNCATE | FS_IOCTL_DEV
READ_RIGHTS = FS_EXECUTE | FS_READ_FILE | FS_READ_DIR
NET_BIND_TCP, NET_CONNECT_TCP = 1 << 0, 1 << 1
SCOPE_ABSTRACT_UNIX_SOCKET, SCOPE_SIGNAL = 1 << 0, 1 << 1

#: read-only system paths a worker may need (dynamic loader, shared libraries, time zone,
#: user names); missing ones are skipped
SYSTEM_READ = ("/usr", "/lib", "/lib64", "/lib32", "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d",
               "/etc/localtime", "/etc/passwd", "/etc/group", "/etc/nsswitch.conf")
DEVICES_READ = ("/dev/urandom", "/dev/random", "/dev/zero")
DEVICES_RW = ("/dev/null", "/dev/full")

_LIBC: list[ctypes.CDLL] = []


def _libc() -> ctypes.CDLL:
    if not _LIBC:
        lib = ctypes.CDLL(None, use_errno=True)
        lib.syscall.restype = ctypes.c_long
        lib.prctl.restype = ctypes.c_int
        _LIBC.append(lib)
    return _LIBC[0]


def _check(ret: int, what: str) -> int:
    if ret < 0:
        e = ctypes.get_errno()
        raise OSError(e, f"{what}: {os.strerror(e)}")
    return ret


def landlock_abi() -> int:
    """The kernel's Landlock ABI version (0: none)."""
    try:
        v = _libc().syscall(SYS_LANDLOCK_CREATE_RULESET, None, ctypes.c_size_t(0),
                            ctypes.c_uint32(LANDLOCK_CREATE_RULESET_VERSION))
    except Exception:  # noqa: BLE001
        return 0
    return max(0, int(v))


# ---------------------------------------------------------------- Landlock
def _fs_rights(abi: int) -> int:
    rights = FS_ALL_V1
    if abi >= 2:
        rights |= FS_REFER
    if abi >= 3:
        rights |= FS_TRUNCATE
    if abi >= 5:
        rights |= FS_IOCTL_DEV
    return rights


def read_paths(exclude: tuple[str, ...] = ()) -> list[str]:
    """Directories and files a worker may read: the interpreter's prefixes (base and virtual
    environment: stdlib and site-packages), ``sys.path`` entries inside them, and
    :data:`SYSTEM_READ`. Nothing under ``exclude`` (the harness's own source tree) nor any
    other ``sys.path`` entry (``PYTHONPATH``, editable checkouts, the working directory)."""
    prefixes = {os.path.realpath(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix)}
    ex = tuple(os.path.realpath(e) for e in exclude)
    out: list[str] = []
    def under(p: str, dirs: Iterable[str]) -> bool:
        return any(p == d or p.startswith(d.rstrip(os.sep) + os.sep) for d in dirs)

    for p in [*sorted(prefixes), *SYSTEM_READ]:
        rp = os.path.realpath(p)
        if os.path.exists(rp) and not under(rp, out) and not under(rp, ex):
            out.append(rp)
    return out


def _add_path_rule(ruleset: int, path: str, rights: int) -> bool:
    try:
        fd = os.open(path, O_PATH | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        if not os.path.isdir(path):
            rights &= FILE_RIGHTS
        attr = struct.pack("=Qi", rights, fd)
        buf = ctypes.create_string_buffer(attr, len(attr))
        _check(_libc().syscall(SYS_LANDLOCK_ADD_RULE, ctypes.c_int(ruleset), ctypes.c_int(LANDLOCK_RULE_PATH_BENEATH),
                               buf, ctypes.c_uint32(0)), f"landlock_add_rule({path})")
    finally:
        os.close(fd)
    return True


def landlock(tmpdir: str, readable: list[str], abi: int) -> dict[str, bool]:
    """Restrict this process with Landlock: reads of ``readable``, everything in ``tmpdir``;
    TCP and scopes where ``abi`` has them. Needs no_new_privs."""
    fs = _fs_rights(abi)
    net = NET_BIND_TCP | NET_CONNECT_TCP if abi >= 4 else 0
    scoped = SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL if abi >= 6 else 0
    attr = struct.pack("=QQQ", fs, net, scoped)[: 8 if abi < 4 else 16 if abi < 6 else 24]
    buf = ctypes.create_string_buffer(attr, len(attr))
    libc = _libc()
    rs = _check(libc.syscall(SYS_LANDLOCK_CREATE_RULESET, buf, ctypes.c_size_t(len(attr)), ctypes.c_uint32(0)),
                "landlock_create_ruleset")
    try:
        for p in readable:
            _add_path_rule(rs, p, READ_RIGHTS & fs)
        for p in DEVICES_READ:
            _add_path_rule(rs, p, FS_READ_FILE)
        for p in DEVICES_RW:
            _add_path_rule(rs, p, FS_READ_FILE | FS_WRITE_FILE)
        if not _add_path_rule(rs, tmpdir, fs):
            raise OSError(errno.ENOENT, f"landlock: temporary directory {tmpdir} is missing")
        _check(libc.syscall(SYS_LANDLOCK_RESTRICT_SELF, ctypes.c_int(rs), ctypes.c_uint32(0)), "landlock_restrict_self")
    finally:
        os.close(rs)
    return {"landlock_fs": True, "landlock_net": bool(net), "landlock_scope": bool(scoped)}


# ---------------------------------------------------------------- seccomp-bpf
AUDIT_ARCH_X86_64 = 0xC000003E
RET_ALLOW, RET_ERRNO, RET_KILL_PROCESS = 0x7FFF0000, 0x00050000, 0x80000000
_LD_ABS, _JEQ, _JSET, _JGE, _RET = 0x20, 0x15, 0x45, 0x35, 0x06
_AND = 0x54  # BPF_ALU | BPF_AND | BPF_K
CLONE_THREAD = 0x00010000
AF_UNIX = 1

#: x86_64 numbers of the calls refused outright (EPERM)
DENY_X86_64 = {
    "ptrace": 101, "process_vm_readv": 310, "process_vm_writev": 311, "kcmp": 312, "process_madvise": 440,
    "pidfd_open": 434, "pidfd_getfd": 438, "pidfd_send_signal": 424, "tkill": 200,
    "fork": 57, "vfork": 58, "execve": 59, "execveat": 322,
    "mount": 165, "umount2": 166, "pivot_root": 155, "chroot": 161, "unshare": 272, "setns": 308,
    "open_tree": 428, "move_mount": 429, "fsopen": 430, "fsconfig": 431, "fsmount": 432, "fspick": 433,
    "mount_setattr": 442, "name_to_handle_at": 303, "open_by_handle_at": 304,
    "bpf": 321, "perf_event_open": 298, "userfaultfd": 323, "keyctl": 250, "add_key": 248, "request_key": 249,
    "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427, "fanotify_init": 300,
    "init_module": 175, "finit_module": 313, "delete_module": 176, "kexec_load": 246, "kexec_file_load": 320,
    "reboot": 169, "swapon": 167, "swapoff": 168, "acct": 163, "quotactl": 179, "iopl": 172, "ioperm": 173,
    "settimeofday": 164, "clock_settime": 227, "clock_adjtime": 305, "adjtimex": 159,
    "sethostname": 170, "setdomainname": 171, "personality": 135, "migrate_pages": 256, "move_pages": 279,
    # file metadata: Landlock does not cover it, and a worker running as root owns most files
    "chmod": 90, "fchmod": 91, "fchmodat": 268, "fchmodat2": 452, "chown": 92, "fchown": 93, "lchown": 94,
    "fchownat": 260, "utime": 132, "utimes": 235, "futimesat": 261, "utimensat": 280,
    "setxattr": 188, "lsetxattr": 189, "fsetxattr": 190, "removexattr": 197, "lremovexattr": 198,
    "fremovexattr": 199, "setxattrat": 463, "removexattrat": 466,
    # memory outside RLIMIT_AS's reach, file watches (names in unlistable directories, a
    # machine-wide quota), device nodes, System V IPC and POSIX message queues (also private
    # to the worker's IPC namespace where it has one): a pure-Python candidate needs none
    "memfd_create": 319, "memfd_secret": 447, "inotify_init": 253, "inotify_init1": 294,
    "inotify_add_watch": 254, "fanotify_mark": 301, "mknod": 133, "mknodat": 259,
    "shmget": 29, "shmat": 30, "shmctl": 31, "shmdt": 67, "semget": 64, "semop": 65, "semctl": 66,
    "semtimedop": 220, "msgget": 68, "msgsnd": 69, "msgrcv": 70, "msgctl": 71,
    "mq_open": 240, "mq_unlink": 241, "mq_timedsend": 242, "mq_timedreceive": 243, "mq_notify": 244,
    "mq_getsetattr": 245,
}
#: x86_64 numbers of the calls a worker may make (an allowlist: any call on none of the lists
#: answers ENOSYS, the answer of a kernel without it, so libc falls back to a call listed here).
#: Found by tracing confined workers (``benchmarks/seccomp_trace.py``: every call a worker made
#: after installing the filter while running the test suite's honest pairs, a sweep over every
#: standard-library module and common operations, numpy and scipy programs), plus the calls of
#: the same families libc may use instead (``*at``, ``*2``, ``pselect6``/``ppoll``, ``statx``).
#: Not on it, besides the refused calls above: changing ids or sessions (``setsid``,
#: ``setpgid``, ``set*uid``), ``mlock*``, NUMA policy changes, ``sync``/``syncfs``, Linux AIO,
#: ``seccomp``/``landlock_*`` of its own, ``modify_ldt``, memory protection keys, ``capset``.
ALLOW_X86_64 = {
    "read": 0, "write": 1, "open": 2, "close": 3, "stat": 4, "fstat": 5, "lstat": 6, "poll": 7, "lseek": 8,
    "mmap": 9, "mprotect": 10, "munmap": 11, "brk": 12, "rt_sigaction": 13, "rt_sigprocmask": 14, "rt_sigreturn": 15,
    "pread64": 17, "pwrite64": 18, "readv": 19, "writev": 20, "access": 21, "pipe": 22, "select": 23,
    "sched_yield": 24, "mremap": 25, "msync": 26, "mincore": 27, "madvise": 28, "dup": 32, "dup2": 33, "pause": 34,
    "nanosleep": 35, "getitimer": 36, "alarm": 37, "setitimer": 38, "getpid": 39, "sendfile": 40, "connect": 42,
    "accept": 43, "sendto": 44, "recvfrom": 45, "sendmsg": 46, "recvmsg": 47, "shutdown": 48, "bind": 49,
    "listen": 50, "getsockname": 51, "getpeername": 52, "getsockopt": 55,
    "exit": 60, "wait4": 61, "uname": 63, "fcntl": 72, "flock": 73, "fsync": 74, "fdatasync": 75, "truncate": 76,
    "ftruncate": 77, "getdents": 78, "getcwd": 79, "chdir": 80, "fchdir": 81, "rename": 82, "mkdir": 83, "rmdir": 84,
    "creat": 85, "link": 86, "unlink": 87, "symlink": 88, "readlink": 89, "umask": 95, "gettimeofday": 96,
    "getrlimit": 97, "getrusage": 98, "sysinfo": 99, "times": 100, "getuid": 102, "getgid": 104, "geteuid": 107,
    "getegid": 108, "getppid": 110, "getpgrp": 111, "getgroups": 115, "getresuid": 118, "getresgid": 120,
    "getpgid": 121, "getsid": 124, "capget": 125, "rt_sigpending": 127, "rt_sigtimedwait": 128, "rt_sigsuspend": 130,
    "sigaltstack": 131, "statfs": 137, "fstatfs": 138, "getpriority": 140, "sched_getparam": 143,
    "sched_getscheduler": 145, "sched_get_priority_max": 146, "sched_get_priority_min": 147,
    "sched_rr_get_interval": 148, "arch_prctl": 158, "setrlimit": 160, "gettid": 186, "readahead": 187,
    "getxattr": 191, "lgetxattr": 192, "fgetxattr": 193, "listxattr": 194, "llistxattr": 195, "flistxattr": 196,
    "time": 201, "futex": 202, "sched_getaffinity": 204, "set_tid_address": 218, "getdents64": 217,
    "restart_syscall": 219, "fadvise64": 221, "timer_create": 222, "timer_settime": 223, "timer_gettime": 224,
    "timer_getoverrun": 225, "timer_delete": 226, "clock_gettime": 228, "clock_getres": 229, "clock_nanosleep": 230,
    "exit_group": 231, "epoll_wait": 232, "epoll_ctl": 233, "waitid": 247, "get_mempolicy": 239, "ioprio_get": 252,
    "openat": 257, "mkdirat": 258, "newfstatat": 262, "unlinkat": 263, "renameat": 264, "linkat": 265,
    "symlinkat": 266, "readlinkat": 267, "faccessat": 269, "pselect6": 270, "ppoll": 271, "set_robust_list": 273,
    "get_robust_list": 274, "splice": 275, "tee": 276, "sync_file_range": 277, "vmsplice": 278, "epoll_pwait": 281,
    "signalfd": 282, "timerfd_create": 283, "eventfd": 284, "fallocate": 285, "timerfd_settime": 286,
    "timerfd_gettime": 287, "accept4": 288, "signalfd4": 289, "eventfd2": 290, "epoll_create": 213,
    "epoll_create1": 291, "dup3": 292, "pipe2": 293, "preadv": 295, "pwritev": 296, "recvmmsg": 299, "sendmmsg": 307,
    "getcpu": 309, "sched_getattr": 315, "renameat2": 316, "getrandom": 318, "membarrier": 324,
    "copy_file_range": 326, "preadv2": 327, "pwritev2": 328, "statx": 332, "rseq": 334, "close_range": 436,
    "openat2": 437, "faccessat2": 439, "epoll_pwait2": 441, "futex_waitv": 449,
}
#: ``ioctl`` requests a worker may make (else ENOTTY, the answer for a file that is no terminal):
#: terminal queries (``isatty``, window size), non-blocking and close-on-exec flags, bytes
#: readable, interface enumeration (``socket.if_nameindex``, ``uuid``)
IOCTL_X86_64 = (0x5401, 0x5413, 0x541B, 0x5421, 0x5450, 0x5451, 0x8910, 0x8912, 0x8913, 0x8933)
#: ``prctl`` options a worker may use (else EPERM): the parent-death signal (the worker re-arms it
#: after its uid change), reading its own name, dumpability, seccomp, no_new_privs and capability
#: bounding state, naming its threads and anonymous memory (glibc's ``PR_SET_VMA``)
PRCTL_X86_64 = (1, 2, 3, 15, 16, 21, 23, 39, 0x53564D41)
#: the only socket families a worker may create (an allowlist: AF_UNIX, netlink, vsock, packet
#: and every other family is refused); they reach nothing inside the private network namespace
SOCKET_FAMILIES = (2, 10)  # AF_INET, AF_INET6
SYS_CLONE, SYS_CLONE3, SYS_SOCKET, SYS_IOCTL, SYS_PRCTL = 56, 435, 41, 16, 157
#: ``socketpair`` only for ``AF_UNIX`` + ``SOCK_STREAM`` (``SOCK_CLOEXEC``/``SOCK_NONBLOCK`` aside),
#: what asyncio's self-pipe and ``socket.socketpair()`` create; else EPERM. With ``socket()``
#: limited to IP families, a worker then holds no unix datagram or seqpacket socket, the only
#: kinds whose ``sendto``/``sendmsg`` name a destination path (a host's world-writable socket,
#: e.g. syslog's); a connected stream socket refuses a destination (``EISCONN``)
SYS_SOCKETPAIR, SOCK_STREAM, SOCK_TYPE_FLAGS = 53, 1, 0o2000000 | 0o4000  # SOCK_CLOEXEC | SOCK_NONBLOCK
#: ``setsockopt(SOL_SOCKET, ...)`` options refused (EPERM): a socket's buffer sizes. Raised to
#: the system maximum on many sockets whose data stays in flight, they pin kernel memory that
#: ``RLIMIT_AS`` does not count; the defaults (``net.core.[rw]mem_default``) stay
SYS_SETSOCKOPT, SOL_SOCKET = 54, 1
SOCKOPT_BUFFERS = (7, 8, 32, 33)  # SO_SNDBUF, SO_RCVBUF, SO_SNDBUFFORCE, SO_RCVBUFFORCE


def _pid_args_x86_64(pid: int) -> dict[int, list[tuple[int, tuple[int, ...]]]]:
    """Calls allowed only when each listed argument (low 32 bits) is one of the values: they
    must aim at this process (0 or its pid; -pid is its process group after setsid)."""
    me, grp = pid & 0xFFFFFFFF, (-pid) & 0xFFFFFFFF
    own = (0, me)
    return {
        62: [(0, (0, me, grp))],  # kill
        234: [(0, (me,))],  # tgkill
        129: [(0, (me,))],  # rt_sigqueueinfo
        297: [(0, (me,))],  # rt_tgsigqueueinfo
        302: [(0, own)],  # prlimit64
        141: [(0, (0,)), (1, own)],  # setpriority(PRIO_PROCESS, self)
        251: [(0, (1,)), (1, own)],  # ioprio_set(IOPRIO_WHO_PROCESS, self)
        203: [(0, own)], 144: [(0, own)], 142: [(0, own)], 314: [(0, own)],  # sched_set{affinity,scheduler,param,attr}
        SYS_SOCKET: [(0, SOCKET_FAMILIES)],
    }


def _ins(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
    return struct.pack("=HBBI", code, jt, jf, k & 0xFFFFFFFF)


def _arg_low(i: int) -> int:
    return 16 + 8 * i + (0 if sys.byteorder == "little" else 4)


def _arg_block(conds: list[tuple[int, tuple[int, ...]]], refuse: int) -> list[bytes]:
    """Allow when every listed argument (low 32 bits) is one of its values, else ``refuse``."""
    body: list[bytes] = []
    for arg, values in conds:
        body.append(_ins(_LD_ABS, _arg_low(arg)))
        body += [_ins(_JEQ, v, len(values) - j, 0) for j, v in enumerate(values)]
        body.append(_ins(_RET, refuse))
    body.append(_ins(_RET, RET_ALLOW))
    return body


def _chain(blocks: list[tuple[int, list[bytes]]]) -> list[bytes]:
    """``if nr == N: body`` for each block, in order (the accumulator holds the call number)."""
    prog: list[bytes] = []
    for nr, body in blocks:
        prog.append(_ins(_JEQ, nr, 0, len(body)))
        prog += body
    return prog


_PROGRAM_PARTS: list[bytes] = []


def _program_parts() -> tuple[bytes, bytes]:
    """The parts of the filter that do not depend on the pid (built once per process): the
    refused calls and the argument checks that name no pid, then the allowlist and its default."""
    if not _PROGRAM_PARTS:
        eperm, enosys = RET_ERRNO | errno.EPERM, RET_ERRNO | errno.ENOSYS
        blocks: list[tuple[int, list[bytes]]] = [(nr, [_ins(_RET, eperm)]) for nr in sorted(set(DENY_X86_64.values()))]
        blocks.append((SYS_CLONE3, [_ins(_RET, enosys)]))  # libc falls back to clone, checked below
        blocks.append((SYS_CLONE, [_ins(_LD_ABS, _arg_low(0)), _ins(_JSET, CLONE_THREAD, 0, 1),
                                   _ins(_RET, RET_ALLOW), _ins(_RET, eperm)]))
        blocks.append((SYS_IOCTL, _arg_block([(1, IOCTL_X86_64)], RET_ERRNO | errno.ENOTTY)))
        blocks.append((SYS_PRCTL, _arg_block([(0, PRCTL_X86_64)], eperm)))
        blocks.append((SYS_SOCKETPAIR, [_ins(_LD_ABS, _arg_low(0)), _ins(_JEQ, AF_UNIX, 1, 0), _ins(_RET, eperm),
                                        _ins(_LD_ABS, _arg_low(1)), _ins(_AND, ~SOCK_TYPE_FLAGS),
                                        _ins(_JEQ, SOCK_STREAM, 0, 1), _ins(_RET, RET_ALLOW), _ins(_RET, eperm)]))
        n = len(SOCKOPT_BUFFERS)
        blocks.append((SYS_SETSOCKOPT, [_ins(_LD_ABS, _arg_low(1)), _ins(_JEQ, SOL_SOCKET, 0, n + 1),
                                        _ins(_LD_ABS, _arg_low(2)),
                                        *[_ins(_JEQ, v, n - j, 0) for j, v in enumerate(SOCKOPT_BUFFERS)],
                                        _ins(_RET, RET_ALLOW), _ins(_RET, eperm)]))
        head = [_ins(_LD_ABS, 4), _ins(_JEQ, AUDIT_ARCH_X86_64, 1, 0), _ins(_RET, RET_KILL_PROCESS),
                _ins(_LD_ABS, 0), _ins(_JGE, 0x40000000, 0, 1), _ins(_RET, enosys)]  # no x32 calls
        tail = _chain([(nr, [_ins(_RET, RET_ALLOW)]) for nr in sorted(set(ALLOW_X86_64.values()))])
        _PROGRAM_PARTS[:] = [b"".join(head + _chain(blocks)), b"".join(tail + [_ins(_RET, enosys)])]
    return _PROGRAM_PARTS[0], _PROGRAM_PARTS[1]


def seccomp_program(pid: int) -> bytes:
    """The worker's BPF filter (x86_64): :data:`DENY_X86_64` refused, the calls of
    :func:`_pid_args_x86_64` only aimed at the worker, :data:`ALLOW_X86_64` allowed, the rest ENOSYS."""
    head, tail = _program_parts()
    eperm = RET_ERRNO | errno.EPERM
    pid_blocks = [(nr, _arg_block(conds, eperm)) for nr, conds in _pid_args_x86_64(pid).items()]
    return head + b"".join(_chain(pid_blocks)) + tail


def seccomp_supported() -> bool:
    return platform.machine() in ("x86_64", "AMD64") and sys.platform.startswith("linux")


def seccomp(pid: int) -> None:
    prog = seccomp_program(pid)
    fbuf = ctypes.create_string_buffer(prog, len(prog))
    fprog = struct.pack("@HP", len(prog) // 8, ctypes.addressof(fbuf))  # struct sock_fprog
    pbuf = ctypes.create_string_buffer(fprog, len(fprog))
    _check(_libc().prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, pbuf, 0, 0), "seccomp")


# ---------------------------------------------------------------- namespaces, uid
CLONE_NEWPID = 0x20000000
_PIDNS_PIPE: list[int] = []  # the write end of the pid namespace's init's pipe (see enter_pid_namespace)


def host_pid() -> int:
    """This process's pid as the machine's ``/proc`` (mounted for the first pid namespace)
    names it: in a worker of a private pid namespace ``os.getpid()`` is a small number that
    another fork-server's worker may share, so a worker's uid is derived from this one. Read
    before Landlock closes ``/proc``."""
    try:
        return int(os.readlink("/proc/self"))
    except (OSError, ValueError):
        return os.getpid()


def enter_pid_namespace() -> int | None:
    """Make this (single-threaded, root) process's later children members of a new pid
    namespace, whose first member, forked here, is its init: it only waits, and dies with this
    process (parent-death signal, and end of file on a pipe only this process holds open);
    when it dies the kernel kills every other member. So no worker outlives its fork-server,
    a worker's ``getppid()`` is 0 and it sees no pid outside the namespace, and a worker is
    never pid 1 (which would ignore the default-action signals it sends itself). Returns the
    init's pid, or None where the kernel refuses the namespace."""
    if _libc().unshare(CLONE_NEWPID) != 0:
        return None
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the namespace's init
        try:
            _libc().prctl(PR_SET_PDEATHSIG, 9, 0, 0, 0)  # SIGKILL: delivered, its sender being outside
            os.closerange(0, r)
            os.closerange(r + 1, 65536)
            while os.read(r, 1):
                pass
        finally:
            os._exit(0)
    os.close(r)
    os.set_inheritable(w, False)
    _PIDNS_PIPE.append(w)  # held open for this process's lifetime; workers close every fd they inherit
    return pid


CLONE_NEWNS, CLONE_NEWIPC = 0x00020000, 0x08000000
MS_NOSUID, MS_NODEV, MS_REC, MS_PRIVATE = 2, 4, 1 << 14, 1 << 18
UID_BASE = 100_000  # a worker's uid is UID_BASE + its pid: no other process shares it
PR_SET_KEEPCAPS = 8
CAP_DAC_READ_SEARCH = 2


def private_namespaces(tmpdir: str, size_bytes: int, max_files: int, uid: int) -> bool:
    """New IPC and mount namespaces, and a tmpfs over ``tmpdir`` (in this process's view only)
    of ``size_bytes`` and ``max_files`` inodes (its root included), owned by ``uid``. Needs
    CAP_SYS_ADMIN; the caller's working directory moves into the tmpfs."""
    libc = _libc()
    _check(libc.unshare(CLONE_NEWNS | CLONE_NEWIPC), "unshare(CLONE_NEWNS | CLONE_NEWIPC)")
    _check(libc.mount(None, b"/", None, MS_REC | MS_PRIVATE, None), "mount(/, MS_PRIVATE)")
    opts = f"size={int(size_bytes)},nr_inodes={int(max_files) + 1},mode=0700,uid={uid},gid={uid}"
    _check(libc.mount(b"tmpfs", os.fsencode(tmpdir), b"tmpfs", MS_NOSUID | MS_NODEV, opts.encode()),
           f"mount(tmpfs, {tmpdir})")
    os.chdir(tmpdir)
    return True


MS_NOEXEC = 8
#: a process of the worker's pid namespace only, and only the worker's own (``hidepid``: other
#: uids' processes are not there, not even for ``stat``); no system files (``subset=pid``). Older
#: kernels (< 5.8) know neither word: the numeric ``hidepid=2`` alone is tried next.
PROC_OPTIONS = (b"hidepid=invisible,subset=pid", b"hidepid=2")


def private_proc() -> bool:
    """Mount a fresh ``proc`` over ``/proc`` in this process's (private) mount namespace: it
    shows the pid namespace this process belongs to (the fork-server's, see
    :func:`enter_pid_namespace`), and of it only this process's own uid's processes, so neither
    ``stat("/proc/<pid>")`` nor ``readlink("/proc/self")`` names a host process or pid (Landlock
    decides what a worker reads, not what it may ``stat``). Needs CAP_SYS_ADMIN and
    :func:`private_namespaces` first (else the host's ``/proc`` would be covered)."""
    libc = _libc()
    err = 0
    for opts in PROC_OPTIONS:
        if libc.mount(b"proc", b"/proc", b"proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, opts) == 0:
            return True
        err = ctypes.get_errno()
    raise OSError(err, f"mount(proc, /proc): {os.strerror(err)}")


def become(uid: int) -> bool:
    """Run as ``uid`` (and gid ``uid``, no groups) from now on, keeping the capabilities for
    :func:`drop_capabilities` to reduce. Needs CAP_SETUID and CAP_SETGID."""
    libc = _libc()
    _check(libc.prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0), "prctl(PR_SET_KEEPCAPS)")
    os.setgroups([])
    os.setresgid(uid, uid, uid)
    os.setresuid(uid, uid, uid)
    return os.getuid() == uid and os.geteuid() == uid


# ---------------------------------------------------------------- capabilities, no_new_privs
_CAP_VERSION_3 = 0x20080522


def drop_capabilities(keep: int = 0) -> bool:
    """Empty the bounding set (where permitted) and the inheritable set, and the effective and
    permitted sets except the capabilities in the bit mask ``keep`` (< 2**32); True when nothing
    else is left."""
    libc = _libc()
    for cap in range(64):
        if libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 and ctypes.get_errno() == errno.EINVAL:
            break
    hdr = ctypes.create_string_buffer(struct.pack("=Ii", _CAP_VERSION_3, 0), 8)
    data = ctypes.create_string_buffer(struct.pack("=IIIIII", keep, keep, 0, 0, 0, 0), 24)
    _check(libc.syscall(126, hdr, data), "capset")  # effective, permitted = keep; inheritable empty
    _check(libc.syscall(125, hdr, data), "capget")
    return data.raw == struct.pack("=IIIIII", keep, keep, 0, 0, 0, 0)


def no_new_privs() -> bool:
    libc = _libc()
    _check(libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "prctl(PR_SET_NO_NEW_PRIVS)")
    return libc.prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) == 1


# ---------------------------------------------------------------- the whole confinement
def confine(tmpdir: str, readable: list[str], want: Want, limits: tuple[int, int] = (64 << 20, 1000)
            ) -> dict[str, bool]:
    """Apply every mechanism ``want`` names (as found by :func:`probe`) to this process;
    ``limits``: the temporary directory's bytes and files. Raises OSError when one of them
    fails: the caller must then not run untrusted code."""
    got = {m: False for m in MECHANISMS if m not in FORKSERVER_MECHANISMS}
    if not any(want.get(m) for m in got):
        return got
    uid = UID_BASE + host_pid()
    if want.get("namespaces"):  # first: it needs CAP_SYS_ADMIN, and Landlock's rule names the tmpfs
        got["namespaces"] = private_namespaces(tmpdir, limits[0], limits[1], uid)
        if want.get("procfs"):
            got["procfs"] = private_proc()
    got["no_new_privs"] = no_new_privs()
    abi = int(want.get("landlock_abi", 0) or 0)
    if want.get("landlock_fs") and abi:
        got.update(landlock(tmpdir, readable, abi))
    keep = 0
    if want.get("unprivileged"):
        got["unprivileged"] = become(uid)
        keep = 1 << CAP_DAC_READ_SEARCH
    if want.get("capabilities"):
        got["capabilities"] = drop_capabilities(keep)
    if want.get("seccomp"):  # last: it refuses calls the steps above make (capset is fine)
        seccomp(os.getpid())
        got["seccomp"] = True
    return got


#: the probe's steps, in order (``landlock`` applies the three ``landlock_*`` mechanisms)
_Step = Literal["namespaces", "procfs", "no_new_privs", "landlock", "unprivileged", "capabilities", "seccomp"]


def _try_all(tmpdir: str, readable: list[str]) -> Probe:
    """In a throw-away child: each mechanism on its own, then all together."""
    abi = landlock_abi()
    errors: dict[str, str] = {}
    out: Probe = {"landlock_abi": abi, "errors": errors}
    root = os.geteuid() == 0
    uid = UID_BASE + host_pid()
    want: Want = {"landlock_abi": abi, "landlock_fs": abi > 0, "capabilities": True, "seccomp": seccomp_supported(),
                  "namespaces": root, "procfs": root, "unprivileged": root}
    steps: list[tuple[_Step, Callable[[], dict[str, bool] | bool | None]]] = [
        ("namespaces", lambda: private_namespaces(tmpdir, 1 << 20, 16, uid) if root else None),
        ("procfs", lambda: private_proc() if want["namespaces"] else None),
        ("no_new_privs", no_new_privs),
        ("landlock", lambda: landlock(tmpdir, readable, abi) if abi else None),
        ("unprivileged", lambda: become(uid) if root else None),
        ("capabilities", lambda: drop_capabilities(1 << CAP_DAC_READ_SEARCH if want["unprivileged"] else 0)),
        ("seccomp", lambda: seccomp(os.getpid()) if want["seccomp"] else None)]
    for name, step in steps:
        try:
            r = step()
        except Exception as exc:  # noqa: BLE001
            errors[name] = str(exc)[:200]
            if name == "landlock":
                want["landlock_fs"] = False
            else:
                want[name] = False
            continue
        if isinstance(r, dict):  # landlock's three mechanisms
            out["landlock_fs"], out["landlock_net"], out["landlock_scope"] = (
                r["landlock_fs"], r["landlock_net"], r["landlock_scope"])
        elif name != "seccomp":
            out[name] = bool(r)
        else:
            out[name] = want["seccomp"]
    if not out.get("procfs"):
        want["procfs"] = False
    out["want"] = want
    return out


def probe(tmp_base: str | None = None, exclude: tuple[str, ...] = ()) -> Probe:
    """Which mechanisms this kernel enforces, found by applying them in a forked child (the
    caller must be single-threaded). Returns ``{"want": {...}, "landlock_abi": N, ...}``."""
    readable = read_paths(exclude)
    if seccomp_supported():
        _program_parts()  # built once here, inherited by every worker forked later
    _libc()
    tmpdir = tempfile.mkdtemp(prefix="lcl-fuzz-probe-", dir=tmp_base)
    r, w = os.pipe()
    try:
        pid = os.fork()
        if pid == 0:  # pragma: no cover - child
            try:
                os.close(r)
                data = json.dumps(_try_all(tmpdir, readable)).encode()
                os.write(w, data)
            finally:
                os._exit(0)
        os.close(w)
        w = -1
        chunks = []
        while True:
            b = os.read(r, 1 << 16)
            if not b:
                break
            chunks.append(b)
        os.waitpid(pid, 0)
    finally:
        os.close(r)
        if w >= 0:
            os.close(w)
        os.rmdir(tmpdir)
    try:
        res: Probe = json.loads(b"".join(chunks) or b"{}")  # what _try_all wrote
    except ValueError:
        res = {}
    res.setdefault("want", {})
    res["readable"] = readable
    return res


def report(probed: Probe, netns: bool, mode: str, pidns: bool = False) -> IsolationReport:
    """The isolation report: which mechanisms are active, which are missing, and what that
    leaves (printed by ``lcl fuzz pair --json`` and kept in each result)."""
    mech = {m: bool(probed.get(m)) for m in MECHANISMS}
    mech["netns"], mech["pidns"] = bool(netns), bool(pidns)
    missing = [m for m in MECHANISMS if not mech[m]]
    return {"mode": mode, "mechanisms": mech, "missing": missing, "landlock_abi": int(probed.get("landlock_abi") or 0),
            "kernel": kernel_enforced(mech), "python_fallback": _fallbacks(mech),
            "errors": dict(probed.get("errors") or {})}


def kernel_enforced(mech: dict[str, bool]) -> bool:
    """Writes, reads and process creation are confined by the kernel: the Python-level
    blocks (imports of ctypes, subprocess, ...) are then not needed."""
    return bool(mech.get("landlock_fs") and mech.get("seccomp") and mech.get("no_new_privs"))


def _fallbacks(mech: dict[str, bool]) -> list[str]:
    out = []
    if not kernel_enforced(mech):
        out.append("audit hook confines writes and process creation; blocks ctypes, subprocess, multiprocessing "
                   "and socket imports (bypassable: reads are not confined)")
    if not mech.get("netns") and not mech.get("landlock_net"):
        out.append("audit hook refuses sockets")
    return out


def describe(rep: IsolationReport) -> str:
    """One line for the start-up message."""
    on = [m for m in MECHANISMS if rep["mechanisms"].get(m)]
    line = f"lcl fuzz: isolation {'complete' if not rep['missing'] else 'partial'}: " + ", ".join(on or ["none"])
    if rep["missing"]:
        line += f"; missing: {', '.join(rep['missing'])}"
        if rep["python_fallback"]:
            line += f" (remaining: {'; '.join(rep['python_fallback'])})"
    return line


def provenance(rep: IsolationReport) -> Provenance:
    """What a result records about the workers that produced it (no timings, no paths)."""
    mech = rep.get("mechanisms") or {}
    return {"mode": rep.get("mode", "best"), "active": [m for m in MECHANISMS if mech.get(m)],
            "missing": [m for m in MECHANISMS if not mech.get(m)], "landlock_abi": int(rep.get("landlock_abi") or 0)}
