"""Statistics used by the research questions: Spearman's rho with a bootstrap CI and the
Shapiro-Wilk check that motivates it (RQ1, Table 3), distinguishability (Eq. 3, RQ2,
Table 4) and mean absolute error (Section 4.2, RQ4/RQ5). All resampling is seeded."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
from scipy import stats as sps


@dataclass(frozen=True)
class Correlation:
    n: int
    rho: float
    p_value: float
    ci_low: float
    ci_high: float
    shapiro_p_x: float
    shapiro_p_y: float

    def to_dict(self) -> dict[str, float]:
        return asdict(self)


def spearman(x: np.ndarray, y: np.ndarray, *, n_boot: int = 2000, seed: int = 0, alpha: float = 0.05) -> Correlation:
    """Spearman's rho, its p-value, a percentile bootstrap CI and Shapiro-Wilk p-values of x, y."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    if x.shape != y.shape or len(x) < 3:
        raise ValueError("spearman needs two equally long samples of at least 3 values")
    res = sps.spearmanr(x, y)
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, len(x), size=(n_boot, len(x)))
    boots = np.array([sps.spearmanr(x[i], y[i]).statistic for i in idx])
    boots = boots[np.isfinite(boots)]
    lo, hi = np.quantile(boots, [alpha / 2, 1 - alpha / 2]) if len(boots) else (np.nan, np.nan)
    sx = sps.shapiro(x).pvalue if np.ptp(x) > 0 else 0.0
    sy = sps.shapiro(y).pvalue if np.ptp(y) > 0 else 0.0
    return Correlation(len(x), float(res.statistic), float(res.pvalue), float(lo), float(hi), float(sx), float(sy))


def distinguishability(intra: np.ndarray, inter: np.ndarray) -> float:
    """Eq. 3: mean metric score on equivalent (intra-class) pairs / mean on non-equivalent pairs.

    ``inf`` when the non-equivalent mean is 0 and the equivalent mean is positive.
    """
    a, b = float(np.mean(intra)), float(np.mean(inter))
    if b == 0:
        return float("inf") if a > 0 else float("nan")
    return a / b


def mae(scores: np.ndarray, truth: np.ndarray) -> float:
    """Section 4.2: mean |m_k(r) - y_r| over the pairs of a dataset."""
    s, t = np.asarray(scores, float), np.asarray(truth, float)
    if s.shape != t.shape or not len(s):
        raise ValueError("mae needs two equally long, non-empty arrays")
    return float(np.mean(np.abs(s - t)))


def bootstrap_ci(values: np.ndarray, stat=np.mean, *, n_boot: int = 2000, seed: int = 0,
                 alpha: float = 0.05) -> tuple[float, float]:
    """Percentile bootstrap CI of ``stat(values)``."""
    v = np.asarray(values, float)
    rng = np.random.default_rng(seed)
    boots = np.array([stat(v[rng.integers(0, len(v), len(v))]) for _ in range(n_boot)])
    lo, hi = np.quantile(boots, [alpha / 2, 1 - alpha / 2])
    return float(lo), float(hi)


def wilson(k: int, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """Wilson score interval (95% by default) of a share ``k / n``; (nan, nan) when ``n`` = 0."""
    if n <= 0:
        return float("nan"), float("nan")
    p = k / n
    den = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / den
    half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    # the bounds at k = 0 and k = n are exactly 0 and 1 (rounding would leave 1e-18 there)
    return (0.0 if k == 0 else max(0.0, float(centre - half))), (1.0 if k == n else min(1.0, float(centre + half)))


# ----------------------------------------------------------------------------- numbers as text
def number(x: Any) -> str:
    """A number for reading: integers as such, else 3 significant digits; NaN/None as an em dash."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "—"
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return str(x)
    if float(x).is_integer() and abs(x) < 1e15:
        return f"{int(x):,}" if abs(x) >= 10_000 else str(int(x))
    return f"{x:.3g}"


def with_ci(value: Any, low: Any, high: Any) -> str:
    """``0.77 [0.76, 0.78]``; the value alone when the CI is missing."""
    if any(v is None or (isinstance(v, float) and math.isnan(v)) for v in (low, high)):
        return number(value)
    return f"{number(value)} [{number(low)}, {number(high)}]"
