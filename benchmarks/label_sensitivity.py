#!/usr/bin/env python
"""Label sensitivity (:mod:`lcl.rq.label_sensitivity`) outside Jupyter, e.g. at the full profile
from the committed label archive (nothing is fuzzed there) without running notebook 06.

Scores the released pairs that both label sets cover and CodeScore_test (the comparator of
"the CEM errs more on LoCaL"; every labelled pair at full, the profile's cap otherwise), then
writes ``build/label_sensitivity_<profile>.csv`` and ``build/label_sensitivity_pairs_<profile>.csv``
(same columns as the notebook's tables) and prints both.

    python benchmarks/label_sensitivity.py --profile full
    python benchmarks/label_sensitivity.py --profile full --codescore-model build/models/quick/codescore_base.json

``--codescore-model`` defaults to the profile's CodeScore_base; without one the CodeScore-style
column is left out (the other three CEMs and the hit rates need no model).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "lib"))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--profile", default="full")
    ap.add_argument("--seed", type=int, default=20250101)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--codescore-model", default=None)
    ap.add_argument("--out", default=str(ROOT / "build"))
    args = ap.parse_args(argv)

    import pandas as pd

    from lcl.rq import effectiveness as eff
    from lcl.rq import label_sensitivity as ls
    from lcl.study import label_agreement, loaders, scoring
    from lcl.core import profiles
    from lcl.engine import stats

    P = profiles.get(args.profile)
    model_path = Path(args.codescore_model or ROOT / "build" / "models" / P.name / "codescore_base.json")
    model = None
    if model_path.exists():
        import json

        from lcl.engine.metrics.codescore_style import CodeScoreModel

        # `lcl codescore-base` writes a JSON record naming the model directory
        model_dir = json.loads(model_path.read_text())["model_dir"] if model_path.suffix == ".json" else model_path
        model = CodeScoreModel.load(model_dir)
    else:
        print(f"note: no CodeScore-style model at {model_path}; its rows are left out", file=sys.stderr)
    print(f"CodeScore-style model: {model_path if model is not None else 'none'}", file=sys.stderr)

    released, unavailable = ls.released_with_both_labels(P, args.seed, args.jobs, progress=False)
    counts = ls.coverage_counts(released)
    print(counts, *unavailable, sep="\n", file=sys.stderr)
    # the reason without the pair id or the task id, so that pairs group by why
    why = (released[released[ls.OURS].isna()][ls.SKIPPED].fillna("no score")
           .str.replace(r"^(reference|variant) of \S+: ", r"\1: ", regex=True)
           .str.replace(r"'[A-Za-z]+/\d+'", "'TASK'", regex=True).str.slice(0, 48))
    print("without a label of ours:", why.value_counts().to_dict(), file=sys.stderr)
    both = ls.covered(released)
    both = scoring.score_frame(both, codescore_model=model, progress=False) if len(both) else both
    base = eff.cap(eff.labelled(scoring.pairs_frame(loaders.pairs_if_available("CodeScore_test"))),
                   P.eval_pairs_cap, args.seed)
    base = scoring.score_frame(base, codescore_model=model, progress=False) if len(base) else base
    cems = scoring.cem_columns(both) if len(both) else []
    baseline = {c: stats.mae(base[c], base.df_score) for c in cems if c in base}
    print(f"CodeScore_test: {len(base)} pairs; MAE {baseline}", file=sys.stderr)
    qs = ls.quantities(cems, baseline, ls.paper_thresholds())
    sens = ls.sensitivity(both, qs)
    flips = ls.flip_pairs(both, qs, label_agreement.recorded_causes())
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    sens.to_csv(out / f"label_sensitivity_{P.name}.csv", index=False)
    flips.to_csv(out / f"label_sensitivity_pairs_{P.name}.csv", index=False)
    with pd.option_context("display.width", 200, "display.max_columns", 20, "display.max_colwidth", 60):
        print(sens.drop(columns=["conclusion"]).to_string(index=False))
        print(flips.drop(columns=["evidence"]).to_string(index=False))
    print("\n".join(ls.found(sens, flips, counts)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
