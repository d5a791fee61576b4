# Declared outputs (and extra inputs) of each notebook, for the Makefile's per-notebook rules.
# Keep in step with the save_table/save_figure calls in notebooks/NN_name.py
# (tests/test_notebooks.py::test_every_notebook_declares_its_outputs checks it).

NB_00_data_IN  := data/reference/paper_claims.csv Makefile notebooks/outputs.mk
NB_00_data_OUT := tables/table1_datasets.csv tables/table1_datasets.md \
                  tables/task_profile.csv tables/task_profile.md \
                  tables/figure2_survey_counts.csv figures/figure2_survey.png figures/figure2_survey.pdf \
                  figures/figure3_pipeline.png figures/figure3_pipeline.pdf

NB_01_inputs_IN  := $(wildcard data/constraints/*/*.json)
NB_01_inputs_OUT := tables/inputs_spec_status.csv tables/inputs_quality.csv tables/inputs_quality_summary.csv \
                    tables/inputs_below_target.csv tables/inputs_backends.csv \
                    tables/labels_rederived.csv tables/labels_agreement.csv \
                    figures/inputs_quality.png figures/inputs_quality.pdf

NB_02_variants_IN  := $(wildcard data/constraints/*/*.json)
NB_02_variants_OUT := tables/table2_variants.csv tables/table2_variants.md tables/variants_fingerprint.csv \
                      figures/variants_scatter.png figures/variants_scatter.pdf

NB_08_claims_IN  := data/reference/paper_claims.csv build/notebooks/$(PROFILE)/00_data.ipynb build/notebooks/$(PROFILE)/02_variants.ipynb
NB_08_claims_OUT := tables/claims.csv tables/claims.md
