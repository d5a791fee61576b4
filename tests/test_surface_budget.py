"""The rewriter's surface target (lcl.study.surface_budget): recorded from the authors' released GPT-4
variants, drawn per task, and never an RQ3 threshold."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from lcl.study import candidate_generation, local_build, surface_budget
from lcl.core import records
from lcl.core.records import Task


def test_the_recorded_quantiles_span_the_released_distribution() -> None:
    t = surface_budget.recorded()
    assert list(t["q"]) == pytest.approx(list(np.linspace(0, 1, surface_budget.QUANTILES)))
    assert t["surface_sim"].is_monotonic_increasing and 0 < t["surface_sim"].min() < t["surface_sim"].max() < 1


@pytest.mark.mirror
def test_the_recorded_quantiles_are_the_ones_the_release_gives() -> None:
    fresh = surface_budget.quantile_table(surface_budget.released_values(local_build.published_pairs(records.Ledger())))
    pd.testing.assert_frame_equal(fresh, surface_budget.recorded(), check_dtype=False)


def test_targets_are_seeded_per_task_and_follow_the_recorded_distribution() -> None:
    t = surface_budget.recorded()
    draws = np.array([surface_budget.target(f"task{i}", 20250101) for i in range(2000)])
    assert surface_budget.target("task3", 20250101) == draws[3]
    assert surface_budget.target("task3", 1) != draws[3]
    assert t["surface_sim"].min() <= draws.min() and draws.max() <= t["surface_sim"].max()
    median = float(t.set_index("q").loc[0.5, "surface_sim"])
    assert abs(float(np.median(draws)) - median) < 0.02
    # a spread of targets, not one stop value (the old rule stopped every variant at 0.65)
    assert np.quantile(draws, 0.9) - np.quantile(draws, 0.1) > 0.1


def test_the_candidates_use_the_drawn_target(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[float] = []
    import lcl.engine.variants as variants

    real = variants.optimise

    def spy(code: str, **kw: object):  # type: ignore[no-untyped-def]
        seen.append(float(kw["target_similarity"]))  # type: ignore[arg-type]
        return real(code, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(variants, "optimise", spy)
    monkeypatch.setattr(candidate_generation, "optimise", spy)  # imported there by name
    task = Task(benchmark="HumanEval", task_id="HumanEval/0", level="function",
                reference="def f(xs):\n    r = []\n    for x in xs:\n        r.append(x * 2)\n    return r\n",
                entry_point="f")
    candidate_generation._task_candidates(task, "HE0", 0, seed=11)
    assert seen == [surface_budget.target(task.uid, 11)]
