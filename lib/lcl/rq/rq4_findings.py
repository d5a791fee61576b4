"""What notebook 06 computes around Table 5 (RQ4, Section 4.6) and says about it.

The evaluation sets scored, the authors' own values' MAE, the metric groups of the aggregates,
the sensitivity sets, the worst benchmark per metric and the "What we found" sentences, all from
the tables of :mod:`lcl.rq.effectiveness`; the paper's values come from the claims data
(:func:`lcl.core.claim_links.paper_value`), never typed in.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from lcl.core.claim_links import PAPER_CEMS, paper_value
from lcl.study import scoring
from lcl.study.sources import not_computed

from . import effectiveness as eff
from .effectiveness import curated, worst_benchmark

#: the optimised and mutated subsets of a scored set, as Table 5 names them
KINDS = (("opt", "OPT"), ("mut", "MUT"))


def sizes(sets: Mapping[str, pd.DataFrame]) -> dict[str, int]:
    return {name: len(frame) for name, frame in sets.items()}


def score_sets(sets: Mapping[str, pd.DataFrame], model: Any) -> dict[str, pd.DataFrame]:
    """Every evaluation set scored by the CEMs (Java for ShareCode_java: no CodeScore there, as in the paper)."""
    return {name: scoring.score_frame(frame, codescore_model=model, lang="java" if name.endswith("java") else "python")
            for name, frame in sets.items()}


def author_mae(auth: pd.DataFrame) -> pd.DataFrame:
    """MAE of the authors' own metric values (:func:`lcl.rq.effectiveness.author_scores`) against
    the labels on the published pairs, in all and per kind."""
    cols = [c for c in PAPER_CEMS if c in auth]
    groups = (("all", auth), ("OPT", auth[auth.variant_type == "OPT"]), ("MUT", auth[auth.variant_type == "MUT"]))
    return pd.DataFrame([{"Dataset": f"LoCaL_published{'' if k == 'all' else '_' + k.lower()} (authors' scores)",
                          "n": len(g), **{c: round(float(np.mean(np.abs(g[c] - g.df_score))), 3) for c in cols}}
                         for k, g in groups if len(g)])


def substitutes() -> list[str]:
    """Column labels of the CEMs we substitute (MiniLM for CodeBERT, the retrained CodeScore-style model)."""
    return [scoring.label(n) for n in scoring.SUBSTITUTE_CEMS]


def metric_groups(cems: Sequence[str]) -> dict[str, list[str]]:
    """The aggregates' metric sets: all four CEMs, and those that are not substitutes."""
    subs = substitutes()
    return {"all four CEMs": list(cems), "not substitutes": [c for c in cems if c not in subs]}


def paper_table5(cems: Sequence[str]) -> dict[str, tuple[float, float]]:
    """Per CEM, the paper's Table 5 MAE on LoCaL and on CodeScore_test."""
    return {c: (paper_value(f"T5.LoCaL.{scoring.paper_name(c)}"),
                paper_value(f"T5.CodeScore_test.{scoring.paper_name(c)}")) for c in cems}


def with_kinds(sets: Mapping[str, pd.DataFrame]) -> dict[str, pd.DataFrame]:
    """Each set followed by its optimised and mutated subsets (``<name>_opt``, ``<name>_mut``)."""
    out: dict[str, pd.DataFrame] = {}
    for name, frame in sets.items():
        out[name] = frame
        out.update({f"{name}_{suffix}": frame[frame.variant_type == kind] for suffix, kind in KINDS})
    return out


def sensitivity_sets(baseline: pd.DataFrame, local: pd.DataFrame, local_all: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """Table 5's headline rows on LoCaL, LoCaL-curated and LoCaL-all (each with its kinds), beside
    CodeScore_test, each scored again with the sensitivity metrics (CrystalBLEU[corpus], per set)."""
    sets = {"CodeScore_test": baseline,
            **with_kinds({"LoCaL": local, "LoCaL-curated": curated(local_all), "LoCaL-all": local_all})}
    return {k: scoring.score_frame(f, names=scoring.SENSITIVITY, progress=False) for k, f in sets.items()}


def sensitivity_columns(cems: Sequence[str], sets: Mapping[str, pd.DataFrame]) -> list[str]:
    return [*cems, *scoring.sensitivity_columns(next(iter(sets.values())))]


def worst_benchmarks(by_bench: pd.DataFrame, by_bench_kind: pd.DataFrame, cems: Sequence[str]) -> pd.DataFrame:
    """Per CEM, the benchmark with the largest MAE overall and within each kind."""
    return pd.DataFrame([{"Metric": c, "worst overall": worst_benchmark(by_bench, c).get("all"),
                          **{f"worst within {k}": b for k, b in worst_benchmark(by_bench_kind, c).items()}}
                         for c in cems])


def baseline_mae(t5: pd.DataFrame, cems: Sequence[str]) -> dict[str, float]:
    """Each CEM's Table 5 MAE on CodeScore_test (the comparator of "the CEM errs more on LoCaL")."""
    t = t5.set_index("Dataset")
    return {c: t.loc["CodeScore_test", c] for c in cems if "CodeScore_test" in t.index}


def found(t5: pd.DataFrame, inc: pd.DataFrame, inc_groups: pd.DataFrame, worst: pd.DataFrame,
          worst_by_kind: pd.DataFrame, by_bench_kind: pd.DataFrame, cems: Sequence[str], worst_k: int,
          ints: pd.DataFrame | None = None) -> list[str]:
    """The "What we found" sentences of notebook 06, each from the tables above (``ints``:
    :func:`lcl.rq.effectiveness.intervals`, the aggregates over the metrics that are not
    substitutes with their intervals over pairs, where computed)."""
    t = t5.set_index("Dataset")
    harder = [c for c in cems if t.loc["LoCaL", c] > t.loc["CodeScore_test", c]]
    both = t.loc[["LoCaL", "CodeScore_test"], list(cems)].notna().to_numpy().all()
    subs = substitutes()
    groups = inc_groups.set_index("Metrics")
    return [
        (f"- LoCaL is harder than CodeScore_test for {len(harder)} of {len(cems)} CEMs "
         "(" + ", ".join(f"{c}: {t.loc['CodeScore_test', c]:.2f} -> {t.loc['LoCaL', c]:.2f}" for c in cems) + ")."
         if both else not_computed("LoCaL against the CodeScore_test baseline")),
        (f"- Mean MAE increase over all the CEMs, substitutes included: {inc['increase'].mean():.3f} (paper "
         f"{paper_value('RQ4.mean_mae_increase')} over its four); not judged, as it mixes the substitutes in."
         if inc["increase"].notna().any() else not_computed("the mean MAE increase")),
        ("- Over the metrics that are not substitutes ({}): mean increase {} (the paper's Table 5 on the same "
         "metrics: {}); ratio order {} (paper: {}).".format(
             ", ".join(c for c in cems if c not in subs), *groups.loc[
                 "not substitutes", ["mean increase", "mean increase (paper's Table 5)", "ratio order (ours)",
                                     "ratio order (paper's Table 5)"]])
         if groups.loc["not substitutes", "n"] else
         not_computed("the increase over the metrics that are not substitutes")),
        ("- Worst benchmark per CEM, overall / within the mutants / within the optimised variants: " + "; ".join(
            f"{r['Metric']} {r['worst overall']} / {r.get('worst within MUT')} / {r.get('worst within OPT')}"
            for _, r in worst_by_kind.iterrows()) + "." if len(by_bench_kind) else
         not_computed("the MAE per benchmark within each kind")),
        "- Mutants are where every CEM fails: MAE on LoCaL_mut "
        + ", ".join(f"{c} {t.loc['LoCaL_mut', c]:.2f}" for c in cems) + ".",
        f"- The {worst_k} worst pairs per metric have mean |SurfaceSim - df_score| between "
        f"{worst['mean |SurfaceSim - df_score|'].min():.2f} and {worst['mean |SurfaceSim - df_score|'].max():.2f} "
        f"(paper {paper_value('RQ4.worst100_gap')}): the errors sit where surface and behaviour disagree.",
        *_ties(worst, worst_k),
        *_aggregates(ints),
    ]


def _ties(worst: pd.DataFrame, k: int) -> list[str]:
    """How much the worst-``k`` gap depends on breaking ties at the cut by id (rq4_worst_cases' tie columns)."""
    if eff.TIED not in worst or not len(worst):
        return []
    parts = [f"{r['Metric']}: {r[eff.TIED_IN]} of {r[eff.TIED]} tied rows picked, gap {r['mean |SurfaceSim - df_score|']:.3f}"
             f" by id vs {r[eff.TIES_AVERAGED]:.3f} with the tied rows averaged" for _, r in worst.iterrows()
             if r[eff.TIED] > r[eff.TIED_IN]]
    return [f"- Ties at the {k}th error, broken by id (the authors keep file order): "
            + ("; ".join(parts) if parts else "no tied row is left out for any metric, so the tie-break changes "
               "nothing") + "."]


def _aggregates(ints: pd.DataFrame | None) -> list[str]:
    """The judged aggregates (over the metrics that are not substitutes) with their intervals over pairs."""
    if ints is None or not len(ints):
        return []
    t = ints.set_index("id")
    out = []
    for cid, what in (("RQ4.mean_mae_increase", "mean MAE increase"),
                      ("RQ4.worst100_gap", "worst cases' mean |SurfaceSim - df_score|")):
        if cid in t.index:
            r = t.loc[cid]
            out.append(f"- Over the metrics that are not substitutes (the judged aggregate): {what} {r['value']:.3f} "
                       f"[{r['CI low']:.3f}, {r['CI high']:.3f}], bootstrap over pairs.")
    return out
