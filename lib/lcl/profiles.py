"""Run profiles: ``full`` reproduces the paper's settings; ``quick`` runs in minutes (CI, a
first look). Notebooks receive the profile name from papermill and read settings here, so a
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

    def to_dict(self) -> dict[str, object]:
        return asdict(self)


PROFILES = {
    "full": Profile("full", 2000, 1000, 5, 2000, 10, tuple(range(0, 101, 10)), 5, None),
    "quick": Profile("quick", 200, 100, 2, 200, 2, (0, 50, 100), 1, 5, 3, 3),
}


def get(name: str) -> Profile:
    try:
        return PROFILES[name]
    except KeyError:
        raise ValueError(f"unknown profile {name!r}; choose one of {', '.join(PROFILES)}") from None
