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
                    tables/labels_rederived.csv tables/labels_agreement.csv tables/labels_causes.csv \
                    figures/inputs_quality.png figures/inputs_quality.pdf

# the pair files every later notebook reads (data/processed/; JSON Lines + Parquet, with provenance)
PAIRS_02 := data/processed/local_pairs_$(PROFILE).jsonl data/processed/local_pairs_$(PROFILE).parquet \
            data/processed/clone_pairs_$(PROFILE).jsonl data/processed/clone_pairs_$(PROFILE).parquet \
            data/processed/published_pairs.jsonl data/processed/published_pairs.parquet
NB_02_variants_IN  := $(wildcard data/constraints/*/*.json)
NB_02_variants_OUT := $(PAIRS_02) tables/table2_variants.csv tables/table2_variants.md tables/variants_fingerprint.csv \
                      tables/opt_by_generator.csv tables/opt_by_generator.md \
                      figures/variants_scatter.png figures/variants_scatter.pdf \
                      tables/clone_clusters.csv tables/clone_clusters.md figures/clone_scatter.png figures/clone_scatter.pdf \
                      tables/published_table2.csv tables/published_table2.md tables/dataset_ledger.csv tables/dataset_ledger.md \
                      tables/curation_evidence.csv tables/curation_evidence.md tables/local_makeup.csv tables/local_makeup.md tables/table2_sensitivity.csv tables/table2_sensitivity.md

# 08_claims reads every other notebook's tables
# (the paper's notebooks 00-07; the studies beyond the paper, 09 on, have findings, not claims)
STUDY_IDS := $(filter 09_% 1%,$(NB_IDS))
STUDY_NB  := $(STUDY_IDS:%=build/notebooks/$(PROFILE)/%.ipynb)
NB_08_claims_IN  := data/reference/paper_claims.csv $(filter-out build/notebooks/$(PROFILE)/08_claims.ipynb $(STUDY_NB),$(EXEC_NB))
NB_08_claims_OUT := tables/claims.csv tables/claims.md tables/claims_by_section.csv tables/claims_by_section.md \
                    tables/claims_deviations.csv tables/claims_deviations.md \
                    figures/claims_scatter.png figures/claims_scatter.pdf

# CodeScore_base (lcl codescore-base): trained once per profile, used by every RQ notebook.
BASE_MODEL := build/models/$(PROFILE)/codescore_base.json
LOCAL_PAIRS := $(PAIRS_02)

NB_03_rq1_correlation_IN  := $(BASE_MODEL)
NB_03_rq1_correlation_OUT := tables/table3_correlation.csv tables/table3_correlation.md \
                             tables/table3_crystalbleu_sensitivity.csv tables/table3_crystalbleu_sensitivity.md \
                             figures/rq1_scatter.png figures/rq1_scatter.pdf

NB_04_rq2_distinguishability_IN  := $(BASE_MODEL) $(LOCAL_PAIRS) $(wildcard data/constraints/PIE/*.json)
NB_04_rq2_distinguishability_OUT := tables/table4_distinguishability.csv tables/table4_distinguishability.md \
                                    tables/rq2_repetitions.csv tables/rq2_repetitions.md \
                                    tables/rq2_populations.csv tables/rq2_populations.md \
                                    tables/rq2_against_constant.csv tables/rq2_against_constant.md \
                                    tables/table4_crystalbleu_sensitivity.csv tables/table4_crystalbleu_sensitivity.md \
                                    tables/rq2_released_surface.csv tables/rq2_released_surface.md \
                                    tables/rq2_drop_differences.csv tables/rq2_drop_differences.md \
                                    figures/rq2_distinguishability.png figures/rq2_distinguishability.pdf

NB_05_rq3_regions_IN  := $(BASE_MODEL) $(LOCAL_PAIRS)
NB_05_rq3_regions_OUT := tables/rq3_thresholds.csv tables/rq3_thresholds.md tables/rq3_search_rules.csv tables/rq3_search_rules.md tables/rq3_coverage.csv tables/rq3_coverage.md \
                         tables/rq3_hit_rates.csv tables/rq3_hit_rates.md \
                         tables/rq3_draws.csv tables/rq3_draws.md tables/rq3_draws_summary.csv tables/rq3_draws_summary.md \
                         tables/rq3_sensitivity.csv tables/rq3_sensitivity.md \
                         tables/rq3_hit_rates_by_source.csv tables/rq3_hit_rates_by_source.md \
                         tables/rq3_coverage_paper_thresholds.csv tables/rq3_coverage_paper_thresholds.md \
                         tables/rq3_released_variants.csv tables/rq3_released_variants.md \
                         tables/rq3_hit_rates_paper_thresholds.csv tables/rq3_hit_rates_paper_thresholds.md \
                         tables/rq3_ablation.csv tables/rq3_ablation.md \
                         figures/figure5_regions.png figures/figure5_regions.pdf \
                         figures/figure1_examples.png figures/figure1_examples.pdf

# 06's label sensitivity reads our labels of the released pairs from the result store that 01_inputs fills
# (at full they come from the committed archive data/labels/, whose shards are declared too)
RELEASED_LABELS := build/notebooks/$(PROFILE)/01_inputs.ipynb $(wildcard data/labels/LOCAL_*.jsonl.gz)
NB_06_rq4_effectiveness_IN  := $(BASE_MODEL) $(LOCAL_PAIRS) $(RELEASED_LABELS)
NB_06_rq4_effectiveness_OUT := tables/rq4_intervals.csv tables/rq4_intervals.md tables/table5_mae.csv tables/table5_mae.md tables/rq4_author_scores.csv tables/rq4_author_scores.md \
                               tables/rq4_increase.csv tables/rq4_increase.md tables/rq4_worst_cases.csv tables/rq4_worst_cases.md \
                               tables/rq4_increase_by_group.csv tables/rq4_increase_by_group.md \
                               tables/rq4_mae_by_benchmark.csv tables/rq4_mae_by_benchmark.md \
                               tables/rq4_mae_by_benchmark_kind.csv tables/rq4_mae_by_benchmark_kind.md \
                               tables/rq4_agreement_with_authors.csv tables/rq4_agreement_with_authors.md \
                               tables/table5_sensitivity.csv tables/table5_sensitivity.md \
                               tables/rq4_opt_by_source.csv tables/rq4_opt_by_source.md \
                               figures/rq4_mae.png figures/rq4_mae.pdf \
                               tables/label_sensitivity.csv tables/label_sensitivity.md \
                               tables/label_sensitivity_pairs.csv tables/label_sensitivity_pairs.md

NB_07_rq5_training_IN  := $(BASE_MODEL) $(LOCAL_PAIRS)
NB_07_rq5_training_OUT := tables/table6_training.csv tables/table6_training.md tables/rq5_runs.csv tables/rq5_runs.md \
                          tables/table6_frozen_sensitivity.csv tables/table6_frozen_sensitivity.md \
                          tables/rq5_sensitivity.csv tables/rq5_sensitivity.md tables/rq5_cost.csv tables/rq5_cost.md \
                          figures/rq5_mae_vs_p.png figures/rq5_mae_vs_p.pdf \
                          tables/rq5_learned_gain.csv tables/rq5_learned_gain.md \
                          figures/rq5_learned_gain.png figures/rq5_learned_gain.pdf \
                          tables/rq5_capacity.csv tables/rq5_capacity.md \
                          tables/rq5_capacity_curves.csv tables/rq5_capacity_curves.md \
                          figures/rq5_capacity_curves.png figures/rq5_capacity_curves.pdf

# 09 re-executes run 0 of each (sampled) LoCaL pair's label; its verdict strings are cached under .cache/x1-run0
NB_09_sparse_tests_IN  := $(BASE_MODEL) $(LOCAL_PAIRS)
NB_09_sparse_tests_OUT := tables/x1_reproduction.csv tables/x1_reproduction.md tables/x1_cost.csv tables/x1_cost.md \
                          tables/x1_pairs.csv tables/x1_pairs.md \
                          tables/x1_sparse_equivalence.csv tables/x1_sparse_equivalence.md \
                          tables/x1_near_perfect.csv tables/x1_near_perfect.md \
                          tables/x1_interval_widths.csv tables/x1_interval_widths.md \
                          tables/x1_convergence.csv tables/x1_convergence.md tables/x1_mae.csv tables/x1_mae.md \
                          tables/findings_09.csv tables/findings_09.md \
                          figures/x1_sparse_equivalence.png figures/x1_sparse_equivalence.pdf \
                          figures/x1_convergence.png figures/x1_convergence.pdf

# 10_robustness fuzzes its perturbed programs against the task generators of the LoCaL pairs
NB_10_robustness_IN  := $(BASE_MODEL) $(LOCAL_PAIRS)
NB_10_robustness_OUT := tables/x2_rejected.csv tables/x2_rejected.md tables/x2_robustness.csv tables/x2_robustness.md \
                        figures/x2_robustness.png figures/x2_robustness.pdf \
                        tables/x3_auroc.csv tables/x3_auroc.md tables/x3_groups.csv tables/x3_groups.md \
                        tables/x3_score_gaps.csv tables/x3_score_gaps.md \
                        figures/x3_red_herrings.png figures/x3_red_herrings.pdf \
                        tables/findings_10.csv tables/findings_10.md

# 11: studies X4 (CEM calibration) and X5 (the released local_trained metric). Its model
# (build/models/$(PROFILE)/local_trained/, with local_trained.md beside it) is the RQ5 model
# notebook 07 trains at p = 100, so 07 runs first and the training is a cache hit.
# That model folder is not among the declared outputs: 11 writes it only when the profile has
# enough training pairs, and a declared output that may be absent would make Make rerun 11 each time.
NB_11_calibration_trained_metric_IN  := $(BASE_MODEL) $(LOCAL_PAIRS) build/notebooks/$(PROFILE)/05_rq3_regions.ipynb \
                                        build/notebooks/$(PROFILE)/07_rq5_training.ipynb
NB_11_calibration_trained_metric_OUT := tables/x4_ece.csv tables/x4_ece.md tables/x4_recalibration.csv \
                                        tables/x4_recalibration.md figures/x4_reliability.png figures/x4_reliability.pdf \
                                        tables/x5_evaluation.csv tables/x5_evaluation.md tables/x5_cost.csv tables/x5_cost.md \
                                        tables/x5_task_traits.csv tables/x5_task_traits.md tables/x5_model_card.md \
                                        tables/findings_11.csv tables/findings_11.md
