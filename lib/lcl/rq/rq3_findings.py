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
          cov: pd.DataFrame, hits: pd.DataFrame, hits_paper: pd.DataFrame, by_source: pd.DataFrame,
          rules: regions.SearchRules = coverage.PRIMARY_RULES) -> list[str]:
    """The thresholds Algorithm 2 fitted under ``rules`` (``th_other``: the same points as the paper
    prints Algorithm 2), LoCaL_balanced's corners against CodeScore_test's under the paper's
    thresholds (``cov``), the control points and the hit rates (ours and under the paper's
    thresholds, per source)."""
    if th is None:
        lines = [f"- Algorithm 2 under {rules.name} ({rules.describe()}) finds no threshold tuple on our points here "
                 "(too few pairs for its minimum region sizes); the counts below use the paper's thresholds."]
    else:
        other = (f"; {th_other.rules or th_other.error} gives {th_other.x_lo:.2f} / {th_other.x_hi:.2f} / "
                 f"{th_other.y_lo:.2f} / {th_other.y_hi:.2f}" if th_other is not None else "")
        bound = regions.on_bounds(th, rules)
        lines = [f"- Algorithm 2 under {rules.name} ({rules.describe()}) gives x_lo = {th.x_lo:.2f}, "
                 f"x_hi = {th.x_hi:.2f}, y_lo = {th.y_lo:.2f}, y_hi = {th.y_hi:.2f} on our points (paper in the table "
                 f"above{other}); " + (f"{', '.join(bound)} sit on an end of the search range."
                                       if bound else "none sits on an end of the search range.")]
    lines += _corners(cov.set_index("Dataset"))
    h, hp = hits.set_index("Variants"), hits_paper.set_index("Variants")
    ours = (f"{h.loc['MUT', '%']}% of our mutants in SFD, {h.loc['OPT', '%']}% of our optimised variants in DFS under "
            "our fit (paper in the table above). By source: " +
            "; ".join(f"{r['Source']} {r['%']}% of {r['n']}" for _, r in by_source.iterrows()) +
            " (the rewriter's surface target comes from the released GPT-4 variants, not from x_lo). "
            if th is not None else "")
    lines.append(
        f"- Hit rates: {ours}Under the paper's thresholds: {hp.loc['MUT', '%']}% of the mutants in SFD (95% CI "
        f"{hp.loc['MUT', 'CI low']}-{hp.loc['MUT', 'CI high']}), {hp.loc['OPT', '%']}% of the optimised variants in DFS; "
        "by source: " + "; ".join(f"{r['Source']} {r[coverage.PAPER_SHARE]}%" for _, r in by_source.iterrows()) + ".")
    return lines


def _fmt(r: pd.Series, k: str) -> str:
    if pd.isna(r[k]):
        return "none"
    ci = (f" [{r[k + ' CI low']:.2f}, {r[k + ' CI high']:.2f}]" if f"{k} CI low" in r and pd.notna(r[k + " CI low"])
          else "")
    return f"{r[k]:.2f}{ci}"


def _tuple(r: pd.Series) -> str:
    return "(" + ", ".join(_fmt(r, k) for k in THRESHOLDS) + ")" if pd.notna(r["x_lo"]) else "no tuple"


def bounds_sentence(paper: regions.Thresholds | None, table: pd.DataFrame,
                    rules: regions.SearchRules = coverage.PRIMARY_RULES) -> list[str]:
    """The finding on the search bounds, computed: which of the paper's thresholds sit on an end of
    the authors' search ranges, and what Algorithm 2 gives under the authors' rules with and without
    the bounds on each point set of the search-rules table (bootstrap intervals over pairs)."""
    if paper is None or table.empty:
        return [not_computed("the search-bounds check (no thresholds or no search-rules table)")]
    on = regions.on_bounds(paper, rules)
    b = rules.bounds()
    ranges = "; ".join(f"{k} in [{b[k][0]:.2f}, {b[k][1]:.2f}]" for k in THRESHOLDS)
    lines = []
    if on:
        lines.append(f"- **The paper's thresholds are bounds of its search**: {', '.join(on)} of the paper's "
                     f"({', '.join(f'{getattr(paper, k):.2f}' for k in THRESHOLDS)}) sit on an end of the range the "
                     f"authors' released script searches ({ranges}).")
    else:
        lines.append(f"- None of the paper's thresholds sits on an end of the authors' search ranges ({ranges}).")
    unbounded = rules.without("bounds").name
    for (points, _), g in table.groupby(["Points", "Metrics"], sort=False):
        rows = g.set_index("Rules")
        if rules.name not in rows.index or unbounded not in rows.index:
            continue
        a, u = rows.loc[rules.name], rows.loc[unbounded]
        if pd.isna(a["x_lo"]):
            lines.append(f"- On {points} ({a['Metrics']}; {int(a['n'])} points), no tuple meets the authors' rules.")
            continue
        moved = [k for k in THRESHOLDS if pd.notna(u[k]) and abs(u[k] - a[k]) > 1e-9]
        lines.append(f"- On {points} ({a['Metrics']}): the authors' rules give {_tuple(a)}, "
                     f"{a[coverage.ON_BOUND] or 'none'} on an end of the search range; without the bounds "
                     f"{_tuple(u)}" + (f" ({', '.join(moved)} {'moves' if len(moved) == 1 else 'move'})." if moved
                                        else " (no threshold moves)."))
    return lines


def rules_sentence(table: pd.DataFrame) -> list[str]:
    """What moves x_lo, from the search-rules table: x_lo under each rule set on each point set."""
    if table.empty:
        return []
    lines = []
    for (points, metrics), g in table.groupby(["Points", "Metrics"], sort=False):
        parts = [f"{r['Rules']} {_fmt(r, 'x_lo')}" for _, r in g.iterrows()]
        lines.append(f"- x_lo on {points} ({metrics}), by search rules: " + "; ".join(parts) + ".")
    return lines


def _corners(c: pd.DataFrame) -> list[str]:
    pair = ["LoCaL_balanced", "CodeScore_test"]
    if not set(pair) <= set(c.index) or c.loc[pair, CORNERS].isna().to_numpy().any():
        return [not_computed("the comparison of LoCaL_balanced with the CodeScore_test baseline")]
    lo, ba = c.loc["LoCaL_balanced"], c.loc["CodeScore_test"]
    better = lo["SFD %"] > ba["SFD %"] and lo["DFS %"] > ba["DFS %"]
    return [f"- Under the paper's thresholds, LoCaL_balanced: {lo['SFD %']}% in SFD and {lo['DFS %']}% in DFS; CodeScore_test: {ba['SFD %']}% and "
            f"{ba['DFS %']}%. " + ("LoCaL covers both corners better than the baseline, as in the paper." if better else
                                   "LoCaL does not cover both corners better than the baseline here."),
            f"- Control points: mean distance to the nearest corner, divided by sqrt(2) as the paper's, "
            f"{lo['Control: mean distance to SFD/DFS']} (LoCaL) vs {ba['Control: mean distance to SFD/DFS']} (baseline)."]


def sensitivity_sentence(sens: pd.DataFrame) -> list[str]:
    """LoCaL-all's thresholds and hit rates beside LoCaL's (rows 0 and 1 of the sensitivity table)."""
    if not len(sens) or not sens["x_lo"].notna().all():
        return []
    a, b = sens.iloc[0], sens.iloc[1]
    return [f"- Sensitivity: on LoCaL-all the thresholds are {b['x_lo']:.2f} / {b['x_hi']:.2f} / {b['y_lo']:.2f} / "
            f"{b['y_hi']:.2f} (LoCaL: {a['x_lo']:.2f} / {a['x_hi']:.2f} / {a['y_lo']:.2f} / {a['y_hi']:.2f}); "
            f"mutants in SFD {b['MUT in SFD %']}% (LoCaL {a['MUT in SFD %']}%), optimised in DFS "
            f"{b['OPT in DFS %']}% (LoCaL {a['OPT in DFS %']}%)."]
