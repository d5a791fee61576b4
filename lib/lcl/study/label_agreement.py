"""Re-derive df_score labels with our engine and inputs, and compare them with published
labels: the published LoCaL pairs and the
CodeScore_test baseline carry the authors' ``score``.

Agreement is reported per benchmark as the MAE between labels and as agreement on the
bucket: 0 (df = 0), strictly between, 1 (df = 1). Pairs whose task has only an inferred
spec are labelled as such; pairs whose reference cannot be fuzzed (unknown task, code that
does not compile) are counted with the reason, never dropped silently.
"""

from __future__ import annotations

import csv
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from lcl.core import paths
from lcl.core.errors import UserError
from lcl.core.profiles import Profile
from lcl.core.records import NO_KEPT_RUN, Outcome, Pair, PairRow, df_band
from lcl.engine.fuzz.algorithm import check_code

from . import labelling, loaders, task_specs

#: the sets whose published ``score`` is re-derived: the LoCaL release and the CodeScore_test baseline
LABEL_SETS = ("LoCaL_published", "CodeScore_test")


def label_pairs(profile: Profile) -> tuple[list[Pair], list[str]]:
    """The pairs re-derived at ``profile`` (every pair of :data:`LABEL_SETS` at full, every ~25th
    pair of each set otherwise) and one note per set that is not available (both need the
    data mirror's APPS)."""
    pairs: list[Pair] = []
    missing: list[str] = []
    for ds in LABEL_SETS:
        if not loaders.benchmark_available("APPS") or ds not in loaders.PAIR_LOADERS:
            missing.append(f"{ds}: not available (needs the data mirror)")
            continue
        try:
            got = loaders.PAIR_LOADERS[ds]()
        except Exception as exc:  # noqa: BLE001 - a mirror-only source may be missing or damaged
            missing.append(f"{ds}: not available ({exc})")
            continue
        pairs += got if profile.name == "full" else got[:: max(1, len(got) // 25)]
    return pairs, missing


def build_agreement(profile: Profile, seed: int, jobs: int, progress: bool = True) -> tuple[pd.DataFrame | None, list[str]]:
    """The re-derivation stage of notebook 01 and ``lcl inputs agreement``: the profile's
    published pairs fuzzed with our inputs (Algorithm 1, :func:`settings_for`), one row per
    pair with its recorded cause, or None when no published labels are available; and one note
    per label set that is not."""
    pairs, unavailable = label_pairs(profile)
    if not pairs:
        return None, unavailable
    s = settings_for(profile)
    rederived = rederive(pairs, n_function=s["n_function"], n_program=s["n_program"], runs=s["runs"], seed=seed,
                         jobs=jobs, progress=progress)
    return with_causes(rederived), unavailable


def settings_for(profile: Profile) -> dict[str, int]:
    """Algorithm 1's N and R for the re-derivation: the paper's at full, N = 100 / 30 otherwise."""
    full = profile.name == "full"
    return {"n_function": profile.fuzz_inputs_function if full else 100,
            "n_program": profile.fuzz_inputs_program if full else 30, "runs": profile.fuzz_runs}


def rederive(pairs: list[Pair], *, n_function: int, n_program: int, runs: int, seed: int, jobs: int = 1,
             progress: bool = True, stored_only: bool = False) -> pd.DataFrame:
    """Fuzz every pair with the spec-driven inputs of its task; one row per pair.

    ``stored_only``: fuzz nothing; a pair whose result is not in the result store (or the
    committed label archive merged into it) is skipped with the reason ``not in the result
    store``, so a reader of finished labels can never start hours of fuzzing by accident."""
    settings = labelling.algorithm1_settings(runs, n_function, n_program)
    rows: list[PairRow] = []
    skipped: list[dict[str, str]] = []
    for p in pairs:
        uid = task_specs.task_uid_for_row({"id": p.id, "reference": p.reference})
        reason = None
        if uid is None:
            reason = "id names no task"
        else:
            try:
                info = task_specs.resolve_published({"id": p.id, "reference": p.reference})
                assert info is not None  # the id names a task (uid above)
                level = "program" if info["stdin"] else "function"
                check_code(p.reference, level=level, entry=info["entry"], side="reference", label=p.id)
                check_code(p.candidate, level=level, entry=info["entry"], side="variant", label=p.id)
            except UserError as exc:
                reason = str(exc).splitlines()[0][:200]
        if reason:
            skipped.append({"id": p.id, "reason": reason})
            continue
        rows.append({"id": p.id, "reference": p.reference, "candidate": p.candidate})
    if stored_only and rows:
        stored = labelling.stored_labels(rows, settings, seed=seed)
        for r in rows:
            if not stored.get(r["id"]):
                skipped.append({"id": r["id"], "reason": "not in the result store"})
        rows = [r for r in rows if stored.get(r["id"])]
    results = labelling.fuzz_labels(rows, settings, seed=seed, jobs=jobs, progress=progress)
    by_id = {r["id"]: r for r in results}
    out = []
    for p in pairs:
        res = by_id.get(p.id)
        uid = task_specs.task_uid_for_row({"id": p.id, "reference": p.reference})
        spec = task_specs.spec_for(uid) if (uid and res) else None
        ours = res.get("df_score") if res else None
        out.append({
            "id": p.id, "dataset": p.dataset, "benchmark": p.benchmark or (uid.split("/")[0] if uid else None),
            "task": uid, "variant_type": p.variant_type, "theirs": p.df_score, "ours": ours,
            "abs_diff": abs(ours - p.df_score) if (ours is not None and ours >= 0 and p.df_score is not None) else None,
            "bucket_theirs": df_band(p.df_score), "bucket_ours": df_band(ours),
            "identical": p.reference == p.candidate,
            "spec": (("verified" if spec.verified else spec.origin) if spec else None),
            "counts": res.get("counts") if res else None,
            "skipped": next((s["reason"] for s in skipped if s["id"] == p.id), None),
        })
    return pd.DataFrame(out)


def agreement(frame: pd.DataFrame) -> pd.DataFrame:
    """Per dataset and benchmark: pairs, fuzzed, MAE, bucket agreement, and the same on
    verified-spec pairs only."""
    rows: list[dict[str, Any]] = []
    for (ds, bench), g in frame.groupby(["dataset", "benchmark"], dropna=False):
        ok = g[g["abs_diff"].notna()]
        ver = ok[ok["spec"] == "verified"]
        rows.append({
            "dataset": ds, "benchmark": bench, "pairs": len(g), "fuzzed": len(ok),
            "skipped": int(g["skipped"].notna().sum()),
            "MAE": float(ok["abs_diff"].mean()) if len(ok) else np.nan,
            "bucket agreement": float((ok["bucket_theirs"] == ok["bucket_ours"]).mean()) if len(ok) else np.nan,
            "verified-spec pairs": len(ver),
            "MAE (verified)": float(ver["abs_diff"].mean()) if len(ver) else np.nan,
            "bucket agreement (verified)": float((ver["bucket_theirs"] == ver["bucket_ours"]).mean()) if len(ver) else np.nan,
        })
    return pd.DataFrame(rows)


# ----------------------------------------------------------------------------- recorded causes
#: |diff| above which a disagreement is examined by hand and its cause recorded
LARGE_DIFF = 0.2


def causes_file() -> Path:
    """``data/reference/label_causes.csv``: the cause of each examined disagreement (columns ``id``,
    ``cause``, ``evidence``), a judgement recorded by hand after reading both codes, the spec and
    the engine's per-input verdicts (``benchmarks/label_disagreements.py --explain ID``). A cause
    starts with its family: ``theirs``, ``ours``, ``distribution`` (both inputs valid; the
    behaviour is triggered at different rates), ``equality`` (output equality semantics),
    ``environment``, ``broken variant``."""
    return paths.label_causes()


def recorded_causes(path: Path | None = None) -> dict[str, tuple[str, str]]:
    """Pair id -> (cause, evidence) from :func:`causes_file` (empty when the file is absent)."""
    path = path or causes_file()
    if not path.exists():
        return {}
    with path.open(newline="") as fh:
        rows = list(csv.DictReader(fh))
    if rows and not {"id", "cause", "evidence"} <= set(rows[0]):
        raise UserError(f"{path}: expected columns id, cause, evidence; found {', '.join(rows[0])}")
    return {r["id"]: (r["cause"], r["evidence"]) for r in rows}


def cause_for(row: Mapping[str, Any], causes: dict[str, tuple[str, str]]) -> tuple[str, str]:
    """The cause of one re-derived pair's disagreement: ``not fuzzed: <why>`` (or ``no score``
    when every run was excluded) without a score of ours; else the recorded one; else ``theirs:
    identical code labelled < 1`` for a byte-identical pair that disagrees; ``agree`` (|diff| <=
    0.05, same bucket); ``small: sampling`` (|diff| <= :data:`LARGE_DIFF`); ``unexamined``
    otherwise."""
    d = row.get("abs_diff")
    if d is None or d != d:
        ours, skipped = row.get("ours"), row.get("skipped")
        if isinstance(skipped, str) and skipped:
            return ("not fuzzed: " + skipped, "")
        if ours == NO_KEPT_RUN:
            return ("no score: " + Outcome.NO_KEPT_RUN.value, "")
        return ("not fuzzed: no score", "")
    if row["id"] in causes:
        return causes[row["id"]]
    if row.get("identical") and d > 0.05:
        return ("theirs: identical code labelled < 1",
                "the released variant is byte-identical to the reference (the label must belong to another mutant)")
    if d <= 0.05 and row.get("bucket_theirs") == row.get("bucket_ours"):
        return ("agree", "")
    if d <= LARGE_DIFF:
        return ("small: sampling", "")
    return ("unexamined", "")


def with_causes(frame: pd.DataFrame, causes: dict[str, tuple[str, str]] | None = None) -> pd.DataFrame:
    """``frame`` (from :func:`rederive`) with columns ``cause``, ``cause_family`` (the text before the
    first ``:``) and ``evidence``."""
    causes = recorded_causes() if causes is None else causes
    got = [cause_for(r, causes) for r in frame.to_dict("records")]
    out = frame.copy()
    out["cause"] = [c for c, _ in got]
    out["cause_family"] = [c.split(":")[0].strip() for c, _ in got]
    out["evidence"] = [e for _, e in got]
    return out


def cause_summary(frame: pd.DataFrame) -> pd.DataFrame:
    """Per dataset and benchmark: the pairs with |diff| > :data:`LARGE_DIFF` and how many of them
    fall in each cause family (columns; ``unexamined`` when nobody recorded one); ``frame`` from
    :func:`with_causes`."""
    big = frame[frame["abs_diff"].notna() & (frame["abs_diff"] > LARGE_DIFF)]
    if big.empty:
        return pd.DataFrame(columns=["dataset", "benchmark", f"|diff| > {LARGE_DIFF}"])
    table = big.groupby(["dataset", "benchmark", "cause_family"]).size().unstack(fill_value=0)
    table.insert(0, f"|diff| > {LARGE_DIFF}", table.sum(axis=1))
    table.columns.name = None
    return table.reset_index()


def cause_sentence(summary: pd.DataFrame, dataset: str, benchmark: str) -> str:
    """One sentence on a set's large disagreements from :func:`cause_summary` (``""`` when it has
    none), e.g. `` Of its 20 pairs with |diff| > 0.2: distribution 15, theirs 3, unexamined 2.``"""
    big = f"|diff| > {LARGE_DIFF}"
    hit = summary[(summary["dataset"] == dataset) & (summary["benchmark"] == benchmark)] if len(summary) else summary
    if hit.empty:
        return ""
    row = hit.iloc[0]
    parts = sorted(((str(c), int(row[c])) for c in summary.columns
                    if c not in ("dataset", "benchmark", big) and int(row[c]) > 0),
                   key=lambda kv: (kv[0] == "unexamined", -kv[1], kv[0]))
    return f" Of its {int(row[big])} pairs with {big}: " + ", ".join(f"{c} {n}" for c, n in parts) + "."


def found(agree: pd.DataFrame, causes: pd.DataFrame) -> list[str]:
    """Notebook 01's sentences on the labels: per set and benchmark, the pairs re-derived, MAE and
    bucket agreement against the targets (MAE <= 0.05, >= 90%), and the causes of large disagreements."""
    if agree.empty:
        return []
    lines = []
    for _, r in agree.iterrows():
        met = r["MAE"] <= 0.05 and r["bucket agreement"] >= 0.90
        lines.append(f"- Labels, {r['dataset']} / {r['benchmark']}: {r['fuzzed']} of {r['pairs']} pairs re-derived, "
                     f"MAE {r['MAE']:.3f}, bucket agreement {r['bucket agreement']:.1%} (target MAE <= 0.05, >= 90%: "
                     f"{'met' if met else '**not met**'}).{cause_sentence(causes, r['dataset'], r['benchmark'])}")
    lines.append("- The cause of each examined disagreement, with its evidence, is in "
                 f"`data/reference/{causes_file().name}`; the method and the discussion in `docs/LABELS.md`.")
    return lines


def worst(frame: pd.DataFrame, k: int = 15) -> pd.DataFrame:
    """The ``k`` re-derived pairs farthest from the published label, with spec and cause."""
    return frame.sort_values("abs_diff", ascending=False).head(k)[["id", "theirs", "ours", "spec", "variant_type",
                                                                   "cause"]]
