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
# # 10 · Studies X2 and X3: can a CEM be moved without changing behaviour, and does it see harmless edits?
#
# Two questions beyond the paper, both following from its surface-bias argument (Section 4.6: CEMs
# follow form, not semantics).
#
# **X2 (robustness).** Apply a *semantics-preserving* perturbation to one side of a curated LoCaL pair
# and measure how far each CEM's score moves. A metric that tracked behaviour would not move at all.
# Perturbations (`lib/lcl/engine/variants/perturb/`): `misleading_comment` (comments claiming correctness),
# `reference_docstring` (the reference's docstrings copied into the variant), `rename_identifiers`
# (locals renamed `v0, v1, ...`), `dead_code` (`if False:` blocks, unused constants), `reorder_statements`
# (one swap of two independent assignments). OPT pairs (optimised variants, DFS side) are perturbed on the
# variant (`side = variant`) and on the reference (`side = reference`). The SFD counterpart: a curated
# mutant carrying the reference's comments and docstrings verbatim (`reference_comments`): does a buggy
# candidate gain credit for copied prose?
#
# **Every perturbed program is untrusted** and is verified before use: Algorithm 1 fuzzes (program before,
# program after the perturbation) in the sandbox, with the pair's task generator and the profile's N and R,
# through the same batch machinery that labels LoCaL (`lcl.study.labelling.label_candidates`, its result store caches by
# content, so a rerun fuzzes nothing). A pair is used only when df_score = 1; a lower df_score is a
# perturbation bug, counted per perturbation and dropped. Algorithm 1 treats inputs on which the reference
# crashes as invalid, so a mutant that crashes on every input cannot be judged against itself: for such
# programs (df = -1) a second check fuzzes the labelled LoCaL pair again with the perturbed program in place
# of the original, and accepts it only when every input of every run gets the verdict recorded for the
# labelled pair (identical verdict digest; same seed, same inputs). What neither check can judge is counted
# as unverifiable and dropped too.
#
# **Choice: the documented reference.** LoCaL's references are stored normalised by `ast.unparse`, which
# drops comments and docstrings (`lcl.study.candidate_generation.strip_docstrings`), so there is no prose to copy from them.
# The two prose-copying perturbations (`reference_docstring`, `reference_comments`) take the prose from the
# benchmark's original reference source and are scored against that documented reference, before and
# after, so their shift is the credit for the copied prose alone. Benchmarks whose references carry no prose
# (MBPP, most APPS/PIE programs) give no such pair. All other perturbations are scored against LoCaL's own
# pair. Sensitivity rows (`[vs stored reference]`): the same programs scored against LoCaL's stored reference,
# which has no prose to match.
#
# **X3 (red herrings).** On LoCaL-all (curation drops the equivalent mutants), compare each CEM's scores on
# equivalent mutants (df = 1: one edit, no behaviour change) with killed ones (df = 0) of the same task and
# mutation operator (matched groups): within-group AUROC with a cluster-bootstrap 95% CI (groups resampled),
# SurfaceSim as the reference line; the pooled AUROC is a sensitivity column (it mixes in differences between
# tasks). Computation: `lib/lcl/rq/red_herrings.py`. The scores are those notebook 06 computed (same pairs,
# same metrics: a metric-cache hit).
#
# Metric labels say where we use substitutes: CodeBERTScore[MiniLM] (substitute encoder) and
# CodeScore-style (retrained; CodeScore_base of `lcl.study.codescore_base`).
#
# **Budgets (measured on 2 cores shared with other jobs, jobs = 1).** Smoke (HumanEval only, no mirror):
# 38 s with an empty cache (the smoke CodeScore_base included), 10-17 s warm. Quick: 20-55 s with the perturbed
# programs' fuzz results stored; 4 min 20 s on a first run that also trained quick's CodeScore_base and shared
# the cores with a full-profile fuzz. Full: each perturbed program costs one Algorithm 1 run at N = 2000 / 1000,
# R = 5, about 3 s here (176 programs not yet in the store took 535 s); the default sample gives about 190
# programs, so a cold full run is about 9.5 min of fuzzing plus 1-2 min of scoring and 0.5 min for X3, about
# 12 min (1 min warm). The sample is what keeps full within 15 min: a seeded sample of `opt_pairs` = 24 of the
# 435 curated OPT pairs and `mut_pairs` = 60 of the 5,468 curated MUT pairs (seed = the notebook seed; every
# pair at quick and smoke, which have fewer); 120 + 120 pairs (about 1,000 programs) would take about 50 min.
# The sizes used are printed below and recorded in the tables' notes. X3 uses every LoCaL-all mutant (its
# scores are cache hits).
# Computation: `lib/lcl/rq/robustness.py` (X2), `lib/lcl/rq/red_herrings.py` (X3).

# %% tags=["parameters"]
profile = "full"
seed = 20250101
jobs = 2
tables_dir = ""
figures_dir = ""
opt_pairs = 24  # curated OPT pairs perturbed (seeded sample when more; every one when fewer)
mut_pairs = 60  # curated MUT pairs given the reference's prose (seeded sample when more)
min_groups = 10  # X3: fewer matched groups than this and a finding says the interval cannot be judged

# %%

import pandas as pd
from IPython.display import Markdown

from lcl.core import profiles
from lcl.report import findings, outputs
from lcl.report.display import show
from lcl.rq import red_herrings as rh
from lcl.rq import robustness as rb
from lcl.study import candidate_generation, codescore_base, pair_files, scoring

P = profiles.get(profile)
tables_out, figures_out = outputs.output_dirs(tables_dir, figures_dir)
model = codescore_base.base_model(P, seed, jobs)
all_rows = pair_files.load_local(profile, subset="all")  # LoCaL-all; LoCaL = its in_local rows
docs = rb.documented_references(candidate_generation.selected_tasks(P))
opt = rb.sample(all_rows, "OPT", opt_pairs, seed)
mut = rb.sample(all_rows, "MUT", mut_pairs, seed)
n_opt_all, n_mut_all = rb.curated_count(all_rows, "OPT"), rb.curated_count(all_rows, "MUT")
sample_note = (f"Pairs: {len(opt)} of {n_opt_all} curated OPT and {len(mut)} of {n_mut_all} curated MUT pairs "
               f"(seeded sample, seed {seed}, when more than {opt_pairs} / {mut_pairs}).")
print(sample_note)

# %% [markdown]
# ## X2 · Perturb, then verify every perturbed program by differential fuzzing

# %%
perturbed = rb.perturb_opt(opt, docs, seed) + rb.perturb_mut(mut, docs)
verified = rb.verify(perturbed, P, seed, jobs)
rejected = rb.rejected_counts(verified)
outputs.save_table(rejected, "x2_rejected", profile=profile, seed=seed, directory=tables_out,
                   title="X2. Perturbed programs fuzzed against the unperturbed program: verified and rejected",
                   notes=[sample_note,
                          f"Algorithm 1 with the profile's settings (N = {P.fuzz_inputs_function} function / "
                          f"{P.fuzz_inputs_program} program inputs, R = {P.fuzz_runs} runs), seed {seed}.",
                          "verified: df = 1 against the unperturbed program, or (verified_by_label_verdicts) the "
                          "labelled pair's verdict digest reproduced with the perturbed program in place of the "
                          "original, for programs the first check cannot judge (e.g. mutants crashing on every input).",
                          "behaviour_changed: 0 <= df < 1, or a different verdict digest (a perturbation bug); "
                          "unverifiable: neither check gives a result. Both are dropped.",
                          "A perturbation that does not apply to a program (nothing to rename, no docstring to "
                          "copy, ...) gives no row."])
show(rejected)

# %% [markdown]
# A few rejected perturbations (if any), with the fuzzer's df_score and the edit:

# %%
examples = rb.rejected_examples(verified, 3)
if examples:
    show(Markdown(examples))
else:
    print("no perturbed program was rejected")

# %% [markdown]
# ## X2 · Score shift of each CEM (perturbed pair minus unperturbed pair)

# %%
scored = rb.score_pairs(pd.concat([verified, rb.against_stored_reference(verified)], ignore_index=True),
                        codescore_model=model)
shifts = rb.shift_table(scored, n_boot=P.bootstrap, seed=seed)
outputs.save_table(shifts, "x2_robustness", profile=profile, seed=seed, directory=tables_out,
                   title="X2. Mean score shift of each metric under semantics-preserving perturbations",
                   notes=[sample_note,
                          "shift: score(perturbed pair) - score(unperturbed pair), mean over the verified pairs, "
                          f"95% percentile bootstrap CI over pairs ({P.bootstrap} resamples, seed {seed}).",
                          "side: which program of the pair was perturbed (variant: the candidate; reference).",
                          "reference_docstring and reference_comments (MUT) copy prose from the benchmark's documented "
                          "reference and are scored against it (LoCaL's references carry no comments or docstrings).",
                          "CodeBERTScore[MiniLM]: substitute encoder; CodeScore-style: our retrained substitute.",
                          f"Rows named '...{rb.STORED}' (sensitivity): the same verified programs scored against "
                          "LoCaL's stored reference, which has no prose; they are left out of the largest shifts.",
                          "share_moved: share of pairs whose score changed at all."])
show(shifts)
most = rb.largest_shift(shifts[shifts.metric != scoring.label(scoring.SURFACE)])
show(most)

# %%
fig = rb.plot_shifts(shifts)
outputs.save_figure(fig, "x2_robustness", profile=profile, seed=seed, directory=figures_out)

# %% [markdown]
# ## X3 · Equivalent mutants (df = 1) vs killed mutants (df = 0) of the same task and operator

# %%
mutants = scoring.score_frame(rh.mutant_frame(all_rows), codescore_model=model)
x3_metrics = [rh.SURFACE, *scoring.cem_columns(mutants)]
counts = rh.group_counts(mutants)
auc = rh.auroc_table(mutants, x3_metrics, n_boot=P.bootstrap, seed=seed)
gaps = rh.score_gaps(mutants, x3_metrics, n_boot=P.bootstrap, seed=seed)
x3_notes = ["Matched groups: mutants of one task made by one operator, kept when they hold at least one equivalent "
            "(df = 1) and one killed (df = 0) mutant; partly equivalent mutants are left out.",
            f"95% CI: cluster bootstrap over groups ({P.bootstrap} resamples, seed {seed}).",
            "auroc_within: the weighted mean of the groups' AUROCs (the fair comparison); auroc_pooled: one AUROC "
            "over all matched mutants (sensitivity; it mixes in differences between tasks).",
            "AUROC 0.5: the metric cannot tell a harmless edit from a bug. SurfaceSim: the reference line.",
            "CodeBERTScore[MiniLM]: substitute encoder; CodeScore-style: our retrained substitute."]
outputs.save_table(auc, "x3_auroc", profile=profile, seed=seed, directory=tables_out, notes=x3_notes,
                   title="X3. AUROC of each metric for equivalent (df = 1) vs killed (df = 0) mutants, matched groups")
outputs.save_table(counts, "x3_groups", profile=profile, seed=seed, directory=tables_out,
                   title="X3. Mutants of LoCaL-all by label, and the matched groups used")
outputs.save_table(gaps, "x3_score_gaps", profile=profile, seed=seed, directory=tables_out, notes=x3_notes[:2],
                   title="X3. Mean score of equivalent minus killed mutants in the matched groups")
show(counts, auc, gaps)

# %%
fig = rh.plot_scores(mutants, auc, x3_metrics)
outputs.save_figure(fig, "x3_red_herrings", profile=profile, seed=seed, directory=figures_out)

# %% [markdown]
# ## Findings

# %%
items = rb.findings(most, rejected) + rh.findings(counts, auc, min_groups)
notebook_id = "10"  # this notebook's findings part: tables/findings_10.csv
fnd = findings.save(items, notebook_id, profile=profile, seed=seed, directory=tables_out)
show(fnd)

# %% [markdown]
# ## What we found

# %%
lines = rb.what_we_found(shifts, most, rejected, sample_note) + rh.what_we_found(counts, auc, min_groups)
show(Markdown("\n".join(lines)))
