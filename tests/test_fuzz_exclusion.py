"""Which runs Algorithm 1 may exclude, and that no pair can end a batch.

Under ``over_budget="score"`` (the rule for untrusted candidates) a run is excluded only for
what the reference does (too slow for T on the run's inputs, no valid input, a CPU time that
cannot be a measurement); a candidate that pushes a run over T, or hangs or crashes while
loading, has its unfinished inputs counted as timeouts (crashes) and the run scored. Each
hostile case here scored better than its honest self, or ended the batch, before that rule
and the per-job boundary of ``lcl.engine.fuzz.batch``. The default, ``"exclude"``, is the
paper's Algorithm 1 (a run over T is excluded, whichever program made it so): the labels of
LoCaL keep it, and a test here shows what it still lets a candidate do.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from lcl.core.errors import UserError
from lcl.engine.fuzz import Settings, batch, fuzz_pair
from lcl.engine.fuzz import semantics as S
from lcl.engine.fuzz.algorithm import ReferenceOutcomes, inputs_digest, reference_key
from lcl.engine.fuzz.batch import fuzz_jobs
from lcl.engine.fuzz.sandbox import CodeSpec, Executor
from lcl.engine.fuzz.store import ResultStore

pytestmark = pytest.mark.timeout(60)

REF = "def f(x):\n    return x\n"
#: T = 0.3 s of CPU whatever the reference needs; a per-input timeout (1 s) longer than T, so a
#: candidate that spins on one input pushes the whole run over T before that input times out
TIGHT = Settings(runs=2, run_budget=0.3, run_budget_floor=0.3, run_budget_factor=0.0, run_budget_ref_factor=0.0,
                 timeout_floor=1.0, timeout_cap=1.0, reference_timeout=1.0, watchdog_factor=2.0, watchdog_grace=0.2,
                 over_budget="score")
#: spins (burns CPU past T) exactly on the input that would show its bug (x < 0 returns 0)
SPIN_ON_BUG = "def f(x):\n    if x < 0:\n        while True:\n            pass\n    return x\n"
HONEST_BUG = "def f(x):\n    if x < 0:\n        return 0\n    return x\n"


def bug_in_first_run(seed: int, n: int) -> list[list[int]]:
    """Run 0's inputs hold one that exposes the bug (-1, last); the other runs' do not."""
    items = [[i + 1] for i in range(n)]
    if seed == S.run_seed(0, 0):
        items[-1] = [-1]
    return items


# ------------------------------------------------------------------------ candidate over T
def test_spinning_on_the_bug_in_generated_runs_is_scored_not_excluded() -> None:
    s = TIGHT.with_(runs=3)
    honest = fuzz_pair(REF, HONEST_BUG, entry="f", generator=bug_in_first_run, n=5, settings=s)
    assert honest.runs[0].verdicts == "MMMMX" and honest.df_score == pytest.approx((0.8 + 1 + 1) / 3)
    res = fuzz_pair(REF, SPIN_ON_BUG, entry="f", generator=bug_in_first_run, n=5, settings=s)
    first = res.runs[0]
    # the inputs whose outcomes the harness did not collect before it stopped the run (here the
    # whole chunk in flight) are timeouts: never better than the honest bug's 0.8
    assert not first.excluded and first.verdicts[-1] == S.VTIMEOUT and set(first.verdicts) <= {S.MATCH, S.VTIMEOUT}
    assert first.score is not None and first.score <= 0.8
    assert res.df_score <= honest.df_score  # not 1.0: the bug's run is kept
    assert [r.score for r in res.runs[1:]] == [1.0, 1.0]
    assert res.to_dict()["runs"][0]["counts"] is not None


def test_the_papers_rule_excludes_a_run_the_candidate_pushes_over_budget() -> None:
    """The default rule (Algorithm 1: ``if now() - t0 > T ... continue``) excludes the run in
    which the candidate spins: the candidate then chooses which runs count (1.0 instead of the
    honest bug's mean), which is why untrusted candidates are fuzzed with ``score``."""
    s = TIGHT.with_(runs=3, over_budget="exclude")
    res = fuzz_pair(REF, SPIN_ON_BUG, entry="f", generator=bug_in_first_run, n=5, settings=s)
    assert res.runs[0].excluded and res.runs[0].reason == S.OVER_BUDGET
    assert res.df_score == 1.0
    assert "over_budget" not in res.to_dict()["settings"]  # the default is recorded as before
    assert TIGHT.to_dict()["over_budget"] == "score"


def test_spinning_on_the_bug_in_explicit_runs_is_scored_not_excluded() -> None:
    inputs = [[1], [2], [-1]]
    honest = fuzz_pair(REF, HONEST_BUG, entry="f", inputs=inputs, settings=TIGHT)
    assert honest.df_score == pytest.approx(2 / 3)
    res = fuzz_pair(REF, SPIN_ON_BUG, entry="f", inputs=inputs, settings=TIGHT)
    assert 0.0 <= res.df_score <= 2 / 3  # not -1
    assert all(not r.excluded and r.verdicts[-1] == S.VTIMEOUT for r in res.runs)


def test_inputs_never_reached_count_as_timeouts() -> None:
    """A candidate over T on its first input: that input and every later one are timeouts
    (the invalid input stays invalid), so the run scores 0, not -1."""
    ref = "def f(x):\n    if x == 0:\n        raise ValueError\n    return x\n"
    res = fuzz_pair(ref, "def f(x):\n    while True:\n        pass\n", entry="f", inputs=[[1], [0], [2], [3]],
                    settings=TIGHT.with_(runs=1))
    assert res.runs[0].verdicts == "TITT" and res.df_score == 0.0


def test_spinning_at_import_is_scored() -> None:
    """A load that hangs is every input's timeout: scored 0, in every run, not -1."""
    wrong = "while True:\n    pass\ndef f(x):\n    return x if x % 4 == 0 else -x\n"
    s = TIGHT.with_(reference_timeout=0.5)
    res = fuzz_pair(REF, wrong, entry="f", inputs=[[i] for i in range(4)], settings=s)
    assert res.variant_load == "timeout"
    assert res.df_score == 0.0 and all(not r.excluded and set(r.verdicts) == {S.VTIMEOUT} for r in res.runs)
    gen = fuzz_pair(REF, wrong, entry="f", generator=bug_in_first_run, n=4, settings=s)
    assert gen.df_score == 0.0 and all(not r.excluded for r in gen.runs)


def test_split_runs_after_a_load_timeout_merge_as_fuzz_pair_scores_them() -> None:
    """``merge_runs`` gives the result of ``fuzz_pair`` for all runs at once, load hang included."""
    from lcl.engine.fuzz.algorithm import merge_runs

    wrong = "while True:\n    pass\ndef f(x):\n    return x\n"
    s = TIGHT.with_(reference_timeout=0.5)
    whole = fuzz_pair(REF, wrong, entry="f", generator=bug_in_first_run, n=3, settings=s)
    parts = [fuzz_pair(REF, wrong, entry="f", generator=bug_in_first_run, n=3, settings=s, only_runs=[r])
             for r in range(s.runs)]
    assert merge_runs(parts).to_dict() == whole.to_dict()


CRASH_AFTER_NAP = "import time, faulthandler\ntime.sleep(0.3)\ndef f(x):\n    faulthandler._sigsegv()\n"


def test_sleeping_at_import_and_crashing_on_every_input_is_scored() -> None:
    """Every input crashes and every replacement worker sleeps while loading, past the wall cap
    (2 x T + 0.2 s = 0.8 s): the run is stopped and scored 0 (crashes, then timeouts)."""
    res = fuzz_pair(REF, CRASH_AFTER_NAP, entry="f", inputs=[[i] for i in range(8)], settings=TIGHT.with_(runs=1))
    run = res.runs[0]
    assert not run.excluded and res.df_score == 0.0
    assert set(run.verdicts) <= {S.VCRASH, S.VTIMEOUT} and run.verdicts[0] == S.VCRASH


def test_sleeping_at_import_cannot_stretch_a_run_past_its_wall_cap() -> None:
    """Each replacement worker sleeps 1.5 s while loading; the run's wall cap is 0.8 s."""
    s = TIGHT.with_(runs=1)
    code = CRASH_AFTER_NAP.replace("0.3", "1.5")
    with Executor(CodeSpec("function", code, "f", "variant.py"), s) as ex:
        ex.set_inputs([[i] for i in range(4)])
        res = ex.run_pass([1.0] * 4, 0.3, 5.0)
    assert res.exceeded and res.elapsed < S.run_wall_cap(0.3, s) + 0.5, res.elapsed


# ------------------------------------------------------------------------ what still excludes
def test_an_honest_reference_over_the_budget_still_excludes_the_run() -> None:
    slow = ("import time\ndef f(x):\n    t = time.process_time()\n"
            "    while time.process_time() - t < 0.25:\n        pass\n    return x\n")
    s = TIGHT.with_(run_budget=0.2, run_budget_floor=0.2)  # the reference needs 0.5 s > 2 x 0.2 s
    res = fuzz_pair(slow, SPIN_ON_BUG, entry="f", inputs=[[1], [-1]], settings=s)
    assert res.df_score == -1.0
    assert all(r.excluded and r.reason == S.REFERENCE_OVER_BUDGET for r in res.runs)


@pytest.mark.parametrize("cpu", [[math.inf, -math.inf], [math.nan, 0.0], [-1.0, 0.0], [math.inf, 0.0]])
def test_a_reference_charge_that_is_no_measurement_excludes_the_run(cpu: list[float]) -> None:
    """The reference is trusted code, its measurement is not: a CPU time that is not finite and
    non-negative excludes the run (with its reason) instead of raising out of the pair."""
    items = [[1], [2]]
    spec = CodeSpec("function", REF, "f", "reference.py")
    ref = ReferenceOutcomes(bytes([S.OK, S.OK]), S.output_digest(1) + S.output_digest(2), cpu)
    pinned = {reference_key(spec, items, TIGHT, inputs_digest(items)): ref.to_blob()}
    res = fuzz_pair(REF, REF, entry="f", inputs=items, settings=TIGHT, ref_cache=pinned)
    assert res.df_score == -1.0
    assert all(r.excluded and r.reason == S.REFERENCE_UNMEASURED for r in res.runs)
    json.dumps(res.to_dict(), allow_nan=False)  # a storable result


# ------------------------------------------------------------------------ no row ends a batch
ROWS = [{"id": f"p{k}", "reference": REF, "variant": v, "entry": "f", "inputs": [[1], [2], [3]]}
        for k, v in enumerate([REF, HONEST_BUG, "def f(x):\n    return -x\n"])]
FAST = Settings(runs=2, run_budget=5, timeout_floor=0.2)


def _explode_on(pair_id: str, monkeypatch: pytest.MonkeyPatch, exc: BaseException) -> None:
    """Make fuzzing the pair ``pair_id`` raise ``exc`` (as a harness bug would)."""
    real = fuzz_jobs.fuzz_pair

    def fake(*args: Any, **kw: Any) -> Any:
        if kw.get("label") == f"pair {pair_id}":
            raise exc
        return real(*args, **kw)

    monkeypatch.setattr(fuzz_jobs, "fuzz_pair", fake)


@pytest.mark.parametrize("jobs", [1, 2])
def test_an_exception_in_one_job_is_that_pairs_error_row(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                         jobs: int) -> None:
    _explode_on("p1", monkeypatch, KeyError("stop_at"))
    with ResultStore(tmp_path / "st.sqlite") as st:
        out = batch.run_batch(ROWS, tmp_path / "out.jsonl", settings=FAST, store=st, progress=False, jobs=jobs,
                              keep_going=True)
    assert [r["id"] for r in out] == ["p0", "p1", "p2"]
    assert out[0]["df_score"] == 1.0 and out[2]["df_score"] == 0.0
    err = out[1]["error"]
    assert out[1]["df_score"] is None and "pair p1" in err and "KeyError" in err and "\n" not in err
    assert len((tmp_path / "out.jsonl").read_text().splitlines()) == 3


@pytest.mark.parametrize("jobs", [1, 2])
def test_without_keep_going_an_exception_is_one_line_naming_the_pair(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                     jobs: int) -> None:
    _explode_on("p1", monkeypatch, ValueError("-inf + inf in fsum"))
    with ResultStore(tmp_path / "st.sqlite") as st:
        with pytest.raises(UserError) as info:
            batch.run_batch(ROWS, tmp_path / "out.jsonl", settings=FAST, store=st, progress=False, jobs=jobs)
        msg = str(info.value)
        assert "pair p1" in msg and "ValueError" in msg and "\n" not in msg
        # the pairs that finished are kept: a rerun (here with the bug gone) resumes
        monkeypatch.undo()
        again = batch.run_batch(ROWS, tmp_path / "out.jsonl", settings=FAST, store=st, progress=False, jobs=1)
    assert [r["df_score"] for r in again] == [1.0, pytest.approx(1.0), 0.0]


def test_a_reference_job_that_raises_is_an_error_row(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(*args: Any, **kw: Any) -> Any:
        raise OverflowError("cannot convert float infinity to integer")

    monkeypatch.setattr(fuzz_jobs, "compute_reference", boom)
    with ResultStore(tmp_path / "st.sqlite") as st:
        out = batch.run_batch(ROWS[:1], tmp_path / "out.jsonl", settings=FAST, store=st, progress=False, jobs=1,
                              keep_going=True)
    assert out[0]["df_score"] is None and "OverflowError" in out[0]["error"] and "pair p0" in out[0]["error"]


def test_a_store_that_refuses_one_row_does_not_end_the_batch(tmp_path: Path) -> None:
    class Picky(ResultStore):
        def put(self, key: str, pair_id: str, result: S.FuzzResult) -> None:
            if pair_id == "p1" and result.get("error") is None:
                raise ValueError("Out of range float values are not JSON compliant")
            super().put(key, pair_id, result)

    with Picky(tmp_path / "st.sqlite") as st:
        out = batch.run_batch(ROWS, tmp_path / "out.jsonl", settings=FAST, store=st, progress=False, jobs=1,
                              keep_going=True)
    assert out[0]["df_score"] == 1.0 and out[2]["df_score"] == 0.0
    assert out[1]["df_score"] is None and "ValueError" in out[1]["error"]
