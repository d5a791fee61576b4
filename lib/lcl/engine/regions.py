"""SFD / DFS / Control regions (paper Eq. 4) and threshold selection (Algorithm 2).

Points are (x, y) = (SurfaceSim, df_score) in [0, 1]^2. For thresholds x_lo < x_hi and
y_lo < y_hi (Eq. 4):

- SFD (similar form, different semantics) = {x >= x_hi and y <= y_lo};
- DFS (different form, similar semantics) = {x <= x_lo and y >= y_hi};
- Control = everything else.

Algorithm 2 scans grid tuples (step Δ) and returns the one maximising the mean over metrics of
mean(err_DFS - err_CTRL, err_SFD - err_CTRL). The paper prints the scan over all of [0, 1]^4 with
no minimum region size, a per-region error it calls "MAE" but squares, and a strict ``obj > best``
(the first maximum in scan order wins). The authors' released script
(``Experiments/RQ3/scripts/calculate_thresholds.py`` of Dristi123/LoCaL-Countering-Surface-Bias-in-
Code-Evaluation-Metrics), which produced the paper's (0.65, 0.90, 0.10, 0.90), runs other rules:

- search bounds: every threshold on the grid 0.10, 0.15, ..., 0.90 (``vals(0.10, 0.90, 0.05)``),
  with x_lo and y_lo skipped above 0.65 (``> mid + lo_r + STEP`` = 0.5 + 0.10 + 0.05) and x_hi and
  y_hi skipped at 0.95 and above (``>= 1.0 - hi_r + STEP``): x_lo, y_lo in [0.10, 0.65] and
  x_hi, y_hi in [0.10, 0.90];
- minimum region sizes: at least 50 DFS, 50 SFD and 150 Control points (``MIN_DFS, MIN_SFD,
  MIN_CTRL``);
- the absolute error (``mae``: mean of ``abs(s - m)``), per metric the mean of its DFS and SFD gaps,
  then the mean over metrics (as printed);
- the tie rule: the results sorted, descending, on (objective rounded to 2 decimals, y_hi, -y_lo,
  x_hi, -x_lo): the highest rounded objective, then the higher y_hi, lower y_lo, higher x_hi,
  lower x_lo;
- step 0.05, as printed.

:class:`SearchRules` holds one such set of rules; :data:`AUTHORS` (the released script's),
:data:`AS_PRINTED` (Algorithm 2 as the paper prints it) and :data:`FLOOR_2PCT` (this compendium's
former rule: unbounded, squared error, every region at least 2% of the points) are named.
:func:`search` is the fast scan: 2-D prefix sums over the grid give every corner's count and error
sum, so the whole objective over the grid^4 tuples is a few array operations, not grid^4 passes
over the points. :func:`search_bruteforce` is a literal loop for tests. :func:`on_bounds` names the
thresholds that sit on an end of their search range.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, replace
from typing import Literal

import numpy as np

from lcl.core.errors import UserError

ErrorKind = Literal["squared", "absolute"]
#: how a tie on the (rounded) objective is broken: "authors" = higher y_hi, lower y_lo, higher x_hi,
#: lower x_lo (the released script's sort); "first" = the first in the printed loop order (x_lo,
#: x_hi, y_lo, y_hi ascending), what a strict ``obj > best`` keeps
TieBreak = Literal["authors", "first"]
KEYS = ("x_lo", "x_hi", "y_lo", "y_hi")


def error_kind(name: str) -> ErrorKind:
    """``name`` as Algorithm 2's error (a notebook parameter is a plain string): a mistyped one
    stops here rather than running as some other error."""
    if name == "squared":
        return "squared"
    if name == "absolute":
        return "absolute"
    raise UserError(f"error={name!r}: Algorithm 2's error is 'squared' or 'absolute'")


_EPS = 1e-9
#: objectives closer than this are equal (prefix sums and direct sums of one region differ in the last bits)
_TIE = 1e-12


@dataclass(frozen=True)
class SearchRules:
    """One way of running Algorithm 2's grid search (see the module docstring for the sources).

    ``lo_bounds`` bounds x_lo and y_lo, ``hi_bounds`` x_hi and y_hi (None: the whole grid, [0, 1]);
    ``min_sizes`` is the minimum (DFS, SFD, Control) size and ``min_share`` a minimum share of the
    points for every region (the larger of the two applies); ``tie_decimals`` rounds the objective
    before comparing (None: exact, up to 1e-12)."""

    name: str
    lo_bounds: tuple[float, float] | None = None
    hi_bounds: tuple[float, float] | None = None
    min_sizes: tuple[int, int, int] = (1, 1, 1)
    min_share: float = 0.0
    error: ErrorKind = "squared"
    tie_decimals: int | None = None
    tie_break: TieBreak = "first"
    step: float = 0.05

    def bounds(self) -> dict[str, tuple[float, float]]:
        """Each threshold's search range (the grid's [0, 1] where unbounded)."""
        lo, hi = self.lo_bounds or (0.0, 1.0), self.hi_bounds or (0.0, 1.0)
        return {"x_lo": lo, "y_lo": lo, "x_hi": hi, "y_hi": hi}

    def minimums(self, n: int) -> tuple[int, int, int]:
        """The minimum (DFS, SFD, Control) sizes for ``n`` fitted points."""
        floor = math.ceil(self.min_share * n - 1e-9) if self.min_share else 0
        return tuple(max(1, m, floor) for m in self.min_sizes)  # type: ignore[return-value]

    def describe(self) -> str:
        """The rules in words (for a table note or a notebook sentence)."""
        b = self.bounds()
        bounds = (f"x_lo, y_lo in [{b['x_lo'][0]:.2f}, {b['x_lo'][1]:.2f}], x_hi, y_hi in [{b['x_hi'][0]:.2f}, "
                  f"{b['x_hi'][1]:.2f}]" if self.lo_bounds or self.hi_bounds else "the whole grid")
        d, s, c = self.min_sizes
        sizes = "no minimum region size" if d == s == c == 1 else f"at least {d} DFS, {s} SFD and {c} Control points"
        if self.min_share:
            sizes += f", every region at least {self.min_share:.0%} of the points"
        tie = (f"objective rounded to {self.tie_decimals} decimals" if self.tie_decimals is not None
               else "exact objective")
        tie += ", ties to the higher y_hi, lower y_lo, higher x_hi, lower x_lo" if self.tie_break == "authors" else \
            ", the first maximum in scan order"
        return f"{bounds}; {sizes}; {self.error} error; {tie}; step {self.step:.2f}"

    def without(self, rule: str) -> SearchRules:
        """These rules with one removed: ``"bounds"`` (the whole grid), ``"min_sizes"`` (1 point per
        region), ``"error"`` (squared instead of absolute) or ``"tie"`` (the exact objective)."""
        name = f"{self.name}, without {RULE_NAMES.get(rule, rule)}"
        if rule == "bounds":
            return replace(self, name=name, lo_bounds=None, hi_bounds=None)
        if rule == "min_sizes":
            return replace(self, name=name, min_sizes=(1, 1, 1), min_share=0.0)
        if rule == "error":
            return replace(self, name=name, error="squared" if self.error == "absolute" else "absolute")
        if rule == "tie":
            return replace(self, name=name, tie_decimals=None)
        raise ValueError(f"no rule {rule!r}; one of {', '.join(RULE_NAMES)}")


#: the rules :meth:`SearchRules.without` removes, as a table names them
RULE_NAMES = {"bounds": "the search bounds", "min_sizes": "the minimum region sizes",
              "error": "the absolute error", "tie": "the rounded tie rule"}
#: the authors' released script (calculate_thresholds.py): the rules that gave the paper's thresholds
AUTHORS = SearchRules("authors' rules", lo_bounds=(0.10, 0.65), hi_bounds=(0.10, 0.90), min_sizes=(50, 50, 150),
                      error="absolute", tie_decimals=2, tie_break="authors")
#: Algorithm 2 as the paper prints it: the whole grid, no minimum, the squared error it prints, first maximum
AS_PRINTED = SearchRules("Algorithm 2 as printed")
#: this compendium's former rule: as printed, with every region at least 2% of the fitted points
FLOOR_2PCT = SearchRules("as printed with a 2% region floor", min_share=0.02)


@dataclass(frozen=True)
class Thresholds:
    x_lo: float
    x_hi: float
    y_lo: float
    y_hi: float
    objective: float
    step: float
    error: str
    rules: str = ""

    def to_dict(self) -> dict[str, float | str]:
        return asdict(self)


def on_bounds(th: Thresholds, rules: SearchRules) -> tuple[str, ...]:
    """The thresholds of ``th`` that sit on an end of their search range under ``rules`` (the
    search could not go further that way, so the value says where the search stopped, not where
    the data put the corner)."""
    b = rules.bounds()
    return tuple(k for k in KEYS if any(abs(getattr(th, k) - e) < _EPS for e in b[k]))


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


def _check(x: np.ndarray, y: np.ndarray, scores: dict[str, np.ndarray]) -> None:
    if not scores:
        raise ValueError("Algorithm 2 needs at least one metric")
    if x.shape != y.shape or any(np.shape(s) != x.shape for s in scores.values()):
        raise ValueError("x, y and every metric's scores must have the same length")


def _grid(step: float) -> np.ndarray:
    return np.round(np.arange(int(round(1 / step)) + 1) * step, 10)


def thresholds(x: np.ndarray, y: np.ndarray, scores: dict[str, np.ndarray], step: float = 0.05,
               error: ErrorKind = "squared", min_region: int = 1) -> Thresholds:
    """Algorithm 2 as printed (whole grid, first maximum) with every region holding at least
    ``min_region`` points: :func:`search` with those rules."""
    if min_region < 1:
        raise ValueError(f"min_region must be at least 1, not {min_region}")
    rules = SearchRules(f"as printed, {error} error, floor {min_region}", min_sizes=(min_region,) * 3, error=error,
                        step=step)
    return search(x, y, scores, rules)


def search(x: np.ndarray, y: np.ndarray, scores: dict[str, np.ndarray], rules: SearchRules = AUTHORS) -> Thresholds:
    """Algorithm 2 under ``rules``: the grid tuple (x_lo, x_hi, y_lo, y_hi) maximising the
    corner-vs-control gap among tuples inside the search bounds whose regions meet the minimum
    sizes, ties broken by the rules' tie rule. Raises ValueError when no tuple qualifies."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    _check(x, y, scores)
    grid = _grid(rules.step)
    g = len(grid) - 1
    err = _errors(y, scores, rules.error)  # (K, n)
    step = rules.step
    xi_ceil = np.clip(np.ceil(x / step - _EPS), 0, g).astype(int)  # smallest i with grid[i] >= x
    yi_floor = np.clip(np.floor(y / step + _EPS), 0, g).astype(int)  # largest i with grid[i] <= y
    xi_floor = np.clip(np.floor(x / step + _EPS), 0, g).astype(int)
    yi_ceil = np.clip(np.ceil(y / step - _EPS), 0, g).astype(int)
    # DFS(i1, j2): x <= grid[i1] <=> xi_ceil <= i1 ; y >= grid[j2] <=> yi_floor >= j2
    dfs_cnt, dfs_err = _corner_sums(xi_ceil, yi_floor, err, g, lower_x=True, lower_y=False)
    # SFD(i2, j1): x >= grid[i2] <=> xi_floor >= i2 ; y <= grid[j1] <=> yi_ceil <= j1
    sfd_cnt, sfd_err = _corner_sums(xi_floor, yi_ceil, err, g, lower_x=False, lower_y=True)
    # every array below is indexed [i1, i2, j1, j2] = (x_lo, x_hi, y_lo, y_hi)
    c_d = dfs_cnt[:, None, None, :]
    c_s = sfd_cnt[None, :, :, None]
    c_c = len(x) - c_d - c_s
    e_d, e_s = dfs_err[:, :, None, None, :], sfd_err[:, None, :, :, None]
    e_c = err.sum(axis=1)[:, None, None, None, None] - e_d - e_s
    with np.errstate(invalid="ignore", divide="ignore"):
        m_c = e_c / c_c
        obj = np.mean(((e_d / c_d - m_c) + (e_s / c_s - m_c)) / 2, axis=0)
    valid = _valid(grid, rules, c_d, c_s, c_c, len(x))
    if not valid.any():
        raise ValueError(f"no threshold tuple leaves at least {_min_text(rules, len(x))} in the three regions"
                         " inside the search bounds")
    i1, i2, j1, j2 = _pick(np.where(valid, obj, -np.inf), valid, rules)
    return Thresholds(float(grid[i1]), float(grid[i2]), float(grid[j1]), float(grid[j2]), float(obj[i1, i2, j1, j2]),
                      rules.step, rules.error, rules.name)


def _min_text(rules: SearchRules, n: int) -> str:
    d, s, c = rules.minimums(n)
    return f"{d} point(s)" if d == s == c else f"{d} DFS, {s} SFD and {c} Control point(s)"


def _valid(grid: np.ndarray, rules: SearchRules, c_d: np.ndarray, c_s: np.ndarray, c_c: np.ndarray,
           n: int) -> np.ndarray:
    """Tuples with x_lo < x_hi, y_lo < y_hi, each threshold inside its range and each region at its minimum."""
    b = rules.bounds()

    def inside(k: str) -> np.ndarray:
        lo, hi = b[k]
        return (grid >= lo - _EPS) & (grid <= hi + _EPS)

    idx = np.arange(len(grid))
    ok_x = (idx[:, None] < idx[None, :]) & inside("x_lo")[:, None] & inside("x_hi")[None, :]
    ok_y = (idx[:, None] < idx[None, :]) & inside("y_lo")[:, None] & inside("y_hi")[None, :]
    m_d, m_s, m_c = rules.minimums(n)
    return (ok_x[:, :, None, None] & ok_y[None, None, :, :] & (c_d >= m_d) & (c_s >= m_s) & (c_c >= m_c))


def _pick(obj: np.ndarray, valid: np.ndarray, rules: SearchRules) -> tuple[int, int, int, int]:
    """The chosen tuple's grid indices: the best (rounded) objective, ties by the rules' tie break."""
    stable = np.round(obj, 10)  # the same region set reached by different sums compares equal
    key = np.round(stable, rules.tie_decimals) if rules.tie_decimals is not None else stable
    best = key[valid].max()
    tol = _TIE if rules.tie_decimals is None else 1e-12
    cand = np.argwhere(valid & (key >= best - tol))  # rows (i1, i2, j1, j2), C order = the printed loop order
    if rules.tie_break == "first":
        return tuple(int(v) for v in cand[0])  # type: ignore[return-value]
    # the authors' sort: higher y_hi, lower y_lo, higher x_hi, lower x_lo
    order = np.lexsort((cand[:, 0], -cand[:, 1], cand[:, 2], -cand[:, 3]))
    return tuple(int(v) for v in cand[order[0]])  # type: ignore[return-value]


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


#: the paper's normalisation of a control point's distance (Section 4.5.2): the Euclidean distance
#: divided by sqrt(2), the diagonal of the unit square, so it lies in [0, 1]
DISTANCE_SCALE = math.sqrt(2)


def distance_to_corners(x: np.ndarray, y: np.ndarray, th: Thresholds, *, normalised: bool = False) -> np.ndarray:
    """Euclidean distance of each point to the nearest of the SFD and DFS rectangles (0 inside);
    ``normalised``: divided by sqrt(2) (:data:`DISTANCE_SCALE`), as the paper's 0.12 and 0.24 are
    (the authors' own points under the paper's thresholds give them only so)."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    d_sfd = np.hypot(np.maximum(th.x_hi - x, 0), np.maximum(y - th.y_lo, 0))
    d_dfs = np.hypot(np.maximum(x - th.x_lo, 0), np.maximum(th.y_hi - y, 0))
    d = np.minimum(d_sfd, d_dfs)
    return d / DISTANCE_SCALE if normalised else d


def search_bruteforce(x: np.ndarray, y: np.ndarray, scores: dict[str, np.ndarray],
                      rules: SearchRules = AUTHORS) -> Thresholds:
    """Algorithm 2 under ``rules`` as nested loops over the grid, each region's error summed
    directly and the tie rule applied as one sort (the released script's structure); slow, for
    tests on small data."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    _check(x, y, scores)
    err = _errors(y, scores, rules.error)
    b, (m_d, m_s, m_c) = rules.bounds(), rules.minimums(len(x))
    results = []
    grid = [float(v) for v in _grid(rules.step)]
    for order, (x1, x2, y1, y2) in enumerate((a, c, d, e) for a in grid for c in grid for d in grid for e in grid):
        values = {"x_lo": x1, "x_hi": x2, "y_lo": y1, "y_hi": y2}
        if not (x1 < x2 and y1 < y2) or any(not b[k][0] - _EPS <= v <= b[k][1] + _EPS for k, v in values.items()):
            continue
        dfs = (x <= x1 + _EPS) & (y >= y2 - _EPS)
        sfd = (x >= x2 - _EPS) & (y <= y1 + _EPS)
        ctrl = ~(dfs | sfd)
        if dfs.sum() < m_d or sfd.sum() < m_s or ctrl.sum() < m_c:
            continue
        obj = float(np.mean([((e[dfs].mean() - e[ctrl].mean()) + (e[sfd].mean() - e[ctrl].mean())) / 2 for e in err]))
        results.append((obj, order, (x1, x2, y1, y2)))
    if not results:
        raise ValueError(f"no threshold tuple leaves at least {_min_text(rules, len(x))} in the three regions")

    def key(r: tuple[float, int, tuple[float, float, float, float]]) -> tuple[float, ...]:
        obj = round(round(r[0], 10), rules.tie_decimals) if rules.tie_decimals is not None else round(r[0], 10)
        x1, x2, y1, y2 = r[2]
        return (obj, y2, -y1, x2, -x1) if rules.tie_break == "authors" else (obj, -r[1])

    best = max(results, key=key)
    x_lo, x_hi, y_lo, y_hi = best[2]
    return Thresholds(x_lo, x_hi, y_lo, y_hi, objective=best[0], step=rules.step, error=rules.error, rules=rules.name)


def thresholds_bruteforce(x: np.ndarray, y: np.ndarray, scores: dict[str, np.ndarray], step: float = 0.05,
                          error: ErrorKind = "squared", min_region: int = 1) -> Thresholds:
    """Algorithm 2 exactly as printed (nested loops), with a minimum region size; slow, for tests."""
    return search_bruteforce(x, y, scores, SearchRules("as printed", min_sizes=(min_region,) * 3, error=error,
                                                       step=step))
