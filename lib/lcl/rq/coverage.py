"""RQ3 (paper Section 4.5): how well do LoCaL and CodeScore_test cover the SFD and DFS regions?

LoCaL_balanced = equal numbers of mutated and optimised LoCaL pairs (paper: 427 + 427, the
size of CodeScore_test), drawn with a recorded seed. Algorithm 2 (:func:`lcl.engine.regions.search`)
runs on the union of LoCaL_balanced and CodeScore_test under the rules the authors' released script
ran (:data:`PRIMARY_RULES` = :data:`lcl.engine.regions.AUTHORS`: search bounds, minimum region
sizes, absolute error, rounded tie rule); Algorithm 2 as printed, the former 2% floor and each of
the authors' rules removed alone are the sensitivity rows of :func:`search_rules_table`, on our
points and on the authors' released points. Every fitted threshold and share gets a bootstrap
interval over pairs (:func:`bootstrap`: pairs resampled within each dataset, Algorithm 2 refitted).

Region counts, shares, control distances and hit rates are judged under the paper's thresholds
(``rq3_coverage``, ``rq3_hit_rates_paper_thresholds``): they are what Section 4.5.2 counts with,
and a count under a threshold we fit differently measures the fit, not the data. Control distances
use the paper's normalisation (divided by sqrt(2), :func:`lcl.engine.regions.distance_to_corners`).
Figure 1's example pair is picked here too (:func:`figure1_examples`).
"""

from __future__ import annotations

import dataclasses
import math
import textwrap
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, TypedDict

import numpy as np
import pandas as pd

from lcl.core import claim_links, seeds
from lcl.core.claim_links import Derived, Link
from lcl.engine import regions, stats
from lcl.study.makeup import OPT_SOURCES

if TYPE_CHECKING:
    from matplotlib.figure import Figure

X, Y = "SurfaceSim", "df_score"

THRESHOLDS, COVERAGE, HITS, DRAWS = "rq3_thresholds", "rq3_coverage", "rq3_hit_rates", "rq3_draws_summary"
#: Algorithm 2 under each search rule set, on our points and the authors' (:func:`search_rules_table`)
SEARCH_RULES = "rq3_search_rules"
#: the rules of the primary fit: the authors' released script's (lcl.engine.regions.AUTHORS)
PRIMARY_RULES = regions.AUTHORS
#: the thresholds table's column naming the thresholds that sit on an end of the search range
ON_BOUND = "on search bound"
#: the hit rates of rq3_hit_rates under the paper's thresholds (the evidence row of RQ3.mut_in_sfd)
HITS_PAPER = "rq3_hit_rates_paper_thresholds"
_CTRL = "Control: mean distance to SFD/DFS"
CTRL = _CTRL
#: Algorithm 2's grid step (paper: 0.05): the thresholds live on it, so they are judged by equality on it
GRID_STEP = 0.05
#: the former minimum region size, as a share of the fitted points (2%: 35 of the full profile's
#: 1,708): neither the paper's nor the authors' rule (50 DFS, 50 SFD, 150 Control); kept as the
#: sensitivity row :data:`lcl.engine.regions.FLOOR_2PCT` and as ``fit``'s default without ``rules``
MIN_REGION_SHARE = regions.FLOOR_2PCT.min_share
#: the paper's LoCaL_balanced and CodeScore_test both have 854 pairs (Section 4.5)
PAPER_SAMPLE = 854
_N = ("a count of pairs in our LoCaL_balanced / CodeScore_test sample, whose size differs from the paper's "
      f"{PAPER_SAMPLE}: not comparable (the shares are compared by the conclusions)")
_N_CI = ("the share's 95% bootstrap interval over pairs under the paper's thresholds (rq3_draws_summary) times the "
         f"sample size, when the sample has the paper's {PAPER_SAMPLE} pairs")
_SETS = (("local", "LoCaL_balanced"), ("base", "CodeScore_test"))


def _count(ds: str, region: str) -> Callable[[dict[str, pd.DataFrame]], float]:
    def compute(t: dict[str, pd.DataFrame]) -> float:
        c = t[COVERAGE].set_index("Dataset")
        return float(c.loc[ds, region])
    return compute


def _count_interval(tag: str, ds: str, region: str) -> Callable[[dict[str, pd.DataFrame]], tuple[float, float]]:
    """The count's interval from the share's spread over draws, only at the paper's sample size."""
    def interval(t: dict[str, pd.DataFrame]) -> tuple[float, float]:
        n = float(t[COVERAGE].set_index("Dataset").loc[ds, "n"])
        d = t[DRAWS].set_index("claim_id")
        cid = f"aux.RQ3.{tag}.{region.lower()}_share"
        if n != PAPER_SAMPLE or cid not in d.index:
            return float("nan"), float("nan")
        return float(d.loc[cid, "CI low"]) * n / 100, float(d.loc[cid, "CI high"]) * n / 100
    return interval


def _rq3_links() -> list[Link | Derived]:
    out: list[Link | Derived] = [Link(f"RQ3.{k}", THRESHOLDS, "used", "True", k, paper=False, ci_table=DRAWS,
                                      grid=GRID_STEP) for k in ("x_lo", "x_hi", "y_lo", "y_hi")]
    for tag, ds in _SETS:
        out += [Derived(f"RQ3.{tag}.{r.lower()}", (COVERAGE,), _count(ds, r), tolerance_reason=_N,
                        interval=_count_interval(tag, ds, r), interval_tables=(COVERAGE, DRAWS), interval_reason=_N_CI)
                for r in ("SFD", "DFS")]
        out.append(Link(f"RQ3.{tag}.ctrl_dist", COVERAGE, "Dataset", ds, _CTRL, ci_table=DRAWS))
        out += [Link(f"aux.RQ3.{tag}.{r.lower()}_share", COVERAGE, "Dataset", ds, f"{r} %", paper=False, ci_table=DRAWS)
                for r in ("SFD", "DFS")]
    # hit rates under the paper's thresholds (Section 4.5.2 counts with them); ours fitted in rq3_hit_rates.
    # The optimised share is read on PIE's fast programs only: the rewriter's variants stop at a surface
    # target drawn from the released GPT-4 variants, so where they land is construction, not measurement;
    # the share over every optimised variant of LoCaL is kept beside it (aux.RQ3.opt_in_dfs.all)
    out += [Link(cid, HITS_PAPER, "Variants", kind, "%", low="CI low", high="CI high")
            for cid, kind in (("RQ3.mut_in_sfd", "MUT"), ("RQ3.opt_in_dfs", OPT_PIE))]
    out.append(Link("aux.RQ3.opt_in_dfs.all", HITS_PAPER, "Variants", "OPT", "%", low="CI low", high="CI high",
                    paper=False))
    # whether each threshold of the primary fit (the authors' rules) sits on an end of its search range:
    # 1.0 on it (the value says where the search stopped), 0.0 inside
    out += [Link(f"aux.RQ3.on_bound.{k}", THRESHOLDS, "used", "True", on_bound_column(k), paper=False)
            for k in regions.KEYS]
    # how each optimised variant was made (rq3_hit_rates_by_source), each share under the paper's thresholds
    # with its Wilson interval: the by-construction test reads it
    for i, source in enumerate(_OPT_SOURCES):
        out += [Link(f"aux.RQ3.opt_source.{i}.{col}", BY_SOURCE, "Source", source, column, paper=False)
                for col, column in (("n", "n"), ("inside", PAPER_INSIDE), ("sim", "mean SurfaceSim"))]
        out.append(Link(f"aux.RQ3.opt_source.{i}.share", BY_SOURCE, "Source", source, PAPER_SHARE,
                        low=f"{PAPER_SHARE} CI low", high=f"{PAPER_SHARE} CI high", paper=False))
    # the authors' released variants under the paper's thresholds (rq3_released_variants, region_checks)
    for tag, row in (("opt", "all OPT"), ("mut", "all MUT")):
        out.append(Link(f"aux.RQ3.released.{tag}", RELEASED, "Variants", row, "%, paper's thresholds",
                        low="%, paper's thresholds CI low", high="%, paper's thresholds CI high", paper=False))
    return out


BY_SOURCE, RELEASED = "rq3_hit_rates_by_source", "rq3_released_variants"
#: the hit-rate tables' row of the optimised variants nobody here built (PIE's fast programs, the
#: optimised variants the authors took from PIE): RQ3.opt_in_dfs reads it
OPT_PIE = "OPT (PIE fast programs)"
#: the by-source table's column saying how a source's hit rate is to be read (:func:`judged_as`)
JUDGED = "judged"
BY_CONSTRUCTION = ("by construction: the rewriter stops at a surface target drawn from the released GPT-4 "
                   "variants' SurfaceSim (lcl.study.surface_budget)")
MEASURED = "measured"
#: the by-source table's columns under the paper's thresholds
PAPER_INSIDE, PAPER_SHARE = "inside DFS, paper's thresholds", "%, paper's thresholds"


def on_bound_column(key: str) -> str:
    """The thresholds table's numeric column for ``key``: 1.0 when the fit's ``key`` sits on an end
    of its search range, 0.0 inside (what ``aux.RQ3.on_bound.<key>`` reads)."""
    return f"{ON_BOUND}: {key}"


#: dataset.OPT_SOURCES, in its order (0, 1: the rewriter; 2: PIE's fast programs; 3: human-written clones)
_OPT_SOURCES = ("rewriter (surface only)", "rewriter (algorithmic strategies)", "PIE fast programs",
                "human-written clones")


#: Section 4.5's claims: the thresholds of Algorithm 2 under the authors' rules (rq3_thresholds, row
#: "used"); region counts, shares and control distances under the paper's thresholds (rq3_coverage);
#: each with its bootstrap interval over pairs (rq3_draws_summary); hit rates under the paper's
#: thresholds with a Wilson 95 % CI (rq3_hit_rates_paper_thresholds)
CLAIMS: list[Link | Derived] = _rq3_links()


def with_paper(table: pd.DataFrame, name: str) -> pd.DataFrame:
    """RQ3 table ``name`` with the paper's values beside ours (from the claim declarations)."""
    return claim_links.add_paper_columns(table, CLAIMS, name)


def wilson(k: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    """Wilson score 95 % interval of a share ``k / n``, in percent (``stats.wilson``, rounded)."""
    lo, hi = stats.wilson(k, n, z)
    return round(100 * lo, 2), round(100 * hi, 2)


def balanced(local: pd.DataFrame, n: int, seed: int) -> pd.DataFrame:
    """LoCaL_balanced: ``min(n, #MUT, #OPT)`` pairs of each variant type, sampled with ``seed``."""
    k = min(n, int((local.variant_type == "MUT").sum()), int((local.variant_type == "OPT").sum()))
    parts = [local[local.variant_type == t].sample(n=k, random_state=seed) for t in ("MUT", "OPT")]
    return pd.concat(parts).sort_values("id").reset_index(drop=True)


def min_region(n: int, share: float = MIN_REGION_SHARE) -> int:
    """The minimum region size for ``n`` fitted points (at least one point)."""
    return max(1, math.ceil(share * n - 1e-9))


def fit(frames: dict[str, pd.DataFrame], metric_columns: list[str], *, step: float = GRID_STEP,
        error: regions.ErrorKind = "squared", min_share: float = MIN_REGION_SHARE,
        rules: regions.SearchRules | None = None, quiet: bool = False) -> regions.Thresholds | None:
    """Algorithm 2 on the union of ``frames`` (pairs with SurfaceSim, df_score and the CEMs) under
    ``rules``; without them, as printed with each region holding at least ``min_share`` of the
    points (the former rule). None when no grid tuple qualifies (too few or too uniform points)."""
    union = pd.concat(list(frames.values()), ignore_index=True)
    union = union.dropna(subset=[X, Y, *metric_columns])
    scores = {c: union[c].to_numpy(float) for c in metric_columns}
    x, y = union[X].to_numpy(float), union[Y].to_numpy(float)
    try:
        if rules is not None:
            return regions.search(x, y, scores, rules)
        return regions.thresholds(x, y, scores, step=step, error=error, min_region=min_region(len(union), min_share))
    except ValueError as exc:
        if not quiet:
            print(f"Algorithm 2: {exc} ({len(union)} points)")
        return None


def fit_rule_sets(frames: dict[str, pd.DataFrame], metric_columns: list[str],
                  rule_sets: Sequence[regions.SearchRules]) -> list[regions.Thresholds | None]:
    """Algorithm 2 (:func:`fit`) on the same points once per search rule set, in the order given (the
    rows of :func:`thresholds_table`, the used rules first); None where no tuple qualifies under a set,
    which the table then leaves out, so without a primary fit no row is marked used."""
    return [fit(frames, metric_columns, rules=r) for r in rule_sets]


def point_count(frames: dict[str, pd.DataFrame]) -> int:
    """The number of pairs Algorithm 2 is handed: the rows of all ``frames`` together, before
    :func:`fit` drops those missing a score (the count the note of a failed fit names)."""
    return sum(len(f) for f in frames.values())


def thresholds_table(fitted: list[regions.Thresholds | None], paper: dict[str, float],
                     rules: list[regions.SearchRules] | None = None) -> pd.DataFrame:
    """The fitted thresholds (first = the one used) next to the paper's: the procedure (the search
    rules' name), the error, and which thresholds sit on an end of their search range (``rules``,
    one per fit, the same order; without them the whole grid)."""
    keys = regions.KEYS
    rows = []
    for i, th in enumerate(fitted):
        if th is None:
            continue
        r = rules[i] if rules else regions.SearchRules("", step=th.step)
        bounds = regions.on_bounds(th, r)
        rows.append({"procedure": th.rules or r.name, "error": th.error, **{k: getattr(th, k) for k in keys},
                     "objective": th.objective, "used": i == 0, ON_BOUND: ", ".join(bounds),
                     **{on_bound_column(k): float(k in bounds) for k in keys}})
    rows.append({"procedure": "paper", "error": "paper", **paper, "objective": None, "used": False, ON_BOUND: None,
                 **{on_bound_column(k): None for k in keys}})
    return pd.DataFrame(rows, columns=["procedure", "error", *keys, "objective", "used", ON_BOUND,
                                       *(on_bound_column(k) for k in keys)])


def on_bound(table: pd.DataFrame, key: str) -> bool:
    """Whether threshold ``key`` of the thresholds table's used fit sits on an end of its search range."""
    used = table[table["used"].astype(bool)]
    return bool(len(used)) and key in str(used.iloc[0][ON_BOUND] or "").split(", ")


def region_table(frames: dict[str, pd.DataFrame], th: regions.Thresholds | None) -> pd.DataFrame:
    """Counts and shares per region, and the mean distance of control points to the nearest
    SFD/DFS boundary divided by sqrt(2) (the paper's normalisation: the authors' points under the
    paper's thresholds give its 0.12 and 0.24 only so), per dataset (empty without thresholds)."""
    rows = []
    for name, f in frames.items():
        if th is None:
            continue
        x, y = f[X].to_numpy(float), f[Y].to_numpy(float)
        lab = regions.assign(x, y, th)
        counts = regions.region_counts(lab)
        ctrl = lab == "Control"
        dist = regions.distance_to_corners(x[ctrl], y[ctrl], th, normalised=True)
        n = len(f)
        rows.append({"Dataset": name, "n": n,
                     **{f"{r}": counts[r] for r in ("SFD", "DFS", "Control")},
                     **{f"{r} %": round(100 * counts[r] / n, 1) if n else None for r in ("SFD", "DFS")},
                     "Control: mean distance to SFD/DFS": round(float(dist.mean()), 3) if len(dist) else None})
    return pd.DataFrame(rows, columns=REGION_COLUMNS)


REGION_COLUMNS = ["Dataset", "n", "SFD", "DFS", "Control", "SFD %", "DFS %", "Control: mean distance to SFD/DFS"]


def hit_rates(local: pd.DataFrame, th: regions.Thresholds | None) -> pd.DataFrame:
    """Share of all mutants inside SFD, of all optimised variants inside DFS and, where ``local``
    says where each optimised variant comes from (``opt_source``, :func:`lcl.study.makeup.opt_source`),
    of PIE's fast programs inside DFS (:data:`OPT_PIE`: the optimised variants nobody here built,
    on which RQ3.opt_in_dfs is judged); None without thresholds."""
    lab = regions.assign(local[X].to_numpy(float), local[Y].to_numpy(float), th) if th is not None else None
    groups = [("MUT", "SFD", (local.variant_type == "MUT").to_numpy()),
              ("OPT", "DFS", (local.variant_type == "OPT").to_numpy())]
    if "opt_source" in local:
        groups.append((OPT_PIE, "DFS", ((local.variant_type == "OPT") & (local["opt_source"] == OPT_SOURCES[2])
                                        ).to_numpy()))
    rows = []
    for kind, region, sel in groups:
        if lab is None:
            rows.append({"Variants": kind, "Region": region, "n": int(sel.sum()),
                         "inside": None, "%": None, "CI low": None, "CI high": None})
            continue
        hit = int(np.sum(lab[sel] == region))
        lo, hi = wilson(hit, int(sel.sum())) if sel.sum() else (None, None)
        rows.append({"Variants": kind, "Region": region, "n": int(sel.sum()), "inside": hit,
                     "%": round(100 * hit / sel.sum(), 2) if sel.sum() else None, "CI low": lo, "CI high": hi})
    return pd.DataFrame(rows, columns=["Variants", "Region", "n", "inside", "%", "CI low", "CI high"])


class Figure1Examples(TypedDict):
    """Figure 1's pairs: the reference and its two pairs' rows (column -> value; None: no such pair)."""

    reference: str
    mutant: dict[str, object] | None
    optimised: dict[str, object] | None
    shared_reference: bool  # both pairs have this reference


def figure1_examples(local: pd.DataFrame, max_lines: int = 14) -> Figure1Examples | None:
    """Figure 1: a reference with (a) a mutant that looks almost identical but behaves
    differently (highest SurfaceSim among df_score = 0 mutants) and (b) an optimised variant
    that looks different but behaves the same (lowest SurfaceSim among df_score = 1 variants).

    Prefers a reference that has both, with short code so the figure stays readable; returns
    None when no reference has either kind.
    """
    short = local[local.reference.str.count("\n") < max_lines]
    mut = short[(short.variant_type == "MUT") & (short[Y] == 0)]
    opt = short[(short.variant_type == "OPT") & (short[Y] >= 1)]
    common = sorted(set(mut.reference) & set(opt.reference))
    if common:
        def gap(ref: str) -> float:
            return float(mut[mut.reference == ref][X].max() - opt[opt.reference == ref][X].min())

        ref = max(common, key=lambda r: (gap(r), r))
        m = mut[mut.reference == ref].sort_values([X, "id"], ascending=[False, True]).iloc[0]
        o = opt[opt.reference == ref].sort_values([X, "id"]).iloc[0]
        return {"reference": ref, "mutant": m.to_dict(), "optimised": o.to_dict(), "shared_reference": True}
    if mut.empty and opt.empty:
        return None
    m = mut.sort_values([X, "id"], ascending=[False, True]).iloc[0].to_dict() if len(mut) else None
    o = opt.sort_values([X, "id"]).iloc[0].to_dict() if len(opt) else None
    first = m if m is not None else o
    assert first is not None  # one of the two is non-empty (checked above)
    return {"reference": first["reference"], "mutant": m, "optimised": o, "shared_reference": False}


def _inside(g: pd.DataFrame, th: regions.Thresholds | None, region: str) -> int | None:
    if th is None:
        return None
    return int(np.sum(regions.assign(g[X].to_numpy(float), g[Y].to_numpy(float), th) == region))


def judged_as(source: str) -> str:
    """How a source's hit rate is read: :data:`BY_CONSTRUCTION` for the rewriter's variants (ours:
    stopped at a surface target, so where they land follows from how they were made), else
    :data:`MEASURED` (PIE's fast programs, the human-written clones)."""
    return BY_CONSTRUCTION if source.startswith("rewriter") else MEASURED


def hit_rates_by_source(frame: pd.DataFrame, th: regions.Thresholds | None,
                        paper: regions.Thresholds | None = None) -> pd.DataFrame:
    """Share of the optimised (DFS) pairs inside DFS per ``opt_source`` (rewriter surface-only,
    rewriter with algorithmic strategies, PIE fast programs, human-written clones), under ``th``
    and under the paper's thresholds ``paper`` (each with a Wilson 95% interval): a source whose
    SurfaceSim follows the released variants lands in DFS as often as they do only under the
    thresholds fitted to them. :data:`JUDGED` says which rows are measurements (:func:`judged_as`)."""
    rows = []
    for source in OPT_SOURCES:
        g = frame[frame["opt_source"] == source]
        if g.empty:
            continue
        inside, at_paper = _inside(g, th, "DFS"), _inside(g, paper, "DFS")
        lo, hi = wilson(inside, len(g)) if inside is not None else (None, None)
        plo, phi = wilson(at_paper, len(g)) if at_paper is not None else (None, None)
        rows.append({"Source": source, JUDGED: judged_as(source), "n": len(g),
                     "mean SurfaceSim": round(float(g[X].mean()), 3),
                     "inside DFS": inside, "%": round(100 * inside / len(g), 2) if inside is not None else None,
                     "CI low": lo, "CI high": hi, PAPER_INSIDE: at_paper,
                     PAPER_SHARE: round(100 * at_paper / len(g), 2) if at_paper is not None else None,
                     f"{PAPER_SHARE} CI low": plo, f"{PAPER_SHARE} CI high": phi})
    return pd.DataFrame(rows, columns=["Source", JUDGED, "n", "mean SurfaceSim", "inside DFS", "%", "CI low", "CI high",
                                       PAPER_INSIDE, PAPER_SHARE, f"{PAPER_SHARE} CI low", f"{PAPER_SHARE} CI high"])


def headline(name: str, th: regions.Thresholds | None, cov: pd.DataFrame,
             hits: pd.DataFrame) -> dict[str, str | float | None]:
    """One row of RQ3's headline numbers (thresholds, LoCaL_balanced's corner shares, hit
    rates) for the sensitivity table that compares LoCaL with LoCaL-all."""
    c = cov.set_index("Dataset")
    h = hits.set_index("Variants")
    row: dict[str, str | float | None] = {"Set": name, **{k: getattr(th, k) if th else None for k in ("x_lo", "x_hi", "y_lo", "y_hi")}}
    for col in ("SFD %", "DFS %"):
        row[f"LoCaL_balanced {col}"] = c.loc["LoCaL_balanced", col] if "LoCaL_balanced" in c.index else None
    row["MUT in SFD %"] = h.loc["MUT", "%"] if "MUT" in h.index else None
    row["OPT in DFS %"] = h.loc["OPT", "%"] if "OPT" in h.index else None
    return row


# ----------------------------------------------------------------------------- bootstrap over pairs
def boot_count(bootstrap: int) -> int:
    """Bootstrap replicates of RQ3's refits for a profile whose other intervals take ``bootstrap``
    resamples: a tenth (each replicate reruns Algorithm 2; full 200, quick 20, smoke 5)."""
    return max(5, bootstrap // 10)


def resample(frames: dict[str, pd.DataFrame], rng: np.random.Generator) -> dict[str, pd.DataFrame]:
    """Each dataset's pairs drawn with replacement, its size kept, within each ``variant_type``
    (LoCaL_balanced stays balanced): one bootstrap replicate over pairs."""
    out = {}
    for name, f in frames.items():
        groups = f.groupby(f["variant_type"].fillna("-"), sort=True).indices if "variant_type" in f else {"": range(len(f))}
        idx = np.concatenate([rng.choice(np.asarray(g), size=len(g), replace=True) for g in groups.values()]
                             ) if len(f) else np.array([], int)
        out[name] = f.iloc[np.sort(idx)].reset_index(drop=True)
    return out


def _shares(frames: dict[str, pd.DataFrame], th: regions.Thresholds | None) -> dict[str, float | None]:
    """``<tag>.sfd_share``, ``<tag>.dfs_share``, ``<tag>.ctrl_dist`` of the first (LoCaL) and second
    (baseline) dataset under ``th``."""
    cov = region_table(frames, th)
    row: dict[str, float | None] = {}
    for (tag, _), (_, r) in zip(_SETS, cov.iterrows(), strict=False):
        for col, key in (("SFD %", "sfd_share"), ("DFS %", "dfs_share"), (_CTRL, "ctrl_dist")):
            row[f"{tag}.{key}"] = r[col]
    return row


def bootstrap(frames: dict[str, pd.DataFrame], metric_columns: list[str], rules: regions.SearchRules, n_boot: int,
              seed: int, *, label: str = "ours", shares_under: regions.Thresholds | None = None) -> pd.DataFrame:
    """One row per bootstrap replicate over pairs (:func:`resample`, seeded by ``lcl.core.seeds``
    from ``seed``, ``label`` and the replicate, so every rule set sees the same replicates): the
    thresholds Algorithm 2 fits under ``rules`` (None where no tuple qualifies) and the first two
    datasets' shares and control distances under ``shares_under`` (the paper's thresholds for the
    claims), or under the refit thresholds when it is None."""
    rows = []
    for b in range(n_boot):
        rng = np.random.default_rng(seeds.unit_seed(seed, "rq3-bootstrap", label, b))
        rep = resample(frames, rng)
        th = fit(rep, metric_columns, rules=rules, quiet=True)
        row: dict[str, float | None] = {"replicate": b, **{k: getattr(th, k) if th else None for k in regions.KEYS}}
        under = shares_under if shares_under is not None else th
        row.update(_shares(rep, under) if under is not None else {})
        rows.append(row)
    return pd.DataFrame(rows, columns=["replicate", *DRAW_CLAIMS])


def _interval(v: pd.Series) -> tuple[float, float]:
    x = pd.to_numeric(v, errors="coerce").dropna().to_numpy(float)
    if len(x) < 2:
        return math.nan, math.nan
    lo, hi = np.quantile(x, [0.025, 0.975])
    return float(lo), float(hi)


def rule_sets() -> list[regions.SearchRules]:
    """The rows of :func:`search_rules_table`: the authors' rules, each removed alone, the bounds and
    the rounded tie removed together, Algorithm 2 as printed and the former 2% floor."""
    a = PRIMARY_RULES
    both = dataclasses.replace(a.without("bounds"), tie_decimals=None,
                               name=f"{a.name}, without the search bounds and the rounded tie rule")
    return [a, *(a.without(r) for r in regions.RULE_NAMES), both, regions.AS_PRINTED, regions.FLOOR_2PCT]


@dataclasses.dataclass(frozen=True)
class PointSet:
    """Points Algorithm 2 is fitted on: a LoCaL-side and a baseline dataset, and the metric columns."""

    name: str
    frames: dict[str, pd.DataFrame] = dataclasses.field(hash=False, compare=False)
    metrics: tuple[str, ...]


SHARE_COLUMNS = ("LoCaL SFD %", "LoCaL DFS %", "baseline SFD %", "baseline DFS %")


def search_rules_table(point_sets: list[PointSet], rules: list[regions.SearchRules], n_boot: int,
                       seed: int) -> pd.DataFrame:
    """Algorithm 2 under each of ``rules`` on each point set: thresholds, objective, which sit on an
    end of the search range, the two datasets' SFD/DFS shares under them, and a 95% bootstrap
    interval over pairs (``n_boot`` replicates, refit each time) for every threshold and share."""
    rows = []
    for ps in point_sets:
        n = sum(len(f) for f in ps.frames.values())
        for r in rules:
            th = fit(ps.frames, list(ps.metrics), rules=r, quiet=True)
            boot = bootstrap(ps.frames, list(ps.metrics), r, n_boot, seed, label=ps.name)
            row: dict[str, object] = {"Points": ps.name, "Metrics": ", ".join(ps.metrics), "Rules": r.name, "n": n}
            for k in regions.KEYS:
                row[k] = getattr(th, k) if th else None
                row[f"{k} CI low"], row[f"{k} CI high"] = _interval(boot[k])
            row["objective"] = round(th.objective, 4) if th else None
            row[ON_BOUND] = ", ".join(regions.on_bounds(th, r)) if th else None
            sh = _shares(ps.frames, th) if th else {}
            for col, key in zip(SHARE_COLUMNS, ("local.sfd_share", "local.dfs_share", "base.sfd_share",
                                                "base.dfs_share"), strict=True):
                row[col] = sh.get(key)
                row[f"{col} CI low"], row[f"{col} CI high"] = _interval(boot[key])
            row["bootstrap fits"] = int(boot["x_lo"].notna().sum())
            rows.append(row)
    return pd.DataFrame(rows)


# ----------------------------------------------------------------------------- repeated draws (former spread)
def draw_seeds(seed: int, k: int) -> list[int]:
    """``k`` recorded seeds for repeated draws of LoCaL_balanced, derived from ``seed`` (the former
    spread: when LoCaL holds fewer optimised variants than a draw takes, every draw takes them all,
    so it has no pair-level uncertainty; :func:`bootstrap` replaces it)."""
    return [int(s) for s in np.random.default_rng(seed).integers(0, 2**31 - 1, size=k)]


def one_draw(scored_local: pd.DataFrame, scored_base: pd.DataFrame, metric_columns: list[str], n: int, seed: int,
             *, step: float, error: regions.ErrorKind) -> dict[str, float | None]:
    """Algorithm 2 and the region shares on one draw of LoCaL_balanced from the scored LoCaL
    (no re-scoring: every draw is a subset of one scored frame)."""
    frames = {"LoCaL_balanced": balanced(scored_local, n, seed), "CodeScore_test": scored_base}
    th = fit(frames, metric_columns, step=step, error=error)
    row: dict[str, float | None] = {"seed": seed, **{k: getattr(th, k) if th else None for k in ("x_lo", "x_hi", "y_lo", "y_hi")}}
    cov = region_table(frames, th).set_index("Dataset") if th else pd.DataFrame()
    for tag, ds in _SETS:
        for col, key in (("SFD %", "sfd_share"), ("DFS %", "dfs_share"), (_CTRL, "ctrl_dist")):
            row[f"{tag}.{key}"] = cov.loc[ds, col] if ds in cov.index else None
    return row


#: column of :func:`draws` -> claim id it gives the spread of
DRAW_CLAIMS = {**{k: f"RQ3.{k}" for k in ("x_lo", "x_hi", "y_lo", "y_hi")},
               **{f"{tag}.ctrl_dist": f"RQ3.{tag}.ctrl_dist" for tag, _ in _SETS},
               **{f"{tag}.{r}_share": f"aux.RQ3.{tag}.{r}_share" for tag, _ in _SETS for r in ("sfd", "dfs")}}


def draws(scored_local: pd.DataFrame, scored_base: pd.DataFrame, metric_columns: list[str], n: int,
          seeds: list[int], *, step: float, error: regions.ErrorKind) -> pd.DataFrame:
    """One row per draw of LoCaL_balanced (seed recorded): thresholds, shares, control distances."""
    rows = [one_draw(scored_local, scored_base, metric_columns, n, s, step=step, error=error) for s in seeds]
    return pd.DataFrame(rows, columns=["seed", *DRAW_CLAIMS])


#: how draws_summary's interval was made (its ``interval`` column)
BOOT_INTERVAL = "percentile bootstrap over pairs (2.5-97.5 over the replicates)"
WILSON_FALLBACK = ("Wilson 95% of the count: every bootstrap replicate gave the same share (each kind's pairs all "
                   "on one side of the corner, and resampling within each kind keeps the kinds' sizes)")


def draws_summary(table: pd.DataFrame, counts: pd.DataFrame | None = None) -> pd.DataFrame:
    """Per claim: mean, std and the 2.5-97.5 percentile range over the bootstrap replicates (or
    draws) of ``table`` (the CI of the claims table). With ``counts`` (:func:`region_table` under
    the thresholds the shares are counted with), a share whose replicates are all equal gets the
    Wilson interval of its count instead (:data:`WILSON_FALLBACK`): a percentile interval of zero
    width there says the resampling cannot move the share, not that the share is known exactly."""
    c = counts.set_index("Dataset") if counts is not None and len(counts) else pd.DataFrame()
    rows = []
    for col, cid in DRAW_CLAIMS.items():
        v = pd.to_numeric(table[col], errors="coerce").dropna().to_numpy(float) if col in table else np.array([])
        lo, hi = (np.quantile(v, [0.025, 0.975]) if len(v) > 1 else (np.nan, np.nan))
        how = BOOT_INTERVAL if len(v) > 1 else ""
        share = _share_count(c, col)
        if share is not None and len(v) > 1 and float(hi) - float(lo) < 1e-12:
            lo, hi = wilson(*share)
            how = WILSON_FALLBACK
        rows.append({"claim_id": cid, "draws": len(v), "mean": float(v.mean()) if len(v) else np.nan,
                     "std": float(v.std(ddof=1)) if len(v) > 1 else np.nan, "CI low": float(lo), "CI high": float(hi),
                     "interval": how})
    return pd.DataFrame(rows, columns=["claim_id", "draws", "mean", "std", "CI low", "CI high", "interval"])


def _share_count(counts: pd.DataFrame, col: str) -> tuple[int, int] | None:
    """(pairs in the region, pairs) of the draw column ``col`` (``<tag>.<region>_share``) in ``counts``."""
    tag, _, key = col.partition(".")
    if not key.endswith("_share") or not len(counts):
        return None
    ds = dict(_SETS).get(tag)
    region = key.removesuffix("_share").upper()
    if ds not in counts.index or region not in counts.columns:
        return None
    n, k = counts.loc[ds, "n"], counts.loc[ds, region]
    return (int(k), int(n)) if pd.notna(n) and pd.notna(k) and int(n) > 0 else None


def plot_regions(frames: dict[str, pd.DataFrame], th: regions.Thresholds | None) -> Figure:
    """Figure 5: SurfaceSim against df_score of each dataset in ``frames`` (LoCaL_balanced by kind,
    the other in grey), with the SFD and DFS corners of the thresholds ``th`` (Eq. 4) shaded."""
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(10, 4.3), sharey=True)
    for ax, (name, f) in zip(axes, frames.items(), strict=True):
        if th is not None:
            ax.axvspan(th.x_hi, 1.02, ymin=0, ymax=(th.y_lo + 0.02) / 1.04, color="tab:red", alpha=0.12, label="SFD")
            ax.axvspan(-0.02, th.x_lo, ymin=(th.y_hi + 0.02) / 1.04, ymax=1, color="tab:blue", alpha=0.12, label="DFS")
        groups = [("MUT", "tab:orange"), ("OPT", "tab:green")] if name == "LoCaL_balanced" else [(None, "tab:gray")]
        for kind, color in groups:
            g = f if kind is None else f[f.variant_type == kind]
            ax.scatter(g["SurfaceSim"], g["df_score"], s=8, alpha=0.55, color=color, label=kind or "pairs")
        ax.set_xlim(-0.02, 1.02)
        ax.set_ylim(-0.02, 1.02)
        ax.set_title(f"{name} (n = {len(f)})")
        ax.set_xlabel("SurfaceSim (Eq. 1)")
        ax.legend(frameon=False, fontsize=8, loc="center left")
    axes[0].set_ylabel("df_score (Algorithm 1)")
    source = "the paper's thresholds" if th is not None and th.error == "paper" else "Algorithm 2"
    fig.suptitle(f"Regions from {source}: x_lo={th.x_lo:.2f}, x_hi={th.x_hi:.2f}, y_lo={th.y_lo:.2f}, y_hi={th.y_hi:.2f}"
                 if th else "Algorithm 2: no thresholds (too few pairs)", fontsize=10)
    fig.tight_layout()
    return fig


def plot_examples(ex: Figure1Examples | None) -> Figure:
    """Figure 1: the reference of :func:`figure1_examples`, its look-alike mutant (SFD) and its
    different-looking optimised variant (DFS), one code panel each (at most 22 lines of 60
    characters), captioned with the pair's SurfaceSim and df_score."""
    import matplotlib.pyplot as plt

    panels = [("Reference", ex["reference"], "")] if ex else []
    for title, r in ((("Mutant (SFD)", ex["mutant"]), ("Optimised variant (DFS)", ex["optimised"])) if ex else ()):
        if r:
            panels.append((title, str(r["candidate"]),
                           f"SurfaceSim = {r['SurfaceSim']:.2f}, df_score = {r['df_score']:.2f}"))
    height = 1.0 + 0.13 * min(22, max([len(code.strip().splitlines()) for _, code, _ in panels] or [4]))
    fig, axes = plt.subplots(1, max(1, len(panels)), figsize=(4.6 * max(1, len(panels)), height), squeeze=False)
    for ax, (title, code, caption) in zip(axes[0], panels, strict=False):
        text = "\n".join(textwrap.shorten(line, 60, placeholder=" …") if len(line) > 60 else line
                         for line in code.strip().splitlines()[:22])
        ax.text(0.01, 0.98, text, family="monospace", fontsize=7, va="top", ha="left", transform=ax.transAxes)
        ax.set_title(title, fontsize=10)
        ax.set_xlabel(caption, fontsize=9)
        ax.set_xticks([])
        ax.set_yticks([])
    fig.tight_layout()
    return fig
