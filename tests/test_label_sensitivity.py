"""Label sensitivity of Table 5's LoCaL rows and RQ3's hit rates: the values under both label sets,
the conclusions, the fewest pairs that flip one, and where our labels come from (fuzzing faked)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pytest

from lcl.rq import label_sensitivity as LS
from lcl.study import label_agreement as L
from lcl.engine import regions
from lcl.core.profiles import get
from lcl.core.records import Pair

TH = regions.Thresholds(0.65, 0.90, 0.10, 0.90, objective=float("nan"), step=0.05, error="paper")


def _frame() -> pd.DataFrame:
    """Four mutants, two optimised variants, one pair only the authors label, one timed out."""
    return pd.DataFrame({
        "id": ["m1", "m2", "m3", "m4", "o1", "o2", "x1", "x2"],
        "benchmark": "MBPP",
        "variant_type": ["MUT", "MUT", "MUT", "MUT", "OPT", "OPT", "MUT", "OPT"],
        "SurfaceSim": [0.95, 0.95, 0.92, 0.50, 0.40, 0.60, 0.95, 0.30],
        "M": [0.9, 0.9, 0.9, 0.5, 0.5, 0.5, 0.0, 0.0],
        "df_score": [0.0, 0.0, 0.05, 0.0, 1.0, 1.0, 0.0, -1.0],  # theirs
        "ours": [0.0, 0.8, 1.0, 0.0, 1.0, 0.5, np.nan, 1.0],
    })


def test_covered_keeps_pairs_both_label_sets_score() -> None:
    f = _frame()
    assert list(LS.covered(f).id) == ["m1", "m2", "m3", "m4", "o1", "o2"]
    assert LS.coverage_counts(f) == {"released pairs": 8, "with their label": 7, "with our label": 7, "with both": 6}


def test_values_and_conclusions_under_both_label_sets() -> None:
    qs = LS.quantities(["M"], {"M": 0.5}, TH)
    t = LS.sensitivity(_frame(), qs).set_index("quantity")
    assert list(t.columns) == [c for c in LS.COLUMNS if c != "quantity"]
    # MUT, theirs: |0.9-0|*2 + |0.9-0.05| + |0.5-0| = 3.15 / 4; ours: 0.9 + 0.1 + 0.1 + 0.5 = 1.6 / 4
    mut = t.loc["MAE on LoCaL_mut"]
    assert mut.n == 4 and mut.value_theirs == pytest.approx(0.7875) and mut.value_ours == pytest.approx(0.4)
    assert mut.difference == pytest.approx(-0.3875) and mut.comparator == 0.5
    assert mut.holds_theirs and not mut.holds_ours and mut.conclusion_changes
    opt = t.loc["MAE on LoCaL_opt"]  # theirs 0.5, ours (0.5 + 0) / 2 = 0.25: "> 0.5" fails under both
    assert opt.value_theirs == pytest.approx(0.5) and opt.value_ours == pytest.approx(0.25)
    assert not opt.holds_theirs and not opt.holds_ours and not opt.conclusion_changes
    assert t.loc["MAE on LoCaL"].n == 6
    # SFD = SurfaceSim >= 0.9 and df <= 0.1: theirs m1, m2, m3 (75%); ours m1 only (25%)
    sfd = t.loc["% of mutants in SFD"]
    assert sfd.metric == "SurfaceSim" and sfd.value_theirs == 75.0 and sfd.value_ours == 25.0
    assert sfd.conclusion_changes and "more than half" in sfd.conclusion
    # DFS = SurfaceSim <= 0.65 and df >= 0.9: theirs o1, o2 (100%); ours o1 (50%, not more than half)
    dfs = t.loc["% of optimised variants in DFS"]
    assert dfs.value_theirs == 100.0 and dfs.value_ours == 50.0 and dfs.conclusion_changes


def test_unknown_baseline_decides_nothing_and_no_pairs_give_an_empty_table() -> None:
    t = LS.sensitivity(_frame(), LS.quantities(["M"], {}, TH))
    mae = t[t.quantity.str.startswith("MAE")]
    assert mae.holds_theirs.isna().all() and not mae.conclusion_changes.any()
    empty = LS.sensitivity(_frame().iloc[6:], LS.quantities(["M"], {"M": 0.5}, TH))
    assert empty.empty and list(empty.columns) == LS.COLUMNS


def test_pairs_scored_by_no_metric_are_left_out_of_its_mae() -> None:
    f = _frame()
    f.loc[f.id == "m4", "M"] = np.nan
    t = LS.sensitivity(f, LS.quantities(["M"], {"M": 0.5}, TH)).set_index("quantity")
    assert t.loc["MAE on LoCaL_mut"].n == 3 and t.loc["% of mutants in SFD"].n == 4


def test_flip_pairs_are_the_fewest_that_flip_it() -> None:
    qs = LS.quantities(["M"], {"M": 0.5}, TH)
    causes = {"m3": ("theirs: something", "evidence")}
    flips = LS.flip_pairs(_frame(), qs, causes)
    mut = flips[flips.quantity == "MAE on LoCaL_mut"]
    # contributions: m2 (0.1 - 0.9) / 4 = -0.2, m3 (0.1 - 0.85) / 4 = -0.1875; 0.7875 - 0.2 = 0.5875 still
    # holds, minus 0.1875 = 0.4 no longer does: both are needed, m2 first
    assert list(mut.id) == ["m2", "m3"] and list(mut["rank"]) == [1, 2]
    assert list(mut.contribution) == pytest.approx([-0.2, -0.1875]) and mut.value_after.iloc[-1] == pytest.approx(0.4)
    assert list(mut.cause) == ["none recorded", "theirs: something"]
    assert list(flips[flips.quantity == "% of mutants in SFD"].id) == ["m2"]  # 75 -> 50: no longer more than half
    assert list(flips[flips.quantity == "% of optimised variants in DFS"].id) == ["o2"]
    assert set(flips.quantity) == {"MAE on LoCaL_mut", "MAE on LoCaL", "% of mutants in SFD",
                                   "% of optimised variants in DFS"}
    assert list(flips.columns) == LS.PAIR_COLUMNS


def test_flip_towards_a_conclusion_that_failed_with_their_labels() -> None:
    f = _frame()
    f["df_score"], f["ours"] = f["ours"].fillna(0.0), f["df_score"]
    flips = LS.flip_pairs(f, LS.quantities(["M"], {"M": 0.5}, TH))
    mut = flips[flips.quantity == "MAE on LoCaL_mut"]
    assert list(mut.id) == ["m2", "m3"] and all(mut.contribution > 0)


def test_found_sentences_name_the_flipping_pairs() -> None:
    qs = LS.quantities(["M"], {"M": 0.5}, TH)
    t, flips = LS.sensitivity(_frame(), qs), LS.flip_pairs(_frame(), qs)
    text = "\n".join(LS.found(t, flips, LS.coverage_counts(_frame())))
    assert "6 of 8 released pairs" in text and "m2, m3" in text and "% of mutants in SFD" in text
    assert "nothing to compare" in LS.found(pd.DataFrame(columns=LS.COLUMNS), flips, {})[0]


def test_paper_thresholds_come_from_the_claims() -> None:
    th = LS.paper_thresholds()
    assert (th.x_lo, th.x_hi, th.y_lo, th.y_hi) == (0.65, 0.90, 0.10, 0.90)


def _pair(i: str, ds: str, kind: str, score: float) -> Pair:
    return Pair(id=i, reference="print(1)", candidate="print(2)", dataset=ds, benchmark="MBPP", task="MBPP/1",
                level="function", variant_type=kind, df_score=score)


@pytest.mark.parametrize("profile, stored_only", [("full", True), ("quick", False)])
def test_our_labels_come_from_01s_rederivation(monkeypatch: pytest.MonkeyPatch, profile: str,
                                               stored_only: bool) -> None:
    pairs = [_pair("a", "LoCaL_published", "MUT", 0.2), _pair("b", "CodeScore_test", "MUT", 1.0),
             _pair("c", "LoCaL_published", "OPT", 1.0)]
    seen: list[dict[str, Any]] = []

    def fake_rederive(ps: list[Pair], **kw: Any) -> pd.DataFrame:
        seen.append({"ids": [p.id for p in ps], **kw})
        return pd.DataFrame({"id": [p.id for p in ps], "ours": [0.5, None], "skipped": [None, "id names no task"]})

    monkeypatch.setattr(L, "label_pairs", lambda p: (pairs, []))
    monkeypatch.setattr(L, "rederive", fake_rederive)
    f, missing = LS.released_with_both_labels(get(profile), seed=7, jobs=1)
    assert seen[0]["ids"] == ["a", "c"] and seen[0]["stored_only"] is stored_only and seen[0]["seed"] == 7
    assert {k: seen[0][k] for k in ("n_function", "n_program")} == {
        k: L.settings_for(get(profile))[k] for k in ("n_function", "n_program")}
    assert list(f.id) == ["a", "c"] and list(f.df_score) == [0.2, 1.0] and f.ours.iloc[0] == 0.5
    assert np.isnan(f.ours.iloc[1]) and f.ours_skipped.iloc[1] == "id names no task" and not missing


def test_without_the_mirror_there_is_nothing_to_label(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(L, "label_pairs", lambda p: ([], ["LoCaL_published: not available (needs the data mirror)"]))
    monkeypatch.setattr(L, "rederive", lambda *a, **k: pytest.fail("nothing to re-derive"))
    f, missing = LS.released_with_both_labels(get("quick"), seed=1)
    assert f.empty and "ours" in f and "df_score" in f and missing


def test_rederive_stored_only_fuzzes_nothing_new(monkeypatch: pytest.MonkeyPatch) -> None:
    import lcl.engine.fuzz.algorithm
    import lcl.study.labelling
    import lcl.study.task_specs

    ran: list[list[str]] = []
    monkeypatch.setattr(lcl.study.labelling, "stored_labels", lambda rows, settings, **kw: {r["id"]: r["id"] == "a" for r in rows})

    def fake_fuzz_labels(rows: list[dict[str, Any]], settings: Any, **kw: Any) -> list[dict[str, Any]]:
        ran.append([r["id"] for r in rows])
        return [{"id": r["id"], "df_score": 0.25} for r in rows]

    monkeypatch.setattr(lcl.study.labelling, "fuzz_labels", fake_fuzz_labels)
    monkeypatch.setattr(lcl.study.task_specs, "task_uid_for_row", lambda row: "MBPP/1")
    monkeypatch.setattr(lcl.study.task_specs, "resolve_published", lambda row: {"stdin": False, "entry": "f"})
    monkeypatch.setattr(L, "check_code", lambda *a, **k: None)  # label_agreement imports it by name
    monkeypatch.setattr(lcl.study.task_specs, "spec_for", lambda uid: None)
    pairs = [_pair("a", "LoCaL_published", "MUT", 0.2), _pair("b", "LoCaL_published", "MUT", 0.2)]
    got = L.rederive(pairs, n_function=10, n_program=5, runs=1, seed=0, stored_only=True, progress=False)
    assert ran == [["a"]] and got.ours.iloc[0] == 0.25 and pd.isna(got.ours.iloc[1])
    assert got.skipped.iloc[1] == "not in the result store"
    L.rederive(pairs, n_function=10, n_program=5, runs=1, seed=0, progress=False)
    assert ran[-1] == ["a", "b"]


def test_share_margin_counts_the_pairs_between_a_share_and_half() -> None:
    assert LS.share_margin(100 * 100 / 199, 199) == 1  # 100 of 199 inside: one leaving makes it 99, not above half
    assert LS.share_margin(50.0, 4) == 1  # 2 of 4: one more is needed
    assert LS.share_margin(75.0, 4) == 1 and LS.share_margin(100.0, 4) == 2 and LS.share_margin(0.0, 5) == 3
    text = "\n".join(LS.found(LS.sensitivity(_frame(), LS.quantities(["M"], {"M": 0.5}, TH)), LS.flip_pairs(
        _frame(), LS.quantities(["M"], {"M": 0.5}, TH)), {}))
    assert "would change if 2 of the 4 pairs" in text  # SFD: 1 of 4 mutants (25%) with ours: 3 are above half
