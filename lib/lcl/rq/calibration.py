"""Study X4 (beyond the paper): are CEM scores calibrated predictors of df_score?

The paper scores a CEM by its MAE against df_score (Section 4.2), which treats the score as a
prediction of the functional-equivalence score. A prediction can err in two ways: it can rank
pairs wrongly (surface bias: a mutant that looks like its reference scores high), or it can rank
them rightly on the wrong scale (CodeBLEU rarely reaches 1 even for equivalent code). Only the
second is fixed by a monotone recalibration. This module measures calibration and asks whether
recalibrating removes the error in the SFD and DFS regions (paper Eq. 4), or only in the control
region, which would mean the surface bias is an ordering problem, not a scale problem.

- :func:`reliability` and :func:`plot_reliability`: reliability diagrams (equal-width bins);
- :func:`ece` / :func:`ece_table`: expected calibration error. df_score is continuous, so this
  is the regression form: ``ECE = sum_b (n_b / N) |mean score_b - mean df_score_b|`` over
  equal-width score bins b (empty bins contribute nothing). It is 0 when, in every bin, the
  mean score equals the mean df_score, and it never exceeds the MAE (triangle inequality);
- :func:`isotonic_recalibration` / :func:`recalibration_table`: an increasing map
  score -> df_score fitted on a training split (isotonic regression, pool-adjacent-violators
  as implemented by :func:`scipy.optimize.isotonic_regression`), applied to a test split.

CIs are percentile bootstraps over pairs, seeded (:func:`lcl.engine.stats.bootstrap_ci`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, overload

import numpy as np
import pandas as pd
from scipy.optimize import isotonic_regression

from lcl.core.records import Finding
from lcl.engine import regions, stats
from lcl.engine.regions import Thresholds
from lcl.study import scoring

from . import coverage

if TYPE_CHECKING:
    import numpy.typing as npt
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

SURFACE = "SurfaceSim"
TRUTH = "df_score"
#: label of the level pooling every pair
ALL = "all"
#: regions reported by :func:`recalibration_table`; any label other than SFD or DFS counts as
#: the control region (the labels of :func:`lcl.engine.regions.assign`)
SFD, DFS, CONTROL = "SFD", "DFS", "Control"
RECALIBRATED = "{} (recalibrated)"

RELIABILITY_COLUMNS = ["bin", "bin_low", "bin_high", "count", "mean_score", "mean_df"]
ECE_COLUMNS = ["metric", "n", "ece", "ece_ci_low", "ece_ci_high", "mae", "mae_ci_low", "mae_ci_high"]
RECAL_COLUMNS = ["metric", "region", "n", "mae_before", "mae_after", "difference", "difference_ci_low",
                 "difference_ci_high", "improves"]


# ----------------------------------------------------------------------------- calibration
def _clean(scores: npt.ArrayLike, df: npt.ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    """Both arrays as floats, pairs with a missing value dropped."""
    s, d = np.asarray(scores, float), np.asarray(df, float)
    if s.shape != d.shape:
        raise ValueError("scores and df_score must have the same length")
    ok = np.isfinite(s) & np.isfinite(d)
    return s[ok], d[ok]


def _bin_index(s: np.ndarray, bins: int) -> np.ndarray:
    """Equal-width bin of each score on [0, 1]; a score of 1 falls in the last bin, and scores
    outside [0, 1] in the nearest end bin (CEMs score in [0, 1]; this guards rounding only)."""
    if bins < 1:
        raise ValueError("bins must be at least 1")
    return np.clip(np.floor(s * bins), 0, bins - 1).astype(int)


def reliability(scores: npt.ArrayLike, df: npt.ArrayLike, bins: int = 10) -> pd.DataFrame:
    """One row per equal-width score bin on [0, 1]: its edges, number of pairs, mean score and mean
    df_score (NaN for an empty bin), for reliability diagrams (:func:`plot_reliability`)."""
    s, d = _clean(scores, df)
    b = _bin_index(s, bins)
    count = np.bincount(b, minlength=bins)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_s = np.bincount(b, weights=s, minlength=bins) / count
        mean_d = np.bincount(b, weights=d, minlength=bins) / count
    edges = np.linspace(0, 1, bins + 1)
    return pd.DataFrame({"bin": np.arange(bins), "bin_low": edges[:-1], "bin_high": edges[1:], "count": count,
                         "mean_score": mean_s, "mean_df": mean_d}, columns=RELIABILITY_COLUMNS)


def _ece_binned(s: np.ndarray, d: np.ndarray, b: np.ndarray, bins: int) -> float:
    # (n_b / N) |mean s_b - mean d_b| = |sum_b (s - d)| / N, so one weighted bincount suffices
    return float(np.abs(np.bincount(b, weights=s - d, minlength=bins)).sum() / len(s))


def ece(scores: npt.ArrayLike, df: npt.ArrayLike, bins: int = 10) -> float:
    """Expected calibration error, regression form: ``sum_b (n_b / N) |mean score_b - mean df_b|``
    over equal-width bins of the score on [0, 1] (NaN without pairs)."""
    s, d = _clean(scores, df)
    if not len(s):
        return float("nan")
    return _ece_binned(s, d, _bin_index(s, bins), bins)


def _metric_order(frame: pd.DataFrame, metrics: Sequence[str] | None) -> list[str]:
    """``metrics`` (default: the CEM columns) with SurfaceSim first when present, as the reference."""
    cols = list(metrics) if metrics is not None else scoring.cem_columns(frame)
    return ([SURFACE] if SURFACE in frame.columns else []) + [c for c in cols if c != SURFACE]


def _r(x: float) -> float:
    return round(float(x), 4) + 0.0  # + 0.0 turns a rounded -0.0 into 0.0


def _ece_row(s: np.ndarray, d: np.ndarray, bins: int, n_boot: int, seed: int) -> dict[str, object]:
    if len(s) < 2:
        e = ece(s, d, bins)
        m = stats.mae(s, d) if len(s) else np.nan
        return {"n": len(s), "ece": e, "ece_ci_low": np.nan, "ece_ci_high": np.nan, "mae": m,
                "mae_ci_low": np.nan, "mae_ci_high": np.nan}
    b = _bin_index(s, bins)
    lo, hi = stats.bootstrap_ci(np.arange(len(s)), lambda v: _ece_binned(s[v.astype(int)], d[v.astype(int)],
                                                                          b[v.astype(int)], bins),
                                n_boot=n_boot, seed=seed)
    mlo, mhi = stats.bootstrap_ci(np.abs(s - d), n_boot=n_boot, seed=seed)
    return {"n": len(s), "ece": _r(_ece_binned(s, d, b, bins)), "ece_ci_low": _r(lo), "ece_ci_high": _r(hi),
            "mae": _r(stats.mae(s, d)), "mae_ci_low": _r(mlo), "mae_ci_high": _r(mhi)}


def ece_table(frame: pd.DataFrame, metrics: Sequence[str] | None = None, by: str | None = None,
              n_boot: int = 2000, seed: int = 0, bins: int = 10) -> pd.DataFrame:
    """ECE and MAE per metric (SurfaceSim first) and per level of column ``by`` (``"all"`` first,
    then each level; only ``"all"``, in a column ``subset``, when ``by`` is None), each with a
    95 % bootstrap CI over pairs (seeded). Pairs without a score for a metric are left out of its
    rows. ``by="region"`` after :func:`with_regions` gives ECE in SFD, DFS and Control."""
    subsets: list[tuple[object, pd.DataFrame]] = [(ALL, frame)]
    if by is not None:
        subsets += [(level, frame[frame[by] == level]) for level in sorted(frame[by].dropna().unique(), key=str)]
    level_col = by or "subset"
    rows = []
    for level, f in subsets:
        for metric in _metric_order(frame, metrics):
            s, d = _clean(f[metric], f[TRUTH])
            rows.append({level_col: level, "metric": metric, **_ece_row(s, d, bins, n_boot, seed)})
    return pd.DataFrame(rows, columns=[level_col, *ECE_COLUMNS])


# ----------------------------------------------------------------------------- recalibration
@dataclass(frozen=True)
class IsotonicMap:
    """An increasing, piecewise-linear map score -> df_score in [0, 1]: the isotonic fit at the
    distinct training scores ``x``, linear in between and constant beyond the ends."""

    x: np.ndarray
    y: np.ndarray

    def __call__(self, scores: npt.ArrayLike) -> np.ndarray:
        s = np.asarray(scores, float)
        out = np.interp(s, self.x, self.y)  # np.interp holds the end values outside [x[0], x[-1]]
        return np.where(np.isfinite(s), out, np.nan)


def fit_isotonic(scores: npt.ArrayLike, df: npt.ArrayLike) -> IsotonicMap:
    """Least-squares increasing fit of df_score on the score, clipped to [0, 1].

    Tied scores are pooled first (their mean df_score, weighted by their number), because the
    pool-adjacent-violators algorithm orders points and ties have no order."""
    s, d = _clean(scores, df)
    if not len(s):
        raise ValueError("isotonic recalibration needs at least one pair with a score and a df_score")
    ux, inverse, counts = np.unique(s, return_inverse=True, return_counts=True)
    mean_y = np.bincount(inverse, weights=d) / counts
    fitted = isotonic_regression(mean_y, weights=counts.astype(float), increasing=True).x
    return IsotonicMap(ux, np.clip(fitted, 0.0, 1.0))


def isotonic_recalibration(train: pd.DataFrame, test: pd.DataFrame,
                           metrics: Sequence[str] | None = None) -> pd.DataFrame:
    """``test`` with a column ``<metric> (recalibrated)`` per metric: the isotonic map
    score -> df_score fitted on ``train`` (:func:`fit_isotonic`) applied to ``test``'s scores
    (NaN where a test pair has no score)."""
    cols = list(metrics) if metrics is not None else scoring.cem_columns(train)
    return test.assign(**{RECALIBRATED.format(m): fit_isotonic(train[m], train[TRUTH])(test[m]) for m in cols})


def with_regions(frame: pd.DataFrame, th: Thresholds, column: str = "region") -> pd.DataFrame:
    """``frame`` with a region label per pair (:func:`lcl.engine.regions.assign` on SurfaceSim, df_score)."""
    return frame.assign(**{column: regions.assign(frame[SURFACE].to_numpy(float), frame[TRUTH].to_numpy(float), th)})


def split_by_task(frame: pd.DataFrame, test_share: float = 0.5, seed: int = 0) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A seeded train/test split of whole tasks (``benchmark``, ``task``): pairs of one reference
    stay on one side, so the map is never tested on the references it was fitted on."""
    keys = frame["benchmark"].astype(str) + "|" + frame["task"].astype(str)
    tasks = np.array(sorted(keys.unique()))
    pick = np.random.default_rng(seed).permutation(len(tasks))[: int(round(test_share * len(tasks)))]
    is_test = keys.isin(set(tasks[pick])).to_numpy()
    return frame[~is_test].reset_index(drop=True), frame[is_test].reset_index(drop=True)


def _region_labels(values: pd.Series) -> np.ndarray:
    v = values.astype(str).to_numpy(object)
    return np.where((v == SFD) | (v == DFS), v, CONTROL)


def recalibration_table(train: pd.DataFrame, test: pd.DataFrame, metrics: Sequence[str] | None = None,
                        region_column: str = "region", n_boot: int = 2000, seed: int = 0) -> pd.DataFrame:
    """Per metric (SurfaceSim first) and region (SFD, DFS, Control, ``"all"``) of ``test``: MAE before and after the
    isotonic recalibration fitted on ``train``, their difference (after - before) with a paired
    bootstrap 95 % CI over test pairs (seeded), and ``improves``: the whole CI is below 0 (at the
    table's 4 decimals). The CI holds the fitted map fixed: it covers the sampling of test pairs,
    not that of the training split, so fit on a split of whole tasks (:func:`split_by_task`) and
    read a tiny "improvement" of an already calibrated metric as noise of the fit.

    Read it as: a metric whose MAE falls only in Control has a scale problem that recalibration
    fixes; one whose MAE does not fall in SFD/DFS has a surface bias that no monotone map of its
    score can remove (it orders the pairs wrongly)."""
    cols = _metric_order(test, metrics)
    recal = isotonic_recalibration(train, test, cols)
    region = _region_labels(recal[region_column])
    rows = []
    for metric in cols:
        for name in (SFD, DFS, CONTROL, ALL):
            f = recal if name == ALL else recal[region == name]
            f = f[f[metric].notna() & f[TRUTH].notna()]
            before = np.abs(f[metric].to_numpy(float) - f[TRUTH].to_numpy(float))
            after = np.abs(f[RECALIBRATED.format(metric)].to_numpy(float) - f[TRUTH].to_numpy(float))
            row: dict[str, object] = {"metric": metric, "region": name, "n": len(f)}
            if not len(f):
                rows.append({**row, **dict.fromkeys(RECAL_COLUMNS[3:-1], np.nan), "improves": False})
                continue
            diff = after - before
            lo, hi = stats.bootstrap_ci(diff, n_boot=n_boot, seed=seed) if len(f) > 1 else (np.nan, np.nan)
            rows.append({**row, "mae_before": _r(before.mean()), "mae_after": _r(after.mean()),
                         "difference": _r(diff.mean()), "difference_ci_low": _r(lo), "difference_ci_high": _r(hi),
                         "improves": bool(_r(hi) < 0)})
    return pd.DataFrame(rows, columns=RECAL_COLUMNS)


# ----------------------------------------------------------------------------- plots
def plot_reliability(tables: Mapping[str, pd.DataFrame], ax: Axes | None = None, max_marker: float = 300.0) -> Axes:
    """Reliability diagram: the diagonal (perfect calibration) and, per metric, mean df_score
    against mean score of the non-empty bins of its :func:`reliability` table, with marker area
    proportional to the bin's number of pairs. Returns the matplotlib axes."""
    import matplotlib.pyplot as plt  # imported here so the analysis itself needs no plotting backend

    if ax is None:
        _, ax = plt.subplots(figsize=(4.5, 4.5))
    ax.plot([0, 1], [0, 1], ls="--", color="grey", lw=1, label="calibrated")
    largest = max([float(t["count"].max()) for t in tables.values() if len(t)] + [1.0])
    for metric, t in tables.items():
        t = t[t["count"] > 0]
        line = ax.plot(t["mean_score"], t["mean_df"], marker="", label=metric)[0]
        ax.scatter(t["mean_score"], t["mean_df"], s=max_marker * t["count"] / largest, color=line.get_color(),
                   alpha=0.7, zorder=3)
    ax.set(xlim=(0, 1), ylim=(0, 1), xlabel="mean score (bin)", ylabel="mean df_score (bin)", aspect="equal")
    ax.legend(fontsize="small", loc="upper left")
    return ax


# ----------------------------------------------------------------------------- splits and regions
def benchmark_split(frame: pd.DataFrame, train_benchmarks: Sequence[str]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(pairs of ``train_benchmarks``, the other pairs): a split by source benchmark, so the map is
    tested on references of benchmarks it never saw (a shift, not just new tasks)."""
    is_train = frame["benchmark"].isin(list(train_benchmarks)).to_numpy()
    return frame[is_train].reset_index(drop=True), frame[~is_train].reset_index(drop=True)


@overload
def rq3_thresholds(local: pd.DataFrame, control: pd.DataFrame, n_balanced: int, seed: int,
                   metrics: Sequence[str], step: float = ..., error: regions.ErrorKind = ..., *,
                   fallback: Thresholds) -> tuple[Thresholds, str]: ...
@overload
def rq3_thresholds(local: pd.DataFrame, control: pd.DataFrame, n_balanced: int, seed: int,
                   metrics: Sequence[str], step: float = ..., error: regions.ErrorKind = ...,
                   fallback: None = None) -> tuple[Thresholds | None, str]: ...
def rq3_thresholds(local: pd.DataFrame, control: pd.DataFrame, n_balanced: int, seed: int,
                   metrics: Sequence[str], step: float = 0.05, error: regions.ErrorKind = "squared",
                   fallback: Thresholds | None = None) -> tuple[Thresholds | None, str]:
    """The SFD/DFS thresholds as notebook 05 fits them: Algorithm 2 on LoCaL_balanced (a seeded
    draw of ``n_balanced`` mutants and as many optimised variants of the scored ``local``) together
    with the scored control set; ``fallback`` (e.g. the paper's) when no grid tuple leaves every
    region non-empty. Returns the thresholds and where they came from."""
    del step, error  # the primary rules fix both (the authors' search: absolute error, step 0.05)
    th = coverage.fit({"LoCaL_balanced": coverage.balanced(local, n_balanced, seed), "control": control},
                      list(metrics), rules=coverage.PRIMARY_RULES)
    if th is not None:
        return th, (f"Algorithm 2 under the {coverage.PRIMARY_RULES.name} on LoCaL_balanced + CodeScore_test, "
                    "as in notebook 05")
    return fallback, "the paper's thresholds (Algorithm 2 found no tuple here: too few pairs)"


def constant_baseline(train: pd.DataFrame, test: pd.DataFrame, region_column: str = "region") -> pd.DataFrame:
    """MAE per region of ``test`` (SFD, DFS, Control, ``"all"``) of the constant prediction
    ``mean df_score of train``: the flattest increasing map. A recalibration that helps in one
    region only by moving every score towards this constant trades error between regions rather
    than removing it, so :func:`recalibration_table` is read beside this column."""
    value = float(train[TRUTH].astype(float).mean())
    region = _region_labels(test[region_column])
    d = test[TRUTH].to_numpy(float)
    rows = []
    for name in (SFD, DFS, CONTROL, ALL):
        sel = np.ones(len(test), bool) if name == ALL else region == name
        sel &= np.isfinite(d)
        rows.append({"region": name, "mae_train_mean": _r(np.abs(d[sel] - value).mean()) if sel.any() else np.nan})
    return pd.DataFrame(rows)


# ----------------------------------------------------------------------------- notebook 11's tables
ECE_LEVEL_COLUMNS = ["dataset", "grouping", "level", *ECE_COLUMNS]
RECAL_SPLIT_COLUMNS = ["split", *RECAL_COLUMNS, "mae_train_mean"]


def plot_reliability_panels(sets: Mapping[str, pd.DataFrame], metrics: Sequence[str], bins: int = 10) -> Figure:
    """Figure: one reliability diagram (:func:`plot_reliability`) per scored pair set of ``sets``, each
    metric of ``metrics`` a line of its :func:`reliability` table against df_score."""
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(sets), figsize=(5.2 * len(sets), 5.0), squeeze=False)
    for ax, (name, f) in zip(axes[0], sets.items(), strict=True):
        plot_reliability({m: reliability(f[m], f[TRUTH], bins) for m in metrics}, ax=ax)
        ax.set_title(f"{name} (n = {len(f)})")
    fig.suptitle("Reliability of CEM scores as predictors of df_score "
                 "(CodeBERTScore[MiniLM], CodeScore-style: substitutes)", fontsize=9)
    fig.tight_layout()
    return fig


def ece_levels(sets: Mapping[str, pd.DataFrame], metrics: Sequence[str], *, n_boot: int, seed: int, bins: int = 10,
               by_benchmark: Sequence[str] = ("LoCaL",)) -> pd.DataFrame:
    """:func:`ece_table` of every pair set of ``sets`` over all its pairs, per region and, for the sets
    named in ``by_benchmark``, per benchmark; one table (:data:`ECE_LEVEL_COLUMNS`), ``grouping``
    naming the split (``all``, ``region``, ``benchmark``) and ``level`` its part."""
    def part(frame: pd.DataFrame, name: str, by: str | None) -> pd.DataFrame:
        t = ece_table(frame, metrics, by=by, n_boot=n_boot, seed=seed, bins=bins)
        t = t.rename(columns={by or "subset": "level"})
        if by is not None:  # the "all" rows are already in the part without a grouping
            t = t[t.level != ALL]
        return t.assign(dataset=name, grouping=by or "all")[ECE_LEVEL_COLUMNS]

    return pd.concat([part(f, name, by) for name, f in sets.items()
                      for by in ((None, "region", "benchmark") if name in by_benchmark else (None, "region"))],
                     ignore_index=True)


def recalibration_splits(frame: pd.DataFrame, metrics: Sequence[str], train_benchmarks: Sequence[str],
                         test_share: float, *, n_boot: int, seed: int) -> tuple[pd.DataFrame, list[str]]:
    """:func:`recalibration_table` beside :func:`constant_baseline` on two splits of ``frame``: by
    benchmark (fitted on ``train_benchmarks``, tested on the others: :func:`benchmark_split`) and, as
    the sensitivity row, a seeded random ``test_share`` of whole tasks (:func:`split_by_task`). Also
    the notes saying which split could not be made here."""
    notes: list[str] = []
    parts = []
    train_b, test_b = benchmark_split(frame, train_benchmarks)
    if len(train_b) and len(test_b):
        parts.append(recalibration_table(train_b, test_b, metrics, n_boot=n_boot, seed=seed)
                     .merge(constant_baseline(train_b, test_b), on="region", how="left")
                     .assign(split=f"benchmark: fit {' + '.join(train_benchmarks)}, test "
                                   f"{' + '.join(sorted(test_b.benchmark.unique()))}"))
    else:
        notes.append(f"Benchmark split skipped: the test benchmarks are not available here "
                     f"(present: {', '.join(sorted(frame.benchmark.unique()))}); without the data mirror only "
                     "HumanEval exists.")
    train_t, test_t = split_by_task(frame, test_share, seed)
    if len(train_t) and len(test_t):
        parts.append(recalibration_table(train_t, test_t, metrics, n_boot=n_boot, seed=seed)
                     .merge(constant_baseline(train_t, test_t), on="region", how="left")
                     .assign(split=f"tasks: random {test_share:.0%} of tasks tested (seed {seed}, sensitivity)"))
    table = (pd.concat(parts, ignore_index=True)[RECAL_SPLIT_COLUMNS] if parts
             else pd.DataFrame(columns=RECAL_SPLIT_COLUMNS))
    return table, notes


# ----------------------------------------------------------------------------- notebook 11's findings
def slug(name: str) -> str:
    """A metric's name as part of an X4 / X5 finding id: lower case, every other character than a
    letter or digit an underscore (``CodeBERTScore[MiniLM]`` -> ``codebertscore_minilm``)."""
    return "".join(ch if ch.isalnum() else "_" for ch in name.lower()).strip("_").replace("__", "_")


def findings(ece: pd.DataFrame, recal: pd.DataFrame, cems: Sequence[str], frame: pd.DataFrame,
             train_benchmarks: Sequence[str]) -> tuple[list[Finding], list[str]]:
    """Study X4's findings and "what we found" lines: each metric's ECE on LoCaL (SurfaceSim first)
    and per region (``ece``: :func:`ece_levels`), the MAE change in SFD, DFS and Control (paper Eq. 4)
    after isotonic recalibration fitted on ``train_benchmarks`` and tested on the other benchmarks
    of ``frame`` (``recal``: :func:`recalibration_splits`), how close the recalibrated MAE comes to
    the constant training mean, and the Spearman order of the scores on the fitting pairs."""
    from scipy.stats import spearmanr

    order = [SURFACE, *cems]
    found: list[Finding] = []
    lines: list[str] = []
    e_all = ece[(ece.dataset == "LoCaL") & (ece.grouping == "all")].set_index("metric")
    for m in order:
        r = e_all.loc[m]
        found.append(Finding(f"X4.ece.{slug(m)}", "X4", f"ECE of {m} on LoCaL", float(r.ece),
                             f"{m}'s ECE on LoCaL is {r.ece:.3f} against an MAE of {r.mae:.3f}: in its score bins "
                             f"the mean score sits {r.ece:.3f} from the mean df_score on average (weighted by bin "
                             "size).", ci_low=float(r.ece_ci_low), ci_high=float(r.ece_ci_high), n=int(r.n)))
    lines.append("- ECE on LoCaL (all pairs): " + "; ".join(
        f"{m} {e_all.loc[m, 'ece']:.3f} [{e_all.loc[m, 'ece_ci_low']:.3f}, {e_all.loc[m, 'ece_ci_high']:.3f}] "
        f"(MAE {e_all.loc[m, 'mae']:.3f})" for m in order) + ".")
    by_region = ece[(ece.dataset == "LoCaL") & (ece.grouping == "region")]
    if len(by_region):
        piv = by_region.pivot(index="metric", columns="level", values="ece").reindex(order)
        lines.append("- ECE by region (LoCaL): " + "; ".join(
            f"{m}: " + ", ".join(f"{reg} {piv.loc[m, reg]:.3f}" for reg in piv.columns) for m in order) + ".")
    bench_split = recal[recal.split.str.startswith("benchmark")] if len(recal) else recal
    train_b, test_b = benchmark_split(frame, train_benchmarks)
    fit, test = " + ".join(train_benchmarks), " + ".join(sorted(test_b.benchmark.unique()))
    if not len(bench_split):
        lines.append("- Recalibration across benchmarks: skipped (only "
                     + ", ".join(sorted(frame.benchmark.unique())) + " here).")
        return found, lines
    for m in cems:
        for reg in (SFD, DFS, CONTROL):
            rows = bench_split[(bench_split.metric == m) & (bench_split.region == reg)]
            if rows.empty or not rows.n.iloc[0] or pd.isna(rows.difference.iloc[0]):
                continue
            r = rows.iloc[0]
            verdict = "falls" if r.improves else ("rises" if r.difference_ci_low > 0 else "does not change reliably")
            found.append(Finding(f"X4.recal_{reg.lower()}.{slug(m)}", "X4",
                                 f"MAE change in {reg} after isotonic recalibration of {m} (fit {fit}, test {test})",
                                 float(r.difference),
                                 f"Recalibrating {m} on {fit} moves its MAE on the {reg} pairs of {test} "
                                 f"from {r.mae_before:.3f} to {r.mae_after:.3f}: it {verdict} (a constant "
                                 f"training-mean prediction: {r.mae_train_mean:.3f}).",
                                 ci_low=float(r.difference_ci_low), ci_high=float(r.difference_ci_high), n=int(r.n)))
    pv = bench_split[bench_split.metric.isin(cems)]
    for reg in (SFD, DFS, CONTROL):
        g = pv[pv.region == reg]
        if len(g) and g.n.max():
            lines.append(f"- Recalibration (fit {fit}, test held-out benchmarks), {reg} "
                         f"(n = {g.n.iloc[0]}): MAE falls reliably for {int(g.improves.sum())} of {len(g)} CEMs ("
                         + ", ".join(f"{r.metric} {r.mae_before:.3f} -> {r.mae_after:.3f}" for r in g.itertuples())
                         + f"; constant training mean {g.mae_train_mean.iloc[0]:.3f}).")
    gap = (pv.mae_after - pv.mae_train_mean).abs()
    if gap.notna().any():
        worst = pv.loc[gap.idxmax()]
        found.append(Finding("X4.recal_minus_constant_max", "X4",
                             "largest |MAE after recalibration - MAE of the constant training mean| over CEMs and "
                             f"regions (fit {fit}, test {test})", round(float(gap.max()), 4),
                             f"After isotonic recalibration every CEM's MAE in every region is within "
                             f"{gap.max():.3f} of the constant training-mean prediction (largest gap: {worst.metric}, "
                             f"{worst.region}), so the map "
                             + ("flattens the scores: the CEMs carry almost no monotone signal about df_score here."
                                if gap.max() < 0.05 else "keeps part of the CEMs' ordering."),
                             n=int(pv.n.max())))
        lines.append(f"- Recalibrated MAE vs the constant training mean: largest gap {gap.max():.3f} "
                     f"({worst.metric}, {worst.region}); a gap near 0 means the isotonic map is nearly flat.")
    rho_fit = {m: spearmanr(train_b[m], train_b[TRUTH]).statistic for m in cems}
    lines.append("- Why: on the fitting pairs the scores and df_score are ordered "
                 + ", ".join(f"{m} rho {r:+.2f}" for m, r in rho_fit.items())
                 + " (Spearman); an increasing map can only follow a positive order, so where it is negative or "
                 "flat the least-squares increasing fit is close to a constant (see the reliability diagram).")
    return found, lines


def benchmark_counts(frame: pd.DataFrame) -> str:
    """``APPS 12, HumanEval 30, ...``: the pairs of ``frame`` per source benchmark, by name."""
    return ", ".join(f"{b} {n}" for b, n in frame.benchmark.value_counts().sort_index().items())
