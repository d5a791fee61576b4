"""The executor: runs one piece of code over a list of inputs in sandboxed workers, one per
shard, and is the watchdog. It polls the workers' records while it waits, which tells it the
input in flight of an honest worker: on a missed wall-clock deadline it SIGKILLs the worker
(``pidfd_send_signal``), records TIMEOUT, re-forks, reloads and continues with the next input;
on EOF (the worker died) it records CRASH the same way. It charges the run's budget T in the
workers' CPU time, their loads included (Algorithm 1 of the paper; ``docs/FUZZING.md``).

What a worker writes (records, tick counter, replies) is the candidate's to forge, so the
verdicts rest on what the harness itself knows:

* which input runs: the kernel's CPU time of the worker (``/proc``) and the wall clock since a
  chunk started are bounded by the sums of that chunk's timeouts; past either, the worker is
  killed and the chunk runs again one input per request in a fresh worker, where the input in
  flight is the one the request names and its own bound makes it a TIMEOUT. Worker-written
  ticks and kind bytes can only add a TIMEOUT (``_judge``);
* what a load did: the inputs are sent only after the harness has the load's reply (nothing
  to read while the module loads), ``syntax`` and ``noentry`` are checked on the source before
  any worker starts (a worker reporting them is lying: ``crash``), ``timeout`` only when the
  kernel saw the CPU;
* what a reply means: frames are read in order against the requests sent; a reply ahead of
  its records waits for them, so whether it is read early or late does not matter; a frame the
  protocol does not expect (malformed, out of turn, a second reply to a chunk: the request
  after a shard's last chunk is an empty one, so that such a frame always has a successor)
  fails its chunk the same way as a CPU excess, and in a one-input request that input is a CRASH;
* what an input cost: every charge returned is finite and >= 0 (a worker-written non-finite
  or negative charge makes that input a CRASH, charged 0).

Standard library only (plus ``semantics``, as before the split).
"""

from __future__ import annotations

import array
import collections
import math
import os
import pickle
import select
import tempfile
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from .. import semantics as S
from .containment import dir_size, remove_tree, wipe_dir
from .forkserver import get_forkserver, needs_heavy
from .protocol import (
    H_SLOT,
    H_STOP,
    H_TICKS,
    POLL,
    TICK,
    Aborted,
    ChunkRequest,
    InputsRequest,
    Reply,
    SandboxError,
    WorkerConfig,
)
from .worker_handle import Worker

#: statuses a worker may answer a load with; ``timeout`` only when the kernel agrees, and
#: ``syntax`` / ``noentry`` never (the harness checked both on the source: a lie, a ``crash``)
_LOAD_STATUSES = frozenset({"ok", "exc", "timeout", "syntax", "noentry"})
_CHECKED_BY_HARNESS = frozenset({"syntax", "noentry"})

#: CPU seconds a chunk may use beyond the sum of its inputs' timeouts (the request and reply,
#: the kernel's accounting granularity), and per input (unpickling, digest, hygiene, outside
#: the per-input timer); an input the watchdog had to stop may also run on for its grace
CHUNK_SLOP = 0.2
INPUT_SLOP = 0.002
#: wall seconds a chunk may take beyond the sum of its inputs' wall deadlines (an empty
#: request's reply, a busy machine)
WALL_SLOP = 1.0


class ForkServerDied(SandboxError):
    """The fork-server died under a pass: its workers' deaths say nothing about the code."""

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


_TLS = threading.local()


def set_abort_event(event: threading.Event | None) -> None:
    """Passes run by this thread stop (raising :class:`Aborted`, workers killed) soon after
    ``event`` is set: the batch's threads get one, so an interrupted batch does not wait for
    the pairs in flight."""
    _TLS.abort = event


@dataclass
class LoadStatus:
    status: str  # ok | exc | timeout | crash (a worker's syntax | noentry is a crash: see _load_status)
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


@dataclass(eq=False)
class _Chunk:
    """A chunk of inputs sent to a shard's worker (``start..end``, records in slots ``base..``)."""

    start: int
    end: int
    base: int
    seq: int  # echoed by the worker's reply
    seen: int = 0  # leading records seen complete
    seen_at: float = 0.0  # when ``seen`` last grew (or the chunk's clock started)
    started: bool = False  # its clock runs (the chunk before it is complete)
    cpu_at: float | None = None  # the worker's CPU when the input in flight was first seen in flight
    stop_at: float | None = None  # when the watchdog asked the input in flight to stop
    # the harness's own bounds: the worker's kernel CPU and the wall clock when the chunk
    # started (the worker idle before it, or the chunk before it just replied), and how much
    # of each the chunk's inputs may use (sums of their timeouts and wall deadlines)
    cpu_base: float | None = None
    began: float = 0.0
    cpu_allow: float = 0.0
    wall_allow: float = 0.0

    @property
    def single(self) -> bool:
        """One input per request: the input in flight is the one the request names."""
        return self.end - self.start == 1


@dataclass(eq=False)
class _Shard:
    """Inputs ``lo..hi`` of a pass and the worker serving them (replaced as it dies or is killed)."""

    w: Worker | _DeadWorker
    lo: int
    hi: int
    next: int  # the next input to send
    q: collections.deque[_Chunk] = field(default_factory=collections.deque)  # in flight, oldest first (<= 2)
    half: int = 0  # which half of the worker's slots the next chunk uses
    cpu_done: float = 0.0  # CPU of this shard's earlier workers in this run
    seq: int = 0
    cpu0: float | None = None  # the current worker's CPU at its start (None: not known)
    cpu_now: float | None = None  # its CPU at the last poll
    wake: float = POLL  # seconds until the watchdog next needs to look
    creates: int | None = None  # files the worker had created at the last look
    pending: Reply | None = None  # the oldest chunk's reply, read before its records were all written
    last: _Chunk | None = None  # the chunk this worker last had accepted (a second reply to it fails it)
    single_until: int = 0  # inputs before this run one per request (a chunk the harness distrusts)
    synced: bool = False  # the empty request after the shard's last chunk was sent

    @property
    def worker(self) -> Worker:
        """The live worker: a shard with chunks in flight has one."""
        w = self.w
        assert isinstance(w, Worker)
        return w


@dataclass(eq=False)
class _Started:
    """A worker being started (:meth:`Executor._begin_start`)."""

    w: Worker
    load_timeout: float
    tag: tuple[int, int, int]  # (inputs version, lo, hi) of its shard
    inputs: InputsRequest | None  # its shard's inputs, when it does not hold them yet
    failed: LoadStatus | None = None
    background: bool = False  # a helper thread reads the load's reply and then sends the inputs
    reply: Reply | None = None  # the load's reply, as that thread read it
    inputs_sent: bool = False  # that thread sends them
    replied: threading.Event = field(default_factory=threading.Event)  # it has read the reply
    wait: float | None = None  # wall seconds to wait for the load's reply, if less than its deadline


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
        base = tmp_base or os.environ.get("LCL_FUZZ_TMP") or tempfile.gettempdir()
        try:
            self.tmpdir = self.fs.make_tmpdir(base)
        except (OSError, EOFError, SandboxError) as exc:
            raise ForkServerDied(f"fork-server: {exc}") from None
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
        remove_tree(self.tmpdir)

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
    def _cfg(self) -> WorkerConfig:
        s = self.s
        cpu = max(60.0, 2 * s.runs * s.run_budget + s.reference_timeout * 4)
        # the worker's own per-input limit is a setting (no timeout of this side exceeds it);
        # the timeouts themselves stay here
        cap = s.reference_timeout if self.precise else s.timeout_cap
        return {"level": self.spec.level, "tmpdir": self.tmpdir, "settings": s.to_dict(), "cpu_seconds": cpu,
                "slots": 2 * self.slots, "precise": self.precise, "cap": cap}

    def _start(self, load_timeout: float, reuse: Worker | None = None, lo: int = 0,
               hi: int | None = None, wait: float | None = None) -> tuple[Worker | None, LoadStatus]:
        """A worker with the code freshly loaded (a new module object) and the inputs
        ``lo..hi`` (its shard). ``reuse`` is a live worker from the previous run of this executor;
        ``wait``: wall seconds to wait for the load's reply at most (default: its deadline)."""
        st = self._begin_start(load_timeout, reuse, lo, hi)
        st.wait = wait
        return self._finish_start(st)

    def _begin_start(self, load_timeout: float, reuse: Worker | None, lo: int, hi: int | None,
                     background: bool = False) -> _Started:
        """Send the load without waiting, so the workers of a pass load in parallel;
        :meth:`_finish_start` collects the replies. The shard's inputs follow only once the
        load's reply is in and accepted (a module could read them while it loads, which no
        input's CPU is charged with): with ``background``, a helper thread waits for that reply
        and sends them, so a prestarted worker gets them while the harness does other work."""
        hi = len(self.blobs) if hi is None else hi
        if reuse is not None and (reuse.dead or reuse.pending()):
            reuse.close()
            reuse = None
        w = reuse if reuse is not None else self._spawn()
        tag = (self._version, lo, hi)
        inputs: InputsRequest | None = None
        if w.inputs_version != tag:
            inputs = {"op": "inputs", "blobs": self.blobs[lo:hi], "offset": lo, "prepare": not self.single_pass}
        st = _Started(w, load_timeout, tag, inputs)
        w.load_cpu0 = proc_cpu(w.pid)  # the load's CPU is the run's, too
        try:
            w.send({"op": "load", "code": self.spec.code, "entry": self.spec.entry,
                    "filename": self.spec.filename, "timeout": load_timeout})
        except (OSError, EOFError):
            w.close()
            st.failed = LoadStatus("crash")
            return st
        if background and inputs is not None:
            st.background = True
            w.in_background(lambda: self._load_then_inputs(st))
        return st

    def _load_wait(self, load_timeout: float) -> float:
        return S.wall_deadline(load_timeout, self.s) + 5

    def _load_then_inputs(self, st: _Started) -> None:
        """(helper thread) The load's reply; the inputs only after an ``ok`` (their ``ack`` is
        read by :meth:`_finish_start`, while this thread may still be sending them)."""
        try:
            st.reply = st.w.recv_blocking(self._load_wait(st.load_timeout))
            st.inputs_sent = st.reply is not None and st.reply.get("status") == "ok" and st.inputs is not None
        finally:
            st.replied.set()
        if st.inputs_sent and st.inputs is not None:
            st.w.send_now(st.inputs)

    def _spawn(self) -> Worker:
        try:
            return self.fs.spawn(self._cfg(), 2 * self.slots)
        except (OSError, EOFError, SandboxError) as exc:
            raise ForkServerDied(f"fork-server: {exc}") from None

    def _check_forkserver(self) -> None:
        """A worker died: if its fork-server is gone, that (not the code) is why."""
        if not self.fs.alive():
            raise ForkServerDied("the fork-server died during a pass")

    def _load_status(self, w: Worker, reply: Reply, load_timeout: float) -> LoadStatus:
        """What the load did, from the worker's reply as far as the harness can check it."""
        status = reply.get("status")
        if status not in _LOAD_STATUSES:
            return LoadStatus("crash", "the worker broke the protocol")
        if status in _CHECKED_BY_HARNESS:  # checked on the source before any worker started
            return LoadStatus("crash", f"the worker reported {status!r} for code the harness checked")
        if status == "timeout":  # the worker's timer fired: only believed if the kernel saw the CPU
            cpu = proc_cpu(w.pid)
            if cpu is None or cpu < 0.9 * load_timeout:
                return LoadStatus("crash")
        return LoadStatus(str(status), str(reply.get("detail", ""))[:500])

    def _finish_start(self, st: _Started) -> tuple[Worker | None, LoadStatus]:
        w = st.w
        if st.failed is not None:
            self._check_forkserver()
            return None, st.failed
        try:
            if st.background:
                st.replied.wait()  # bounded: the helper's read has a deadline
                reply = st.reply
            else:
                wait = self._load_wait(st.load_timeout)
                reply = w.recv_blocking(wait if st.wait is None else min(wait, st.wait))
            if reply is None:
                status = "crash" if w.dead else "timeout"
                w.close()
                if status == "crash":
                    self._check_forkserver()
                return None, LoadStatus(status)
            load = self._load_status(w, reply, st.load_timeout)
            if load.status != "ok":
                w.close()
                return None, load
            if st.inputs is not None:
                if not st.inputs_sent:
                    w.send(st.inputs, background=True)
                ack = w.recv_blocking(60)
                if ack is None or ack != {"status": "ok"} or not w.sent():
                    w.close()
                    self._check_forkserver()
                    return None, LoadStatus("crash", "worker died while receiving inputs")
                w.inputs_version = st.tag
        except (OSError, EOFError):
            w.close()
            self._check_forkserver()
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
                     [self._begin_start(load_timeout, None, lo, hi, background=True) for lo, hi in bounds])

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
                started.w.close()

    def run_pass(self, timeouts: list[float], budget: float, load_timeout: float) -> PassResult:
        """Execute every input once. ``timeouts[i]`` is input i's CPU timeout (s)."""
        n = len(self.blobs)
        s = self.s
        self._load_timeout = load_timeout
        self._timeouts = timeouts
        self._limits = [t / TICK for t in timeouts]  # in the worker's CPU ticks
        self._stopped: set[int] = set()  # inputs the watchdog stopped: TIMEOUT whatever they wrote
        res = PassResult(bytearray(n), bytearray(16 * n), array.array("d", bytes(8 * n)))
        bounds = self._bounds()
        shards: list[_Shard] = []
        live, self._live = self._live, []
        pre, self._pre = self._pre, None
        if pre is not None and pre[:3] == (self._version, load_timeout, bounds) and not live:
            started = pre[3]
        else:
            if pre is not None:
                self._pre = pre
                self._drop_prestarted()
            for extra in live[len(bounds):]:
                extra.close()
            started = [self._begin_start(load_timeout, live[k] if k < len(live) else None, lo, hi,
                                         background=len(bounds) > 1)
                       for k, (lo, hi) in enumerate(bounds)]
        for k, (lo, hi) in enumerate(bounds):
            w, load = self._finish_start(started[k])
            if w is None:
                for sh in shards:
                    sh.w.close()
                for other in started[k + 1:]:
                    other.w.close()
                res.load = load
                return res
            shards.append(_Shard(w, lo, hi, lo))
        t0 = time.monotonic()  # Algorithm 1's t0: the run's workers are ready
        wall_cap = S.run_wall_cap(budget, s)
        self._deadline = t0 + wall_cap
        for sh in shards:
            sh.cpu0 = sh.worker.load_cpu0  # the run is charged from before the load
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
                    while self._may_dispatch(sh):
                        self._dispatch(sh, res)
                    if sh.q:
                        active = True
                if not active:
                    break
                socks = {sh.worker.sock: sh for sh in shards if sh.q}
                wake = min((sh.wake for sh in shards if sh.q), default=POLL)
                wait = min(wake, max(0.0, self._deadline - time.monotonic()) + 0.001, cpu_check - now + 0.001)
                r, _, _ = select.select(list(socks), [], [], wait)
                now = time.monotonic()
                handled = set()
                for sock in r:
                    sh = socks[sock]
                    handled.add(id(sh))
                    sh.worker.read_available()
                    self._frames(sh, res)
                for sh in shards:
                    if not sh.q or id(sh) in handled:
                        continue
                    self._watch(sh, res, timeouts, now)
        finally:
            res.elapsed = time.monotonic() - t0
            for sh in shards:
                last = sh.w
                if not sh.q and not last.dead and isinstance(last, Worker) and not last.violation and not last.pending():
                    self._live.append(last)  # reused (with a fresh module) by the next run
                else:
                    last.close()  # includes workers still busy when the budget ran out
        return res

    def _may_dispatch(self, sh: _Shard) -> bool:
        """Whether the shard's worker gets another request now: two in flight at most, one while
        inputs run one per request (so that the kernel's CPU since the request is that input's),
        and after the shard's last chunk one empty request, whose reply is the one frame the
        worker may send after that chunk's."""
        if sh.w.dead or len(sh.q) >= 2:
            return False
        if sh.next < sh.single_until:
            return not sh.q
        return sh.next < sh.hi or not sh.synced

    def _dispatch(self, sh: _Shard, res: PassResult) -> None:
        start = sh.next
        while start < sh.hi and start in self._stopped:  # stopped in a worker since replaced
            res.kinds[start] = S.TIMEOUT
            start += 1
        if start >= sh.hi:
            start = end = sh.hi
            sh.synced = True
        else:
            end = start + 1 if start < sh.single_until else min(sh.hi, start + self.slots)
        base = sh.half * self.slots
        sh.half ^= 1
        w = sh.worker
        k0, _, c0, _ = w.lay
        w.shm[k0 + base:k0 + base + end - start] = bytes(end - start)
        w.shm[c0 + 8 * base:c0 + 8 * (base + end - start)] = bytes(8 * (end - start))
        sh.seq += 1
        first = not sh.q
        cpu_base = proc_cpu(w.pid) if first else None  # the worker is idle: read before the request
        msg: ChunkRequest = {"op": "chunk", "start": start, "end": end, "base": base, "seq": sh.seq}
        try:
            w.send(msg)
        except OSError:
            w.dead = True
        now = time.monotonic()
        s, total = self.s, math.fsum(self._timeouts[start:end])
        sh.q.append(_Chunk(start, end, base, sh.seq, seen=0, seen_at=now, started=first, cpu_at=sh.cpu_now,
                           cpu_base=cpu_base, began=now,
                           cpu_allow=total + CHUNK_SLOP + INPUT_SLOP * (end - start),
                           wall_allow=total * s.watchdog_factor + (end - start) * s.watchdog_grace + WALL_SLOP))
        sh.next = end
        sh.creates = w.creates()

    def _collect(self, sh: _Shard, res: PassResult, c: _Chunk, upto: int) -> None:
        start = c.start
        n = upto - start
        if n <= 0:
            return
        kinds, digests, charges = sh.worker.records(n, c.base)
        ch = array.array("d")
        ch.frombytes(charges)
        res.kinds[start:upto] = self._judge(start, kinds, ch)
        res.digests[16 * start:16 * upto] = digests
        res.charges[start:upto] = ch

    def _judge(self, start: int, kinds: bytes, charges: array.array) -> bytes:
        """The kinds of inputs ``start..`` from what their worker wrote, which may only ever add
        a TIMEOUT: a charge that is not a finite number >= 0 makes its input a CRASH, charged 0
        (so that every charge returned is a number sums can take); a variant's charges are CPU
        ticks, TIMEOUT wherever they pass the input's timeout (the rule its in-worker timer
        applied when it knew the timeout), and become seconds; an input the watchdog stopped is
        a TIMEOUT whatever it wrote."""
        stopped = self._stopped
        out: bytearray | None = None
        if charges and not (math.isfinite(sum(charges)) and min(charges) >= 0.0):  # one C pass each
            out = bytearray(kinds)
            for k, v in enumerate(charges):
                if not (v >= 0.0 and math.isfinite(v)):  # NaN fails both
                    out[k] = S.CRASH
                    charges[k] = 0.0
        if not self.precise and charges and max(charges) > 0:
            if out is None:
                out = bytearray(kinds)
            lim = self._limits
            for k, used in enumerate(charges):
                if used and used > lim[start + k]:
                    out[k] = S.TIMEOUT
                charges[k] = used * TICK
        if stopped:
            for i in stopped:
                if start <= i < start + len(kinds):
                    if out is None:
                        out = bytearray(kinds)
                    out[i - start] = S.TIMEOUT
        return kinds if out is None else bytes(out)

    def _ok_cpu_so_far(self, shards: list[_Shard], res: PassResult) -> float:
        """CPU charged to the OK inputs finished so far, including the finished records of
        chunks still in flight (a record's kind byte is written last, so a record seen complete
        is complete), which are collected into ``res``."""
        for sh in shards:
            w = sh.w
            if isinstance(w, Worker):
                for c in sh.q:
                    self._collect(sh, res, c, c.start + w.completed(c.end - c.start, 0, c.base))
        return math.fsum(c for k, c in zip(res.kinds, res.charges, strict=False) if k == S.OK)

    def _frames(self, sh: _Shard, res: PassResult) -> None:
        """The frames the shard's worker has sent, in order, against its requests in flight; a
        reply ahead of its records waits for them (``sh.pending``). Then, if the worker is
        gone: a violation or a reply its records never caught up with fails the oldest chunk
        (:meth:`_distrust`); an EOF fails the input in flight (:meth:`_fail`)."""
        w = sh.worker
        while sh.w is w and sh.q:
            frame = sh.pending if sh.pending is not None else w.take_frame()
            if frame is None:
                break
            sh.pending = None
            if not self._reply(sh, frame, res):
                sh.pending = frame
                break
        if sh.w is w and sh.q and w.dead:
            if w.violation or sh.pending is not None:
                self._distrust(sh, res, sh.q[0], S.CRASH)
            else:
                self._fail(sh, res, S.CRASH)

    def _reply(self, sh: _Shard, frame: Reply, res: PassResult) -> bool:
        """A worker's reply to the oldest chunk in flight; False while the records it reports
        are not all written yet (it is judged again once they are, so the verdicts do not
        depend on when the harness reads it)."""
        c = sh.q[0]
        w = sh.worker
        done, status, seq = frame.get("done"), frame.get("status"), frame.get("seq")
        # the only true replies: this chunk's, all of it, or up to ``done`` (at least one input)
        # when the worker asks to be replaced. Anything else (a second reply to the chunk
        # before, too) fails that chunk
        if (seq != c.seq or type(done) is not int or not c.start <= done <= c.end
                or not (done == c.end if status == "done" else status == "restart" and done > c.start)):
            last = sh.last
            self._distrust(sh, res, last if last is not None and seq == last.seq else c, S.CRASH)
            return True
        if c.start + w.completed(c.end - c.start, 0, c.base) < done:
            return False
        now = time.monotonic()
        cpu = proc_cpu(w.pid)
        if cpu is not None and c.cpu_base is not None and cpu - c.cpu_base > c.cpu_allow:
            self._distrust(sh, res, c, S.TIMEOUT, cpu - c.cpu_base)
            return True
        sh.q.popleft()
        if sh.q:  # the next chunk starts now
            nxt = sh.q[0]
            if not nxt.started:
                nxt.started = True
                nxt.seen_at = now
            nxt.began, nxt.cpu_base = now, cpu
        self._collect(sh, res, c, done)
        sh.last = c
        for word in (H_STOP, H_SLOT):  # hints and requests about this chunk's slots are spent
            if c.base <= w.header(word) - 1 < c.base + c.end - c.start:
                w.set_header(word, 0)
        over = self._wipe_if_over(w)
        if over or status != "done":
            # the worker must not go on: drop what it may have started of the next chunk and
            # continue from ``done`` in a fresh worker
            sh.q.clear()
            sh.next = done
            self._respawn(sh, res)
        return True

    def _distrust(self, sh: _Shard, res: PassResult, c: _Chunk, kind: int, charge: float = 0.0) -> None:
        """The worker's account of chunk ``c`` cannot be taken: a frame the protocol does not
        expect, or more kernel CPU or wall time than the chunk's timeouts allow. The worker is
        killed and everything from ``c`` on runs again in a fresh worker, ``c`` itself one
        input per request; when ``c`` is such a request, its input is ``kind`` (TIMEOUT if the
        watchdog had stopped it)."""
        w = sh.worker
        self._cpu_stop(sh)
        w.violation = True  # never reused
        w.kill()
        old = sh.next
        if c.single:
            i = c.start
            res.kinds[i] = S.TIMEOUT if i in self._stopped else kind
            res.digests[16 * i:16 * i + 16] = bytes(16)
            res.charges[i] = charge
            sh.next = i + 1
        else:
            sh.next = c.start
            sh.single_until = max(sh.single_until, c.end)
        if old > sh.next:  # what later chunks of this worker reported is not taken either
            res.kinds[sh.next:old] = bytes(old - sh.next)
        sh.q.clear()
        self._wipe_if_over(w)
        self._respawn(sh, res)

    def _wipe_if_over(self, w: Worker) -> bool:
        """Empty the pair's directory if the worker created files and it is over its size
        limit (so that the next worker starts within it); whether it was."""
        over = w.creates() > 0 and dir_size(self.tmpdir) > self.s.dir_bytes
        if over:
            wipe_dir(self.tmpdir)
        return over

    @staticmethod
    def _cpu_stop(sh: _Shard) -> None:
        """Bank the CPU of the shard's current worker (before it is killed or closed)."""
        w, c0 = sh.w, sh.cpu0
        now = proc_cpu(w.pid) if isinstance(w, Worker) and c0 is not None else None
        if now is not None and c0 is not None:
            sh.cpu_done = sh.cpu_done + max(0.0, now - c0)
        sh.cpu0 = None

    @staticmethod
    def _cpu_used(shards: list[_Shard], elapsed: float) -> float:
        """CPU seconds the run's workers have used since their loads (wall seconds where /proc
        is missing)."""
        total = 0.0
        for sh in shards:
            w, c0 = sh.w, sh.cpu0
            if isinstance(w, Worker) and c0 is None and not w.dead:
                return elapsed
            now = proc_cpu(w.pid) if isinstance(w, Worker) and c0 is not None else None
            sh.cpu_now = now
            total += sh.cpu_done + (max(0.0, now - c0) if now is not None and c0 is not None else 0.0)
        return total

    def _respawn(self, sh: _Shard, res: PassResult) -> None:
        self._cpu_stop(sh)
        sh.w.close()
        sh.q.clear()
        sh.half = 0
        sh.pending, sh.last, sh.synced = None, None, False
        if sh.next >= sh.hi:
            sh.w = _DeadWorker()
            return
        # a replacement's load is part of the run: it may not hold the run past its wall cap
        w, _load = self._start(self._load_timeout, None, sh.lo, sh.hi,
                               wait=max(0.0, self._deadline - time.monotonic()) + POLL)
        res.restarts += 1
        if w is None and _load.status == "timeout" and time.monotonic() >= self._deadline:
            sh.w = _DeadWorker()  # the run is over its wall cap: its unfinished inputs stay unrun
            res.exceeded = True
            return
        if w is None:
            # it loaded before but not now (e.g. it depends on files it wrote): the rest of
            # the shard counts as crashed
            sh.w = _DeadWorker()
            for i in range(sh.next, sh.hi):
                res.kinds[i] = S.CRASH
            sh.next = sh.hi
            return
        sh.w = w
        sh.cpu0 = w.load_cpu0  # its load is charged, too
        sh.cpu_now = None

    def _fail(self, sh: _Shard, res: PassResult, kind: int, charge: float = 0.0) -> None:
        """The worker died or was killed: keep the finished records, record ``kind`` for the
        input in flight and continue with the next one in a fresh worker."""
        w = sh.worker
        self._cpu_stop(sh)  # read before the kill: a reaped worker's /proc entry is gone
        died = w.dead and not w.violation
        w.kill()
        if died and kind == S.CRASH:
            self._check_forkserver()
        nxt = sh.next
        for c in sh.q:
            start, end = c.start, c.end
            done = start + w.completed(end - start, 0, c.base)
            self._collect(sh, res, c, done)
            if done < end:
                res.kinds[done] = S.TIMEOUT if done in self._stopped else kind
                res.charges[done] = charge
                nxt = done + 1
                break
            nxt = end
        sh.q.clear()
        sh.next = nxt
        self._wipe_if_over(w)
        self._respawn(sh, res)

    def _watch(self, sh: _Shard, res: PassResult, timeouts: list[float], now: float) -> None:
        """Watchdog, called on every poll for a worker with chunks in flight. First the
        harness's own bounds on the oldest chunk (:meth:`_distrust` past them): the kernel's
        CPU time of the worker and the wall clock since the chunk started. Then the input in
        flight, as the records show it: it is stopped once it has used more CPU than its
        timeout, by the ticks its timer publishes (a hint, exact for honest code) or by what
        the kernel says the worker used since the harness first saw the input in flight (a
        lower bound nothing in the worker can lower); it is killed if it goes on regardless,
        or at the wall-clock deadline."""
        w = sh.worker
        sh.wake = POLL
        if w.dead or sh.pending is not None:
            self._frames(sh, res)
            if sh.w is not w or not sh.q:
                return None
            if sh.pending is not None:  # look at its records again soon
                sh.wake = 0.005
        head = sh.q[0]
        if sh.cpu_now is not None and head.cpu_base is not None and sh.cpu_now - head.cpu_base > head.cpu_allow:
            return self._distrust(sh, res, head, S.TIMEOUT, sh.cpu_now - head.cpu_base)
        if now - head.began > head.wall_allow:
            res.watchdog_kills += 1
            return self._distrust(sh, res, head, S.TIMEOUT, now - head.began)
        for c in sh.q:  # the input in flight is in the first chunk not yet complete
            n = c.end - c.start
            seen = w.completed(n, c.seen, c.base)
            fresh = seen != c.seen
            if fresh:
                c.seen = seen
                c.seen_at = now
                c.cpu_at = None
            if seen >= n:
                continue
            if not c.started:
                # a queued chunk's clock starts once the one before it is seen complete
                c.started = True
                c.seen_at = now
                c.cpu_at = None
                break
            i, j = c.start + seen, c.base + seen
            if i in self._stopped:
                if c.stop_at is None:  # stopped in a worker since replaced: this one is asked, too
                    c.stop_at = now
                    w.request_stop(j)
                elif now - c.stop_at > self.s.watchdog_grace:  # it ignores the request
                    res.watchdog_kills += 1
                    return self._fail(sh, res, S.TIMEOUT, now - c.seen_at)
            else:
                lim = self._limits[i]
                used = w.header(H_TICKS) if w.header(H_SLOT) == j + 1 else 0
                over = used > lim
                if not over and not fresh:
                    cpu = proc_cpu(w.pid)
                    if c.cpu_at is None:
                        c.cpu_at = cpu  # read after the input before it was seen complete
                    elif cpu is not None:
                        over = cpu - c.cpu_at > timeouts[i]
                if over:
                    self._stopped.add(i)
                    c.stop_at = now
                    c.cpu_allow += self.s.watchdog_grace + POLL  # it may run on until killed
                    w.request_stop(j)
                elif used:  # wake when its ticks can first pass the timeout (CPU <= wall)
                    sh.wake = max(0.002, (lim + 1 - used) * TICK)
            deadline = S.wall_deadline(timeouts[i], self.s)
            if now - c.seen_at > deadline:
                res.watchdog_kills += 1
                return self._fail(sh, res, S.TIMEOUT, now - c.seen_at)
            break
        c_ = w.creates()
        if c_ != sh.creates:
            sh.creates = c_
            if dir_size(self.tmpdir) > self.s.dir_bytes:
                return self._fail(sh, res, S.CRASH)
        return None


class _DeadWorker:
    """Placeholder for a shard that can no longer be served."""

    dead = True
    violation = False
    sock = None

    def close(self) -> None:
        pass

    def kill(self) -> None:
        pass

    def creates(self) -> int:
        return 0
