#!/usr/bin/env python
"""Notebook 09's run-0 re-execution (lcl.rq.sparse_tests.study_table), serial vs ``jobs`` threads.

Takes a small stratified sample of the full profile's curated LoCaL pairs, re-executes run 0 of
each cold (an empty ``x1-run0`` cache; every other cache part is the project's own, linked), once
with ``jobs=1`` (before) and once with ``jobs=J`` (after), and prints both wall times, their
ratio and whether the two tables, and the project's cached run-0 verdicts where present, agree.

    python benchmarks/sparse_tests_speed.py                 # 5 pairs per benchmark x kind, J = 2
    python benchmarks/sparse_tests_speed.py --per-stratum 10 --jobs 2
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))

from lcl.study import pair_files
from lcl.core import paths, profiles
from lcl.rq import sparse_tests as X
from lcl.engine.fuzz import semantics as S


def cold_cache(base: Path, real: Path) -> Path:
    """A cache directory linking every part of ``real`` except the run-0 results."""
    base.mkdir(parents=True)
    if real.is_dir():
        for part in real.iterdir():
            if part.name != "x1-run0":
                (base / part.name).symlink_to(part.resolve())
    return base


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--profile", default="full")
    ap.add_argument("--seed", type=int, default=20250101)
    ap.add_argument("--per-stratum", type=int, default=5)
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()

    P = profiles.get(args.profile)
    settings = S.Settings().with_(runs=P.fuzz_runs, n_function=P.fuzz_inputs_function, n_program=P.fuzz_inputs_program)
    rows = X.stratified_sample(pair_files.load_local(args.profile, subset="local"), args.per_stratum, args.seed)
    real = paths.cache()
    print(f"{len(rows)} pairs, N = {settings.n_function}/{settings.n_program}, run 0 only")
    warm = X.study_table(rows, settings, args.seed) if (real / "x1-run0").is_dir() else None  # cached (may compute)

    tables, seconds = {}, {}
    with tempfile.TemporaryDirectory() as tmp:
        for jobs in (1, args.jobs):
            os.environ["LCL_CACHE"] = str(cold_cache(Path(tmp) / f"jobs{jobs}", real))
            t0 = time.perf_counter()
            tables[jobs] = X.study_table(rows, settings, args.seed, jobs=jobs)
            seconds[jobs] = time.perf_counter() - t0
            print(f"jobs={jobs}: {seconds[jobs]:.1f} s", flush=True)
    os.environ["LCL_CACHE"] = str(real)

    def same(a: pd.DataFrame, b: pd.DataFrame) -> bool:
        """Equal in every column but the measured seconds (NaN equals NaN); prints what differs."""
        a, b = a.drop(columns=["seconds"]), b.drop(columns=["seconds"])
        for col in a.columns:
            if not a[col].equals(b[col]):
                bad = [i for i, (x, y) in enumerate(zip(a[col], b[col], strict=True)) if not (x == y or (x != x and y != y))]
                print(f"  column {col}: {len(bad)} rows differ, e.g. {[(a.id[i], a[col][i], b[col][i]) for i in bad[:3]]}")
        return a.equals(b)

    print(f"before (jobs=1) / after (jobs={args.jobs}): {seconds[1] / seconds[args.jobs]:.2f}x")
    print(f"tables identical (all columns but seconds): {same(tables[1], tables[args.jobs])}")
    if warm is not None:
        print(f"identical to the cached full-run table: {same(warm, tables[args.jobs])}")


if __name__ == "__main__":
    main()
