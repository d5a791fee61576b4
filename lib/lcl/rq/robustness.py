"""Study X2 (beyond the paper): can a CEM be moved without changing behaviour?

The paper shows CEMs follow surface form (Section 4.6: SFD/DFS pairs fool them). Study X2
turns this into an intervention: apply a semantics-preserving perturbation
(:mod:`lcl.engine.variants.perturb`) to one side of a LoCaL pair and measure how far each CEM's score
moves. A metric that tracked behaviour would not move at all.

Two families of perturbed pairs:

- **OPT** (DFS side): a curated optimised variant ``V`` and its reference ``R``. Each
  perturbation is applied to the variant (``side = "variant"``, the reference is the donor) or
  to the reference (``side = "reference"``); the perturbed pair is scored and compared with
  the unperturbed one.
- **MUT** (SFD side): a curated mutant ``M`` carrying the reference's comments and docstrings
  verbatim (:func:`lcl.engine.variants.perturb.mutant_with_reference_comments`): does a buggy
  candidate gain credit for copied prose?

LoCaL's references are stored without docstrings or comments (they are normalised by
``ast.unparse`` before mutation, :func:`lcl.study.candidate_generation.strip_docstrings`), so the perturbations
that copy the reference's prose (``reference_docstring`` and the MUT counterpart) take it from
the benchmark's original reference source (:func:`documented_references`), and those pairs are
scored against that documented reference, before and after, so that the shift is the credit
for the copied prose alone.

Every perturbed code is untrusted: it runs only through Algorithm 1 in the sandbox, fuzzed
against the same program before the perturbation (:func:`verify`, the batch machinery of
:func:`lcl.study.labelling.label_candidates`, whose result store makes reruns free). A pair is used only when
``df_score == 1``. Algorithm 1 counts an input on which the reference crashes as invalid, so a
mutant that crashes on every input cannot be the reference of this check; for such programs
(and any other the first check cannot judge) the labelled LoCaL pair is fuzzed again with the
perturbed program in place of the original, and the program is verified when the verdict of
every input in every run is the one recorded for the labelled pair (the same verdict digest,
:func:`lcl.engine.fuzz.semantics.verdict_digest`: same seeds, same inputs). Any other outcome is a
perturbation bug (``behaviour changed``) or a pair the fuzzer cannot judge
(``unverifiable``), and is dropped and counted (:func:`rejected_counts`).
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypedDict

import numpy as np
import pandas as pd

from lcl.core import seeds
from lcl.core.profiles import Profile
from lcl.core.records import Finding, Outcome, PairRow, finding_slug, result_outcome
from lcl.engine import stats
from lcl.engine.variants.perturb import PERTURBATIONS, mutant_with_reference_comments, perturb_pairs
from lcl.study import scoring
from lcl.study.labelling import label_candidates, profile_settings
from lcl.study.task_specs import spec_uid

if TYPE_CHECKING:
    from matplotlib.figure import Figure

#: the sides of an OPT pair a perturbation is applied to (the variant, or the reference)
SIDES: tuple[str, ...] = ("variant", "reference")
#: the name of the MUT counterpart (a mutant carrying the reference's comments and docstrings)
CARRY = "reference_comments"
#: perturbations whose donor is the documented reference (scored against it, see the module text)
DOCUMENTED = frozenset({"reference_docstring", CARRY})
VERIFIED, CHANGED, UNVERIFIABLE = "verified", "behaviour changed", "unverifiable"
#: verified by the second check: the labelled pair's verdicts are unchanged (see the module text)
SAME_VERDICTS = "verified (labelled pair's verdicts)"
USABLE = frozenset({VERIFIED, SAME_VERDICTS})

PAIR_KEYS = ("id", "parent_id", "kind", "perturbation", "side", "benchmark", "task", "level",
             "ref_before", "cand_before", "ref_after", "cand_after", "original", "perturbed", "check_reference",
             "check_variant", "parent_digest")
SHIFT_COLUMNS = ["kind", "side", "perturbation", "metric", "n", "mean_before", "mean_after", "shift",
                 "shift_ci_low", "shift_ci_high", "mean_abs_shift", "share_moved"]
REJECT_COLUMNS = ["kind", "side", "perturbation", "perturbed", "verified", "verified_by_label_verdicts",
                  "behaviour_changed", "unverifiable", "rejected_share"]


# ----------------------------------------------------------------------------- pairs
class PerturbedPair(TypedDict):
    """One perturbed pair (:data:`PAIR_KEYS`): what was perturbed, the pair before and after, and
    the programs the two checks fuzz (``check_variant`` is the candidate side of the second check)."""

    id: str
    parent_id: str
    kind: str
    perturbation: str
    side: str
    benchmark: str | None
    task: str | None
    level: str | None
    ref_before: str
    cand_before: str
    ref_after: str
    cand_after: str
    original: str
    perturbed: str
    check_reference: str
    check_variant: str
    parent_digest: str | None


class _Parent(TypedDict):
    """An OPT pair as :func:`perturb_opt` perturbs it: the pair and what its rows inherit."""

    id: str
    kind: str
    benchmark: str | None
    task: str | None
    level: str | None
    reference: str
    candidate: str
    fuzz_reference: str
    fuzz_variant: str
    parent_digest: str | None


def sample(rows: Sequence[PairRow], kind: str, k: int | None, seed: int) -> list[PairRow]:
    """The curated (``in_local``) pairs of ``kind`` (``"OPT"``/``"MUT"``), a seeded sample of
    ``k`` of them (all when ``k`` is None or there are fewer), in id order."""
    pool = sorted((PairRow(**r) for r in rows if r.get("variant_type") == kind and r.get("in_local", True)),
                  key=lambda r: str(r["id"]))
    if k is not None and len(pool) > k:
        pool = sorted(seeds.rng(seed, kind).sample(pool, k), key=lambda r: str(r["id"]))
    return pool


def curated_count(rows: Sequence[PairRow], kind: str) -> int:
    """Curated (``in_local``) pairs of ``kind`` in ``rows``: what :func:`sample` draws from."""
    return sum(1 for r in rows if r["variant_type"] == kind and r.get("in_local"))


def rejected_examples(verified: pd.DataFrame, k: int = 3) -> str:
    """Markdown for the first ``k`` rejected perturbations: id, outcome, df_score and the edit as
    a unified diff (30 lines at most); ``""`` when none was rejected."""
    bad = verified[~verified["outcome"].isin(USABLE)].head(k)
    parts = []
    for _, r in bad.iterrows():
        diff = "\n".join(list(difflib.unified_diff(r["original"].splitlines(), r["perturbed"].splitlines(),
                                                   "before", "after", lineterm=""))[:30])
        parts.append(f"**{r['id']}** ({r['outcome']}, df_score = {r['df_score']})\n\n```diff\n{diff}\n```")
    return "\n\n".join(parts)


def documented_references(tasks: Sequence[Any]) -> dict[str, str]:
    """Task uid (``spec_uid``, the ``task`` field of a LoCaL pair) -> the benchmark's original
    reference source, with its docstrings and comments."""
    return {spec_uid(t): t.reference for t in tasks}


def _parent(row: PairRow, kind: str) -> _Parent:
    """A pair with what every perturbed row inherits: identity, and the labelled pair for the
    second check."""
    return {"id": row["id"], "kind": kind, "benchmark": row.get("benchmark"), "task": row.get("task"),
            "level": row.get("level"), "reference": row["reference"], "candidate": row["candidate"],
            "fuzz_reference": row["reference"], "fuzz_variant": row["candidate"],
            "parent_digest": row.get("verdict_digest")}


def perturb_opt(rows: Sequence[PairRow], docs: Mapping[str, str], seed: int,
                names: Sequence[str] | None = None) -> list[PerturbedPair]:
    """Every applicable perturbation of every OPT pair, on each side (:data:`SIDES`), as rows
    with :data:`PAIR_KEYS`. ``reference_docstring`` takes its donor from ``docs`` (pairs whose
    task has no documented reference get none) and is scored against it."""
    chosen = list(PERTURBATIONS) if names is None else list(names)
    plain = [n for n in chosen if n not in DOCUMENTED]
    out: list[PerturbedPair] = []
    base = [_parent(r, "OPT") for r in rows]
    for side in SIDES:
        lib_side = "candidate" if side == "variant" else "reference"
        for p in perturb_pairs(base, plain, seed, side=lib_side):
            parent = next(b for b in base if b["id"] == p["parent_id"])
            out.append(_pair_row(p, parent, side, p["reference"], p["candidate"], _side(parent, lib_side), p[lib_side]))
        if "reference_docstring" in chosen:
            documented: list[_Parent] = [{**b, "reference": docs[b["task"]]} for b in base
                                         if b["task"] is not None and b["task"] in docs]
            for p in perturb_pairs(documented, ["reference_docstring"], seed, side=lib_side):
                parent = next(b for b in documented if b["id"] == p["parent_id"])
                out.append(_pair_row(p, parent, side, p["reference"], p["candidate"], _side(parent, lib_side), p[lib_side]))
    return out


def _side(parent: _Parent, side: str) -> str:
    """The code on one side (``candidate`` or ``reference``) of a perturbed pair's parent."""
    return parent["candidate"] if side == "candidate" else parent["reference"]


def _pair_row(p: Mapping[str, Any], parent: _Parent, side: str, ref_after: str, cand_after: str,
              original: str, perturbed: str) -> PerturbedPair:
    check = (parent["fuzz_reference"], perturbed) if side == "variant" else (perturbed, parent["fuzz_variant"])
    return {"kind": parent["kind"], "benchmark": parent["benchmark"], "task": parent["task"],
            "level": parent["level"], "id": p["id"],
            "parent_id": parent["id"], "perturbation": p["perturbation"], "side": side,
            "ref_before": parent["reference"], "cand_before": parent["candidate"], "ref_after": ref_after,
            "cand_after": cand_after, "original": original, "perturbed": perturbed, "check_reference": check[0],
            "check_variant": check[1], "parent_digest": parent["parent_digest"]}


def perturb_mut(rows: Sequence[PairRow], docs: Mapping[str, str]) -> list[PerturbedPair]:
    """Each MUT pair's mutant with the documented reference's comments and docstrings, scored
    against that documented reference; mutants whose task has no documented reference, or
    to which nothing could be carried, are left out."""
    out: list[PerturbedPair] = []
    for r in rows:
        doc = docs.get(str(r.get("task")))
        if doc is None:
            continue
        carried = mutant_with_reference_comments(r["candidate"], doc)
        if carried == r["candidate"]:
            continue
        out.append({"kind": "MUT", "benchmark": r.get("benchmark"), "task": r.get("task"), "level": r.get("level"),
                    "id": f"{r['id']}~{CARRY}", "parent_id": r["id"], "perturbation": CARRY,
                    "side": "variant", "ref_before": doc, "cand_before": r["candidate"], "ref_after": doc,
                    "cand_after": carried, "original": r["candidate"], "perturbed": carried,
                    "check_reference": r["reference"], "check_variant": carried,
                    "parent_digest": r.get("verdict_digest")})
    return out


# ----------------------------------------------------------------------------- verification
def verification_batch(rows: Sequence[PerturbedPair]) -> list[PairRow]:
    """The fuzz jobs of :func:`verify`: the program before the perturbation as the reference,
    the program after it as the variant, with the pair's task (its inputs and generator)."""
    return [{"id": r["id"], "reference": r["original"], "candidate": r["perturbed"], "task": r["task"]} for r in rows]


def check_batch(rows: Sequence[PerturbedPair]) -> list[PairRow]:
    """The second check's fuzz jobs: the labelled pair with the perturbed program in place of
    the original (rows without a recorded verdict digest have none)."""
    return [{"id": f"{r['id']}~check", "reference": r["check_reference"], "candidate": r["check_variant"],
             "task": r["task"]} for r in rows if r.get("parent_digest")]


def outcome(result: Mapping[str, Any]) -> str:
    """:data:`VERIFIED` for ``df_score == 1``; :data:`CHANGED` when some run saw a difference
    (0 <= df < 1); :data:`UNVERIFIABLE` when the fuzzer gave no score (an error, or -1: every
    run of the original timed out or had no valid input)."""
    if result_outcome(result) is not Outcome.SCORED:
        return UNVERIFIABLE
    return VERIFIED if result["df_score"] == 1 else CHANGED


def check_outcome(result: Mapping[str, Any], parent_digest: str | None) -> str:
    """The second check: :data:`SAME_VERDICTS` when the labelled pair, fuzzed with the perturbed
    program, gives the recorded verdict digest; :data:`CHANGED` when it gives another one;
    :data:`UNVERIFIABLE` without a result or a recorded digest."""
    got = result.get("verdict_digest")
    if not parent_digest or result.get("error") or not got:
        return UNVERIFIABLE
    return SAME_VERDICTS if got == parent_digest else CHANGED


def verify(rows: Sequence[PerturbedPair], profile: Profile, seed: int, jobs: int,
           progress: bool = True) -> pd.DataFrame:
    """Algorithm 1 on every (original, perturbed) program (profile's N and R, seed ``seed``, the
    task's own input generator), through :func:`lcl.study.labelling.label_candidates`; then the second check for
    the programs the first could not judge. The rows as a table with ``df_score`` (of the
    first check) and ``outcome``. ``seed`` must be the one the LoCaL pairs were labelled with,
    or the second check's verdicts cannot match."""
    settings = profile_settings(profile)
    frame = pd.DataFrame(list(rows), columns=list(PAIR_KEYS))
    if frame.empty:
        return frame.assign(df_score=pd.Series(dtype=float), outcome=pd.Series(dtype=str))
    results = {r["id"]: r for r in label_candidates(verification_batch(rows), settings, seed, jobs, progress=progress)}
    first = [outcome(results.get(i, {"error": "no result"})) for i in frame["id"]]
    frame = frame.assign(df_score=[results.get(i, {}).get("df_score") for i in frame["id"]], outcome=first)
    again = [r for r, o in zip(rows, first) if o == UNVERIFIABLE]
    checked = {r["id"]: r for r in label_candidates(check_batch(again), settings, seed, jobs, progress=progress)} if again else {}
    second = {r["id"]: check_outcome(checked.get(f"{r['id']}~check", {}), r.get("parent_digest")) for r in again}
    return frame.assign(outcome=[second.get(i, o) for i, o in zip(frame["id"], first)])


def rejected_counts(verified: pd.DataFrame) -> pd.DataFrame:
    """Per kind, side and perturbation: how many perturbed programs were fuzzed, verified (by
    either check; ``verified_by_label_verdicts``: by the second), changed behaviour (a
    perturbation bug) or could not be judged, and the share rejected."""
    rows = []
    for (kind, side, name), g in verified.groupby(["kind", "side", "perturbation"], sort=True):
        n, ok = len(g), int(g["outcome"].isin(USABLE).sum())
        rows.append({"kind": kind, "side": side, "perturbation": name, "perturbed": n, "verified": ok,
                     "verified_by_label_verdicts": int((g["outcome"] == SAME_VERDICTS).sum()),
                     "behaviour_changed": int((g["outcome"] == CHANGED).sum()),
                     "unverifiable": int((g["outcome"] == UNVERIFIABLE).sum()),
                     "rejected_share": round((n - ok) / n, 4) if n else np.nan})
    return pd.DataFrame(rows, columns=REJECT_COLUMNS)


# ----------------------------------------------------------------------------- score shifts
#: the name suffix of the sensitivity rows of :func:`against_stored_reference`
STORED = " [vs stored reference]"


def against_stored_reference(verified: pd.DataFrame) -> pd.DataFrame:
    """Sensitivity rows for the prose-copying perturbations of the variant: the same verified
    programs scored against LoCaL's stored reference (no prose) instead of the documented one,
    named ``<perturbation>`` + :data:`STORED`. The shift then measures the copied prose as noise
    against a reference that has none (nothing is fuzzed again: the programs are the same)."""
    f = verified[verified["perturbation"].isin(DOCUMENTED) & (verified["side"] == "variant")].copy()
    return f.assign(ref_before=f["check_reference"], ref_after=f["check_reference"],
                    perturbation=f["perturbation"] + STORED, id=f["id"] + STORED.replace(" ", "~"))


def score_pairs(verified: pd.DataFrame, codescore_model: Any = None, progress: bool = True) -> pd.DataFrame:
    """The verified rows with every CEM (and SurfaceSim) scored on the pair before
    (``<metric>:before``) and after (``<metric>:after``) the perturbation."""
    ok = verified[verified["outcome"].isin(USABLE)].reset_index(drop=True)
    out = ok.copy()
    for when in ("before", "after"):
        frame = pd.DataFrame({"id": ok["id"].astype(str) + f"~{when}", "reference": ok[f"ref_{when}"],
                              "candidate": ok[f"cand_{when}"]})
        scored = scoring.score_frame(frame, codescore_model=codescore_model, progress=progress)
        for col in [scoring.label(scoring.SURFACE), *scoring.cem_columns(scored)]:
            if col in scored:
                out[f"{col}:{when}"] = scored[col].to_numpy(float)
    return out


def metric_columns(scored: pd.DataFrame) -> list[str]:
    """The metrics scored by :func:`score_pairs`, in its column order."""
    return [c[: -len(":before")] for c in scored.columns if c.endswith(":before")]


def shift_table(scored: pd.DataFrame, n_boot: int = 2000, seed: int = 0) -> pd.DataFrame:
    """Per kind x side x perturbation x metric: the mean score before and after, the mean shift
    (after - before) with a 95% percentile bootstrap CI over perturbed pairs (seeded), the mean
    absolute shift, and the share of pairs whose score moved at all (|shift| > 1e-9)."""
    rows = []
    for (kind, side, name), g in scored.groupby(["kind", "side", "perturbation"], sort=True):
        for m in metric_columns(scored):
            b, a = g[f"{m}:before"].to_numpy(float), g[f"{m}:after"].to_numpy(float)
            keep = np.isfinite(b) & np.isfinite(a)
            d = a[keep] - b[keep]
            if not len(d):
                continue
            lo, hi = stats.bootstrap_ci(d, np.mean, n_boot=n_boot, seed=seed) if len(d) > 1 else (d[0], d[0])
            rows.append({"kind": kind, "side": side, "perturbation": name, "metric": m, "n": len(d),
                         "mean_before": _r(b[keep].mean()), "mean_after": _r(a[keep].mean()), "shift": _r(d.mean()),
                         "shift_ci_low": _r(lo), "shift_ci_high": _r(hi), "mean_abs_shift": _r(np.abs(d).mean()),
                         "share_moved": _r(np.mean(np.abs(d) > 1e-9))})
    return pd.DataFrame(rows, columns=SHIFT_COLUMNS)


def largest_shift(table: pd.DataFrame) -> pd.DataFrame:
    """Per metric: the row (kind, side, perturbation) with the largest absolute mean shift; the
    sensitivity rows (:data:`STORED`) are left out."""
    table = table[~table["perturbation"].str.endswith(STORED)]
    if table.empty:
        return table
    t = table.assign(_abs=table["shift"].abs())
    idx = t.groupby("metric", sort=False)["_abs"].idxmax()
    return table.loc[idx].reset_index(drop=True)


def _r(x: float) -> float:
    return round(float(x), 4) + 0.0  # + 0.0 turns a rounded -0.0 into 0.0


def plot_shifts(shifts: pd.DataFrame) -> Figure:
    """Figure X2: each metric's mean score shift with its 95% CI (:func:`shift_table`), per kind and
    perturbation, one panel for the perturbed variant or mutant and one for the perturbed reference;
    0 is a metric that does not move under behaviour-preserving edits."""
    import matplotlib.pyplot as plt

    metrics_shown = list(dict.fromkeys(shifts["metric"]))
    panels = [("variant", "perturbed variant (OPT) / mutant (MUT)"), ("reference", "perturbed reference (OPT)")]
    widths = [max(1, len(shifts.loc[shifts.side == side, ["kind", "perturbation"]].drop_duplicates()))
              for side, _ in panels]
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.4), sharey=True, gridspec_kw={"width_ratios": widths})
    for ax, (side, title) in zip(axes, panels):
        t = shifts[shifts.side == side]
        groups = list(dict.fromkeys(t["kind"] + ": " + t["perturbation"]))
        sizes = t.assign(g=t["kind"] + ": " + t["perturbation"]).groupby("g")["n"].max()
        w = 0.8 / max(1, len(metrics_shown))
        for i, m in enumerate(metrics_shown):
            tm = t[t.metric == m].assign(g=lambda d: d["kind"] + ": " + d["perturbation"]).set_index("g").reindex(groups)
            y = tm["shift"].to_numpy(float)
            err = np.vstack([y - tm["shift_ci_low"].to_numpy(float), tm["shift_ci_high"].to_numpy(float) - y])
            ax.bar(np.arange(len(groups)) + i * w, y, width=w, yerr=err, capsize=2, label=m)
        ax.axhline(0, color="black", lw=0.6)
        ax.set_xticks(np.arange(len(groups)) + w * (len(metrics_shown) - 1) / 2,
                      [f"{g} (n = {sizes[g]})" for g in groups], rotation=30, ha="right", fontsize=7)
        ax.set_title(title, fontsize=9)
    axes[0].set_ylabel("mean score shift (95% CI)")
    axes[0].legend(frameon=False, fontsize=7)
    fig.suptitle("X2: score shift under behaviour-preserving edits (0 = robust)", fontsize=10)
    fig.tight_layout()
    return fig


def findings(most: pd.DataFrame, rejected: pd.DataFrame) -> list[Finding]:
    """X2's findings: each metric's largest mean shift (:func:`largest_shift`) and the share of
    perturbed programs the fuzzer rejected (:func:`rejected_counts`)."""
    items: list[Finding] = []
    for _, r in most.iterrows():
        items.append(Finding(
            f"X2.largest_shift.{finding_slug(r['metric'])}", "X2", f"largest mean score shift of {r['metric']}",
            float(r["shift"]),
            f"{r['metric']} moves most under {r['perturbation']} of the {r['side']} ({r['kind']} pairs): mean shift "
            f"{r['shift']:+.3f} (95% CI {r['shift_ci_low']:+.3f} to {r['shift_ci_high']:+.3f}) over {int(r['n'])} "
            "behaviour-preserving pairs.", float(r["shift_ci_low"]), float(r["shift_ci_high"]), int(r["n"])))
    n_pert, n_ok = int(rejected["perturbed"].sum()), int(rejected["verified"].sum())
    n_changed = int(rejected["behaviour_changed"].sum())
    share = (n_pert - n_ok) / n_pert if n_pert else float("nan")
    items.append(Finding(
        "X2.rejected_share", "X2", "share of perturbed programs rejected by the fuzzer", round(share, 4),
        f"{n_pert - n_ok} of {n_pert} perturbed programs ({share:.1%}) were not verified equivalent to their original "
        f"({n_changed} changed behaviour, {n_pert - n_ok - n_changed} could not be judged) and were dropped.",
        n=n_pert))
    return items


def what_we_found(shifts: pd.DataFrame, most: pd.DataFrame, rejected: pd.DataFrame, sample_note: str) -> list[str]:
    """Notebook 10's X2 lines: what the fuzzer made of the perturbed programs (:func:`rejected_counts`;
    ``sample_note`` says which pairs were perturbed), how many CEM x perturbation x side cells of
    :func:`shift_table` moved beyond their 95% CI (the sensitivity rows left out) and each CEM's
    largest shift (:func:`largest_shift`)."""
    n_pert, n_ok = int(rejected["perturbed"].sum()), int(rejected["verified"].sum())
    n_second = int(rejected["verified_by_label_verdicts"].sum())
    n_changed = int(rejected["behaviour_changed"].sum())
    cem = [m for m in dict.fromkeys(shifts["metric"]) if m != scoring.label(scoring.SURFACE)]
    ok_shifts = shifts[shifts.metric.isin(cem) & ~shifts.perturbation.str.endswith(STORED)]
    moved = ok_shifts[(ok_shifts.shift_ci_low > 0) | (ok_shifts.shift_ci_high < 0)]
    return [
        f"- {n_pert} perturbed programs were fuzzed; {n_ok} verified equivalent ({n_second} of them by the labelled "
        f"pair's verdicts), {n_changed} changed behaviour "
        f"(perturbation bugs), {n_pert - n_ok - n_changed} could not be judged. " + sample_note,
        f"- Of {len(ok_shifts)} (CEM x perturbation x side) cells, {len(moved)} have a mean shift whose 95% CI "
        "excludes 0: the CEM's score moved although the behaviour did not (sensitivity rows not counted).",
        *[f"- {r['metric']}: largest shift {r['shift']:+.3f} [{r['shift_ci_low']:+.3f}, {r['shift_ci_high']:+.3f}] "
          f"under {r['perturbation']} ({r['kind']}, {r['side']}, n = {int(r['n'])}; mean score {r['mean_before']:.3f} "
          f"-> {r['mean_after']:.3f})." for _, r in most.iterrows()],
    ]
