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

import pandas as pd
from IPython.display import Markdown

from lcl.core import paths, profiles
from lcl.core.io import write_text
from lcl.engine import metrics
from lcl.engine.metrics.local_trained import LABEL as RELEASED
from lcl.report import findings, outputs
from lcl.report.display import show
from lcl.rq import calibration as cal
from lcl.rq import effectiveness as eff
from lcl.rq import label_sensitivity
from lcl.rq import trained_metric as tm
from lcl.study import codescore_base, loaders, pair_files, scoring

T0 = time.time()
P = profiles.get(profile)
tables_out, figures_out = outputs.output_dirs(tables_dir, figures_dir)
model = codescore_base.base_model(P, seed, jobs, progress=False)
local = scoring.score_frame(scoring.pairs_frame(pair_files.load_local(profile)), codescore_model=model, progress=False)
cst = eff.cap(eff.labelled(scoring.pairs_frame(loaders.pairs_if_available("CodeScore_test"))), P.eval_pairs_cap, seed)
cst = scoring.score_frame(cst, codescore_model=model, progress=False) if len(cst) else cst
cems = scoring.cem_columns(local)
per_bench = cal.benchmark_counts(local)
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
fig = cal.plot_reliability_panels(sets, order, bins)
outputs.save_figure(fig, "x4_reliability", profile=profile, seed=seed, directory=figures_out)

# %% [markdown]
# ## X4 · ECE per region and per benchmark

# %%
ece_t = cal.ece_levels(sets, cems, n_boot=P.bootstrap, seed=seed, bins=bins)
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
recal, recal_notes = cal.recalibration_splits(local, cems, train_benchmarks, task_split_share, n_boot=P.bootstrap,
                                              seed=seed)
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
    metric = None
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
x5, ev_notes, scored_sets = tm.held_out_evaluation(local, cst, released, metric, cems, n_boot=P.bootstrap, seed=seed)
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
cost = tm.cost(released, metric, scored_sets, timed_pairs, seed)
cost_t = tm.cost_table(cost)
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
card = (tm.model_card(released, profile, x5, cost, tm.HELD_OUT) if released is not None else
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
tt = tm.trait_tables(local, scored_sets.get(tm.HELD_OUT), cems, n_boot=P.bootstrap, seed=seed)
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
found_x4, lines_x4 = cal.findings(ece_t, recal, cems, local, train_benchmarks)
found_x5, lines_x5 = tm.findings(x5, cems, cost, strong, tt)
found, lines = found_x4 + found_x5, lines_x4 + lines_x5
findings.save(found, "11", seed=seed, profile=profile, directory=tables_out)  # part tables/findings_11
lines.append(f"- Run time of this notebook: {time.time() - T0:.0f} s (profile {profile}).")
if profile != "full":
    lines.append(f"- Profile {profile}: small samples ({len(local)} LoCaL pairs); read the numbers as a smoke test.")
show(Markdown("\n".join(lines)))
