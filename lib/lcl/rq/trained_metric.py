"""Study X5 (beyond the paper): the RQ5 model trained with LoCaL, released as a metric.

Paper Section 4.7 shows that a learned CEM trained with LoCaL pairs errs less on held-out
error-prone pairs (Table 6). This module turns that model into something a user can call,
``lcl score --metric local_trained`` (:mod:`lcl.engine.metrics.local_trained`, which only loads a model
file), and measures it the way a metric should be measured before anyone relies on it:

- :func:`train_released`: the model of Table 6 at p = 100 (every training pair a LoCaL pair, PIE
  held out, Section 4.7.1), the first of its independent models: the same draw, validation split,
  seed and settings as notebook 07, so :func:`lcl.study.codescore_base.train_model`'s cache returns that very
  model when 07 has run; :func:`export` copies it to :func:`lcl.core.paths.local_trained_model`;
- :func:`mae_table`: MAE of every predictor (the released model, each CEM, the trivial mean
  predictor) per group, each with a percentile bootstrap CI and the paired difference to the
  released model (same resamples for every predictor);
- :func:`task_traits` / :func:`trait_table`: which task traits (lines, cyclomatic complexity,
  library use: the traits of notebook 00's task profile, per task, after Code2Bench's profile of
  tasks by dependency kind) go with a metric's largest errors: Spearman's rho of a task's mean
  absolute error with each trait, pooled and within benchmark, with bootstrap CIs over tasks;
- :func:`model_card`: a short card written from the numbers.

The model is a **substitute**: a MiniLM cross-encoder fine-tuned on CPU (CodeScore-style), not
CodeScore; every label says so.
"""

from __future__ import annotations

import os
import random
import shutil
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats as sps

from lcl.core import paths, seeds
from lcl.core.profiles import Profile
from lcl.core.records import Finding, PairRow
from lcl.engine.metrics import codescore_style as cs
from lcl.engine.metrics.base import Metric
from lcl.engine.metrics.cache import pair_digest
from lcl.engine.metrics.local_trained import LABEL
from lcl.study import codescore_base, loaders, pair_files, scoring, sources
from lcl.study.loaders import loc
from lcl.study.overview import cyclomatic, dependency_kind

from . import rq5
from .calibration import SURFACE, slug

#: Table 6's p whose training set is LoCaL pairs only, and which of its models is released
P_LOCAL, MODEL_INDEX = 100, 0
MEAN = "mean predictor (training mean)"
MAE_COLUMNS = ["population", "grouping", "level", "predictor", "n", "mae", "ci_low", "ci_high",
               "minus_released", "minus_released_ci_low", "minus_released_ci_high"]
TRAITS = ["lines", "cyclomatic complexity", "imports a library", "third-party import", "stdin program"]
TRAIT_COLUMNS = ["population", "predictor", "trait", "scope", "tasks", "rho", "ci_low", "ci_high"]


# ----------------------------------------------------------------------------- training
@dataclass
class Released:
    """The released model, what it was trained on and what it must not be evaluated on."""

    model: cs.CodeScoreModel
    seed: int
    config: codescore_base.TrainSettings
    train_rows: list[PairRow]
    val_rows: list[PairRow]
    pools: dict[str, int] = field(default_factory=dict)
    held_out: list[PairRow] = field(default_factory=list)

    @property
    def seen(self) -> set[str]:
        """Digests of the pairs the model was trained or early-stopped on."""
        return {rq5.pair_key(r) for r in self.train_rows + self.val_rows}

    @property
    def label_mean(self) -> float:
        return float(np.mean([r["df_score"] for r in self.train_rows]))


def train_released(base_rows: list[PairRow], local_rows: list[PairRow],
                   cst_rows: list[PairRow], profile: Profile, seed: int) -> Released | None:
    """Table 6's model at p = :data:`P_LOCAL`, model :data:`MODEL_INDEX` (Section 4.7.1), built
    exactly as :func:`lcl.rq.rq5.experiment` builds it; None when the pools are too small."""
    local_train, pie = rq5.split_local(local_rows)
    baseline, local_test = rq5.evaluation_sets(cst_rows, pie, profile.rq5_eval, seed)
    evaluation = baseline + local_test
    base_pool, local_pool, _ = rq5.training_pools(base_rows, local_train, evaluation)
    size = rq5.training_size(base_pool, local_pool)
    if size < 2:
        return None
    s = seeds.unit_seed(seed, "rq5", P_LOCAL, MODEL_INDEX)
    rng = random.Random(s)
    drawn = rq5.mixed_training_set(base_pool, local_pool, P_LOCAL, size, rng)
    train_set, val = rq5.split_validation(drawn, rq5.VAL_FRACTION, rng)
    config = rq5.rq5_config(profile)
    exclude = [(r["reference"], r["candidate"]) for r in evaluation]
    model = codescore_base.train_model(train_set, s, exclude=exclude, config=config, validation=val)
    return Released(model, s, config, train_set, val, {"base pool": len(base_pool), "LoCaL pool (non-PIE)":
                                                       len(local_pool), "training size": size}, pie)


def released_for(profile: Profile, seed: int, jobs: int, progress: bool = False) -> Released | None:
    """:func:`train_released` on the profile's data, loaded as notebook 07 loads it: the curated
    LoCaL pairs, CodeScore_test when available, the base pairs labelled by Algorithm 1 (cached)."""
    rows = scoring.pairs_frame(pair_files.load_local(profile.name)).to_dict("records")
    cst = (scoring.pairs_frame(loaders.load_codescore_test()).to_dict("records")
           if sources.available("codescore_test") else [])
    base_rows, _ = codescore_base.base_pairs(profile, seed, jobs, progress=progress)
    return train_released(base_rows, rows, cst, profile, seed)


def export(model: cs.CodeScoreModel, profile: str) -> Path:
    """Copy the saved model to :func:`lcl.core.paths.local_trained_model` (replacing what was there)."""
    src = codescore_base.model_path(model)
    if not src.is_dir():  # a cached model read from another checkout's index: save it here first
        src = model.save(codescore_base.model_dir())
    dest = paths.local_trained_model(profile)
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_name(dest.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    shutil.copytree(src, tmp)
    shutil.rmtree(dest, ignore_errors=True)
    os.replace(tmp, dest)
    return dest


def unseen(frame: pd.DataFrame, released: Released) -> pd.DataFrame:
    """Rows of ``frame`` whose pair the model was neither trained nor early-stopped on."""
    seen = released.seen
    keep = [pair_digest(str(r), str(c)) not in seen for r, c in zip(frame["reference"], frame["candidate"],
                                                                      strict=True)]
    return frame[keep].reset_index(drop=True)


def timed_score(metric: Metric, frame: pd.DataFrame, limit: int, seed: int) -> tuple[float, int]:
    """Seconds per pair of scoring up to ``limit`` pairs of ``frame`` (a seeded sample) without
    the score cache, and how many pairs were timed."""
    f = frame if len(frame) <= limit else frame.sample(n=limit, random_state=seed)
    if not len(f):
        return float("nan"), 0
    # a cold measurement: the frozen layers' states memoised in this process by earlier scoring of
    # the same pairs would make a user's first call look several times cheaper than it is
    memo = dict(cs.BOTTOM)
    cs.BOTTOM.clear()
    try:
        t0 = time.perf_counter()
        metric.score(f["reference"].tolist(), f["candidate"].tolist(), "python", cache=False)
        return (time.perf_counter() - t0) / len(f), len(f)
    finally:
        cs.BOTTOM.update(memo)


# ----------------------------------------------------------------------------- MAE with CIs
def _boot_index(n: int, n_boot: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, n, size=(n_boot, n))


def _q(x: np.ndarray) -> tuple[float, float]:
    lo, hi = np.quantile(x, [0.025, 0.975])
    return round(float(lo), 4), round(float(hi), 4)


def mae_table(frame: pd.DataFrame, predictors: Sequence[str], *, population: str, by: str | None = None,
              released: str = LABEL, n_boot: int = 2000, seed: int = 0) -> pd.DataFrame:
    """MAE against df_score of each predictor column over ``frame`` (``"all"``) and each level of
    ``by``, with a percentile bootstrap 95 % CI over pairs and the paired difference
    ``MAE(predictor) - MAE(released)`` (positive: the released model errs less), its CI from the
    same resamples. Rows with a missing value in any predictor are dropped so that every
    predictor is judged on the same pairs."""
    cols = [c for c in predictors if c in frame.columns]
    f = frame.dropna(subset=[*cols, "df_score"])
    groups: list[tuple[str, object, pd.DataFrame]] = [("all", "all", f)]
    if by is not None:
        groups += [(by, level, g) for level, g in sorted(f.groupby(by), key=lambda kv: str(kv[0]))]
    rows = []
    for grouping, level, g in groups:
        if not len(g):
            continue
        err = np.abs(g[cols].to_numpy(float) - g["df_score"].to_numpy(float)[:, None])  # (n, k)
        boots = err[_boot_index(len(g), n_boot, seed)].mean(axis=1) if len(g) > 1 else None  # (n_boot, k)
        ref = cols.index(released) if released in cols else None
        for j, c in enumerate(cols):
            row: dict[str, object] = {"population": population, "grouping": grouping, "level": level,
                                      "predictor": c, "n": len(g), "mae": round(float(err[:, j].mean()), 4)}
            row["ci_low"], row["ci_high"] = _q(boots[:, j]) if boots is not None else (np.nan, np.nan)
            if ref is not None:
                row["minus_released"] = round(float(err[:, j].mean() - err[:, ref].mean()), 4)
                row["minus_released_ci_low"], row["minus_released_ci_high"] = (
                    _q(boots[:, j] - boots[:, ref]) if boots is not None else (np.nan, np.nan))
            rows.append(row)
    return pd.DataFrame(rows, columns=MAE_COLUMNS)


# ----------------------------------------------------------------------------- task traits
def task_traits(frame: pd.DataFrame) -> pd.DataFrame:
    """One row per task (``benchmark``, ``task``) with the traits of notebook 00's task profile
    measured on the task's reference: lines, cyclomatic complexity (radon), whether it imports a
    library (any import) or a third-party one, and whether it is a stdin program."""
    rows = []
    for (bench, task), g in frame.groupby(["benchmark", "task"], sort=True):
        ref = str(g["reference"].iloc[0])
        kind = dependency_kind(ref)
        rows.append({"benchmark": bench, "task": task, "lines": loc(ref), "cyclomatic complexity": cyclomatic(ref),
                     "imports a library": float(kind in ("stdlib", "third-party")),
                     "third-party import": float(kind == "third-party"),
                     "stdin program": float(str(g["level"].iloc[0]) == "program")})
    return pd.DataFrame(rows, columns=["benchmark", "task", *TRAITS])


def task_errors(frame: pd.DataFrame, predictors: Sequence[str]) -> pd.DataFrame:
    """Per task: the mean absolute error of each predictor over the task's pairs."""
    cols = [c for c in predictors if c in frame.columns]
    err = frame[["benchmark", "task"]].copy()
    for c in cols:
        err[c] = (frame[c].astype(float) - frame["df_score"].astype(float)).abs()
    return err.groupby(["benchmark", "task"], sort=True)[cols].mean().reset_index()


def _rank_rows(a: np.ndarray) -> np.ndarray:
    return sps.rankdata(a, axis=-1)


def spearman_ci(x: np.ndarray, y: np.ndarray, n_boot: int, seed: int) -> tuple[float, float, float]:
    """Spearman's rho and a percentile bootstrap 95 % CI over units (vectorised; resamples where
    either side is constant are dropped); NaN when fewer than 3 units or a constant side."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    if len(x) < 3 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return float("nan"), float("nan"), float("nan")
    rho = float(sps.spearmanr(x, y).statistic)
    idx = _boot_index(len(x), n_boot, seed)
    rx, ry = _rank_rows(x[idx]), _rank_rows(y[idx])
    rx -= rx.mean(axis=1, keepdims=True)
    ry -= ry.mean(axis=1, keepdims=True)
    den = np.sqrt((rx**2).sum(axis=1) * (ry**2).sum(axis=1))
    ok = den > 0
    boots = (rx * ry).sum(axis=1)[ok] / den[ok]
    lo, hi = np.quantile(boots, [0.025, 0.975]) if len(boots) else (np.nan, np.nan)
    return rho, float(lo), float(hi)


def _within(values: pd.Series, groups: pd.Series) -> np.ndarray:
    """Percentile ranks within each group, so that a correlation of them ignores differences
    between groups (here: benchmarks, which differ in every trait and in difficulty at once)."""
    return values.groupby(groups).rank(pct=True).to_numpy(float)


def trait_table(errors: pd.DataFrame, traits: pd.DataFrame, predictors: Sequence[str], *, population: str,
                n_boot: int = 2000, seed: int = 0) -> pd.DataFrame:
    """Per predictor and trait: Spearman's rho of a task's mean absolute error with the trait over
    tasks (``pooled``), and of their within-benchmark percentile ranks (``within benchmark``),
    each with a bootstrap 95 % CI over tasks."""
    m = errors.merge(traits, on=["benchmark", "task"])
    rows = []
    for c in [p for p in predictors if p in m.columns]:
        for t in TRAITS:
            for scope in ("pooled", "within benchmark"):
                e, v = ((m[c].to_numpy(float), m[t].to_numpy(float)) if scope == "pooled"
                        else (_within(m[c], m["benchmark"]), _within(m[t], m["benchmark"])))
                rho, lo, hi = spearman_ci(e, v, n_boot, seed)
                rows.append({"population": population, "predictor": c, "trait": t, "scope": scope, "tasks": len(m),
                             "rho": round(rho, 4), "ci_low": round(lo, 4), "ci_high": round(hi, 4)})
    return pd.DataFrame(rows, columns=TRAIT_COLUMNS)


def strongest_traits(table: pd.DataFrame, scope: str = "pooled") -> pd.DataFrame:
    """Per (population, predictor): the trait with the largest |rho| in ``scope``."""
    t = table[(table.scope == scope) & table.rho.notna()].copy()
    if t.empty:
        return t
    t["abs"] = t.rho.abs()
    return (t.sort_values(["population", "predictor", "abs"], ascending=[True, True, False])
            .groupby(["population", "predictor"], sort=False).head(1).drop(columns="abs").reset_index(drop=True))


# ----------------------------------------------------------------------------- model card
def model_card(released: Released, profile: str, evaluation: pd.DataFrame, cost: dict[str, float],
               held_out_population: str) -> str:
    """A short model card (Mitchell et al.'s headings, shortened) written from the numbers."""
    meta = released.model.meta
    cfg = ", ".join(f"{k}={v}" for k, v in released.config.items())
    head = evaluation[(evaluation.population == held_out_population) & (evaluation.grouping == "all")]
    lines = [f"# Model card: `local_trained` ({LABEL}), profile `{profile}`", "",
             f"**What it is.** A learned code evaluation metric: given a reference and a candidate program "
             f"(Python), it predicts their functional-equivalence score df_score in [0, 1]. It is the model "
             f"of Table 6 (paper Section 4.7) at p = {P_LOCAL}% LoCaL, model {MODEL_INDEX}: a **substitute** "
             f"for CodeScore, a MiniLM cross-encoder (all-MiniLM-L6-v2, top layers fine-tuned on CPU), not "
             f"UniXcoder. Content hash `{(released.model.content_hash or '')[:16]}`.", "",
             "**Training data.** "
             f"{len(released.train_rows)} LoCaL pairs (mutants and optimised variants of HumanEval, MBPP and "
             f"APPS references, labelled by differential fuzzing), mean df_score {released.label_mean:.3f}; "
             f"{len(released.val_rows)} more for early stopping. PIE pairs are held out. Pools: "
             + ", ".join(f"{k} {v}" for k, v in released.pools.items()) + ".", "",
             f"**Settings.** seed {released.seed}; {cfg}; steps {meta.get('train', {}).get('steps')}.", "",
             "**Held-out results** (MAE against df_score, 95% bootstrap CI over pairs):", ""]
    if head.empty:
        lines.append("- No held-out pairs in this run (the PIE benchmark is not available): the model is "
                     "unevaluated here; do not rely on it.")
    for _, r in head.iterrows():
        lines.append(f"- {r.predictor}: {r.mae:.3f} [{r.ci_low:.3f}, {r.ci_high:.3f}] on {r.n} "
                     f"{held_out_population} pairs")
    by_region = evaluation[(evaluation.population == held_out_population) & (evaluation.grouping == "region")
                           & evaluation.predictor.isin([LABEL, MEAN])]
    for level, g in by_region.groupby("level"):
        mae = g.set_index("predictor").mae
        lines.append(f"- region {level} (n = {g.n.iloc[0]}): {LABEL} {mae.get(LABEL, float('nan')):.3f}, "
                     f"mean predictor {mae.get(MEAN, float('nan')):.3f}")
    lines += ["", f"**Cost.** Training {cost.get('train_s', float('nan')):.1f} s on CPU "
              f"({cost.get('train_s_per_pair', float('nan')) * 1000:.1f} ms per training pair); "
              + (f"scoring {cost.get('score_s_per_pair', float('nan')) * 1000:.1f} ms per pair on CPU "
                 f"(timed on {int(cost.get('timed_pairs', 0))} pairs, no cache)." if cost.get("timed_pairs")
                 else "scoring not timed (no held-out pairs in this run)."), "",
              "**Intended use.** A research instrument for Python function- or program-level pairs like "
              "LoCaL's, where surface similarity misleads reference-based metrics; compare its score with "
              "SurfaceSim to spot look-alike mutants. Always report it beside the mean predictor.", "",
              "**Limits.** Substitute encoder (MiniLM), few training steps and 128-token prefix-trimmed inputs "
              "(long programs are cut); trained on our own mutants and rewrites, so its errors on other "
              "generators, languages (no Java) and on code written by people are unknown; it refuses pairs "
              "it was trained on. Not a replacement for running tests.", "",
              f"**Use.** `lcl score --metric local_trained --profile {profile} PAIRS.jsonl -o OUT.jsonl`.", ""]
    return "\n".join(lines)


# ----------------------------------------------------------------------------- notebook 11's evaluation
#: the population of :func:`held_out_evaluation` the released model is judged on first
HELD_OUT = "PIE held out (LoCaL)"
#: the population of every LoCaL task in :func:`trait_tables`
ALL_TASKS = "LoCaL (all tasks)"
COST_COLUMNS = ["train_s", "training pairs", "train_s_per_pair", "score_s_per_pair", "timed_pairs"]


def held_out_evaluation(local: pd.DataFrame, control: pd.DataFrame, released: Released | None, metric: Metric | None,
                        cems: Sequence[str], *, n_boot: int, seed: int) -> tuple[pd.DataFrame, list[str],
                                                                                 dict[str, pd.DataFrame]]:
    """X5: :func:`mae_table` of the released metric (``metric``, the model ``released``), every CEM,
    the mean predictor and SurfaceSim on the pairs the model never saw (:func:`unseen`): LoCaL's PIE
    pairs (:data:`HELD_OUT`, per region and per kind too), the control set ``control``
    (CodeScore_test) and, as a sensitivity, LoCaL's other benchmarks (same tasks as training). Also
    the notes on populations with no pairs, and each population's pairs with the released metric's
    score and the mean predictor's as columns. Empty when there is no released model."""
    evals: list[pd.DataFrame] = []
    notes: list[str] = []
    scored_sets: dict[str, pd.DataFrame] = {}
    if released is None or metric is None:
        return pd.DataFrame(columns=MAE_COLUMNS), notes, scored_sets
    predictors = [LABEL, *cems, MEAN, SURFACE]
    candidates = {
        HELD_OUT: (unseen(local[local.benchmark == rq5.HELD_OUT_BENCHMARK], released), "region"),
        "CodeScore_test (unseen pairs)": (unseen(control, released) if len(control) else control, "benchmark"),
        "LoCaL training benchmarks, unseen pairs (sensitivity: same tasks as training)":
            (unseen(local[local.benchmark != rq5.HELD_OUT_BENCHMARK], released), "benchmark"),
    }
    for pop, (f, by) in candidates.items():
        if not len(f):
            notes.append(f"{pop}: no pairs here.")
            continue
        f = f.assign(**{LABEL: metric.score(f.reference.tolist(), f.candidate.tolist(), "python",
                                            ids=f.id.astype(str).tolist()),
                        MEAN: released.label_mean})
        scored_sets[pop] = f
        evals.append(mae_table(f, predictors, population=pop, by=by, n_boot=n_boot, seed=seed))
        if pop == HELD_OUT:
            evals.append(mae_table(f, predictors, population=pop, by="variant_type", n_boot=n_boot,
                                   seed=seed).query("grouping != 'all'"))
    table = pd.concat(evals, ignore_index=True) if evals else pd.DataFrame(columns=MAE_COLUMNS)
    return table, notes, scored_sets


def cost(released: Released | None, metric: Metric | None, scored_sets: dict[str, pd.DataFrame],
         limit: int, seed: int) -> dict[str, float]:
    """The released model's cost on CPU: its training seconds (per pair too) and the seconds per pair
    of scoring up to ``limit`` pairs it never saw, cold (:func:`timed_score`; the held-out PIE pairs
    when present, else another population of :func:`held_out_evaluation`). Empty without a model."""
    if released is None or metric is None:
        return {}
    # timed on pairs the model never saw (it refuses its training pairs): the held-out ones when present
    timing_set = scored_sets.get(HELD_OUT, next(iter(scored_sets.values()), pd.DataFrame(columns=["reference",
                                                                                                   "candidate"])))
    s_per_pair, n_timed = timed_score(metric, timing_set, limit, seed)
    train_s = float(released.model.train_seconds or np.nan)
    return {"train_s": train_s, "training pairs": len(released.train_rows),
            "train_s_per_pair": train_s / len(released.train_rows), "score_s_per_pair": s_per_pair,
            "timed_pairs": n_timed}


def cost_table(cost: dict[str, float]) -> pd.DataFrame:
    """:func:`cost` as a one-row table (:data:`COST_COLUMNS`); no row without a model."""
    return pd.DataFrame([cost]) if cost else pd.DataFrame(columns=COST_COLUMNS)


def trait_tables(local: pd.DataFrame, held_out: pd.DataFrame | None, cems: Sequence[str], *, n_boot: int,
                 seed: int) -> pd.DataFrame:
    """:func:`trait_table` of SurfaceSim and every CEM over every LoCaL task (:data:`ALL_TASKS`) and,
    when the released model was evaluated (``held_out``: its :data:`HELD_OUT` pairs), of the released
    metric beside them on the tasks it never saw; traits per task from :func:`task_traits`."""
    traits = task_traits(local)
    parts = [trait_table(task_errors(local, [SURFACE, *cems]), traits, [SURFACE, *cems], population=ALL_TASKS,
                         n_boot=n_boot, seed=seed)]
    if held_out is not None:
        parts.append(trait_table(task_errors(held_out, [LABEL, SURFACE, *cems]), traits, [LABEL, SURFACE, *cems],
                                 population=HELD_OUT, n_boot=n_boot, seed=seed))
    return pd.concat(parts, ignore_index=True)


# ----------------------------------------------------------------------------- notebook 11's findings
def ci_words(lo: float, hi: float) -> str:
    """How a difference's 95% CI reads: excluding 0, including it, or missing."""
    if pd.isna(lo) or pd.isna(hi):
        return " (no CI: fewer than 2 pairs)."
    return " (CI excludes 0)." if lo > 0 or hi < 0 else " (CI includes 0)."


def findings(evaluation: pd.DataFrame, cems: Sequence[str], cost: dict[str, float], strongest: pd.DataFrame,
             traits: pd.DataFrame) -> tuple[list[Finding], list[str]]:
    """Study X5's findings and "what we found" lines: the released metric's MAE on the held-out PIE
    pairs beside the best CEM's and the mean predictor's (``evaluation``: :func:`held_out_evaluation`),
    per region, on the other populations, its :func:`cost`, and the task trait that goes most strongly
    with each metric's per-task error (``strongest``: :func:`strongest_traits` of ``traits``,
    :func:`trait_tables`)."""
    found: list[Finding] = []
    lines: list[str] = []
    x5 = evaluation
    held_all = x5[(x5.population == HELD_OUT) & (x5.grouping == "all")].set_index("predictor") if len(x5) else None
    if held_all is not None and len(held_all):
        rel = held_all.loc[LABEL]
        best = held_all.loc[list(cems)].mae.idxmin()
        b, mean_r = held_all.loc[best], held_all.loc[MEAN]
        found += [
            Finding("X5.mae_released", "X5", f"MAE of {LABEL} on held-out PIE pairs", float(rel.mae),
                    f"{LABEL} errs by {rel.mae:.3f} on average on {int(rel.n)} held-out PIE pairs.",
                    ci_low=float(rel.ci_low), ci_high=float(rel.ci_high), n=int(rel.n)),
            Finding("X5.mae_best_cem", "X5", f"MAE of the best CEM ({best}) on held-out PIE pairs", float(b.mae),
                    f"The best CEM on the held-out PIE pairs, {best}, errs by {b.mae:.3f}.",
                    ci_low=float(b.ci_low), ci_high=float(b.ci_high), n=int(b.n)),
            Finding("X5.best_cem_minus_released", "X5", f"MAE({best}) - MAE({LABEL}) on held-out PIE pairs",
                    float(b.minus_released),
                    f"The released model's MAE is {abs(b.minus_released):.3f} "
                    f"{'lower' if b.minus_released > 0 else 'higher'} than the best CEM's on held-out PIE pairs"
                    + ci_words(b.minus_released_ci_low, b.minus_released_ci_high),
                    ci_low=float(b.minus_released_ci_low), ci_high=float(b.minus_released_ci_high), n=int(b.n)),
            Finding("X5.mean_minus_released", "X5", f"MAE(mean predictor) - MAE({LABEL}) on held-out PIE pairs",
                    float(mean_r.minus_released),
                    f"The trivial mean predictor errs by {mean_r.mae:.3f}, "
                    f"{abs(mean_r.minus_released):.3f} {'more' if mean_r.minus_released > 0 else 'less'} than the "
                    "released model"
                    + ci_words(mean_r.minus_released_ci_low, mean_r.minus_released_ci_high),
                    ci_low=float(mean_r.minus_released_ci_low), ci_high=float(mean_r.minus_released_ci_high),
                    n=int(mean_r.n)),
        ]
        lines.append(f"- Held-out PIE pairs (n = {int(rel.n)}): {LABEL} MAE {rel.mae:.3f} [{rel.ci_low:.3f}, "
                     f"{rel.ci_high:.3f}]; best CEM {best} {b.mae:.3f}; mean predictor {mean_r.mae:.3f}; SurfaceSim "
                     f"{held_all.loc[SURFACE, 'mae']:.3f}.")
        reg_rows = x5[(x5.population == HELD_OUT) & (x5.grouping == "region") & (x5.predictor.isin([LABEL, best, MEAN]))]
        if len(reg_rows):
            lines.append("- By region (held-out PIE): " + "; ".join(
                f"{lvl} (n = {g.n.iloc[0]}): " + ", ".join(f"{r.predictor} {r.mae:.3f}" for r in g.itertuples())
                for lvl, g in reg_rows.groupby("level")) + ".")
    else:
        lines.append("- Held-out evaluation of the released model: skipped (no PIE pairs here).")
    for pop in [p for p in x5.population.unique() if p != HELD_OUT] if len(x5) else []:
        a = x5[(x5.population == pop) & (x5.grouping == "all")].set_index("predictor")
        best_o = a.loc[[c for c in cems if c in a.index]].mae.idxmin()
        lines.append(f"- {pop} (n = {int(a.loc[LABEL, 'n'])}): {LABEL} {a.loc[LABEL, 'mae']:.3f}, mean predictor "
                     f"{a.loc[MEAN, 'mae']:.3f}, best CEM {best_o} {a.loc[best_o, 'mae']:.3f}.")
    if cost:
        lines.append(f"- Cost: training {cost['train_s']:.1f} s ({cost['train_s_per_pair'] * 1000:.1f} ms per pair); "
                     + (f"scoring {cost['score_s_per_pair'] * 1000:.1f} ms per pair on CPU." if cost.get("timed_pairs")
                        else "scoring not timed (no held-out pairs in this run)."))
    tt = traits
    for r in strongest.itertuples():
        if r.population != ALL_TASKS and r.predictor != LABEL:
            continue
        within = tt[(tt.population == r.population) & (tt.predictor == r.predictor) & (tt.trait == r.trait)
                    & (tt.scope == "within benchmark")].rho
        w = float(within.iloc[0]) if len(within) else float("nan")
        found.append(Finding(f"X5.trait.{slug(str(r.predictor))}", "X5",
                             f"Spearman rho of per-task MAE of {r.predictor} with its strongest trait ({r.trait}), "
                             f"{r.population}", float(r.rho),
                             f"{r.predictor}'s per-task error goes with '{r.trait}' most strongly (rho {r.rho:+.2f} "
                             f"over {r.tasks} tasks, {r.population}); within benchmarks the rho is {w:+.2f}.",
                             ci_low=float(r.ci_low), ci_high=float(r.ci_high), n=int(r.tasks)))
        lines.append(f"- Strongest trait of {r.predictor} ({r.population}): {r.trait}, rho {r.rho:+.2f} "
                     f"[{r.ci_low:+.2f}, {r.ci_high:+.2f}], within benchmark {w:+.2f}.")
    return found, lines
