"""Re-deriving the published labels: which are re-derived, with
which N and R, the agreement arithmetic, and ``lcl inputs agreement`` (fuzzing faked)."""

from __future__ import annotations

import pandas as pd
import pytest

from lcl.study import label_agreement as L
from lcl.study import loaders
from lcl.core.errors import UserError
from lcl.core.profiles import get
from lcl.core.records import Pair


def _pairs(ds: str, k: int) -> list[Pair]:
    return [Pair(id=f"{ds}_{i}", reference="print(1)", candidate="print(2)", dataset=ds, benchmark="MBPP",
                 task=f"MBPP/{i}", level="function", variant_type="MUT", df_score=0.5) for i in range(k)]


def test_bucket() -> None:
    from lcl.core.records import df_band

    assert [df_band(v) for v in (0.0, 0.3, 1.0, -1.0, None, float("nan"))] == ["0", "between", "1", "n/a", "n/a", "n/a"]


def test_settings_are_the_papers_at_full_only() -> None:
    full, quick = get("full"), get("quick")
    assert L.settings_for(full) == {"n_function": 2000, "n_program": 1000, "runs": full.fuzz_runs}
    assert L.settings_for(quick) == {"n_function": 100, "n_program": 30, "runs": quick.fuzz_runs}


def test_label_pairs_every_pair_at_full_a_sample_otherwise(monkeypatch: pytest.MonkeyPatch) -> None:
    sets = {"LoCaL_published": lambda: _pairs("A", 100), "CodeScore_test": lambda: _pairs("B", 50)}
    monkeypatch.setattr(loaders, "PAIR_LOADERS", sets)
    monkeypatch.setattr(loaders, "benchmark_available", lambda name: True)
    full, missing = L.label_pairs(get("full"))
    assert len(full) == 150 and not missing
    quick, _ = L.label_pairs(get("quick"))
    assert [p.id for p in quick] == [f"A_{i}" for i in range(0, 100, 4)] + [f"B_{i}" for i in range(0, 50, 2)]

    def broken() -> list[Pair]:
        raise FileNotFoundError("no such file")

    monkeypatch.setattr(loaders, "PAIR_LOADERS", {**sets, "CodeScore_test": broken})
    got, missing = L.label_pairs(get("full"))
    assert len(got) == 100 and missing == ["CodeScore_test: not available (no such file)"]
    monkeypatch.setattr(loaders, "benchmark_available", lambda name: False)
    got, missing = L.label_pairs(get("full"))
    assert got == [] and len(missing) == 2


def _rederived() -> pd.DataFrame:
    return pd.DataFrame({
        "id": ["a", "b", "c", "d"], "dataset": "LoCaL_published", "benchmark": ["MBPP", "MBPP", "MBPP", "APPS"],
        "task": None, "variant_type": "MUT", "theirs": [0.0, 0.5, 1.0, 0.2], "ours": [0.0, 0.9, None, 0.2],
        "abs_diff": [0.0, 0.4, None, 0.0], "bucket_theirs": ["0", "between", "1", "between"],
        "bucket_ours": ["0", "between", "n/a", "between"], "spec": ["verified", "inferred", None, "verified"],
        "counts": None, "skipped": [None, None, "id names no task", None]})


def test_agreement_math() -> None:
    a = L.agreement(_rederived()).set_index("benchmark")
    assert a.loc["MBPP", "pairs"] == 3 and a.loc["MBPP", "fuzzed"] == 2 and a.loc["MBPP", "skipped"] == 1
    assert a.loc["MBPP", "MAE"] == pytest.approx(0.2) and a.loc["MBPP", "bucket agreement"] == 1.0
    assert a.loc["MBPP", "verified-spec pairs"] == 1 and a.loc["MBPP", "MAE (verified)"] == 0.0
    assert a.loc["APPS", "MAE"] == 0.0


def test_agreement_cli(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture, tmp_path) -> None:  # noqa: ANN001
    from lcl.cli import main

    seen: list[dict] = []

    def fake_rederive(pairs, **kw):  # noqa: ANN001, ANN003, ANN202
        seen.append({"n": len(pairs), **kw})
        return _rederived()

    monkeypatch.setattr(L, "label_pairs", lambda profile: (_pairs("A", 4), ["CodeScore_test: not available (x)"]))
    monkeypatch.setattr(L, "rederive", fake_rederive)
    out = tmp_path / "rows.csv"
    assert main(["inputs", "agreement", "--profile", "quick", "--jobs", "1", "--no-progress", "--out", str(out)]) == 0
    assert seen == [{"n": 4, "n_function": 100, "n_program": 30, "runs": get("quick").fuzz_runs, "seed": 20250101,
                     "jobs": 1, "progress": False}]
    cap = capsys.readouterr()
    assert "CodeScore_test: not available" in cap.err and "bucket agreement" in cap.out and "targets:" in cap.out
    assert "by cause family" in cap.out and "unexamined" in cap.out  # b: |diff| 0.4, nobody recorded a cause
    rows = pd.read_csv(out)
    assert list(rows["id"]) == ["a", "b", "c", "d"] and "counts" not in rows
    assert list(rows["cause"]) == ["agree", "unexamined", "not fuzzed: id names no task", "agree"]
    monkeypatch.setattr(L, "label_pairs", lambda profile: ([], ["x"]))
    assert main(["inputs", "agreement", "--profile", "quick"]) == 0  # nothing to re-derive: skipped, said so
    assert "no published labels" in capsys.readouterr().err and len(seen) == 1
    assert main(["inputs", "agreement", "--profile", "nope"]) == 2


FAMILIES = {"theirs", "ours", "distribution", "equality", "environment", "broken variant"}


def test_recorded_causes_are_well_formed(tmp_path) -> None:  # noqa: ANN001
    causes = L.recorded_causes()
    assert len(causes) >= 100  # every examined |diff| > 0.2 of the N = 200 study (docs/LABELS.md)
    for pid, (cause, evidence) in causes.items():
        assert pid.split("_")[0] in {"LOCAL", "MBPP", "APPS", "PIE"}, pid
        assert cause.split(":")[0].strip() in FAMILIES, (pid, cause)
        assert evidence.strip(), pid
    if loaders.benchmark_available("APPS"):  # the released pairs (data mirror): every id names one of them
        pairs, _ = L.label_pairs(get("full"))
        assert set(causes) <= {p.id for p in pairs}
    assert L.recorded_causes(tmp_path / "absent.csv") == {}
    bad = tmp_path / "bad.csv"
    bad.write_text("pair,why\nx,y\n")
    with pytest.raises(UserError, match="expected columns id, cause, evidence"):
        L.recorded_causes(bad)


def test_causes_summary_and_sentence() -> None:
    df = _rederived().assign(identical=[False, False, False, False])
    got = L.with_causes(df, {})
    assert list(got["cause"]) == ["agree", "unexamined", "not fuzzed: id names no task", "agree"]
    got = L.with_causes(df, {"b": ("distribution: trigger rate", "rare branch"), "c": ("theirs: x", "y")})
    assert got.loc[2, "cause"] == "not fuzzed: id names no task"  # no score of ours: no cause applies
    minus = L.with_causes(df.assign(ours=[0.0, 0.9, -1.0, 0.2], skipped=None), {})
    assert minus.loc[2, "cause"] == "no score: every run excluded (df_score = -1)"
    assert got.loc[1, "cause_family"] == "distribution" and got.loc[1, "evidence"] == "rare branch"
    small = df.assign(abs_diff=[0.0, 0.1, None, 0.0])
    assert L.with_causes(small, {}).loc[1, "cause"] == "small: sampling"
    same = small.assign(identical=[False, True, False, False])
    assert L.with_causes(same, {}).loc[1, "cause"] == "theirs: identical code labelled < 1"
    summary = L.cause_summary(got)
    assert summary.to_dict("records") == [{"dataset": "LoCaL_published", "benchmark": "MBPP", "|diff| > 0.2": 1,
                                           "distribution": 1}]
    assert L.cause_sentence(summary, "LoCaL_published", "MBPP") == " Of its 1 pairs with |diff| > 0.2: distribution 1."
    assert L.cause_sentence(summary, "LoCaL_published", "APPS") == ""
    assert L.cause_summary(L.with_causes(small, {})).empty
