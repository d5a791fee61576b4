"""One-line errors (file and cause, never a traceback) of ``lcl fuzz`` and ``lcl score``, the
isolation report and ``--isolation``, error rows under ``--keep-going``, and a Dask batch
left without workers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lcl.cli import main
from lcl.engine.fuzz import batch
from lcl.engine.fuzz import sandbox as SB
from lcl.engine.fuzz.isolation import MECHANISMS

REF = "def f(x):\n    return x * 2\n"
FAST = ["--runs", "1", "--budget", "5", "--timeout-floor", "0.2"]


def _run(capsys: pytest.CaptureFixture, *argv: str) -> tuple[int, str, str]:
    rc = main(list(argv))
    cap = capsys.readouterr()
    return rc, cap.out, cap.err


def _row(**kw: object) -> str:
    row = {"id": "a", "reference": REF, "variant": REF, "entry": "f", "inputs": [[1], [2]], **kw}
    return json.dumps(row) + "\n"


@pytest.fixture
def files(tmp_path: Path) -> Path:
    (tmp_path / "a.py").write_text(REF)
    (tmp_path / "in.jsonl").write_text("[1]\n[2]\n")
    (tmp_path / "adir").mkdir()
    return tmp_path


def _one_line_error(rc: int, err: str, *needles: str) -> None:
    assert rc == 2, err
    assert "Traceback" not in err
    line = err.strip().splitlines()[-1]
    for n in needles:
        assert n in line, line


@pytest.mark.parametrize("which", ["reference", "variant", "inputs"])
def test_pair_directory_given_as_a_file(which: str, files: Path, capsys: pytest.CaptureFixture) -> None:
    paths = {"reference": files / "a.py", "variant": files / "a.py", "inputs": files / "in.jsonl"}
    paths[which] = files / "adir"
    rc, _, err = _run(capsys, "fuzz", "pair", "--reference", str(paths["reference"]), "--variant",
                      str(paths["variant"]), "--entry", "f", "--inputs", str(paths["inputs"]), *FAST)
    _one_line_error(rc, err, "adir")


@pytest.mark.parametrize("content,needle", [
    (_row(seed="abc"), "'seed' must be an integer"),
    (_row(n="3"), "'n' must be an integer"),
    (_row(n=0), "'n' must be at least 1"),
    (b"\xff\xfe\x00\x01binary", "not UTF-8"),
])
def test_batch_bad_pairs_file(content: str | bytes, needle: str, files: Path, capsys: pytest.CaptureFixture) -> None:
    pairs = files / "pairs.jsonl"
    if isinstance(content, bytes):
        pairs.write_bytes(content)
    else:
        pairs.write_text(content)
    rc, _, err = _run(capsys, "fuzz", "batch", str(pairs), "--out", str(files / "o.jsonl"), "--no-progress", *FAST)
    _one_line_error(rc, err, needle)
    if isinstance(content, bytes):
        assert str(pairs) in err


def test_batch_pairs_file_is_a_directory(files: Path, capsys: pytest.CaptureFixture) -> None:
    rc, _, err = _run(capsys, "fuzz", "batch", str(files / "adir"), "--out", str(files / "o.jsonl"), "--no-progress")
    _one_line_error(rc, err, "adir", "directory")


def test_batch_out_is_a_directory_found_before_fuzzing(files: Path, capsys: pytest.CaptureFixture,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    (files / "pairs.jsonl").write_text(_row())
    monkeypatch.setattr(batch, "run_batch", lambda *a, **k: pytest.fail("fuzzed before checking --out"))
    rc, _, err = _run(capsys, "fuzz", "batch", str(files / "pairs.jsonl"), "--out", str(files / "adir"),
                      "--no-progress")
    _one_line_error(rc, err, "--out", "is a directory")


def test_batch_scheduler_not_an_address(files: Path, capsys: pytest.CaptureFixture) -> None:
    pytest.importorskip("distributed")
    (files / "pairs.jsonl").write_text(_row())
    rc, _, err = _run(capsys, "fuzz", "batch", str(files / "pairs.jsonl"), "--out", str(files / "o.jsonl"),
                      "--scheduler", "not a uri", "--no-progress", "--store", str(files / "s.sqlite"), *FAST)
    _one_line_error(rc, err, "--scheduler", "not a scheduler address")


def test_unparsable_explicit_row_is_an_error_row_under_keep_going(files: Path, capsys: pytest.CaptureFixture) -> None:
    pairs = files / "pairs.jsonl"
    pairs.write_text(_row(id="bad", variant="def f(x:\n") + _row(id="good"))
    args = ["fuzz", "batch", str(pairs), "--out", str(files / "o.jsonl"), "--no-progress", "--store",
            str(files / "s.sqlite"), *FAST]
    rc, _, err = _run(capsys, *args)
    _one_line_error(rc, err, "pair bad", "unparsable")
    rc, _, err = _run(capsys, *args, "--keep-going")
    assert rc == 1  # some pairs could not be fuzzed
    rows = {r["id"]: r for r in map(json.loads, (files / "o.jsonl").read_text().splitlines())}
    assert "unparsable" in rows["bad"]["error"] and rows["bad"]["df_score"] is None
    assert rows["good"]["df_score"] == 1.0


# ------------------------------------------------------------------------------ lcl score
def _score(capsys: pytest.CaptureFixture, tmp: Path, content: str | bytes, metric: str = "surface_sim",
           external: str | None = None) -> tuple[int, str, str]:
    pairs = tmp / "pairs.jsonl"
    if isinstance(content, bytes):
        pairs.write_bytes(content)
    else:
        pairs.write_text(content)
    if external is not None:
        (tmp / "ext.jsonl").write_text(external)
        metric = f"external:{tmp / 'ext.jsonl'}"
    return _run(capsys, "score", str(pairs), "--metric", metric, "--out", str(tmp / "scored.jsonl"), "--no-progress",
                "--no-cache")


PAIR = {"reference": "x = 1\n", "candidate": "x = 2\n"}


@pytest.mark.parametrize("content,needle", [
    ("", "no pairs"),
    ("[1, 2]\n", "row 1 is not a JSON object"),
    (b"\xff\xfe\x00binary", "not UTF-8"),
])
def test_score_bad_pairs_file(content: str | bytes, needle: str, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    rc, _, err = _score(capsys, tmp_path, content)
    _one_line_error(rc, err, needle, "pairs.jsonl")


def test_score_ids_matched_by_external_scores(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    ext = json.dumps({"id": "1", "score": 0.5}) + "\n"
    # without ids, row numbers would match the unrelated external id "1"
    rc, _, err = _score(capsys, tmp_path, json.dumps(PAIR) + "\n", external=ext)
    _one_line_error(rc, err, "without an 'id'")
    dup = json.dumps({"id": "p", **PAIR}) + "\n"
    rc, _, err = _score(capsys, tmp_path, dup * 2, external=ext)
    _one_line_error(rc, err, "duplicate ids", "'p'")
    rc, _, err = _score(capsys, tmp_path, dup, external=json.dumps({"id": "p", "score": 0.1}) + "\n"
                        + json.dumps({"id": "p", "score": 0.9}) + "\n")
    _one_line_error(rc, err, "appears twice")
    rc, _, err = _score(capsys, tmp_path, dup, external="[1]\n")
    _one_line_error(rc, err, "row 1 is not a JSON object")


def test_score_says_what_it_did_with_missing_and_repeated_ids(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    rows = json.dumps(PAIR) + "\n" + (json.dumps({"id": "p", **PAIR}) + "\n") * 2
    rc, _, err = _score(capsys, tmp_path, rows)
    assert rc == 0, err
    assert "1 row(s) without an 'id'" in err and "repeated id" in err
    assert len((tmp_path / "scored.jsonl").read_text().splitlines()) == 3


# ------------------------------------------------------------------------------ isolation
def test_pair_json_reports_isolation(files: Path, capsys: pytest.CaptureFixture) -> None:
    rc, out, err = _run(capsys, "fuzz", "pair", "--reference", str(files / "a.py"), "--variant", str(files / "a.py"),
                        "--entry", "f", "--inputs", str(files / "in.jsonl"), "--json", *FAST)
    assert rc == 0, err
    iso = json.loads(out.strip().splitlines()[-1])["isolation"]
    assert set(iso["active"]) | set(iso["missing"]) == set(MECHANISMS)
    assert iso["mode"] == "best"


def test_strict_refuses_without_every_mechanism(files: Path, capsys: pytest.CaptureFixture,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LCL_FUZZ_NO_KERNEL_ISOLATION", "1")
    monkeypatch.setenv("LCL_FUZZ_ISOLATION", "best")  # restored afterwards (the CLI sets it)
    rc, out, err = _run(capsys, "fuzz", "pair", "--reference", str(files / "a.py"), "--variant", str(files / "a.py"),
                        "--entry", "f", "--inputs", str(files / "in.jsonl"), "--isolation", "strict", *FAST)
    _one_line_error(rc, err, "strict", "landlock_fs", "seccomp")
    assert out == ""
    # best: runs, and says once what is missing and what remains
    fs = SB.get_forkserver(heavy=False, isolation="best")
    assert "seccomp" in fs.isolation["missing"] and fs.isolation["python_fallback"]


def test_python_fallback_still_contains_writes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """On a kernel without Landlock and seccomp the audit hook still refuses the writes it sees."""
    from lcl.engine.fuzz import Settings, fuzz_pair

    monkeypatch.setenv("LCL_FUZZ_NO_KERNEL_ISOLATION", "1")
    target = tmp_path / "pwned"
    var = f"def f(x):\n    open({str(target)!r}, 'w').write('x')\n    return x * 2\n"
    res = fuzz_pair(REF, var, entry="f", inputs=[[1]], settings=Settings(runs=1, run_budget=5, timeout_floor=0.2))
    assert res.df_score == 0.0 and not target.exists()
    assert "landlock_fs" in res.isolation["missing"]


def test_kernel_isolation_available_here() -> None:
    """The machines this project runs on (and CI) have every mechanism; ``strict`` must start."""
    fs = SB.get_forkserver(heavy=False, isolation="strict")
    assert fs.isolation["missing"] == [], fs.isolation


# ------------------------------------------------------------------------------ Dask
class _FakeAsCompleted:
    def __init__(self, ready_after: int | None) -> None:
        self.calls = 0
        self.ready_after = ready_after
        self.left = ["fut"]

    def is_empty(self) -> bool:
        return not self.left

    def has_ready(self) -> bool:
        self.calls += 1
        return self.ready_after is not None and self.calls > self.ready_after

    def next_batch(self, block: bool = False) -> list[str]:
        out, self.left = self.left, []
        return out


def test_dask_without_workers_times_out_with_a_message() -> None:
    from lcl.core.errors import UserError

    with pytest.raises(UserError, match="no worker connected"):
        list(batch.dask_completed(_FakeAsCompleted(None), lambda: 0, limit=0.05, poll=0.01, check_every=0.01))
    # with a worker, waiting is fine however long it takes
    assert list(batch.dask_completed(_FakeAsCompleted(20), lambda: 1, limit=0.05, poll=0.01, check_every=0.01)) \
        == ["fut"]
