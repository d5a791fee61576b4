"""RQ2: distinguishability of the CEMs on ``ds_orig`` and ``ds_replaced`` (paper Section 4.4, Table 4).

Setup (Section 4.4.1, following Eghbali and Pradel, 2023):

- ``ds_orig``: ``n`` PIE equivalent pairs (slow program, fast program of the same problem) and
  ``n`` cross-paired non-equivalent pairs (the slow program of problem A with the fast program of
  a different problem B), drawn at random.
- ``ds_replaced``: the same ``n`` equivalent pairs and ``n`` mutants of PIE slow programs (MutPy,
  generated as the LoCaL mutants are, :func:`lcl.study.candidate_generation.candidates`) whose ``df_score`` is
  exactly 0 (Algorithm 1 with the profile's N and R; only PIE problems whose input spec is
  reviewed, verified and non-empty are mutated). The mutated programs are the slow programs of
  the PIE pairs the other pairs are drawn from (``PIE_PAIRS``); LoCaL's own 100 (``LOCAL``) are
  a second population for a sensitivity analysis.

The whole construction is repeated with recorded seeds ("we repeat the entire dataset
construction", Section 4.4.1): each repetition draws its own equivalent pairs, cross pairs and
df = 0 mutants (:func:`repetition_pools`: the population's candidates in the repetition's own
order, fuzzed until ``n`` have df = 0). Every program, on either side of any pair, is in one text
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

import random
import warnings
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from lcl.core import claim_links, seeds
from lcl.core.claim_links import Link
from lcl.core.records import Pair, PairRow
from lcl.engine.stats import distinguishability
from lcl.study import scoring
from lcl.study.candidate_generation import strip_docstrings
from lcl.study.rq2_pool import repetition_seed
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


def _row(pid: str, ref: str, cand: str, kind: str, task: str | None, df: float | None) -> PairRow:
    return {"id": pid, "dataset": "RQ2", "benchmark": "PIE", "task": task, "level": "program",
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
    return [_row(pool[i]["id"], pool[i]["reference"], pool[i]["candidate"], NEQ_MUT,
                 pool[i].get("task"), pool[i].get("df_score")) for i in picked]


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
    """Every distinct pair used by any repetition (by id), to be scored once."""
    seen: dict[str, PairRow] = {}
    for rep in reps:
        for row in rep.eq + rep.neq_orig + rep.neq_repl:
            seen.setdefault(row["id"], row)
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


#: Table 4's claims and Section 4.4's numbers: mean and std over the repetitions, as the paper reports
CLAIMS: list[Link] = _t4_links()


def with_paper(table: pd.DataFrame) -> pd.DataFrame:
    """``table`` with the paper's values next to ours (``<column> (paper)``; from the claim
    declarations, never typed in). SurfaceSim has no paper d or drop."""
    return claim_links.add_paper_columns(table, CLAIMS, TABLE4)


# ----------------------------------------------------------------------------- pool reporting
def population_rows(tables: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """``ds_replaced`` side by side per mutant population (Section 4.4.1 sensitivity): from each
    population's :func:`table4`, per metric the NEQ score and d on ``ds_replaced`` and the drop,
    with the paper's values (:func:`with_paper`)."""
    cols = ["NEQ repl", "NEQ repl std", "d repl", "d repl std", "drop %", "NEQ repl (paper)", "d repl (paper)",
            "drop % (paper)"]
    parts = []
    for population, t in tables.items():
        shown = with_paper(t)[["metric", *cols]].copy()
        shown.insert(1, "population", population)
        parts.append(shown)
    out = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=["metric", "population", *cols])
    return out.sort_values(["metric", "population"], kind="stable").reset_index(drop=True)


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
