"""What notebook 05 says about RQ3 (Section 4.5: Eq. 4, Algorithm 2), computed from its tables.

The paper's thresholds and region counts come from the claims data
(:func:`lcl.core.claim_links.paper_value`); the sentences read the tables of :mod:`lcl.rq.coverage`.
The three checks of our own pieces have their sentences in :mod:`lcl.rq.region_checks`.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from lcl.core.claim_links import paper_value
from lcl.engine import regions
from lcl.study import scoring
from lcl.study.sources import not_computed

from . import coverage

THRESHOLDS = ("x_lo", "x_hi", "y_lo", "y_hi")
CORNERS = ["SFD %", "DFS %"]


def paper_thresholds() -> dict[str, float]:
    """The paper's fitted (x_lo, x_hi, y_lo, y_hi)."""
    return {k: paper_value(f"RQ3.{k}") for k in THRESHOLDS}


def paper_counts() -> dict[str, float]:
    """The paper's pairs in SFD and DFS of LoCaL_balanced and CodeScore_test (``<dataset>.<region>``)."""
    return {f"{ds}.{r}": paper_value(f"RQ3.{tag}.{r.lower()}")
            for tag, ds in (("local", "LoCaL_balanced"), ("base", "CodeScore_test")) for r in ("SFD", "DFS")}


def metric_split(cems: Sequence[str]) -> tuple[list[str], list[str]]:
    """The scored CEMs as (substitute column labels, names of those that are not substitutes)."""
    subs = [scoring.label(n) for n in scoring.SUBSTITUTE_CEMS if scoring.label(n) in cems]
    plain = [n for n in scoring.CEMS if scoring.label(n) in cems and scoring.label(n) not in subs]
    return subs, plain


def found(th: regions.Thresholds | None, th_other: regions.Thresholds | None, grid_step: float,
          cov: pd.DataFrame, hits: pd.DataFrame, hits_paper: pd.DataFrame, by_source: pd.DataFrame) -> list[str]:
    """The thresholds Algorithm 2 fitted, LoCaL_balanced's corners against CodeScore_test's, the
    control points and the hit rates (ours and under the paper's thresholds, per source)."""
    if th is None:
        return ["- Algorithm 2 could not be fitted here (too few pairs); run a larger profile."]
    other = (f"; the {th_other.error} error gives {th_other.x_lo:.2f} / {th_other.x_hi:.2f} / {th_other.y_lo:.2f} / "
             f"{th_other.y_hi:.2f}" if th_other is not None else "")
    lines = [f"- Algorithm 2 ({th.error} error, step {grid_step}) gives x_lo = {th.x_lo:.2f}, x_hi = {th.x_hi:.2f}, "
             f"y_lo = {th.y_lo:.2f}, y_hi = {th.y_hi:.2f} (paper in the table above{other})."]
    lines += _corners(cov.set_index("Dataset"))
    h, hp = hits.set_index("Variants"), hits_paper.set_index("Variants")
    lines.append(
        f"- Hit rates: {h.loc['MUT', '%']}% of our mutants in SFD, {h.loc['OPT', '%']}% of our optimised variants in "
        "DFS (paper in the table above). By source: " +
        "; ".join(f"{r['Source']} {r['%']}% of {r['n']}" for _, r in by_source.iterrows()) +
        " (the rewriter's surface target comes from the released GPT-4 variants, not from x_lo). Under the paper's "
        f"thresholds: {hp.loc['MUT', '%']}% of the mutants in SFD (95% CI {hp.loc['MUT', 'CI low']}-"
        f"{hp.loc['MUT', 'CI high']}), {hp.loc['OPT', '%']}% of the optimised variants in DFS; by source: " +
        "; ".join(f"{r['Source']} {r[coverage.PAPER_SHARE]}%" for _, r in by_source.iterrows()) + ".")
    return lines


def _corners(c: pd.DataFrame) -> list[str]:
    pair = ["LoCaL_balanced", "CodeScore_test"]
    if not set(pair) <= set(c.index) or c.loc[pair, CORNERS].isna().to_numpy().any():
        return [not_computed("the comparison of LoCaL_balanced with the CodeScore_test baseline")]
    lo, ba = c.loc["LoCaL_balanced"], c.loc["CodeScore_test"]
    better = lo["SFD %"] > ba["SFD %"] and lo["DFS %"] > ba["DFS %"]
    return [f"- LoCaL_balanced: {lo['SFD %']}% in SFD and {lo['DFS %']}% in DFS; CodeScore_test: {ba['SFD %']}% and "
            f"{ba['DFS %']}%. " + ("LoCaL covers both corners better than the baseline, as in the paper." if better else
                                   "LoCaL does not cover both corners better than the baseline here."),
            f"- Control points: mean distance to the nearest corner {lo['Control: mean distance to SFD/DFS']} (LoCaL) "
            f"vs {ba['Control: mean distance to SFD/DFS']} (baseline)."]


def sensitivity_sentence(sens: pd.DataFrame) -> list[str]:
    """LoCaL-all's thresholds and hit rates beside LoCaL's (rows 0 and 1 of the sensitivity table)."""
    if not len(sens) or not sens["x_lo"].notna().all():
        return []
    a, b = sens.iloc[0], sens.iloc[1]
    return [f"- Sensitivity: on LoCaL-all the thresholds are {b['x_lo']:.2f} / {b['x_hi']:.2f} / {b['y_lo']:.2f} / "
            f"{b['y_hi']:.2f} (LoCaL: {a['x_lo']:.2f} / {a['x_hi']:.2f} / {a['y_lo']:.2f} / {a['y_hi']:.2f}); "
            f"mutants in SFD {b['MUT in SFD %']}% (LoCaL {a['MUT in SFD %']}%), optimised in DFS "
            f"{b['OPT in DFS %']}% (LoCaL {a['OPT in DFS %']}%)."]
