"""SFD / DFS / Control regions (paper Eq. 4) and threshold selection (Algorithm 2).

Points are (x, y) = (SurfaceSim, df_score) in [0, 1]^2. For thresholds x_lo < x_hi and
y_lo < y_hi (Eq. 4):

- SFD (similar form, different semantics) = {x >= x_hi and y <= y_lo};
- DFS (different form, similar semantics) = {x <= x_lo and y >= y_hi};
- Control = everything else.

Algorithm 2 scans every grid tuple (step Δ) and returns the one maximising the mean over
metrics of mean(err_DFS - err_CTRL, err_SFD - err_CTRL). The paper's pseudocode calls the
per-region error "MAE" but squares it; ``error="squared"`` implements it *as printed* (the
default, so results are comparable), ``error="absolute"`` is the MAE its prose describes.
Tuples leaving any region empty are skipped (the paper does not say; an empty region has no
error); ``min_region`` raises that floor, so the scan cannot pick a corner of one or two points
whose mean error is noise (the size the study uses is :data:`lcl.rq.coverage.MIN_REGION_SHARE`). The scan uses 2-D prefix sums over the grid, so it is O(grid^4) additions, not
O(grid^4 x points).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Literal

import numpy as np

from lcl.core.errors import UserError

ErrorKind = Literal["squared", "absolute"]


def error_kind(name: str) -> ErrorKind:
    """``name`` as Algorithm 2's error (a notebook parameter is a plain string): a mistyped one
    stops here rather than running as some other error."""
    if name == "squared":
        return "squared"
    if name == "absolute":
        return "absolute"
    raise UserError(f"error={name!r}: Algorithm 2's error is 'squared' or 'absolute'")


_EPS = 1e-9


@dataclass(frozen=True)
class Thresholds:
    x_lo: float
    x_hi: float
    y_lo: float
    y_hi: float
    objective: float
    step: float
    error: str

    def to_dict(self) -> dict[str, float | str]:
        return asdict(self)


def assign(x: np.ndarray, y: np.ndarray, th: Thresholds) -> np.ndarray:
    """Region label per point: ``"SFD"``, ``"DFS"`` or ``"Control"`` (Eq. 4)."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    out = np.full(x.shape, "Control", dtype=object)
    out[(x >= th.x_hi - _EPS) & (y <= th.y_lo + _EPS)] = "SFD"
    out[(x <= th.x_lo + _EPS) & (y >= th.y_hi - _EPS)] = "DFS"
    return out


def _errors(y: np.ndarray, scores: dict[str, np.ndarray], error: ErrorKind) -> np.ndarray:
    diffs = np.stack([np.asarray(s, float) - y for s in scores.values()])  # (K, n)
    return diffs**2 if error == "squared" else np.abs(diffs)


def thresholds(x: np.ndarray, y: np.ndarray, scores: dict[str, np.ndarray], step: float = 0.05,
               error: ErrorKind = "squared", min_region: int = 1) -> Thresholds:
    """Algorithm 2: the grid tuple (x_lo, x_hi, y_lo, y_hi) maximising the corner-vs-control gap,
    among tuples whose SFD, DFS and Control regions each hold at least ``min_region`` points."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    if not scores:
        raise ValueError("Algorithm 2 needs at least one metric")
    if min_region < 1:
        raise ValueError(f"min_region must be at least 1, not {min_region}")
    if x.shape != y.shape or any(np.shape(s) != x.shape for s in scores.values()):
        raise ValueError("x, y and every metric's scores must have the same length")
    g = int(round(1 / step))
    grid = np.round(np.arange(g + 1) * step, 10)
    err = _errors(y, scores, error)  # (K, n)
    # bin index of each point: largest i with grid[i] <= x (for "x <= x1" we need x <= grid[i1])
    xi_ceil = np.clip(np.ceil(x / step - _EPS), 0, g).astype(int)  # smallest i with grid[i] >= x
    yi_floor = np.clip(np.floor(y / step + _EPS), 0, g).astype(int)  # largest i with grid[i] <= y
    xi_floor = np.clip(np.floor(x / step + _EPS), 0, g).astype(int)
    yi_ceil = np.clip(np.ceil(y / step - _EPS), 0, g).astype(int)
    # DFS(i1, j2): x <= grid[i1] <=> xi_ceil <= i1 ; y >= grid[j2] <=> yi_floor >= j2
    dfs_cnt, dfs_err = _corner_sums(xi_ceil, yi_floor, err, g, lower_x=True, lower_y=False)
    # SFD(i2, j1): x >= grid[i2] <=> xi_floor >= i2 ; y <= grid[j1] <=> yi_ceil <= j1
    sfd_cnt, sfd_err = _corner_sums(xi_floor, yi_ceil, err, g, lower_x=False, lower_y=True)
    total_cnt, total_err = len(x), err.sum(axis=1)
    best, best_t = -np.inf, None
    idx = np.arange(g + 1)
    for i1 in range(g + 1):
        for i2 in idx[idx > i1]:
            # arrays over (j1, j2)
            c_d = dfs_cnt[i1][None, :]  # depends on j2
            e_d = dfs_err[:, i1][:, None, :]
            c_s = sfd_cnt[i2][:, None]  # depends on j1
            e_s = sfd_err[:, i2][:, :, None]
            c_c = total_cnt - c_d - c_s
            e_c = total_err[:, None, None] - e_d - e_s
            valid = ((c_d >= min_region) & (c_s >= min_region) & (c_c >= min_region)
                     & (idx[:, None] < idx[None, :]))
            if not valid.any():
                continue
            with np.errstate(invalid="ignore", divide="ignore"):
                m_d, m_s, m_c = e_d / c_d, e_s / c_s, e_c / c_c
                obj = np.mean(((m_d - m_c) + (m_s - m_c)) / 2, axis=0)
            obj = np.where(valid, obj, -np.inf)
            j1, j2 = np.unravel_index(np.argmax(obj), obj.shape)
            if obj[j1, j2] > best + 1e-12:
                best, best_t = float(obj[j1, j2]), (grid[i1], grid[i2], grid[j1], grid[j2])
    if best_t is None:
        raise ValueError(f"no threshold tuple leaves at least {min_region} point(s) in each of the three regions")
    return Thresholds(float(best_t[0]), float(best_t[1]), float(best_t[2]), float(best_t[3]), best, step, error)


def _corner_sums(xi: np.ndarray, yi: np.ndarray, err: np.ndarray, g: int, *, lower_x: bool,
                 lower_y: bool) -> tuple[np.ndarray, np.ndarray]:
    """Counts and error sums of points in a corner, for every grid corner (a, b).

    ``lower_x``: points with xi <= a (else xi >= a); ``lower_y``: yi <= b (else yi >= b).
    Returns counts (g+1, g+1) and error sums (K, g+1, g+1), indexed [a, b].
    """
    k = err.shape[0]
    cnt = np.zeros((g + 1, g + 1))
    esum = np.zeros((k, g + 1, g + 1))
    np.add.at(cnt, (xi, yi), 1)
    for m in range(k):
        np.add.at(esum[m], (xi, yi), err[m])

    def cum(a: np.ndarray, axis: int, lower: bool) -> np.ndarray:
        return np.cumsum(a, axis=axis) if lower else np.flip(np.cumsum(np.flip(a, axis=axis), axis=axis), axis=axis)

    cnt = cum(cum(cnt, 0, lower_x), 1, lower_y)
    esum = cum(cum(esum, 1, lower_x), 2, lower_y)
    return cnt, esum


def region_counts(labels: np.ndarray) -> dict[str, int]:
    return {r: int(np.sum(labels == r)) for r in ("SFD", "DFS", "Control")}


def distance_to_corners(x: np.ndarray, y: np.ndarray, th: Thresholds) -> np.ndarray:
    """Euclidean distance of each point to the nearest of the SFD and DFS rectangles (0 inside)."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    d_sfd = np.hypot(np.maximum(th.x_hi - x, 0), np.maximum(y - th.y_lo, 0))
    d_dfs = np.hypot(np.maximum(x - th.x_lo, 0), np.maximum(th.y_hi - y, 0))
    return np.minimum(d_sfd, d_dfs)


def thresholds_bruteforce(x: np.ndarray, y: np.ndarray, scores: dict[str, np.ndarray], step: float = 0.05,
                          error: ErrorKind = "squared", min_region: int = 1) -> Thresholds:
    """Algorithm 2 exactly as printed (nested loops); slow, for tests on small data."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    err = _errors(y, scores, error)
    grid = np.round(np.arange(int(round(1 / step)) + 1) * step, 10)
    best, best_t = -np.inf, None
    for x1 in grid:
        for x2 in grid:
            for y1 in grid:
                for y2 in grid:
                    if not (x1 < x2 and y1 < y2):
                        continue
                    dfs = (x <= x1 + _EPS) & (y >= y2 - _EPS)
                    sfd = (x >= x2 - _EPS) & (y <= y1 + _EPS)
                    ctrl = ~(dfs | sfd)
                    if min(dfs.sum(), sfd.sum(), ctrl.sum()) < min_region:
                        continue
                    gaps = [((e[dfs].mean() - e[ctrl].mean()) + (e[sfd].mean() - e[ctrl].mean())) / 2 for e in err]
                    obj = float(np.mean(gaps))
                    if obj > best + 1e-12:
                        best, best_t = obj, (x1, x2, y1, y2)
    assert best_t is not None
    x_lo, x_hi, y_lo, y_hi = map(float, best_t)
    return Thresholds(x_lo, x_hi, y_lo, y_hi, objective=best, step=step, error=error)
