"""RQ1 (paper Section 4.3, Table 3): do CEMs follow surface similarity when behaviour is fixed?

On PIE's slow/fast pairs (accepted solutions of the same problem: functional similarity 1.0)
every CEM is compared with SurfaceSim (Eq. 1) by Spearman's rho; Shapiro-Wilk on each
variable justifies a rank correlation, and a percentile bootstrap gives a 95% CI.
An ideal CEM would show rho = 0: its score would not depend on how the code looks.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from lcl.core import claim_links
from lcl.core.claim_links import Link
from lcl.core.records import Pair
from lcl.engine import stats
from lcl.study import scoring
from lcl.study.sources import not_computed

if TYPE_CHECKING:
    from matplotlib.figure import Figure

TABLE3 = "table3_correlation"
#: Table 3's claims (rho with its bootstrap CI) and the values Section 4.3's conclusions need
#: (p-value, CrystalBLEU's zeros)
CLAIMS: list[Link] = [
    *(Link(f"T3.{scoring.paper_name(scoring.label(m))}.rho", TABLE3, "Metric", scoring.label(m), "rho",
           low="CI low", high="CI high") for m in scoring.CEMS),
    *(Link(f"aux.T3.{scoring.paper_name(scoring.label(m))}.p", TABLE3, "Metric", scoring.label(m), "p-value",
           paper=False) for m in scoring.CEMS),
    Link("aux.T3.CrystalBLEU.zeros", TABLE3, "Metric", scoring.label("crystalbleu"), "zeros", paper=False),
    Link("aux.T3.CrystalBLEU.n", TABLE3, "Metric", scoring.label("crystalbleu"), "n", paper=False),
]


def with_paper(table: pd.DataFrame) -> pd.DataFrame:
    """Table 3 with the paper's rho beside ours (from the claim declarations)."""
    return claim_links.add_paper_columns(table, CLAIMS, TABLE3)


def sample_pairs(pairs: list[Pair], n: int | None, seed: int) -> list[Pair]:
    """``n`` PIE pairs drawn without replacement with ``seed`` (all, in file order, when ``n`` is None)."""
    if n is None or n >= len(pairs):
        return list(pairs)
    rng = np.random.default_rng(seed)
    idx = sorted(rng.choice(len(pairs), size=n, replace=False).tolist())
    return [pairs[i] for i in idx]


COLUMNS = ["Metric", "n", "rho", "p-value", "CI low", "CI high", "Shapiro p (SurfaceSim)", "Shapiro p (metric)",
           "zeros"]


def table3(scored: pd.DataFrame, *, n_boot: int, seed: int, columns: list[str] | None = None) -> pd.DataFrame:
    """Table 3: per CEM (or per column of ``columns``), n, Spearman rho with SurfaceSim, its
    p-value and bootstrap 95% CI, and the Shapiro-Wilk p-values of both variables."""
    x = scored[scoring.label(scoring.SURFACE)].to_numpy(float)
    rows = []
    for col in scoring.cem_columns(scored) if columns is None else columns:
        y = scored[col].to_numpy(float)
        ok = np.isfinite(x) & np.isfinite(y)
        if ok.sum() < 3:  # too few pairs (e.g. PIE not available): reported as not computed
            rows.append({"Metric": col, "n": int(ok.sum())})
            continue
        c = stats.spearman(x[ok], y[ok], n_boot=n_boot, seed=seed)
        rows.append({"Metric": col, "n": c.n, "rho": round(c.rho, 4), "p-value": c.p_value,
                     "CI low": round(c.ci_low, 4), "CI high": round(c.ci_high, 4),
                     "Shapiro p (SurfaceSim)": c.shapiro_p_x, "Shapiro p (metric)": c.shapiro_p_y,
                     "zeros": int(np.sum(y[ok] == 0))})
    return pd.DataFrame(rows, columns=COLUMNS)


def normal(table: pd.DataFrame, alpha: float = 0.05) -> bool:
    """True when Shapiro-Wilk does *not* reject normality for some variable (Spearman then
    needs another justification); the paper found every variable non-normal."""
    return bool(((table["Shapiro p (SurfaceSim)"] >= alpha) | (table["Shapiro p (metric)"] >= alpha)).any())


def found(table: pd.DataFrame, crystal: pd.DataFrame, n_scored: int) -> list[str]:
    """Notebook 03's sentences: each CEM's rho with its CI and sign beside the paper's, whether
    Shapiro-Wilk rejects normality (the reason for Spearman), and how often CrystalBLEU is exactly 0
    with the per-pair and the corpus ignore set (``crystal``: the sensitivity table)."""
    rows = table[table.rho.notna()]
    lines = [] if len(rows) else [not_computed(f"Spearman on {n_scored} equivalent PIE pairs")]
    for _, r in rows.iterrows():
        sign = "positive" if r["CI low"] > 0 else ("negative" if r["CI high"] < 0 else "not distinguishable from 0")
        lines.append(f"- **{r['Metric']}**: rho = {r['rho']:.3f} (95% CI {r['CI low']:.3f} to {r['CI high']:.3f}, "
                     f"p = {r['p-value']:.2g}); paper {r['rho (paper)']:.4f}. Correlation {sign}.")
    if len(rows):
        lines.append("- Shapiro-Wilk " + ("rejects normality for every variable, so Spearman is the right choice, as "
                                           "in the paper." if not normal(table) else
                                           "does not reject normality for some variable here (small sample); "
                                           "Spearman is kept for comparability with the paper."))
    if n_scored:
        lines.append(_crystal_zeros(crystal.set_index("Metric"), n_scored))
    return lines


def _crystal_zeros(s3: pd.DataFrame, n_scored: int) -> str:
    zeros = {m: int(s3.zeros[m]) if s3.zeros[m] == s3.zeros[m] else 0 for m in s3.index}
    rhos = {m: s3.rho[m] for m in s3.index if "rho" in s3 and s3.rho[m] == s3.rho[m]}
    return ("- CrystalBLEU with the per-pair ignore set (the paper's way) gives exactly 0 on "
            f"{zeros.get('CrystalBLEU', 0)} of {n_scored} pairs"
            + (f" and rho = {rhos['CrystalBLEU']:.3f}" if "CrystalBLEU" in rhos else "")
            + "; with the corpus ignore set (sensitivity) it gives 0 on "
            f"{zeros.get('CrystalBLEU[corpus]', 0)} pairs"
            + (f" and rho = {rhos['CrystalBLEU[corpus]']:.3f}" if "CrystalBLEU[corpus]" in rhos else "")
            + f" (paper rho {claim_links.paper_value('T3.CrystalBLEU.rho'):.4f}).")


def mean_surface(scored: pd.DataFrame) -> dict[str, float]:
    """The mean SurfaceSim of the scored pairs, rounded as the notebook prints it."""
    return {"mean SurfaceSim": round(float(np.mean(scored["SurfaceSim"].to_numpy(float))), 3)}


def plot_scatter(scored: pd.DataFrame, table: pd.DataFrame, cems: list[str]) -> Figure:
    """Figure: one panel per CEM, its score against SurfaceSim on the equivalent PIE pairs of
    ``scored``, titled with its rho and 95% CI from Table 3 (``table``, one row per CEM in
    ``cems``' order)."""
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(cems), figsize=(3.2 * len(cems), 3.2), sharex=True, squeeze=False)
    x = scored["SurfaceSim"].to_numpy(float)
    for ax, col, (_, r) in zip(axes[0], cems, table.iterrows(), strict=True):
        ax.scatter(x, scored[col], s=6, alpha=0.5)
        ax.set_title(f"{col}\nrho = {stats.with_ci(r['rho'], r['CI low'], r['CI high'])}", fontsize=9)
        ax.set_xlabel("SurfaceSim (Eq. 1)")
        ax.set_ylim(-0.02, 1.02)
    axes[0][0].set_ylabel("CEM score (df_score = 1)")
    fig.tight_layout()
    return fig
