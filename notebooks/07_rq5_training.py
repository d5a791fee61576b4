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
# **Paper's answer.** Combined MAE falls from 0.45 (p = 0) to about 0.26 from p = 30 on
# (about 40% lower at p = 100); LoCaL_test MAE falls by about 85%, Baseline MAE rises by 9.1%
# (Table 6, 5 models per p).
#
# **Status: substitute model.** The learned metric is **CodeScore-style (retrained)**: a frozen
# MiniLM encoder with a regression head (`lcl.metrics.codescore_style`, fast mode), not
# CodeScore (a fine-tuned UniXcoder). Its base training set is codegen-2b completions of
# HumanEval labelled by our fuzzer, not CodeScore's training set (not obtainable offline). The
# quick profile uses tiny sets and one model per p. Computation: `lib/lcl/training.py`
# (`experiment`, `table6`, `headline`).

# %% tags=["parameters"]
profile = "full"
seed = 20250101
jobs = 2
tables_dir = ""
figures_dir = ""

# %%

from collections import Counter

import pandas as pd
from IPython.display import Markdown, display

from lcl import claims, loaders, outputs, paths, profiles, scoring, sources, training
from lcl.errors import UserError
from lcl.io import read_jsonl
from lcl.metrics.codescore_style import LABEL

P = profiles.get(profile)
FULL = profiles.get("full")  # the paper's settings
tables_out, figures_out = outputs.output_dirs(tables_dir, figures_dir)
local_path = paths.processed() / f"local_pairs_{profile}.jsonl"
if not local_path.exists():
    raise UserError(f"{local_path} is missing: it is written by notebook 02; run `make all PROFILE={profile}` "
                    f"or `lcl notebook run 02_variants --profile {profile}` first")
local_rows = scoring.pairs_frame(read_jsonl(local_path)).to_dict("records")
if sources.available("codescore_test"):
    cst_rows = scoring.pairs_frame(loaders.load_codescore_test()).to_dict("records")
else:
    cst_rows = []
    print("CodeScore_test is not available here: the Baseline set is skipped")
print(f"{len(local_rows)} LoCaL pairs ({local_path.name}), {len(cst_rows)} CodeScore_test pairs; "
      f"p = {list(P.rq5_percentages)}, {P.rq5_models_per_p} model(s) per p, evaluation sets of up to {P.rq5_eval}")

# %% [markdown]
# ## Base training set (CodeScore_base's data) and the evaluation sets

# %%
local_train, pie = training.split_local(local_rows)
baseline, local_test = training.evaluation_sets(cst_rows, pie, P.rq5_eval, seed)
if baseline or local_test:
    base_rows, base_dropped = training.base_pairs(P, seed, jobs)
else:  # nothing to evaluate on: do not spend the fuzzing time
    base_rows, base_dropped = [], Counter()
base_pool, local_pool, removed = training.training_pools(base_rows, local_train, baseline + local_test)
size = training.training_size(base_pool, local_pool)
label_mean = {name: (sum(r["df_score"] for r in rows) / len(rows) if rows else float("nan"))
              for name, rows in (("base", base_pool), ("LoCaL", local_pool), ("Baseline", baseline),
                                 ("LoCaL_test", local_test))}
setup = pd.DataFrame([
    {"set": "base training pool (codegen-2b HumanEval, fuzzer-labelled)", "pairs": len(base_pool),
     "mean df_score": label_mean["base"]},
    {"set": "LoCaL training pool (non-PIE)", "pairs": len(local_pool), "mean df_score": label_mean["LoCaL"]},
    {"set": "held-out PIE LoCaL pairs", "pairs": len(pie), "mean df_score": None},
    {"set": "fixed training size", "pairs": size, "mean df_score": None},
    {"set": "Baseline (CodeScore_test sample)", "pairs": len(baseline), "mean df_score": label_mean["Baseline"]},
    {"set": "LoCaL_test (held-out PIE sample)", "pairs": len(local_test), "mean df_score": label_mean["LoCaL_test"]},
])
display(setup)
print("base pairs dropped:", dict(base_dropped) or "none", "| removed from pools:", dict(removed) or "none")
ok = size >= 2 and bool(baseline or local_test)

# %% [markdown]
# ## Train and evaluate: one model per (p, k)

# %%
notes = [
    f"Model: {LABEL}, frozen MiniLM encoder + MLP head (fast mode), not CodeScore; hyperparameters fixed across p.",
    f"Base pool: {len(base_pool)} codegen-2b HumanEval completions labelled by our fuzzer "
    f"(N = {P.fuzz_inputs_function}, R = {P.fuzz_runs}); dropped: "
    + (", ".join(f"{k} = {v}" for k, v in base_dropped.items()) or "none") + ".",
    f"Training size fixed at {size} = min(base pool {len(base_pool)}, LoCaL non-PIE pool {len(local_pool)})"
    + (" (the LoCaL pool is the smaller one, so the size is below the base set's)" if len(local_pool) < len(base_pool)
       else "") + "; p% of it LoCaL, the rest base pairs.",
    f"Evaluation: Baseline = {len(baseline)} random CodeScore_test pairs (authors' labels), LoCaL_test = "
    f"{len(local_test)} random held-out PIE LoCaL pairs (of {len(pie)}), Combined = both; same sets for every model.",
    f"{P.rq5_models_per_p} independent model(s) per p (seed per (p, k): training sample and initialisation); "
    "std is the sample std over models (— with one model).",
    "Removed from the training pools: " + (", ".join(f"{k} = {v}" for k, v in removed.items()) or "nothing") + ".",
]
if ok:
    runs = training.experiment(base_rows, local_rows, cst_rows, P.rq5_percentages, P.rq5_models_per_p, P.rq5_eval,
                               seed)
else:
    runs = pd.DataFrame(columns=training.RUN_COLUMNS)
    notes.append(f"skipped: no training pool or no evaluation set here (training size {size}, "
                 f"{len(baseline)} Baseline, {len(local_test)} LoCaL_test pairs)")
outputs.save_table(runs, "rq5_runs", profile=profile, seed=seed, directory=tables_out, notes=notes,
                   title=f"RQ5 runs: MAE of each {LABEL} model per p and evaluation set")
display(runs)

# %% [markdown]
# ## Table 6 · MAE (mean ± std over models) vs p, ours next to the paper's

# %%
t6 = training.table6(runs) if ok else pd.DataFrame(columns=["p (%)", "models"])
head = training.headline(t6) if ok else {}
if head:
    paper_head = {k: claims.paper_value(k) for k in head}
    notes.append("p = 100 vs p = 0: LoCaL_test MAE reduction {:.1f}% (paper ≈{:g}%), Baseline MAE change {:+.1f}% "
                 "(paper +{:g}%), Combined MAE drop {:.1f}% (paper ≈{:g}%).".format(
                     head["RQ5.local_test_reduction"], paper_head["RQ5.local_test_reduction"],
                     head["RQ5.baseline_increase"], paper_head["RQ5.baseline_increase"],
                     head["RQ5.combined_drop"], paper_head["RQ5.combined_drop"]))
outputs.save_table(t6, "table6_training", profile=profile, seed=seed, directory=tables_out, notes=notes,
                   title=f"Table 6. MAE of {LABEL} trained with p% LoCaL (ours vs paper)")


def _fmt(m: float, s: float) -> str:
    return "—" if m != m else f"{m:.2f}" + ("" if s != s else f" (±{s:.2f})")


if ok:
    shown = pd.DataFrame({f"{p}%": [_fmt(r[f"{n} MAE"], r[f"{n} std"]) for n in training.RQ5_SETS]
                          + [_fmt(r[f"{n} MAE (paper)"], r[f"{n} std (paper)"]) for n in training.RQ5_SETS]
                          for p, r in t6.set_index("p (%)").iterrows()},
                         index=[f"{n} (ours)" for n in training.RQ5_SETS] + [f"{n} (paper)" for n in training.RQ5_SETS])
    display(shown)
display(Markdown("\n".join(f"- {n}" for n in notes)))

# %%
if ok:
    fig = training.plot_mae_vs_p(t6, LABEL)
else:
    from lcl import overview

    fig = overview.unavailable_figure("RQ5: MAE vs p", notes[-1])
outputs.save_figure(fig, "rq5_mae_vs_p", profile=profile, seed=seed, directory=figures_out)

# %% [markdown]
# ## What we found

# %%
if not ok:
    display(Markdown(f"- RQ5 was not run here: {notes[-1]}."))
else:
    t = t6.set_index("p (%)")
    lo, hi = min(t.index), max(t.index)

    def trend(name: str) -> str:
        a, b = t.loc[lo, f"{name} MAE"], t.loc[hi, f"{name} MAE"]
        if a != a or b != b:
            return f"{name}: not evaluated here"
        pa, pb = t.loc[lo, f"{name} MAE (paper)"], t.loc[hi, f"{name} MAE (paper)"]
        word = "falls" if b < a else "rises" if b > a else "stays"
        pword = "falls" if pb < pa else "rises" if pb > pa else "stays"
        return (f"{name}: MAE {word} from {a:.3f} (p = {lo}) to {b:.3f} (p = {hi}); paper {pa:.2f} to {pb:.2f} "
                f"({'same direction' if word == pword else 'opposite direction to the paper'})")

    lines = [f"- {trend(n)}." for n in training.RQ5_SETS]
    if head:
        lines.append(f"- Headline, {notes[-1]}")
    lines += [
        f"- Why we may differ: the model is {LABEL} (frozen MiniLM embeddings + MLP head), not CodeScore "
        "fine-tuned end to end, so it can only learn what the frozen embeddings separate.",
        "- Our base training set is codegen-2b HumanEval completions, not CodeScore's training set, so Baseline "
        "(CodeScore_test: MBPP and APPS pairs with the authors' labels) is out of distribution for our p = 0 model, "
        "whereas it is in distribution for the paper's CodeScore_base.",
        "- Mean labels (df_score): base pool {base:.2f}, LoCaL pool {LoCaL:.2f}, Baseline {Baseline:.2f}, "
        "LoCaL_test {LoCaL_test:.2f}. A small head on frozen embeddings largely learns its training pool's "
        "label level, so moving p towards the pool whose mean is further from an evaluation set's mean raises "
        "that set's MAE.".format(**label_mean),
        f"- Sizes: training size {size} (paper: the 2026 converted CodeScore pairs), evaluation sets "
        f"{len(baseline)} + {len(local_test)} (full profile: {FULL.rq5_eval} + {FULL.rq5_eval}), "
        f"{P.rq5_models_per_p} model(s) per p (full profile: {FULL.rq5_models_per_p})"
        + (": the quick profile's numbers are a smoke test, not evidence." if profile == "quick" else "."),
    ]
    display(Markdown("\n".join(lines)))
