"""The committed label archive (data/labels/): export, merge into a fresh store, integrity."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from lcl.core.errors import UserError
from lcl.study import label_archive as archive
from lcl.engine.fuzz import Settings, batch
from lcl.engine.fuzz.store import ResultStore, open_default

pytestmark = pytest.mark.timeout(180)
ROOT = Path(__file__).resolve().parents[1]

REF = "def f(x, y):\n    return x + y\n"


def _res(df: float, runs: int = 5, n: int = 2000) -> dict:
    return {"df_score": df, "engine_version": "5", "settings": {"runs": runs, "n_function": n, "n_program": n // 2}}


def _fill(path: Path) -> ResultStore:
    st = ResultStore(path)
    st.put("k1", "LCL_HumanEval_0_MUT_1", _res(0.5))
    st.put("k2", "LCL_MBPP_11_OPT_1", _res(1.0))
    st.put("k3", "LCL_MBPP_12_MUT_3", _res(0.0, runs=2, n=200))  # another profile's settings
    return st


def test_the_committed_archive_matches_its_manifest() -> None:
    assert archive.verify(ROOT / "data" / "labels") == []


def test_shard_names() -> None:
    assert archive.shard_of("LCL_HumanEval_0_MUT_1") == "LCL_HumanEval"
    assert archive.shard_of("HumanEval/12") == "HumanEval"
    assert archive.shard_of("LOCAL_HE_81_OP_1") == "LOCAL_HE"
    assert archive.shard_of("BASE_HumanEval_12_3") == "BASE_HumanEval"
    assert archive.shard_of("CLONE_sort_1_2") == archive.shard_of("CLONE_gcd_1_0") == "CLONE"
    assert archive.shard_of("MBPP_102_4") == "MBPP" and archive.shard_of("APPS_test-0001_19") == "APPS"
    assert archive.shard_of("odd id!") == "odd-id-"
    assert archive.shard_of("") == "misc"


def test_export_then_restore_into_an_empty_store(tmp_path: Path) -> None:
    folder = tmp_path / "labels"
    with _fill(tmp_path / "a.sqlite") as st:
        added = archive.export(st, folder, select=lambda r: r["settings"]["runs"] == 5)
    assert added == {"LCL_HumanEval": 1, "LCL_MBPP": 1}  # k3 (R = 2) left out
    assert sorted(p.name for p in folder.iterdir()) == ["LCL_HumanEval.jsonl.gz", "LCL_MBPP.jsonl.gz", "MANIFEST.json"]
    manifest = json.loads((folder / "MANIFEST.json").read_text())
    assert manifest["rows"] == 2 and manifest["shards"]["LCL_MBPP"]["rows"] == 1
    assert archive.verify(folder) == []
    with ResultStore(tmp_path / "b.sqlite") as fresh:
        fresh.put("k2", "LCL_MBPP_11_OPT_1", _res(0.75))  # a local row wins over the archive's
        assert archive.restore(fresh, folder) == 1
        assert fresh.get("k1") == _res(0.5) and fresh.get("k2") == _res(0.75) and fresh.get("k3") is None
        assert archive.restore(fresh, folder) == 0  # same archive content: nothing read again


def test_export_is_a_deterministic_union(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    with _fill(tmp_path / "s.sqlite") as st:
        archive.export(st, a)
        archive.export(st, b)
        assert archive.export(st, a) == {}  # nothing new: no shard rewritten
    assert {p.name: p.read_bytes() for p in a.iterdir()} == {p.name: p.read_bytes() for p in b.iterdir()}
    with ResultStore(tmp_path / "t.sqlite") as other:
        other.put("k9", "LCL_MBPP_13_MUT_1", _res(0.25))
        assert archive.export(other, a) == {"LCL_MBPP": 1}
    rows = {k for k, _i, _r in archive.read(a)}
    assert rows == {"k1", "k2", "k3", "k9"}  # rows of the first export stay
    lines = gzip.open(a / "LCL_MBPP.jsonl.gz", "rt").read().splitlines()
    assert [json.loads(x)["key"] for x in lines] == ["k2", "k3", "k9"]  # sorted by key


def test_a_carried_over_copy_is_not_archived_again_but_a_new_result_is(tmp_path: Path) -> None:
    folder = tmp_path / "labels"
    with _fill(tmp_path / "s.sqlite") as st:
        archive.export(st, folder)
    with ResultStore(tmp_path / "next.sqlite") as nxt:
        # what the next engine version's store holds after a run: k1 carried over (same result,
        # new version, new key), k2 fuzzed anew (its old result did not carry over)
        nxt.put("k1v6", "LCL_HumanEval_0_MUT_1", {**_res(0.5), "engine_version": "6"})
        nxt.put("k2v6", "LCL_MBPP_11_OPT_1", {**_res(0.75), "engine_version": "6"})
        assert archive.export(nxt, folder) == {"LCL_MBPP": 1}
    assert {k for k, _i, _r in archive.read(folder)} == {"k1", "k2", "k3", "k2v6"}


def test_verify_and_read_report_damage(tmp_path: Path) -> None:
    folder = tmp_path / "labels"
    with _fill(tmp_path / "s.sqlite") as st:
        archive.export(st, folder)
    shard = folder / "LCL_MBPP.jsonl.gz"
    shard.write_bytes(gzip.compress(b'{"key": "k2"}\n'))
    assert archive.verify(folder) == ["LCL_MBPP.jsonl.gz: SHA-256 differs from MANIFEST.json"]
    with pytest.raises(ValueError, match="LCL_MBPP.jsonl.gz:1: not an archive row"):
        list(archive.read(folder))
    with ResultStore(tmp_path / "fresh.sqlite") as fresh, pytest.raises(UserError, match="is damaged .*SHA-256"):
        archive.restore(fresh, folder)  # never merged: a shard unlike its manifest entry
    (folder / "extra.jsonl.gz").write_bytes(gzip.compress(b""))
    (folder / "LCL_HumanEval.jsonl.gz").unlink()
    assert archive.verify(folder) == ["LCL_HumanEval.jsonl.gz: in MANIFEST.json but missing",
                                      "LCL_MBPP.jsonl.gz: SHA-256 differs from MANIFEST.json",
                                      "extra.jsonl.gz: not in MANIFEST.json"]


def test_a_fresh_clone_finds_archived_pairs_labelled(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The point of the archive: a pair fuzzed in one checkout is not fuzzed again in a fresh
    one (empty cache) once its result is archived, and the result is the same."""
    rows = [{"id": "LCL_T_0_MUT_1", "reference": REF, "variant": "def f(x, y):\n    return x - y\n", "entry": "f",
             "inputs": [[1, 2], [3, 0], [0, 5]]}]
    s = Settings(runs=2, run_budget=5, timeout_floor=0.2)
    folder = tmp_path / "labels"
    monkeypatch.setenv("LCL_LABEL_ARCHIVE", str(folder))
    monkeypatch.setenv("LCL_CACHE", str(tmp_path / "cache1"))
    first = batch.run_batch(rows, settings=s, progress=False, jobs=1, base=tmp_path)
    with open_default() as st:
        assert archive.export(st, folder) == {"LCL": 1}  # T names no benchmark
    monkeypatch.setenv("LCL_CACHE", str(tmp_path / "cache2"))  # the fresh clone
    # the engine's own store knows no archive; the study's store has it merged in
    assert batch.batch_status(rows, settings=s, base=tmp_path) == {"LCL_T_0_MUT_1": False}
    with archive.open_store() as st:
        assert batch.batch_status(rows, settings=s, base=tmp_path, store=st) == {"LCL_T_0_MUT_1": True}
        again = batch.run_batch(rows, settings=s, progress=False, jobs=1, base=tmp_path, store=st)
    assert again == first and first[0]["df_score"] == pytest.approx(1 / 3)
    monkeypatch.setenv("LCL_LABEL_ARCHIVE", "off")
    monkeypatch.setenv("LCL_CACHE", str(tmp_path / "cache3"))
    with archive.open_store() as st:
        assert batch.batch_status(rows, settings=s, base=tmp_path, store=st) == {"LCL_T_0_MUT_1": False}


def test_cli_archive_export_and_status(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                       capsys: pytest.CaptureFixture) -> None:
    from tests.test_fuzz_batch import _main

    folder = tmp_path / "labels"
    monkeypatch.setenv("LCL_LABEL_ARCHIVE", str(folder))
    monkeypatch.setenv("LCL_CACHE", str(tmp_path / "cache"))
    from lcl.engine.fuzz.store import default_path

    with _fill(default_path()) as st:
        st.put("k4", "LCL_PIE_p1_MUT_1", _res(0.0, runs=1))  # the RQ2 pool's one-run screen: archived too
        st.put("k5", "LCL_PIE_p1_MUT_2", _res(0.0, runs=3))  # neither R nor the screen: not archived
    assert _main("fuzz", "archive", "export", "--profile", "full") == 0
    out = capsys.readouterr().out
    assert "3 result(s) added" in out and "LCL_MBPP" in out and "1 (engine 5)" in out and "LCL_PIE" in out
    assert {k for k, _i, _r in archive.read(folder)} == {"k1", "k2", "k4"}
    assert _main("fuzz", "archive", "export", "--profile", "nonsense") == 2
    assert "nonsense" in capsys.readouterr().err
    (folder / "LCL_MBPP.jsonl.gz").write_bytes(b"")
    assert _main("fuzz", "archive") == 1
    assert "PROBLEM: LCL_MBPP.jsonl.gz: SHA-256 differs" in capsys.readouterr().err
    monkeypatch.setenv("LCL_LABEL_ARCHIVE", "off")
    assert _main("fuzz", "archive") == 2
