"""LoCaL-all from its candidates: Step III (Algorithm 1 labels, :mod:`lcl.study.labelling`), then
SurfaceSim (Eq. 1, paper mode) and the curation rule (:mod:`lcl.study.curation`) that marks the LoCaL
pairs; and the published LoCaL pairs in the same form.

Every candidate that does not make it is counted with its reason: pairs that cannot be fuzzed,
pairs whose every run was excluded (df_score = -1, excluded as in the paper). Every labelled
candidate stays in the pairs file (``LoCaL-all``).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

from lcl.core.profiles import Profile
from lcl.core.records import Ledger, Outcome, PairRow, Task, result_outcome
from lcl.engine.fuzz.semantics import FuzzResult
from lcl.engine.similarity import SimilarityWarning, surface_sim

from . import curation, loaders
from .candidate_generation import candidates, pie_opt_candidates, pie_opt_tasks, selected_tasks
from .labelling import label_candidates, profile_settings
from .task_specs import spec_for


@dataclass
class LocalStage:
    """Steps I and III (Section 3.3) for a profile: the selected tasks, their MUT and OPT
    candidates (PIE's OPT from the pairs in ``opt_tasks``), each candidate's Algorithm 1 result
    (same order; empty until labelled), and every drop on the way. :meth:`pairs` assembles
    LoCaL-all from them."""

    tasks: list[Task]
    rows: list[PairRow]
    ledger: Ledger
    results: list[FuzzResult] = field(default_factory=list)
    seed: int = 0
    opt_tasks: list[Task] = field(default_factory=list)

    def pairs(self) -> list[PairRow]:
        return assemble(self.rows, self.results, self.ledger, self.seed)

def local_candidates(profile: Profile, seed: int, *, benchmarks: tuple[str, ...] = (),
                     kind: str | None = None) -> LocalStage:
    """Step I: the selected tasks (of ``benchmarks``, default all) and their candidates (of
    ``kind``, default MUT and OPT), not yet labelled."""
    tasks = [t for t in selected_tasks(profile) if not benchmarks or t.benchmark in benchmarks]
    opt_tasks = pie_opt_tasks(profile, seed) if not benchmarks or "PIE" in benchmarks else []
    ledger = Ledger()
    rows = candidates(tasks, profile, seed, ledger) + pie_opt_candidates(opt_tasks, ledger)
    if kind:
        rows = [r for r in rows if r["variant_type"] == kind]
    return LocalStage(tasks, rows, ledger, seed=seed, opt_tasks=opt_tasks)

def build_local(profile: Profile, seed: int, jobs: int, *, benchmarks: tuple[str, ...] = (),
                kind: str | None = None, progress: bool = True) -> LocalStage:
    """The LoCaL stage of notebook 02 and ``lcl variants label``: candidates (Step I) labelled by
    Algorithm 1 (Step III), resumable through the result store and the label archive."""
    stage = local_candidates(profile, seed, benchmarks=benchmarks, kind=kind)
    stage.results = label_candidates(stage.rows, profile_settings(profile), seed, jobs, progress=progress)
    return stage

def assemble(rows: list[PairRow], results: list[FuzzResult], ledger: Ledger,
             seed: int = 0) -> list[PairRow]:
    """Attach labels and SurfaceSim; apply the exclusions (no label); mark the LoCaL pairs
    (:func:`lcl.study.curation.curate`). Every exclusion and every pair left out of LoCaL is counted."""
    by_id = {r["id"]: r for r in results}
    out: list[PairRow] = []
    for row in rows:
        res: FuzzResult = by_id.get(row["id"], {})
        kind = row["variant_type"]
        df, what = res.get("df_score"), result_outcome(res)
        if what is Outcome.ERROR:
            ledger.drop(kind, "cannot be fuzzed (" + str(res.get("error", "no result"))[:60] + ")")
            continue
        if what is Outcome.NO_KEPT_RUN:
            ledger.drop(kind, "every run timed out (df_score = -1)")
            continue
        spec = spec_for(str(row["task"]))
        labelled = PairRow(**row)
        labelled.pop("entry", None)  # the files say entry_point; stdin is the level's
        labelled.pop("stdin", None)
        out.append({
            **labelled,
            "entry_point": row.get("entry"),
            "df_score": df, "run_scores": res.get("run_scores"), "counts": res.get("counts"),
            "verdict_digest": res.get("verdict_digest"), "seeds": res.get("seeds"),
            "spec": "verified" if spec.verified else spec.origin,
            "surface_sim": surface_sim(row["reference"], row["candidate"], mode="paper"),
        })
    return curation.curate(out, ledger, seed)

# ============================================================================ published pairs
def published_pairs(ledger: Ledger) -> list[PairRow]:
    """The published LoCaL pairs (mirror's ``local_release/``) as a third source: variant_type
    PUBLISHED, the release's kind kept in ``published_kind``, its score as ``df_score``, our
    SurfaceSim next to the authors'. ``[]`` (with a printed note) when the mirror is absent."""
    out: list[PairRow] = []
    for p in loaders.pairs_if_available("LoCaL_published"):
        ledger.generated["PUBLISHED pairs in the release"] += 1
        if p.df_score is None:
            ledger.drop("PUBLISHED", "no published score")
            continue
        if p.outcome is Outcome.NO_KEPT_RUN:
            ledger.drop("PUBLISHED", "timed out in the authors' fuzzing (score = -1)")
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SimilarityWarning)
            sim = surface_sim(p.reference, p.candidate, mode="paper")
        authors = p.extra.get("author_scores") or None
        out.append({
            "id": p.id, "benchmark": p.benchmark, "task": p.task, "level": p.level, "variant_type": "PUBLISHED",
            "published_kind": p.variant_type, "published_id": p.extra.get("published_id", p.id),
            "reference": p.reference, "candidate": p.candidate, "df_score": p.df_score, "surface_sim": sim,
            "surface_sim_published": (authors or {}).get("surfaceSim"), "author_scores": authors,
            "generator": "published",
        })
    return out
