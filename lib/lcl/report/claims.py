"""Paper vs reproduced: every claim of the paper judged on our numbers (notebook 08).

The paper's numbers themselves are read in :mod:`lcl.core.claim_links` (``paper_claims``), low in the
library; this module gathers every research-question module's claim declarations and judges them."""

from __future__ import annotations

import math
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

import pandas as pd

from lcl.core import claim_links, paths
from lcl.core.claim_links import Declaration, Reading
from lcl.rq import correlation, coverage, distinguish, effectiveness, rq5
from lcl.study import makeup, overview, sources

from . import conclusions, reasons

if TYPE_CHECKING:
    from matplotlib.figure import Figure


def load() -> pd.DataFrame:
    """All claims, indexed by ``claim_id``."""
    return claim_links.paper_claims()


def paper_value(claim_id: str) -> float:
    """The paper's value for ``claim_id`` (KeyError when the paper has no such claim)."""
    return claim_links.paper_value(claim_id)


@lru_cache(maxsize=1)
def declarations() -> tuple[Declaration, ...]:
    """Every research-question module's claim declarations, in the paper's order (Table 1 to Section 4.7)."""
    return tuple(d for m in (overview, makeup, correlation, distinguish, coverage, effectiveness, rq5)
                 for d in m.CLAIMS)


def by_id() -> dict[str, Declaration]:
    return {d.claim_id: d for d in declarations()}


def links_for(table: str) -> list[claim_links.Link]:
    return [d for d in declarations() if isinstance(d, claim_links.Link) and d.table == table]


# ----------------------------------------------------------------------------- comparison
COLUMNS = ["claim_id", "kind", "section", "quantity", "paper_value", "paper_std", "reproduced_value", "ci_low",
           "ci_high", "reproduced_std", "replicates", "paper_replicates", "judged_by", "tolerance", "within_tolerance",
           "status", "reason"]

WITHIN, OUTSIDE = "within tolerance", "outside tolerance"
HOLDS, FAILS, BY_CONSTRUCTION, NOT_COMPARABLE, MISSING = (
    conclusions.HOLDS, conclusions.FAILS, conclusions.BY_CONSTRUCTION, conclusions.NOT_COMPARABLE, conclusions.MISSING)
#: a number whose table carries no uncertainty and whose declaration gives no fixed tolerance
NOT_JUDGED = "not judged"
#: a conclusion that the trivial model (mean predictor, constant score) passes as well
TRIVIAL = conclusions.TRIVIAL
#: the tables a claim needs are absent: their notebook did not run or its data sources were skipped
NOT_RUN = "not run"
#: the kind of a row that is a check of the compendium's own (no claim of the paper): never counted as one
OWN_CHECK = conclusions.OWN_CHECK
#: a directional conclusion tested on a substitute CEM: its direction, under its own label
HOLDS_SUB, FAILS_SUB = conclusions.HOLDS_SUB, conclusions.FAILS_SUB
#: a fitted threshold that sits on the bound of the range its search was given (Algorithm 2 as the
#: authors ran it): the range, not the data, set it; read from ``aux.RQ3.on_bound.<threshold>`` (1.0
#: on the bound, 0.0 inside), which lcl.rq.coverage declares (:data:`ON_BOUND`)
AT_BOUND = "on the search bound"  # no apostrophe: status words are HTML attribute values too
STATUSES = (WITHIN, OUTSIDE, AT_BOUND, HOLDS, FAILS, HOLDS_SUB, FAILS_SUB, TRIVIAL, BY_CONSTRUCTION, NOT_COMPARABLE,
            NOT_JUDGED, MISSING, NOT_RUN)
#: qualifies an "outside tolerance" or "fails" verdict whose reason's evidence does not close the gap
UNEXPLAINED = reasons.UNEXPLAINED

#: between a failing conclusion's numbers and its explanation (the numbers may contain "; ")
REASON_SEP = " | reason: "

#: the status vocabulary, defined once: for each status a one-line meaning and one example (the
#: report's front page and notebook 08 render it; examples are illustrations, not results)
STATUS_MEANINGS: dict[str, tuple[str, str]] = {
    WITHIN: ("our value agrees with the paper's within our own uncertainty (95% CI, standard errors of "
             "replicate means, or equality at a grid's resolution)",
             "Table 3 CodeBLEU rho: the paper's value lies inside our bootstrap 95% CI"),
    OUTSIDE: ("our value differs from the paper's by more than our uncertainty allows; the reason says why, "
              "or that it is unexplained",
              "a Table 4 mean over 10 repetitions whose Welch test against the paper's mean gives p < 0.05"),
    HOLDS: ("a conclusion of the paper, tested on our numbers, holds on a resolved interval (an ordering by its "
            "paired difference or two CIs apart, a share by our CI containing the paper's), and the trivial model "
            "does not pass it", "MAE on LoCaL above MAE on CodeScore_test with the two CIs apart"),
    FAILS: ("a conclusion of the paper, tested on our numbers, does not hold",
            "the paper's ranking of the CEMs by drop in d comes out in another order"),
    TRIVIAL: ("the conclusion's test passes, but it passes for a trivial model too (mean predictor, surface rule, "
              "constant score; the reason names which), so it is not evidence for the paper's claim",
              "Combined MAE falls from p = 0 to p = 100 for the model and for the mean predictor alike"),
    BY_CONSTRUCTION: ("the conclusion follows from how our data were built (the rule that made each pair), so "
                      "it is not counted as support",
                      "optimised variants have df > 0.5 because curation keeps only those"),
    AT_BOUND: ("a fitted threshold that sits on the bound of the range its search was given: the range set it, "
               "not the data, so agreeing with (or differing from) the paper's value is no measurement; the reason "
               "gives the comparison", "x_hi = 0.90 where the search stops at 0.90, as the paper's does"),
    HOLDS_SUB: ("a directional conclusion of the paper holds on a substitute CEM (ours stands in for the authors' "
                "model and does not reproduce its scores): the direction is reported, not counted as support",
                "MAE of CodeBERTScore[MiniLM] on LoCaL above its MAE on CodeScore_test, CIs apart"),
    FAILS_SUB: ("a directional conclusion of the paper fails on a substitute CEM: reported, not counted against "
                "the paper", "CodeScore-style's correlation with SurfaceSim not the weakest"),
    NOT_COMPARABLE: ("our number measures something else: a substitute whose measured agreement with the "
                     "authors' scores is too low, or a quantity whose sample the paper defines differently; for a "
                     "conclusion, also an interval of zero width, which resolves nothing",
                     "the retrained CodeScore-style model standing in for the CodeScore checkpoint"),
    NOT_JUDGED: ("our number exists but carries no uncertainty and no stated tolerance, so it is shown "
                 "without a verdict", "a table read without its CI columns"),
    MISSING: ("not reproduced: the table the claim is read from exists but lacks the value",
              "a Table 5 row whose benchmark had no pairs after filtering"),
    NOT_RUN: ("the tables the claim needs are absent because their notebook did not run or its data sources "
              "were skipped (no data mirror); the reason names them",
              "Table 5's ShareCode_java row when the ShareCode source was skipped"),
}
#: every term the claims summary counts: the statuses and the "unexplained" qualifier
VOCABULARY: dict[str, tuple[str, str]] = {
    **STATUS_MEANINGS,
    UNEXPLAINED: ("qualifies an outside/fails verdict: no stated reason, or its evidence row (computed, named "
                  "with its value) does not bring the quantity within tolerance; says how much of the gap it "
                  "covers", "the evidence on the authors' pairs covers 40% of the gap"),
}


def vocabulary() -> pd.DataFrame:
    """The status vocabulary as a table (term, meaning, example) for the report's front page."""
    return pd.DataFrame([(k, m, e) for k, (m, e) in VOCABULARY.items()], columns=["status", "meaning", "example"])


@dataclass(frozen=True)
class Judgement:
    within: bool | None
    judged_by: str
    tolerance: float = math.nan


def _finite(x: float) -> bool:
    return not math.isnan(x)


#: a paper std printed as 0.00 is taken as its rounding bound (half the last printed digit)
PAPER_STD_FLOOR = 0.005
#: the significance level of the replicate-means test
ALPHA = 0.05


def judge(paper: float, paper_std: float, got: Reading, decl: Declaration) -> Judgement:
    """Within from evidence, by the first rule that applies:

    1. a value on a grid (Algorithm 2's thresholds): equality at the grid's resolution, the
       paper's grid point among those our draws chose (a zero-width interval on it passes);
    2. a 95 % interval (bootstrap over pairs or models, Wilson, a stated propagation): the paper's
       value strictly inside it (a value on a boundary is not a pass); a zero-width interval, where
       nothing varied, by equality;
    3. a mean of replicates with its std (Tables 4 and 6, RQ2 drops): Welch's two-sample t test
       of the two means from their standard errors (ours over our replicates, the paper's over
       its stated count), within when p >= 0.05; a one-sample t test where the paper gives no std;
    4. a fixed tolerance, only where no uncertainty exists (declared next to the claim)."""
    grid = decl.grid if isinstance(decl, claim_links.Link) else math.nan
    if _finite(grid):
        return _on_grid(paper, got, grid)
    if _finite(got.low) and _finite(got.high):
        how = f"paper value inside our 95% CI ({got.how})" if got.how else "paper value inside our 95% CI"
        if got.low == got.high:
            # nothing varied (e.g. a fixed set's count under thresholds every draw chose alike): the
            # interval is a point, and a point contains the paper's value only by equality
            return Judgement(math.isclose(paper, got.low, rel_tol=1e-9, abs_tol=1e-9),
                             how + "; a zero-width interval: equality")
        return Judgement(got.low < paper < got.high, how)
    paper_n = decl.paper_n if isinstance(decl, claim_links.Link) else 0
    if _finite(got.std) and _finite(got.n) and paper_n:
        return _welch(paper, paper_std, paper_n, got)
    if _finite(got.std):
        return Judgement(None, "a std without its replicate count: no test of the means")
    if _finite(decl.tolerance):
        return Judgement(abs(got.value - paper) < decl.tolerance, f"fixed tolerance: {decl.tolerance_reason}",
                         decl.tolerance)
    return Judgement(None, decl.tolerance_reason or (f"no uncertainty: {got.how}" if got.how else
                                                     "no uncertainty computed"))


def _on_grid(paper: float, got: Reading, step: float) -> Judgement:
    def point(x: float) -> int:
        return round(x / step)
    if _finite(got.low) and _finite(got.high):
        return Judgement(point(got.low) <= point(paper) <= point(got.high),
                         f"equality on Algorithm 2's {step:g} grid: the paper's grid point among those our draws "
                         f"chose ({got.low:g}-{got.high:g})")
    return Judgement(point(got.value) == point(paper), f"equality on Algorithm 2's {step:g} grid")


def welch(m1: float, s1: float, n1: float, m2: float, s2: float, n2: float) -> tuple[float, float, float]:
    """Welch's t test of two means from their stds and replicate counts (``s2`` NaN: a one-sample
    t test of the first mean against ``m2``): (t, degrees of freedom, two-sided p)."""
    from scipy import stats as st

    v1 = s1 * s1 / n1
    v2 = 0.0 if math.isnan(s2) else s2 * s2 / n2
    if v1 + v2 == 0:
        return (0.0 if m1 == m2 else math.inf), math.inf, (1.0 if m1 == m2 else 0.0)
    t = (m1 - m2) / math.sqrt(v1 + v2)
    df = (v1 + v2) ** 2 / ((v1 * v1 / (n1 - 1) if n1 > 1 else 0.0) + (v2 * v2 / (n2 - 1) if v2 else 0.0) or math.inf)
    df = n1 - 1 if not v2 else df
    return t, df, float(2 * st.t.sf(abs(t), df))


def paper_drop_std(claim_id: str) -> float:
    """The paper's std of an RQ2 drop in d (100 (1 - d_repl / d_orig)), which it prints without one,
    propagated from its Table 4 stds of the two d by the delta method (NaN for other claims)."""
    if not claim_id.startswith("RQ2.drop."):
        return math.nan
    cem = claim_id.split(".")[-1]
    try:
        ref = load()
        o, so = float(ref.loc[f"T4.{cem}.d_orig", "paper_value"]), float(ref.loc[f"T4.{cem}.d_orig", "paper_std"])
        r, sr = float(ref.loc[f"T4.{cem}.d_repl", "paper_value"]), float(ref.loc[f"T4.{cem}.d_repl", "paper_std"])
    except KeyError:
        return math.nan
    return 100 * math.hypot(sr / o, r * so / (o * o))


def _welch(paper: float, paper_std: float, paper_n: int, got: Reading) -> Judgement:
    if got.n < 2:
        return Judgement(None, "a single replicate: no standard error")
    floor = f"; the paper's printed std 0 taken as {PAPER_STD_FLOOR}" if paper_std == 0 else ""
    s2 = max(paper_std, PAPER_STD_FLOOR) if _finite(paper_std) else math.nan
    t, df, p = welch(got.value, got.std, got.n, paper, s2, paper_n)
    test = (f"Welch t test of the means (ours n = {got.n:.0f}, paper n = {paper_n}{floor})" if _finite(s2) else
            f"one-sample t test of our mean (n = {got.n:.0f}) against the paper's value (no paper std)")
    return Judgement(p >= ALPHA, f"{test}: t = {t:.2f}, df = {df:.1f}, p = {p:.3g}; within when p >= {ALPHA}")


def _metric_of(claim_id: str) -> str:
    """The CEM a Table 3/4/5 or RQ2 number is about ('' for other claims)."""
    parts = claim_id.split(".")
    if parts[0] in ("T3", "T4"):
        return parts[1]
    if parts[0] == "T5" or claim_id.startswith("RQ2.drop."):
        return parts[-1]
    return ""


def _broken_cem(claim_id: str, values: dict[str, Reading]) -> str:
    """Why a number about a substitute CEM is not comparable (the same rule in every RQ)."""
    cem = _metric_of(claim_id)
    return conclusions.broken(values, cem) if cem else ""


def _real_metrics() -> list[str]:
    """The CEMs we run ourselves (reimplementations): an aggregate is judged over these only."""
    return [c for c in conclusions.CEMS if c not in conclusions.SUBSTITUTES]


def _paper_real_mean_increase() -> float:
    """The paper's mean MAE increase (LoCaL minus CodeScore_test) over the metrics that are not
    substitutes here, from its own Table 5 (claims data)."""
    real = _real_metrics()
    return sum(paper_value(f"T5.LoCaL.{c}") - paper_value(f"T5.CodeScore_test.{c}") for c in real) / len(real)


@dataclass(frozen=True)
class Restated:
    """A paper number printed as an aggregate over all four CEMs, judged over the metrics that are
    not substitutes: ``paper`` recomputes the paper's side on those metrics where its per-metric
    values exist (None: the paper prints only the four-CEM aggregate, and ours, over the real
    metrics, is compared with it as printed); ``what`` says so in the verdict."""

    paper: Callable[[], float] | None
    what: str


#: the aggregates that take the substitutes in, as the paper prints them (Section 1, Section 4.6.2):
#: ours is over CodeBLEU and CrystalBLEU only (lcl.rq.effectiveness.intervals)
RESTATED: dict[str, Restated] = {
    "RQ4.mean_mae_increase": Restated(
        _paper_real_mean_increase,
        "the paper prints {printed:g}, averaged over its four CEMs, two of which are substitutes here; judged over "
        "{real} only, against the same mean from the paper's Table 5: {paper:.4g}"),
    "RQ4.worst100_gap": Restated(
        None, "ours over {real} only (the substitutes left out); the paper's {printed:g} averages its four CEMs and "
              "it gives no per-metric values, so it is compared as printed"),
}

#: the reading that says whether a fitted RQ3 threshold sits on its search's bound (1.0) or not (0.0)
ON_BOUND = "aux.RQ3.on_bound.{threshold}"
RQ3_THRESHOLDS = ("x_lo", "x_hi", "y_lo", "y_hi")


def on_bound_id(claim_id: str) -> str:
    """The :data:`ON_BOUND` reading of a threshold claim (``RQ3.x_lo`` ...), '' for other claims."""
    parts = claim_id.split(".")
    return ON_BOUND.format(threshold=parts[1]) if len(parts) == 2 and parts[0] == "RQ3" and \
        parts[1] in RQ3_THRESHOLDS else ""


def _number_row(claim_id: str, ref: pd.Series, got: Reading | None, values: dict[str, Reading],
                available: set[str] | None, absence: Absence) -> dict[str, object]:
    decl = by_id().get(claim_id)
    paper, paper_std = float(ref["paper_value"]), float(ref["paper_std"])
    restated = RESTATED.get(claim_id)
    said = ""
    if restated is not None:
        real = " and ".join(_real_metrics())
        if restated.paper is not None:
            said = restated.what.format(printed=paper, real=real, paper=restated.paper())
            paper = restated.paper()
        else:
            said = restated.what.format(printed=paper, real=real)
    row: dict[str, object] = {"claim_id": claim_id, "kind": "number", "section": ref["section"],
                              "quantity": ref["quantity"], "paper_value": paper,
                              "paper_std": paper_std if _finite(paper_std) else None}
    if got is None or decl is None:
        if decl is not None and (why := absence.why((claim_id,))):
            return {**row, "status": NOT_RUN, "reason": why}
        where = ", ".join(claim_links.tables_of(claim_id, declarations())) or "no declaration"
        return {**row, "status": MISSING, "reason": f"not reproduced: no value in {where}"}
    propagated = paper_drop_std(claim_id) if math.isnan(paper_std) else math.nan
    j = judge(paper, paper_std if math.isnan(propagated) else propagated, got, decl)
    if said:
        j = Judgement(j.within, f"{said}; {j.judged_by}", j.tolerance)
    if _finite(propagated):
        j = Judgement(j.within, f"{j.judged_by} (the paper prints no std here: {propagated:.2f}, propagated from its "
                                "Table 4 stds of d by the delta method)", j.tolerance)
    paper_n = decl.paper_n if isinstance(decl, claim_links.Link) else 0
    row.update({"reproduced_value": got.value, "ci_low": _opt(got.low), "ci_high": _opt(got.high),
                "reproduced_std": _opt(got.std), "replicates": _opt(got.n), "paper_replicates": paper_n or None,
                "judged_by": j.judged_by, "tolerance": _opt(j.tolerance), "within_tolerance": j.within})
    if why := _broken_cem(claim_id, values):
        return {**row, "within_tolerance": None, "status": NOT_COMPARABLE, "reason": why}
    if (b := values.get(on_bound_id(claim_id))) is not None and b.value == 1.0:
        return {**row, "status": AT_BOUND,
                "reason": (f"{AT_BOUND}: the fitted value is the bound of the range its search was given "
                           f"({on_bound_id(claim_id)}), so it measures the range; by the claim's own rule it is "
                           f"{WITHIN if j.within else OUTSIDE if j.within is False else NOT_JUDGED} ({j.judged_by})")}
    if j.within is None:
        return {**row, "status": NOT_COMPARABLE if decl.tolerance_reason else NOT_JUDGED, "reason": j.judged_by}
    if j.within:
        return {**row, "status": WITHIN, "reason": ""}
    return {**row, "status": OUTSIDE, "reason": explain(claim_id, paper, paper_std, got, decl, values, available)}


def explain(claim_id: str, paper: float, paper_std: float, got: Reading, decl: Declaration,
            values: dict[str, Reading], available: set[str] | None) -> str:
    """The reason for a number outside its tolerance: an explanation only when its evidence row
    (the same quantity under the stated cause) is computed and brings the value within the paper's
    by the claim's own rule; otherwise "unexplained", with how much of the gap the evidence covers."""
    stated = reasons.text(claim_id)
    if not stated:
        return f"{UNEXPLAINED}: no reason stated"
    ev = reasons.EVIDENCE.get(claim_id)
    if ev is None:
        return f"{UNEXPLAINED}: {stated} (no evidence row computes this quantity under that cause)"
    r = values.get(reasons.evidence_id(claim_id))
    tables = claim_links.tables_of(reasons.evidence_id(claim_id), reasons.evidence_declarations())
    if r is None:
        absent = [t for t in tables if available is not None and t not in available]
        return (f"{UNEXPLAINED}: {stated}; its evidence, {ev.what}, is not computed"
                + (f" ({', '.join(absent)} absent)" if absent else ""))
    if not (_finite(r.low) or _finite(r.std)):  # the evidence row has no uncertainty of its own: ours, moved to it
        shift = r.value - got.value
        r = Reading(r.value, got.low + shift, got.high + shift, got.std, got.n, got.how)
    j = judge(paper, paper_std, r, decl)
    gap = got.value - paper
    covered = (got.value - r.value) / gap * 100 if gap else math.nan
    named = f"{ev.what} = {r.value:.4g}"
    if j.within:
        return (f"{stated}; evidence: {named}, within the paper's {paper:g} ({j.judged_by}) "
                f"[evidence: {', '.join(tables)}]")
    return (f"{UNEXPLAINED}: {stated}; evidence: {named} covers {covered:.0f}% of the gap (ours {got.value:.4g}, "
            f"paper {paper:g}) and does not close it [evidence: {', '.join(tables)}]")


def _opt(x: float) -> float | None:
    return x if _finite(x) else None


def _conclusion_rows(values: dict[str, Reading], available: set[str] | None,
                     absence: Absence) -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    for c, v in conclusions.judge_all(values):
        reason = v.evidence
        if v.status == MISSING and (why := absence.why(v.missing)):
            v = conclusions.Verdict(NOT_RUN, why, v.missing)
            reason = why
        if v.status == FAILS and c.paper:  # a conclusion has no gap an evidence row could close
            stated = reasons.text(c.claim_id)
            reason = f"{v.evidence}{REASON_SEP}{UNEXPLAINED}: " + (stated or "no reason stated")
        rows.append({"claim_id": c.claim_id, "kind": "conclusion" if c.paper else OWN_CHECK, "section": c.section,
                     "quantity": c.statement, "status": v.status, "reason": reason})
    return rows


def compare(values: dict[str, Reading] | dict[str, float], available: set[str] | None = None,
            skipped: dict[str, tuple[str, ...]] | None = None) -> pd.DataFrame:
    """Every paper number next to ours, judged from our uncertainty, then every conclusion of the
    paper tested on our numbers. ``available``: the output tables present (evidence for the
    reasons, and the tables whose absence makes a claim "not run"; None = assume every table
    exists). ``skipped``: data sources the last fetch skipped, each with its benchmarks."""
    values = {k: v if isinstance(v, Reading) else Reading(float(v)) for k, v in values.items()}
    absence = Absence(available, skipped or {})
    rows = _mark_cancelling([_number_row(cid, r, values.get(cid), values, available, absence)
                             for cid, r in load().iterrows()])
    rows += _conclusion_rows(values, available, absence)
    return pd.DataFrame(rows, columns=COLUMNS)


#: a number that is the mix of two others (Table 6: Combined = Baseline and LoCaL_test, one evaluation set)
COMPOSITES = {f"T6.Combined.{p}": (f"T6.Baseline.{p}", f"T6.LoCaL_test.{p}") for p in range(0, 101, 10)}
CANCELLING = "cancelling errors"


def _mark_cancelling(rows: list[dict[str, object]]) -> list[dict[str, object]]:
    """A composite within tolerance only because its parts miss on opposite sides keeps its status
    (the number is within) but says so, so that it is not read as support."""
    by = {str(r["claim_id"]): r for r in rows}
    for cid, parts in COMPOSITES.items():
        row = by.get(cid)
        if row is None or row.get("status") != WITHIN:
            continue
        got = [by.get(p) for p in parts]
        if not all(g is not None and g.get("status") == OUTSIDE for g in got):
            continue
        gaps = [float(str(g["reproduced_value"])) - float(str(g["paper_value"])) for g in got if g is not None]
        if gaps[0] * gaps[1] < 0:
            row["reason"] = (f"{CANCELLING}: within only because its parts miss on opposite sides, both outside: "
                             + ", ".join(f"{p} {d:+.3f}" for p, d in zip(parts, gaps, strict=True)))
    return rows


@dataclass(frozen=True)
class Absence:
    """Why a claim's value is absent when that is not our analysis' doing: the table it is read
    from was not written (its notebook did not run), or the row it needs belongs to a data source
    the last fetch skipped. Anything else absent is "not reproduced"."""

    available: set[str] | None
    skipped: dict[str, tuple[str, ...]]  # source -> its benchmarks

    def why(self, claim_ids: tuple[str, ...]) -> str:
        """The "not run" reason for ``claim_ids`` ('' when every table they need exists and no
        skipped source explains the gap)."""
        decls = by_id()
        absent: dict[str, None] = {}
        sources: dict[str, None] = {}
        for cid in claim_ids:
            d = decls.get(cid)
            if d is None:
                continue
            tables = (d.table, ) if isinstance(d, claim_links.Link) else d.tables
            absent.update((t, None) for t in tables if self.available is not None and t not in self.available)
            sources.update((s, None) for s in self._skipped_for(d))
        if not absent and not sources:
            return ""
        parts = [f"{t} absent ({notebook_of(t)} did not run)" for t in absent]
        parts += [f"source {s} skipped (benchmarks {', '.join(self.skipped[s]) or 'none'})" for s in sources]
        return "not run: " + "; ".join(parts)

    def _skipped_for(self, d: Declaration) -> list[str]:
        """Skipped sources whose benchmark is the row ``d`` reads (a skipped source takes its rows
        out of every table), or that the whole table ``d`` reads is built from."""
        tables = (d.table,) if isinstance(d, claim_links.Link) else d.tables
        whole = [s for t in tables for s in TABLE_SOURCES.get(t, ()) if s in self.skipped]
        if not isinstance(d, claim_links.Link):
            return list(dict.fromkeys(whole))
        rows = [s for s, benches in self.skipped.items() if d.key in benches or d.claim_id.split(".")[1] in benches]
        return list(dict.fromkeys(rows + whole))


#: tables whose rows are keyed by metric, not benchmark, yet are computed from one mirror-only
#: source: without it every value is empty, so their claims are "not run", not "not reproduced"
#: (Table 3 and 4: PIE's equivalent pairs and their mutants, Section 4.3-4.4; the RQ4 increase and
#: Table 6: the CodeScore_test baseline, Sections 4.6 and 4.7)
TABLE_SOURCES: dict[str, tuple[str, ...]] = {
    "table3_correlation": ("pie",), "table3_crystalbleu_sensitivity": ("pie",),
    "table4_distinguishability": ("pie",), "rq2_repetitions": ("pie",), "rq2_populations": ("pie",),
    "rq2_against_constant": ("pie",), "rq2_released_surface": ("local_release",),
    "rq4_increase": ("codescore_test",), "table6_training": ("codescore_test",), "rq5_runs": ("codescore_test",),
}


@lru_cache(maxsize=1)
def _outputs_by_table() -> dict[str, str]:
    """Each declared table's notebook, from the notebooks' declared outputs (notebooks/outputs.mk)."""
    mk = paths.notebooks() / "outputs.mk"
    if not mk.exists():
        return {}
    out: dict[str, str] = {}
    text = mk.read_text().replace("\\\n", " ")
    for m in re.finditer(r"^NB_(\w+?)_OUT\s*:=(.*)$", text, flags=re.M):
        for t in re.findall(r"tables/(\w+)\.csv", m.group(2)):
            out.setdefault(t, m.group(1))
    return out


def notebook_of(table: str) -> str:
    """The notebook that writes ``table`` (as named in notebooks/outputs.mk), or "its notebook"."""
    nb = _outputs_by_table().get(table)
    return f"notebook {nb}" if nb else "its notebook"


def skipped_sources() -> dict[str, tuple[str, ...]]:
    """Sources the last ``lcl data`` skipped (lcl.study.sources' fetch record), each with its benchmarks."""
    skipped = sources.status().get("skipped", {})
    if not skipped:
        return {}
    benches = {s.name: s.benchmarks for s in sources.load_manifest()}
    return {name: tuple(benches.get(name, ())) for name in skipped}


def build(tables_dir: str, skipped: dict[str, tuple[str, ...]] | None = None) -> pd.DataFrame:
    """The claims table from the regenerated tables in ``tables_dir``; ``skipped``: the data
    sources the last fetch skipped (default: read from its record)."""
    available = {f[:-4] for f in os.listdir(tables_dir) if f.endswith(".csv")} if os.path.isdir(tables_dir) else set()
    decls = [*declarations(), *reasons.evidence_declarations()]
    return compare(claim_links.read(tables_dir, decls), available=available,
                   skipped=skipped_sources() if skipped is None else skipped)


def reproduced_values(tables_dir: str) -> dict[str, float]:
    """Our value of every declared claim found in ``tables_dir``."""
    return {k: r.value for k, r in claim_links.read(tables_dir, declarations()).items()}


def _unexplained(g: pd.DataFrame) -> int:
    r = g.reason.fillna("").map(_explanation)
    return int((g.status.isin([OUTSIDE, FAILS]) & r.str.startswith(UNEXPLAINED)).sum())


def contradictions(table: pd.DataFrame) -> list[tuple[str, str, str]]:
    """Pairs of claims of ``table`` (:func:`build`) that cannot both stand, by the implications
    declared once in :data:`lcl.report.conclusions.IMPLIES`: the premise passes (holds, on the
    substitute, or trivially) while its consequence, a conclusion, fails, or, a number, has a 95%
    interval that does not lie above the declared bar. Each: (premise, consequence, why)."""
    rows = table.set_index("claim_id")
    out = []
    for imp in conclusions.IMPLIES:
        if imp.premise not in rows.index or imp.consequence not in rows.index:
            continue
        if rows.loc[imp.premise, "status"] not in conclusions.PASSED:
            continue
        c = rows.loc[imp.consequence]
        if math.isnan(imp.bar):
            broken = c["status"] in conclusions.NOT_PASSED
        else:
            low = pd.to_numeric(pd.Series([c.get("ci_low")]), errors="coerce").iloc[0]
            broken = bool(pd.isna(low) or low <= imp.bar)
        if broken:
            out.append((imp.premise, imp.consequence, imp.why))
    return out


#: the one line :func:`contradiction_lines` gives when no declared implication is broken
NO_CONTRADICTION = "No pair of verdicts contradicts (every declared implication is respected)."


def contradiction_lines(table: pd.DataFrame) -> list[str]:
    """:func:`contradictions` of ``table`` as markdown bullets, one per broken implication (the
    premise, the consequence that does not follow, and the implication's declared reason), or the
    single line :data:`NO_CONTRADICTION`, so a reader sees the check ran either way."""
    lines = [f"- {a} passes while {b} does not: {why}." for a, b, why in contradictions(table)]
    return lines or [NO_CONTRADICTION]


def paper_rows(table: pd.DataFrame) -> pd.DataFrame:
    """The rows of ``table`` that are the paper's claims (its numbers and conclusions), without the
    compendium's own checks (:data:`OWN_CHECK`), which no count of the paper's claims includes."""
    return table[table.kind != OWN_CHECK]


def summary(table: pd.DataFrame) -> dict[str, int]:
    """Counts per status of the paper's claims (and of deviations whose reason is unexplained), and
    how many checks of our own the table holds beside them."""
    own = int((table.kind == OWN_CHECK).sum())
    table = paper_rows(table)
    out = {"claims": len(table), "numbers": int((table.kind == "number").sum()),
           "conclusions": int((table.kind == "conclusion").sum()), "own checks": own}
    out.update({s: int((table.status == s).sum()) for s in STATUSES})
    out[UNEXPLAINED] = _unexplained(table)
    return out


def by_section(table: pd.DataFrame) -> pd.DataFrame:
    """Per paper section: counts per status of the paper's claims."""
    rows = []
    for section, g in paper_rows(table).groupby("section", sort=False):
        rows.append({"section": section, "claims": len(g), **{s: int((g.status == s).sum()) for s in STATUSES},
                     UNEXPLAINED: _unexplained(g)})
    return pd.DataFrame(rows, columns=["section", "claims", *STATUSES, UNEXPLAINED])


def deviations(table: pd.DataFrame) -> pd.DataFrame:
    """Numbers outside their tolerance and failing conclusions of the paper, grouped by the stated reason."""
    out = paper_rows(table)
    out = out[out.status.isin([OUTSIDE, FAILS])]
    key = out.reason.fillna("").map(_explanation)
    rows = [{"reason": reason or UNEXPLAINED, "claims": len(g), "claim ids": ", ".join(g.claim_id)}
            for reason, g in out.groupby(key, sort=False)]
    return pd.DataFrame(rows, columns=["reason", "claims", "claim ids"])


def _explanation(reason: str) -> str:
    """The explanation part of a reason, in full: a failing conclusion's reason is the numbers it
    was decided on, then ``REASON_SEP`` and the explanation; a number's reason is all explanation."""
    return reason.split(REASON_SEP, 1)[-1]


def found_text(table: pd.DataFrame) -> str:
    """The "what we found" paragraph of the claims notebook, from the table's counts."""
    s = summary(table)
    nums = table[table.kind == "number"]
    worst = by_section(table).sort_values(FAILS, ascending=False).head(1)
    concl = table[table.kind == "conclusion"]
    lines = [
        f"- {s['numbers']} numbers: {s[WITHIN]} within our uncertainty, {s[OUTSIDE]} outside, "
        f"{s[AT_BOUND]} fitted thresholds at their search's bound, "
        f"{int((nums.status == NOT_COMPARABLE).sum())} not comparable, {int((nums.status == NOT_JUDGED).sum())} not "
        f"judged (no uncertainty in their table), {int((nums.status == MISSING).sum())} not reproduced, "
        f"{int((nums.status == NOT_RUN).sum())} not run.",
        f"- {s['conclusions']} conclusions of the paper: {s[HOLDS]} hold, {s[FAILS]} fail, {s[HOLDS_SUB]} hold and "
        f"{s[FAILS_SUB]} fail on a substitute (reported, not counted), {s[TRIVIAL]} pass but "
        f"are passed by the trivial model too, {s[BY_CONSTRUCTION]} hold by construction, "
        f"{int((concl.status == NOT_COMPARABLE).sum())} not comparable, "
        f"{int((concl.status == MISSING).sum())} not reproduced, {int((concl.status == NOT_RUN).sum())} not run.",
        f"- {s[UNEXPLAINED]} deviations have no reason whose evidence closes the gap (unexplained); "
        f"{int(table.reason.fillna('').str.startswith(CANCELLING).sum())} numbers within tolerance are so only "
        "by cancelling errors of their parts.",
    ]
    own = table[table.kind == OWN_CHECK]
    if len(own):
        lines.append(f"- {len(own)} checks of our own, which the paper does not state (not counted above): "
                     + "; ".join(f"{r.claim_id} {r.status}" for r in own.itertuples()) + ".")
    contra = contradictions(table)
    lines.append(f"- {len(contra)} pairs of verdicts contradict each other"
                 + (": " + "; ".join(f"{a} against {b}" for a, b, _ in contra) if contra else "") + ".")
    if len(worst) and int(worst.iloc[0][FAILS]):
        lines.append(f"- Most failing conclusions: {worst.iloc[0]['section']} ({int(worst.iloc[0][FAILS])}).")
    return "\n".join(lines)


def section_text(table: pd.DataFrame, section: str) -> str:
    """One line per conclusion of ``section``: its status and the numbers it was decided on
    (for a research-question notebook's "what we found")."""
    rows = table[table.kind.isin(["conclusion", OWN_CHECK]) & (table.section == section)]
    return "\n".join(f"- {'Ours' if r.kind == OWN_CHECK else 'Paper'}: {r.quantity} — **{r.status}** ({r.reason})"
                     for r in rows.itertuples())


def paper_answer(sections: list[str]) -> str:
    """The paper's numbers for ``sections`` (from the claims data) and the conclusions it states
    there, as markdown: what a research-question notebook compares against."""
    ref = load()
    rows = ref[ref.section.isin(sections)]
    nums = [f"{r.quantity} ({cid}): {r.paper_value:g}" + (f" ± {r.paper_std:g}" if r.paper_std == r.paper_std else "")
            for cid, r in rows.iterrows()]
    said = [c.statement for c in conclusions.CONCLUSIONS if c.section in sections and c.paper]
    return ("**The paper's numbers:** " + "; ".join(nums) + ".\n\n" if nums else "") + (
        "**The paper concludes:** " + "; ".join(said) + "." if said else "")


def plot_scatter(table: pd.DataFrame) -> Figure:
    """Figure: paper against reproduced value of every number claim of ``table`` (:func:`build`) whose
    two values lie in [0, 1] (scores, rho, MAE), coloured by status, with our 95% CI or ±2 std as
    error bars (they show spread; the verdict on a mean of replicates comes from the standard errors)."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5.2, 5))
    shown = table[(table.kind == "number") & table.reproduced_value.notna() & table.paper_value.between(0, 1)
                  & table.reproduced_value.between(0, 1)]
    for status, color in ((WITHIN, "tab:green"), (OUTSIDE, "tab:red"), (NOT_COMPARABLE, "tab:gray"),
                          (NOT_JUDGED, "tab:olive")):
        g = shown[shown.status == status]
        lo = (g.reproduced_value - g.ci_low.fillna(g.reproduced_value - 2 * g.reproduced_std.fillna(0))).clip(lower=0)
        hi = (g.ci_high.fillna(g.reproduced_value + 2 * g.reproduced_std.fillna(0)) - g.reproduced_value).clip(lower=0)
        ax.errorbar(g.paper_value, g.reproduced_value, yerr=[lo, hi], fmt="o", ms=3.5, color=color, alpha=0.7,
                    elinewidth=0.8, label=f"{status} ({len(g)})")
    ax.plot([0, 1], [0, 1], color="black", lw=0.8)
    ax.set_xlim(-0.02, 1.02)
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlabel("paper")
    ax.set_ylabel("reproduced")
    ax.legend(frameon=False, fontsize=8)
    ax.set_title("Numbers in [0, 1] (scores, rho, MAE)")
    fig.tight_layout()
    return fig
