"""Label sensitivity: do the paper's RQ3 and RQ4 conclusions depend on whose df_score labels are used?

Our re-derived labels (:mod:`lcl.study.label_agreement`) and the authors' published ``score`` disagree on some
released LoCaL pairs. Per-pair agreement is reported in ``01_inputs``; what matters for the
paper's claims is whether a conclusion drawn from the labels changes. On the released pairs
that *both* label sets cover (the release's score >= 0 and ours >= 0), every quantity below is
computed twice, with the authors' df_score and with ours, everything else fixed (the pairs, the
CEM scores, the comparators, the thresholds):

- Table 5's LoCaL rows: MAE of each CEM on all covered pairs, the mutation-only and the
  optimisation-only subsets. The conclusion each supports: "the CEM errs more on this set than
  on CodeScore_test" (paper Section 4.6: all four CEMs on LoCaL; every CEM but CodeBERTScore on
  both subsets). CodeScore_test's MAE is the comparator, with its published labels in both runs.
- RQ3's hit rates: the share of mutants in SFD and of optimised variants in DFS (Eq. 4 in the
  plane (SurfaceSim, df_score)), with the paper's fitted thresholds held fixed so that only the
  labels vary (re-fitting Algorithm 2 per label set would move the regions with the labels).
  The conclusion: "more than half" (paper 59.8% and 51.0%).

Each quantity is a mean of one term per pair, so the difference between the two values is a
sum of per-pair contributions. Where a conclusion flips, :func:`flip_pairs` names the fewest
pairs whose labels alone flip it (the largest contributions in the direction of the change).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TypedDict

import numpy as np
import pandas as pd

from lcl.core import claim_links
from lcl.core.profiles import Profile
from lcl.core.records import has_score
from lcl.engine import regions
from lcl.study import label_agreement, scoring

#: columns of the label-sensitivity table
COLUMNS = ["metric", "quantity", "conclusion", "n", "value_theirs", "value_ours", "difference", "comparator",
           "holds_theirs", "holds_ours", "conclusion_changes"]
#: columns of the table of pairs that flip a conclusion
PAIR_COLUMNS = ["metric", "quantity", "rank", "id", "benchmark", "variant_type", "theirs", "ours", "contribution",
                "value_after", "cause", "evidence"]

THEIRS, OURS = "df_score", "ours"


class SensitivityRow(TypedDict):
    """A row of :func:`sensitivity` (:data:`COLUMNS`)."""

    metric: str
    quantity: str
    conclusion: str
    n: int
    value_theirs: float
    value_ours: float
    difference: float
    comparator: float
    holds_theirs: bool | None
    holds_ours: bool | None
    conclusion_changes: bool


class FlipRow(TypedDict):
    """A row of :func:`flip_pairs` (:data:`PAIR_COLUMNS`): one pair whose label swap moves a conclusion."""

    metric: str
    quantity: str
    rank: int
    id: str
    benchmark: str | None
    variant_type: str | None
    theirs: float
    ours: float
    contribution: float
    value_after: float
    cause: str
    evidence: str
#: why a released pair has no label of ours (``not in the result store``, ``id names no task``, ...)
SKIPPED = "ours_skipped"
#: a share above this (percent) is "more than half"
HALF = 50.0
#: Table 5's LoCaL rows: (row name, variant_type selected or None for every covered pair)
SUBSETS: tuple[tuple[str, str | None], ...] = (("LoCaL", None), ("LoCaL_mut", "MUT"), ("LoCaL_opt", "OPT"))
#: RQ3's hit rates: (variant_type, region it should fall in)
HITS: tuple[tuple[str, str], ...] = (("MUT", "SFD"), ("OPT", "DFS"))


# ----------------------------------------------------------------------------- labels
def released_with_both_labels(profile: Profile, seed: int, jobs: int = 1,
                              progress: bool = False) -> tuple[pd.DataFrame, list[str]]:
    """The released LoCaL pairs that ``01_inputs`` re-derives at ``profile`` (every pair at full,
    a sample otherwise; :func:`lcl.study.label_agreement.label_pairs`), as a :func:`lcl.study.scoring.pairs_frame`
    with ``df_score`` = the authors' label, ``ours`` = ours (NaN without one) and
    ``ours_skipped`` = why there is none, and one note per unavailable source.

    Our labels come from :func:`lcl.study.label_agreement.rederive` with the settings of ``01_inputs``, so the
    results it stored are reused. At the full profile nothing is fuzzed: only stored results
    (the committed label archive) are read, and a pair without one gets no label of ours."""
    pairs, missing = label_agreement.label_pairs(profile)
    pairs = [p for p in pairs if p.dataset == "LoCaL_published"]
    frame = scoring.pairs_frame(pairs)
    if not pairs:
        return frame.assign(**{OURS: pd.Series(dtype=float), SKIPPED: pd.Series(dtype=object)}), missing
    got = label_agreement.rederive(pairs, **label_agreement.settings_for(profile), seed=seed, jobs=jobs, progress=progress,
                          stored_only=profile.name == "full")
    if list(got["id"]) != list(frame["id"]):
        raise AssertionError("rederive must return one row per pair, in order")
    return frame.assign(**{OURS: pd.to_numeric(got["ours"], errors="coerce").to_numpy(float),
                           SKIPPED: got["skipped"].to_numpy(object)}), missing


def covered(frame: pd.DataFrame) -> pd.DataFrame:
    """The rows both label sets cover: a df_score on both sides (:func:`~lcl.core.records.has_score`:
    not missing, not :data:`~lcl.core.records.NO_KEPT_RUN`)."""
    return frame[_scored(frame[THEIRS]) & _scored(frame[OURS])].reset_index(drop=True)


def _scored(column: pd.Series) -> pd.Series:
    return pd.to_numeric(column, errors="coerce").map(has_score).astype(bool)


def coverage_counts(frame: pd.DataFrame) -> dict[str, int]:
    """How many released pairs carry each label set and both."""
    theirs, ours = _scored(frame[THEIRS]), _scored(frame[OURS])
    return {"released pairs": len(frame), "with their label": int(theirs.sum()),
            "with our label": int(ours.sum()), "with both": int((theirs & ours).sum())}


def paper_thresholds() -> regions.Thresholds:
    """The paper's fitted thresholds (Section 4.5.1) as :class:`lcl.engine.regions.Thresholds`."""
    v = {k: claim_links.paper_value(f"RQ3.{k}") for k in ("x_lo", "x_hi", "y_lo", "y_hi")}
    return regions.Thresholds(v["x_lo"], v["x_hi"], v["y_lo"], v["y_hi"], objective=float("nan"), step=0.05,
                              error="paper")


# ----------------------------------------------------------------------------- quantities
@dataclass(frozen=True)
class Quantity:
    """One label-dependent quantity: the mean over ``select``ed rows of ``term(rows, labels)``,
    and the conclusion it supports, "value > comparator"."""

    metric: str
    quantity: str
    conclusion: str
    comparator: float
    select: Callable[[pd.DataFrame], pd.Series]
    term: Callable[[pd.DataFrame, np.ndarray], np.ndarray]

    def terms(self, frame: pd.DataFrame, label: str) -> tuple[pd.DataFrame, np.ndarray]:
        rows = frame[self.select(frame)]
        return rows, self.term(rows, rows[label].to_numpy(float))

    def holds(self, value: float) -> bool | None:
        if value != value or self.comparator != self.comparator:
            return None
        return bool(value > self.comparator)


def _kind(variant_type: str | None, column: str) -> Callable[[pd.DataFrame], pd.Series]:
    """Rows of ``variant_type`` (every row for None) that ``column`` scores."""
    if variant_type is None:
        return lambda f: f[column].notna()
    return lambda f: (f["variant_type"] == variant_type) & f[column].notna()


def _abs_error(column: str) -> Callable[[pd.DataFrame, np.ndarray], np.ndarray]:
    return lambda rows, y: np.abs(rows[column].to_numpy(float) - y)


def _inside(region: str, th: regions.Thresholds) -> Callable[[pd.DataFrame, np.ndarray], np.ndarray]:
    return lambda rows, y: 100.0 * (regions.assign(rows["SurfaceSim"].to_numpy(float), y, th) == region)


def quantities(metric_columns: list[str], baseline_mae: Mapping[str, float],
               th: regions.Thresholds) -> list[Quantity]:
    """Table 5's three LoCaL rows per CEM (comparator: the CEM's MAE on CodeScore_test, NaN when
    unknown) and RQ3's two hit rates (comparator: 50%)."""
    out = []
    for col in metric_columns:
        base = float(baseline_mae.get(col, np.nan))
        for name, kind in SUBSETS:
            out.append(Quantity(col, f"MAE on {name}", f"{scoring.paper_name(col)} errs more on {name} than on "
                                f"CodeScore_test (MAE there {base:.3f})", base, _kind(kind, col), _abs_error(col)))
    for kind, region in HITS:
        what = "mutants" if kind == "MUT" else "optimised variants"
        out.append(Quantity("SurfaceSim", f"% of {what} in {region}", f"more than half of the {what} fall in {region}",
                            HALF, _kind(kind, "SurfaceSim"), _inside(region, th)))
    return out


def _value(terms: np.ndarray) -> float:
    return float(np.mean(terms)) if len(terms) else float("nan")


def sensitivity(frame: pd.DataFrame, qs: list[Quantity]) -> pd.DataFrame:
    """One row per quantity (:data:`COLUMNS`): its value with the authors' labels and with ours
    on the rows of ``frame`` (a scored frame with ``df_score`` and ``ours``) that both cover
    (:func:`covered`), and whether the conclusion it supports holds under each. No such row: an
    empty table with the same columns."""
    frame = covered(frame)
    if frame.empty:
        return pd.DataFrame(columns=COLUMNS)
    rows: list[SensitivityRow] = []
    for q in qs:
        sel, theirs = q.terms(frame, THEIRS)
        _, ours = q.terms(frame, OURS)
        a, b = _value(theirs), _value(ours)
        ha, hb = q.holds(a), q.holds(b)
        rows.append({"metric": q.metric, "quantity": q.quantity, "conclusion": q.conclusion, "n": len(sel),
                     "value_theirs": _round(a), "value_ours": _round(b), "difference": _round(b - a),
                     "comparator": _round(q.comparator), "holds_theirs": ha, "holds_ours": hb,
                     "conclusion_changes": bool(ha is not None and hb is not None and ha != hb)})
    return pd.DataFrame(rows, columns=COLUMNS)


def _round(v: float) -> float:
    return round(v, 4) if v == v else float("nan")


def flip_pairs(frame: pd.DataFrame, qs: list[Quantity],
               causes: Mapping[str, tuple[str, str]] | None = None) -> pd.DataFrame:
    """For each quantity whose conclusion flips: the fewest pairs whose labels alone flip it.

    Swapping one pair's label from theirs to ours changes the value by that pair's contribution
    (term with ours minus term with theirs, over n); taking the largest contributions in the
    direction of the change, in order, until the conclusion no longer holds as it did with their
    labels gives the smallest such set. ``causes``: pair id -> (cause, evidence), as
    :func:`lcl.study.label_agreement.recorded_causes` reads them."""
    causes = causes or {}
    frame = covered(frame)
    out: list[FlipRow] = []
    if frame.empty:
        return pd.DataFrame(out, columns=PAIR_COLUMNS)
    for q in qs:
        sel, theirs = q.terms(frame, THEIRS)
        _, ours = q.terms(frame, OURS)
        if not len(sel):
            continue
        a, b = _value(theirs), _value(ours)
        ha, hb = q.holds(a), q.holds(b)
        if ha is None or hb is None or ha == hb:
            continue
        contrib = (ours - theirs) / len(sel)
        order = np.argsort(contrib if b < a else -contrib, kind="stable")
        value = a
        for rank, i in enumerate(order, 1):
            if (contrib[i] < 0) != (b < a) or contrib[i] == 0:
                break
            value += float(contrib[i])
            r = sel.iloc[i]
            cause, evidence = causes.get(str(r["id"]), ("none recorded", ""))
            out.append({"metric": q.metric, "quantity": q.quantity, "rank": rank, "id": r["id"],
                        "benchmark": r.get("benchmark"), "variant_type": r.get("variant_type"),
                        "theirs": float(r[THEIRS]), "ours": float(r[OURS]), "contribution": _round(float(contrib[i])),
                        "value_after": _round(value), "cause": cause, "evidence": evidence})
            if q.holds(value) != ha:
                break
    return pd.DataFrame(out, columns=PAIR_COLUMNS)


def share_margin(percent: float, n: int, threshold: float = HALF) -> int:
    """How many of ``n`` pairs would have to change region for "share > ``threshold``%" to change
    (a share of ``percent``% of ``n``): how close a hit-rate conclusion is to flipping."""
    inside = int(round(percent * n / 100))
    limit = int(np.floor(threshold * n / 100 + 1e-9))  # the largest count that is not above the threshold
    return inside - limit if inside > limit else limit + 1 - inside


def found(table: pd.DataFrame, flips: pd.DataFrame, counts: Mapping[str, int]) -> list[str]:
    """"What we found" sentences, computed from the two tables."""
    if table.empty:
        return ["- No released pair carries both label sets here (see the note above): nothing to compare."]
    changed = table[table.conclusion_changes]
    lines = [f"- {counts.get('with both', 0)} of {counts.get('released pairs', 0)} released pairs carry both labels "
             f"({counts.get('with their label', 0)} the authors', {counts.get('with our label', 0)} ours).",
             f"- Largest change of a Table 5 MAE: {table[table.quantity.str.startswith('MAE')].difference.abs().max():.3f};"
             f" of a hit rate: {table[table.quantity.str.startswith('%')].difference.abs().max():.1f} points."]
    if changed.empty:
        lines.append(f"- None of the {len(table)} conclusions changes with our labels instead of the authors'.")
    for _, r in table[table.quantity.str.startswith("%")].iterrows():
        lines.append(f"- {r.quantity}: {r.value_theirs:.1f}% with their labels, {r.value_ours:.1f}% with ours; "
                     f"'{r.conclusion}' would change if {share_margin(r.value_ours, int(r.n))} of the {r.n} pairs "
                     "changed region under our labels.")
    for _, r in changed.iterrows():
        who = flips[(flips.metric == r.metric) & (flips.quantity == r.quantity)]
        lines.append(f"- **{r.metric}, {r.quantity}**: '{r.conclusion}' {'holds' if r.holds_theirs else 'fails'} with "
                     f"their labels ({r.value_theirs:.3f}) and {'holds' if r.holds_ours else 'fails'} with ours "
                     f"({r.value_ours:.3f}); {len(who)} pair(s) alone flip it: " + ", ".join(who.id.astype(str)) + ".")
    return lines
