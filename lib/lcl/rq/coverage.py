"""RQ3 (paper Section 4.5): how well do LoCaL and CodeScore_test cover the SFD and DFS regions?

LoCaL_balanced = equal numbers of mutated and optimised LoCaL pairs (paper: 427 + 427, the
size of CodeScore_test), drawn with a recorded seed. Algorithm 2 (:func:`lcl.engine.regions.thresholds`)
runs on the union of LoCaL_balanced and CodeScore_test; then each dataset's points are
assigned to SFD / DFS / Control (Eq. 4), control points' distance to the nearest corner is
averaged, and the hit rates of *all* mutants in SFD and *all* optimised variants in DFS are
counted. Figure 1's example pair is picked here too (:func:`figure1_examples`).
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Callable
from typing import TYPE_CHECKING, TypedDict

import numpy as np
import pandas as pd

from lcl.core import claim_links
from lcl.core.claim_links import Derived, Link
from lcl.engine import regions, stats
from lcl.study.makeup import OPT_SOURCES

if TYPE_CHECKING:
    from matplotlib.figure import Figure

X, Y = "SurfaceSim", "df_score"

THRESHOLDS, COVERAGE, HITS, DRAWS = "rq3_thresholds", "rq3_coverage", "rq3_hit_rates", "rq3_draws_summary"
#: the hit rates of rq3_hit_rates under the paper's thresholds (the evidence row of RQ3.mut_in_sfd)
HITS_PAPER = "rq3_hit_rates_paper_thresholds"
_CTRL = "Control: mean distance to SFD/DFS"
#: Algorithm 2's grid step (paper: 0.05): the thresholds live on it, so they are judged by equality on it
GRID_STEP = 0.05
#: Algorithm 2's minimum region size, as a share of the points it is fitted on: 2% (35 of the full
#: profile's 1,708). The paper states none; without one the scan picks a DFS corner of a single pair
#: when CodeScore-style is left out (rq3_ablation, "region floor" 1), and 1%, 2% and 5% gave the same
#: thresholds for every metric set at the full profile (measured 2026-12-04)
MIN_REGION_SHARE = 0.02
#: the paper's LoCaL_balanced and CodeScore_test both have 854 pairs (Section 4.5)
PAPER_SAMPLE = 854
_N = ("a count of pairs in our LoCaL_balanced / CodeScore_test sample, whose size differs from the paper's "
      f"{PAPER_SAMPLE}: not comparable (the shares are compared by the conclusions)")
_N_CI = ("the share's 95% interval over repeated draws of LoCaL_balanced (rq3_draws_summary) times the sample "
         f"size, when the sample has the paper's {PAPER_SAMPLE} pairs")
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
    out += [Link(cid, HITS, "Variants", kind, "%", low="CI low", high="CI high")
            for cid, kind in (("RQ3.mut_in_sfd", "MUT"), ("RQ3.opt_in_dfs", "OPT"))]
    # how each optimised variant was made (rq3_hit_rates_by_source): the by-construction test reads it
    for i, source in enumerate(_OPT_SOURCES):
        out += [Link(f"aux.RQ3.opt_source.{i}.{col}", BY_SOURCE, "Source", source, column, paper=False)
                for col, column in (("n", "n"), ("inside", "inside DFS"), ("sim", "mean SurfaceSim"))]
        out.append(Link(f"aux.RQ3.opt_source.{i}.share", BY_SOURCE, "Source", source, "%", low="CI low",
                        high="CI high", paper=False))
    # the authors' released variants under the paper's thresholds (rq3_released_variants, region_checks)
    for tag, row in (("opt", "all OPT"), ("mut", "all MUT")):
        out.append(Link(f"aux.RQ3.released.{tag}", RELEASED, "Variants", row, "%, paper's thresholds",
                        low="%, paper's thresholds CI low", high="%, paper's thresholds CI high", paper=False))
    return out


BY_SOURCE, RELEASED = "rq3_hit_rates_by_source", "rq3_released_variants"
#: dataset.OPT_SOURCES, in its order (0, 1: the rewriter; 2: PIE's fast programs; 3: human-written clones)
_OPT_SOURCES = ("rewriter (surface only)", "rewriter (algorithmic strategies)", "PIE fast programs",
                "human-written clones")


#: Section 4.5's claims: thresholds and control distances with their spread over repeated draws
#: of LoCaL_balanced (rq3_draws_summary), hit rates with a Wilson 95 % CI
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


def fit(frames: dict[str, pd.DataFrame], metric_columns: list[str], *, step: float,
        error: regions.ErrorKind, min_share: float = MIN_REGION_SHARE) -> regions.Thresholds | None:
    """Algorithm 2 on the union of ``frames`` (pairs with SurfaceSim, df_score and the CEMs), each
    region holding at least ``min_share`` of the points; None when no grid tuple does (too few or
    too uniform points)."""
    union = pd.concat(list(frames.values()), ignore_index=True)
    union = union.dropna(subset=[X, Y, *metric_columns])
    scores = {c: union[c].to_numpy(float) for c in metric_columns}
    try:
        return regions.thresholds(union[X].to_numpy(float), union[Y].to_numpy(float), scores, step=step, error=error,
                                  min_region=min_region(len(union), min_share))
    except ValueError as exc:
        print(f"Algorithm 2: {exc} ({len(union)} points)")
        return None


def thresholds_table(fitted: list[regions.Thresholds | None], paper: dict[str, float]) -> pd.DataFrame:
    """The fitted thresholds (first = the one used) next to the paper's."""
    keys = ("x_lo", "x_hi", "y_lo", "y_hi")
    rows = [{"error": th.error, **{k: getattr(th, k) for k in keys}, "objective": th.objective, "used": i == 0}
            for i, th in enumerate(fitted) if th is not None]
    rows.append({"error": "paper", **paper, "objective": None, "used": False})
    return pd.DataFrame(rows, columns=["error", *keys, "objective", "used"])


def region_table(frames: dict[str, pd.DataFrame], th: regions.Thresholds | None) -> pd.DataFrame:
    """Counts and shares per region, and the mean distance of control points to the nearest
    SFD/DFS boundary, per dataset (empty without thresholds)."""
    rows = []
    for name, f in frames.items():
        if th is None:
            continue
        x, y = f[X].to_numpy(float), f[Y].to_numpy(float)
        lab = regions.assign(x, y, th)
        counts = regions.region_counts(lab)
        ctrl = lab == "Control"
        dist = regions.distance_to_corners(x[ctrl], y[ctrl], th)
        n = len(f)
        rows.append({"Dataset": name, "n": n,
                     **{f"{r}": counts[r] for r in ("SFD", "DFS", "Control")},
                     **{f"{r} %": round(100 * counts[r] / n, 1) if n else None for r in ("SFD", "DFS")},
                     "Control: mean distance to SFD/DFS": round(float(dist.mean()), 3) if len(dist) else None})
    return pd.DataFrame(rows, columns=REGION_COLUMNS)


REGION_COLUMNS = ["Dataset", "n", "SFD", "DFS", "Control", "SFD %", "DFS %", "Control: mean distance to SFD/DFS"]


def hit_rates(local: pd.DataFrame, th: regions.Thresholds | None) -> pd.DataFrame:
    """Share of all mutants inside SFD and of all optimised variants inside DFS (None without
    thresholds)."""
    lab = regions.assign(local[X].to_numpy(float), local[Y].to_numpy(float), th) if th is not None else None
    rows = []
    for kind, region in (("MUT", "SFD"), ("OPT", "DFS")):
        if lab is None:
            rows.append({"Variants": kind, "Region": region, "n": int((local.variant_type == kind).sum()),
                         "inside": None, "%": None, "CI low": None, "CI high": None})
            continue
        sel = (local.variant_type == kind).to_numpy()
        hit = int(np.sum(lab[sel] == region))
        lo, hi = wilson(hit, int(sel.sum()))
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


#: the by-source table's columns under the paper's thresholds
PAPER_INSIDE, PAPER_SHARE = "inside DFS, paper's thresholds", "%, paper's thresholds"


def _inside(g: pd.DataFrame, th: regions.Thresholds | None, region: str) -> int | None:
    if th is None:
        return None
    return int(np.sum(regions.assign(g[X].to_numpy(float), g[Y].to_numpy(float), th) == region))


def hit_rates_by_source(frame: pd.DataFrame, th: regions.Thresholds | None,
                        paper: regions.Thresholds | None = None) -> pd.DataFrame:
    """Share of the optimised (DFS) pairs inside DFS per ``opt_source`` (rewriter surface-only,
    rewriter with algorithmic strategies, PIE fast programs, human-written clones), under ``th``
    and, in the last two columns, under the paper's thresholds ``paper``: a source whose
    SurfaceSim follows the released variants lands in DFS as often as they do only under the
    thresholds fitted to them."""
    rows = []
    for source in OPT_SOURCES:
        g = frame[frame["opt_source"] == source]
        if g.empty:
            continue
        inside, at_paper = _inside(g, th, "DFS"), _inside(g, paper, "DFS")
        lo, hi = wilson(inside, len(g)) if inside is not None else (None, None)
        rows.append({"Source": source, "n": len(g), "mean SurfaceSim": round(float(g[X].mean()), 3),
                     "inside DFS": inside, "%": round(100 * inside / len(g), 2) if inside is not None else None,
                     "CI low": lo, "CI high": hi, PAPER_INSIDE: at_paper,
                     PAPER_SHARE: round(100 * at_paper / len(g), 2) if at_paper is not None else None})
    return pd.DataFrame(rows, columns=["Source", "n", "mean SurfaceSim", "inside DFS", "%", "CI low", "CI high",
                                       PAPER_INSIDE, PAPER_SHARE])


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


# ----------------------------------------------------------------------------- repeated draws
def draw_seeds(seed: int, k: int) -> list[int]:
    """``k`` recorded seeds for repeated draws of LoCaL_balanced, derived from ``seed``."""
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


def draws_summary(table: pd.DataFrame) -> pd.DataFrame:
    """Per claim: mean, std and the 2.5-97.5 percentile range over the draws (the CI of the claims table)."""
    rows = []
    for col, cid in DRAW_CLAIMS.items():
        v = pd.to_numeric(table[col], errors="coerce").dropna().to_numpy(float) if col in table else np.array([])
        lo, hi = (np.quantile(v, [0.025, 0.975]) if len(v) > 1 else (np.nan, np.nan))
        rows.append({"claim_id": cid, "draws": len(v), "mean": float(v.mean()) if len(v) else np.nan,
                     "std": float(v.std(ddof=1)) if len(v) > 1 else np.nan, "CI low": float(lo), "CI high": float(hi)})
    return pd.DataFrame(rows)


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
    fig.suptitle(f"Regions from Algorithm 2: x_lo={th.x_lo:.2f}, x_hi={th.x_hi:.2f}, y_lo={th.y_lo:.2f}, y_hi={th.y_hi:.2f}"
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
