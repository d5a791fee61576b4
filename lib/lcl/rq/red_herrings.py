"""Study X3 (beyond the paper): equivalent mutants as red herrings.

A first-order mutant that differential fuzzing cannot kill (``df_score == 1``) differs from its
reference by one small edit and so *looks* like a bug, exactly as a killed mutant
(``df_score == 0``) does. A CEM that tracks semantics should still score the equivalent mutant
higher; one that tracks form cannot tell the two apart. The paper does not study this; it
follows from its SFD argument (similar form, different semantics) turned around: among pairs of
equally similar form, does the metric see the semantics?

The comparison is made inside *matched groups*: mutants of the same task made by the same
mutation operator (:func:`matched_groups`), keeping only groups with at least one equivalent and
one killed mutant. Mutants with an intermediate ``df_score`` (partly equivalent) are left out:
they are neither red herrings nor plain bugs.

Two AUROCs per metric (:func:`auroc_table`):

- the *pooled* AUROC over every equivalent-vs-killed comparison across groups; it mixes in
  differences between tasks (a long reference, where one edit barely moves the score, may have
  more equivalent mutants than a short one), so a metric can score well on it without seeing any
  semantics;
- the *within-group* AUROC: each group's AUROC, averaged with weight ``n_equivalent x n_killed``
  (its number of comparisons), i.e. the share of same-task, same-operator comparisons ordered
  correctly. Same task and same operator hold the reference and the kind of edit fixed, and with
  them most of the surface similarity to the reference, so this is the fair comparison.

CIs come from a cluster bootstrap: groups (not mutants) are resampled with replacement, since
mutants of one group share their reference and are not independent. Every resample is seeded
(:func:`lcl.engine.stats.bootstrap_ci`), so a table is reproducible.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from scipy import stats as sps

from lcl.core.records import Finding, PairRow, finding_slug
from lcl.engine import stats
from lcl.study import scoring

from .effectiveness import labelled

if TYPE_CHECKING:
    from matplotlib.figure import Figure

SURFACE = "SurfaceSim"
#: ``variant_type`` of a first-order mutant
MUTANT = "MUT"
#: ``df_score`` of an equivalent (never killed) and of a killed (always killed) mutant
EQUIVALENT_AT, KILLED_AT = 1.0, 0.0
#: the ``benchmark`` value of the row pooled over all benchmarks
ALL = "all"

COUNT_COLUMNS = ["benchmark", "mutants", "equivalent", "killed", "partial", "groups", "groups_matched",
                 "equivalent_matched", "killed_matched"]
AUROC_COLUMNS = ["benchmark", "metric", "n_equivalent", "n_killed", "n_groups", "auroc_pooled",
                 "auroc_pooled_ci_low", "auroc_pooled_ci_high", "auroc_within", "auroc_within_ci_low",
                 "auroc_within_ci_high"]
GAP_COLUMNS = ["metric", "n_equivalent", "n_killed", "n_groups", "mean_equivalent", "mean_killed", "gap",
               "gap_ci_low", "gap_ci_high"]


# ----------------------------------------------------------------------------- groups
def mutant_frame(rows: Sequence[PairRow]) -> pd.DataFrame:
    """The labelled mutants of ``rows`` (pairs with a df_score, not every run excluded) as a pairs
    table with each mutant's MutPy ``operator``, ready to score (X3 compares them within a task
    and operator)."""
    frame = labelled(scoring.pairs_frame(rows))
    operators = pd.DataFrame({"id": [r["id"] for r in rows], "operator": [r.get("operator") for r in rows]})
    frame = frame.merge(operators.drop_duplicates("id"), on="id", how="left")
    return frame[frame.variant_type == MUTANT].reset_index(drop=True)


def _mutants(frame: pd.DataFrame) -> pd.DataFrame:
    """Mutant rows with an operator and a usable (non-negative) df_score."""
    missing = {"benchmark", "task", "variant_type", "operator", "df_score"} - set(frame.columns)
    if missing:
        raise ValueError(f"a mutants table needs the columns {sorted(missing)}")
    f = frame[(frame["variant_type"] == MUTANT) & frame["operator"].notna()]
    return f[f["df_score"].notna() & (f["df_score"] >= 0)]


def _group_key(f: pd.DataFrame) -> pd.Series:
    # the benchmark is part of the key because task names need not be unique across benchmarks
    return f["benchmark"].astype(str) + "|" + f["task"].astype(str) + "|" + f["operator"].astype(str)


def matched_groups(frame: pd.DataFrame) -> pd.DataFrame:
    """The mutants in matched groups, with columns ``group`` (``benchmark|task|operator``) and
    ``equivalent`` (True for ``df_score == 1``, False for ``df_score == 0``).

    Only mutants (``variant_type == "MUT"``) with an operator are used; partly equivalent mutants
    (0 < df_score < 1) are dropped; a (task, operator) group is kept only when it has at least
    one equivalent and one killed mutant. :func:`group_counts` reports what was kept."""
    f = _mutants(frame)
    f = f[(f["df_score"] == EQUIVALENT_AT) | (f["df_score"] == KILLED_AT)]
    f = f.assign(group=_group_key(f), equivalent=f["df_score"] == EQUIVALENT_AT)
    return _both_classes(f).reset_index(drop=True)


def _both_classes(f: pd.DataFrame) -> pd.DataFrame:
    """The rows of the groups holding at least one equivalent and one killed mutant."""
    n_eq, n = f.groupby("group")["equivalent"].sum(), f.groupby("group").size()
    return f[f["group"].isin(n.index[(n_eq > 0) & (n_eq < n)])]


def group_counts(frame: pd.DataFrame) -> pd.DataFrame:
    """How many mutants, equivalent, killed and partly equivalent ones, groups, and matched groups
    (with their mutants) there are, per benchmark and pooled (``benchmark == "all"``)."""
    m, matched = _mutants(frame), matched_groups(frame)
    rows = []
    for bench in [ALL, *sorted(m["benchmark"].astype(str).unique())]:
        f = m if bench == ALL else m[m["benchmark"].astype(str) == bench]
        g = matched if bench == ALL else matched[matched["benchmark"].astype(str) == bench]
        rows.append({"benchmark": bench, "mutants": len(f), "equivalent": int((f["df_score"] == EQUIVALENT_AT).sum()),
                     "killed": int((f["df_score"] == KILLED_AT).sum()),
                     "partial": int(((f["df_score"] > KILLED_AT) & (f["df_score"] < EQUIVALENT_AT)).sum()),
                     "groups": int(_group_key(f).nunique()) if len(f) else 0,
                     "groups_matched": int(g["group"].nunique()), "equivalent_matched": int(g["equivalent"].sum()),
                     "killed_matched": int((~g["equivalent"]).sum())})
    return pd.DataFrame(rows, columns=COUNT_COLUMNS)


def _ensure_matched(frame: pd.DataFrame) -> pd.DataFrame:
    return frame if {"group", "equivalent"} <= set(frame.columns) else matched_groups(frame)


def _metric_order(frame: pd.DataFrame, metrics: Sequence[str] | None) -> list[str]:
    """``metrics`` (default: the CEM columns) with SurfaceSim first, as the reference line."""
    cols = list(metrics) if metrics is not None else scoring.cem_columns(frame)
    rest = [c for c in cols if c != SURFACE]
    return ([SURFACE] if SURFACE in frame.columns else []) + rest


# ----------------------------------------------------------------------------- AUROC
def auroc(scores: np.ndarray | Sequence[float], labels: np.ndarray | Sequence[bool]) -> float:
    """AUROC: the probability that a positive (``labels`` True: an equivalent mutant) scores higher
    than a negative (a killed one), ties counting 1/2. Computed as U / (n_pos x n_neg) with the
    Mann-Whitney U statistic of the positives; NaN when either class is empty."""
    s, lab = np.asarray(scores, float), np.asarray(labels, bool)
    if s.shape != lab.shape:
        raise ValueError("auroc needs as many labels as scores")
    pos, neg = s[lab], s[~lab]
    if not len(pos) or not len(neg):
        return float("nan")
    # the asymptotic method skips the exact p-value, which is costly and not used here
    u = sps.mannwhitneyu(pos, neg, alternative="two-sided", method="asymptotic").statistic
    return float(u) / (len(pos) * len(neg))


class _Groups:
    """Scores and labels of one metric split by matched group, for group-level resampling."""

    def __init__(self, f: pd.DataFrame, metric: str) -> None:
        parts = [(g[metric].to_numpy(float), g["equivalent"].to_numpy(bool)) for _, g in f.groupby("group", sort=True)]
        self.scores = [p[0] for p in parts]
        self.labels = [p[1] for p in parts]
        self.weights = np.array([lab.sum() * (~lab).sum() for lab in self.labels], float)
        self.aucs = np.array([auroc(s, lab) for s, lab in zip(self.scores, self.labels)], float)

    def __len__(self) -> int:
        return len(self.scores)

    def pooled(self, idx: np.ndarray) -> float:
        return auroc(np.concatenate([self.scores[i] for i in idx]), np.concatenate([self.labels[i] for i in idx]))

    def within(self, idx: np.ndarray) -> float:
        return float(np.sum(self.aucs[idx] * self.weights[idx]) / np.sum(self.weights[idx]))

    def gap(self, idx: np.ndarray) -> float:
        s, lab = np.concatenate([self.scores[i] for i in idx]), np.concatenate([self.labels[i] for i in idx])
        return float(s[lab].mean() - s[~lab].mean())


def _usable(f: pd.DataFrame, metric: str) -> pd.DataFrame:
    """Rows where ``metric`` has a score, re-matched (a metric that cannot score some pairs,
    such as CodeScore on Java, may leave a group with one class only)."""
    return _both_classes(f[f[metric].notna()])


def _cluster_ci(groups: _Groups, stat: Callable[[np.ndarray], float], n_boot: int, seed: int) -> tuple[float, float]:
    """Percentile CI of ``stat`` over resamples of whole groups (seeded; the same seed draws the
    same groups for every metric with the same groups, so metrics are compared on equal draws)."""
    return stats.bootstrap_ci(np.arange(len(groups)), lambda v: stat(v.astype(int)), n_boot=n_boot, seed=seed)


def _r(x: float) -> float:
    return round(float(x), 4) + 0.0  # + 0.0 turns a rounded -0.0 into 0.0


def auroc_table(frame: pd.DataFrame, metrics: Sequence[str] | None = None, n_boot: int = 2000,
                seed: int = 0) -> pd.DataFrame:
    """Per benchmark (``"all"`` first, then each benchmark) and metric (SurfaceSim first): the
    numbers of equivalent and killed mutants and of matched groups, the pooled AUROC and the
    within-group AUROC, each with a 95 % cluster-bootstrap CI (groups resampled, seeded).

    ``frame``: a scored pairs table (mutants are selected and matched here) or the output of
    :func:`matched_groups`. The within-group AUROC is the fair comparison (see the module text)."""
    matched = _ensure_matched(frame)
    rows = []
    for bench in [ALL, *sorted(matched["benchmark"].astype(str).unique())]:
        f = matched if bench == ALL else matched[matched["benchmark"].astype(str) == bench]
        for metric in _metric_order(frame, metrics):
            g = _Groups(_usable(f, metric), metric)
            row: dict[str, object] = {"benchmark": bench, "metric": metric,
                                      "n_equivalent": int(sum(lab.sum() for lab in g.labels)),
                                      "n_killed": int(sum((~lab).sum() for lab in g.labels)), "n_groups": len(g)}
            if not len(g):
                rows.append({**row, **dict.fromkeys(AUROC_COLUMNS[5:], np.nan)})
                continue
            everything = np.arange(len(g))
            lo_p, hi_p = _cluster_ci(g, g.pooled, n_boot, seed)
            lo_w, hi_w = _cluster_ci(g, g.within, n_boot, seed)
            rows.append({**row, "auroc_pooled": _r(g.pooled(everything)), "auroc_pooled_ci_low": _r(lo_p),
                         "auroc_pooled_ci_high": _r(hi_p), "auroc_within": _r(g.within(everything)),
                         "auroc_within_ci_low": _r(lo_w), "auroc_within_ci_high": _r(hi_w)})
    return pd.DataFrame(rows, columns=AUROC_COLUMNS)


def score_gaps(frame: pd.DataFrame, metrics: Sequence[str] | None = None, n_boot: int = 2000,
               seed: int = 0) -> pd.DataFrame:
    """Per metric (SurfaceSim first): mean score of the equivalent minus that of the killed mutants
    of the matched groups, with a 95 % cluster-bootstrap CI (groups resampled, seeded). A gap
    near 0 means the metric scores a harmless edit like a bug."""
    matched = _ensure_matched(frame)
    rows = []
    for metric in _metric_order(frame, metrics):
        g = _Groups(_usable(matched, metric), metric)
        if not len(g):
            rows.append({"metric": metric, "n_equivalent": 0, "n_killed": 0, "n_groups": 0,
                         **dict.fromkeys(GAP_COLUMNS[4:], np.nan)})
            continue
        s, lab = np.concatenate(g.scores), np.concatenate(g.labels)
        lo, hi = _cluster_ci(g, g.gap, n_boot, seed)
        rows.append({"metric": metric, "n_equivalent": int(lab.sum()), "n_killed": int((~lab).sum()),
                     "n_groups": len(g), "mean_equivalent": _r(s[lab].mean()), "mean_killed": _r(s[~lab].mean()),
                     "gap": _r(g.gap(np.arange(len(g)))), "gap_ci_low": _r(lo), "gap_ci_high": _r(hi)})
    return pd.DataFrame(rows, columns=GAP_COLUMNS)


def plot_scores(mutants: pd.DataFrame, auroc: pd.DataFrame, metrics: Sequence[str]) -> Figure:
    """Figure X3: one panel per metric, the scores of the equivalent (df = 1) and the killed (df = 0)
    mutants of the matched task x operator groups (:func:`matched_groups` of ``mutants``) as violins,
    titled with the metric's within-group AUROC over every benchmark (``auroc``: :func:`auroc_table`)."""
    import matplotlib.pyplot as plt

    matched = matched_groups(mutants)
    fig, axes = plt.subplots(1, len(metrics), figsize=(2.3 * len(metrics), 3.4), sharey=True)
    for ax, m in zip(np.atleast_1d(axes), metrics):
        parts = [matched.loc[matched.equivalent, m].dropna().to_numpy(float),
                 matched.loc[~matched.equivalent, m].dropna().to_numpy(float)]
        if all(len(p) for p in parts):
            ax.violinplot(parts, showmedians=True)
        ax.set_xticks([1, 2], [f"equivalent\n(df = 1, n = {len(parts[0])})", f"killed\n(df = 0, n = {len(parts[1])})"],
                      fontsize=7)
        row = auroc[(auroc.benchmark == ALL) & (auroc.metric == m)]
        a = float(row["auroc_within"].iloc[0]) if len(row) else float("nan")
        ax.set_title(f"{m}\nAUROC within {a:.2f}", fontsize=8)
    np.atleast_1d(axes)[0].set_ylabel("score vs reference")
    fig.suptitle("X3: scores of equivalent and killed mutants (matched task x operator groups)", fontsize=10)
    fig.tight_layout()
    return fig


def findings(counts: pd.DataFrame, auroc: pd.DataFrame, min_groups: int) -> list[Finding]:
    """X3's findings: how many matched groups there are (:func:`group_counts`, its "all" row first)
    and each metric's within-group AUROC over every benchmark (:func:`auroc_table`), whether its CI
    includes 0.5, and a warning when fewer than ``min_groups`` groups make the interval say little."""
    c_all = counts.iloc[0]  # the "all" row: every benchmark together
    items = [Finding(
        "X3.matched_groups", "X3", "task x operator groups holding both equivalent and killed mutants",
        int(c_all["groups_matched"]),
        f"{int(c_all['groups_matched'])} of {int(c_all['groups'])} task x operator groups hold both an equivalent "
        f"(df = 1) and a killed (df = 0) mutant ({int(c_all['equivalent_matched'])} equivalent, "
        f"{int(c_all['killed_matched'])} killed), out of {int(c_all['mutants'])} LoCaL-all mutants.",
        n=int(c_all["mutants"]))]
    for _, r in auroc[auroc.benchmark == ALL].iterrows():
        if np.isnan(r["auroc_within"]):
            continue
        lo, hi = float(r["auroc_within_ci_low"]), float(r["auroc_within_ci_high"])
        chance = ("includes" if lo <= 0.5 <= hi else "excludes") + " 0.5 (chance)"
        if int(r["n_groups"]) < min_groups:
            chance += f", but with fewer than {min_groups} groups the interval says little"
        items.append(Finding(
            f"X3.auroc_within.{finding_slug(r['metric'])}", "X3", f"within-group AUROC of {r['metric']}, equivalent "
            "vs killed mutants", float(r["auroc_within"]),
            f"{r['metric']} ranks an equivalent mutant above a killed one of the same task and operator with "
            f"probability {r['auroc_within']:.3f} (95% CI {lo:.3f} to {hi:.3f}, {int(r['n_groups'])} groups); the CI "
            f"{chance}.", lo, hi, int(r["n_groups"])))
    return items


def what_we_found(counts: pd.DataFrame, auroc: pd.DataFrame, min_groups: int) -> list[str]:
    """Notebook 10's X3 lines: each metric's within-group AUROC over every benchmark with its CI
    (:func:`auroc_table`; SurfaceSim as the form-only reference line) and which metrics' CIs lie
    above, below or around 0.5, with the number of matched groups (:func:`group_counts`) and a
    warning below ``min_groups``."""
    a_all = auroc[auroc.benchmark == ALL].set_index("metric")
    surf = a_all.loc[SURFACE] if SURFACE in a_all.index else None
    n_groups = int(counts.loc[0, "groups_matched"])
    first = ("- X3: " + (", ".join(f"{m} {a_all.loc[m, 'auroc_within']:.2f} [{a_all.loc[m, 'auroc_within_ci_low']:.2f}, "
                                   f"{a_all.loc[m, 'auroc_within_ci_high']:.2f}]" for m in a_all.index
                                   if not np.isnan(a_all.loc[m, "auroc_within"]))
                         or "no matched groups at this profile")
             + f" (within-group AUROC, equivalent vs killed mutants, {n_groups} matched groups"
             + (f"; SurfaceSim, the form-only reference line, {surf['auroc_within']:.2f})." if surf is not None
                and not np.isnan(surf["auroc_within"]) else ")."))
    rows = a_all[a_all["auroc_within"].notna()]
    below = [m for m in rows.index if rows.loc[m, "auroc_within_ci_high"] < 0.5]
    above = [m for m in rows.index if rows.loc[m, "auroc_within_ci_low"] > 0.5]
    level = [m for m in rows.index if m not in below + above]
    return [first,
            f"- X3 with {n_groups} matched groups"
            + (f" (fewer than {min_groups}: too few to judge)" if n_groups < min_groups else "") + ": "
            f"CI includes 0.5 for {', '.join(level) or 'none'}; above 0.5 for {', '.join(above) or 'none'}; "
            f"below 0.5 (equivalent mutants scored *lower* than killed ones) for {', '.join(below) or 'none'}. "
            "The pooled AUROC and the per-benchmark rows of `x3_auroc` are the sensitivity rows."]
