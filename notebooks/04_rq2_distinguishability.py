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
# # 04 · RQ2: distinguishability (Table 4)
#
# **Question.** Do the CEMs still tell equivalent from non-equivalent pairs when the
# non-equivalent pairs look *more* alike than the equivalent ones? (Paper Section 4.4, Eq. 3,
# Table 4.)
#
# **Paper's answer.** On `ds_orig` (100 PIE slow/fast pairs + 100 cross-paired solutions of
# different problems) every CEM has a distinguishability d > 1; on `ds_replaced` (the same
# equivalent pairs + 100 MutPy mutants of slow programs with df_score = 0) every d falls below 1:
# drops of 95.3% (CrystalBLEU), 82.8% (CodeBLEU), 54.9% (CodeScore) and 28.0% (CodeBERTScore).
#
# **Status: reproduced in direction, with substitutes** (magnitudes differ; see "What we found").
# CodeBERTScore runs on MiniLM (not CodeBERT) and
# CodeScore is our retrained CodeScore-style model (`lcl.training.base_model`); non-equivalence
# of the mutants is established by our fuzzer with our reviewed input specs (only PIE problems
# whose spec is verified are mutated). The pool's mutants are LoCaL's own PIE mutants (mutants of
# the 100 slow programs LoCaL is built on, "the same way mutated variants are generated in
# LoCaL"), with the same ids and labels as in `02`. Computation: `lib/lcl/distinguish.py`
# (construction, Eq. 3 via `lcl.stats.distinguishability`, Table 4), scores `lib/lcl/scoring.py`, labels `lib/lcl/fuzz/`.

# %% tags=["parameters"]
profile = "full"
seed = 20250101
jobs = 2
tables_dir = ""
figures_dir = ""

# %%

from collections import Counter

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from IPython.display import Markdown, display

from lcl import distinguish, loaders, outputs, profiles, scoring, training

P = profiles.get(profile)
tables_out, figures_out = outputs.output_dirs(tables_dir, figures_dir)
n, k = P.rq2_pairs, P.rq2_repetitions
print(f"{k} repetitions of {n} equivalent + {n} non-equivalent pairs per dataset; mutant pool from "
      f"{P.rq2_pool_programs or 'all'} of LoCaL's {loaders.SELECT_K['PIE']} PIE slow programs (those with a verified "
      f"spec), their LoCaL mutants ({P.mutants_per_program or 'all'} each), fuzzed until "
      f"{distinguish.POOL_FACTOR * n} have df_score = 0; fuzzing N = {P.fuzz_inputs_program}, R = {P.fuzz_runs}")

# %% [markdown]
# ## The df_score = 0 mutant pool (Algorithm 1 on mutants of PIE slow programs)

# %%
have_pie = loaders.benchmark_available("PIE")
if have_pie:
    pie_pairs, pie_skipped = distinguish.usable_pairs(loaders.load_pie_pairs())
    pool_target = distinguish.POOL_FACTOR * n  # fuzz until this many df = 0 mutants (or candidates run out)
    pool, pool_counts = distinguish.mutant_pool(P, seed, jobs, target=pool_target)
    pool_counts.update(pie_skipped)
    pool_counts["PIE pairs drawn from (equivalent and cross pairs)"] = len(pie_pairs)
else:
    pie_pairs, pool, pool_counts = [], [], Counter({"PIE not available (no data mirror): RQ2 not run": 1})
pool_ledger = pd.DataFrame([{"what": w, "count": c} for w, c in pool_counts.items()])
display(pool_ledger)
if have_pie and len(pool) < n:
    display(Markdown(f"**Only {len(pool)} mutants with df_score = 0 (< {n}): every repetition of `ds_replaced` "
                     f"uses {len(pool)} non-equivalent pairs (`n_neq_repl` in the tables).**"))

# %% [markdown]
# ## Repetitions (recorded seeds) and scores
#
# The union of every pair used in any repetition is scored once and indexed per repetition;
# CrystalBLEU's ignore set (k = 50 most frequent n-grams) is therefore computed on that union.

# %%
reps = distinguish.repetitions(pie_pairs, pool, n, k, seed) if have_pie else []
print("repetition seeds:", [r.seed for r in reps])
frame = scoring.pairs_frame(distinguish.union(reps))
scored = scoring.score_frame(frame, codescore_model=training.base_model(P, seed, jobs)) if len(frame) else frame
long = distinguish.repetition_scores(scored, reps)
outputs.save_table(long, "rq2_repetitions", profile=profile, seed=seed, directory=tables_out,
                   title="RQ2: mean scores and distinguishability per repetition, dataset and metric",
                   notes=[f"{len(frame)} distinct pairs scored once (CrystalBLEU's ignore set from that union)",
                          "seed = the recorded seed of the repetition (numpy SeedSequence([seed, r]))"])

# %% [markdown]
# ## Table 4 · Distinguishability (ours next to the paper's)

# %%
t4 = distinguish.with_paper(distinguish.table4(long))
notes = [f"{r['what']} = {r['count']}" for _, r in pool_ledger.iterrows()]
notes += [f"mean (± sample std, ddof = 1) over {k} repetitions; d = Eq. 3 per repetition; drop % from the mean d's",
          f"pairs per repetition: {t4.n_eq.min()} equivalent, {t4.n_neq_orig.min()} cross-paired, "
          f"{t4.n_neq_repl.min()} df_score = 0 mutants",
          "mutant pairs: reference = ast.unparse of the slow program (as in LoCaL), candidate = the mutant; "
          "equivalent and cross pairs: PIE's programs as published",
          "CodeBERTScore[MiniLM] substitutes CodeBERT; "
          "CodeScore-style (retrained) substitutes the CodeScore checkpoint",
          "SurfaceSim row: mean Eq. 1 similarity of each group (no d in the paper)"]
outputs.save_table(t4, "table4_distinguishability", profile=profile, seed=seed, directory=tables_out, notes=notes,
                   title="Table 4. Distinguishability d (Eq. 3) on ds_orig and ds_replaced (ours vs paper)")
shown = pd.DataFrame({
    "metric": t4.metric,
    "EQ": [distinguish.fmt(m, s) for m, s in zip(t4["EQ"], t4["EQ std"])],
    "NEQ ds_orig": [distinguish.fmt(m, s) for m, s in zip(t4["NEQ orig"], t4["NEQ orig std"])],
    "d ds_orig": [distinguish.fmt(m, s) for m, s in zip(t4["d orig"], t4["d orig std"])],
    "NEQ ds_replaced": [distinguish.fmt(m, s) for m, s in zip(t4["NEQ repl"], t4["NEQ repl std"])],
    "d ds_replaced": [distinguish.fmt(m, s) for m, s in zip(t4["d repl"], t4["d repl std"])],
    "drop %": t4["drop %"].round(1), "d ds_orig (paper)": t4["d orig (paper)"],
    "d ds_replaced (paper)": t4["d repl (paper)"], "drop % (paper)": t4["drop % (paper)"],
})
display(shown)

# %%
cem = t4[t4.metric != distinguish.SURFACE_LABEL].reset_index(drop=True)
x = np.arange(len(cem))
fig, ax = plt.subplots(figsize=(6.5, 4))
for off, col, label, color in ((-0.18, "d orig", "ds_orig", "tab:blue"), (0.18, "d repl", "ds_replaced", "tab:red")):
    ax.bar(x + off, cem[col], width=0.34, yerr=cem[f"{col} std"].fillna(0), capsize=3, color=color, alpha=0.8,
           label=f"{label} (ours)")
    ax.scatter(x + off, cem[f"{col} (paper)"], marker="D", facecolors="none", edgecolors="k", zorder=3,
               label="paper" if col == "d orig" else None)
ax.axhline(1.0, color="k", lw=1, ls="--")
ax.set_xticks(x, [scoring.paper_name(m) + ("*" if m != scoring.paper_name(m) else "") for m in cem.metric])
ax.set_yscale("log")
ax.set_ylabel("distinguishability d (Eq. 3, log scale)")
ax.set_title(f"RQ2: d per CEM (mean ± std over {k} repetitions)")
ax.legend(frameon=False, fontsize=8)
ax.annotate("* substitute: MiniLM / retrained CodeScore-style", (0, -0.16), xycoords="axes fraction", fontsize=7)
fig.tight_layout()
outputs.save_figure(fig, "rq2_distinguishability", profile=profile, seed=seed, directory=figures_out)

# %% [markdown]
# ## What we found

# %%
surf = t4.set_index("metric").loc[distinguish.SURFACE_LABEL] if distinguish.SURFACE_LABEL in set(t4.metric) else None
above = [scoring.paper_name(m) for m, d in zip(cem.metric, cem["d orig"]) if d > 1]
below = [scoring.paper_name(m) for m, d in zip(cem.metric, cem["d repl"]) if d < 1]
order = [scoring.paper_name(m) for m in cem.sort_values("drop %", ascending=False).metric]
paper_order = [scoring.paper_name(m) for m in cem.sort_values("drop % (paper)", ascending=False).metric]
lines = [] if have_pie else ["- **PIE is not available (no data mirror), so RQ2 was not run; the tables are empty.**"]
if surf is not None:
    lines.append(f"- SurfaceSim: equivalent pairs {distinguish.fmt(surf['EQ'], surf['EQ std'])} (paper "
                 f"{surf['EQ (paper)']}), cross pairs {distinguish.fmt(surf['NEQ orig'], surf['NEQ orig std'])} "
                 f"({surf['NEQ orig (paper)']}), df = 0 mutants "
                 f"{distinguish.fmt(surf['NEQ repl'], surf['NEQ repl std'])} "
                 f"({surf['NEQ repl (paper)']}): the replaced non-equivalents look "
                 f"{'more' if surf['NEQ repl'] > surf['EQ'] else 'less'} alike than the equivalent pairs.")
lines += [
    f"- d > 1 on ds_orig: {', '.join(above) or 'none'} of {len(cem)} CEMs (paper: all four).",
    f"- d < 1 on ds_replaced: {', '.join(below) or 'none'} of {len(cem)} (paper: all four).",
    "- Drop in d: " + ", ".join(f"{scoring.paper_name(m)} {d:.1f}% (paper {p})" for m, d, p in
                                zip(cem.metric, cem["drop %"], cem["drop % (paper)"])) + ".",
    "- Mean scores, ours (paper) as EQ / NEQ ds_orig / NEQ ds_replaced: " + "; ".join(
        f"{scoring.paper_name(m)} {e:.2f} ({pe}) / {o:.2f} ({po}) / {r:.2f} ({pr})" for m, e, pe, o, po, r, pr in zip(
            cem.metric, cem["EQ"], cem["EQ (paper)"], cem["NEQ orig"], cem["NEQ orig (paper)"], cem["NEQ repl"],
            cem["NEQ repl (paper)"])) + ".",
    f"- Ranking by drop: ours {' > '.join(order)}; paper {' > '.join(paper_order)}.",
    f"- Sizes: {t4.n_eq.min()} equivalent / {t4.n_neq_orig.min()} cross / {t4.n_neq_repl.min()} "
    f"mutant pairs per repetition "
    f"({'fewer mutants than asked: the df = 0 pool is small' if len(pool) < n else 'as asked'}), "
    f"{k} repetitions (paper: 100/100/100, 10).",
    "- Where we differ and why: CodeBERTScore is computed with MiniLM (no CodeBERT offline), CodeScore with our "
    "retrained CodeScore-style model; the mutants' df_score = 0 comes from our fuzzer and reviewed specs "
    f"(N = {P.fuzz_inputs_program}, R = {P.fuzz_runs}), and only PIE problems with a verified spec are mutated; "
    "CrystalBLEU's ignore set is computed on the union of all scored pairs.",
]
if surf is not None and pool and surf["NEQ repl"] > float(surf["NEQ repl (paper)"]) + 0.05:
    eq_refs = {row["reference"] for rep in reps for row in rep.eq}
    lines.append(
        f"- Mutants look more alike than in the paper (SurfaceSim {surf['NEQ repl']:.2f} vs "
        f"{surf['NEQ repl (paper)']}): the pool holds LoCaL's own mutants of the {loaders.SELECT_K['PIE']} longest PIE "
        f"slow programs ({len({r['task'] for r in pool})} programs, mean "
        f"{distinguish.mean_lines(r['reference'] for r in pool):.0f} non-blank lines, against "
        f"{distinguish.mean_lines(eq_refs):.0f} for the slow programs of the equivalent pairs), and one "
        "MutPy operator changes a small share of a long program. The paper does not say which slow "
        "implementations it mutated.")
low = [scoring.paper_name(m) for m, e, pe in zip(cem.metric, cem["EQ"], cem["EQ (paper)"]) if e < 0.5 * pe]
if low:
    lines.append(f"- {', '.join(low)}: mean score on equivalent pairs under half the paper's. The CodeScore-style "
                 "model is trained on HumanEval function-level candidates (`lcl.training`), while PIE pairs are "
                 "whole stdin programs, so its absolute scores here are low; its d is a ratio of two small means.")
display(Markdown("\n".join(lines)))
