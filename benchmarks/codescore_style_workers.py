#!/usr/bin/env python
"""CodeScore-style (CodeScore_base) predictions: in the notebook's process on torch's default
threads, chunk after chunk, as scoring does today (before), vs ``workers`` spawned processes of one
torch thread each, one chunk per task (the way CodeBERTScore[MiniLM] is scored), measured side by
side in one run.

A lever not taken yet: this script only measures it. Each arm starts with its own empty
embedding cache (``LCL_CACHE`` set to a fresh folder), so neither profits from the other; the
workers' model loading is counted in their time. Prints both wall times, their ratio, and
whether the two prediction vectors are the same bits (and the largest difference if not).

    python benchmarks/codescore_style_workers.py                 # 512 full-profile LoCaL pairs, 2 workers
    python benchmarks/codescore_style_workers.py --pairs 1024 --model data/interim/models/codescore_style-XXXX
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))

import numpy as np

from lcl.study import pair_files, scoring
from lcl.core import paths

CHUNK = 128  # CodeScoreStyle.chunk_size: the unit the score cache hands to a metric

_MODEL = None


def _worker_init(model_dir: str, cache_dir: str) -> None:
    global _MODEL
    import torch

    torch.set_num_threads(1)  # the processes share the cores
    os.environ["LCL_CACHE"] = cache_dir
    from lcl.engine.metrics.codescore_style import CodeScoreModel

    _MODEL = CodeScoreModel.load(model_dir)


def _predict(chunk: tuple[list[str], list[str]]) -> np.ndarray:
    assert _MODEL is not None
    return _MODEL.predict(chunk[0], chunk[1])


def _default_model() -> str:
    record = paths.models("full") / "codescore_base.json"  # the Makefile's BASE_MODEL at full
    if not record.exists():
        sys.exit(f"codescore_style_workers: {record} is missing; build it with "
                 "`make build/models/full/codescore_base.json` or pass --model DIR")
    return str(json.loads(record.read_text())["model_dir"])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=512)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--model", help="a saved CodeScore-style model's directory (default: the full CodeScore_base)")
    args = ap.parse_args()

    model_dir = args.model or _default_model()
    frame = scoring.pairs_frame(pair_files.load_local("full", subset="all"))
    sample = frame.sample(min(args.pairs, len(frame)), random_state=args.seed)
    refs, cands = sample["reference"].astype(str).tolist(), sample["candidate"].astype(str).tolist()
    chunks = [(refs[i : i + CHUNK], cands[i : i + CHUNK]) for i in range(0, len(refs), CHUNK)]

    with tempfile.TemporaryDirectory() as before_cache, tempfile.TemporaryDirectory() as after_cache:
        os.environ["LCL_CACHE"] = before_cache
        from lcl.engine.metrics.codescore_style import CodeScoreModel

        t0 = time.perf_counter()
        model = CodeScoreModel.load(model_dir)
        before = np.concatenate([model.predict(r, c) for r, c in chunks])
        t_before = time.perf_counter() - t0

        t0 = time.perf_counter()
        with mp.get_context("spawn").Pool(args.workers, _worker_init, (model_dir, after_cache)) as pool:
            after = np.concatenate(pool.map(_predict, chunks, chunksize=1))
        t_after = time.perf_counter() - t0

    same = bool(np.array_equal(before, after))
    print(f"{len(refs)} pairs in {len(chunks)} chunks of {CHUNK}; model {Path(model_dir).name}")
    print(f"before (one process, default threads): {t_before:.1f} s")
    print(f"after ({args.workers} one-thread workers):      {t_after:.1f} s")
    print(f"ratio before/after: {t_before / t_after:.2f}x")
    print(f"same bits: {same}" + ("" if same else f"; largest difference {np.max(np.abs(before - after)):.3g}, "
                                  f"{int(np.sum(before == after))} of {len(before)} identical"))


if __name__ == "__main__":
    main()
