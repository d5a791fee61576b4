"""RQ4 (paper Section 4.6, Table 5): how much worse are CEMs on LoCaL than on existing data?

MAE (Section 4.2) of each CEM against the ground truth on CodeScore_test, LoCaL, its
optimisation-only and mutation-only subsets, ShareCode_java (binary labels; no CodeScore on
Java) and the extra sets this compendium adds. Then, per metric, the 100 LoCaL pairs with the
largest error: their mean |SurfaceSim - df_score| and where they come from.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from lcl.core import claim_links
from lcl.core.claim_links import Derived, Link
from lcl.core.records import PairRow, has_score
from lcl.engine import stats
from lcl.study import scoring
from lcl.study.makeup import OPT_SOURCES, opt_source

if TYPE_CHECKING:
    from matplotlib.figure import Figure

SURFACE = "SurfaceSim"
TABLE5, INCREASE, WORST, BY_BENCH = "table5_mae", "rq4_increase", "rq4_worst_cases", "rq4_mae_by_benchmark"
T5_SETS = ("CodeScore_test", "LoCaL", "LoCaL_opt", "LoCaL_mut", "ShareCode_java")
#: the trivial model of RQ4's comparisons: a "metric" that gives every pair the same score, the mean
#: label of CodeScore_test (the existing data a metric is calibrated on); MAE per set, bootstrap CI
CONSTANT, CONSTANT_BASE = "constant score (trivial)", "CodeScore_test"
_INCREASE_CI = ("normal approximation from Table 5's bootstrap CIs over pairs (half-width / 1.96 per MAE, LoCaL "
                "and CodeScore_test independent), the four CEMs taken as perfectly correlated (they score the same "
                "pairs; an upper bound on the spread); the per-pair scores are not in the tables, so no joint "
                "bootstrap over pairs")
_WORST_CI = ("percentile bootstrap over the four CEMs' worst-100 means (rq4_worst_cases; 2000 resamples, seed 0): "
             "the per-pair gaps are not in the tables, so the spread between CEMs is the uncertainty used")
#: the published LoCaL pairs: our implementations' MAE (table5_mae) and the authors' own scores' MAE
#: (rq4_author_scores) on the same pairs; the substitutes' agreement with the authors is measured here
PUBLISHED, AUTHORS, AUTHOR_ROW = "LoCaL_published", "rq4_author_scores", "LoCaL_published (authors' scores)"


def _z_se(t: pd.DataFrame, ds: str, col: str) -> float:
    row = t.set_index("Dataset").loc[ds]
    return (float(row[f"{col} CI high"]) - float(row[f"{col} CI low"])) / 2 / 1.959964


def _increase_interval(t: dict[str, pd.DataFrame]) -> tuple[float, float]:
    inc, t5 = t[INCREASE], t[TABLE5]
    ses = [float(np.hypot(_z_se(t5, "LoCaL", c), _z_se(t5, "CodeScore_test", c))) for c in inc["Metric"]]
    value, se = float(inc["increase"].mean()), float(np.mean(ses))
    return value - 1.959964 * se, value + 1.959964 * se


def _worst_interval(t: dict[str, pd.DataFrame]) -> tuple[float, float]:
    return stats.bootstrap_ci(t[WORST]["mean |SurfaceSim - df_score|"].to_numpy(float), n_boot=2000, seed=0)


def _t5_links() -> list[Link | Derived]:
    labels = [scoring.label(m) for m in scoring.CEMS]
    out: list[Link | Derived] = [
        Link(f"T5.{ds}.{scoring.paper_name(lb)}", TABLE5, "Dataset", ds, lb, low=f"{lb} CI low", high=f"{lb} CI high")
        for ds in T5_SETS for lb in labels if not (ds == "ShareCode_java" and lb == scoring.label("codescore_style"))]
    out += [Link(f"aux.RQ4.ratio.{scoring.paper_name(lb)}", INCREASE, "Metric", lb, "ratio", paper=False)
            for lb in labels]
    out += [Link(f"aux.RQ4.bench.{b}.{scoring.paper_name(lb)}", BY_BENCH, "benchmark", b, lb, paper=False)
            for b in ("HumanEval", "MBPP", "APPS", "PIE") for lb in labels]
    out += [Link(f"aux.T5.published.{scoring.paper_name(lb)}", TABLE5, "Dataset", PUBLISHED, lb, low=f"{lb} CI low",
                 high=f"{lb} CI high", paper=False) for lb in labels]
    out += [Link(f"aux.T5.constant.{ds}", TABLE5, "Dataset", ds, CONSTANT, low=f"{CONSTANT} CI low",
                 high=f"{CONSTANT} CI high", paper=False) for ds in T5_SETS]
    out += [Link(f"aux.RQ4.author.{scoring.paper_name(lb)}", AUTHORS, "Dataset", AUTHOR_ROW, scoring.paper_name(lb),
                 paper=False) for lb in labels]
    out += [Derived("RQ4.mean_mae_increase", (INCREASE,), lambda t: float(t[INCREASE]["increase"].mean()),
                    interval=_increase_interval, interval_tables=(INCREASE, TABLE5), interval_reason=_INCREASE_CI),
            Derived("RQ4.worst100_gap", (WORST,), lambda t: float(t[WORST]["mean |SurfaceSim - df_score|"].mean()),
                    interval=_worst_interval, interval_tables=(WORST,), interval_reason=_WORST_CI)]
    return out


#: Table 5's claims (MAE with a bootstrap 95 % CI over pairs) and Section 4.6's numbers
CLAIMS: list[Link | Derived] = _t5_links()


def with_paper(table: pd.DataFrame) -> pd.DataFrame:
    """Table 5 with the paper's MAE beside ours (from the claim declarations)."""
    return claim_links.add_paper_columns(table, CLAIMS, TABLE5)


def mae_ci(scores: np.ndarray, truth: np.ndarray, seed: int, n_boot: int = 1000) -> tuple[float, float]:
    """Percentile bootstrap 95 % CI of the MAE over pairs (NaN for fewer than two pairs)."""
    err = np.abs(np.asarray(scores, float) - np.asarray(truth, float))
    if len(err) < 2:
        return float("nan"), float("nan")
    idx = np.random.default_rng(seed).integers(0, len(err), size=(n_boot, len(err)))
    lo, hi = np.quantile(err[idx].mean(axis=1), [0.025, 0.975])
    return round(float(lo), 4), round(float(hi), 4)


def cap(frame: pd.DataFrame, n: int | None, seed: int) -> pd.DataFrame:
    """At most ``n`` rows, drawn with ``seed`` (all rows when ``n`` is None)."""
    if n is None or len(frame) <= n:
        return frame.reset_index(drop=True)
    return frame.sample(n=n, random_state=seed).sort_values("id").reset_index(drop=True)


def labelled(frame: pd.DataFrame) -> pd.DataFrame:
    """Rows with a usable ground truth (timed-out pairs, df_score = -1, excluded as in the paper)."""
    return frame[frame.df_score.map(has_score).astype(bool)].reset_index(drop=True)  # bool: an empty mask too


def with_sources(frame: pd.DataFrame, rows: list[PairRow]) -> pd.DataFrame:
    """``frame`` (built from ``rows`` by :func:`lcl.study.scoring.pairs_frame`, same order) with the
    columns ``in_local`` (LoCaL; clones count as in LoCaL's DFS side), ``curated`` and
    ``opt_source`` (:func:`lcl.study.makeup.opt_source`: where an optimised variant comes from)."""
    if len(frame) != len(rows):
        raise ValueError(f"{len(frame)} frame rows for {len(rows)} pairs: build the frame from the same rows")
    return frame.assign(in_local=[bool(r.get("in_local", True)) for r in rows],
                        curated=[bool(r.get("curated", r.get("in_local", True))) for r in rows],
                        opt_source=[opt_source(r) for r in rows])




def with_sim(rows: list[PairRow]) -> pd.DataFrame:
    """``rows`` as a frame (:func:`lcl.study.scoring.pairs_frame`) with their sources (:func:`with_sources`)
    and the SurfaceSim that notebook 02 recorded in the pair files."""
    return with_sources(scoring.pairs_frame(rows), rows).assign(SurfaceSim=[r["surface_sim"] for r in rows])

def in_local(frame: pd.DataFrame) -> pd.DataFrame:
    """The LoCaL rows (the sample at Table 2's makeup) of a LoCaL-all frame (see :func:`with_sources`)."""
    return frame[frame["in_local"].astype(bool)].reset_index(drop=True)


def curated(frame: pd.DataFrame) -> pd.DataFrame:
    """The LoCaL-curated rows (every curated pair) of a LoCaL-all frame (see :func:`with_sources`)."""
    return frame[frame["curated"].astype(bool)].reset_index(drop=True)


def opt_by_source(frames: dict[str, pd.DataFrame], metric_columns: list[str]) -> pd.DataFrame:
    """MAE per CEM of optimised (DFS) pairs per set and ``opt_source``, with the mean SurfaceSim
    and df_score of each group (the rewriter's SurfaceSim targets come from the released variants,
    :mod:`lcl.study.surface_budget`)."""
    rows = []
    for name, f in frames.items():
        for source in OPT_SOURCES:
            g = f[f["opt_source"] == source]
            if g.empty:
                continue
            row: dict[str, object] = {"Set": name, "Source": source, "n": len(g),
                                      "mean SurfaceSim": round(float(g[SURFACE].mean()), 3) if SURFACE in g else np.nan,
                                      "mean df_score": round(float(g.df_score.mean()), 3)}
            row.update({c: round(stats.mae(g[c], g.df_score), 3) if g[c].notna().all() else np.nan
                        for c in metric_columns if c in g})
            rows.append(row)
    return pd.DataFrame(rows)


def table5(scored: dict[str, pd.DataFrame], metric_columns: list[str], seed: int = 0) -> pd.DataFrame:
    """MAE per dataset (rows) and CEM (columns); NaN where a CEM cannot score the language. Each
    MAE has a bootstrap 95 % CI over the dataset's pairs (``<CEM> CI low`` / ``<CEM> CI high``)."""
    rows = []
    for name, f in scored.items():
        row: dict[str, object] = {"Dataset": name, "n": len(f)}
        cis: dict[str, object] = {}
        for col in metric_columns:
            ok = f[col].notna() if col in f else pd.Series(False, index=f.index)
            row[col] = round(stats.mae(f.loc[ok, col], f.loc[ok, "df_score"]), 3) if ok.any() else np.nan
            cis[f"{col} CI low"], cis[f"{col} CI high"] = (
                mae_ci(f.loc[ok, col], f.loc[ok, "df_score"], seed) if ok.any() else (np.nan, np.nan))
        row["mean score (all CEMs)"] = round(float(np.nanmean([f[c].mean() for c in metric_columns if c in f])), 3)
        rows.append({**row, **cis})
    return _with_constant(pd.DataFrame(rows), scored, seed)


def constant_score(scored: dict[str, pd.DataFrame]) -> float:
    """The trivial model's score: the mean df_score of CodeScore_test (NaN without it)."""
    base = scored.get(CONSTANT_BASE)
    labels = base["df_score"].dropna() if base is not None and "df_score" in base else pd.Series(dtype=float)
    return float(labels.mean()) if len(labels) else float("nan")


def _with_constant(table: pd.DataFrame, scored: dict[str, pd.DataFrame], seed: int) -> pd.DataFrame:
    """``table`` with the trivial model's MAE and its CI per set (NaN without CodeScore_test)."""
    c = constant_score(scored)
    cells: list[tuple[float, float, float]] = []
    for name in table["Dataset"] if len(table) else []:
        y = scored[name]["df_score"].dropna().to_numpy(float) if "df_score" in scored[name] else np.array([])
        if np.isnan(c) or not len(y):
            cells.append((np.nan, np.nan, np.nan))
            continue
        lo, hi = mae_ci(np.full(len(y), c), y, seed)
        cells.append((round(stats.mae(np.full(len(y), c), y), 3), lo, hi))
    mae, low, high = ([cell[i] for cell in cells] for i in range(3))
    return table.assign(**{CONSTANT: mae, f"{CONSTANT} CI low": low, f"{CONSTANT} CI high": high})


def increase(table: pd.DataFrame, metric_columns: list[str], hard: str = "LoCaL",
             base: str = "CodeScore_test") -> pd.DataFrame:
    """Per CEM: MAE on ``hard`` minus and over MAE on ``base`` (the paper's "x times" and the
    mean increase over the four CEMs)."""
    t = table.set_index("Dataset")
    rows = [{"Metric": c, "increase": round(t.loc[hard, c] - t.loc[base, c], 3),
             "ratio": round(t.loc[hard, c] / t.loc[base, c], 2) if t.loc[base, c] else np.nan}
            for c in metric_columns]
    return pd.DataFrame(rows)


def increase_by_group(inc: pd.DataFrame, groups: dict[str, list[str]],
                      paper: dict[str, tuple[float, float]]) -> pd.DataFrame:
    """The mean MAE increase (LoCaL minus CodeScore_test, :func:`increase`) over each group of
    metrics, ours and the paper's, the paper's computed from its own Table 5 values
    (``paper[metric] = (MAE on LoCaL, MAE on CodeScore_test)``, read from the claims data), so a
    group that leaves the substitutes out is compared on the same metrics on both sides."""
    by = inc.set_index("Metric")
    rows = []
    for name, metrics in groups.items():
        have = [m for m in metrics if m in by.index]
        theirs = [paper[m][0] - paper[m][1] for m in have if m in paper]
        rows.append({"Metrics": name, "n": len(have),
                     "mean increase": round(float(by.loc[have, "increase"].mean()), 3) if have else np.nan,
                     "mean increase (paper's Table 5)": round(float(np.mean(theirs)), 3) if theirs else np.nan,
                     "ratio order (ours)": " > ".join(by.loc[have, "ratio"].sort_values(ascending=False).index),
                     "ratio order (paper's Table 5)": " > ".join(sorted(
                         [m for m in have if m in paper and paper[m][1]],
                         key=lambda m: -paper[m][0] / paper[m][1]))})
    return pd.DataFrame(rows)


def worst_cases(scored: pd.DataFrame, metric_columns: list[str], k: int = 100) -> tuple[pd.DataFrame, pd.DataFrame]:
    """For each CEM, the ``k`` pairs with the largest |score - df_score|: their mean error, mean
    |SurfaceSim - df_score| and mean score; and a breakdown of those pairs by source benchmark
    and variant type."""
    summary, breakdown = [], []
    for col in metric_columns:
        f = scored.dropna(subset=[col]).copy()
        f["error"] = (f[col] - f.df_score).abs()
        top = f.sort_values(["error", "id"], ascending=[False, True]).head(k)
        summary.append({"Metric": col, "k": len(top), "mean error": round(top.error.mean(), 3),
                        "mean |SurfaceSim - df_score|": round((top[SURFACE] - top.df_score).abs().mean(), 3),
                        "mean score": round(top[col].mean(), 3), "mean df_score": round(top.df_score.mean(), 3)})
        for (bench, kind), g in top.groupby(["benchmark", "variant_type"]):
            breakdown.append({"Metric": col, "benchmark": bench, "variant_type": kind, "pairs": len(g)})
    return pd.DataFrame(summary), pd.DataFrame(breakdown)


def mae_by_benchmark(scored: pd.DataFrame, metric_columns: list[str]) -> pd.DataFrame:
    """MAE per source benchmark of LoCaL (the paper: APPS worst, then PIE)."""
    rows = []
    for bench, g in scored.groupby("benchmark"):
        rows.append({"benchmark": bench, "n": len(g),
                     **{c: round(stats.mae(g[c], g.df_score), 3) for c in metric_columns if g[c].notna().all()}})
    return pd.DataFrame(rows)



def mae_by_benchmark_within_kind(scored: pd.DataFrame, metric_columns: list[str]) -> pd.DataFrame:
    """MAE per source benchmark within the mutants and within the optimised variants, beside each
    benchmark's share of mutants: a benchmark that is worst overall only because it holds more
    mutants is not worst within either kind, so the ranking's cause (composition or metric) shows."""
    mut_share = scored.groupby("benchmark")["variant_type"].apply(lambda v: 100 * float((v == "MUT").mean()))
    rows = []
    for (kind, bench), g in scored.groupby(["variant_type", "benchmark"], sort=True):
        rows.append({"variant_type": kind, "benchmark": bench, "n": len(g),
                     "benchmark's mutant share (%)": round(float(mut_share[bench]), 1),
                     **{c: round(stats.mae(g[c], g.df_score), 3) for c in metric_columns if g[c].notna().all()}})
    return pd.DataFrame(rows)


def worst_benchmark(table: pd.DataFrame, metric: str) -> dict[str, str]:
    """The benchmark with the highest MAE of ``metric`` per variant type (of
    :func:`mae_by_benchmark_within_kind`), or per row set when ``table`` has no variant type."""
    if metric not in table or table[metric].isna().all():
        return {}
    groups = table.groupby("variant_type") if "variant_type" in table else [("all", table)]
    return {str(k): str(g.loc[g[metric].idxmax(), "benchmark"]) for k, g in groups if g[metric].notna().any()}


def agreement_with_authors(scored: pd.DataFrame, authors: pd.DataFrame, metric_columns: list[str],
                           seed: int = 0) -> pd.DataFrame:
    """How closely each of our metric columns follows the authors' own values of the same metric
    on the same released pairs (joined by id), in all and per variant type: Spearman rho with a
    bootstrap 95% CI (does it rank pairs alike?) and the mean absolute difference of the scores
    (does it give the same numbers?). A reimplementation should sit near rho = 1 and 0; a
    substitute shows here how far it is from the model it stands in for."""
    theirs_named = authors.drop(columns=["variant_type", "df_score"], errors="ignore").rename(
        columns={**{c: f"{c} (authors)" for c in AUTHOR_KEYS.values()}, "benchmark": "_release_benchmark"})
    joined = scored.merge(theirs_named, on="id")
    # per source benchmark too: HumanEval and MBPP pairs are functions, APPS and PIE programs, so
    # a substitute trained on one level shows here where its agreement holds and where it fails
    benches = sorted(joined["_release_benchmark"].dropna().unique()) if "_release_benchmark" in joined else []
    groups = [("all", joined), ("OPT", joined[joined.variant_type == "OPT"]),
              ("MUT", joined[joined.variant_type == "MUT"])]
    groups += [(f"{b} ({BENCH_LEVEL.get(b, '?')})", joined[joined["_release_benchmark"] == b]) for b in benches]
    rows = []
    for col in metric_columns:
        theirs = f"{scoring.paper_name(col)} (authors)"
        if theirs not in joined:
            continue
        for kind, g in groups:
            g = g.dropna(subset=[col, theirs])
            if len(g) < 3:
                continue
            r = stats.spearman(g[col], g[theirs], seed=seed)
            rows.append({"Metric": col, "pairs": kind, "n": len(g), "Spearman rho": round(r.rho, 3),
                         "CI low": round(r.ci_low, 3), "CI high": round(r.ci_high, 3),
                         "mean |ours - authors'|": round(float((g[col] - g[theirs]).abs().mean()), 3)})
    return pd.DataFrame(rows, columns=["Metric", "pairs", "n", "Spearman rho", "CI low", "CI high",
                                       "mean |ours - authors'|"])


def agreement_by_level(agree: pd.DataFrame) -> list[str]:
    """One computed line per metric of :func:`agreement_with_authors`'s table: its Spearman rho
    with the authors' values on the function-level benchmarks' pairs and on the program-level
    ones (the per-benchmark rows, each with its n), where a metric has both."""
    lines = []
    for col, t in agree.groupby("Metric", sort=False):
        parts = {}
        for level in ("functions", "programs"):
            g = t[t["pairs"].str.endswith(f"({level})")]
            if len(g):
                parts[level] = ", ".join(f"{r['pairs'].split(' ')[0]} {r['Spearman rho']:+.3f} (n = {r['n']})"
                                         for _, r in g.iterrows())
        if len(parts) == 2:
            lines.append(f"- {col}: functions {parts['functions']}; programs {parts['programs']}.")
    return lines


#: the level of each released benchmark's pairs (Section 3.2: HumanEval and MBPP are function
#: completions, APPS and PIE whole stdin programs)
BENCH_LEVEL = {"HumanEval": "functions", "MBPP": "functions", "APPS": "programs", "PIE": "programs"}

AUTHOR_KEYS = {"codebleu": "CodeBLEU", "crystalbleu": "CrystalBLEU", "codebertscore": "CodeBERTScore",
               "codescore": "CodeScore", "surfaceSim": "SurfaceSim"}


def author_scores(pairs: list) -> pd.DataFrame:
    """The published LoCaL pairs that carry the authors' own metric values (original CodeBERT
    CodeBERTScore and the CodeScore checkpoint), one column per metric, paper names."""
    rows = []
    for p in pairs:
        s = p.extra.get("author_scores")
        if not s or not has_score(p.df_score):
            continue
        rows.append({"id": p.id, "benchmark": p.benchmark, "variant_type": p.variant_type, "df_score": p.df_score,
                     **{label: float(s[k]) for k, label in AUTHOR_KEYS.items() if s.get(k) is not None}})
    return pd.DataFrame(rows, columns=["id", "benchmark", "variant_type", "df_score", *AUTHOR_KEYS.values()])


def plot_mae(table: pd.DataFrame, datasets: list[str], cems: list[str]) -> Figure:
    """Figure: Table 5 as bars, each CEM's MAE against df_score on each dataset of ``datasets`` that
    ``table`` (:func:`table5`, one row per dataset) holds, in that order; lower is better."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(9.5, 3.8))
    names = [d for d in datasets if d in set(table.Dataset)]
    w = 0.8 / len(cems)
    for i, col in enumerate(cems):
        ax.bar(np.arange(len(names)) + i * w, table.set_index("Dataset").loc[names, col], width=w, label=col)
    ax.set_xticks(np.arange(len(names)) + w * (len(cems) - 1) / 2, names, rotation=15, fontsize=8)
    ax.set_ylabel("MAE vs df_score")
    ax.set_ylim(0, 1)
    ax.legend(frameon=False, fontsize=7, loc="center left", bbox_to_anchor=(1.0, 0.5))  # beside the bars, never over them
    ax.set_title("Table 5 as a picture: lower is better")
    fig.tight_layout()
    return fig
