# ---
# jupyter:
#   jupytext:
#     formats: py:percent,ipynb
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 11 · Studies X4 and X5: are CEM scores calibrated, and can a LoCaL-trained metric do better?
#
# **X4 (calibration).** The paper scores each CEM by its MAE against df_score (Section 4.2), which
# treats the score as a *prediction* of df_score. A prediction can be wrong in two ways: it orders
# pairs wrongly (surface bias: a look-alike mutant scores high) or it orders them rightly on the
# wrong scale (CodeBLEU rarely reaches 1 even for equivalent code). Reliability diagrams and the
# expected calibration error (ECE, regression form) show the scale; an increasing (isotonic) map
# fitted on HumanEval + MBPP pairs and tested on APPS + PIE pairs shows what a monotone fix can
# remove. If the MAE falls only in the Control region and not in SFD / DFS (paper Eq. 4), surface
# bias is an ordering problem that no recalibration of the score fixes.
#
# **X5 (a metric users can call).** RQ5's model trained with LoCaL pairs (Table 6, p = 100%),
# released as `lcl score --metric local_trained`, evaluated on pairs it never saw (PIE held out),
# per region, next to every CEM and the trivial mean predictor; its cost; a model card; and which
# task traits go with each metric's largest errors.
#
# **Setting and choices (recorded).** LoCaL = the curated pairs (`pair_files.load_local`), scored by
# `lcl.study.scoring` (cached); CodeScore_test = the control set of Table 5, capped like notebook 06 at
# the profile's `eval_pairs_cap` with the same seed. Regions: Algorithm 2 fitted as notebook 05
# fits it (same draw of LoCaL_balanced, same seed), the paper's thresholds as a fallback when too
# few pairs. ECE: 10 equal-width bins on [0, 1]. Recalibration split: by benchmark, fitted on
# HumanEval + MBPP, tested on APPS + PIE (held out); sensitivity: a seeded 50 % split of whole
# tasks across all benchmarks. The released model: Table 6's model at p = 100, the first model
# (`lcl.rq.trained_metric`; identical to notebook 07's, so its training is cached). Its comparison
# sets: LoCaL's PIE pairs (held out by benchmark); CodeScore_test pairs (another source); LoCaL
# pairs of the training benchmarks that the model never saw (same tasks as training: optimistic,
# a sensitivity row). Scoring cost timed on up to 200 held-out pairs without the cache. Task
# traits: per task, on its reference (lines, radon cyclomatic complexity, imports, stdin program);
# Spearman over tasks, pooled and within benchmark (benchmarks differ in every trait at once).
# CIs: percentile bootstrap, the profile's number of resamples, seed = the notebook seed.
# CodeBERTScore[MiniLM], CodeScore-style (retrained) and LoCaL-trained[MiniLM] are substitutes.
# Without the data mirror only HumanEval exists: the benchmark split, the held-out evaluation and
# the PIE traits are then skipped, and said so below.
#
# **Budgets (measured on 2 cores shared with other jobs).** smoke: 44 s; quick: 65 s (34 s with
# cached scores); full: 9.1 min when the released model scores its 4,300 evaluation pairs for the
# first time, 56 s once they are in the score cache. Nothing is sampled at any profile except the
# 200 pairs that time the scoring.
# Computation: `lib/lcl/rq/calibration.py`, `lib/lcl/rq/trained_metric.py`, `lib/lcl/engine/metrics/local_trained.py`.

# %% tags=["parameters"]
profile = "full"
seed = 20250101
jobs = 2
tables_dir = ""
figures_dir = ""
bins = 10  # equal-width score bins of the reliability diagrams and the ECE
train_benchmarks = ("HumanEval", "MBPP")  # recalibration is fitted on these, tested on the others
task_split_share = 0.5  # sensitivity: share of tasks in the test half of the random task split
timed_pairs = 200  # pairs scored without the cache to time the released metric

# %%

import time

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from IPython.display import Markdown

from lcl.report.display import show

from lcl.rq import calibration as cal
from lcl.rq import effectiveness as eff, label_sensitivity
from lcl.report import findings, outputs
from lcl.study import loaders, pair_files
from lcl.engine import metrics
from lcl.core import paths
from lcl.study import codescore_base, scoring
from lcl.core import profiles
from lcl.rq import rq5
from lcl.rq import trained_metric as tm
from lcl.report.findings import Finding
from lcl.core.io import write_text
from lcl.engine.metrics.local_trained import LABEL as RELEASED

T0 = time.time()
P = profiles.get(profile)
tables_out, figures_out = outputs.output_dirs(tables_dir, figures_dir)
model = codescore_base.base_model(P, seed, jobs, progress=False)
local = scoring.score_frame(scoring.pairs_frame(pair_files.load_local(profile)), codescore_model=model, progress=False)
cst = eff.cap(eff.labelled(scoring.pairs_frame(loaders.pairs_if_available("CodeScore_test"))), P.eval_pairs_cap, seed)
cst = scoring.score_frame(cst, codescore_model=model, progress=False) if len(cst) else cst
cems = scoring.cem_columns(local)
benchmarks = sorted(local.benchmark.unique())
per_bench = ", ".join(f"{b} {n}" for b, n in local.benchmark.value_counts().sort_index().items())
print(f"LoCaL: {len(local)} pairs ({per_bench}); "
      f"CodeScore_test: {len(cst)} pairs; CEMs: {', '.join(cems)}")

# %% [markdown]
# ## Regions (SFD, DFS, Control) as notebook 05 fits them

# %%
th, th_source = cal.rq3_thresholds(local, cst if len(cst) else local.iloc[:0], P.rq3_balanced, seed, cems,
                                   fallback=label_sensitivity.paper_thresholds())
local = cal.with_regions(local, th)
cst = cal.with_regions(cst, th) if len(cst) else cst.assign(region=pd.Series(dtype=object))
print(f"Thresholds: x_lo = {th.x_lo}, x_hi = {th.x_hi}, y_lo = {th.y_lo}, y_hi = {th.y_hi} ({th_source})")
show(pd.crosstab(local.benchmark, local.region, margins=True))

# %% [markdown]
# ## X4 · Reliability diagrams
#
# Each point is one score bin: mean score (x) against mean df_score (y); marker area is the bin's
# number of pairs. A calibrated metric lies on the diagonal; SurfaceSim is the reference line
# (a metric that only measures surface form).

# %%
sets = {"LoCaL": local, **({"CodeScore_test": cst} if len(cst) else {})}
order = [cal.SURFACE, *cems]
fig, axes = plt.subplots(1, len(sets), figsize=(5.2 * len(sets), 5.0), squeeze=False)
for ax, (name, f) in zip(axes[0], sets.items(), strict=True):
    cal.plot_reliability({m: cal.reliability(f[m], f.df_score, bins) for m in order}, ax=ax)
    ax.set_title(f"{name} (n = {len(f)})")
fig.suptitle("Reliability of CEM scores as predictors of df_score "
             "(CodeBERTScore[MiniLM], CodeScore-style: substitutes)", fontsize=9)
fig.tight_layout()
outputs.save_figure(fig, "x4_reliability", profile=profile, seed=seed, directory=figures_out)

# %% [markdown]
# ## X4 · ECE per region and per benchmark

# %%
def ece_part(frame: pd.DataFrame, name: str, by: str | None) -> pd.DataFrame:
    t = cal.ece_table(frame, cems, by=by, n_boot=P.bootstrap, seed=seed, bins=bins)
    t = t.rename(columns={by or "subset": "level"})
    if by is not None:  # the "all" rows are already in the part without a grouping
        t = t[t.level != cal.ALL]
    return t.assign(dataset=name, grouping=by or "all")[["dataset", "grouping", "level", *cal.ECE_COLUMNS]]


ece_t = pd.concat([ece_part(f, name, by) for name, f in sets.items()
                   for by in ((None, "region", "benchmark") if name == "LoCaL" else (None, "region"))],
                  ignore_index=True)
outputs.save_table(ece_t, "x4_ece", profile=profile, seed=seed, directory=tables_out,
                   title="X4. Expected calibration error (regression form) and MAE of each CEM, per region and "
                         "benchmark",
                   notes=[f"ECE = sum over {bins} equal-width score bins of (n_b / N) |mean score - mean df_score|; "
                          "it is at most the MAE. A large ECE says the scores are off in scale where the pairs are; "
                          "whether a monotone map fixes that on new pairs is what x4_recalibration tests.",
                          f"Regions: thresholds x_lo = {th.x_lo}, x_hi = {th.x_hi}, y_lo = {th.y_lo}, "
                          f"y_hi = {th.y_hi}, from {th_source}.",
                          f"95% CI: percentile bootstrap over pairs, {P.bootstrap} resamples, seed {seed}.",
                          "CodeBERTScore[MiniLM] and CodeScore-style (retrained) are substitutes; SurfaceSim is "
                          "the reference line.",
                          f"CodeScore_test: capped at {P.eval_pairs_cap} pairs (seed {seed}) as in Table 5."
                          if P.eval_pairs_cap else "CodeScore_test: all pairs, as in Table 5."])
show(ece_t[ece_t.grouping != "benchmark"])

# %% [markdown]
# ## X4 · Isotonic recalibration: fitted on HumanEval + MBPP, tested on APPS + PIE
#
# The difference is MAE after minus MAE before on the test pairs (negative: recalibration helps),
# with a paired bootstrap CI over test pairs; the fitted map is held fixed (its own sampling error
# is not in the CI). The random split of whole tasks is the sensitivity row: no benchmark shift.

# %%
recal_notes = []
parts = []
train_b, test_b = cal.benchmark_split(local, train_benchmarks)
if len(train_b) and len(test_b):
    parts.append(cal.recalibration_table(train_b, test_b, cems, n_boot=P.bootstrap, seed=seed)
                 .merge(cal.constant_baseline(train_b, test_b), on="region", how="left")
                 .assign(split=f"benchmark: fit {' + '.join(train_benchmarks)}, test "
                               f"{' + '.join(sorted(test_b.benchmark.unique()))}"))
else:
    recal_notes.append(f"Benchmark split skipped: the test benchmarks are not available here "
                       f"(present: {', '.join(benchmarks)}); without the data mirror only HumanEval exists.")
train_t, test_t = cal.split_by_task(local, task_split_share, seed)
if len(train_t) and len(test_t):
    parts.append(cal.recalibration_table(train_t, test_t, cems, n_boot=P.bootstrap, seed=seed)
                 .merge(cal.constant_baseline(train_t, test_t), on="region", how="left")
                 .assign(split=f"tasks: random {task_split_share:.0%} of tasks tested (seed {seed}, sensitivity)"))
RECAL_COLS = ["split", *cal.RECAL_COLUMNS, "mae_train_mean"]
recal = pd.concat(parts, ignore_index=True)[RECAL_COLS] if parts else pd.DataFrame(columns=RECAL_COLS)
outputs.save_table(recal, "x4_recalibration", profile=profile, seed=seed, directory=tables_out,
                   title="X4. MAE before and after isotonic recalibration, per region of the test pairs",
                   notes=["difference = MAE after - MAE before (negative: recalibration helps); improves = the "
                          "whole paired-bootstrap 95% CI is below 0.",
                          f"{P.bootstrap} resamples of test pairs, seed {seed}; the fitted map is held fixed.",
                          "mae_train_mean: MAE of the constant prediction 'mean df_score of the fitting pairs' (the "
                          "flattest increasing map); a recalibrated MAE near it means the map flattened the metric.",
                          *recal_notes])
show(recal)

# %% [markdown]
# ## X5 · The released metric `local_trained`: train (or reuse notebook 07's model), export, load

# %%
released = tm.released_for(P, seed, jobs)  # also `lcl local-trained --profile PROFILE`
if released is None:
    print("Too few training pairs for the released model in this profile: X5 is skipped.")
else:
    where = tm.export(released.model, profile)
    metric = metrics.get_metric("local_trained", local_trained_model=str(where), profile=profile)
    print(f"exported to {where.relative_to(paths.root()) if where.is_relative_to(paths.root()) else where}; "
          f"{len(released.train_rows)} training + {len(released.val_rows)} validation pairs; "
          f"train {released.model.train_seconds} s")

# %% [markdown]
# ## X5 · Held-out evaluation against every CEM and the mean predictor

# %%
HELD = "PIE held out (LoCaL)"
evals, ev_notes, scored_sets = [], [], {}
if released is not None:
    candidates = {
        HELD: (tm.unseen(local[local.benchmark == rq5.HELD_OUT_BENCHMARK], released), "region"),
        "CodeScore_test (unseen pairs)": (tm.unseen(cst, released) if len(cst) else cst, "benchmark"),
        "LoCaL training benchmarks, unseen pairs (sensitivity: same tasks as training)":
            (tm.unseen(local[local.benchmark != rq5.HELD_OUT_BENCHMARK], released), "benchmark"),
    }
    for pop, (f, by) in candidates.items():
        if not len(f):
            ev_notes.append(f"{pop}: no pairs here.")
            continue
        f = f.assign(**{RELEASED: metric.score(f.reference.tolist(), f.candidate.tolist(), "python",
                                               ids=f.id.astype(str).tolist()),
                        tm.MEAN: released.label_mean})
        scored_sets[pop] = f
        evals.append(tm.mae_table(f, [RELEASED, *cems, tm.MEAN, cal.SURFACE], population=pop, by=by,
                                  n_boot=P.bootstrap, seed=seed))
        if pop == HELD:
            evals.append(tm.mae_table(f, [RELEASED, *cems, tm.MEAN, cal.SURFACE], population=pop, by="variant_type",
                                      n_boot=P.bootstrap, seed=seed).query("grouping != 'all'"))
x5 = pd.concat(evals, ignore_index=True) if evals else pd.DataFrame(columns=tm.MAE_COLUMNS)
outputs.save_table(x5, "x5_evaluation", profile=profile, seed=seed, directory=tables_out,
                   title=f"X5. MAE of {RELEASED} (released), every CEM and the mean predictor on pairs the "
                         "released model never saw",
                   notes=[f"{RELEASED}: Table 6's model at p = {tm.P_LOCAL}% LoCaL (model {tm.MODEL_INDEX}), a "
                          "MiniLM substitute fine-tuned on CPU; PIE is held out of its training by benchmark.",
                          f"{tm.MEAN}: the mean df_score of the released model's training pairs"
                          + (f" ({released.label_mean:.3f})." if released is not None else "."),
                          "minus_released = MAE(predictor) - MAE(released); positive: the released model errs "
                          "less. CIs: paired percentile bootstrap over pairs, "
                          f"{P.bootstrap} resamples, seed {seed}.",
                          f"Regions: thresholds of notebook 05 ({th_source}).",
                          *ev_notes] + ([] if released is not None else ["No released model in this profile."]))
show(x5[x5.grouping.isin(["all", "region"])])

# %%
cost = {}
if released is not None:
    # timed on pairs the model never saw (it refuses its training pairs): the held-out ones when present
    timing_set = scored_sets.get(HELD, next(iter(scored_sets.values()), local.iloc[:0]))
    s_per_pair, n_timed = tm.timed_score(metric, timing_set, timed_pairs, seed)
    cost = {"train_s": float(released.model.train_seconds or np.nan), "training pairs": len(released.train_rows),
            "train_s_per_pair": float(released.model.train_seconds or np.nan) / len(released.train_rows),
            "score_s_per_pair": s_per_pair, "timed_pairs": n_timed}
cost_t = pd.DataFrame([cost]) if cost else pd.DataFrame(columns=["train_s", "training pairs", "train_s_per_pair",
                                                                  "score_s_per_pair", "timed_pairs"])
outputs.save_table(cost_t, "x5_cost", profile=profile, seed=seed, directory=tables_out,
                   title=f"X5. Cost of {RELEASED}: training and scoring on CPU",
                   notes=["train_s: the training run that built the model (notebook 07's run when it was cached); "
                          "score_s_per_pair: timed cold (no score cache, no memoised encoder states) on up to "
                          f"{timed_pairs} pairs (seed {seed}), "
                          "model loading excluded."])
show(cost_t)

# %% [markdown]
# ## X5 · Model card (written from the numbers above)

# %%
card = (tm.model_card(released, profile, x5, cost, HELD) if released is not None else
        f"# Model card: `local_trained`, profile `{profile}`\n\nNot trained in this profile: too few pairs.\n")
write_text(tables_out / "x5_model_card.md", card)
if released is not None:
    write_text(outputs.build_path(paths.local_trained_model(profile).with_suffix(".md")), card)
show(Markdown(card))

# %% [markdown]
# ## X5 · Which task traits go with each metric's largest errors?
#
# Per task, each metric's mean absolute error over the task's pairs; Spearman's rho of it with each
# trait over tasks. `pooled` mixes benchmarks (which differ in length, complexity and difficulty all
# at once); `within benchmark` correlates within-benchmark percentile ranks, the sturdier reading.
# The released model can only be judged on tasks it never saw (PIE), so it has its own population
# where the CEMs are shown too.

# %%
traits = tm.task_traits(local)
trait_parts = [tm.trait_table(tm.task_errors(local, [cal.SURFACE, *cems]), traits, [cal.SURFACE, *cems],
                              population="LoCaL (all tasks)", n_boot=P.bootstrap, seed=seed)]
if HELD in scored_sets:
    held = scored_sets[HELD]
    trait_parts.append(tm.trait_table(tm.task_errors(held, [RELEASED, cal.SURFACE, *cems]), traits,
                                      [RELEASED, cal.SURFACE, *cems], population=HELD, n_boot=P.bootstrap, seed=seed))
tt = pd.concat(trait_parts, ignore_index=True)
outputs.save_table(tt, "x5_task_traits", profile=profile, seed=seed, directory=tables_out,
                   title="X5. Spearman's rho of a task's mean absolute error with its traits, per metric",
                   notes=["Traits on the task's reference (notebook 00's task profile, per task): lines, radon "
                          "cyclomatic complexity, imports a library (stdlib or third-party), third-party import, "
                          "stdin program (APPS / PIE) vs function.",
                          "pooled: over all tasks; within benchmark: Spearman of within-benchmark percentile ranks.",
                          f"95% CI: percentile bootstrap over tasks, {P.bootstrap} resamples, seed {seed}; NaN where "
                          "a trait is constant over the tasks (e.g. stdin program within a benchmark)."])
strong = tm.strongest_traits(tt)
show(strong)

# %% [markdown]
# ## Findings and what we found

# %%
def ci_words(lo: float, hi: float) -> str:
    if pd.isna(lo) or pd.isna(hi):
        return " (no CI: fewer than 2 pairs)."
    return " (CI excludes 0)." if lo > 0 or hi < 0 else " (CI includes 0)."


def slug(name: str) -> str:
    return "".join(ch if ch.isalnum() else "_" for ch in name.lower()).strip("_").replace("__", "_")


found: list[Finding] = []
lines: list[str] = []
e_all = ece_t[(ece_t.dataset == "LoCaL") & (ece_t.grouping == "all")].set_index("metric")
for m in order:
    r = e_all.loc[m]
    found.append(Finding(f"X4.ece.{slug(m)}", "X4", f"ECE of {m} on LoCaL", float(r.ece),
                         f"{m}'s ECE on LoCaL is {r.ece:.3f} against an MAE of {r.mae:.3f}: in its score bins the "
                         f"mean score sits {r.ece:.3f} from the mean df_score on average (weighted by bin size).",
                         ci_low=float(r.ece_ci_low), ci_high=float(r.ece_ci_high), n=int(r.n)))
lines.append("- ECE on LoCaL (all pairs): " + "; ".join(
    f"{m} {e_all.loc[m, 'ece']:.3f} [{e_all.loc[m, 'ece_ci_low']:.3f}, {e_all.loc[m, 'ece_ci_high']:.3f}] "
    f"(MAE {e_all.loc[m, 'mae']:.3f})" for m in order) + ".")
by_region = ece_t[(ece_t.dataset == "LoCaL") & (ece_t.grouping == "region")]
if len(by_region):
    piv = by_region.pivot(index="metric", columns="level", values="ece").reindex(order)
    lines.append("- ECE by region (LoCaL): " + "; ".join(
        f"{m}: " + ", ".join(f"{reg} {piv.loc[m, reg]:.3f}" for reg in piv.columns) for m in order) + ".")
bench_split = recal[recal.split.str.startswith("benchmark")] if len(recal) else recal
FIT, TEST = " + ".join(train_benchmarks), " + ".join(sorted(test_b.benchmark.unique()))
if len(bench_split):
    for m in cems:
        for reg in (cal.SFD, cal.DFS, cal.CONTROL):
            r = bench_split[(bench_split.metric == m) & (bench_split.region == reg)]
            if r.empty or not r.n.iloc[0] or pd.isna(r.difference.iloc[0]):
                continue
            r = r.iloc[0]
            verdict = "falls" if r.improves else ("rises" if r.difference_ci_low > 0 else "does not change reliably")
            found.append(Finding(f"X4.recal_{reg.lower()}.{slug(m)}", "X4",
                                 f"MAE change in {reg} after isotonic recalibration of {m} (fit {FIT}, test {TEST})",
                                 float(r.difference),
                                 f"Recalibrating {m} on {FIT} moves its MAE on the {reg} pairs of {TEST} "
                                 f"from {r.mae_before:.3f} to {r.mae_after:.3f}: it {verdict} (a constant "
                                 f"training-mean prediction: {r.mae_train_mean:.3f}).",
                                 ci_low=float(r.difference_ci_low), ci_high=float(r.difference_ci_high), n=int(r.n)))
    pv = bench_split[bench_split.metric.isin(cems)]
    for reg in (cal.SFD, cal.DFS, cal.CONTROL):
        g = pv[pv.region == reg]
        if len(g) and g.n.max():
            lines.append(f"- Recalibration (fit {' + '.join(train_benchmarks)}, test held-out benchmarks), {reg} "
                         f"(n = {g.n.iloc[0]}): MAE falls reliably for {int(g.improves.sum())} of {len(g)} CEMs ("
                         + ", ".join(f"{r.metric} {r.mae_before:.3f} -> {r.mae_after:.3f}" for r in g.itertuples())
                         + f"; constant training mean {g.mae_train_mean.iloc[0]:.3f}).")
    gap = (pv.mae_after - pv.mae_train_mean).abs()
    if gap.notna().any():
        worst = pv.loc[gap.idxmax()]
        found.append(Finding("X4.recal_minus_constant_max", "X4",
                             "largest |MAE after recalibration - MAE of the constant training mean| over CEMs and "
                             f"regions (fit {FIT}, test {TEST})", round(float(gap.max()), 4),
                             f"After isotonic recalibration every CEM's MAE in every region is within "
                             f"{gap.max():.3f} of the constant training-mean prediction (largest gap: {worst.metric}, "
                             f"{worst.region}), so the map "
                             + ("flattens the scores: the CEMs carry almost no monotone signal about df_score here."
                                if gap.max() < 0.05 else "keeps part of the CEMs' ordering."),
                             n=int(pv.n.max())))
        lines.append(f"- Recalibrated MAE vs the constant training mean: largest gap {gap.max():.3f} "
                     f"({worst.metric}, {worst.region}); a gap near 0 means the isotonic map is nearly flat.")
    from scipy.stats import spearmanr

    rho_fit = {m: spearmanr(train_b[m], train_b.df_score).statistic for m in cems}
    lines.append("- Why: on the fitting pairs the scores and df_score are ordered "
                 + ", ".join(f"{m} rho {r:+.2f}" for m, r in rho_fit.items())
                 + " (Spearman); an increasing map can only follow a positive order, so where it is negative or "
                 "flat the least-squares increasing fit is close to a constant (see the reliability diagram).")
else:
    lines.append("- Recalibration across benchmarks: skipped (only " + ", ".join(benchmarks) + " here).")

held_all = x5[(x5.population == HELD) & (x5.grouping == "all")].set_index("predictor") if len(x5) else None
if held_all is not None and len(held_all):
    rel = held_all.loc[RELEASED]
    best = held_all.loc[cems].mae.idxmin()
    b, mean_r = held_all.loc[best], held_all.loc[tm.MEAN]
    found += [
        Finding("X5.mae_released", "X5", f"MAE of {RELEASED} on held-out PIE pairs", float(rel.mae),
                f"{RELEASED} errs by {rel.mae:.3f} on average on {int(rel.n)} held-out PIE pairs.",
                ci_low=float(rel.ci_low), ci_high=float(rel.ci_high), n=int(rel.n)),
        Finding("X5.mae_best_cem", "X5", f"MAE of the best CEM ({best}) on held-out PIE pairs", float(b.mae),
                f"The best CEM on the held-out PIE pairs, {best}, errs by {b.mae:.3f}.",
                ci_low=float(b.ci_low), ci_high=float(b.ci_high), n=int(b.n)),
        Finding("X5.best_cem_minus_released", "X5", f"MAE({best}) - MAE({RELEASED}) on held-out PIE pairs",
                float(b.minus_released),
                f"The released model's MAE is {abs(b.minus_released):.3f} "
                f"{'lower' if b.minus_released > 0 else 'higher'} than the best CEM's on held-out PIE pairs"
                + ci_words(b.minus_released_ci_low, b.minus_released_ci_high),
                ci_low=float(b.minus_released_ci_low), ci_high=float(b.minus_released_ci_high), n=int(b.n)),
        Finding("X5.mean_minus_released", "X5", f"MAE(mean predictor) - MAE({RELEASED}) on held-out PIE pairs",
                float(mean_r.minus_released),
                f"The trivial mean predictor errs by {mean_r.mae:.3f}, "
                f"{abs(mean_r.minus_released):.3f} {'more' if mean_r.minus_released > 0 else 'less'} than the "
                "released model"
                + ci_words(mean_r.minus_released_ci_low, mean_r.minus_released_ci_high),
                ci_low=float(mean_r.minus_released_ci_low), ci_high=float(mean_r.minus_released_ci_high),
                n=int(mean_r.n)),
    ]
    lines.append(f"- Held-out PIE pairs (n = {int(rel.n)}): {RELEASED} MAE {rel.mae:.3f} [{rel.ci_low:.3f}, "
                 f"{rel.ci_high:.3f}]; best CEM {best} {b.mae:.3f}; mean predictor {mean_r.mae:.3f}; SurfaceSim "
                 f"{held_all.loc[cal.SURFACE, 'mae']:.3f}.")
    reg_rows = x5[(x5.population == HELD) & (x5.grouping == "region") & (x5.predictor.isin([RELEASED, best, tm.MEAN]))]
    if len(reg_rows):
        lines.append("- By region (held-out PIE): " + "; ".join(
            f"{lvl} (n = {g.n.iloc[0]}): " + ", ".join(f"{r.predictor} {r.mae:.3f}" for r in g.itertuples())
            for lvl, g in reg_rows.groupby("level")) + ".")
else:
    lines.append("- Held-out evaluation of the released model: skipped (no PIE pairs here).")
for pop in [p for p in x5.population.unique() if p != HELD] if len(x5) else []:
    a = x5[(x5.population == pop) & (x5.grouping == "all")].set_index("predictor")
    best_o = a.loc[[c for c in cems if c in a.index]].mae.idxmin()
    lines.append(f"- {pop} (n = {int(a.loc[RELEASED, 'n'])}): {RELEASED} {a.loc[RELEASED, 'mae']:.3f}, mean predictor "
                 f"{a.loc[tm.MEAN, 'mae']:.3f}, best CEM {best_o} {a.loc[best_o, 'mae']:.3f}.")
if cost:
    lines.append(f"- Cost: training {cost['train_s']:.1f} s ({cost['train_s_per_pair'] * 1000:.1f} ms per pair); "
                 + (f"scoring {cost['score_s_per_pair'] * 1000:.1f} ms per pair on CPU." if cost.get("timed_pairs")
                    else "scoring not timed (no held-out pairs in this run)."))
for r in strong.itertuples():
    if r.population != "LoCaL (all tasks)" and r.predictor != RELEASED:
        continue
    within = tt[(tt.population == r.population) & (tt.predictor == r.predictor) & (tt.trait == r.trait)
                & (tt.scope == "within benchmark")].rho
    w = float(within.iloc[0]) if len(within) else float("nan")
    found.append(Finding(f"X5.trait.{slug(r.predictor)}", "X5",
                         f"Spearman rho of per-task MAE of {r.predictor} with its strongest trait ({r.trait}), "
                         f"{r.population}", float(r.rho),
                         f"{r.predictor}'s per-task error goes with '{r.trait}' most strongly (rho {r.rho:+.2f} over "
                         f"{r.tasks} tasks, {r.population}); within benchmarks the rho is {w:+.2f}.",
                         ci_low=float(r.ci_low), ci_high=float(r.ci_high), n=int(r.tasks)))
    lines.append(f"- Strongest trait of {r.predictor} ({r.population}): {r.trait}, rho {r.rho:+.2f} "
                 f"[{r.ci_low:+.2f}, {r.ci_high:+.2f}], within benchmark {w:+.2f}.")
findings.save(found, "11", seed=seed, profile=profile, directory=tables_out)  # part tables/findings_11
lines.append(f"- Run time of this notebook: {time.time() - T0:.0f} s (profile {profile}).")
if profile != "full":
    lines.append(f"- Profile {profile}: small samples ({len(local)} LoCaL pairs); read the numbers as a smoke test.")
show(Markdown("\n".join(lines)))
