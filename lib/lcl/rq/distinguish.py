"""RQ2: distinguishability of the CEMs on ``ds_orig`` and ``ds_replaced`` (paper Section 4.4, Table 4).

Setup (Section 4.4.1, following Eghbali and Pradel, 2023), as the authors' released script
(``Experiments/RQ2/scripts/analyze_distinguishability.py``) builds it (:func:`authors_build`,
the primary Table 4):

- ``ds_orig``: ``n`` PIE equivalent pairs (slow program, fast program of the same problem) drawn
  at random, and for each of them its slow program with the fast program of another drawn pair of
  a different problem (:func:`mismatch_pairs`).
- ``ds_replaced``: the same ``n`` equivalent pairs and ``n`` of LoCaL's own mutants with
  ``df_score`` exactly 0, from every source benchmark (our LoCaL, our labels:
  :func:`lcl.study.rq2_pool.local_df0_pool`), one pool all repetitions sample from.

Sensitivity rows keep the equivalent and cross pairs and swap the mutant population
(:func:`with_mutants`): fresh MutPy mutants of the slow programs of the PIE pairs (``PIE_PAIRS``,
generated as the LoCaL mutants are and fuzzed until ``n`` have df = 0, only PIE problems whose
input spec is reviewed, verified and non-empty) and of LoCaL's 100 PIE programs (``LOCAL``).
:func:`build` is the construction used before (cross pairs drawn afresh on both sides).
:func:`released_surface` reads the paper's NEQ-repl SurfaceSim on the released df = 0 mutants.

The whole construction is repeated with recorded seeds ("we repeat the entire dataset
construction", Section 4.4.1): each repetition draws its own equivalent pairs, cross pairs and
df = 0 mutants (for the fresh populations, :func:`lcl.study.rq2_pool.repetition_pools`: the
population's candidates in the repetition's own order, fuzzed until ``n`` have df = 0). Every program, on either side of any pair, is in one text
form (:func:`text_form`, ``ast.unparse`` without docstrings), since a mutant exists only in it.

Distinguishability (Eq. 3) is the mean CEM score on the equivalent pairs divided by the mean on
the non-equivalent pairs (:func:`lcl.engine.stats.distinguishability`). Table 4 reports the mean (±
sample standard deviation, ddof = 1) over the repetitions, and Section 4.4.2 the drop
``(d_orig - d_repl) / d_orig * 100`` of the mean d's.

Everything here is pure except the pool functions (:func:`mutant_pool` and its callers generate
and fuzz mutants; fuzz results are resumed from the engine's SQLite store and the committed
label archive). Scoring is the caller's: score the union of all pairs once (:func:`union`) and
index it per repetition (:func:`repetition_scores`).
"""

from __future__ import annotations

import ast
import random
import warnings
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from lcl.core import claim_links, seeds
from lcl.core.claim_links import Derived, Link
from lcl.core.records import Level, Pair, PairRow
from lcl.engine.similarity import surface_sim_many
from lcl.engine.stats import distinguishability
from lcl.study import scoring
from lcl.study.candidate_generation import strip_docstrings
from lcl.study.rq2_pool import local_df0_pool, repetition_seed
from lcl.study.scoring import cem_columns

if TYPE_CHECKING:
    from matplotlib.figure import Figure

#: dataset names used in every table
ORIG, REPL = "ds_orig", "ds_replaced"
#: group names: equivalent pairs, cross-paired non-equivalents, df = 0 mutants
EQ, NEQ_CROSS, NEQ_MUT = "EQ", "NEQ_cross", "NEQ_mutant"
SURFACE_LABEL = "SurfaceSim"


def _problem(p: Pair) -> str:
    return str(p.extra.get("problem_id") or (p.task or "").split("/")[-1].split("_")[0])


def _row(pid: str, ref: str, cand: str, kind: str, task: str | None, df: float | None,
         benchmark: str | None = None, level: Level | None = None) -> PairRow:
    return {"id": pid, "dataset": "RQ2", "benchmark": benchmark or "PIE", "task": task, "level": level or "program",
            "variant_type": kind, "lang": "python", "reference": ref, "candidate": cand, "df_score": df}


# ----------------------------------------------------------------------------- construction
def text_form(code: str) -> str:
    """The one text form of every RQ2 program: ``ast.unparse`` without docstrings
    (:func:`lcl.study.candidate_generation.strip_docstrings`), the form MutPy's mutants and their references take
    (Section 3.3). A mutant exists only as unparsed code, so the equivalent and cross-paired
    programs are unparsed too; otherwise PIE's raw layout (comments, blank lines) would lower
    the scores of the ``ds_orig`` pairs alone and every comparison with ``ds_replaced`` would
    mix a formatting difference into the surface one (Section 4.4.1)."""
    return strip_docstrings(code)


def usable_pairs(pairs: Sequence[Pair]) -> tuple[list[Pair], Counter]:
    """The PIE pairs both of whose programs parse as Python 3 (the CEMs and SurfaceSim need an AST;
    an unparsable side would only get a metric's fallback score), both sides in :func:`text_form`,
    and a count of what was left out."""
    def form(code: str) -> str | None:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return text_form(code)
        except (SyntaxError, ValueError, RecursionError):
            return None

    keep, skipped = [], Counter[str]()
    for p in pairs:
        ref, cand = form(p.reference), form(p.candidate)
        if ref is not None and cand is not None:
            keep.append(replace(p, reference=ref, candidate=cand))
        else:
            skipped["PIE pair left out: a program does not parse as Python 3"] += 1
    return keep, skipped


def equivalent_pairs(pairs: Sequence[Pair], n: int, rng: random.Random) -> list[PairRow]:
    """``n`` PIE slow/fast pairs drawn without replacement (the equivalent half of both datasets).

    ``df_score`` is 1: PIE's slow and fast programs are both accepted solutions of the problem.
    """
    if n > len(pairs):
        raise ValueError(f"asked for {n} equivalent pairs, only {len(pairs)} PIE pairs")
    chosen = rng.sample(range(len(pairs)), n)
    return [_row(pairs[i].id, pairs[i].reference, pairs[i].candidate, EQ, f"PIE/{_problem(pairs[i])}", 1.0)
            for i in sorted(chosen)]


def cross_pairs(pairs: Sequence[Pair], n: int, rng: random.Random) -> list[PairRow]:
    """``n`` cross-paired non-equivalent pairs: the slow program of a pair of problem A with the
    fast program of a pair of a different problem B (Section 4.4.1; Eghbali and Pradel, 2023).

    Slow sides and fast sides are each drawn without replacement; deterministic given ``rng``.
    ``df_score`` is 0 by construction (solutions to different problems), not fuzzed.
    """
    if n > len(pairs):
        raise ValueError(f"asked for {n} cross pairs, only {len(pairs)} PIE pairs")
    slow = rng.sample(range(len(pairs)), n)
    fast_order = rng.sample(range(len(pairs)), len(pairs))
    used: set[int] = set()
    out: list[PairRow] = []
    for i in slow:
        a = pairs[i]
        j = next((j for j in fast_order if j not in used and _problem(pairs[j]) != _problem(a)), None)
        if j is None:
            raise ValueError("cannot cross-pair: every remaining fast program solves the same problem")
        used.add(j)
        b = pairs[j]
        out.append(_row(f"RQ2X_{a.id}__{b.id}", a.reference, b.candidate, NEQ_CROSS,
                        f"PIE/{_problem(a)}|PIE/{_problem(b)}", 0.0))
    return sorted(out, key=lambda r: r["id"])


@dataclass(frozen=True)
class Repetition:
    """The two datasets of one repetition (``r``, built with ``seed``)."""

    r: int
    seed: int
    eq: list[PairRow]
    neq_orig: list[PairRow]
    neq_repl: list[PairRow]

    @property
    def ds_orig(self) -> list[PairRow]:
        return self.eq + self.neq_orig

    @property
    def ds_replaced(self) -> list[PairRow]:
        return self.eq + self.neq_repl


def mutant_rows(pool: Sequence[PairRow], n: int, rng: random.Random) -> list[PairRow]:
    """``min(n, len(pool))`` df = 0 mutants of ``pool`` drawn with ``rng``, as ``ds_replaced`` rows
    (sorted by id)."""
    picked = sorted(rng.sample(range(len(pool)), min(n, len(pool))))
    return [_mutant_row(pool[i]) for i in picked]


def _mutant_row(m: PairRow) -> PairRow:
    """A pool's mutant as a ``ds_replaced`` row (its benchmark and level kept: not every pool is PIE's)."""
    return _row(m["id"], m["reference"], m["candidate"], NEQ_MUT, m.get("task"), m.get("df_score"),
                m.get("benchmark"), m.get("level"))


# ----------------------------------------------------------------------------- the authors' construction
def mismatch_pairs(eq: Sequence[PairRow], rng: random.Random) -> list[PairRow]:
    """``ds_orig``'s non-equivalent pairs as the authors' released script builds them
    (``Experiments/RQ2/scripts/analyze_distinguishability.py``): for each equivalent pair ``i``, in
    the order drawn, its reference with the candidate of an equivalent pair ``j`` drawn with ``rng``
    among the others of a different problem (any other pair when none is; a ``j`` can serve
    several ``i``). The cross pairs therefore reuse the equivalent pairs' programs, unlike
    :func:`cross_pairs`, which draws both sides afresh."""
    out: list[PairRow] = []
    for i, a in enumerate(eq):
        others = [j for j in range(len(eq)) if j != i and _task_problem(eq[j]) != _task_problem(a)]
        j = rng.choice(others or [j for j in range(len(eq)) if j != i])
        b = eq[j]
        out.append(_row(f"RQ2M_{a['id']}__{b['id']}", a["reference"], b["candidate"], NEQ_CROSS,
                        f"{a['task']}|{b['task']}", 0.0))
    return out


def _task_problem(row: PairRow) -> str:
    """The PIE problem of an equivalent row (``PIE/<problem>``)."""
    return str(row.get("task") or "").split("/")[-1].split("_")[0]


def authors_build(pie_pairs: Sequence[Pair], pool: Sequence[PairRow], n: int, seed_r: int, r: int = 0) -> Repetition:
    """Repetition ``r`` built as the authors' released script builds one run, with one
    ``random.Random(seed_r)`` for every draw in its order: ``n`` PIE pairs drawn without
    replacement (positives, df_score 1), :func:`mismatch_pairs` for ``ds_orig`` and
    ``min(n, len(pool))`` mutants of ``pool`` (LoCaL's df = 0 mutants of every benchmark,
    :func:`lcl.study.rq2_pool.local_df0_pool`) for ``ds_replaced``. The script seeds run ``r``
    with a fixed base plus ``r``; ours come from :func:`repetition_seed` of the recorded seed."""
    if n > len(pie_pairs):
        raise ValueError(f"asked for {n} equivalent pairs, only {len(pie_pairs)} PIE pairs")
    rng = random.Random(seed_r)
    drawn = [pie_pairs[i] for i in rng.sample(range(len(pie_pairs)), n)]
    eq = [_row(p.id, p.reference, p.candidate, EQ, f"PIE/{_problem(p)}", 1.0) for p in drawn]
    neq = mismatch_pairs(eq, rng)
    mutants = [_mutant_row(pool[i]) for i in rng.sample(range(len(pool)), min(n, len(pool)))]

    def by_id(rows: list[PairRow]) -> list[PairRow]:
        return sorted(rows, key=lambda x: x["id"])

    return Repetition(r, seed_r, by_id(eq), by_id(neq), by_id(mutants))


def authors_repetitions(pie_pairs: Sequence[Pair], pool: Sequence[PairRow], n: int, k: int,
                        seed: int) -> list[Repetition]:
    """``k`` repetitions of :func:`authors_build` with seeds :func:`repetition_seed` (seed, r), all
    drawing their mutants from the one ``pool`` (the script samples each run's 100 from all of
    LoCaL's df = 0 mutants)."""
    return [authors_build(pie_pairs, pool, n, repetition_seed(seed, r), r) for r in range(k)]


def table4_repetitions(pie_pairs: Sequence[Pair], local_rows: Sequence[PairRow], n: int, k: int,
                       seed: int) -> list[Repetition]:
    """Table 4's repetitions (notebook 04's primary): :func:`authors_repetitions` over LoCaL's
    df = 0 mutants of every benchmark (:func:`lcl.study.rq2_pool.local_df0_pool` of ``local_rows``,
    LoCaL's pair rows); nothing is fuzzed."""
    return authors_repetitions(pie_pairs, local_df0_pool(local_rows)[0], n, k, seed)


def build(pie_pairs: Sequence[Pair], pool: Sequence[PairRow], n: int, seed_r: int, r: int = 0) -> Repetition:
    """Repetition ``r``: ``n`` equivalent pairs, ``n`` cross pairs (``ds_orig``) and ``min(n, len(pool))``
    df = 0 mutants of ``pool`` (``ds_replaced``; the repetition's own pool, :func:`repetition_pools`),
    all drawn with ``random.Random(seed_r)``."""
    rng = random.Random(seed_r)
    eq = equivalent_pairs(pie_pairs, n, rng)
    neq = cross_pairs(pie_pairs, n, rng)
    return Repetition(r, seed_r, eq, neq, mutant_rows(pool, n, rng))


def repetitions(pie_pairs: Sequence[Pair], pools: Sequence[Sequence[PairRow]], n: int, k: int,
                seed: int) -> list[Repetition]:
    """``k`` repetitions of :func:`build` with seeds :func:`repetition_seed` (seed, r); repetition
    ``r`` draws its mutants from ``pools[r]``, so every part of the construction is drawn afresh
    (Section 4.4.1: "we repeat the entire dataset construction")."""
    if len(pools) != k:
        raise ValueError(f"{k} repetitions need {k} mutant pools, got {len(pools)}")
    return [build(pie_pairs, pools[r], n, repetition_seed(seed, r), r) for r in range(k)]


def with_mutants(reps: Sequence[Repetition], pools: Sequence[Sequence[PairRow]], n: int) -> list[Repetition]:
    """The same repetitions (same equivalent and cross pairs) with ``ds_replaced``'s mutants drawn
    from other per-repetition ``pools`` (a sensitivity analysis of the mutant population)."""
    if len(pools) != len(reps):
        raise ValueError(f"{len(reps)} repetitions need {len(reps)} mutant pools, got {len(pools)}")
    return [replace(rep, neq_repl=mutant_rows(pool, n, seeds.rng(rep.seed, "alt-mutants")))
            for rep, pool in zip(reps, pools)]


def repetition_sets(reps: Sequence[Repetition], pools: dict[str, list[list[PairRow]]], populations: Sequence[str],
                    n: int, primary: str) -> dict[str, list[Repetition]]:
    """Every population's repetitions, keyed by population: ``reps`` (Table 4's, under ``primary``)
    first, then for each of ``populations`` the same equivalent and cross pairs with ``ds_replaced``'s
    mutants drawn from that population's per-repetition ``pools`` (:func:`with_mutants`), so the
    sensitivity rows differ from Table 4 in the mutants alone."""
    sets = {primary: list(reps)}
    for pop in populations:
        sets[pop] = with_mutants(reps, pools[pop], n)
    return sets


def repetition_seeds(reps: Sequence[Repetition]) -> list[int]:
    """The recorded seed of each repetition, in order."""
    return [rep.seed for rep in reps]


def overlap(reps: Sequence[Repetition]) -> float:
    """Mean share of a repetition's mutants that another repetition also uses (over all pairs of
    repetitions; 0 when every repetition's mutants are its own, NaN for fewer than two)."""
    sets = [{row["id"] for row in rep.neq_repl} for rep in reps]
    shares = [len(a & b) / min(len(a), len(b)) for i, a in enumerate(sets) for b in sets[i + 1:] if a and b]
    return float(np.mean(shares)) if shares else float("nan")


def union(reps: Sequence[Repetition]) -> list[PairRow]:
    """Every distinct pair used by any repetition (by id), to be scored once. An id met twice must
    name the same two programs (populations share ids with LoCaL's generator), else a score would
    be read for the wrong pair."""
    seen: dict[str, PairRow] = {}
    for rep in reps:
        for row in rep.eq + rep.neq_orig + rep.neq_repl:
            first = seen.setdefault(row["id"], row)
            if (first["reference"], first["candidate"]) != (row["reference"], row["candidate"]):
                raise ValueError(f"pair id {row['id']} names two different pairs")
    return [seen[k] for k in sorted(seen)]


def mean_lines(codes: Iterable[str]) -> float:
    """Mean number of non-blank lines (PIE's copy adds a blank line after every line, and the pool's
    references are ``ast.unparse`` output, so blank lines would not compare)."""
    counts = [sum(1 for line in code.splitlines() if line.strip()) for code in codes]
    return sum(counts) / len(counts) if counts else float("nan")


# ----------------------------------------------------------------------------- scores and Table 4
LONG_COLUMNS = ["repetition", "seed", "dataset", "metric", "n_eq", "n_neq", "eq_score", "neq_score", "d"]


def metric_columns(scored: pd.DataFrame) -> list[str]:
    """SurfaceSim (when present) then the CEM columns of a scored table."""
    return ([SURFACE_LABEL] if SURFACE_LABEL in scored.columns else []) + cem_columns(scored)


def repetition_scores(scored: pd.DataFrame, reps: Sequence[Repetition],
                      columns: Sequence[str] | None = None) -> pd.DataFrame:
    """Long table, one row per repetition, dataset and metric: mean score on the equivalent
    pairs (``eq_score``), on the non-equivalent pairs (``neq_score``), and ``d`` (Eq. 3), with group sizes.

    ``scored``: the union of all pairs with one column per metric (ids unique).
    """
    cols = list(columns) if columns is not None else metric_columns(scored)
    by_id = scored.set_index("id")
    if not by_id.index.is_unique:
        raise ValueError("scored pairs must have unique ids")
    rows = []
    for rep in reps:
        eq_ids = [p["id"] for p in rep.eq]
        for name, neq in ((ORIG, rep.neq_orig), (REPL, rep.neq_repl)):
            neq_ids = [p["id"] for p in neq]
            for col in cols:
                a = by_id.loc[eq_ids, col].to_numpy(float)
                b = by_id.loc[neq_ids, col].to_numpy(float)
                rows.append({"repetition": rep.r, "seed": rep.seed, "dataset": name, "metric": col,
                             "n_eq": len(a), "n_neq": len(b), "eq_score": float(np.mean(a)) if len(a) else np.nan,
                             "neq_score": float(np.mean(b)) if len(b) else np.nan,
                             "d": distinguishability(a, b) if len(a) and len(b) else np.nan})
    return pd.DataFrame(rows, columns=LONG_COLUMNS)


def _ms(values: pd.Series) -> tuple[float, float]:
    v = values.to_numpy(float)
    return float(np.mean(v)), float(np.std(v, ddof=1)) if len(v) > 1 else float("nan")


TABLE4_COLUMNS = ["metric", "repetitions", "EQ", "EQ std", "NEQ orig", "NEQ orig std", "d orig", "d orig std",
                  "NEQ repl", "NEQ repl std", "d repl", "d repl std", "n_eq", "n_neq_orig", "n_neq_repl", "drop %",
                  "drop % std"]


def table4(long: pd.DataFrame) -> pd.DataFrame:
    """Table 4: per metric, mean and std over repetitions of the EQ score, and of the NEQ score
    and d on each dataset; ``n_eq``/``n_neq_*`` are the pairs actually used (minimum over repetitions).

    d's mean is the mean of the per-repetition d's (each d = ratio of that repetition's means).
    """
    out: list[dict[str, Any]] = []
    for metric, g in long.groupby("metric", sort=False):
        o, rp = g[g.dataset == ORIG].sort_values("repetition"), g[g.dataset == REPL].sort_values("repetition")
        if not np.allclose(o["eq_score"].to_numpy(float), rp["eq_score"].to_numpy(float), equal_nan=True):
            raise ValueError(f"{metric}: equivalent pairs differ between the datasets")
        row: dict[str, Any] = {"metric": metric, "repetitions": int(o["repetition"].nunique())}
        row["EQ"], row["EQ std"] = _ms(o["eq_score"])
        row["NEQ orig"], row["NEQ orig std"] = _ms(o["neq_score"])
        row["d orig"], row["d orig std"] = _ms(o["d"])
        row["NEQ repl"], row["NEQ repl std"] = _ms(rp["neq_score"])
        row["d repl"], row["d repl std"] = _ms(rp["d"])
        row["n_eq"], row["n_neq_orig"] = int(o["n_eq"].min()), int(o["n_neq"].min())
        row["n_neq_repl"] = int(rp["n_neq"].min())
        per_rep = (o["d"].to_numpy(float) - rp["d"].to_numpy(float)) / o["d"].to_numpy(float) * 100.0
        row["drop % std"] = float(np.std(per_rep, ddof=1)) if len(per_rep) > 1 else float("nan")
        out.append(row)
    t = pd.DataFrame(out, columns=[c for c in TABLE4_COLUMNS if c != "drop %"])
    t.insert(len(t.columns) - 1, "drop %", drops(t))
    return t


def drops(table: pd.DataFrame) -> pd.Series:
    """Section 4.4.2: drop in distinguishability, ``(d_orig - d_repl) / d_orig * 100`` (mean d's)."""
    return (table["d orig"] - table["d repl"]) / table["d orig"] * 100.0


#: columns of :func:`against_constant`
CONSTANT_COLUMNS = ["metric", "dataset", "repetitions", "d mean", "d min", "d max", "above 1", "below 1", "reading"]


def against_constant(long: pd.DataFrame) -> pd.DataFrame:
    """Table 4 read against the trivial metric that gives every pair the same score.

    Eq. 3 of a constant metric is exactly 1 on every dataset (equal means), and its drop is 0%.
    So "d > 1 on ds_orig" says a CEM separates better than the constant, and "d < 1 on
    ds_replaced" says it ranks non-equivalent mutants *above* equivalent pairs, worse than the
    constant. Per metric and dataset: how many repetitions have d above and below 1, and the
    reading, which is a side of 1 only when every repetition is on it.
    """
    rows: list[dict[str, Any]] = []
    for (metric, dataset), g in long.groupby(["metric", "dataset"], sort=False):
        d = g["d"].to_numpy(float)
        d = d[np.isfinite(d)]
        above, below = int((d > 1).sum()), int((d < 1).sum())
        reading = ("above the constant (d > 1 in every repetition)" if len(d) and above == len(d) else
                   "below the constant (d < 1 in every repetition)" if len(d) and below == len(d) else
                   "not separated from the constant (repetitions on both sides of 1)" if len(d) else "no d")
        rows.append({"metric": metric, "dataset": dataset, "repetitions": len(d),
                     "d mean": float(np.mean(d)) if len(d) else np.nan, "d min": float(np.min(d)) if len(d) else np.nan,
                     "d max": float(np.max(d)) if len(d) else np.nan, "above 1": above, "below 1": below,
                     "reading": reading})
    return pd.DataFrame(rows, columns=CONSTANT_COLUMNS)


def fmt(mean: float, std: float, digits: int = 2) -> str:
    """``0.49 (±0.03)``, as the paper prints Table 4."""
    if not np.isfinite(mean):
        return "—"
    return f"{mean:.{digits}f} (±{std:.{digits}f})" if np.isfinite(std) else f"{mean:.{digits}f}"


#: Table 4 column -> claim-id suffix (``T4.<CEM>.<suffix>``; SurfaceSim: ``RQ2.surf.<suffix>``)
CLAIM_COLUMNS = {"EQ": "eq", "NEQ orig": "neq_orig", "d orig": "d_orig", "NEQ repl": "neq_repl", "d repl": "d_repl"}


TABLE4 = "table4_distinguishability"


#: "we repeat the entire dataset construction till the distinguishability calculation process 10
#: times and report the mean (± standard deviation) in Table 4" (Section 4.4)
PAPER_REPETITIONS = 10


def _t4_links() -> list[Link]:
    out = [Link(f"RQ2.surf.{CLAIM_COLUMNS[c]}", TABLE4, "metric", SURFACE_LABEL, c, std=f"{c} std",
                n="repetitions", paper_n=PAPER_REPETITIONS) for c in ("EQ", "NEQ orig", "NEQ repl")]
    for m in scoring.CEMS:
        label, name = scoring.label(m), scoring.paper_name(scoring.label(m))
        out += [Link(f"T4.{name}.{suffix}", TABLE4, "metric", label, col, std=f"{col} std", n="repetitions",
                     paper_n=PAPER_REPETITIONS) for col, suffix in CLAIM_COLUMNS.items()]
        out.append(Link(f"RQ2.drop.{name}", TABLE4, "metric", label, "drop %", std="drop % std", n="repetitions",
                        paper_n=PAPER_REPETITIONS))
    return out


#: the paired differences of two CEMs' drops over the same repetitions (:func:`drop_differences`)
DROP_DIFFS = "rq2_drop_differences"
#: Section 4.4.2's drop order, the paper's ranking of the CEMs by their drop in d (largest first):
#: every two of them in this order get a paired difference drop(a) - drop(b)
DROP_ORDER = ("CrystalBLEU", "CodeBLEU", "CodeScore", "CodeBERTScore")
DROP_DIFF_HOW = ("95% t interval over the repetitions of the per-repetition difference drop_r(a) - drop_r(b), "
                 "drop_r = (d_orig - d_repl) / d_orig * 100 of repetition r (both CEMs score the same pairs of each "
                 "repetition, so the difference is paired; no interval below two repetitions)")


def drop_diff_id(a: str, b: str) -> str:
    """The reading of drop(``a``) - drop(``b``) (paper CEM names), paired over the repetitions."""
    return f"aux.RQ2.diff.drop.{a}-{b}"


def _drop_diff_reading(cid: str) -> Derived:
    """``cid``'s row of :data:`DROP_DIFFS`: its value and its t interval over the repetitions."""
    return claim_links.id_row_reading(cid, DROP_DIFFS, DROP_DIFF_HOW)


#: Table 4's claims and Section 4.4's numbers: mean and std over the repetitions, as the paper reports;
#: the drop order's paired differences (:data:`DROP_DIFFS`)
CLAIMS: list[Link | Derived] = [*_t4_links(),
                                *(_drop_diff_reading(drop_diff_id(a, b))
                                  for i, a in enumerate(DROP_ORDER) for b in DROP_ORDER[i + 1:])]


#: columns of :func:`drop_differences`
DROP_DIFF_COLUMNS = ["id", "a", "b", "repetitions", "value", "CI low", "CI high", "std", "Table 4 drop % (a) - (b)"]


def per_repetition_drops(long: pd.DataFrame) -> pd.DataFrame:
    """Per repetition (rows) and metric (columns, Table 4's labels): the drop in d,
    ``(d_orig - d_repl) / d_orig * 100`` of that repetition (Section 4.4.2, one repetition's d's)."""
    d = long.pivot_table(index=["repetition", "metric"], columns="dataset", values="d", aggfunc="first")
    if ORIG not in d or REPL not in d:
        return pd.DataFrame()
    drop = ((d[ORIG] - d[REPL]) / d[ORIG] * 100.0).rename("drop")
    return drop.reset_index().pivot(index="repetition", columns="metric", values="drop").sort_index()


def drop_differences(long: pd.DataFrame, table: pd.DataFrame | None = None) -> pd.DataFrame:
    """The drop order's evidence (Section 4.4.2): for every two CEMs a, b in the paper's order
    (:data:`DROP_ORDER`), the mean over the repetitions of drop_r(a) - drop_r(b), the same
    repetition's drops subtracted (:func:`per_repetition_drops` of ``long``, the per-repetition
    table), with a 95% t interval over the repetitions (:data:`DROP_DIFF_HOW`). Two drops from the
    same repetitions are not independent, so their separate spreads do not test their order; the
    difference's interval does. ``table`` (:func:`table4`) adds the difference of its drops (from
    the mean d's) for comparison."""
    from scipy import stats as st

    drops = per_repetition_drops(long)
    by_name = {scoring.paper_name(c): c for c in drops.columns if scoring.paper_name(c) in DROP_ORDER}
    t4 = table.set_index("metric")["drop %"] if table is not None and len(table) else pd.Series(dtype=float)
    rows = []
    names = [n for n in DROP_ORDER if n in by_name]
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            diff = (drops[by_name[a]] - drops[by_name[b]]).to_numpy(float)
            diff = diff[np.isfinite(diff)]
            m = float(diff.mean()) if len(diff) else float("nan")
            sd = float(diff.std(ddof=1)) if len(diff) > 1 else float("nan")
            half = float(st.t.ppf(0.975, len(diff) - 1)) * sd / np.sqrt(len(diff)) if len(diff) > 1 else float("nan")
            rows.append({"id": drop_diff_id(a, b), "a": by_name[a], "b": by_name[b], "repetitions": len(diff),
                         "value": m, "CI low": m - half, "CI high": m + half, "std": sd,
                         "Table 4 drop % (a) - (b)": (float(t4[by_name[a]] - t4[by_name[b]])
                                                      if by_name[a] in t4.index and by_name[b] in t4.index
                                                      else float("nan"))})
    return pd.DataFrame(rows, columns=DROP_DIFF_COLUMNS)


def with_paper(table: pd.DataFrame) -> pd.DataFrame:
    """``table`` with the paper's values next to ours (``<column> (paper)``; from the claim
    declarations, never typed in). SurfaceSim has no paper d or drop."""
    return claim_links.add_paper_columns(table, CLAIMS, TABLE4)


# ----------------------------------------------------------------------------- pool reporting
#: the ``role`` of a row of :func:`population_rows`
PRIMARY, SENSITIVITY = "primary (Table 4)", "sensitivity"


def population_rows(tables: dict[str, pd.DataFrame], primary: str | None = None) -> pd.DataFrame:
    """``ds_replaced`` side by side per mutant population (Section 4.4.1 sensitivity): from each
    population's :func:`table4`, per metric the NEQ score and d on ``ds_replaced``, the drop and the
    mutants used per repetition, with the paper's values (:func:`with_paper`). ``role`` says which
    population is Table 4's (``primary``, listed first) and which are sensitivity rows."""
    cols = ["NEQ repl", "NEQ repl std", "d repl", "d repl std", "drop %", "n_neq_repl", "NEQ repl (paper)",
            "d repl (paper)", "drop % (paper)"]
    parts = []
    for population, t in tables.items():
        shown = with_paper(t)[["metric", *cols]].copy()
        shown.insert(1, "population", population)
        shown.insert(2, "role", PRIMARY if population == primary else SENSITIVITY)
        parts.append(shown)
    out = (pd.concat(parts, ignore_index=True) if parts
           else pd.DataFrame(columns=["metric", "population", "role", *cols]))
    order = {p: i for i, p in enumerate([primary, *(p for p in tables if p != primary)])}
    out = out.assign(_o=out.population.map(order)).sort_values(["metric", "_o"], kind="stable")
    return out.drop(columns="_o").reset_index(drop=True)


# ----------------------------------------------------------------------------- the paper's NEQ-repl SurfaceSim
def parses(code: str) -> bool:
    """Whether ``code`` parses as Python 3 (the grammar SurfaceSim's Sim_AST and our CEMs read)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse(code)
        return True
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False


#: columns of :func:`released_frame`, the input of :func:`released_surface`
RELEASED_FRAME_COLUMNS = ["reference", "candidate", "surface_sim", "surface_sim_published"]


def released_frame(pairs: Sequence[Pair]) -> pd.DataFrame:
    """The released LoCaL mutants with df_score exactly 0 among ``pairs`` (the mirror's part of the
    release), one row each in the order given: both programs, our SurfaceSim (Eq. 1, scored once for
    all of them) and the one the authors released beside the pair (``None`` where absent); the input
    of :func:`released_surface`, which reads the paper's NEQ-repl SurfaceSim (Section 4.4.1) on them."""
    mutants = [p for p in pairs if p.variant_type == "MUT" and p.df_score == 0.0]
    refs = [p.reference for p in mutants]
    cands = [p.candidate for p in mutants]
    return pd.DataFrame({
        "reference": refs, "candidate": cands,
        # warn=False: a side that does not parse is expected here (it gets Sim_AST = 0, which is the point)
        "surface_sim": surface_sim_many(refs, cands, warn=False),
        "surface_sim_published": [(p.extra.get("author_scores") or {}).get("surfaceSim") for p in mutants]},
        columns=RELEASED_FRAME_COLUMNS)


#: columns of :func:`released_surface`
RELEASED_COLUMNS = ["mutants", "SurfaceSim by", "pairs", "do not parse", "share not parsing", "SurfaceSim all",
                    "SurfaceSim parseable", "SurfaceSim not parsing"]


def released_surface(pairs: pd.DataFrame, draws: Sequence[Sequence[int]]) -> pd.DataFrame:
    """The paper's NEQ-repl SurfaceSim (Section 4.4.1) read on the authors' own population: the
    released LoCaL mutants with df_score = 0 (``pairs``: one row each, columns ``reference``,
    ``candidate``, ``surface_sim`` (ours, Eq. 1) and ``surface_sim_published`` (the authors')).

    A side that does not parse under Python 3 gets Sim_AST = 0 (Eq. 1 has no AST to compare), so
    such a pair scores about half its edit similarity and pulls the group's mean down: the rows
    give the mean over all pairs, over the pairs whose two sides parse, and over the others, with
    the share that does not parse. Two samples: every distinct released mutant, and ``draws``
    (per repetition, row positions drawn as the authors' script draws 100 per run; a mutant drawn
    twice counts twice, as it does in their mean)."""
    ok = np.array([parses(r) and parses(c) for r, c in zip(pairs["reference"], pairs["candidate"], strict=True)],
                  dtype=bool)
    idx_all = np.arange(len(pairs))
    samples = {"each released one once": idx_all,
               f"drawn as the script draws ({len(draws)} x {max((len(d) for d in draws), default=0)})":
               np.array([i for d in draws for i in d], dtype=int)}
    rows: list[dict[str, Any]] = []
    for name, idx in samples.items():
        for by, col in (("ours (Eq. 1)", "surface_sim"), ("the authors' (released)", "surface_sim_published")):
            v = pairs[col].to_numpy(float)[idx] if len(idx) else np.array([], float)
            good = ok[idx] if len(idx) else np.array([], bool)

            def mean(mask: np.ndarray, v: np.ndarray = v) -> float:
                x = v[mask]
                x = x[np.isfinite(x)]
                return float(np.mean(x)) if len(x) else float("nan")

            rows.append({"mutants": name, "SurfaceSim by": by, "pairs": int(len(idx)),
                         "do not parse": int((~good).sum()),
                         "share not parsing": float((~good).mean()) if len(idx) else float("nan"),
                         "SurfaceSim all": mean(np.ones(len(idx), bool)), "SurfaceSim parseable": mean(good),
                         "SurfaceSim not parsing": mean(~good)})
    return pd.DataFrame(rows, columns=RELEASED_COLUMNS)


def script_draws(n_pool: int, n: int, k: int, seed: int) -> list[list[int]]:
    """Positions of a pool of ``n_pool`` mutants drawn as the authors' script draws ``ds_replaced``:
    ``min(n, n_pool)`` without replacement per run, a fresh sample each of ``k`` runs (seeds
    :func:`repetition_seed`; the script's own draw also follows its PIE draws in one stream, which
    needs its full LoCaL, so only the sampling rule is followed)."""
    return [seeds.rng(repetition_seed(seed, r), "rq2-released").sample(range(n_pool), min(n, n_pool))
            for r in range(k)]


def plot_distinguishability(table: pd.DataFrame, repetitions: int) -> Figure:
    """Figure: Table 4's distinguishability d (Eq. 3) per CEM on ds_orig and ds_replaced, mean ± std
    over the ``repetitions`` (bars, log scale), the paper's values as open diamonds and d = 1 dashed;
    ``table`` is :func:`with_paper` of :func:`table4` (the SurfaceSim row is left out)."""
    import matplotlib.pyplot as plt

    cem = table[table.metric != SURFACE_LABEL].reset_index(drop=True)
    x = np.arange(len(cem))
    fig, ax = plt.subplots(figsize=(6.5, 4))
    for off, col, label, color in ((-0.18, "d orig", "ds_orig", "tab:blue"), (0.18, "d repl", "ds_replaced", "tab:red")):
        ax.bar(x + off, cem[col], width=0.34, yerr=cem[f"{col} std"].fillna(0), capsize=3, color=color, alpha=0.8,
               label=f"{label} (ours)")
        ax.scatter(x + off, cem[f"{col} (paper)"], marker="D", facecolors="none", edgecolors="k", zorder=3,
                   label="paper" if col == "d orig" else None)
    ax.axhline(1.0, color="k", lw=1, ls="--")
    ax.set_xticks(x, [scoring.paper_name(m) + ("*" if m != scoring.paper_name(m) else "") for m in cem.metric])
    ax.set_yscale("log")
    ax.set_ylabel("distinguishability d (Eq. 3, log scale)")
    ax.set_title(f"RQ2: d per CEM (mean ± std over {repetitions} repetitions)")
    ax.legend(frameon=False, fontsize=8)
    # as the axis label, not a text in the panel, so a panel without bars still reads as empty
    ax.set_xlabel("* substitute: MiniLM / retrained CodeScore-style", fontsize=7, loc="left")
    fig.tight_layout()
    return fig
