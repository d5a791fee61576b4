"""What notebook 04 says about RQ2 (Section 4.4, Table 4), computed from its tables.

Every sentence here is built from the numbers of :mod:`lcl.rq.distinguish` (Table 4, Eq. 3) and
the mutant pools of :mod:`lcl.study.rq2_pool`, so it changes when the data do; the paper's values
come from the ``(paper)`` columns, never typed in. The notebook holds the words that do not depend
on data and shows what these functions return.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from lcl.study import scoring
from lcl.study.rq2_pool import LOCAL, LOCAL_DF0, PIE_PAIRS, candidates_per_df0, fuzz_cost
from lcl.study.sources import not_computed

from .distinguish import ORIG, REPL, SURFACE_LABEL, Repetition, fmt, mean_lines, repetition_scores, table4, union

#: the mutant populations as the notebook names them
POPULATION_NAMES = {LOCAL_DF0: "LoCaL's df = 0 mutants, every benchmark (the authors' script)",
                    PIE_PAIRS: "fresh mutants of the slow programs of the PIE pairs",
                    LOCAL: "fresh mutants of LoCaL's 100 PIE slow programs"}


# ----------------------------------------------------------------------------- tables shown
def counted(counts: Mapping[str, int]) -> list[str]:
    """``what = count`` per entry of a ledger (the notes under Table 4)."""
    return [f"{what} = {c}" for what, c in counts.items()]


def count_table(counts: Mapping[str, int]) -> pd.DataFrame:
    """A ledger (``what`` -> count, e.g. :func:`lcl.study.rq2_pool.local_df0_pool`'s) as a two-column
    table, ``what`` and ``count``, one row per entry in the ledger's order."""
    return pd.DataFrame([{"what": w, "count": c} for w, c in counts.items()])


def ledger_notes(ledger: pd.DataFrame) -> list[str]:
    """One note per row of :func:`lcl.study.rq2_pool.ledger_frame`: ``what = r0, r1, ... (per repetition)``."""
    return [f"{r['what']} = {', '.join(str(r[c]) for c in ledger.columns[1:])} (per repetition)"
            for _, r in ledger.iterrows()]


def short_repetitions(pools: Sequence[Sequence[Any]], n: int) -> list[int]:
    """Repetitions whose pool has fewer than ``n`` df = 0 mutants."""
    return [r for r, pool in enumerate(pools) if len(pool) < n]


def cost_designs(sample: Mapping[str, float], k: int, n: int) -> pd.DataFrame:
    """:func:`lcl.study.rq2_pool.fuzz_cost` of one fixed pool of 300 (the previous design) and of
    ``k`` x ``n`` fresh mutants (each repetition its own, Section 4.4.1)."""
    needs = {"one fixed pool of 300 (the previous design)": 300, f"{k} x {n}: each repetition its own": k * n}
    return pd.DataFrame([{"design": d, "df = 0 mutants": m, **fuzz_cost(dict(sample), m)} for d, m in needs.items()])


def score_populations(rep_sets: Mapping[str, Sequence[Repetition]], model: Any
                      ) -> tuple[dict[str, pd.DataFrame], dict[str, int], dict[str, pd.DataFrame]]:
    """Every population's repetitions scored as one union (:func:`lcl.rq.distinguish.union`; the
    populations share their equivalent and cross pairs, so those are scored once): the long
    per-repetition table of each population, its number of distinct pairs and its scored pairs."""
    every = union([rep for reps in rep_sets.values() for rep in reps])
    frame = scoring.pairs_frame(every)
    scored = scoring.score_frame(frame, codescore_model=model) if len(frame) else frame
    longs: dict[str, pd.DataFrame] = {}
    n_scored: dict[str, int] = {}
    scored_by: dict[str, pd.DataFrame] = {}
    for pop, reps in rep_sets.items():
        ids = {row["id"] for row in union(reps)}
        scored_by[pop] = scored[scored["id"].isin(ids)].reset_index(drop=True) if len(scored) else scored
        longs[pop], n_scored[pop] = repetition_scores(scored_by[pop], reps), len(ids)
    return longs, n_scored, scored_by


def crystalbleu_sensitivity(scored: pd.DataFrame, reps: Sequence[Repetition]) -> pd.DataFrame:
    """Table 4's CrystalBLEU with the per-pair ignore set (the paper's) beside the corpus one."""
    if not len(scored):
        return pd.DataFrame(columns=["metric"])
    crystal = scoring.score_frame(scored, names=scoring.SENSITIVITY, progress=False)
    return table4(repetition_scores(crystal, reps,
                                    columns=[scoring.label("crystalbleu"), *scoring.sensitivity_columns(crystal)]))


def shown_table4(t4: pd.DataFrame) -> pd.DataFrame:
    """Table 4 as the paper prints it: ``mean (±std)`` per cell, the paper's d and drop beside ours."""
    def both(col: str) -> list[str]:
        return [fmt(m, s) for m, s in zip(t4[col], t4[f"{col} std"], strict=True)]

    return pd.DataFrame({
        "metric": t4.metric, "EQ": both("EQ"), "NEQ ds_orig": both("NEQ orig"), "d ds_orig": both("d orig"),
        "NEQ ds_replaced": both("NEQ repl"), "d ds_replaced": both("d repl"), "drop %": t4["drop %"].round(1),
        "d ds_orig (paper)": t4["d orig (paper)"], "d ds_replaced (paper)": t4["d repl (paper)"],
        "drop % (paper)": t4["drop % (paper)"],
    })


def population_tables(longs: Mapping[str, pd.DataFrame]) -> dict[str, pd.DataFrame]:
    """Table 4 of each population, keyed by the population's name."""
    return {POPULATION_NAMES[pop]: table4(long) for pop, long in longs.items()}


def mutated_lines(pools: Mapping[str, Sequence[Sequence[Mapping[str, Any]]]]) -> dict[str, float]:
    """Mean non-blank lines of the programs each population's kept mutants come from."""
    return {pop: mean_lines(m["reference"] for pool in pools_r for m in pool) for pop, pools_r in pools.items()}


def population_notes(lines: Mapping[str, float]) -> list[str]:
    return [f"{POPULATION_NAMES[pop]}: mutated programs of mean {v:.1f} non-blank lines" for pop, v in lines.items()]


# ----------------------------------------------------------------------------- sentences
def cems(t4: pd.DataFrame) -> pd.DataFrame:
    """Table 4's CEM rows (SurfaceSim left out)."""
    return t4[t4.metric != SURFACE_LABEL].reset_index(drop=True)


def surface_sentence(t4: pd.DataFrame) -> list[str]:
    """SurfaceSim of the three groups beside the paper's: do the df = 0 mutants look more alike
    than the equivalent pairs (the premise of ``ds_replaced``)?"""
    if SURFACE_LABEL not in set(t4.metric):
        return []
    s = t4.set_index("metric").loc[SURFACE_LABEL]
    return [f"- SurfaceSim: equivalent pairs {fmt(s['EQ'], s['EQ std'])} (paper {s['EQ (paper)']}), cross pairs "
            f"{fmt(s['NEQ orig'], s['NEQ orig std'])} ({s['NEQ orig (paper)']}), df = 0 mutants "
            f"{fmt(s['NEQ repl'], s['NEQ repl std'])} ({s['NEQ repl (paper)']}): the replaced non-equivalents look "
            f"{'more' if s['NEQ repl'] > s['EQ'] else 'less'} alike than the equivalent pairs."]


def primary_sentences(pool_counts: Mapping[str, int], n_pool: int, n: int, k: int) -> list[str]:
    """Which population Table 4 is built from (the authors' script's), and what our LoCaL holds of it."""
    if not n_pool:
        return [not_computed(f"Table 4 on {POPULATION_NAMES[LOCAL_DF0]} (no LoCaL mutant with df_score = 0 here)")]
    prefix = "kept (df_score = 0): "
    by_bench = ", ".join(f"{k_[len(prefix):]} {v}" for k_, v in pool_counts.items() if k_.startswith(prefix))
    return [f"- Table 4 and every RQ2 claim come from {POPULATION_NAMES[LOCAL_DF0]}: {k} repetitions, each drawing "
            f"{n} PIE pairs, their mismatched cross pairs and {min(n, n_pool)} of the {n_pool} mutants with "
            f"df_score = 0 in our LoCaL ({by_bench}); the other populations are sensitivity rows."]


def table4_sentences(t4: pd.DataFrame, k: int, population: str = LOCAL_DF0) -> list[str]:
    """Which CEMs keep d > 1 on ds_orig and fall below 1 on ds_replaced, the drops, mean scores,
    the ranking by drop and the sizes, ours beside the paper's, naming the population."""
    cem = cems(t4)
    name = scoring.paper_name
    above = [name(m) for m, d in zip(cem.metric, cem["d orig"], strict=True) if d > 1]
    below = [name(m) for m, d in zip(cem.metric, cem["d repl"], strict=True) if d < 1]
    order = [name(m) for m in cem.sort_values("drop %", ascending=False).metric]
    paper_order = [name(m) for m in cem.sort_values("drop % (paper)", ascending=False).metric]
    means = "; ".join(
        f"{name(r['metric'])} {r['EQ']:.2f} ({r['EQ (paper)']}) / {r['NEQ orig']:.2f} ({r['NEQ orig (paper)']}) / "
        f"{r['NEQ repl']:.2f} ({r['NEQ repl (paper)']})" for _, r in cem.iterrows())
    return [
        f"- Table 4 (mutants: {POPULATION_NAMES[population]}): d > 1 on ds_orig: {', '.join(above) or 'none'} "
        f"of {len(cem)} CEMs (paper: all four).",
        f"- d < 1 on ds_replaced: {', '.join(below) or 'none'} of {len(cem)} (paper: all four).",
        "- Drop in d: " + ", ".join(f"{name(r['metric'])} {r['drop %']:.1f}% (paper {r['drop % (paper)']})"
                                    for _, r in cem.iterrows()) + ".",
        f"- Mean scores, ours (paper) as EQ / NEQ ds_orig / NEQ ds_replaced: {means}.",
        f"- Ranking by drop: ours {' > '.join(order)}; paper {' > '.join(paper_order)}.",
        f"- Sizes: {t4.n_eq.min()} equivalent / {t4.n_neq_orig.min()} cross / {t4.n_neq_repl.min()} "
        f"mutant pairs per repetition (fewest over repetitions), {k} repetitions (paper: 100/100/100, 10).",
    ]


def population_sentences(t4: pd.DataFrame, tables: Mapping[str, pd.DataFrame],
                         pools: Mapping[str, Sequence[Sequence[Mapping[str, Any]]]],
                         reps: Sequence[Repetition]) -> list[str]:
    """Per mutant population: the mutants' SurfaceSim beside the paper's, how many programs of
    what length they come from (against the equivalent pairs' slow programs) and each CEM's
    score on them."""
    surf_paper = (t4.set_index("metric").loc[SURFACE_LABEL, "NEQ repl (paper)"]
                  if SURFACE_LABEL in set(t4.metric) else "—")
    eq_lines = mean_lines({row["reference"] for rep in reps for row in rep.eq})
    lines_of = mutated_lines(pools)
    out = []
    for pop, pools_r in pools.items():
        t_pop = tables[POPULATION_NAMES[pop]].set_index("metric")
        if SURFACE_LABEL not in t_pop.index or not any(pools_r):
            continue
        s_pop = t_pop.loc[SURFACE_LABEL]
        neq = ", ".join(f"{scoring.paper_name(m)} {t_pop.loc[m, 'NEQ repl']:.2f}" for m in cems(t4).metric
                        if m in t_pop.index)
        d = ", ".join(f"{scoring.paper_name(m)} {fmt(t_pop.loc[m, 'd repl'], t_pop.loc[m, 'd repl std'])}"
                      for m in cems(t4).metric if m in t_pop.index)
        programs = len({m["task"] for pool in pools_r for m in pool})
        out.append(f"- {POPULATION_NAMES[pop]}: SurfaceSim {fmt(s_pop['NEQ repl'], s_pop['NEQ repl std'])}"
                   f" (paper {surf_paper}), from {programs} programs of mean {lines_of[pop]:.0f} non-blank lines "
                   f"(slow programs of the equivalent pairs: {eq_lines:.0f}); NEQ score on ds_replaced: {neq}; "
                   f"d on ds_replaced: {d}.")
    return out


def released_sentences(released: pd.DataFrame, paper: float) -> list[str]:
    """The paper's NEQ-repl SurfaceSim (``paper``) against the released df = 0 mutants
    (:func:`lcl.rq.distinguish.released_surface`): how many do not parse under Python 3, the
    authors' and our SurfaceSim over all of them and over the parseable ones, and which of the two
    means the paper's value is nearer."""
    if not len(released) or not released["pairs"].max():
        return [not_computed("the paper's NEQ-repl SurfaceSim on the released LoCaL mutants with df_score = 0")]
    out = []
    for _, r in released.iterrows():
        near = ("all of them" if abs(r["SurfaceSim all"] - paper) < abs(r["SurfaceSim parseable"] - paper)
                else "the parseable ones")
        out.append(f"- Released LoCaL mutants with df_score = 0, {r['mutants']}, SurfaceSim {r['SurfaceSim by']}: {r['do not parse']} "
                   f"of {r['pairs']} ({r['share not parsing']:.1%}) do not parse under Python 3 and score "
                   f"{r['SurfaceSim not parsing']:.3f}; the mean is {r['SurfaceSim all']:.3f} over all, "
                   f"{r['SurfaceSim parseable']:.3f} over the parseable ones; the paper's {paper} is nearer "
                   f"the mean over {near}.")
    return out


def constant_sentence(vs_constant: pd.DataFrame, metrics: Sequence[str]) -> list[str]:
    """:func:`lcl.rq.distinguish.against_constant` in one line: per CEM, the repetitions above 1 on
    ds_orig and below 1 on ds_replaced."""
    sides = {(r["metric"], r["dataset"]): r for _, r in vs_constant.iterrows()}
    parts = [f"{scoring.paper_name(m)} ds_orig {sides[(m, ORIG)]['above 1']} of {sides[(m, ORIG)]['repetitions']} "
             f"repetitions above 1, ds_replaced {sides[(m, REPL)]['below 1']} of {sides[(m, REPL)]['repetitions']} "
             "below 1" for m in metrics if (m, ORIG) in sides and (m, REPL) in sides]
    return ["- Against a constant score (d = 1 in every repetition): " + "; ".join(parts) + "."] if len(vs_constant) \
        else []


def overlap_sentence(shared: float, reps: Sequence[Repetition]) -> list[str]:
    if not reps:
        return []
    n = max(len(rep.neq_repl) for rep in reps)
    return [f"- Each repetition samples its df = 0 mutants afresh; on average {shared:.0%} of one repetition's "
            "mutants are used by another one too (0% would be fully disjoint draws). This is a property of the "
            f"construction (the pool's size against the {n} each repetition needs), not evidence for any claim."]


def cost_sentences(cost: Mapping[str, Any] | None, k: int, n: int, cap: int | None,
                   ledgers: Sequence[Counter]) -> list[str]:
    """The measured fuzzing cost extrapolated to ``k`` x ``n`` fresh mutants, and the rate the
    repetitions realised (:func:`lcl.study.rq2_pool.candidates_per_df0`)."""
    out = []
    if cost:
        sample = cost["sample"]
        fresh = fuzz_cost(sample, k * n)
        out.append(
            f"- Fuzzing cost (measured at the full profile on {sample['candidates']:.0f} candidates of this "
            f"population, {sample['df0']:.0f} with df = 0): {fresh['CPU s per candidate']:.1f} CPU s per "
            f"candidate and {fresh['candidates per df = 0 mutant']:.1f} candidates per df = 0 mutant, so {k} x {n} "
            f"fresh mutants need about {fresh['candidates needed']:.0f} candidates, {fresh['CPU hours']:.1f} CPU-hours. "
            + (f"This profile's population is therefore the first {cap} candidates of the population's seeded "
               "order, the ones whose labels are archived; the repetitions draw from those." if cap else ""))
    realised = candidates_per_df0(ledgers)
    if math.isfinite(realised):
        out.append(f"- Realised in this profile's repetitions: {realised:.1f} candidates examined per df = 0 mutant "
                   "kept (screened ones included).")
    return out


def low_equivalent_scores(t4: pd.DataFrame) -> list[str]:
    """CEMs whose mean score on the equivalent pairs is under half the paper's."""
    cem = cems(t4)
    return [scoring.paper_name(m) for m, e, pe in zip(cem.metric, cem["EQ"], cem["EQ (paper)"], strict=True)
            if e < 0.5 * pe]
