"""Run profiles: ``full`` reproduces the paper's settings; ``quick`` runs in minutes (CI, a
first look); ``smoke`` is the tests' tiny run through every notebook. Notebooks receive the profile name from papermill and read settings here, so a
parameters cell never holds derived values."""

from __future__ import annotations

from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class Profile:
    name: str
    fuzz_inputs_function: int  # Algorithm 1: N for functions
    fuzz_inputs_program: int  # Algorithm 1: N for stdin programs
    fuzz_runs: int  # Algorithm 1: R
    bootstrap: int  # bootstrap resamples for confidence intervals
    rq2_repetitions: int  # RQ2 dataset constructions
    rq5_percentages: tuple[int, ...]
    rq5_models_per_p: int
    max_tasks_per_benchmark: int | None  # None = every selected task
    mutants_per_function: int | None = None  # LoCaL mutants kept per function task (None = all)
    mutants_per_program: int | None = 15  # per program task (sampled with a recorded seed)
    rq1_pairs: int | None = None  # PIE equivalent pairs for RQ1 (None = all 1000)
    rq2_pairs: int = 100  # equivalent / non-equivalent pairs per RQ2 dataset (paper: 100)
    rq2_pool_programs: int | None = None  # of the RQ2 population's slow programs, how many are mutated (None = all)
    rq2_pool_candidates: int | None = None  # RQ2 population: the first K mutants of its seeded order (None = all)
    rq3_balanced: int = 427  # mutants and optimised variants each in LoCaL_balanced (paper: 427)
    eval_pairs_cap: int | None = None  # pairs scored per evaluation dataset in RQ3/RQ4 (None = all)
    rq5_base_pairs: int = 2500  # model-written training candidates labelled for CodeScore_base (paper: 2500)
    rq5_eval: int = 259  # Baseline and LoCaL_test evaluation sizes (paper: 259)
    # RQ5 fine-tuning on CPU (paper: CodeScore fine-tuned end to end with a validation set): the
    # top layers of the encoder are trained for a capped number of steps on short inputs
    rq5_max_length: int = 128  # tokens of candidate [SEP] reference (prefix-trimmed)
    rq5_unfreeze_layers: int | None = 1  # top encoder layers trained (None: all)
    rq5_max_steps: int = 40  # optimiser steps (batch 16) at most
    rq5_eval_every: int = 20  # steps between validation evaluations
    rq5_patience: int = 2  # evaluations without improvement before stopping
    # RQ5 capacity check (lcl.rq.rq5_capacity): Table 6's first models at the endpoints of p trained again with
    # larger settings (max steps, top layers trained or None for all, tokens), early-stopped after
    # rq5_capacity_patience validations without improvement. One setting (six times Table 6's steps) at
    # full: each adds about 8 min on 2 cores, so more settings (e.g. (240, 2, 128) or (240, 1, 256))
    # are a profile override, not part of the 90-min build.
    rq5_capacity: tuple[tuple[int, int | None, int], ...] = ((240, 1, 128),)
    rq5_capacity_models: int = 1  # models per setting and p (seeds and draws of Table 6's models 0, 1, ...)
    rq5_capacity_patience: int = 3

    def to_dict(self) -> dict[str, object]:
        return asdict(self)


PROFILES = {
    # full: the RQ2 population is the first 3,300 of its 8,289 mutants in a seeded order, what ten independent
    # draws of 100 df = 0 mutants need (data/reference/rq2_pool_cost.json). Archived labels: 1,524 fully labelled
    # (764 with df = 0), 1,146 screened out, 629 never reached by any repetition's order
    "full": Profile("full", 2000, 1000, 5, 2000, 10, tuple(range(0, 101, 10)), 5, None, rq2_pool_candidates=3300),
    "quick": Profile("quick", 200, 100, 2, 200, 2, (0, 50, 100), 1, 5, 3, 3, rq1_pairs=60, rq2_pairs=20,
                     rq2_pool_programs=12, rq3_balanced=427, eval_pairs_cap=80, rq5_base_pairs=120, rq5_eval=40,
                     rq5_max_steps=6, rq5_eval_every=2, rq5_capacity=((18, 1, 128),)),
    # smoke: the smallest run that still exercises every code path (the notebook tests use it)
    "smoke": Profile("smoke", 40, 30, 2, 50, 2, (0, 100), 1, 2, 2, 2, rq1_pairs=15, rq2_pairs=5,
                     rq2_pool_programs=3, rq3_balanced=20, eval_pairs_cap=15, rq5_base_pairs=24, rq5_eval=8,
                     rq5_max_length=64, rq5_max_steps=2, rq5_eval_every=1, rq5_capacity=((4, 1, 64),)),
}


def get(name: str) -> Profile:
    try:
        return PROFILES[name]
    except KeyError:
        raise ValueError(f"unknown profile {name!r}; choose one of {', '.join(PROFILES)}") from None


#: the notebooks' base seed (the Makefile's SEED default)
DEFAULT_SEED = 20250101
