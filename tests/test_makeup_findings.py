"""Notebook 02's tables and checks around Table 2, on small hand-set pairs."""

from __future__ import annotations

from lcl.core.records import Ledger
from lcl.study import makeup, makeup_findings


def test_a_ledger_reads_as_one_line_per_row() -> None:
    ledger = Ledger()
    ledger.generated["MUT"] += 3
    ledger.drop("MUT", "does not compile")
    assert ledger.lines() == ["generated: MUT = 3", "excluded: MUT: does not compile = 1"]


def test_surface_agreement_counts_only_pairs_that_carry_the_authors_value() -> None:
    published = [{"surface_sim": 0.5, "surface_sim_published": 0.5},
                 {"surface_sim": 0.5, "surface_sim_published": 0.6},
                 {"surface_sim": 0.5, "surface_sim_published": None}]
    assert makeup_findings.surface_agreement(published) == (1, 2)


def test_clones_meet_the_dfs_target_only_with_pairs_inside_both_bounds() -> None:
    ok = {"pairs": 4, "mean_surface_sim": makeup.DFS_MAX_SURFACE_SIM - 0.1, "mean_df_score": 1.0}
    assert makeup_findings.clones_meet_dfs(ok)
    assert not makeup_findings.clones_meet_dfs({**ok, "pairs": 0})
    assert not makeup_findings.clones_meet_dfs({**ok, "mean_surface_sim": makeup.DFS_MAX_SURFACE_SIM + 0.01})
    assert not makeup_findings.clones_meet_dfs({**ok, "mean_df_score": makeup.DFS_MIN_DF - 0.01})


def test_the_papers_table2_line_reads_the_claims() -> None:
    from lcl.core.claim_links import paper_value

    line = makeup_findings.paper_table2_line()
    assert line.startswith(f"Paper Table 2: optimised {paper_value('T2.opt.total'):g} pairs")
