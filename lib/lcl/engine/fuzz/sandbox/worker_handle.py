"""Harness-side handle of one sandboxed worker process: its socket (capped JSON frames in,
pickled requests out), its shared-memory records (read as raw bytes, every invalid kind byte
mapped to CRASH) and its pidfd (SIGKILL without pid reuse races).

Standard library only.
"""

from __future__ import annotations

import contextlib
import mmap
import os
import pickle
import select
import signal
import socket
import struct
import threading
import time
from collections.abc import Callable

from .protocol import FRAME, H_CREATES, H_STOP, KIND_MAP, MAX_FRAME, Reply, Request, layout, parse_reply


class Worker:
    """Harness-side handle of one sandboxed worker process."""

    def __init__(self, pid: int, sock: socket.socket, shm: mmap.mmap, slots: int) -> None:
        self.pid = pid
        self.sock = sock
        self.shm = shm
        self.slots = slots
        self.buf = bytearray()
        self.dead = False
        self.violation = False  # it sent something other than the reply the harness waits for
        #: its CPU seconds (kernel) before its latest load request: what the run is charged from
        self.load_cpu0: float | None = None
        self._sender: threading.Thread | None = None
        self._send_failed = False
        self.lay = layout(slots)
        # set by the executor: the (inputs version, lo, hi) of the shard this worker holds, and
        # the per-input timeouts it was last sent
        self.inputs_version: tuple[int, int, int] | None = None
        self.timeouts: list[float] | None = None
        try:
            self.pidfd: int | None = os.pidfd_open(pid)
        except OSError:
            self.pidfd = None
        sock.settimeout(120)

    def send(self, msg: Request, background: bool = False) -> None:
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

    def in_background(self, fn: Callable[[], None]) -> None:
        """Run ``fn``, which owns the socket until then, in a helper thread; the next
        :meth:`sent` (so the next :meth:`send`, or :meth:`close` once the worker is killed)
        waits for it. ``fn`` sends with :meth:`send_now`."""
        self.sent()
        t = threading.Thread(target=self._guarded, args=(fn,), name="lcl-fuzz-start", daemon=True)
        self._sender = t
        t.start()

    def _guarded(self, fn: Callable[[], None]) -> None:
        try:
            fn()
        except (OSError, EOFError, ValueError):  # the worker died or was closed: seen as EOF
            self._send_failed = True

    def send_now(self, msg: Request) -> None:
        """Send ``msg`` from the helper thread of :meth:`in_background` (no wait for it)."""
        data = pickle.dumps(msg, protocol=pickle.HIGHEST_PROTOCOL)
        self.sock.sendall(FRAME.pack(len(data)) + data)

    def sent(self) -> bool:
        """Wait for a background send; False if it failed."""
        t, self._sender = self._sender, None
        if t is not None:
            t.join()
        failed, self._send_failed = self._send_failed, False
        return not failed

    def recv_blocking(self, timeout: float) -> Reply | None:
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
        if len(self.buf) > MAX_FRAME + 4:  # more than one frame's worth: not the protocol
            self._violate()
            return False
        return True

    def _violate(self) -> None:
        """A frame the protocol does not allow: the worker is done for (the executor decides
        which input that fails, from its own records of what it asked)."""
        self.violation = True
        self.kill()

    def take_frame(self) -> Reply | None:
        """The next complete frame, or None (none complete yet, or a protocol violation: then
        :attr:`violation` is set and the worker killed)."""
        return self._take_frame()

    def _take_frame(self) -> Reply | None:
        if len(self.buf) < 4 or self.violation:
            return None
        (n,) = FRAME.unpack_from(self.buf)
        if n > MAX_FRAME:
            self._violate()
            return None
        if len(self.buf) < 4 + n:
            return None
        data = bytes(self.buf[4:4 + n])
        del self.buf[:4 + n]
        obj = parse_reply(data)
        if obj is None:  # a protocol violation: the worker is done for (see the executor)
            self._violate()
        return obj

    def pending(self) -> bool:
        """Whether bytes the harness has not asked for are waiting (an extra frame): such a
        worker is not reused."""
        if self.buf:
            return True
        r, _, _ = select.select([self.sock], [], [], 0)
        return bool(r)

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
        kinds = shm[k0 + base:k0 + base + n].translate(KIND_MAP)
        return kinds, shm[d0 + 16 * base:d0 + 16 * (base + n)], shm[c0 + 8 * base:c0 + 8 * (base + n)]

    def creates(self) -> int:
        return struct.unpack_from("<q", self.shm, 8 * H_CREATES)[0]

    def header(self, word: int) -> int:
        """A header word as the worker left it (a hint, never trusted beyond that)."""
        return struct.unpack_from("<q", self.shm, 8 * word)[0]

    def set_header(self, word: int, value: int) -> None:
        struct.pack_into("<q", self.shm, 8 * word, value)

    def request_stop(self, slot: int) -> None:
        """Ask the worker to end the input in ``slot`` (its timer's handler raises there);
        SIGUSR2 makes it look now instead of at its next CPU tick."""
        struct.pack_into("<q", self.shm, 8 * H_STOP, slot + 1)
        if self.pidfd is not None:
            with contextlib.suppress(OSError):
                signal.pidfd_send_signal(self.pidfd, signal.SIGUSR2)

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
