"""Where CodeScore_base's training pool comes from (`codescore_base.pool_audit`) and the RQ5
training settings: the CPU substitute by default, the paper-like fine-tune only on request."""

from __future__ import annotations

import pytest

from lcl.core import profiles
from lcl.rq import rq5
from lcl.study import codescore_base, sources


def test_codescore_test_ids_name_their_problems():
    ids = ["MBPP_102_4", "APPS_test-0001_19", "MBPP_11_1", "APPS_test-0715_15", "MBPP_102_7"]
    assert codescore_base._codescore_test_tasks(ids, "MBPP") == {"102", "11"}
    assert codescore_base._codescore_test_tasks(ids, "APPS") == {"1", "715"}  # as load_apps numbers them


@pytest.mark.skipif(not (sources.available("mbpp") and sources.available("codescore_test")), reason="needs the mirror")
def test_pool_audit_counts_no_apps_mbpp_candidates_outside_the_evaluation_sets():
    from lcl.study import loaders

    ids = [p.id for p in loaders.load_codescore_test()]
    rows = {r["source"].split()[0]: r for r in codescore_base.pool_audit(7, [{"id": i} for i in ids])}
    assert rows["MBPP"]["candidate programs"] == 0 and rows["APPS"]["candidate programs"] == 0
    mbpp = rows["MBPP"]
    assert mbpp["problems"] is not None and 0 < mbpp["outside every evaluation set"] < mbpp["problems"]
    assert rows["APPS"]["outside every evaluation set"] == 0  # every APPS program here is an evaluated problem


def test_the_cpu_setting_is_the_default_and_the_paper_like_one_is_separate():
    full = profiles.get("full")
    cpu, paper = rq5.rq5_config(full), rq5.rq5_config(full, "paper-like")
    assert (cpu["unfreeze_layers"], cpu["max_steps"], cpu["batch_size"], cpu["max_length"]) == (1, 40, 16, 128)
    assert paper["unfreeze_layers"] is None and paper["max_length"] == 512 and paper["max_steps"] is None
    assert paper["patience"] > 0  # early stopping on the validation split
    with pytest.raises(ValueError):
        rq5.rq5_config(full, "gpu")
