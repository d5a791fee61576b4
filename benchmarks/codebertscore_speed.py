#!/usr/bin/env python
"""CodeBERTScore[MiniLM] (lcl.engine.metrics.codebertscore_metric) on several chunks: one process
(before: chunk after chunk, torch's default threads) vs ``workers`` processes of one thread each
(after), measured side by side in one run, uncached.

Scores a seeded sample of the full profile's LoCaL-all pairs both ways and prints the wall
times, their ratio, whether the two score vectors are the same bits, and, for the pairs the
project's score cache holds, the largest difference from the cached value (the cache was filled
chunk by chunk in the notebooks' order; a chunk's batches, hence bf16 rounding, depend on which
pairs share it, so that column is a reference point, not the equality check).

    python benchmarks/codebertscore_speed.py                # 512 pairs (4 chunks), 2 workers
    python benchmarks/codebertscore_speed.py --pairs 1024 --workers 2
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))

import numpy as np
import torch

from lcl.engine import metrics
from lcl.study import pair_files, scoring
from lcl.engine.metrics.cache import ScoreCache, pair_digest, score_key


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=512)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()

    frame = scoring.pairs_frame(pair_files.load_local("full", subset="all"))
    sample = frame.sample(min(args.pairs, len(frame)), random_state=args.seed)
    refs, cands = sample.reference.tolist(), sample.candidate.tolist()
    print(f"{len(refs)} pairs, chunks of {metrics.get_metric('codebertscore').chunk_size}; "
          f"torch threads in this process: {torch.get_num_threads()}", flush=True)

    before_m = metrics.get_metric("codebertscore", workers=1)
    before_m.score(refs[:2], cands[:2], cache=False)  # load the model here first: time scoring, not loading
    t0 = time.perf_counter()
    before = before_m.score(refs, cands, cache=False)
    t_before = time.perf_counter() - t0
    print(f"before (1 process, {torch.get_num_threads()} threads): {t_before:.1f} s", flush=True)

    after_m = metrics.get_metric("codebertscore", workers=args.workers)
    after_m.score(refs[:256], cands[:256], cache=False)  # start the pool and load the model in its workers
    t0 = time.perf_counter()
    after = after_m.score(refs, cands, cache=False)
    t_after = time.perf_counter() - t0
    print(f"after ({args.workers} processes x 1 thread): {t_after:.1f} s", flush=True)
    print(f"before/after: {t_before / t_after:.2f}x")
    print(f"identical bits: {np.array_equal(before, after)} (max abs diff {float(np.abs(before - after).max()):.3g})")

    keys = [score_key(after_m.name, after_m.version, after_m.config(None), "python", pair_digest(r, c))
            for r, c in zip(refs, cands, strict=True)]
    with ScoreCache() as store:
        hit = store.get_many(set(keys))
    cached = np.array([hit.get(k, np.nan) for k in keys])
    have = ~np.isnan(cached)
    if have.any():
        diff = np.abs(cached[have] - after[have])
        print(f"vs the score cache ({int(have.sum())} pairs): {int((diff == 0).sum())} equal, max abs diff {diff.max():.3g}")


if __name__ == "__main__":
    main()
