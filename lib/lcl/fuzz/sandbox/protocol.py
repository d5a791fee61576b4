"""What the harness and a sandboxed worker share: the shared-memory record layout, the
frames on their socket, and the sandbox's own errors.

A worker writes one fixed-size record per input (kind byte, 16-byte digest, charged seconds)
into a shared memfd and answers each request with a small, capped JSON frame; nothing a worker
says is trusted beyond these (no unpickling of worker data, ever). Standard library only: the
fork-server and its workers import this package before any confinement.
"""

from __future__ import annotations

import json
import socket
import struct
from typing import Any

from .. import semantics as S

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


#: the module the code under test sees for the sandbox's own classes and functions (an
#: exception's name is part of an outcome, e.g. that of ``os._exit`` while a module loads): the
#: one they had before the sandbox became a package, so outcomes stay byte-identical
OBSERVED_MODULE = "lcl.fuzz.sandbox"


class SandboxError(RuntimeError):
    """The sandbox itself failed (not the code under test)."""


class Aborted(SandboxError):
    """The batch this pass belongs to was interrupted (see :func:`set_abort_event`)."""


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


# anything that is not a valid kind byte from an untrusted worker becomes CRASH
_KIND_MAP = bytes(b if b in (S.OK, S.EXC, S.TIMEOUT) else S.CRASH for b in range(256))
