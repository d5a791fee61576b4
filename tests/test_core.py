"""io (atomic writes), cache keys, verify tolerances, CLI help."""

from __future__ import annotations

import subprocess
import sys
import typing

import pandas as pd
import pytest

from lcl.core import cache, io
from lcl import cli
from lcl.report import verify


def test_atomic_write_keeps_old_file_on_failure(tmp_path):
    target = tmp_path / "t.txt"
    io.write_text(target, "old")
    with pytest.raises(RuntimeError):
        with io.atomic_write(target) as fh:
            fh.write("half")
            raise RuntimeError("interrupted")
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["t.txt"], "no temp file left behind"


def test_jsonl_roundtrip_and_error_names_line(tmp_path):
    p = io.write_jsonl(tmp_path / "a.jsonl", [{"a": 1}, {"b": [1, 2]}])
    assert io.read_jsonl(p) == [{"a": 1}, {"b": [1, 2]}]
    p.write_text('{"a": 1}\n{oops\n')
    with pytest.raises(ValueError, match=r"a.jsonl:2"):
        io.read_jsonl(p)


def test_cache_key_is_stable_and_sensitive():
    assert cache.key({"a": 1, "b": 2}) == cache.key({"b": 2, "a": 1})
    assert cache.key("x", 1) != cache.key("x", 2)


def test_cached_computes_once(tmp_path):
    calls = []
    f = lambda: calls.append(1) or 42  # noqa: E731
    assert cache.cached("ns", cache.key("k"), f, root=tmp_path) == 42
    assert cache.cached("ns", cache.key("k"), f, root=tmp_path) == 42
    assert calls == [1]


def test_cached_entry_of_a_moved_class_is_computed_again(tmp_path):
    """An entry pickled with a class that has since moved (a module split) is a miss, not a crash."""
    import pickle

    path = tmp_path / "ns" / "ab" / "abcd.pkl"
    path.parent.mkdir(parents=True)
    path.write_bytes(pickle.dumps(1).replace(b"K\x01", b"c" + b"lcl.gone_module\nThing\n" + b")\x81"))
    assert cache.cached("ns", "abcd", lambda: 42, root=tmp_path) == 42
    assert cache.cached("ns", "abcd", lambda: 0, root=tmp_path) == 42  # stored again


def test_verify_compare_detects_mismatch_within_tolerance():
    a = pd.DataFrame({"x": [1.0, 2.0], "name": ["a", "b"]})
    assert verify.compare_table("t", a, a.copy(), 1e-9, 1e-6) == []
    b = a.copy()
    b.loc[1, "x"] = 2.1
    bad = verify.compare_table("t", a, b, 0.01, 0)
    assert len(bad) == 1 and bad[0].column == "x"
    assert verify.compare_table("t", a, b, 0.2, 0) == []
    c = a.copy()
    c.loc[0, "name"] = "z"
    assert len(verify.compare_table("t", a, c, 1, 1)) == 1


def test_cli_help_lists_commands(capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main(["--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    for cmd in ("data", "tasks", "notebook", "report", "verify"):
        assert cmd in out


def test_cli_entry_point_runs():
    out = subprocess.run([sys.executable, "-m", "lcl.cli", "data", "--help"], capture_output=True, text=True)
    assert out.returncode == 0 and "fetch" in out.stdout


def test_cli_unknown_notebook_is_a_clean_error(capsys):
    assert cli.main(["notebook", "run", "99_nope", "--profile", "quick"]) == 2
    assert "no notebook source" in capsys.readouterr().err


def test_cli_unknown_benchmark_is_a_clean_error(capsys):
    assert cli.main(["tasks", "FOO"]) == 2
    assert "unknown benchmark" in capsys.readouterr().err


def test_verify_compares_claim_values_and_reasons():
    """The claims table is compared by value (within tolerance) and by reason (numbers masked)."""
    a = pd.DataFrame({"claim_id": ["x"], "status": ["outside tolerance"], "reproduced_value": [0.50],
                      "reason": ["unexplained: evidence = 0.61 covers 40% of the gap"]})
    moved = a.assign(reproduced_value=0.53, reason="unexplained: evidence = 0.62 covers 41% of the gap")
    assert verify.compare_table("claims", a, moved, 0.05, 0, masked=True) == []
    far = a.assign(reproduced_value=0.60)
    assert [m.column for m in verify.compare_table("claims", a, far, 0.05, 0, masked=True)] == ["reproduced_value"]
    explained = a.assign(reason="the cause; evidence = 0.61, within the paper's 0.6")
    assert [m.column for m in verify.compare_table("claims", a, explained, 0.05, 0, masked=True)] == ["reason"]
    tol = verify.table_tolerance("claims")
    # a substitute's claim: its reason's numbers masked; a deterministic claim's reason compared as it is
    assert tol.rule("T5.LoCaL.CodeBERTScore", "reason").mask_numbers
    assert not tol.rule("T5.LoCaL.CodeBLEU", "reason").mask_numbers
    assert tol.rule("T5.LoCaL.CodeBERTScore", "status").name == "exact"


def test_verify_columns_and_record_only(tmp_path, monkeypatch):
    """A table's ``columns`` restricts the comparison; ``record(only=...)`` copies just those tables."""
    from lcl.core import paths

    a = pd.DataFrame({"claim_id": ["x"], "status": ["holds"], "reason": ["quotes 0.10"]})
    b = a.assign(reason="quotes 0.11")
    tol = verify.TableTolerance(columns=("claim_id", "status"))
    assert verify.compare_table("claims", verify._columns(a, tol), verify._columns(b, tol), 0, 0) == []
    assert verify.compare_table("claims", a, b, 0, 0)
    (tmp_path / "tables").mkdir()
    a.to_csv(tmp_path / "tables" / "claims.csv", index=False)
    a.to_csv(tmp_path / "tables" / "other.csv", index=False)
    monkeypatch.setattr(paths, "tables", lambda: tmp_path / "tables")
    monkeypatch.setattr(verify, "expected_dir", lambda profile, **_: tmp_path / "expected" / profile)
    assert [p.name for p in verify.record("full", ["claims"])] == ["claims.csv"]


def test_one_pair_vocabulary_reads_every_file_format() -> None:
    """Our rows, our LoCaL files (``variant``) and the published format (``golden_code``,
    ``generated_code``) all become the same Pair; a row without a code names what it lacks."""
    import pytest

    from lcl.core.records import candidate_of, pair_from_row

    ours = pair_from_row({"id": "a", "reference": "r", "candidate": "c", "df_score": 0.5})
    local = pair_from_row({"id": "a", "reference": "r", "variant": "c", "df_score": 0.5})
    published = pair_from_row({"id": "a", "golden_code": "r", "generated_code": "c", "df_score": 0.5})
    assert ours == local == published and ours.candidate == "c" and ours.dataset == "LoCaL"
    assert candidate_of({"candidate": "x", "variant": "y"}) == "x"  # our own name wins
    assert candidate_of({"candidate": None, "variant": "y"}) == "y"
    with pytest.raises(KeyError, match="golden_code"):
        pair_from_row({"id": "b", "candidate": "c"})


def test_fuzzing_outcome_is_named_not_a_magic_number() -> None:
    """-1 (every run excluded), an error and a missing score are three outcomes, never a score."""
    import numpy as np

    from lcl.core.records import NO_KEPT_RUN, Outcome, Pair, df_band, has_score, outcome_of, result_outcome

    assert [has_score(v) for v in (0.0, 1.0, np.float64(0.5), NO_KEPT_RUN, None, float("nan"), True, 1.5)] == \
        [True, True, True, False, False, False, False, False]
    assert outcome_of(0.0) is Outcome.SCORED and outcome_of(NO_KEPT_RUN) is Outcome.NO_KEPT_RUN
    assert outcome_of(None) is Outcome.ERROR and outcome_of(float("nan")) is Outcome.ERROR
    assert result_outcome({"df_score": 1.0, "error": "boom"}) is Outcome.ERROR and result_outcome({}) is Outcome.ERROR
    assert Pair("a", "r", "c", "LoCaL", df_score=NO_KEPT_RUN).outcome is Outcome.NO_KEPT_RUN
    assert [df_band(v) for v in (0.0, 1e-9, 0.999, 1.0, NO_KEPT_RUN)] == ["0", "between", "between", "1", "n/a"]
    from lcl.engine.fuzz import semantics

    assert semantics.NO_KEPT_RUN == NO_KEPT_RUN  # the engine writes it out (its sandbox imports the stdlib only)
    # so are the verdict counts a label carries: the same fields, the same types
    from lcl.core.records import LabelCounts

    assert typing.get_type_hints(LabelCounts) == typing.get_type_hints(semantics.Counts)


def test_pair_row_vocabulary() -> None:
    """Past loading a pair's candidate is ``candidate``; the files' ``variant`` is read and written
    by :mod:`lcl.study.pair_files` only, and a pair file's every column is a field of the record."""
    from lcl.study import pair_files
    from lcl.core.records import PairRow

    fields = set(PairRow.__annotations__)
    assert "candidate" in fields and "variant" not in fields
    assert {pair_files.FILE_TO_RECORD.get(c, c) for c in pair_files.SCHEMA} <= fields
    row = {"id": "a", "reference": "r", "variant": "c", "df_score": 0.5}
    assert pair_files.to_file(pair_files.from_file(row)) == row
    assert pair_files.from_file(row)["candidate"] == "c"


def test_a_given_jsonl_file_fails_with_one_line_naming_file_and_line(tmp_path) -> None:
    import pytest

    from lcl.core.errors import UserError
    from lcl.core.io import read_user_jsonl

    bad = tmp_path / "pairs.jsonl"
    bad.write_text('{"id": 1}\n{"id": \n')
    with pytest.raises(UserError, match=r"pairs.jsonl:2: not valid JSON"):
        read_user_jsonl(bad)
    bad.write_bytes(b'{"id": "\xff"}\n')
    with pytest.raises(UserError, match="not UTF-8 text"):
        read_user_jsonl(bad)
    bad.write_text('{"id": 1}\n\n{"id": 2}\n')
    assert read_user_jsonl(bad) == [{"id": 1}, {"id": 2}]
