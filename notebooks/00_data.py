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
# # 00 · Source data: Table 1, task profile and Figure 2
#
# **Question.** Which benchmarks does LoCaL draw its tasks from, how many tasks does it select
# from each, and how well tested are they? (Paper, Section 3.3.1 and Table 1; Figure 2 motivates
# the choice of the four code evaluation metrics.)
#
# **Paper's answer.** All 164 HumanEval tasks, the 100 longest MBPP and APPS references and 100
# PIE programs; HumanEval and MBPP are function-level, APPS and PIE program-level; PIE has no NL
# description. CodeBLEU is the most used metric, CodeScore the newest.
#
# Everything below is computed from `data/raw/` by `lcl.study.overview` (one hop: `lib/lcl/study/overview.py`,
# loaders in `lib/lcl/study/loaders.py`). Paper numbers come from `data/reference/paper_claims.csv` and
# appear only in the "(paper)" columns.

# %% tags=["parameters"]
profile = "full"
seed = 20250101
jobs = 2
tables_dir = ""
figures_dir = ""

# %%

import pandas as pd
from IPython.display import Markdown

from lcl.report import outputs, pipeline
from lcl.report.display import bullets, show
from lcl.study import overview, sources

tables_out, figures_out = outputs.output_dirs(tables_dir, figures_dir)
status = sources.status()
print("available sources:", ", ".join(sorted(status["available"])) or "-")
print("skipped sources:  ", ", ".join(sorted(status["skipped"])) or "-")

# %% [markdown]
# ## Table 1 · Datasets used to construct LoCaL

# %%
summaries = overview.summarise_all()
table1 = overview.table1(summaries)
notes = overview.table1_notes(summaries)
outputs.save_table(table1, "table1_datasets", profile=profile, seed=seed, notes=notes,
                   title="Table 1. Datasets used to construct LoCaL (ours vs paper)", directory=tables_out)
show(table1)
show(bullets(notes))

# %% [markdown]
# ## Task profile (Code2Bench-style)
# Mean lines of code, total cyclomatic complexity (radon) and whether the reference is
# self-contained or imports the standard library or third-party packages, over the selected tasks.

# %%
profile_df = overview.task_profile(summaries)
outputs.save_table(profile_df, "task_profile", profile=profile, seed=seed, directory=tables_out,
                   title="Task profile of the selected references")
show(profile_df)

# %% [markdown]
# ## Figure 2 · Publications using each metric per year

# %%
counts = overview.survey_counts()
if counts is None:
    reason = "skipped: the literature survey is a mirror-only source and is not available here"
    show(Markdown(f"**Figure 2 {reason}.**"))
    outputs.save_figure(overview.unavailable_figure("Figure 2: publications per metric", reason),
                        "figure2_survey", profile=profile, seed=seed, directory=figures_out)
    outputs.save_table(pd.DataFrame({"status": [reason]}), "figure2_survey_counts", profile=profile,
                       seed=seed, directory=tables_out, title="Figure 2 data (skipped)")
else:
    fig = overview.figure2(counts)
    outputs.save_figure(fig, "figure2_survey", profile=profile, seed=seed, directory=figures_out)
    outputs.save_table(counts.reset_index(), "figure2_survey_counts", profile=profile, seed=seed,
                       directory=tables_out, title="Figure 2 data: publications per year per metric")
    show(counts)

# %% [markdown]
# ## Figure 3 · The construction pipeline
# Drawn from the Makefile's own dependency graph (`make -pnq all`), so it cannot drift from the
# code (`lib/lcl/report/pipeline.py`).

# %%
fig3 = pipeline.figure3(profile)
outputs.save_figure(fig3, "figure3_pipeline", profile=profile, seed=seed, directory=figures_out)

# %% [markdown]
# ## What we found

# %%
lines = overview.found(summaries, table1, counts)
show(Markdown("\n".join(lines)))
