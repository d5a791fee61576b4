"""RQ3 (paper Section 4.5) read without our own pieces: the region machinery checked apart from the
thresholds we fit and the variants we built.

Three checks, each a table of notebook 05:

- :func:`paper_threshold_table` applies the paper's (x_lo, x_hi, y_lo, y_hi) to our
  LoCaL_balanced and to CodeScore_test. CodeScore_test is the authors' own pairs and labels and our
  SurfaceSim (Eq. 1) equals theirs, so its counts under the paper's thresholds are a direct check
  of Eq. 4 on the paper's own data.
- :func:`released_hits` counts the authors' released variants (GPT-4 optimisations of
  HumanEval, MBPP and APPS, PIE's fast programs, their mutants) inside DFS / SFD, under the
  paper's thresholds and ours: no generator of ours and no threshold of ours shaped them.
- :func:`ablation` fits Algorithm 2 again with metric sets that leave the substitutes out, with
  and without the minimum region sizes, and on the authors' released pairs (with their own metric
  scores); what the search rules themselves do is :func:`lcl.rq.coverage.search_rules_table`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from lcl.core.claim_links import PAPER_CEMS
from lcl.engine import regions
from lcl.study import scoring
from lcl.study.sources import not_computed

from . import coverage

X, Y = coverage.X, coverage.Y
PAPER_THRESHOLDS, ABLATION = "rq3_coverage_paper_thresholds", "rq3_ablation"
RELEASED = coverage.RELEASED
_KEYS = ("x_lo", "x_hi", "y_lo", "y_hi")


def paper_thresholds(values: dict[str, float], step: float) -> regions.Thresholds | None:
    """The paper's fitted thresholds (read from the claims data by the caller) as a
    :class:`~lcl.engine.regions.Thresholds`; None when one of them is missing."""
    if any(values.get(k) is None or math.isnan(values[k]) for k in _KEYS):
        return None
    x_lo, x_hi, y_lo, y_hi = (float(values[k]) for k in _KEYS)
    return regions.Thresholds(x_lo, x_hi, y_lo, y_hi, objective=math.nan, step=step, error="paper")


def paper_threshold_table(frames: dict[str, pd.DataFrame], paper: regions.Thresholds | None,
                          ours: regions.Thresholds | None, paper_counts: dict[str, float]) -> pd.DataFrame:
    """Counts per region of each dataset under the paper's thresholds and under ours, with the
    paper's counts (``paper_counts[f"{dataset}.{region}"]``, from the claims data) beside them, and
    the control points' mean distance to the nearest corner (divided by sqrt(2), as the paper's)."""
    rows = []
    for label, th in (("paper's", paper), (OURS_LABEL, ours)):
        for _, r in coverage.region_table(frames, th).iterrows():
            rows.append({"Thresholds": label, "Dataset": r["Dataset"], "n": r["n"], "SFD": r["SFD"], "DFS": r["DFS"],
                         "SFD %": r["SFD %"], "DFS %": r["DFS %"], coverage.CTRL: r[coverage.CTRL],
                         "SFD (paper)": paper_counts.get(f"{r['Dataset']}.SFD"),
                         "DFS (paper)": paper_counts.get(f"{r['Dataset']}.DFS")})
    return pd.DataFrame(rows, columns=["Thresholds", "Dataset", "n", "SFD", "DFS", "SFD %", "DFS %", coverage.CTRL,
                                       "SFD (paper)", "DFS (paper)"])


#: the paper-threshold table's label of our fit (Algorithm 2 under the authors' search rules)
OURS_LABEL = "ours (Algorithm 2, authors' rules)"


#: the released pairs' sources as the paper names them (Section 2.3): GPT-4 optimised the
#: function-level benchmarks' references; PIE's fast programs are human-written
_OPT_SOURCE = {"HumanEval": "GPT-4 (HumanEval)", "MBPP": "GPT-4 (MBPP)", "APPS": "GPT-4 (APPS)",
               "PIE": "PIE fast programs"}


#: the two threshold sets of :func:`released_hits` (the claims read the paper's)
PAPERS, OURS = "paper's thresholds", "ours"


def inside_column(label: str) -> str:
    return f"inside, {label}"


def share_column(label: str) -> str:
    """The share's column; its Wilson interval is in ``<share> CI low`` / ``<share> CI high``."""
    return f"%, {label}"


def released_hits(released: pd.DataFrame, paper: regions.Thresholds | None,
                  ours: regions.Thresholds | None) -> pd.DataFrame:
    """The authors' released variants inside their corner (optimised -> DFS, mutants -> SFD), per
    source and in all, under the paper's thresholds and ours: count, share and Wilson 95% CI."""
    thresholds = {PAPERS: paper, OURS: ours}
    rows = []
    for kind, region in (("OPT", "DFS"), ("MUT", "SFD")):
        g_kind = released[released.variant_type == kind]
        groups = [(f"all {kind}", g_kind)]
        groups += [(_OPT_SOURCE.get(b, b) if kind == "OPT" else f"mutants ({b})", g)
                   for b, g in g_kind.groupby("benchmark", sort=True)]
        for name, g in groups:
            row: dict[str, str | float | None] = {"Variants": name, "Region": region, "n": len(g),
                                                  "mean SurfaceSim": round(float(g[X].mean()), 3) if len(g) else None}
            for label, th in thresholds.items():
                if th is None or g.empty:
                    row.update({inside_column(label): None, share_column(label): None,
                                f"{share_column(label)} CI low": None, f"{share_column(label)} CI high": None})
                    continue
                hit = int(np.sum(regions.assign(g[X].to_numpy(float), g[Y].to_numpy(float), th) == region))
                lo, hi = coverage.wilson(hit, len(g))
                row.update({inside_column(label): hit, share_column(label): round(100 * hit / len(g), 2),
                            f"{share_column(label)} CI low": lo, f"{share_column(label)} CI high": hi})
            rows.append(row)
    return pd.DataFrame(rows)


#: the ablation's column saying which floor rule a row used ("none": the rule before the floor)
FLOOR_RULE = "floor rule"
#: the ablation's point sets: ours (our LoCaL_balanced and CodeScore_test, as notebook 05 fits them);
#: a balanced draw of the authors' released pairs, with CodeScore_test or alone with their own scores
OUR_POINTS, AUTHORS_POINTS = "ours", "released, the authors' scores"


@dataclass(frozen=True)
class Fit:
    """One Algorithm 2 run of the ablation: which points, which metric columns, which floor."""

    fitted_on: str
    frames: dict[str, pd.DataFrame] = field(hash=False, compare=False)
    metrics: tuple[str, ...]
    floor: float = coverage.MIN_REGION_SHARE


def ablation_fits(frames: dict[str, pd.DataFrame], cems: list[str], substitutes: list[str],
                  released: dict[str, pd.DataFrame] | None = None,
                  released_authors: pd.DataFrame | None = None) -> list[Fit]:
    """The ablation's runs: the four CEMs (the one used) with and without the minimum region size;
    without the substitutes, without each substitute, each CEM alone; on the authors' released
    pairs with CodeScore_test (the deterministic CEMs, ours), and on the released pairs alone with
    the authors' own scores of every CEM (their CodeBERT and CodeScore)."""
    ours = OUR_POINTS
    plain = [c for c in cems if c not in substitutes]
    fits = [Fit(ours, frames, tuple(cems)), Fit(ours, frames, tuple(cems), 0.0), Fit(ours, frames, tuple(plain))]
    for s in substitutes:
        without = tuple(c for c in cems if c != s)
        fits += [Fit(ours, frames, without), Fit(ours, frames, without, 0.0)]
    fits += [Fit(ours, frames, (c,)) for c in cems]
    if released is not None:
        fits.append(Fit("released + CodeScore_test", released, tuple(plain)))
    if released_authors is not None and not released_authors.empty:
        authors = {"released LoCaL_balanced": released_authors}
        every = tuple(c for c in PAPER_CEMS if c in released_authors)
        fits += [Fit(AUTHORS_POINTS, authors, every), Fit(AUTHORS_POINTS, authors, every, 0.0),
                 Fit(AUTHORS_POINTS, authors,
                     tuple(c for c in every if c in ("CodeBLEU", "CrystalBLEU")))]
    return fits


def ablation(fits: list[Fit], count_on: dict[str, pd.DataFrame], paper: regions.Thresholds | None, *,
             step: float, error: regions.ErrorKind, rules: regions.SearchRules | None = None) -> pd.DataFrame:
    """One row per fit: its thresholds, objective and smallest region (on the points it was fitted
    on), and the SFD / DFS counts its thresholds give on ``count_on`` (our LoCaL_balanced and
    CodeScore_test, the same for every row); the paper's thresholds as the last row. With ``rules``
    every fit runs under them, a fit whose ``floor`` is 0 without their minimum region sizes
    ("region floor": the smallest minimum); without, the former rule (``floor`` of the points)."""
    rows = []
    for f in fits:
        union = pd.concat(list(f.frames.values()), ignore_index=True).dropna(subset=[X, Y, *f.metrics])
        if rules is not None:
            r = rules if f.floor else rules.without("min_sizes")
            th = coverage.fit(f.frames, list(f.metrics), rules=r)
            floor, rule_text = min(r.minimums(len(union))), _sizes_text(r, len(union))
        else:
            th = coverage.fit(f.frames, list(f.metrics), step=step, error=error, min_share=f.floor)
            floor, rule_text = coverage.min_region(len(union), f.floor), f"{f.floor:.0%} of the points" if f.floor else "none"
        smallest = (min(regions.region_counts(regions.assign(union[X], union[Y], th)).values())
                    if th is not None else None)
        rows.append({**_row(f.fitted_on, ", ".join(f.metrics), floor, len(union), th, smallest, count_on),
                     FLOOR_RULE: rule_text})
    rows.append({**_row("(the paper's fit)", "the paper's four CEMs", None, None, paper, None, count_on),
                 FLOOR_RULE: None})
    out = pd.DataFrame(rows)
    # the floor rule beside the floor it gave, so a reader of a wide table sees both together
    first = ["Fitted on", "Metrics", FLOOR_RULE, "region floor"]
    out = out[first + [c for c in out.columns if c not in first]]
    counts = [c for c in out.columns if c in ("points", "region floor", "smallest region") or c.endswith(("SFD", "DFS"))]
    return out.astype(dict.fromkeys(counts, "Int64"))  # counts stay integers beside the paper row's blanks


#: the search-rules table's point sets: ours, and the authors' released pairs (their own scores) with
#: CodeScore_test (ours: the reimplemented CEMs, then each substitute in)
RULE_OURS, RULE_AUTHORS = "ours", "released LoCaL (authors' scores) + CodeScore_test"


def rule_point_sets(frames: dict[str, pd.DataFrame], cems: list[str], substitutes: list[str],
                    released_authors: pd.DataFrame | None) -> list[coverage.PointSet]:
    """The point sets of :func:`lcl.rq.coverage.search_rules_table`: our LoCaL_balanced and
    CodeScore_test with every CEM and with the reimplemented ones only; a balanced draw of the
    authors' released pairs (their SurfaceSim, labels and scores of all four CEMs) with our scored
    CodeScore_test, on CodeBLEU and CrystalBLEU, then with each substitute in (the authors' value on
    their pairs, ours on CodeScore_test), then with both."""
    plain = [c for c in cems if c not in substitutes]
    sets = [coverage.PointSet(RULE_OURS, frames, tuple(cems))]
    if plain and plain != cems:
        sets.append(coverage.PointSet(RULE_OURS, frames, tuple(plain)))
    if released_authors is None or released_authors.empty or "CodeScore_test" not in frames:
        return sets
    base = frames["CodeScore_test"].rename(columns={c: scoring.paper_name(c) for c in cems})
    named = [scoring.paper_name(c) for c in cems]
    have = [c for c in named if c in released_authors.columns and c in base.columns]
    det = [scoring.paper_name(c) for c in plain if scoring.paper_name(c) in have]
    subs = [scoring.paper_name(c) for c in substitutes if scoring.paper_name(c) in have]
    pair = {"released LoCaL_balanced": released_authors, "CodeScore_test": base}
    for metrics in ([det] if det else []) + [det + [s] for s in subs] + ([det + subs] if len(subs) > 1 else []):
        sets.append(coverage.PointSet(RULE_AUTHORS, pair, tuple(metrics)))
    return sets


def _sizes_text(rules: regions.SearchRules, n: int) -> str:
    d, s, c = rules.minimums(n)
    return "none" if d == s == c == 1 else f"{d} DFS, {s} SFD, {c} Control"


def _row(fitted_on: str, metrics: str, floor: int | None, n: int | None, th: regions.Thresholds | None,
         smallest: int | None, count_on: dict[str, pd.DataFrame]) -> dict[str, str | float | None]:
    row: dict[str, str | float | None] = {
        "Fitted on": fitted_on, "Metrics": metrics, "points": n, "region floor": floor,
        **{k: getattr(th, k) if th else None for k in _KEYS},
        "objective": round(th.objective, 4) if th and not math.isnan(th.objective) else None,
        "smallest region": smallest}
    cov = coverage.region_table(count_on, th).set_index("Dataset") if th else pd.DataFrame()
    for ds in count_on:
        for region in ("SFD", "DFS"):
            row[f"{ds} {region}"] = int(cov.loc[ds, region]) if ds in cov.index else None
    return row


# ----------------------------------------------------------------------------- sentences of notebook 05
def paper_threshold_sentence(table: pd.DataFrame) -> str:
    """The "what we found" line on :func:`paper_threshold_table`: each dataset's SFD and DFS counts
    under the paper's thresholds (Section 4.5.2)."""
    p = table[table.Thresholds == "paper's"].set_index("Dataset")
    if p.empty:
        return not_computed("the counts under the paper's thresholds")
    parts = [f"{ds}: SFD {int(r['SFD'])}, DFS {int(r['DFS'])} of {int(r['n'])}" for ds, r in p.iterrows()]
    return "- Under the paper's thresholds: " + "; ".join(parts) + " (the paper's counts in the table above)."


def released_sentence(table: pd.DataFrame) -> str:
    """The "what we found" line on :func:`released_hits`: the authors' released optimised variants in
    DFS and mutants in SFD, under the paper's thresholds and under ours."""
    r = table.set_index("Variants")
    if "all OPT" not in r.index or not r.loc["all OPT", "n"]:
        return not_computed("the released variants' check (no released pairs in this run)")
    o, m = r.loc["all OPT"], r.loc["all MUT"]
    inside, share = inside_column, share_column
    return (f"- The authors' released variants under the paper's thresholds: {o[inside(PAPERS)]:.0f} of {o['n']:.0f} "
            f"optimised in DFS ({o[share(PAPERS)]}%, 95% CI {o[share(PAPERS) + ' CI low']}-"
            f"{o[share(PAPERS) + ' CI high']}); {m[inside(PAPERS)]:.0f} of {m['n']:.0f} mutants in SFD "
            f"({m[share(PAPERS)]}%). Under ours: {o[share(OURS)]}% and {m[share(OURS)]}%.")


def ablation_sentence(table: pd.DataFrame) -> str:
    """The "what we found" line on :func:`ablation`: the thresholds Algorithm 2 gives on our points
    over the metric sets with a region floor, and on the other fitted points."""
    floored = table[FLOOR_RULE].fillna("none") != "none"
    fitted = table[table["x_lo"].notna() & floored]
    ours = fitted[fitted["Fitted on"] == OUR_POINTS]
    other = fitted[fitted["Fitted on"] != OUR_POINTS]
    if ours.empty:
        return not_computed("the Algorithm 2 ablation on our points (no metric set could be fitted here)")
    text = (f"- Algorithm 2 ablation: on our points, x_lo is {', '.join(f'{x:.2f}' for x in sorted(set(ours.x_lo)))} "
            f"and x_hi {', '.join(f'{x:.2f}' for x in sorted(set(ours.x_hi)))} over {len(ours)} metric sets "
            f"(first fitted row, {ours.iloc[0]['Metrics']}: {ours.iloc[0].x_lo:.2f} / {ours.iloc[0].x_hi:.2f})")
    text += "".join(f"; {r['Metrics']} on {r['Fitted on']}: {r['x_lo']:.2f} / {r['x_hi']:.2f} / {r['y_lo']:.2f} / "
                    f"{r['y_hi']:.2f}" for _, r in other.iterrows())
    return text + " (x_lo / x_hi / y_lo / y_hi; the paper's in the last row of the table)."
