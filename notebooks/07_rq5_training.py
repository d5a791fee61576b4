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
# # 07 · RQ5: retraining a CodeScore-style model with p% LoCaL (Table 6)
#
# **Question.** Does replacing part of a learned CEM's training set with LoCaL pairs make it
# more accurate on unseen error-prone pairs, and at what cost on its usual data? (Paper
# Section 4.7.) Training size fixed; p% of it LoCaL (p = 0, 10, ..., 100); LoCaL's PIE pairs
# held out; independent models per p; MAE on Baseline (CodeScore's inference set),
# LoCaL_test (held-out PIE pairs) and both combined.
#
# **Paper's answer.** Combined and LoCaL_test MAE fall sharply with p while Baseline MAE stays
# nearly flat (Table 6, 5 models per p; the paper's values are in the "(paper)" columns below,
# read from the claims data).
#
# **Status: substitute model, fine-tuned on CPU.** The learned metric is **CodeScore-style
# (retrained)** (`lcl.engine.metrics.codescore_style`), not CodeScore (a fine-tuned UniXcoder): a MiniLM
# cross-encoder over `candidate [SEP] reference`, fine-tuned like the paper's model with a
# validation split (12.5%, the paper's split, Section 4.7.1) and early stopping. **The CPU setting is a
# substitute for the paper's fine-tune**: only the top encoder layer is trained, for at most a few
# dozen optimiser steps of 16 pairs, on inputs cut to 128 tokens after their shared leading lines are
# trimmed (the exact numbers of this profile are printed below, from `rq5.rq5_config`; per profile in
# `lcl.core.profiles`). The paper's setting (every layer, 512 tokens, early stopping) is
# `rq5.rq5_config(P, "paper-like")`; it needs a GPU, none is used by this build, so it is not run
# here (the cost table below estimates it). The frozen-encoder variant (MLP head on fixed embeddings)
# is kept as a cheaper sensitivity run.
#
# **Two comparators that learn (almost) nothing** sit beside every MAE, each fitted on the same
# training draw as the model it is compared with: the **mean baseline** (the training labels' mean
# for every pair) and the **surface rule** (`rq5.SurfaceRule`): "1 if SurfaceSim >= t else 0" or
# "1 if SurfaceSim < t else 0", the one threshold and its sense chosen to minimise the MAE on the
# model's training split only (never its validation split or an evaluation set), then evaluated on
# Baseline, LoCaL_test and Combined exactly like the model. The authors' own check of their models
# uses such a rule ("1 if difflib similarity < 0.8"); difflib's character ratio is our sensitivity
# column. A model that does not beat the surface rule has learned no more than how alike the two
# programs look, so "retraining on LoCaL mitigates surface bias" is read against it. LoCaL is the
# curated set (`pair_files.load_local`); LoCaL-all (every labelled candidate) is a sensitivity run at
# the endpoints of p. No problem is in both a training pool and an evaluation set (a problem is its
# reference program after `ast.unparse`, `rq5.problem_key`: LoCaL's APPS references are
# CodeScore_test's golden code). Its base training set is codegen-2b completions of HumanEval labelled by our
# fuzzer, not CodeScore's training set (not obtainable offline), and not APPS/MBPP-style problems although
# Baseline is APPS and MBPP: no source here holds model-written candidates for APPS/MBPP problems outside
# the evaluation sets (the table "Where a base pool could come from" below counts each source). The quick
# profile uses tiny sets
# and one model per p. Computation: `lib/lcl/rq/rq5.py` (the base model: `lib/lcl/study/codescore_base.py`).

# %% tags=["parameters"]
profile = "full"
seed = 20250101
jobs = 2
tables_dir = ""
figures_dir = ""

# %%

import platform
from collections import Counter

import pandas as pd
import torch
from IPython.display import Markdown

from lcl.core import claim_links, profiles
from lcl.engine.metrics.codescore_style import LABEL
from lcl.report import outputs
from lcl.report.display import bullets, show
from lcl.rq import rq5, rq5_capacity
from lcl.study import codescore_base, loaders, pair_files, scoring, sources

P = profiles.get(profile)
FULL = profiles.get("full")  # the paper's settings
tables_out, figures_out = outputs.output_dirs(tables_dir, figures_dir)
local_rows = scoring.pairs_frame(pair_files.load_local(profile)).to_dict("records")
local_all_rows = scoring.pairs_frame(pair_files.load_local(profile, subset="all")).to_dict("records")
if sources.available("codescore_test"):
    cst_rows = scoring.pairs_frame(loaders.load_codescore_test()).to_dict("records")
else:
    cst_rows = []
    print("CodeScore_test is not available here: the Baseline set is skipped")
CFG = rq5.rq5_config(P)
CFG_FROZEN = rq5.rq5_config(P, "fast")
DEVICE = f"CPU ({platform.machine()}, {torch.get_num_threads()} torch threads)"
print(f"{len(local_rows)} LoCaL pairs ({len(local_all_rows)} in LoCaL-all), {len(cst_rows)} CodeScore_test pairs; "
      f"p = {list(P.rq5_percentages)}, {P.rq5_models_per_p} model(s) per p, evaluation sets of up to {P.rq5_eval}; "
      f"device {DEVICE}")
SETTING = rq5.setting_sentence(P)
print(SETTING)

# %% [markdown]
# ## Base training set (CodeScore_base's data) and the evaluation sets

# %%
local_train, pie = rq5.split_local(local_rows)
baseline, local_test = rq5.evaluation_sets(cst_rows, pie, P.rq5_eval, seed)
if baseline or local_test:
    base_rows, base_dropped = codescore_base.base_pairs(P, seed, jobs)
else:  # nothing to evaluate on: do not spend the fuzzing time
    base_rows, base_dropped = [], Counter()
base_pool, local_pool, removed = rq5.training_pools(base_rows, local_train, baseline + local_test)
size = rq5.training_size(base_pool, local_pool)
setup, label_mean = rq5.setup_table(base_pool, local_pool, pie, size, baseline, local_test)
show(setup)
print("base pairs dropped:", dict(base_dropped) or "none", "| removed from pools:", dict(removed) or "none")
ok = size >= 2 and bool(baseline or local_test)

# %% [markdown]
# ### Where a base pool could come from
#
# CodeScore trained on APPS/MBPP-style pairs, and Baseline is APPS and MBPP, so a base pool of
# APPS/MBPP problems disjoint from every evaluation set would be the closer substitute. Counted from
# the data here (`codescore_base.pool_audit`): per source, its problems, those outside CodeScore_test,
# LoCaL's selection and the released LoCaL pairs, and the model-written candidate programs it holds.
# Only the HumanEval source has candidates, so the base pool stays codegen-2b HumanEval completions.

# %%
pool_rows = codescore_base.pool_audit(len(base_pool), cst_rows)
show(pd.DataFrame(pool_rows))
POOL_NOTE = codescore_base.pool_note(pool_rows)

# %% [markdown]
# ## Train and evaluate: one fine-tuned model per (p, k)

# %%
notes = rq5.table6_notes(LABEL, CFG, DEVICE, P, base_pool=base_pool, base_dropped=base_dropped, local_pool=local_pool,
                         size=size, pie=pie, baseline=baseline, local_test=local_test, removed=removed)
notes += [SETTING, POOL_NOTE]
runs = rq5.runs_table(base_rows, local_rows, cst_rows, P.rq5_percentages, P, seed, CFG, run=ok)
if not ok:
    notes.append(f"skipped: no training pool or no evaluation set here (training size {size}, "
                 f"{len(baseline)} Baseline, {len(local_test)} LoCaL_test pairs)")
outputs.save_table(runs, "rq5_runs", profile=profile, seed=seed, directory=tables_out, notes=notes,
                   title=f"RQ5 runs: MAE of each fine-tuned {LABEL} model and of the mean baseline, per p and set")
show(runs)

# %% [markdown]
# ## Table 6 · MAE (mean ± std over models) vs p, ours next to the mean baseline, the surface rule and the paper's
#
# The surface rule's row is the mean (± std) over the same models' training draws of the rule
# fitted on each draw; each model's fitted rule is in the runs table (`surface rule`, and the
# difflib sensitivity's `difflib rule`).

# %%
t6 = rq5.table6(runs) if ok else pd.DataFrame(columns=["p (%)", "models"])
head = rq5.headline(t6) if ok else {}
if head:
    notes.append(rq5.headline_note(head, claim_links.paper_values(head)))
outputs.save_table(t6, "table6_training", profile=profile, seed=seed, directory=tables_out, notes=notes,
                   title=f"Table 6. MAE of fine-tuned {LABEL} trained with p% LoCaL (ours, mean baseline, paper)")
if ok:
    show(rq5.table6_shown(t6))
show(bullets(notes))

# %%
if ok:
    fig = rq5.plot_mae_vs_p(t6, f"{LABEL}, fine-tuned")
else:
    from lcl.study import overview

    fig = overview.unavailable_figure("RQ5: MAE vs p", notes[-1])
outputs.save_figure(fig, "rq5_mae_vs_p", profile=profile, seed=seed, directory=figures_out)

# %% [markdown]
# ## What the model learned beyond the mean label and beyond how alike the programs look
#
# A model that only learned the mean label is no better than the **mean predictor** (its own
# training draw's mean df_score for every pair); one that only learned how alike the programs look is
# no better than the **surface rule** (one SurfaceSim threshold fitted on the same draw). The learned
# gain is MAE(comparator) − MAE(model) per model; the table gives its mean over the independent models
# at each p and set with a 95% t interval over them (`rq5.learned_gain`), for each comparator. Above 0
# with the interval above 0: the model learned something the comparator does not give; an interval
# across 0 does not resolve it. Training and evaluation share no problem (`rq5.problem_key`; what was
# removed is in the notes above).

# %%
gain = rq5.learned_gain(runs) if ok else pd.DataFrame(columns=rq5.GAIN_COLUMNS)
outputs.save_table(gain, rq5.GAIN, profile=profile, seed=seed, directory=tables_out,
                   title="Learned gain: MAE(mean predictor) - MAE(model) and MAE(surface rule) - MAE(model) per p and "
                         "set (mean over models, 95% t CI)",
                   notes=[f"{P.rq5_models_per_p} model(s) per p; no interval with one model.",
                          "Surface rule: 1 if SurfaceSim >= t (or < t) else 0, t and the sense fitted on each model's "
                          "training split only (rq5.SurfaceRule)."])
show(gain)
if ok and len(gain):
    fig = rq5.plot_learned_gain(gain, LABEL)
else:
    from lcl.study import overview

    fig = overview.unavailable_figure("RQ5: learned gain vs p", notes[-1])
outputs.save_figure(fig, "rq5_learned_gain", profile=profile, seed=seed, directory=figures_out)

# %% [markdown]
# ## Capacity: would more training, more layers or longer inputs learn more?
#
# Table 6's models are trained with a CPU setting (steps, trainable layers and tokens above). Here
# the first model(s) of Table 6 at the endpoints of p (same training draws, validation splits,
# seeds and evaluation sets) are trained again with the profile's larger settings
# (`profiles.Profile.rq5_capacity`), each early-stopped once its validation MAE stops improving.
# The curves show validation MAE against optimiser steps beside the mean predictor's MAE on the
# same split (dashed); the table gives each setting's learned gain on the evaluation sets and its
# measured training seconds. Where a setting must be picked, it is picked on the validation split
# (`rq5_capacity.best_setting`), never on the evaluation sets. Computation: `lib/lcl/rq/rq5_capacity.py`.

# %%
if ok:
    cap_runs, cap_curves = rq5_capacity.run(base_rows, local_rows, cst_rows, P, seed)
    capacity = rq5_capacity.summary(cap_runs)
else:
    cap_curves = pd.DataFrame(columns=rq5_capacity.CURVE_COLUMNS)
    capacity = pd.DataFrame(columns=rq5_capacity.SUMMARY_COLUMNS)
cap_notes = [f"Settings: {rq5_capacity.setting_names(P)} (the first is Table 6's); other "
             f"config as Table 6's ({rq5.settings_text(CFG)}), larger settings stop after {P.rq5_capacity_patience} "
             "validations without improvement.",
             f"{P.rq5_capacity_models} model(s) per setting and p (Table 6's seeds and draws); device {DEVICE}; "
             "train s measured on this run (a cached model keeps the seconds of the run that built it)."]
outputs.save_table(capacity, "rq5_capacity", profile=profile, seed=seed, directory=tables_out, notes=cap_notes,
                   title=f"RQ5 capacity: learned gain and cost of {LABEL} per fine-tuning setting")
outputs.save_table(cap_curves, "rq5_capacity_curves", profile=profile, seed=seed, directory=tables_out,
                   notes=cap_notes, title="RQ5 capacity: validation MAE per optimiser step, per setting and model")
show(capacity)
if ok and len(cap_curves):
    fig = rq5_capacity.plot_curves(cap_curves, LABEL)
else:
    from lcl.study import overview

    fig = overview.unavailable_figure("RQ5 capacity: validation curves", notes[-1])
outputs.save_figure(fig, "rq5_capacity_curves", profile=profile, seed=seed, directory=figures_out)

# %% [markdown]
# ## Sensitivity: the frozen-encoder variant (cheaper) and LoCaL-all
#
# Same pools, evaluation sets, validation splits and seeds. **Frozen encoder** (the cheaper
# variant): the encoder is not trained, an MLP head learns from fixed embeddings, early-stopped on
# the same validation split; full grid of p. **LoCaL-all**: the uncurated candidates (every
# labelled mutant and optimised variant) as the LoCaL pool and held-out PIE pairs, fine-tuned as
# above, at the endpoints of p only (the headline numbers compare p = lowest with p = highest).

# %%
frozen_runs = rq5.runs_table(base_rows, local_rows, cst_rows, P.rq5_percentages, P, seed, CFG_FROZEN, run=ok)
t6_frozen = rq5.table6(frozen_runs) if ok else pd.DataFrame(columns=["p (%)", "models"])
frozen_notes = [f"SENSITIVITY (cheaper variant): frozen MiniLM encoder + MLP head, settings "
                f"{rq5.settings_text(CFG_FROZEN)}; "
                "same pools, evaluation sets, validation splits and seeds as Table 6.", f"Device {DEVICE}."]
outputs.save_table(t6_frozen, "table6_frozen_sensitivity", profile=profile, seed=seed, directory=tables_out,
                   notes=frozen_notes, title=f"Table 6 sensitivity: frozen-encoder {LABEL} (cheaper variant)")
if ok:
    show(rq5.table6_shown(t6_frozen))

ends = (min(P.rq5_percentages), max(P.rq5_percentages))
all_train, all_pie = rq5.split_local(local_all_rows)
all_ok = ok and bool(all_pie) and rq5.training_size(base_pool, all_train) >= 2
all_runs = rq5.runs_table(base_rows, local_all_rows, cst_rows, ends, P, seed, CFG, run=all_ok)
t6_all = rq5.table6(all_runs) if all_ok else pd.DataFrame()
sens = rq5.sensitivity_table([("LoCaL (fine-tuned, Table 6)", t6 if ok else pd.DataFrame()),
                              ("LoCaL (frozen encoder, cheaper variant)", t6_frozen if ok else pd.DataFrame()),
                              ("LoCaL-all (fine-tuned)", t6_all)])
sens_notes = [f"LoCaL-all: {len(local_all_rows)} labelled candidates ({len(all_train)} non-PIE for training, "
              f"{len(all_pie)} PIE held out) vs LoCaL's {len(local_rows)}; its LoCaL_test is drawn from its own "
              "PIE pairs.",
              f"LoCaL-all is run at p = {ends[0]} and {ends[1]} only ({P.rq5_models_per_p} model(s) each), to keep the "
              "fine-tuning cost to two grid columns.", f"Fine-tuning settings: {rq5.settings_text(CFG)}; device {DEVICE}."]
if not all_ok:
    sens_notes.append("LoCaL-all run skipped: no PIE pairs or no training pool in LoCaL-all here.")
outputs.save_table(sens, "rq5_sensitivity", profile=profile, seed=seed, directory=tables_out, notes=sens_notes,
                   title="RQ5 sensitivity: headline numbers for fine-tuned LoCaL, the frozen encoder and LoCaL-all")
show(sens)

# %% [markdown]
# ## Cost: what one model takes, and what the full grid would take
#
# Measured training seconds per model (validation included; a model found in the cache keeps the
# seconds of the run that built it) from the runs above, and two
# estimates from a one-step calibration on this machine: this CPU setting at the full profile,
# and paper-like fine-tuning (every layer, 512 tokens, 3 passes over the base set; the paper
# states no epoch count, 3 is our assumption).

# %%
measured = [(runs, "fine-tuned (Table 6, this run)", CFG), (frozen_runs, "frozen encoder (sensitivity, this run)", CFG_FROZEN)]
if all_ok:
    measured.append((all_runs, "LoCaL-all fine-tuned (sensitivity, this run)", CFG))
cost = rq5.cost_table(measured, local_pool, profile, FULL, DEVICE) if ok else pd.DataFrame()
outputs.save_table(cost, "rq5_cost", profile=profile, seed=seed, directory=tables_out,
                   notes=["Estimates scale a two-step calibration (batches of 16 LoCaL pairs; of 1 for the "
                          "paper-like setting) by "
                          "the grid's pair-steps, predictions and first passes; the machine's load at run time "
                          "moves them."],
                   title="RQ5 training cost per model and for the full grid (measured and estimated)")
show(cost)

# %% [markdown]
# ## What we found

# %%
if not ok:
    show(Markdown(f"- RQ5 was not run here: {notes[-1]}."))
else:
    lines = rq5.result_lines(t6, t6_frozen, t6_all if all_ok else None, gain, P.rq5_percentages,
                             P.rq5_models_per_p)
    lines += rq5.rule_lines(t6, runs, gain, P.rq5_percentages)
    lines += rq5.contrast_lines(runs, P.rq5_percentages)
    lines += rq5_capacity.finding_lines(capacity, P.rq5_percentages)
    if head:
        lines.append(f"- Headline, {notes[-1]}")
    lines += [
        f"- Why we may differ: the model is {LABEL} (MiniLM, top {CFG['unfreeze_layers']} layers trained for at most "
        f"{CFG['max_steps']} steps on {CFG['max_length']}-token inputs on CPU), not CodeScore fine-tuned end to end.",
        "- Our base training set is codegen-2b HumanEval completions, not CodeScore's training set, so Baseline "
        "(CodeScore_test: MBPP and APPS pairs with the authors' labels) is out of distribution for our p = 0 model, "
        f"whereas it is in distribution for the paper's CodeScore_base. {POOL_NOTE}",
        f"- {SETTING}",
        "- Mean labels (df_score): base pool {base:.2f}, LoCaL pool {LoCaL:.2f}, Baseline {Baseline:.2f}, "
        "LoCaL_test {LoCaL_test:.2f}: the mean baseline's MAE moves with p as the training mean moves between "
        "the pools.".format(**label_mean),
        f"- Sizes: training size {size} (paper: the converted CodeScore pairs), evaluation sets "
        f"{len(baseline)} + {len(local_test)} (full profile: {FULL.rq5_eval} + {FULL.rq5_eval}), "
        f"{P.rq5_models_per_p} model(s) per p (full profile: {FULL.rq5_models_per_p})"
        + (": the quick profile's numbers are a smoke test, not evidence." if profile == "quick" else "."),
    ]
    show(Markdown("\n".join(lines)))
