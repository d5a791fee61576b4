"""Paper vs reproduced: every claim of the paper judged on our numbers (notebook 08).

The paper's numbers themselves are read in :mod:`lcl.claim_links` (``paper_claims``), low in the
library; this module gathers every research-question module's claim declarations and judges them."""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import pandas as pd

from . import claim_links, conclusions, reasons
from .claim_links import Declaration, Reading


def load() -> pd.DataFrame:
    """All claims, indexed by ``claim_id``."""
    return claim_links.paper_claims()


def paper_value(claim_id: str) -> float:
    """The paper's value for ``claim_id`` (KeyError when the paper has no such claim)."""
    return claim_links.paper_value(claim_id)


@lru_cache(maxsize=1)
def declarations() -> tuple[Declaration, ...]:
    """Every research-question module's claim declarations, in the paper's order (Table 1 to Section 4.7)."""
    from . import correlation, coverage, dataset, distinguish, effectiveness, overview, training

    return tuple(d for m in (overview, dataset, correlation, distinguish, coverage, effectiveness, training)
                 for d in m.CLAIMS)


def by_id() -> dict[str, Declaration]:
    return {d.claim_id: d for d in declarations()}


def links_for(table: str) -> list[claim_links.Link]:
    return [d for d in declarations() if isinstance(d, claim_links.Link) and d.table == table]


# ----------------------------------------------------------------------------- comparison
COLUMNS = ["claim_id", "kind", "section", "quantity", "paper_value", "paper_std", "reproduced_value", "ci_low",
           "ci_high", "reproduced_std", "judged_by", "tolerance", "within_tolerance", "status", "reason"]

WITHIN, OUTSIDE = "within tolerance", "outside tolerance"
HOLDS, FAILS, BY_CONSTRUCTION, NOT_COMPARABLE, MISSING = (
    conclusions.HOLDS, conclusions.FAILS, conclusions.BY_CONSTRUCTION, conclusions.NOT_COMPARABLE, conclusions.MISSING)
#: a number whose table carries no uncertainty and whose declaration gives no fixed tolerance
NOT_JUDGED = "not judged"
#: a conclusion that the trivial model (mean predictor, constant score) passes as well
TRIVIAL = conclusions.TRIVIAL
#: the tables a claim needs are absent: their notebook did not run or its data sources were skipped
NOT_RUN = "not run"
STATUSES = (WITHIN, OUTSIDE, HOLDS, FAILS, TRIVIAL, BY_CONSTRUCTION, NOT_COMPARABLE, NOT_JUDGED, MISSING, NOT_RUN)
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
    HOLDS: ("a conclusion of the paper, tested on our numbers, holds, and the trivial model does not pass it",
            "MAE on LoCaL above MAE on CodeScore_test with the two CIs apart"),
    FAILS: ("a conclusion of the paper, tested on our numbers, does not hold",
            "the paper's ranking of the CEMs by drop in d comes out in another order"),
    TRIVIAL: ("the conclusion's test passes, but it passes for the trivial model too (mean predictor, constant "
              "score), so it is not evidence for the paper's claim",
              "Combined MAE falls from p = 0 to p = 100 for the model and for the mean predictor alike"),
    BY_CONSTRUCTION: ("the conclusion follows from how our data were built (the rule that made each pair), so "
                      "it is not counted as support",
                      "optimised variants have df > 0.5 because curation keeps only those"),
    NOT_COMPARABLE: ("our number measures something else: a substitute whose measured agreement with the "
                     "authors' scores is too low, or a quantity whose sample the paper defines differently",
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


def judge(paper: float, paper_std: float, got: Reading, decl: Declaration) -> Judgement:
    """Within from evidence: the paper's value strictly inside our 95 % CI; else, where a std exists,
    the means differ by less than twice the combined std; a fixed tolerance only where no
    uncertainty exists (declared next to the claim). A value on a boundary is not a pass."""
    if _finite(got.low) and _finite(got.high):
        return Judgement(got.low < paper < got.high, "paper value inside our 95% CI")
    if _finite(got.std) or _finite(paper_std):
        combined = math.hypot(got.std if _finite(got.std) else 0.0, paper_std if _finite(paper_std) else 0.0)
        return Judgement(abs(got.value - paper) < 2 * combined,
                         "means differ by less than 2 x combined std (ours and the paper's)")
    if _finite(decl.tolerance):
        return Judgement(abs(got.value - paper) < decl.tolerance, f"fixed tolerance: {decl.tolerance_reason}",
                         decl.tolerance)
    return Judgement(None, decl.tolerance_reason or "no uncertainty computed")


def _broken_cem(claim_id: str, values: dict[str, Reading]) -> str:
    """Why a Table 3/4 or RQ2 number is not comparable (its CEM does not score PIE pairs)."""
    parts = claim_id.split(".")
    if parts[0] in ("T3", "T4") or claim_id.startswith("RQ2.drop."):
        return conclusions.broken(values, parts[1] if parts[0] != "RQ2" else parts[2])
    return ""


def _number_row(claim_id: str, ref: pd.Series, got: Reading | None, values: dict[str, Reading],
                available: set[str] | None, absence: Absence) -> dict[str, object]:
    decl = by_id().get(claim_id)
    paper, paper_std = float(ref["paper_value"]), float(ref["paper_std"])
    row: dict[str, object] = {"claim_id": claim_id, "kind": "number", "section": ref["section"],
                              "quantity": ref["quantity"], "paper_value": paper,
                              "paper_std": paper_std if _finite(paper_std) else None}
    if got is None or decl is None:
        if decl is not None and (why := absence.why((claim_id,))):
            return {**row, "status": NOT_RUN, "reason": why}
        where = ", ".join(claim_links.tables_of(claim_id, declarations())) or "no declaration"
        return {**row, "status": MISSING, "reason": f"not reproduced: no value in {where}"}
    j = judge(paper, paper_std, got, decl)
    row.update({"reproduced_value": got.value, "ci_low": _opt(got.low), "ci_high": _opt(got.high),
                "reproduced_std": _opt(got.std), "judged_by": j.judged_by, "tolerance": _opt(j.tolerance),
                "within_tolerance": j.within})
    if why := _broken_cem(claim_id, values):
        return {**row, "within_tolerance": None, "status": NOT_COMPARABLE, "reason": why}
    if j.within is None:
        return {**row, "status": NOT_COMPARABLE if decl.tolerance_reason else NOT_JUDGED, "reason": j.judged_by}
    if j.within:
        return {**row, "status": WITHIN, "reason": ""}
    return {**row, "status": OUTSIDE, "reason": reasons.explain(claim_id, available)}


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
        if v.status == FAILS:
            reason = f"{v.evidence}{REASON_SEP}{reasons.explain(c.claim_id, available)}"
        rows.append({"claim_id": c.claim_id, "kind": "conclusion", "section": c.section, "quantity": c.statement,
                     "status": v.status, "reason": reason})
    return rows


def compare(values: dict[str, Reading] | dict[str, float], available: set[str] | None = None,
            skipped: dict[str, tuple[str, ...]] | None = None) -> pd.DataFrame:
    """Every paper number next to ours, judged from our uncertainty, then every conclusion of the
    paper tested on our numbers. ``available``: the output tables present (evidence for the
    reasons, and the tables whose absence makes a claim "not run"; None = assume every table
    exists). ``skipped``: data sources the last fetch skipped, each with its benchmarks."""
    values = {k: v if isinstance(v, Reading) else Reading(float(v)) for k, v in values.items()}
    absence = Absence(available, skipped or {})
    rows = [_number_row(cid, r, values.get(cid), values, available, absence) for cid, r in load().iterrows()]
    rows += _conclusion_rows(values, available, absence)
    return pd.DataFrame(rows, columns=COLUMNS)


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
        out of every table)."""
        if not isinstance(d, claim_links.Link):
            return []
        return [s for s, benches in self.skipped.items() if d.key in benches or d.claim_id.split(".")[1] in benches]


@lru_cache(maxsize=1)
def _outputs_by_table() -> dict[str, str]:
    """Each declared table's notebook, from the notebooks' declared outputs (notebooks/outputs.mk)."""
    import re

    from . import paths

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
    """Sources the last ``lcl data`` skipped (lcl.sources' fetch record), each with its benchmarks."""
    from . import sources

    skipped = sources.status().get("skipped", {})
    if not skipped:
        return {}
    benches = {s.name: s.benchmarks for s in sources.load_manifest()}
    return {name: tuple(benches.get(name, ())) for name in skipped}


def build(tables_dir: str, skipped: dict[str, tuple[str, ...]] | None = None) -> pd.DataFrame:
    """The claims table from the regenerated tables in ``tables_dir``; ``skipped``: the data
    sources the last fetch skipped (default: read from its record)."""
    import os

    available = {f[:-4] for f in os.listdir(tables_dir) if f.endswith(".csv")} if os.path.isdir(tables_dir) else set()
    return compare(claim_links.read(tables_dir, declarations()), available=available,
                   skipped=skipped_sources() if skipped is None else skipped)


def reproduced_values(tables_dir: str) -> dict[str, float]:
    """Our value of every declared claim found in ``tables_dir``."""
    return {k: r.value for k, r in claim_links.read(tables_dir, declarations()).items()}


def _unexplained(g: pd.DataFrame) -> int:
    return int((g.status.isin([OUTSIDE, FAILS]) & g.reason.fillna("").str.endswith(UNEXPLAINED)).sum())


def summary(table: pd.DataFrame) -> dict[str, int]:
    """Counts per status (and of deviations whose reason is unexplained)."""
    out = {"claims": len(table), "numbers": int((table.kind == "number").sum()),
           "conclusions": int((table.kind == "conclusion").sum())}
    out.update({s: int((table.status == s).sum()) for s in STATUSES})
    out[UNEXPLAINED] = _unexplained(table)
    return out


def by_section(table: pd.DataFrame) -> pd.DataFrame:
    """Per paper section: counts per status."""
    rows = []
    for section, g in table.groupby("section", sort=False):
        rows.append({"section": section, "claims": len(g), **{s: int((g.status == s).sum()) for s in STATUSES},
                     UNEXPLAINED: _unexplained(g)})
    return pd.DataFrame(rows, columns=["section", "claims", *STATUSES, UNEXPLAINED])


def deviations(table: pd.DataFrame) -> pd.DataFrame:
    """Numbers outside their tolerance and failing conclusions, grouped by the stated reason."""
    out = table[table.status.isin([OUTSIDE, FAILS])]
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
        f"{int((nums.status == NOT_COMPARABLE).sum())} not comparable, {int((nums.status == NOT_JUDGED).sum())} not "
        f"judged (no uncertainty in their table), {int((nums.status == MISSING).sum())} not reproduced, "
        f"{int((nums.status == NOT_RUN).sum())} not run.",
        f"- {s['conclusions']} conclusions of the paper: {s[HOLDS]} hold, {s[FAILS]} fail, {s[TRIVIAL]} pass but "
        f"are passed by the trivial model too, {s[BY_CONSTRUCTION]} hold by construction, "
        f"{int((concl.status == NOT_COMPARABLE).sum())} not comparable, "
        f"{int((concl.status == MISSING).sum())} not reproduced, {int((concl.status == NOT_RUN).sum())} not run.",
        f"- {s[UNEXPLAINED]} deviations have no reason whose evidence closes the gap (unexplained).",
    ]
    if len(worst) and int(worst.iloc[0][FAILS]):
        lines.append(f"- Most failing conclusions: {worst.iloc[0]['section']} ({int(worst.iloc[0][FAILS])}).")
    return "\n".join(lines)


def section_text(table: pd.DataFrame, section: str) -> str:
    """One line per conclusion of ``section``: its status and the numbers it was decided on
    (for a research-question notebook's "what we found")."""
    rows = table[(table.kind == "conclusion") & (table.section == section)]
    return "\n".join(f"- Paper: {r.quantity} — **{r.status}** ({r.reason})" for r in rows.itertuples())


def paper_answer(sections: list[str]) -> str:
    """The paper's numbers for ``sections`` (from the claims data) and the conclusions it states
    there, as markdown: what a research-question notebook compares against."""
    ref = load()
    rows = ref[ref.section.isin(sections)]
    nums = [f"{r.quantity} ({cid}): {r.paper_value:g}" + (f" ± {r.paper_std:g}" if r.paper_std == r.paper_std else "")
            for cid, r in rows.iterrows()]
    said = [c.statement for c in conclusions.CONCLUSIONS if c.section in sections]
    return ("**The paper's numbers:** " + "; ".join(nums) + ".\n\n" if nums else "") + (
        "**The paper concludes:** " + "; ".join(said) + "." if said else "")
