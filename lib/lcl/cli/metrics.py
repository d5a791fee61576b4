"""``lcl score`` (score pair files with any metrics, :mod:`lcl.engine.metrics.pair_files`), ``lcl codescore-train``
(train the CodeScore-style metric), ``lcl codescore-base`` (CodeScore_base, :mod:`lcl.study.codescore_base`)
and ``lcl local-trained`` (the LoCaL-trained metric's model, :mod:`lcl.rq.trained_metric`).

    lcl score --metric codebleu,crystalbleu PAIRS.jsonl --out SCORED.jsonl

Input rows: our pair format (``id, reference, candidate[, lang]``) or the published LoCaL
format (``id, golden_code, generated_code``). Each output row is the input row plus one
field per metric named exactly as the metric (``codebleu``, ``external:scores.jsonl``, ...);
a missing score is ``null``. ``SCORED.jsonl.meta.json`` records each metric's label
(e.g. ``CodeBERTScore[MiniLM]``), version and settings.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from lcl.core.errors import UserError
from lcl.core.io import read_user_jsonl, write_json, write_jsonl
from lcl.engine.metrics.pair_files import pair_code, score_rows

from .common import add_run_options, profile_of

if TYPE_CHECKING:
    from lcl.engine.metrics import MetricOptions


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "score",
        help="score code pairs with one or more metrics",
        description=(
            "Score (reference, candidate) pairs. Metrics: surface_sim, surface_sim_tree, codebleu, "
            "crystalbleu, codebertscore, codescore_style, local_trained, external:PATH (JSONL of id, score), module:function."
        ),
    )
    p.add_argument("pairs", type=Path, help="JSONL of pairs (id, reference, candidate | id, golden_code, generated_code)")
    p.add_argument("--metric", "-m", required=True, help="NAME[,NAME...]")
    p.add_argument("--out", "-o", type=Path, required=True, help="output JSONL (input rows + one field per metric)")
    p.add_argument("--lang", default=None, choices=["python", "java"], help="language when rows carry no 'lang' (default python)")
    p.add_argument("--no-cache", action="store_true", help="recompute instead of reading the score cache")
    add_run_options(p, profile=False, seed=False, jobs=False, progress={"help": "no progress bar"})
    p.add_argument("--encoder", default=None, help="codebertscore: local encoder dir (default: shipped MiniLM, a substitute)")
    p.add_argument("--num-layers", type=int, default=None, help="codebertscore: encoder layer to use")
    p.add_argument("--component", default=None, choices=["P", "R", "F1", "F3"], help="codebertscore component (default F1)")
    p.add_argument("--crystalbleu-mode", default=None, choices=["corpus", "paper"], help="crystalbleu ignore set: paper (default: per pair, as the authors ran it) or corpus (sensitivity)")
    p.add_argument("--codescore-model", default=None, help="codescore_style: trained model dir")
    p.add_argument("--workers", type=int, default=None, help="worker processes for codebleu / surface_sim_tree / codebertscore")
    p.add_argument("--local-trained-model", default=None,
                   help="local_trained: model dir (default build/models/PROFILE/local_trained)")
    add_run_options(p, seed=False, jobs=False, progress=False, profile={
        "default": None, "help": "local_trained: the run profile whose model to use (default $LCL_PROFILE, else full)"})
    p.set_defaults(func=cmd_score)

    t = subparsers.add_parser(
        "codescore-train",
        help="train the CodeScore-style (retrained) metric",
        description="Train a CodeScore-style model on labelled pairs (label: df_score or score).",
    )
    t.add_argument("pairs", type=Path, help="training JSONL (our pair format or LoCaL format)")
    t.add_argument("--exclude", type=Path, action="append", default=[], help="JSONL of evaluation pairs that must not be trained on")
    t.add_argument("--mode", choices=["fast", "full"], default="fast")
    add_run_options(t, profile=False, seed={"default": 0}, jobs=False, progress=False)
    t.add_argument("--epochs", type=int, default=None)
    t.add_argument("--encoder", default=None, help="local encoder dir (default: shipped MiniLM)")
    t.add_argument("--out", type=Path, default=None, help="parent dir of the model (default build/models/codescore_style)")
    t.set_defaults(func=cmd_codescore_train)

    b = subparsers.add_parser(
        "codescore-base",
        help="build CodeScore_base: label codegen-2b HumanEval candidates by fuzzing, train, record",
        description=(
            "Build the CodeScore-style base model every research-question notebook scores with "
            "(lcl.study.codescore_base.base_model): the profile's number of codegen-2b candidates are labelled by "
            "differential fuzzing (resumable), a model is trained (cached) and a JSON record of it is written."
        ),
    )
    add_run_options(b, profile={"default": "full", "help": "run profile (full | quick | smoke)"},
                    seed={"default": 20250101},
                    jobs={"default": None, "help": "fuzzing worker processes (default: CPU count)"}, progress=False)
    b.add_argument("--out", type=Path, required=True, help="JSON record: model directory, content hash, training counts")
    add_run_options(b, profile=False, seed=False, jobs=False, progress={})
    b.set_defaults(func=cmd_codescore_base)

    lt = subparsers.add_parser("local-trained", help="train (or reuse) the local_trained metric's model and install it",
                               description="Train the model 'lcl score --metric local_trained' reads: RQ5's model at "
                                           "p = 100 (LoCaL pairs only, PIE held out; cached when notebook 07 has run), "
                                           "copied to build/models/PROFILE/local_trained.")
    add_run_options(lt)
    lt.set_defaults(func=cmd_local_trained)


def _pairs(rows: list[dict[str, object]], path: Path, by_id: bool = False) -> tuple[list[str], list[str], list[str]]:
    """Code and ids of the rows (:func:`lcl.engine.metrics.pair_files.pair_code`), its notes on the ids
    printed to stderr."""
    refs, cands, ids, notes = pair_code(rows, path, by_id)
    for note in notes:
        print(f"lcl score: {note}", file=sys.stderr)
    return refs, cands, ids


def _options(args: argparse.Namespace) -> MetricOptions:
    return {
        "encoder": args.encoder,
        "num_layers": args.num_layers,
        "component": args.component,
        "crystalbleu_mode": args.crystalbleu_mode,
        "codescore_model": args.codescore_model,
        "workers": args.workers,
        "local_trained_model": args.local_trained_model,
        "profile": args.profile,
    }


def cmd_score(args: argparse.Namespace) -> int:
    from lcl.engine.metrics import get_metric

    if not args.pairs.is_file():
        raise UserError(f"{args.pairs} does not exist")
    rows = read_user_jsonl(args.pairs)
    names = [n.strip() for n in args.metric.split(",") if n.strip()]
    refs, cands, ids = _pairs(rows, args.pairs, by_id=any(n.startswith("external:") for n in names))
    if not names:
        raise UserError("--metric needs at least one metric name")
    opts = _options(args)
    metrics = [get_metric(n, **opts) for n in names]
    described = score_rows(rows, refs, cands, ids, names, metrics, lang=args.lang, cache=not args.no_cache,
                           progress=not args.no_progress)
    meta = {"input": str(args.pairs), "n": len(rows), "metrics": described}
    write_jsonl(args.out, rows)
    write_json(Path(str(args.out) + ".meta.json"), meta)
    print(f"wrote {len(rows)} rows with {', '.join(names)} to {args.out}", file=sys.stderr)
    return 0


def cmd_codescore_train(args: argparse.Namespace) -> int:
    from lcl.engine.metrics.codescore_style import TrainConfig, pairs_from_rows, train

    rows = read_user_jsonl(args.pairs)
    pairs = pairs_from_rows(rows)
    exclude: list[tuple[str, str]] = []
    for path in args.exclude:
        r, c, _ = _pairs(read_user_jsonl(path), path)
        exclude.extend(zip(r, c, strict=True))
    cfg = TrainConfig(mode=args.mode, seed=args.seed)
    if args.epochs is not None:
        cfg.epochs = args.epochs
    elif args.mode == "full":
        cfg.epochs = 3
    model = train(pairs, config=cfg, encoder=args.encoder, exclude=exclude)
    out = model.save(args.out)
    print(json.dumps({"model": str(out), "content_hash": model.content_hash, "n_train": len(pairs)}))
    return 0


def cmd_codescore_base(args: argparse.Namespace) -> int:
    import os

    from lcl.core import profiles
    from lcl.study import codescore_base

    prof = profiles.get(args.profile)
    jobs = args.jobs or os.cpu_count() or 1
    record = codescore_base.base_record(prof, args.seed, jobs, progress=not args.no_progress)
    write_json(args.out, record)
    print(json.dumps(record, indent=2))
    return 0


def cmd_local_trained(args: argparse.Namespace) -> int:
    from lcl.rq import trained_metric as tm

    released = tm.released_for(profile_of(args), args.seed, args.jobs, progress=not args.no_progress)
    if released is None:
        raise UserError(f"profile {args.profile}: too few LoCaL training pairs for the local_trained model")
    where = tm.export(released.model, args.profile)
    print(f"local_trained ({tm.LABEL}): {len(released.train_rows)} training pairs, "
          f"{released.model.train_seconds} s, written to {where}; its evaluation and model card: notebook 11")
    return 0
