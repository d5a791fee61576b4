"""``lcl score`` (score pair files with any metrics) and ``lcl codescore-train``.

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
import math
import sys
from pathlib import Path
from typing import Any

from ..errors import UserError
from ..io import read_jsonl, write_json, write_jsonl


def register(subparsers: Any) -> None:
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
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--encoder", default=None, help="codebertscore: local encoder dir (default: shipped MiniLM, a substitute)")
    p.add_argument("--num-layers", type=int, default=None, help="codebertscore: encoder layer to use")
    p.add_argument("--component", default=None, choices=["P", "R", "F1", "F3"], help="codebertscore component (default F1)")
    p.add_argument("--crystalbleu-mode", default=None, choices=["corpus", "paper"], help="crystalbleu ignore set: paper (default: per pair, as the authors ran it) or corpus (sensitivity)")
    p.add_argument("--codescore-model", default=None, help="codescore_style: trained model dir")
    p.add_argument("--workers", type=int, default=None, help="worker processes for codebleu / surface_sim_tree / codebertscore")
    p.add_argument("--local-trained-model", default=None,
                   help="local_trained: model dir (default build/models/PROFILE/local_trained)")
    p.add_argument("--profile", default=None,
                   help="local_trained: the run profile whose model to use (default $LCL_PROFILE, else full)")
    p.set_defaults(func=run_score)

    t = subparsers.add_parser(
        "codescore-train",
        help="train the CodeScore-style (retrained) metric",
        description="Train a CodeScore-style model on labelled pairs (label: df_score or score).",
    )
    t.add_argument("pairs", type=Path, help="training JSONL (our pair format or LoCaL format)")
    t.add_argument("--exclude", type=Path, action="append", default=[], help="JSONL of evaluation pairs that must not be trained on")
    t.add_argument("--mode", choices=["fast", "full"], default="fast")
    t.add_argument("--seed", type=int, default=0)
    t.add_argument("--epochs", type=int, default=None)
    t.add_argument("--encoder", default=None, help="local encoder dir (default: shipped MiniLM)")
    t.add_argument("--out", type=Path, default=None, help="parent dir of the model (default build/models/codescore_style)")
    t.set_defaults(func=run_train)

    b = subparsers.add_parser(
        "codescore-base",
        help="build CodeScore_base: label codegen-2b HumanEval candidates by fuzzing, train, record",
        description=(
            "Build the CodeScore-style base model every research-question notebook scores with "
            "(lcl.training.base_model): the profile's number of codegen-2b candidates are labelled by "
            "differential fuzzing (resumable), a model is trained (cached) and a JSON record of it is written."
        ),
    )
    b.add_argument("--profile", default="full", help="run profile (full | quick | smoke)")
    b.add_argument("--seed", type=int, default=20250101)
    b.add_argument("--jobs", type=int, default=None, help="fuzzing worker processes (default: CPU count)")
    b.add_argument("--out", type=Path, required=True, help="JSON record: model directory, content hash, training counts")
    b.add_argument("--no-progress", action="store_true")
    b.set_defaults(func=run_base)


def _pairs(rows: list[dict[str, Any]], path: Path, by_id: bool = False) -> tuple[list[str], list[str], list[str]]:
    """Code and ids of the rows. ``by_id``: a metric matches rows by id (``external:``), so
    every row needs its own id; otherwise rows without one are numbered, and said so."""
    if not rows:
        raise UserError(f"{path}: no pairs (the file is empty)")
    refs, cands, ids = [], [], []
    for i, row in enumerate(rows, 1):
        if not isinstance(row, dict):
            raise UserError(f"{path}: row {i} is not a JSON object (got {json.dumps(row)[:60]})")
        ref = row.get("reference", row.get("golden_code"))
        cand = row.get("candidate", row.get("generated_code"))
        if not isinstance(ref, str) or not isinstance(cand, str):
            raise UserError(
                f"{path}: row {i} has no reference/candidate code (expected 'reference' and 'candidate', "
                "or LoCaL's 'golden_code' and 'generated_code')"
            )
        refs.append(ref)
        cands.append(cand)
        ids.append(str(row.get("id", i)))
    _check_ids(rows, ids, path, by_id)
    return refs, cands, ids


def _check_ids(rows: list[dict[str, Any]], ids: list[str], path: Path, by_id: bool) -> None:
    no_id = [i for i, row in enumerate(rows, 1) if row.get("id") is None]
    seen: dict[str, int] = {}
    dups = []
    for i, rid in enumerate(ids, 1):
        if rid in seen:
            dups.append(f"{rid!r} (rows {seen[rid]} and {i})")
        seen.setdefault(rid, i)
    if by_id and (no_id or dups):
        what = (f"{len(no_id)} row(s) without an 'id' (first: row {no_id[0]})" if no_id
                else f"duplicate ids: {', '.join(dups[:3])}")
        raise UserError(f"{path}: {what}; external: scores are matched by id, so every row needs its own")
    if no_id:
        print(f"lcl score: {path}: {len(no_id)} row(s) without an 'id' are identified by their row number",
              file=sys.stderr)
    if dups:  # e.g. the published LoCaL release repeats ids: every row is kept and scored
        print(f"lcl score: {path}: {len(dups)} repeated id(s), every row kept: {', '.join(dups[:3])}"
              + (" ..." if len(dups) > 3 else ""), file=sys.stderr)


def _options(args: argparse.Namespace) -> dict[str, Any]:
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


def run_score(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from . import get_metric

    if not args.pairs.is_file():
        raise UserError(f"{args.pairs} does not exist")
    try:
        rows = read_jsonl(args.pairs)
    except UnicodeDecodeError as exc:
        raise UserError(f"{args.pairs}: not UTF-8 text (byte {exc.start}: {exc.reason})") from None
    except ValueError as exc:
        raise UserError(str(exc)) from exc
    names = [n.strip() for n in args.metric.split(",") if n.strip()]
    refs, cands, ids = _pairs(rows, args.pairs, by_id=any(n.startswith("external:") for n in names))
    if not names:
        raise UserError("--metric needs at least one metric name")
    opts = _options(args)
    metrics = [get_metric(n, **opts) for n in names]
    langs = [row.get("lang") or args.lang or "python" for row in rows]
    groups: dict[str, list[int]] = {}
    for i, lang in enumerate(langs):
        groups.setdefault(lang, []).append(i)
    meta: dict[str, Any] = {"input": str(args.pairs), "n": len(rows), "metrics": {}}
    for name, m in zip(names, metrics, strict=True):
        vals = [math.nan] * len(rows)
        bar = tqdm(total=len(rows), desc=m.label, unit="pair", disable=args.no_progress, file=sys.stderr)
        try:
            for lang, idx in groups.items():
                out = m.score(
                    [refs[i] for i in idx],
                    [cands[i] for i in idx],
                    lang,
                    ids=[ids[i] for i in idx],
                    cache=not args.no_cache,
                    progress=bar.update,
                )
                for i, v in zip(idx, out, strict=True):
                    vals[i] = float(v)
        finally:
            bar.close()
        for row, v in zip(rows, vals, strict=True):
            row[name] = None if math.isnan(v) else v
        meta["metrics"][name] = m.describe() | {k: str(v) for k, v in _describe_extra(m).items()}
    write_jsonl(args.out, rows)
    write_json(Path(str(args.out) + ".meta.json"), meta)
    print(f"wrote {len(rows)} rows with {', '.join(names)} to {args.out}", file=sys.stderr)
    return 0


def _describe_extra(m: Any) -> dict[str, Any]:
    extra = {}
    for attr in ("mode", "component", "num_layers", "encoder", "k"):
        if hasattr(m, attr):
            extra[attr] = getattr(m, attr)
    return extra


def run_train(args: argparse.Namespace) -> int:
    from .codescore_style import TrainConfig, pairs_from_rows, train

    rows = read_jsonl(args.pairs)
    pairs = pairs_from_rows(rows)
    exclude: list[tuple[str, str]] = []
    for path in args.exclude:
        r, c, _ = _pairs(read_jsonl(path), path)
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


def run_base(args: argparse.Namespace) -> int:
    import os

    from .. import profiles, training
    from ..io import write_json

    prof = profiles.get(args.profile)
    jobs = args.jobs or os.cpu_count() or 1
    pairs, dropped = training.base_pairs(prof, args.seed, jobs, progress=not args.no_progress)
    model = training.train_model(pairs, args.seed)
    record = {"profile": args.profile, "seed": args.seed, "content_hash": model.content_hash,
              "model_dir": str(training.model_path(model)), "train_pairs": len(pairs), "dropped": dict(dropped),
              "label_mean": round(sum(p["df_score"] for p in pairs) / max(1, len(pairs)), 4),
              "label": "CodeScore-style (retrained): a substitute for CodeScore"}
    write_json(args.out, record)
    print(json.dumps(record, indent=2))
    return 0
