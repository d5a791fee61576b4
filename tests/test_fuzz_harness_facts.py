"""The harness decides from kernel facts, not from what a candidate writes: which input is
running (its records and tick counter are the candidate's to forge), what a load did (its
reply is the candidate's to forge), what a reply means (extra frames, a ``restart`` after a
stop) and what an input cost (a reference's charges). Each test is one attack, run through
the real engine, bounded (a few seconds of CPU, a few MiB, no connection outside the
worker's own socket)."""

from __future__ import annotations

import math

import pytest

from lcl.engine.fuzz import fuzz_pair
from lcl.engine.fuzz import sandbox as SB

# the boundary tests' settings and pair: the same protocol, attacked from the other side
from tests.test_fuzz_boundary import FAST, INPUTS, REF

pytestmark = pytest.mark.timeout(90)

#: what a candidate finds in its own process: the worker object (its socket, shared memory and
#: layout), the worker's timer state, the chunk request being served, and a way to send a frame
_REACH = (
    "import gc, pickle, socket, struct, sys, time\n"
    "def _worker():\n"
    "    for o in gc.get_objects():\n"
    "        if type(o).__name__ == '_Worker' and hasattr(o, 'lay'):\n"
    "            return o\n"
    "_W = _worker()\n"
    "_ST = sys.modules['lcl.engine.fuzz.sandbox.worker']._ST\n"
    "def _msg():\n"
    "    fr = sys._getframe(1)\n"
    "    while fr is not None:\n"
    "        m = fr.f_locals.get('msg')\n"
    "        if type(m) is dict and m.get('op') == 'chunk':\n"
    "            return m\n"
    "        fr = fr.f_back\n"
    "def _send(payload):\n"
    "    _W.sock.sendall(struct.pack('<I', len(payload)) + payload)\n"
    "def _spin(seconds, during=None):\n"
    "    t = time.process_time() + seconds\n"
    "    while time.process_time() < t:\n"
    "        if during is not None:\n"
    "            during()\n"
)


def _verdicts(res) -> str:
    return "".join(r.verdicts for r in res.runs)


# ---------------------------------------------------------------- which input is running
def test_forged_records_and_ticks_do_not_hide_timeouts() -> None:
    """A correct variant that needs 4x its timeout on every input marks every slot of its
    chunk finished and resets its tick counter, so no input ever looks in flight: the kernel's
    CPU time of the chunk still exceeds the sum of its timeouts, and one input per request
    then names the input that used it."""
    var = _REACH + (
        "def _hide():\n"
        "    k0, n = _W.lay[0], _W.cfg['slots']\n"
        "    _W.shm[k0:k0 + n] = b'\\x01' * n\n"
        "    _ST.start = _ST.ticks\n"
        "    _ST.hdr[1] = 0\n"
        "    _ST.hdr[2] = 0\n"
        "def f(x):\n"
        "    _spin(0.8, _hide)\n"
        "    return x * 2\n")
    res = fuzz_pair(REF, var, entry="f", inputs=INPUTS, settings=FAST)
    assert _verdicts(res) == "TTT"


def test_inputs_are_not_readable_while_the_module_loads() -> None:
    """The inputs are sent only once the harness has the load's reply: a variant that peeks at
    its socket during import (CPU no input is charged with) finds nothing to precompute."""
    var = _REACH + (
        "def _peek():\n"
        "    end = time.monotonic() + 1.0\n"
        "    while time.monotonic() < end:\n"
        "        try:\n"
        "            data = _W.sock.recv(1 << 20, socket.MSG_PEEK | socket.MSG_DONTWAIT)\n"
        "        except BlockingIOError:\n"
        "            data = b''\n"
        "        if len(data) >= 4 and len(data) >= 4 + struct.unpack('<I', data[:4])[0]:\n"
        "            msg = pickle.loads(data[4:4 + struct.unpack('<I', data[:4])[0]])\n"
        "            if msg.get('op') == 'inputs':\n"
        "                return msg['blobs']\n"
        "        time.sleep(0.01)\n"
        "    return []\n"
        "_ANS = {}\n"
        "for _b in _peek():\n"
        "    _a = pickle.loads(_b)\n"
        "    _spin(0.8)\n"
        "    _ANS[_a] = _a[0] * 2\n"
        "def f(x):\n"
        "    if (x,) in _ANS:\n"
        "        return _ANS[(x,)]\n"
        "    _spin(0.8)\n"
        "    return x * 2\n")
    res = fuzz_pair(REF, var, entry="f", inputs=[[1], [2]], settings=FAST)
    assert _verdicts(res) == "TT"


def test_load_cpu_is_charged_to_the_run() -> None:
    """CPU a module uses while it loads counts in the run's CPU (what the budget T is charged)."""
    code = "import time\n_t = time.process_time() + 0.5\nwhile time.process_time() < _t:\n    pass\n" + REF
    with SB.Executor(SB.CodeSpec("function", code, "f"), FAST) as ex:
        ex.set_inputs([[1]])
        res = ex.run_pass([0.2], 5.0, 2.0)
    assert res.load.status == "ok"
    assert res.cpu >= 0.4, res.cpu


# ---------------------------------------------------------------- the load result is the harness's
@pytest.mark.parametrize("status", ["syntax", "noentry"])
def test_forged_load_status_is_a_crash(status: str) -> None:
    """A module that parses and defines its entry point, and sends its own 'syntax' / 'noentry'
    reply while it loads, is not an unparsable pair (an error with no score): the harness
    checked both on the source, so the worker is lying and its load is a crash."""
    var = _REACH + f"_send(b'{{\"status\": \"{status}\", \"detail\": \"forged\"}}')\n" + REF
    res = fuzz_pair(REF, var, entry="f", inputs=INPUTS, settings=FAST)  # must not raise
    assert res.variant_load == "crash"


# ---------------------------------------------------------------- no reply takes a pass down
def test_restart_after_a_stop_is_a_timeout() -> None:
    """The watchdog asks an input to stop; the variant answers with a legal 'restart' reply
    (records complete up to that input). The stopped input is a timeout and the pass goes on."""
    var = _REACH + (
        "def f(x):\n"
        "    if x == 2:\n"
        "        m = _msg()\n"
        "        while True:\n"
        "            try:\n"
        "                while True:\n"
        "                    pass\n"
        "            except BaseException:\n"
        "                _send(('{\"done\": %d, \"status\": \"restart\", \"seq\": %d}'\n"
        "                       % (m['start'] + 1, m['seq'])).encode())\n"
        "    return x * 2\n")
    res = fuzz_pair(REF, var, entry="f", inputs=INPUTS, settings=FAST)  # must not raise
    assert _verdicts(res) == "MTM"


def test_reference_charges_are_finite_and_not_negative() -> None:
    """A reference whose per-input CPU charges come back as +inf / -inf / NaN / negative (its
    clock patched at import): every charge the executor returns is finite and >= 0, and the
    pair ends with a result."""
    ref = ("import time\n_v = iter([0.0, float('inf'), float('-inf'), float('nan'), -5.0] + [0.0] * 100)\n"
           "time.process_time = lambda: next(_v)\n" + REF)
    spec = SB.CodeSpec("function", ref, "f")
    with SB.Executor(spec, FAST) as ex:
        ex.precise = True
        ex.single_pass = True
        ex.set_inputs([[1], [2], [3], [4]])
        res = ex.run_pass([2.0] * 4, float("inf"), 2.0)
    assert all(math.isfinite(c) and c >= 0.0 for c in res.charges), list(res.charges)
    fuzz_pair(ref, REF, entry="f", inputs=[[1], [2], [3], [4]], settings=FAST)  # must not raise


def _race(write_record_first: bool) -> str:
    """A variant that sends an accurate copy of the reply to its chunk while its last input is
    in flight. ``write_record_first``: it writes that input's record itself first and returns at
    once (the harness reads the frame after the record, as when it reads the frame late);
    otherwise it waits before returning (the harness reads the frame before the record)."""
    own = ("        j = m['base'] + (x - 1 - m['start'])\n"
           "        S = sys.modules['lcl.engine.fuzz.semantics']\n"
           "        k0, d0 = _W.lay[0], _W.lay[1]\n"
           "        _W.shm[d0 + 16 * j:d0 + 16 * j + 16] = S.output_digest(x * 2)\n"
           "        _W.shm[k0 + j] = 1\n") if write_record_first else ""
    var = _REACH + (
        "def f(x):\n"
        "    if x == 3:\n"
        "        m = _msg()\n" + own +
        "        _send(('{\"done\": %d, \"status\": \"done\", \"seq\": %d}' % (m['end'], m['seq'])).encode())\n"
        + ("" if write_record_first else "        time.sleep(0.3)\n") +
        "    return x * 2\n")
    return _verdicts(fuzz_pair(REF, var, entry="f", inputs=INPUTS, settings=FAST.with_(runs=2)))


def test_extra_reply_frame_is_judged_whatever_the_timing() -> None:
    """One extra, accurate reply frame: whether the harness reads it before or after the last
    record is written, the verdicts are the same (the input that sent it fails)."""
    early, late = _race(False), _race(True)
    assert early == late == "MMC" * 2, (early, late)
