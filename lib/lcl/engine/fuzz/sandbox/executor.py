"""The executor: runs one piece of code over a list of inputs in sandboxed workers, one per
shard, and is the watchdog. It polls the workers' records while it waits, so it knows the
input in flight: on a missed wall-clock deadline it SIGKILLs the worker (``pidfd_send_signal``),
records TIMEOUT, re-forks, reloads and continues with the next input; on EOF (the worker died)
it records CRASH the same way. It charges the run's budget T in the workers' CPU time
(Algorithm 1 of the paper; ``docs/FUZZING.md``).

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
from .protocol import H_SLOT, H_STOP, H_TICKS, POLL, TICK, Aborted, ChunkRequest, Reply, SandboxError, WorkerConfig
from .worker_handle import Worker

#: statuses a worker may answer a load with; ``timeout`` only when the kernel agrees
_LOAD_STATUSES = frozenset({"ok", "exc", "timeout", "syntax", "noentry"})


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

    @property
    def worker(self) -> Worker:
        """The live worker: a shard with chunks in flight has one."""
        w = self.w
        assert isinstance(w, Worker)
        return w


#: a worker being started (:meth:`Executor._begin_start`): the worker, its load timeout, the
#: (inputs version, lo, hi) of its shard, whether the inputs were sent, and the failure if any
_Started = tuple[Worker, float, tuple[int, int, int], bool, LoadStatus | None]


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
               hi: int | None = None) -> tuple[Worker | None, LoadStatus]:
        """A worker with the code freshly loaded (a new module object) and the inputs
        ``lo..hi`` (its shard). ``reuse`` is a live worker from the previous run of this executor."""
        return self._finish_start(self._begin_start(load_timeout, reuse, lo, hi))

    def _begin_start(self, load_timeout: float, reuse: Worker | None, lo: int, hi: int | None) -> _Started:
        """Send the load (and, pipelined behind it, the shard's inputs) without waiting, so the
        workers of a pass load in parallel; :meth:`_finish_start` collects the replies."""
        hi = len(self.blobs) if hi is None else hi
        if reuse is not None and (reuse.dead or reuse.pending()):
            reuse.close()
            reuse = None
        w = reuse if reuse is not None else self._spawn()
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

    def _spawn(self) -> Worker:
        try:
            return self.fs.spawn(self._cfg(), 2 * self.slots)
        except (OSError, EOFError, SandboxError) as exc:
            raise ForkServerDied(f"fork-server: {exc}") from None

    def _check_forkserver(self) -> None:
        """A worker died: if its fork-server is gone, that (not the code) is why."""
        if not self.fs.alive():
            raise ForkServerDied("the fork-server died during a pass")

    def _finish_start(self, started: _Started) -> tuple[Worker | None, LoadStatus]:
        w, load_timeout, tag, send_inputs, failed = started
        if failed is not None:
            self._check_forkserver()
            return None, failed
        try:
            reply = w.recv_blocking(S.wall_deadline(load_timeout, self.s) + 5)
            if reply is None:
                st = "crash" if w.dead else "timeout"
                w.close()
                if st == "crash":
                    self._check_forkserver()
                return None, LoadStatus(st)
            status = reply.get("status")
            if status == "timeout":  # the worker's timer fired: only believed if the kernel saw the CPU
                cpu = proc_cpu(w.pid)
                if cpu is None or cpu < 0.9 * load_timeout:
                    status = "crash"
            if status != "ok" or status not in _LOAD_STATUSES:
                w.close()
                if status not in _LOAD_STATUSES:
                    return None, LoadStatus("crash", "the worker broke the protocol")
                return None, LoadStatus(str(status), str(reply.get("detail", ""))[:500])
            if send_inputs:
                ack = w.recv_blocking(60)
                if ack is None or ack != {"status": "ok"} or not w.sent():
                    w.close()
                    self._check_forkserver()
                    return None, LoadStatus("crash", "worker died while receiving inputs")
                w.inputs_version = tag
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
            started = [self._begin_start(load_timeout, live[k] if k < len(live) else None, lo, hi)
                       for k, (lo, hi) in enumerate(bounds)]
        for k, (lo, hi) in enumerate(bounds):
            w, load = self._finish_start(started[k])
            if w is None:
                for sh in shards:
                    sh.w.close()
                for other in started[k + 1:]:
                    other[0].close()
                res.load = load
                return res
            shards.append(_Shard(w, lo, hi, lo))
        t0 = time.monotonic()  # Algorithm 1's t0: the run's workers are ready
        wall_cap = S.run_wall_cap(budget, s)
        self._deadline = t0 + wall_cap
        for sh in shards:
            sh.q = collections.deque()  # chunks sent, oldest first (at most 2: a pipeline)
            sh.half = 0
            sh.cpu_done = 0.0  # CPU of this shard's earlier workers in this run
            sh.seq = 0
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
                    while len(sh.q) < 2 and sh.next < sh.hi and not sh.w.dead:
                        self._dispatch(sh, timeouts)
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
                    w = sh.worker
                    if w.read_available():
                        while sh.q and sh.w is w:
                            frame = w._take_frame()
                            if frame is None:
                                break
                            self._finish_chunk(sh, frame, res)
                        if sh.w is w and not w.dead and not sh.q and w.buf:
                            w.violation = True  # a frame nobody asked for: not reused
                        if not w.dead:
                            continue
                    if sh.q and sh.w is w:
                        self._fail(sh, res, S.CRASH)
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

    def _dispatch(self, sh: _Shard, timeouts: list[float]) -> None:
        start = sh.next
        end = min(sh.hi, start + self.slots)
        base = sh.half * self.slots
        sh.half ^= 1
        w = sh.worker
        k0, _, c0, _ = w.lay
        w.shm[k0 + base:k0 + base + end - start] = bytes(end - start)
        w.shm[c0 + 8 * base:c0 + 8 * (base + end - start)] = bytes(8 * (end - start))
        sh.seq += 1
        msg: ChunkRequest = {"op": "chunk", "start": start, "end": end, "base": base, "seq": sh.seq}
        try:
            w.send(msg)
        except OSError:
            w.dead = True
        first = not sh.q
        sh.q.append(_Chunk(start, end, base, sh.seq, seen=0, seen_at=time.monotonic(), started=first,
                           cpu_at=sh.cpu_now))
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
        if not self.precise:
            kinds = self._timeouts_of(start, kinds, ch)
        res.kinds[start:upto] = kinds
        res.digests[16 * start:16 * upto] = digests
        res.charges[start:upto] = ch

    def _timeouts_of(self, start: int, kinds: bytes, ticks: array.array) -> bytes:
        """A variant's kinds with TIMEOUT wherever the input used more CPU ticks than its
        timeout allows (the rule its in-worker timer applied when it knew the timeout) or
        was stopped by the watchdog; ``ticks`` become seconds."""
        stopped = self._stopped
        if (not ticks or max(ticks) == 0) and not stopped:
            return kinds
        out = bytearray(kinds)
        lim = self._limits
        for k, used in enumerate(ticks):
            if used and used > lim[start + k]:
                out[k] = S.TIMEOUT
            ticks[k] = used * TICK
        for i in stopped:
            if start <= i < start + len(out):
                out[i - start] = S.TIMEOUT
        return bytes(out)

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

    def _finish_chunk(self, sh: _Shard, frame: Reply, res: PassResult) -> None:
        """A worker's reply to the oldest chunk in flight."""
        c = sh.q.popleft()
        if sh.q and not sh.q[0].started:
            sh.q[0].started = True
            sh.q[0].seen_at = time.monotonic()
        start, end = c.start, c.end
        w = sh.worker
        done, status = frame.get("done"), frame.get("status")
        complete = start + w.completed(end - start, 0, c.base)
        # the only true replies: every record up to ``done`` written and none after it; all of
        # the chunk unless the worker asks to be replaced. Anything else is a lie about the
        # input in flight, which then fails (CRASH) in a worker that is replaced.
        if (frame.get("seq") != c.seq or type(done) is not int or done != complete
                or status not in ("done", "restart") or (status == "done" and done != end)):
            sh.q.appendleft(c)
            w.violation = True
            self._fail(sh, res, S.CRASH)
            return
        self._collect(sh, res, c, done)
        for word in (H_STOP, H_SLOT):  # hints and requests about this chunk's slots are spent
            if c.base <= w.header(word) - 1 < c.base + end - start:
                w.set_header(word, 0)
        over = w.creates() > 0 and dir_size(self.tmpdir) > self.s.dir_bytes
        if over:
            wipe_dir(self.tmpdir)
        if over or status != "done" or done < end:
            # the worker must not go on: drop what it may have started of the next chunk and
            # continue from ``done`` in a fresh worker
            sh.q.clear()
            sh.next = done
            self._respawn(sh, res)

    @staticmethod
    def _cpu_start(sh: _Shard) -> None:
        w = sh.w
        sh.cpu0 = proc_cpu(w.pid) if isinstance(w, Worker) else None

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
        """CPU seconds the run's workers have used since t0 (wall seconds where /proc is missing)."""
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
        if sh.next >= sh.hi:
            sh.w = _DeadWorker()
            return
        w, _load = self._start(self._load_timeout, None, sh.lo, sh.hi)
        res.restarts += 1
        if w is None:
            # it loaded before but not now (e.g. it depends on files it wrote): the rest of
            # the shard counts as crashed
            sh.w = _DeadWorker()
            for i in range(sh.next, sh.hi):
                res.kinds[i] = S.CRASH
            sh.next = sh.hi
            return
        sh.w = w
        self._cpu_start(sh)

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
        if w.creates() and dir_size(self.tmpdir) > self.s.dir_bytes:
            wipe_dir(self.tmpdir)
        self._respawn(sh, res)

    def _watch(self, sh: _Shard, res: PassResult, timeouts: list[float], now: float) -> None:
        """Watchdog, called on every poll for a worker with chunks in flight. The input in
        flight is stopped once it has used more CPU than its timeout: by the ticks its timer
        publishes (a hint, exact for honest code) or by what the kernel says the worker used
        since the harness first saw the input in flight (a lower bound nothing in the worker
        can lower); it is killed if it goes on regardless, or at the wall-clock deadline."""
        w = sh.worker
        sh.wake = POLL
        if w.dead:
            return self._fail(sh, res, S.CRASH)
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
                if c.stop_at is None:  # stopped in a worker since replaced, which this chunk does not record
                    raise KeyError("stop_at")  # (what the chunk's dict raised here before it was a _Chunk)
                if now - c.stop_at > self.s.watchdog_grace:  # it ignores the request
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
