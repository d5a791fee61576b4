"""Curation of LoCaL: which labelled candidates are LoCaL pairs (paper Section 3.3).

The paper says each LoCaL pair "is carefully curated to target either the SFD or DFS region"
without stating the rule. The authors' release shows it: in ``local_pairs_dev.jsonl`` every
mutant (MUT) has df_score below 0.5 (largest 0.4924) and every optimised variant (OP) has
df_score above 0.5 (smallest 0.537), in every benchmark. So a candidate is kept when its label
lies on its region's side of 0.5: a mutant must differ from the reference on most inputs
(SFD: different semantics), an optimised variant must agree on most of them (DFS: similar
semantics). :func:`release_evidence` recomputes those bounds from the release, and
:func:`boundary_consistent` checks that the rule separates it, so the notebook states the rule
with the numbers behind it.

Which candidates can be LoCaL pairs at all: every mutant, and the optimised variants that
optimise. The paper's are performance optimisations, "rather than arbitrary code edits"
(Sections 2.3 and 5), so a rewriter variant counts only when an optimisation rewrite (a paper
strategy) applied, and PIE's fast programs count as the paper's do; the rewriter's surface-only
variants ("refactorings") are a sensitivity source outside LoCaL (:func:`local_kind`).

LoCaL's makeup is the paper's (Section 3.3.3, Table 2): the curated pairs are sampled, seeded, to
Table 2's counts per kind and level, scaled by one fraction (:func:`sample_fraction`: the largest
at which every cell this run has can be filled), so the shares of kinds and levels are the
paper's. Why the sample is the primary set: the paper's conclusions on LoCaL as a whole (its MAE
per metric and benchmark, its coverage of the corners) are averages over its pairs, weighted by
that makeup; with every curated pair the mutants' share would be far above Table 2's
(``local_makeup`` shows both). Table 2 gives counts per kind and level only, so the share of each
benchmark within a cell is ours (RQ4 reports MAE per benchmark within each kind for that reason).

Three sets, one file (``data/processed/local_pairs_<profile>.jsonl``), one filter apart:
``LoCaL`` = ``in_local`` (the sample), ``LoCaL-curated`` = ``curated`` (every curated pair, the
larger sensitivity set), ``LoCaL-all`` = every labelled candidate, refactorings included.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Literal, Protocol

import pandas as pd

from lcl.core import claim_links, seeds
from lcl.core.records import PairRow, df_of

#: df_score boundary between the SFD side (mutants, below) and the DFS side (optimised, above)
DF_BOUNDARY = 0.5

#: dataset names used in tables: the curated reproduction and the uncurated sensitivity set
LOCAL = "LoCaL"
LOCAL_CURATED = "LoCaL-curated"
LOCAL_ALL = "LoCaL-all"
SUBSETS = {"local": LOCAL, "curated": LOCAL_CURATED, "all": LOCAL_ALL}

#: Table 2's cells (kind, level) and the claims holding the paper's count of each
TABLE2_CELLS = {("OPT", "function"): "T2.opt.method", ("OPT", "program"): "T2.opt.program",
                ("MUT", "function"): "T2.mut.method", ("MUT", "program"): "T2.mut.program"}
REFACTORING = "not in LoCaL: a refactoring (surface rewrites only, no optimisation): a sensitivity source"
NOT_SAMPLED = "not in LoCaL: outside the sample at Table 2's makeup (kept in LoCaL-curated)"


class _Ledger(Protocol):
    def drop(self, kind: str, reason: str, n: int = 1) -> None: ...


def in_local(kind: str, df_score: float) -> bool:
    """True when a candidate of ``kind`` (MUT | OPT) with label ``df_score`` is a LoCaL pair."""
    if kind == "MUT":
        return df_score < DF_BOUNDARY
    if kind == "OPT":
        return df_score > DF_BOUNDARY
    raise ValueError(f"curation is defined for MUT and OPT candidates, not {kind!r}")


def drop_reason(kind: str) -> str:
    """The ledger's wording for a candidate that the curation leaves out of LoCaL."""
    if kind == "MUT":
        return f"not in LoCaL: df_score >= {DF_BOUNDARY} (a mutant that behaves mostly like the reference)"
    return f"not in LoCaL: df_score <= {DF_BOUNDARY} (an optimised variant that differs on most inputs)"


def local_kind(pair: Mapping[str, Any]) -> bool:
    """Whether a candidate can be a LoCaL pair: a mutant, a PIE fast program, or a rewriter
    variant with at least one optimisation strategy (not a refactoring)."""
    if pair["variant_type"] != "OPT":
        return True
    return pair.get("generator") == "pie_fast" or bool(pair.get("strategies"))


def paper_counts() -> dict[tuple[str, str], int]:
    """Table 2's count per cell (kind, level), read from the claims data."""
    return {cell: int(claim_links.paper_value(cid)) for cell, cid in TABLE2_CELLS.items()}


def sample_fraction(available: Mapping[tuple[str, str], int], paper: Mapping[tuple[str, str], int]) -> float:
    """The largest fraction ``s`` (at most 1) with ``round(s * paper[cell]) <= available[cell]`` in
    every cell this run has (a cell with nothing available, e.g. programs without the data
    mirror, is left out rather than emptying LoCaL); 0 when no cell has pairs."""
    have = [(available.get(c, 0), n) for c, n in paper.items() if available.get(c, 0) > 0]
    return min([1.0, *(a / n for a, n in have)]) if have else 0.0


def _cells(pairs: Iterable[Mapping[str, Any]]) -> dict[tuple[str, str], list[str]]:
    """The ids of ``pairs`` per Table 2 cell (kind, level)."""
    cells: dict[tuple[str, str], list[str]] = {c: [] for c in TABLE2_CELLS}
    for p in pairs:
        cells.setdefault((p["variant_type"], p["level"]), []).append(p["id"])
    return cells


def fraction(pairs: list[PairRow]) -> float:
    """The sample fraction of :func:`table2_sample` for labelled ``pairs`` with ``curated`` flags."""
    cells = _cells(p for p in pairs if p.get("curated"))
    return sample_fraction({c: len(v) for c, v in cells.items()}, paper_counts())


def table2_sample(pairs: list[PairRow], seed: int) -> tuple[set[str], float]:
    """The ids of a seeded sample of ``pairs`` (curated) at Table 2's makeup, and its fraction."""
    paper = paper_counts()
    cells = _cells(pairs)
    s = sample_fraction({c: len(v) for c, v in cells.items()}, paper)
    chosen: set[str] = set()
    for (kind, level), ids in cells.items():
        # a cell with pairs keeps at least one: on a small profile rounding would empty it
        k = min(len(ids), max(1, round(s * paper.get((kind, level), 0)))) if ids else 0
        chosen.update(seeds.rng(seed, "local-table2", kind, level).sample(sorted(ids), k))
    return chosen, s


def curate(pairs: list[PairRow], ledger: _Ledger | None = None, seed: int = 0) -> list[PairRow]:
    """Set ``curated`` and ``in_local`` on every labelled pair (in place; returns ``pairs``); each
    pair left out of LoCaL is counted in ``ledger`` under its kind. Pairs stay in the list:
    LoCaL-all."""
    for p in pairs:
        p["curated"] = local_kind(p) and in_local(p["variant_type"], df_of(p))
        if not p["curated"] and ledger is not None:
            ledger.drop(p["variant_type"], drop_reason(p["variant_type"]) if local_kind(p) else REFACTORING)
    chosen, _ = table2_sample([p for p in pairs if p["curated"]], seed)
    for p in pairs:
        p["in_local"] = p["id"] in chosen
        if p["curated"] and not p["in_local"] and ledger is not None:
            ledger.drop(p["variant_type"], NOT_SAMPLED)
    return pairs


def select(pairs: Iterable[PairRow], subset: str = "local") -> list[PairRow]:
    """``subset`` 'local': LoCaL (the sample at Table 2's makeup); 'curated': every curated pair;
    'all': every labelled candidate."""
    if subset not in SUBSETS:
        raise ValueError(f"subset must be one of {', '.join(SUBSETS)}, not {subset!r}")
    rows = list(pairs)
    if subset == "all":
        return rows
    flag: Literal["in_local", "curated"] = "in_local" if subset == "local" else "curated"
    missing = sum(flag not in p for p in rows)
    if missing:
        raise ValueError(f"{missing} pairs carry no {flag!r} flag: rebuild them with notebook 02_variants")
    return [p for p in rows if p[flag]]


# ---------------------------------------------------------------------------- evidence
def release_evidence(published: list[PairRow]) -> pd.DataFrame:
    """df_score per benchmark and kind in the authors' release (PUBLISHED pairs with a kind):
    count, min, max, mean and the count on each side of :data:`DF_BOUNDARY`."""
    cols = ["benchmark", "kind", "pairs", "min df", "max df", "mean df", f"df < {DF_BOUNDARY}", f"df > {DF_BOUNDARY}"]
    rows = [p for p in published if p.get("published_kind") in ("MUT", "OPT")]
    if not rows:
        return pd.DataFrame(columns=cols)
    f = pd.DataFrame({"benchmark": [p["benchmark"] for p in rows], "kind": [p["published_kind"] for p in rows],
                      "df": [df_of(p) for p in rows]})
    out = []
    for keys, g in [*((k, g) for k, g in f.groupby(["benchmark", "kind"], sort=True)),
                    *((("all", k), g) for k, g in f.groupby("kind", sort=True))]:
        out.append({"benchmark": keys[0], "kind": keys[1], "pairs": len(g), "min df": round(g.df.min(), 4),
                    "max df": round(g.df.max(), 4), "mean df": round(g.df.mean(), 4),
                    f"df < {DF_BOUNDARY}": int((g.df < DF_BOUNDARY).sum()),
                    f"df > {DF_BOUNDARY}": int((g.df > DF_BOUNDARY).sum())})
    return pd.DataFrame(out, columns=cols)


def boundary_consistent(evidence: pd.DataFrame) -> bool | None:
    """Whether :data:`DF_BOUNDARY` separates the release: every MUT below it and every OPT
    above it (``None`` without evidence, e.g. when the data mirror is absent)."""
    if evidence is None or len(evidence) == 0:
        return None
    overall = evidence[evidence.benchmark == "all"].set_index("kind")
    ok = True
    if "MUT" in overall.index:
        ok &= bool(overall.loc["MUT", "max df"] < DF_BOUNDARY)
    if "OPT" in overall.index:
        ok &= bool(overall.loc["OPT", "min df"] > DF_BOUNDARY)
    return ok


def makeup(pairs: list[PairRow]) -> pd.DataFrame:
    """LoCaL's makeup per Table 2 cell (kind, level): the paper's count, the curated pairs
    available, those sampled into LoCaL, LoCaL's count over the paper's, and each cell's share of
    LoCaL beside the paper's share; the refactorings (outside LoCaL) are counted per level."""
    paper = paper_counts()
    total_paper = sum(paper.values())
    n_local = sum(bool(p.get("in_local")) for p in pairs)
    out = []
    for (kind, level), n in paper.items():
        cell = [p for p in pairs if p["variant_type"] == kind and p["level"] == level]
        local = sum(bool(p.get("in_local")) for p in cell)
        out.append({"kind": kind, "level": level, "Count (paper)": n,
                    LOCAL_CURATED: sum(bool(p.get("curated")) for p in cell), LOCAL: local,
                    f"{LOCAL} / paper": round(local / n, 3),
                    "share of LoCaL (%)": round(100 * local / n_local, 1) if n_local else None,
                    "share (%) (paper)": round(100 * n / total_paper, 1),
                    "refactorings (not in LoCaL)": sum(not local_kind(p) for p in cell)})
    return pd.DataFrame(out)


def rule_sentence(evidence: pd.DataFrame, separates: bool | None) -> str:
    """The curation rule (Section 3.3: each LoCaL pair "is carefully curated to target either the SFD
    or DFS region"), stated with this run's evidence from the release (:func:`release_evidence`,
    :func:`boundary_consistent`), or with its absence when there is no data mirror."""
    rule = (f"a mutant is a LoCaL pair when its df_score is below {DF_BOUNDARY}, an optimised variant when "
            f"its df_score is above {DF_BOUNDARY}")
    if separates is None:
        return f"**Rule applied:** {rule}. The release is not available here (no data mirror), so it is not re-checked."
    ev = evidence[evidence.benchmark == "all"].set_index("kind")
    return (f"**Rule derived:** {rule}. In the release, the {int(ev.loc['MUT', 'pairs'])} mutants lie between "
            f"{ev.loc['MUT', 'min df']:g} and {ev.loc['MUT', 'max df']:g} (mean {ev.loc['MUT', 'mean df']:.3f}) and "
            f"the {int(ev.loc['OPT', 'pairs'])} optimised variants between {ev.loc['OPT', 'min df']:g} and "
            f"{ev.loc['OPT', 'max df']:g} (mean {ev.loc['OPT', 'mean df']:.3f}); the boundary "
            + ("separates them in every benchmark." if separates else "does **not** separate them: see the table.")
            + " The release keeps optimised variants with df_score below 1, so ours are kept too.")


def sample_sentence(table: pd.DataFrame, fraction_: float, n_local: int, n_curated: int) -> str:
    """Which cell of Table 2 sets LoCaL's sample fraction (Section 3.3.3): the kind and level whose
    curated pairs fill the smallest share of the paper's count (``table``: :func:`makeup`), and how
    many of the ``n_curated`` curated pairs LoCaL holds."""
    short = table[table[LOCAL_CURATED] > 0].assign(r=lambda m: m[LOCAL_CURATED] / m["Count (paper)"]).sort_values("r")
    return (f"**Sample:** fraction {fraction_:.3f} of Table 2's counts, set by the "
            + (f"{short.iloc[0]['kind']} {short.iloc[0]['level']}-level cell ({int(short.iloc[0][LOCAL_CURATED])} "
               f"curated pairs for the paper's {int(short.iloc[0]['Count (paper)'])})" if len(short)
               else "(no cell has pairs)")
            + f": LoCaL holds {n_local} of the {n_curated} curated pairs.")
