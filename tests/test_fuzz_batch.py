"""CLI (lcl fuzz pair|batch), the resumable store, kill -9 + resume, local pool vs Dask."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from lcl.cli.fuzz import register
from lcl.core.errors import UserError
from lcl.engine.fuzz import Settings, batch
from lcl.engine.fuzz.store import ResultStore

ROOT = Path(__file__).resolve().parents[1]
PY = sys.executable
pytestmark = pytest.mark.timeout(180)

REF = "def f(x, y):\n    return x + y\n"
VARIANTS = [
    "def f(x, y):\n    return x + y\n",
    "def f(x, y):\n    return y + x\n",
    "def f(x, y):\n    return x - y\n",
    "def f(x, y):\n    return x + y if x % 3 else x * y\n",
    "def f(x, y):\n    while x == 4: pass\n    return x + y\n",
    "import faulthandler\ndef f(x, y):\n    if y == 1: faulthandler._sigsegv()\n    return x + y\n",
]
PROG_REF = "a, b = map(int, input().split())\nprint(a + b)\n"
PROG_VAR = "a, b = map(int, input().split())\nprint(a + b if a < 3 else a)\n"
FAST_ARGS = ["--runs", "2", "--budget", "5", "--timeout-floor", "0.2"]


def _cli(*args: str, cwd: Path | None = None, env: dict | None = None) -> subprocess.CompletedProcess:
    e = dict(os.environ, **(env or {}))
    return subprocess.run([PY, "-c", "import sys; from lcl.cli import main; sys.exit(main(sys.argv[1:]))", *args],
                          capture_output=True, text=True, cwd=cwd, env=e, timeout=170)


def _main(*args: str) -> int:
    """In-process call through the fuzz group only (independent of other command modules)."""
    import argparse

    parser = argparse.ArgumentParser(prog="lcl")
    sub = parser.add_subparsers(dest="command")
    register(sub)
    ns = parser.parse_args(list(args))
    try:
        return int(ns.func(ns) or 0)
    except UserError as exc:
        print(f"lcl {ns.command}: error: {exc}", file=sys.stderr)
        return 2


def _pairs(tmp: Path, n_inputs: int = 12, extra: list[dict] | None = None) -> Path:
    rows = []
    inputs = [[i, i % 4] for i in range(n_inputs)]
    for k, v in enumerate(VARIANTS):
        rows.append({"id": f"fn{k}", "reference": REF, "variant": v, "entry": "f", "inputs": inputs})
    (tmp / "prog_inputs.jsonl").write_text("".join(json.dumps(f"{i} {i + 1}\n") + "\n" for i in range(6)))
    (tmp / "ref.py").write_text(PROG_REF)
    rows.append({"id": "prog0", "reference_file": "ref.py", "variant": PROG_VAR, "stdin": True,
                 "inputs_file": "prog_inputs.jsonl"})
    rows += extra or []
    p = tmp / "pairs.jsonl"
    p.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return p


# ------------------------------------------------------------------------------ lcl fuzz pair
def test_cli_pair_json(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    (tmp_path / "a.py").write_text(REF)
    (tmp_path / "b.py").write_text(VARIANTS[3])
    (tmp_path / "in.jsonl").write_text("".join(json.dumps([i, 2]) + "\n" for i in range(1, 7)))
    rc = _main("fuzz", "pair", "--reference", str(tmp_path / "a.py"), "--variant", str(tmp_path / "b.py"),
               "--entry", "f", "--inputs", str(tmp_path / "in.jsonl"), "--json", *FAST_ARGS)
    assert rc == 0
    last = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert last["df_score"] == pytest.approx(4 / 6)  # x = 3 and 6 differ
    assert last["run_scores"] == [pytest.approx(4 / 6)] * 2
    for k in ("matches", "mismatches", "timeouts", "crashes", "invalid"):
        assert k in last["counts"]
    assert len(last["verdict_digest"]) == 64 and last["n"] == 6 and len(last["seeds"]) == 2


def test_cli_pair_program_and_n(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    (tmp_path / "a.py").write_text(PROG_REF)
    (tmp_path / "b.py").write_text(PROG_VAR)
    (tmp_path / "in.jsonl").write_text("".join(json.dumps(f"{i} 1\n") + "\n" for i in range(6)))
    rc = _main("fuzz", "pair", "--reference", str(tmp_path / "a.py"), "--variant", str(tmp_path / "b.py"),
               "--stdin", "--inputs", str(tmp_path / "in.jsonl"), "--n", "4", *FAST_ARGS)
    assert rc == 0
    last = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert last["df_score"] == pytest.approx(3 / 4)


@pytest.mark.parametrize("case,msg", [
    ("syntax", "unparsable code"), ("entry", "missing entry point"), ("empty", "empty inputs file"),
    ("malformed", "not valid JSON"), ("missing", "file not found"), ("shape", "not a list"),
])
def test_cli_pair_errors(case: str, msg: str, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    a, b, i = tmp_path / "a.py", tmp_path / "b.py", tmp_path / "in.jsonl"
    a.write_text(REF)
    b.write_text("def f(x, y) return 1\n" if case == "syntax" else REF)
    i.write_text({"empty": "\n", "malformed": "[1, 2]\n[1,\n", "shape": "5\n"}.get(case, "[1, 2]\n"))
    entry = "g" if case == "entry" else "f"
    inputs = str(tmp_path / "nope.jsonl") if case == "missing" else str(i)
    rc = _main("fuzz", "pair", "--reference", str(a), "--variant", str(b), "--entry", entry, "--inputs", inputs,
               "--json")
    err = capsys.readouterr()
    assert rc == 2
    assert msg in err.err
    assert err.out == ""


# ------------------------------------------------------------------------------ batch
def test_batch_results_store_and_no_recompute(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pairs = _pairs(tmp_path)
    s = Settings(runs=2, run_budget=5, timeout_floor=0.2)
    with ResultStore(tmp_path / "store.sqlite") as st:
        res = batch.run_batch(pairs, tmp_path / "out.jsonl", settings=s, store=st, progress=False, jobs=1)
    by = {r["id"]: r for r in res}
    assert by["fn0"]["df_score"] == 1.0 and by["fn1"]["df_score"] == 1.0
    assert by["fn2"]["df_score"] == pytest.approx(3 / 12)  # y == 0
    assert by["fn3"]["df_score"] == pytest.approx(9 / 12)  # x in {3, 6, 9}
    assert by["fn4"]["runs"][0]["counts"]["timeouts"] == 1
    assert by["fn5"]["counts"]["crashes"] == 2 * 3
    assert by["prog0"]["df_score"] == pytest.approx(3 / 6)
    lines = (tmp_path / "out.jsonl").read_text().splitlines()
    assert [json.loads(x)["id"] for x in lines] == [r["id"] for r in res]
    calls = []
    # where the batch's scheduling looks them up
    monkeypatch.setattr(batch.scheduling, "pair_job", lambda *a: calls.append(a))
    monkeypatch.setattr(batch.scheduling, "ref_job", lambda *a: calls.append(a))
    with ResultStore(tmp_path / "store.sqlite") as st:
        res2 = batch.run_batch(pairs, tmp_path / "out2.jsonl", settings=s, store=st, progress=False, jobs=1)
    assert calls == [] and res2 == res
    assert (tmp_path / "out.jsonl").read_bytes() == (tmp_path / "out2.jsonl").read_bytes()


def test_batch_validation_writes_nothing(tmp_path: Path) -> None:
    s = Settings(runs=1)
    bad = _pairs(tmp_path, extra=[{"id": "bad", "reference": REF, "variant": "def f(x, y) return 1", "entry": "f",
                                   "inputs": [[1, 2]]}])
    with ResultStore(tmp_path / "st.sqlite") as st, pytest.raises(UserError, match="bad: unparsable"):
        batch.run_batch(bad, tmp_path / "out.jsonl", settings=s, store=st, progress=False)
    assert not (tmp_path / "out.jsonl").exists()
    dup = _pairs(tmp_path, extra=[{"id": "fn0", "reference": REF, "variant": REF, "entry": "f", "inputs": [[1, 2]]}])
    with pytest.raises(UserError, match="duplicate"):
        batch.run_batch(dup, None, settings=s, store=ResultStore(tmp_path / "st.sqlite"), progress=False)
    noent = tmp_path / "p2.jsonl"
    noent.write_text(json.dumps({"id": "x", "reference": REF, "variant": REF, "entry": "nope", "inputs": [[1, 2]]}))
    with pytest.raises(UserError, match="x.*missing entry point"):
        batch.run_batch(noent, None, settings=s, store=ResultStore(tmp_path / "st.sqlite"), progress=False)


def test_published_rows_need_a_resolver(tmp_path: Path) -> None:
    rows = [{"id": "HumanEval/0_mut3", "golden_code": REF, "generated_code": VARIANTS[2]}]
    with pytest.raises(UserError, match="HumanEval/0_mut3.*no input resolver"):
        batch.run_batch(rows, None, settings=Settings(runs=1), store=ResultStore(tmp_path / "s.sqlite"), progress=False)

    def resolver(row: dict) -> dict | None:
        if not row["id"].startswith("HumanEval/"):
            return None
        if row["id"].split("_")[0] != "HumanEval/0":
            raise KeyError(row["id"])
        return {"entry": "f", "inputs": [[1, 0], [2, 1]]}

    resolvers = [resolver]
    res = batch.run_batch(rows, None, settings=Settings(runs=1), store=ResultStore(tmp_path / "s.sqlite"),
                          progress=False, resolvers=resolvers)
    assert res[0]["df_score"] == pytest.approx(0.5)
    with pytest.raises(UserError, match="HumanEval/99_x: unknown task id"):
        batch.run_batch([{"id": "HumanEval/99_x", "golden_code": REF, "generated_code": REF}], None,
                        settings=Settings(runs=1), store=ResultStore(tmp_path / "s.sqlite"), progress=False, resolvers=resolvers)
    with pytest.raises(UserError, match="MBPP/1: unknown task id"):
        batch.run_batch([{"id": "MBPP/1", "golden_code": REF, "generated_code": REF}], None,
                        settings=Settings(runs=1), store=ResultStore(tmp_path / "s.sqlite"), progress=False, resolvers=resolvers)


def _gen(seed: int, n: int) -> list:
    import random

    rnd = random.Random(seed)
    return [[rnd.randint(0, 9), rnd.randint(0, 3)] for _ in range(n)]


def _gen_resolver(row: dict) -> dict:
    return {"entry": "f", "generator": _gen, "n": 40}


def _count_reference_passes(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """A list that grows by one per reference pass (``Executor.run_pass`` in precise mode) run
    in this process (pass the generator resolver :func:`_gen_resolver`)."""
    from lcl.engine.fuzz import sandbox

    ref_passes: list[int] = []
    orig = sandbox.Executor.run_pass

    def counting(self, *a, **k):  # noqa: ANN001, ANN002, ANN003
        if self.precise:
            ref_passes.append(1)
        return orig(self, *a, **k)

    monkeypatch.setattr(sandbox.Executor, "run_pass", counting)
    return ref_passes


def test_generator_resolver_shares_reference_outcomes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ref_passes = _count_reference_passes(monkeypatch)
    resolvers = [_gen_resolver]
    rows = [{"id": f"T/1_{k}", "golden_code": REF, "generated_code": v} for k, v in enumerate(VARIANTS[:4])]
    s = Settings(runs=2, run_budget=5, timeout_floor=0.2)
    # jobs=1: the counting patch must see the reference passes (a pool would run them elsewhere,
    # and `make test` exports LCL_JOBS)
    res = batch.run_batch(rows, None, settings=s, store=ResultStore(tmp_path / "s.sqlite"), progress=False, seed=3,
                          jobs=1, resolvers=resolvers)
    assert len(ref_passes) == 2  # one per run, shared by the 4 variants
    assert [r["df_score"] for r in res][:2] == [1.0, 1.0]
    assert res[0]["inputs_mode"] == "generator" and len(set(res[0]["inputs_digests"])) == 2
    direct = fuzz_pair_direct(VARIANTS[3], s)
    assert res[3]["df_score"] == direct.df_score and res[3]["verdict_digest"] == direct.verdict_digest


def test_batch_generates_each_input_set_once(tmp_path: Path) -> None:
    """A task's variants share its generated input sets (one generation per run, not per pair),
    with results identical to fuzzing each pair on its own."""
    calls = []

    def gen(seed: int, n: int) -> list:
        calls.append((seed, n))
        return _gen(seed, n)

    gen.__qualname__ = "counting_gen"
    resolvers = [lambda row: {"entry": "f", "generator": gen, "n": 40}]
    rows = [{"id": f"T/1_{k}", "golden_code": REF, "generated_code": v} for k, v in enumerate(VARIANTS[:4])]
    s = Settings(runs=2, run_budget=5, timeout_floor=0.2)
    res = batch.run_batch(rows, None, settings=s, store=ResultStore(tmp_path / "s.sqlite"), progress=False, seed=3,
                          jobs=2, resolvers=resolvers)
    assert len(calls) == 2 and len(set(calls)) == 2  # 2 runs; without sharing: 2 x (1 + 4)
    for k in range(4):
        direct = fuzz_pair_direct(VARIANTS[k], s)
        assert res[k]["df_score"] == direct.df_score and res[k]["verdict_digest"] == direct.verdict_digest


def test_rows_sharing_an_inputs_file_read_it_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Rows naming the same inputs file share one InputSet (one read, digest and pickling; one
    reference pass), with results identical to the same inputs given inline."""
    inputs = [[i, i % 4] for i in range(12)]
    (tmp_path / "in.jsonl").write_text("".join(json.dumps(x) + "\n" for x in inputs))
    reads = []
    real = batch.read_inputs_file
    monkeypatch.setattr(batch.jobs, "read_inputs_file", lambda *a, **k: reads.append(a) or real(*a, **k))
    rows = [{"id": f"f{k}", "reference": REF, "variant": v, "entry": "f", "inputs_file": "in.jsonl" if k % 2 else
             str(tmp_path / "in.jsonl")} for k, v in enumerate(VARIANTS[:4])]
    jobs = batch.load_jobs(rows, tmp_path, Settings(), 0)
    assert len(reads) == 1 and all(j.inputs is jobs[0].inputs for j in jobs)
    assert len({j.ref_key for j in jobs}) == 1
    s = Settings(runs=2, run_budget=5, timeout_floor=0.2)
    res = batch.run_batch(rows, None, settings=s, store=ResultStore(tmp_path / "a.sqlite"), progress=False, base=tmp_path)
    inline = [{**r, "inputs": inputs} for r in rows]
    for r in inline:
        del r["inputs_file"]
    res2 = batch.run_batch(inline, None, settings=s, store=ResultStore(tmp_path / "b.sqlite"), progress=False)
    assert [(r["df_score"], r["verdict_digest"], r["key"]) for r in res] == \
        [(r["df_score"], r["verdict_digest"], r["key"]) for r in res2]


def fuzz_pair_direct(variant: str, s: Settings):  # noqa: ANN201
    from lcl.engine.fuzz import fuzz_pair

    return fuzz_pair(REF, variant, entry="f", generator=_gen, n=40, seed=3, settings=s)


def test_cli_batch_errors(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    p = tmp_path / "p.jsonl"
    p.write_text('{"id": "a"\n')
    assert _main("fuzz", "batch", str(p), "--out", str(tmp_path / "o.jsonl"), "--store", str(tmp_path / "s")) == 2
    assert "not valid JSON" in capsys.readouterr().err
    assert _main("fuzz", "batch", str(tmp_path / "none.jsonl"), "--out", str(tmp_path / "o.jsonl")) == 2
    assert not (tmp_path / "o.jsonl").exists()


@pytest.mark.slow
def test_kill_9_and_resume_is_byte_identical(tmp_path: Path) -> None:
    # enough work that the batch is still running when we kill it
    rows = []
    for k in range(20):
        var = f"def f(x, y):\n    s = 0\n    for i in range(2000):\n        s += i\n    return x + y if x % {k + 2} else 0\n"
        rows.append({"id": f"p{k}", "reference": REF, "variant": var, "entry": "f",
                     "inputs": [[i, 1] for i in range(300)]})
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text("".join(json.dumps(r) + "\n" for r in rows))
    args = ["fuzz", "batch", str(pairs), "--no-progress", "--jobs", "2", "--runs", "5"]

    def count(store: Path) -> int:
        if not store.exists():
            return 0
        try:
            with ResultStore(store) as st:
                return len(st)
        except Exception:  # noqa: BLE001 - the writer may hold a lock
            return 0

    store_a = tmp_path / "a.sqlite"
    sbx = tmp_path / "sandboxes"
    sbx.mkdir()
    proc = subprocess.Popen([PY, "-c", "import sys; from lcl.cli import main; sys.exit(main(sys.argv[1:]))", *args,
                             "--out", str(tmp_path / "a.jsonl"), "--store", str(store_a)],
                            start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            env=dict(os.environ, LCL_FUZZ_TMP=str(sbx)))
    deadline = time.monotonic() + 120
    while count(store_a) < 3 and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    partial = count(store_a)
    assert 0 < partial < len(rows), partial
    assert not (tmp_path / "a.jsonl").exists()  # nothing half-written
    # the fork-servers notice their harness is gone: workers killed, sandbox dirs removed
    deadline = time.monotonic() + 10
    while list(sbx.iterdir()) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert list(sbx.iterdir()) == []
    r = _cli(*args, "--out", str(tmp_path / "a.jsonl"), "--store", str(store_a))
    assert r.returncode == 0, r.stderr
    r = _cli(*args, "--out", str(tmp_path / "b.jsonl"), "--store", str(tmp_path / "b.sqlite"))
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "a.jsonl").read_bytes() == (tmp_path / "b.jsonl").read_bytes()
    assert json.loads(r.stdout.strip().splitlines()[-1])["pairs"] == len(rows)
    assert _procs_in(sbx) == []  # no worker left behind


def test_a_harness_killed_before_its_first_worker_leaves_no_directory(tmp_path: Path) -> None:
    # the window the kill -9 test above hits only by chance, under load: the harness has its
    # sandbox directory and is killed before any worker was started in it
    sbx = tmp_path / "sandboxes"
    sbx.mkdir()
    code = ("import os, signal, sys; from lcl.engine.fuzz.sandbox.forkserver import ForkServer; "
            "fs = ForkServer('auto', heavy=False); d = fs.make_tmpdir(sys.argv[1]); print(d, flush=True); "
            "os.kill(os.getpid(), signal.SIGKILL)")
    r = subprocess.run([PY, "-c", code, str(sbx)], capture_output=True, text=True, timeout=60)
    assert r.returncode == -signal.SIGKILL
    made = Path(r.stdout.strip())
    assert made.parent == sbx.resolve() and made.name.startswith("lcl-fuzz-")
    deadline = time.monotonic() + 10
    while made.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not made.exists()


def _procs_in(d: Path) -> list[int]:
    """Processes whose working directory is under ``d`` (sandbox workers chdir there)."""
    import psutil

    out = []
    for p in psutil.process_iter(["pid", "cwd"]):
        if (p.info.get("cwd") or "").startswith(str(d)):
            out.append(p.info["pid"])
    return out


@pytest.mark.slow
def test_local_pool_and_dask_agree(tmp_path: Path) -> None:
    from distributed import LocalCluster

    pairs = _pairs(tmp_path)
    s = Settings(runs=2, run_budget=5, timeout_floor=0.2)
    inline = batch.run_batch(pairs, tmp_path / "inline.jsonl", settings=s, store=ResultStore(tmp_path / "1.sqlite"),
                             progress=False, jobs=1)
    pool = batch.run_batch(pairs, tmp_path / "pool.jsonl", settings=s, store=ResultStore(tmp_path / "2.sqlite"),
                           progress=False, jobs=2)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        dask = batch.run_batch(pairs, tmp_path / "dask.jsonl", settings=s, store=ResultStore(tmp_path / "3.sqlite"),
                               progress=False, scheduler=cluster.scheduler_address)
    assert inline == pool == dask
    assert (tmp_path / "inline.jsonl").read_bytes() == (tmp_path / "pool.jsonl").read_bytes() \
        == (tmp_path / "dask.jsonl").read_bytes()


def test_published_rows_duplicates_and_unfuzzable_rows(tmp_path, monkeypatch):
    """A published file is accepted as it is: repeated ids become id#k; rows that cannot be
    fuzzed stop the batch with a list of them, or become error rows with keep_going."""
    from lcl.core.errors import UserError

    monkeypatch.setenv("LCL_CACHE", str(tmp_path / "cache"))  # the run without store= opens the default one
    from lcl.engine.fuzz import batch as B

    def resolver(row):
        return {"entry": "f", "inputs": [[1], [2], [3]]} if row["id"].startswith("T") else None

    resolvers = [resolver]
    ok = "def f(x):\n    return x + 1\n"
    rows = [{"id": "T1", "golden_code": ok, "generated_code": ok},
            {"id": "T1", "golden_code": ok, "generated_code": "def f(x):\n    return x\n"},
            {"id": "T2", "golden_code": ok, "generated_code": "def f(x) return"},
            {"id": "U9", "golden_code": ok, "generated_code": ok}]
    with pytest.raises(UserError, match="2 pair\\(s\\) cannot be fuzzed"):
        B.run_batch(rows, tmp_path / "out.jsonl", progress=False, resolvers=resolvers)
    assert not (tmp_path / "out.jsonl").exists()
    from lcl.engine.fuzz.store import ResultStore

    assert B.batch_status(rows, store=ResultStore(tmp_path / "s2.sqlite"), resolvers=resolvers) == {
        "T1": False, "T1#2": False, "T2": None, "U9": None}
    res = B.run_batch(rows, tmp_path / "out.jsonl", store=ResultStore(tmp_path / "s2.sqlite"), progress=False,
                      keep_going=True, resolvers=resolvers)
    assert B.batch_status(rows, store=ResultStore(tmp_path / "s2.sqlite"), resolvers=resolvers) == {
        "T1": True, "T1#2": True, "T2": None, "U9": None}
    assert B.batch_status(rows, store=ResultStore(tmp_path / "s2.sqlite"), seed=1, resolvers=resolvers)["T1"] is False  # other key
    by_id = {r["id"]: r for r in res}
    assert list(by_id) == ["T1", "T1#2", "T2", "U9"]
    assert by_id["T1"]["df_score"] == 1.0 and by_id["T1#2"]["df_score"] == 0.0
    assert by_id["T2"]["df_score"] is None and "unparsable" in by_id["T2"]["error"]
    assert by_id["U9"]["df_score"] is None and "unknown task" in by_id["U9"]["error"]


def test_pool_splits_generated_pairs_into_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With a thread pool, each run of a generated pair is a job of its own (the runs of a pair
    that hangs spread over the threads); results are byte-identical to ``--jobs 1``, also for
    a variant that leaves state in an imported module."""
    from lcl.engine.fuzz import algorithm

    leaky = ("import math\ndef f(x, y):\n    math.lcl_n = getattr(math, 'lcl_n', 0) + 1\n"
             "    return x + y if math.lcl_n <= 25 else 0\n")
    parts: list[object] = []
    orig = algorithm.fuzz_pair

    def counting(*a, **k):  # noqa: ANN002, ANN003, ANN202
        parts.append(k.get("only_runs"))
        return orig(*a, **k)

    monkeypatch.setattr(batch.fuzz_jobs, "fuzz_pair", counting)  # where the pair jobs look it up
    resolvers = [_gen_resolver]
    rows = [{"id": f"T/1_{k}", "golden_code": REF, "generated_code": v} for k, v in enumerate([*VARIANTS[:3], leaky])]
    s = Settings(runs=3, run_budget=5, timeout_floor=0.2)
    out = {}
    for jobs in (1, 2):
        parts.clear()
        batch.run_batch(rows, tmp_path / f"o{jobs}.jsonl", settings=s, store=ResultStore(tmp_path / f"{jobs}.sqlite"),
                        progress=False, seed=3, jobs=jobs, resolvers=resolvers)
        out[jobs] = (tmp_path / f"o{jobs}.jsonl").read_text()
        assert sorted(map(str, parts)) == (["None"] * 4 if jobs == 1 else sorted([f"[{r}]" for r in range(3)] * 4))
    assert out[1] == out[2]
    leaky_row = json.loads(out[2].splitlines()[3])
    # every run starts with a fresh counter: 25 inputs answered (a reused worker would answer 0 in runs 1, 2)
    assert min(leaky_row["run_scores"]) >= 25 / 40 and leaky_row["error"] is None


def test_pool_splits_references_into_runs_and_reuses_them_across_r(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """With a thread pool, a generated task's reference runs are jobs of their own, stored per
    run: a label at R = 3 after one at R = 1 (the RQ2 screen, then the full label) runs the
    reference for runs 2 and 3 only, and both give what ``--jobs 1`` gives."""
    ref_passes = _count_reference_passes(monkeypatch)
    resolvers = [_gen_resolver]
    rows = [{"id": f"T/1_{k}", "golden_code": REF, "generated_code": v} for k, v in enumerate(VARIANTS[:4])]
    # a reference that fails to load in the sandbox: every run's reference job fails
    broken = [{"id": "T/2_0", "golden_code": "raise ValueError('boom')\ndef f(x, y):\n    return x\n",
               "generated_code": REF}]
    got = {}
    store = ResultStore(tmp_path / "pool.sqlite")
    for runs in (1, 3):
        ref_passes.clear()
        s = Settings(runs=runs, run_budget=5, timeout_floor=0.2)
        got[runs] = batch.run_batch(rows, None, settings=s, store=store, progress=False, seed=3, jobs=2, resolvers=resolvers)
        assert len(ref_passes) == (1 if runs == 1 else 2)  # run 1's reference is shared
    alone = batch.run_batch(rows, None, settings=s, store=ResultStore(tmp_path / "alone.sqlite"), progress=False,
                            seed=3, jobs=1, resolvers=resolvers)
    errs = batch.run_batch(broken, None, settings=s, store=store, progress=False, seed=3, jobs=2, resolvers=resolvers)
    strip = [{k: v for k, v in r.items() if k != "key"} for r in got[3]]
    assert strip == [{k: v for k, v in r.items() if k != "key"} for r in alone]
    assert [r["df_score"] for r in got[3]][:2] == [1.0, 1.0]
    assert [r["run_scores"][0] for r in got[3]] == [r["run_scores"][0] for r in got[1]]
    assert errs[0]["df_score"] is None and "failed to load" in errs[0]["error"]


def test_results_of_engine_4_carry_over_unless_a_run_was_excluded_for_time(tmp_path: Path) -> None:
    """Version 5 charges T in CPU time: a version-4 result without a run excluded for time is
    what version 5 (and 6) computes (stored under the new key, not fuzzed again); one with such
    a run is fuzzed again."""
    from lcl.engine.fuzz import semantics as S

    rows = [{"id": "a", "reference": REF, "variant": VARIANTS[2], "entry": "f", "inputs": [[1, 2], [3, 0]]},
            {"id": "b", "reference": REF, "variant": VARIANTS[1], "entry": "f", "inputs": [[1, 2], [3, 0]]}]
    s = Settings(runs=2, run_budget=5, timeout_floor=0.2)
    jobs = batch.load_jobs(rows, tmp_path, s, 0)
    assert S.CARRY_OVER == ("7", "6", "5", "4") and all(len(j.legacy_keys) == 4 and j.key not in j.legacy_keys for j in jobs)
    fake = {"df_score": 0.25, "runs": [{"run": 0, "excluded": False, "reason": None}], "engine_version": "4"}
    timed = {"df_score": 1.0, "runs": [{"run": 0, "excluded": True, "reason": "time budget exceeded"}],
             "engine_version": "4"}
    with ResultStore(tmp_path / "s.sqlite") as st:
        st.put(jobs[0].legacy_keys[3], "a", fake)
        st.put(jobs[1].legacy_keys[3], "b", timed)
        assert batch.batch_status(rows, settings=s, store=st, base=tmp_path) == {"a": True, "b": False}
        res = {r["id"]: r for r in batch.run_batch(rows, settings=s, store=st, progress=False, jobs=1, base=tmp_path)}
    assert res["a"]["df_score"] == 0.25 and res["a"]["engine_version"] == S.ENGINE_VERSION == "8"  # carried over
    assert res["b"]["df_score"] == 1.0 and len(res["b"]["runs"]) == 2  # fuzzed anew (the fake had one run)


def test_results_of_engine_5_carry_over_unless_the_variant_crashed_or_timed_out(tmp_path: Path) -> None:
    """Version 6 changes what a crash or a timeout can be (the disk limit, a replaced worker's
    files, timeouts applied by the harness): only results without either carry over."""
    from lcl.engine.fuzz import semantics as S

    rows = [{"id": k, "reference": REF, "variant": VARIANTS[2], "entry": "f", "inputs": [[1, 2], [3, i]]}
            for i, k in enumerate(("clean", "crashed", "timed", "load"))]
    s = Settings(runs=2, run_budget=5, timeout_floor=0.2)
    jobs = batch.load_jobs(rows, tmp_path, s, 0)
    zero = {"matches": 1, "mismatches": 1, "timeouts": 0, "crashes": 0, "invalid": 0, "skipped": 0}

    def result(**counts: int) -> dict:
        c = {**zero, **counts}
        return {"df_score": 0.25, "counts": c, "engine_version": "5", "variant_load": "ok",
                "runs": [{"run": 0, "excluded": False, "reason": None, "counts": c}]}

    stored = {"clean": result(), "crashed": result(crashes=1), "timed": result(timeouts=2),
              "load": {**result(), "variant_load": "crash"}}
    with ResultStore(tmp_path / "s.sqlite") as st:
        for j in jobs:
            st.put(j.legacy_keys[S.CARRY_OVER.index("5")], j.id, stored[j.id])  # version 5's key
        assert batch.batch_status(rows, settings=s, store=st, base=tmp_path) == {
            "clean": True, "crashed": False, "timed": False, "load": False}
    assert S.carries_over(stored["clean"]) and not S.carries_over(stored["crashed"])


def test_results_of_engine_6_carry_over_even_with_crashes_and_timeouts(tmp_path: Path) -> None:
    """Version 7 (pid namespace, seccomp allowlist) changes nothing a version-6 result records."""
    from lcl.engine.fuzz import semantics as S

    rows = [{"id": "t", "reference": REF, "variant": VARIANTS[2], "entry": "f", "inputs": [[1, 2], [3, 0]]}]
    s = Settings(runs=2, run_budget=5, timeout_floor=0.2)
    jobs = batch.load_jobs(rows, tmp_path, s, 0)
    c = {"matches": 0, "mismatches": 0, "timeouts": 1, "crashes": 1, "invalid": 0, "skipped": 0}
    old = {"df_score": 0.0, "counts": c, "engine_version": "6", "variant_load": "ok",
           "runs": [{"run": 0, "excluded": False, "reason": None, "counts": c}]}
    with ResultStore(tmp_path / "s.sqlite") as st:
        st.put(jobs[0].legacy_keys[S.CARRY_OVER.index("6")], "t", old)
        assert batch.batch_status(rows, settings=s, store=st, base=tmp_path) == {"t": True}
    assert S.carries_over(old) and not S.carries_over({**old, "engine_version": "5"})


def test_results_of_engine_7_carry_over_and_the_score_rule_has_keys_of_its_own(tmp_path: Path) -> None:
    """Version 8 (the harness decides from kernel facts; the default over-budget rule is the
    paper's, as before) carries every version-7 result over, a run excluded for time included;
    a result fuzzed under ``over_budget="score"`` is stored under another key, so neither rule
    ever reads the other's results."""
    from lcl.engine.fuzz import semantics as S

    rows = [{"id": "t", "reference": REF, "variant": VARIANTS[2], "entry": "f", "inputs": [[1, 2], [3, 0]]}]
    s = Settings(runs=2, run_budget=5, timeout_floor=0.2)
    jobs = batch.load_jobs(rows, tmp_path, s, 0)
    scored = batch.load_jobs(rows, tmp_path, s.with_(over_budget="score"), 0)
    assert scored[0].key != jobs[0].key and scored[0].key not in jobs[0].legacy_keys
    old = {"df_score": -1.0, "engine_version": "7", "variant_load": "ok",
           "runs": [{"run": 0, "excluded": True, "reason": S.OVER_BUDGET, "counts": None}]}
    with ResultStore(tmp_path / "s.sqlite") as st:
        st.put(jobs[0].legacy_keys[S.CARRY_OVER.index("7")], "t", old)
        assert batch.batch_status(rows, settings=s, store=st, base=tmp_path) == {"t": True}
        assert batch.batch_status(rows, settings=s.with_(over_budget="score"), store=st, base=tmp_path) == {"t": False}
    assert S.carries_over(old)


def test_every_vocabulary_of_the_codes_gives_the_same_job(tmp_path: Path) -> None:
    """A row's codes are read under any name lcl.core.records knows (``reference`` | ``golden_code``;
    ``candidate`` | ``variant`` | ``generated_code``; or ``*_file``), and a row without inputs is
    resolved like a published one: the same codes and task give the same job and result key, so
    a study's rows need no conversion to the published format."""
    (tmp_path / "ref.py").write_text(REF)
    (tmp_path / "cand.py").write_text(VARIANTS[2])

    def resolver(row):
        return {"entry": "f", "inputs": [[1, 2], [3, 4]]} if row.get("task") == "T/1" else None

    shapes = [{"golden_code": REF, "generated_code": VARIANTS[2]},
              {"reference": REF, "candidate": VARIANTS[2]},
              {"reference": REF, "variant": VARIANTS[2]},
              {"reference_file": "ref.py", "candidate_file": "cand.py"},
              {"reference_file": "ref.py", "variant_file": "cand.py"}]
    rows = [{"id": f"p{k}", "task": "T/1", **codes} for k, codes in enumerate(shapes)]
    jobs = batch.load_jobs(rows, tmp_path, Settings(), 0, resolvers=[resolver])
    assert {(j.reference, j.candidate, j.entry, j.key, j.ref_key) for j in jobs} == \
        {(REF, VARIANTS[2], "f", jobs[0].key, jobs[0].ref_key)}
    # with inputs of its own, a row is explicit (the same inputs: the same key)
    explicit = batch.load_jobs([{"id": "e", "reference": REF, "candidate": VARIANTS[2], "entry": "f",
                                 "inputs": [[1, 2], [3, 4]]}], tmp_path, Settings(), 0)
    assert explicit[0].key == jobs[0].key
    # resolved rows are accepted as they are: repeated ids, error rows
    again = batch.load_jobs([*rows[:2], {"id": "p9", "task": "U/1", "reference": REF, "candidate": REF}],
                            tmp_path, Settings(), 0, keep_going=True, resolvers=[resolver])
    assert [j.id for j in again] == ["p0", "p1", "p9"] and "unknown task" in (again[2].error or "")
    dup = batch.load_jobs([rows[1], rows[1]], tmp_path, Settings(), 0, resolvers=[resolver])
    assert [j.id for j in dup] == ["p1", "p1#2"]
    with pytest.raises(UserError, match=r"p1: no 'inputs'.*no input resolver"):
        batch.load_jobs(rows[1:2], tmp_path, Settings(), 0)
    with pytest.raises(UserError, match="missing the candidate's code"):
        batch.load_jobs([{"id": "q", "reference": REF, "entry": "f", "inputs": [[1, 2]]}], tmp_path, Settings(), 0)


def test_settings_dict_names_every_setting() -> None:
    """``SettingsDict`` (how results record the settings) has exactly the fields of Settings."""
    from dataclasses import fields

    from lcl.engine.fuzz.semantics import SettingsDict

    names = [f.name for f in fields(Settings)]
    assert list(SettingsDict.__annotations__) == names
    # the default over-budget rule (the paper's) is left out, so that earlier results keep their records and keys
    assert list(Settings().to_dict()) == [n for n in names if n != "over_budget"]
    assert list(Settings(over_budget="score").to_dict()) == names
    assert "over_budget" not in Settings().result_relevant()
    assert Settings(over_budget="score").result_relevant()["over_budget"] == "score"
