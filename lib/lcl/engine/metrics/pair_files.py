"""Scoring a file of code pairs, the work of ``lcl score``: the code and ids of each row
(:func:`pair_code`; our pair format ``id, reference, candidate[, lang]``, the compendium's LoCaL
pair files ``id, reference, variant`` (``data/processed/local_pairs_<profile>.jsonl``) or the
published LoCaL format ``id, golden_code, generated_code``) and every row scored with one or more metrics, each
called once per language (:func:`score_rows`)."""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from lcl.core.errors import UserError

from .base import Metric


def pair_code(rows: list[dict[str, object]], path: Path,
              by_id: bool = False) -> tuple[list[str], list[str], list[str], list[str]]:
    """Code and ids of the rows (a user's JSONL as decoded: any JSON values, checked here), and
    notes on their ids for the user. ``by_id``: a metric matches
    rows by id (``external:``), so every row needs its own id; otherwise rows without one are
    numbered, and the notes say so."""
    if not rows:
        raise UserError(f"{path}: no pairs (the file is empty)")
    refs, cands, ids = [], [], []
    for i, row in enumerate(rows, 1):
        if not isinstance(row, dict):
            raise UserError(f"{path}: row {i} is not a JSON object (got {json.dumps(row)[:60]})")
        ref = row.get("reference", row.get("golden_code"))
        cand = row.get("candidate", row.get("variant", row.get("generated_code")))
        if not isinstance(ref, str) or not isinstance(cand, str):
            raise UserError(
                f"{path}: row {i} has no reference/candidate code (expected 'reference' and 'candidate' "
                "(or 'variant', as in the compendium's LoCaL pair files), or LoCaL's 'golden_code' and "
                "'generated_code')"
            )
        refs.append(ref)
        cands.append(cand)
        ids.append(str(row.get("id", i)))
    notes = _id_notes(rows, ids, path, by_id)
    return refs, cands, ids, notes


def _id_notes(rows: list[dict[str, object]], ids: list[str], path: Path, by_id: bool) -> list[str]:
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
    notes = []
    if no_id:
        notes.append(f"{path}: {len(no_id)} row(s) without an 'id' are identified by their row number")
    if dups:  # e.g. the published LoCaL release repeats ids: every row is kept and scored
        notes.append(f"{path}: {len(dups)} repeated id(s), every row kept: {', '.join(dups[:3])}"
                     + (" ..." if len(dups) > 3 else ""))
    return notes


def score_rows(rows: list[dict[str, Any]], refs: list[str], cands: list[str], ids: list[str],
               names: Sequence[str], metrics: Sequence[Metric], *, lang: str | None = None, cache: bool = True,
               progress: bool = True) -> dict[str, dict[str, str]]:
    """Add to every row one field per metric, named as in ``names`` (``None`` where a score is
    missing); each metric is called once per language (a row's ``lang``, else ``lang``, else
    python). Returns each metric's description (label, version, settings) by name. ``rows``: a
    user's JSONL as decoded (JSON values of any type; a row's ``lang`` is used as given)."""
    from tqdm import tqdm

    langs = [row.get("lang") or lang or "python" for row in rows]
    groups: dict[str, list[int]] = {}
    for i, row_lang in enumerate(langs):
        groups.setdefault(row_lang, []).append(i)
    described: dict[str, dict[str, str]] = {}
    for name, m in zip(names, metrics, strict=True):
        vals = [math.nan] * len(rows)
        bar = tqdm(total=len(rows), desc=m.label, unit="pair", disable=not progress, file=sys.stderr)
        try:
            for group_lang, idx in groups.items():
                out = m.score(
                    [refs[i] for i in idx],
                    [cands[i] for i in idx],
                    group_lang,
                    ids=[ids[i] for i in idx],
                    cache=cache,
                    progress=bar.update,
                )
                for i, v in zip(idx, out, strict=True):
                    vals[i] = float(v)
        finally:
            bar.close()
        for row, v in zip(rows, vals, strict=True):
            row[name] = None if math.isnan(v) else v
        described[name] = m.describe() | {k: str(v) for k, v in _describe_extra(m).items()}
    return described


def _describe_extra(m: Metric) -> dict[str, object]:
    extra: dict[str, object] = {}
    for attr in ("mode", "component", "num_layers", "encoder", "k"):
        if hasattr(m, attr):
            extra[attr] = getattr(m, attr)
    return extra
