"""Small library functions notebooks 04, 07, 10 and 11 call instead of looping themselves."""

from __future__ import annotations

import pandas as pd

from lcl.core import claim_links
from lcl.core.profiles import get
from lcl.rq import calibration, distinguish, red_herrings, robustness, rq5_capacity


def test_curated_count_and_rejected_examples() -> None:
    rows = [{"id": "a", "variant_type": "OPT", "in_local": True}, {"id": "b", "variant_type": "OPT"},
            {"id": "c", "variant_type": "MUT", "in_local": True}]
    assert robustness.curated_count(rows, "OPT") == 1 and robustness.curated_count(rows, "MUT") == 1
    verified = pd.DataFrame({"id": ["x", "y"], "outcome": [robustness.VERIFIED, "behaviour_changed"],
                             "df_score": [1.0, 0.5], "original": ["a = 1\n", "b = 1\n"],
                             "perturbed": ["a = 1\n", "b = 2\n"]})
    shown = robustness.rejected_examples(verified)
    assert shown.startswith("**y** (behaviour_changed, df_score = 0.5)") and "-b = 1\n+b = 2" in shown
    assert robustness.rejected_examples(verified.iloc[:1]) == ""


def test_mutant_frame_keeps_labelled_mutants_with_their_operator() -> None:
    base = {"reference": "r", "candidate": "c", "dataset": "LoCaL", "benchmark": "MBPP", "task": "MBPP/1",
            "level": "function", "lang": "python"}
    rows = [{**base, "id": "m1", "variant_type": "MUT", "df_score": 0.0, "operator": "AOR"},
            {**base, "id": "m2", "variant_type": "MUT", "df_score": -1.0, "operator": "ROR"},
            {**base, "id": "o1", "variant_type": "OPT", "df_score": 1.0}]
    frame = red_herrings.mutant_frame(rows)
    assert frame.id.tolist() == ["m1"] and frame.operator.tolist() == ["AOR"]


def test_names_counts_seeds_and_paper_values() -> None:
    assert rq5_capacity.setting_names(get("smoke")).count(";") == len(rq5_capacity.settings(get("smoke"))) - 1
    frame = pd.DataFrame({"benchmark": ["PIE", "APPS", "PIE"]})
    assert calibration.benchmark_counts(frame) == "APPS 1, PIE 2"
    reps = [distinguish.Repetition(0, 11, [], [], []), distinguish.Repetition(1, 12, [], [], [])]
    assert distinguish.repetition_seeds(reps) == [11, 12]
    assert claim_links.paper_values(["T4.CodeBLEU.eq"]) == {"T4.CodeBLEU.eq": claim_links.paper_value("T4.CodeBLEU.eq")}
