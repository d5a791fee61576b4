"""Known-equivalent and known-different pairs with exact df_score; determinism; generators;
invalid inputs; bad code."""

from __future__ import annotations

import math

import pytest

from lcl.core.errors import UserError
from lcl.engine.fuzz import LoadError, Settings, run_seed, fuzz_pair
from lcl.engine.fuzz import semantics as S
from lcl.engine.fuzz.algorithm import compute_reference, reference_key
from lcl.engine.fuzz.sandbox import CodeSpec

S3 = Settings(runs=3, run_budget=10, timeout_floor=0.5, reference_timeout=2.0)
pytestmark = pytest.mark.timeout(120)

HAS_CLOSE = '''
def has_close_elements(numbers, threshold):
    for idx, elem in enumerate(numbers):
        for idx2, elem2 in enumerate(numbers):
            if idx != idx2:
                distance = abs(elem - elem2)
                if distance < threshold:
                    return True
    return False
'''
HAS_CLOSE_SORTED = '''
def has_close_elements(numbers, threshold):
    s = sorted(numbers)
    return any(b - a < threshold for a, b in zip(s, s[1:]))
'''


def test_equivalent_function_pair_scores_one() -> None:
    inputs = [[[1.0, 2.0, 3.0], 0.5], [[1.0, 2.8, 3.0, 4.0, 5.0, 2.0], 0.3], [[], 1.0], [[1.0, 1.0], 0.1],
              [[5.0, 4.0, 3.0], 2.0]]
    res = fuzz_pair(HAS_CLOSE, HAS_CLOSE_SORTED, entry="has_close_elements", inputs=inputs, settings=S3)
    assert res.df_score == 1.0
    assert [r.verdicts for r in res.runs] == ["MMMMM"] * 3
    assert res.to_dict()["counts"]["matches"] == 15


def test_known_different_pair_exact_score() -> None:
    mutant = HAS_CLOSE.replace("distance < threshold", "distance <= threshold")
    # differs exactly when some distance equals the threshold: inputs 2 and 4 of 5
    inputs = [[[1.0, 2.0], 0.5], [[1.0, 2.0], 1.0], [[1.0, 3.0], 1.0], [[0.0, 0.5, 2.0], 0.5], [[], 0.0]]
    res = fuzz_pair(HAS_CLOSE, mutant, entry="has_close_elements", inputs=inputs, settings=S3)
    assert [r.verdicts for r in res.runs] == ["MXMXM"] * 3
    assert res.df_score == pytest.approx(0.6)
    d = res.to_dict()
    assert d["counts"] == {"matches": 9, "mismatches": 6, "timeouts": 0, "crashes": 0, "invalid": 0, "skipped": 0}
    assert d["run_scores"] == [pytest.approx(0.6)] * 3


def test_type_strict_and_exceptions() -> None:
    ref = "def f(x):\n    return x // 2\n"
    var = "def f(x):\n    return x / 2\n"  # 2 -> 1 vs 1.0: type-strict mismatch
    res = fuzz_pair(ref, var, entry="f", inputs=[[2], [4]], settings=S3)
    assert res.df_score == 0.0
    # the reference raising makes an input invalid: excluded from the denominator, never a match
    ref = "def f(x):\n    if x < 0:\n        raise ValueError('neg')\n    return x\n"
    var = "def f(x):\n    if x < 0:\n        raise ValueError('other message')\n    return x if x != 3 else 0\n"
    res = fuzz_pair(ref, var, entry="f", inputs=[[1], [-1], [3], [-2], [5]], settings=S3)
    assert res.runs[0].verdicts == "MIXIM"
    assert res.df_score == pytest.approx(2 / 3)
    assert res.to_dict()["counts"]["invalid"] == 6  # 2 per run
    # every input invalid: no run has a score -> -1
    res = fuzz_pair(ref, var, entry="f", inputs=[[-1], [-2]], settings=S3)
    assert res.df_score == -1.0 and all(r.reason == "no valid input" for r in res.runs)


def test_hanging_variant_is_bounded_by_runs_times_budget() -> None:
    import time

    s = Settings(runs=3, run_budget=0.5, timeout_floor=0.1, watchdog_factor=2, watchdog_grace=0.2)
    t = time.monotonic()
    res = fuzz_pair("def f(x):\n    return x\n", "def f(x):\n    while True: pass\n", entry="f",
                    inputs=[[i] for i in range(2000)], settings=s)
    took = time.monotonic() - t
    assert res.df_score == -1.0
    assert all(r.excluded and r.reason == "time budget exceeded" for r in res.runs)
    assert took < 3 * 0.5 + 3.0, took  # R x T plus start-up, not N x timeout


def test_default_budget_adapts_to_the_reference() -> None:
    """Default settings: T = 3 s + 5 x the reference's CPU (here ~0), so a variant hanging on
    every input costs about R x 3 s, not R x 30 s; one slow input is a verdict, not an exclusion."""
    import time

    s = Settings(runs=2)
    t = time.monotonic()
    res = fuzz_pair("def f(x):\n    return x\n", "def f(x):\n    while True: pass\n", entry="f",
                    inputs=[[i] for i in range(500)], settings=s)
    took = time.monotonic() - t
    assert res.df_score == -1.0 and all(r.reason == "time budget exceeded" for r in res.runs)
    # T = 3 s of the worker's CPU; on a busy machine a run takes longer in wall time, never more
    # than the wall cap (3 x T + 0.5 s); a fixed 30 s budget would take 60 s
    assert took < 2 * (3 * 3.0 + 0.5) + 3.0, took
    res = fuzz_pair("def f(x):\n    return x\n", "def f(x):\n    while x == 7: pass\n    return x\n", entry="f",
                    inputs=[[i] for i in range(20)], settings=s)
    assert res.df_score == pytest.approx(19 / 20) and res.to_dict()["counts"]["timeouts"] == 2


def test_slow_reference_does_not_exclude_an_identical_variant() -> None:
    """A reference needing more CPU per run than the cap leaves the variant room (T >= 2 C):
    with T capped at 0.4 s, an identical variant of a 0.45 s reference was always excluded."""
    slow = ("import time\ndef f(x):\n    t = time.process_time()\n"
            "    while time.process_time() - t < 0.15:\n        pass\n    return x\n")
    s = Settings(runs=2, run_budget=0.4, run_budget_floor=0.05, run_budget_factor=0.0, timeout_floor=1.0)
    res = fuzz_pair(slow, slow, entry="f", inputs=[[1], [2], [3]], settings=s)
    assert res.df_score == 1.0 and not any(r.excluded for r in res.runs)
    res = fuzz_pair(slow, slow, entry="f", inputs=[[1], [2], [3]], settings=s.with_(run_budget_ref_factor=0.0))
    assert res.df_score == -1.0  # the old rule: T = 0.4 s < the reference's own 0.45 s



def test_run_budget_is_cpu_time_with_a_wall_clock_cap() -> None:
    """T is charged in the variant's CPU time, so a run that waits (here sleeps 20 ms per input,
    0.6 s of wall time) is kept under T = 0.3 s; one that sleeps past the wall cap (3 x T +
    0.5 s = 1.4 s) is still stopped and excluded."""
    s = Settings(runs=1, run_budget=0.3, run_budget_floor=0.3, run_budget_factor=0.0, run_budget_ref_factor=0.0)
    ref = "def f(x):\n    return x\n"
    nap = "import time\ndef f(x):\n    time.sleep(0.02)\n    return x\n"
    res = fuzz_pair(ref, nap, entry="f", inputs=[[i] for i in range(30)], settings=s)
    assert res.df_score == 1.0 and not res.runs[0].excluded
    res = fuzz_pair(ref, nap.replace("0.02", "0.2"), entry="f", inputs=[[i] for i in range(30)], settings=s)
    assert res.df_score == -1.0 and res.runs[0].reason == "time budget exceeded"
    spin = "def f(x):\n    while True:\n        pass\n"  # CPU-bound: stopped by T itself
    res = fuzz_pair(ref, spin, entry="f", inputs=[[i] for i in range(30)], settings=s.with_(timeout_floor=0.2))
    assert res.df_score == -1.0 and res.runs[0].reason == "time budget exceeded"


def test_reference_alone_over_the_budget_excludes_the_run_without_running_the_variant() -> None:
    """Algorithm 1 times both programs with one clock: when the reference alone needs more than
    T (here 0.45 s of CPU against T = 2 x run_budget = 0.2 s), the run times out whatever the
    variant does, even a fast one, and the variant is not run at all."""
    slow = ("import time\ndef f(x):\n    t = time.process_time()\n"
            "    while time.process_time() - t < 0.15:\n        pass\n    return x\n")
    s = Settings(runs=2, run_budget=0.1, run_budget_floor=0.05, run_budget_factor=0.0, timeout_floor=1.0)
    res = fuzz_pair(slow, "def f(x):\n    return x\n", entry="f", inputs=[[1], [2], [3]], settings=s)
    assert res.df_score == -1.0
    assert all(r.excluded and r.reason == "reference alone exceeds the time budget" for r in res.runs)
    assert all(set(r.verdicts) == {S.SKIPPED} for r in res.runs)  # the variant never ran
    assert res.to_dict()["runs"][0]["counts"] is None
    # with room for the reference (T = 2 x 0.45 s), the fast variant is labelled as before
    res = fuzz_pair(slow, "def f(x):\n    return x\n", entry="f", inputs=[[1], [2], [3]],
                    settings=s.with_(run_budget=0.5))
    assert res.df_score == 1.0 and not any(r.excluded for r in res.runs)


def test_a_reference_over_every_budget_is_stopped_early_with_the_same_result() -> None:
    """``stop_over_budget``: a reference whose CPU on the inputs done so far already exceeds
    the largest T (2 x run_budget) is stopped there; the pair's result is the one the whole
    reference pass gives. CPU burnt in inputs that raise is not part of C (as in the whole pass),
    so such a reference runs to the end."""
    burn = ("import time\ndef f(x):\n    t = time.process_time()\n"
            "    while time.process_time() - t < 0.05:\n        pass\n    {}\n")
    s = Settings(runs=1, run_budget=0.1, run_budget_floor=0.05, run_budget_factor=0.0, timeout_floor=1.0)
    items = [[i] for i in range(40)]  # 2 s of reference CPU against a stop at 2 x 0.1 s
    slow = CodeSpec("function", burn.format("return x"), "f", "reference.py")
    whole = compute_reference(slow, items, s)
    part = compute_reference(slow, items, s, stop_over_budget=True)
    assert set(whole.kinds) == {S.OK} and S.NOTRUN in set(part.kinds)
    assert S.reference_over_budget(math.fsum(part.cpu), s) and sum(k == S.OK for k in part.kinds) < 20
    # the pair's result is the same whether the reference pass was whole or stopped
    pinned = {reference_key(slow, items, s): whole.to_blob()}
    res = fuzz_pair(slow.code, "def f(x):\n    return x\n", entry="f", inputs=items, settings=s)
    assert res.to_dict() == fuzz_pair(slow.code, "def f(x):\n    return x\n", entry="f", inputs=items, settings=s,
                                      ref_cache=pinned).to_dict()
    assert res.runs[0].reason == "reference alone exceeds the time budget"
    raising = CodeSpec("function", burn.format("raise ValueError(x)"), "f", "reference.py")
    out = compute_reference(raising, items[:10], s, stop_over_budget=True)
    assert set(out.kinds) == {S.EXC}  # C = 0: not over budget, so every input ran


def test_determinism_and_generator_seeds() -> None:
    seen = []

    def gen(seed: int, n: int) -> list:
        import random

        seen.append(seed)
        rnd = random.Random(seed)
        return [[rnd.randint(-50, 50)] for _ in range(n)]

    ref = "def f(x):\n    return abs(x) % 7\n"
    var = "def f(x):\n    return x % 7\n"
    a = fuzz_pair(ref, var, entry="f", generator=gen, n=200, seed=11, settings=S3)
    b = fuzz_pair(ref, var, entry="f", generator=gen, n=200, seed=11, settings=S3)
    assert a.to_dict() == b.to_dict()
    assert a.verdict_digest == b.verdict_digest
    assert seen == [run_seed(11, r) for r in range(3)] * 2
    assert a.to_dict()["seeds"] == [run_seed(11, r) for r in range(3)]
    assert len(set(a.to_dict()["inputs_digests"])) == 3  # distinct inputs per run
    assert len({r.score for r in a.runs}) > 1  # and so distinct scores
    c = fuzz_pair(ref, var, entry="f", generator=gen, n=200, seed=12, settings=S3)
    assert c.verdict_digest != a.verdict_digest
    # workers=2 splits inputs into shards; a stateless pair gives the same verdicts
    d = fuzz_pair(ref, var, entry="f", generator=gen, n=200, seed=11, settings=S3.with_(workers=2))
    assert d.verdict_digest == a.verdict_digest and d.df_score == a.df_score


def test_programs() -> None:
    ref = "n = int(input())\nprint(sum(range(n)))\n"
    var = "n = int(input())\nprint(n * (n - 1) // 2 if n < 5 else -1)\n"
    res = fuzz_pair(ref, var, stdin=True, inputs=[f"{i}\n" for i in range(10)], settings=S3)
    assert res.df_score == pytest.approx(0.5)
    bad_input = fuzz_pair(ref, ref, stdin=True, inputs=["x\n", "3\n"], settings=S3)
    assert bad_input.runs[0].verdicts == "IM" and bad_input.df_score == 1.0


def test_reference_outcomes_are_reused() -> None:
    cache: dict[str, bytes] = {}
    spec = CodeSpec("function", "def f(x):\n    return x\n", "f")
    a = compute_reference(spec, [[1], [2]], S3, ref_cache=cache)
    assert len(cache) == 1
    b = compute_reference(spec, [[1], [2]], S3, ref_cache=cache)
    assert (a.kinds, a.digests) == (b.kinds, b.digests)
    res = fuzz_pair(spec.code, "def f(x):\n    return -x\n", entry="f", inputs=[[1], [2]], settings=S3, ref_cache=cache)
    assert len(cache) == 1 and res.df_score == 0.0


@pytest.mark.parametrize("ref,var,entry,msg", [
    ("def f(x):\n  return x\n", "def f(x) return x\n", "f", "variant: unparsable code"),
    ("def f(x:\n", "def f(x):\n  return x\n", "f", "reference: unparsable code"),
    ("def g(x):\n  return x\n", "def f(x):\n  return x\n", "f", "missing entry point 'f'"),
    ("def f(x):\n  return x\n", "", "f", "variant: the code is empty"),
    ("raise ImportError('no')\ndef f(x):\n  return x\n", "def f(x):\n  return x\n", "f", "failed to load"),
])
def test_bad_code_is_a_user_error(ref: str, var: str, entry: str, msg: str) -> None:
    with pytest.raises(LoadError, match=msg):
        fuzz_pair(ref, var, entry=entry, inputs=[[1]], settings=S3)


MAIN = "def main():\n    print(int(input()) * 2)\n"


@pytest.mark.parametrize("top,runs", [
    ("", False),                                                            # the entry call was lost
    ("import sys\nsys.setrecursionlimit(10 ** 6)\ninput = sys.stdin.readline\nT = [1] * 10\n", False),
    ("main()\n", True),
    ("if __name__ == '__main__':\n    main()\n", True),
    ("import sys\nread = sys.stdin.readline\nn = int(read())\n", True),     # an alias of I/O, called
    ("print(1)\n", True),
    ("import sys\nsys.stdout.write('x')\n", True),
    ("class S:\n    pass\nS()\n", True),
])
def test_a_reference_program_that_never_runs_is_refused(top: str, runs: bool) -> None:
    import ast

    from lcl.engine.fuzz.algorithm import check_code, never_runs

    code = MAIN + top
    assert never_runs(ast.parse(code)) is not runs
    if runs:
        check_code(code, level="program", entry=None, side="reference")
    else:
        with pytest.raises(LoadError, match="the program never runs"):
            check_code(code, level="program", entry=None, side="reference")
        check_code(code, level="program", entry=None, side="variant")  # a silent mutant is a real variant


def test_bad_inputs_are_user_errors() -> None:
    with pytest.raises(UserError, match="no inputs"):
        fuzz_pair("def f(x):\n  return x\n", "def f(x):\n  return x\n", entry="f", inputs=[], settings=S3)
    with pytest.raises(UserError, match="not a list"):
        fuzz_pair("def f(x):\n  return x\n", "def f(x):\n  return x\n", entry="f", inputs=[1], settings=S3)
    with pytest.raises(UserError, match="not a string"):
        fuzz_pair("print(1)\n", "print(1)\n", stdin=True, inputs=[[1]], settings=S3)


def test_variant_failing_at_import_is_a_verdict() -> None:
    res = fuzz_pair("def f(x):\n  return x\n", "raise RuntimeError('x')\ndef f(x):\n  return x\n", entry="f",
                    inputs=[[1], [2]], settings=S3)
    assert res.df_score == 0.0 and res.variant_load == "exc"
    res = fuzz_pair("def f(x):\n  return x\n", "while True: pass\ndef f(x):\n  return x\n", entry="f",
                    inputs=[[1]], settings=S3.with_(reference_timeout=0.3, watchdog_grace=0.2))
    assert res.df_score == -1.0 and res.variant_load == "timeout"


# state a variant leaves in an imported module (here: a counter on ``math``) would carry over
# from one run to the next in a reused worker; every generated run starts in fresh workers
LEAKY = ("import math\ndef f(x):\n    math.lcl_calls = getattr(math, 'lcl_calls', 0) + 1\n"
         "    return x % 7 if math.lcl_calls <= 30 else -1\n")


def _gen40(seed: int, n: int) -> list:
    import random

    rnd = random.Random(seed)
    return [[rnd.randint(-50, 50)] for _ in range(n)]


def test_generated_runs_are_independent_and_mergeable() -> None:
    from lcl.engine.fuzz.algorithm import merge_runs

    ref = "def f(x):\n    return x % 7\n"
    whole = fuzz_pair(ref, LEAKY, entry="f", generator=_gen40, n=40, seed=5, settings=S3)
    # 30 of 40 inputs match in every run: no run inherits the previous run's counter
    assert [r.score for r in whole.runs] == [pytest.approx(0.75)] * 3
    parts = [fuzz_pair(ref, LEAKY, entry="f", generator=_gen40, n=40, seed=5, settings=S3, only_runs=[r])
             for r in (2, 0, 1)]
    assert merge_runs(parts).to_dict() == whole.to_dict()
    with pytest.raises(ValueError, match="one part per run"):
        merge_runs(parts[:2])
    with pytest.raises(UserError, match="only_runs"):
        fuzz_pair(ref, ref, entry="f", inputs=[[1]], settings=S3, only_runs=[0])
    # a variant whose load hangs: later runs are skipped, in parts as in one call
    hang = "while True: pass\ndef f(x):\n  return x\n"
    s = S3.with_(reference_timeout=0.3, watchdog_grace=0.2)
    whole = fuzz_pair(ref, hang, entry="f", generator=_gen40, n=5, seed=5, settings=s)
    parts = [fuzz_pair(ref, hang, entry="f", generator=_gen40, n=5, seed=5, settings=s, only_runs=[r])
             for r in range(3)]
    assert merge_runs(parts).to_dict() == whole.to_dict()
    assert whole.variant_load == "timeout" and whole.df_score == -1.0


def test_unseeded_random_is_deterministic_across_fork_servers() -> None:
    from lcl.engine.fuzz.sandbox import shutdown_forkservers

    spec = CodeSpec("function", "import random\ndef f(x):\n    return random.random() + x\n", "f")
    a = compute_reference(spec, [[1], [2], [3]], S3)
    shutdown_forkservers()  # the next fork-server seeds its own random state from os.urandom
    b = compute_reference(spec, [[1], [2], [3]], S3)
    assert a.kinds == b.kinds == bytes([1, 1, 1]) and a.digests == b.digests


def test_stdlib_code_runs_in_the_lean_fork_server() -> None:
    from lcl.engine.fuzz.sandbox import needs_heavy

    assert not needs_heavy("import math, os.path\nfrom collections import deque\nfrom . import x\n")
    for code in ("import numpy as np\n", "from scipy.sparse import csgraph\n", "import pandas\n",
                 "np = __import__('numpy')\n", "import importlib\n", "def f(:\n"):
        assert needs_heavy(code), code
    # a stdlib-only side and a numpy side of one pair, each in its own fork-server
    res = fuzz_pair("def f(x):\n    return x * 2\n", "import numpy as np\ndef f(x):\n    return int(np.int64(x) * 2)\n",
                    entry="f", inputs=[[1], [2], [3]], settings=S3)
    assert res.df_score == 1.0
