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
from typing import TYPE_CHECKING, Literal, NoReturn, NotRequired, TypedDict, cast

from .. import semantics as S

if TYPE_CHECKING:  # the fork-server imports isolation itself, before it forks
    from ..isolation import WorkerIsolation

HDR = 64  # shared-memory header: int64 words, see the H_* indices
#: header words (int64): files created (worker), slot in flight + 1 and the CPU ticks it has used
#: (worker, published at every tick: hints for the watchdog), slot + 1 the harness asks to stop
H_CREATES, H_SLOT, H_TICKS, H_STOP = 0, 1, 2, 3


def layout(slots: int) -> tuple[int, int, int, int]:
    """Offsets of the kinds (1 byte/slot), digests (16), charges (8) regions and the size.
    A worker writes a slot's digest and charge before its kind, so kind != 0 = complete."""
    k0 = HDR
    d0 = k0 + (slots + 7) // 8 * 8
    c0 = d0 + 16 * slots
    return k0, d0, c0, c0 + 8 * slots


CHARGE = struct.Struct("<d")
FRAME = struct.Struct("<I")
MAX_FRAME = 4096  # cap on any reply a worker sends (its replies are a few small fields)
POLL = 0.05  # watchdog poll interval (s)
TICK = 0.02  # in-worker CPU timer tick (s)


#: the module the code under test sees for the sandbox's own classes and functions (an
#: exception's name is part of an outcome, e.g. that of ``os._exit`` while a module loads): the
#: one they had before the sandbox became a package, so outcomes stay byte-identical
OBSERVED_MODULE = "lcl.fuzz.sandbox"


class WorkerConfig(TypedDict):
    """What a worker is forked with (the executor's ``_cfg``, pickled to the fork-server, which
    adds ``block_net`` and ``isolation``)."""

    level: str  # function | program
    tmpdir: str
    settings: S.SettingsDict
    cpu_seconds: float  # RLIMIT_CPU
    slots: int  # records in the shared memory
    precise: bool  # charge CPU time per input (the reference)
    cap: float  # the per-input backstop (s): the largest timeout this side can have
    block_net: NotRequired[bool]  # the audit hook refuses sockets (no network namespace)
    isolation: NotRequired[WorkerIsolation]


# ---------------------------------------------------------------------------- frames
# requests: harness -> worker (pickled: the harness is trusted)
class LoadRequest(TypedDict):
    """Load the code afresh (a new module object), under ``timeout`` seconds of CPU."""

    op: Literal["load"]
    code: str
    entry: str | None
    filename: str
    timeout: float


class InputsRequest(TypedDict):
    """The worker's shard: input ``i`` is ``blobs[i - offset]`` (pickled arguments / stdin)."""

    op: Literal["inputs"]
    blobs: list[bytes]
    offset: int
    prepare: bool  # unpickle immutable arguments once (not for the reference's single pass)


class ChunkRequest(TypedDict):
    """Run inputs ``start..end``, records in slots ``base..``; ``seq`` is echoed in the reply.
    After a shard's last chunk the harness sends an empty one (``start == end``): its reply is
    the only frame that may follow that chunk's, so a second reply to it is always seen."""

    op: Literal["chunk"]
    start: int
    end: int
    base: int
    seq: int


Request = LoadRequest | InputsRequest | ChunkRequest


class Reply(TypedDict, total=False):
    """A worker's reply (JSON, capped, checked by :func:`parse_reply`: :data:`REPLY_FIELDS`)."""

    # load: ok | exc | timeout (believed only with the kernel's CPU) | syntax | noentry (never
    # believed: the harness checks both on the source first); inputs: ok; chunk: done | restart
    status: str
    detail: str
    message: str
    seq: int
    done: int  # chunk: inputs finished (their records written)


class SandboxError(RuntimeError):
    """The sandbox itself failed (not the code under test)."""


class Aborted(SandboxError):
    """The batch this pass belongs to was interrupted (see :func:`set_abort_event`)."""


def recv_exact(sock: socket.socket, n: int) -> bytes:
    buf = bytearray()
    while len(buf) < n:
        b = sock.recv(n - len(buf))
        if not b:
            raise EOFError
        buf += b
    return bytes(buf)


def send_frame(sock: socket.socket, obj: Reply) -> None:
    data = json.dumps(obj).encode()[:MAX_FRAME]
    sock.sendall(FRAME.pack(len(data)) + data)


#: every field a worker's reply may have, and its type (exactly; no floats, lists or objects)
REPLY_FIELDS: dict[str, type] = {"status": str, "detail": str, "message": str, "seq": int, "done": int}
_MAX_TEXT = 1000
_MAX_INT = 1 << 40


def _no_constant(name: str) -> NoReturn:
    raise ValueError(f"non-finite number {name}")


def parse_reply(data: bytes) -> Reply | None:
    """A worker's reply frame as a flat dict of :data:`REPLY_FIELDS`, or None when it is anything
    else: oversized, not UTF-8, not JSON, non-finite numbers, nesting, unknown fields, wrong
    types, out-of-range values. The bytes come from the untrusted process, so this is the only
    way they are read, and no input makes it raise."""
    if len(data) > MAX_FRAME:
        return None
    try:
        obj = json.loads(data.decode("utf-8"), parse_constant=_no_constant)
    except (ValueError, RecursionError, TypeError):  # UnicodeDecodeError is a ValueError
        return None
    if type(obj) is not dict:
        return None
    for k, v in obj.items():
        want = REPLY_FIELDS.get(k)
        if want is None or type(v) is not want:
            return None
        if isinstance(v, int) and not 0 <= v < _MAX_INT:
            return None
        if isinstance(v, str) and len(v) > _MAX_TEXT:
            return None
    return cast("Reply", obj)  # every field checked above


# anything that is not a valid kind byte from an untrusted worker becomes CRASH
KIND_MAP = bytes(b if b in (S.OK, S.EXC, S.TIMEOUT) else S.CRASH for b in range(256))
