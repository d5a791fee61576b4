"""Study X1: how wrong are sparse tests? (notebook 09)

The paper labels a pair with Algorithm 1's ``df_score`` over R runs of N generated inputs
(N = 2000 functions / 1000 programs). Related benchmarks label equivalence from far fewer
tests: a benchmark's own asserts (HumanEval's ``check``, MBPP's three asserts, APPS' example
tests) or about a hundred fuzzed inputs (CodeScore's labels); Code2Bench's "near-perfect" band
(0.98 <= pass rate < 1) is where a handful of tests can most easily call a wrong program right.
This module measures, on the curated LoCaL pairs, what such sparse ground truths would have
said:

(a) the benchmark's own tests only -- the positions of run 0's input list that hold the task's
    own seed inputs (:func:`lcl.study.task_specs.resolve_published` opens every run with the
    seed inputs, own ones first, see :func:`lcl.engine.inputs.generate.task_seeds`);
(b) the first 100 inputs of run 0 (a run opens with the task's seed inputs -- own tests, then the
    extended tests of HumanEval-ET / MBPP-ET -- and continues with generated ones); as a
    sensitivity, (b') the first 100 *generated* inputs, after the seed inputs;
(c) the archived ``df_score`` (all N inputs, R runs).

Run 0 is re-executed with ``fuzz_pair(..., only_runs=[0])`` under the pair's archived generator,
seed and settings, so that every prefix of its verdict string is an exact "what if N were
smaller" of the archived label; whether run 0 reproduces the archived ``run_scores[0]`` is
recorded per pair. The pure functions (prefix scores, Wilson intervals, convergence summaries,
paired bootstrap of MAE differences) work on verdict strings and tables and are unit-tested
without fuzzing.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypedDict

import numpy as np
import pandas as pd

from lcl.core import cache, seeds
from lcl.core.records import Finding, LabelCounts, PairRow, df_of
from lcl.engine.fuzz import semantics as S
from lcl.engine.fuzz.algorithm import code_digest, fuzz_pair
from lcl.engine.fuzz.batch import generator_name
from lcl.engine.inputs.generate import task_seeds
from lcl.engine.stats import wilson
from lcl.study.task_specs import SpecGenerator, all_spec_uids, resolve_published, tasks_for

if TYPE_CHECKING:
    from matplotlib.figure import Figure

#: the log grid of input counts for the convergence curve (capped at each pair's N)
N_GRID: tuple[int, ...] = (10, 20, 50, 100, 200, 500, 1000, 2000)
#: (b): CodeScore-style labels come from on the order of a hundred fuzzed inputs
SPARSE_N = 100
#: Code2Bench's near-perfect band of a pass rate: [low, 1)
NEAR_PERFECT_LOW = 0.98
#: convergence: a pair has converged at N when |df(N) - df(full)| <= this
TOLERANCE = 0.05
#: ... and N is enough when this share of pairs has converged
COVERAGE = 0.90


# ------------------------------------------------------------------------------- verdict strings
def positions_score(verdicts: str, positions: Sequence[int]) -> float | None:
    """Algorithm 1's run score on a subset of a run's inputs: matches / valid inputs among
    ``positions`` (invalid inputs, ``I``, are excluded as in :func:`lcl.engine.fuzz.semantics.score_run`);
    None when no position holds a valid input."""
    chars = [verdicts[p] for p in positions if 0 <= p < len(verdicts)]
    valid = [c for c in chars if c != S.INVALID]
    if not valid:
        return None
    return sum(c == S.MATCH for c in valid) / len(valid)


def prefix_score(verdicts: str, n: int) -> float | None:
    """df(N) of one run: its score had it stopped after its first ``n`` inputs."""
    return positions_score(verdicts, range(min(n, len(verdicts))))


def grid_for(n_full: int, grid: Sequence[int] = N_GRID) -> list[int]:
    """The grid points below a pair's own N, then N itself."""
    return [n for n in grid if n < n_full] + [n_full]


def share(flags: Sequence[bool]) -> dict[str, float | int]:
    """Share of True among ``flags`` with its Wilson 95% interval."""
    k, n = int(sum(bool(f) for f in flags)), len(flags)
    lo, hi = wilson(k, n)
    return {"k": k, "n": n, "share": k / n if n else float("nan"), "ci_low": lo, "ci_high": hi}


def archived_interval(counts: LabelCounts | None) -> tuple[int, int, float, float]:
    """(matches, valid inputs, Wilson low, high) of an archived label's pooled verdict counts
    (over its kept runs): how precisely N x R inputs pin a pair's df_score down."""
    if not counts:
        return 0, 0, float("nan"), float("nan")
    valid = counts["matches"] + counts["mismatches"] + counts["timeouts"] + counts["crashes"] + counts["skipped"]
    k = counts["matches"]
    return (k, valid, *wilson(k, valid))


# ------------------------------------------------------------------------------- tables
def convergence(per_pair: pd.DataFrame, grid: Sequence[int] = N_GRID) -> pd.DataFrame:
    """One row per (pair, N): ``|df(N) - df(full)|`` of run 0, from columns ``df_N<n>`` and
    ``run0_full``, at the grid points below the pair's own N and at N itself (a quick-profile pair
    has no df(2000); a smoke pair's N = 40 is off the grid)."""
    rows = []
    for r in per_pair.itertuples(index=False):
        full = r.run0_full
        if full is None or (isinstance(full, float) and math.isnan(full)):
            continue
        for n in grid_for(int(r.n_full), grid):
            v = getattr(r, f"df_N{n}", None)
            if v is None or (isinstance(v, float) and math.isnan(v)):
                continue
            rows.append({"id": r.id, "benchmark": r.benchmark, "variant_type": r.variant_type, "level": r.level, "N": n,
                         "abs_error": abs(float(v) - float(full))})
    return pd.DataFrame(rows, columns=["id", "benchmark", "variant_type", "level", "N", "abs_error"])


def convergence_summary(conv: pd.DataFrame, tol: float = TOLERANCE) -> pd.DataFrame:
    """Per N: pairs, median and 90th percentile of |df(N) - df(full)|, share within ``tol``."""
    if conv.empty:
        return pd.DataFrame(columns=["N", "pairs", "median", "p90", "max", "within_tol"])
    g = conv.groupby("N").abs_error
    out = pd.DataFrame({"pairs": g.size(), "median": g.median(), "p90": g.quantile(0.9), "max": g.max(),
                        "within_tol": g.apply(lambda s: float((s <= tol + 1e-12).mean()))}).reset_index()
    return out


def smallest_sufficient_n(summary: pd.DataFrame, coverage: float = COVERAGE) -> int | None:
    """The smallest grid N at which at least ``coverage`` of the pairs are within tolerance
    (and stay so at every larger N); None when no grid point qualifies."""
    ok = summary.sort_values("N")
    ns, good = ok.N.tolist(), (ok.within_tol >= coverage - 1e-12).tolist()
    for i, n in enumerate(ns):
        if all(good[i:]):
            return int(n)
    return None


def stratified_sample(rows: list[PairRow], per_stratum: int | None, seed: int) -> list[PairRow]:
    """At most ``per_stratum`` rows per (benchmark, variant_type), a seeded sample; all rows when
    ``per_stratum`` is None. Order: by id, so the sample does not depend on the input order."""
    rows = sorted(rows, key=lambda r: r["id"])
    if per_stratum is None:
        return rows
    groups: dict[tuple[str | None, str], list[PairRow]] = {}
    for r in rows:
        groups.setdefault((r["benchmark"], r["variant_type"]), []).append(r)
    out: list[PairRow] = []
    for key_ in sorted(groups):
        g = groups[key_]
        out += g if len(g) <= per_stratum else seeds.rng("x1", seed, key_).sample(g, per_stratum)
    return sorted(out, key=lambda r: r["id"])


def paired_mae(scores: np.ndarray, truths: dict[str, np.ndarray], base: str, *, n_boot: int, seed: int) -> list[dict[str, Any]]:
    """MAE (Section 4.2) of one CEM against each ground truth in ``truths``, with percentile
    bootstrap CIs, and the paired difference to the MAE against ``truths[base]`` (same resampled
    pairs for both, so the CI of the difference reflects only the change of ground truth)."""
    s = np.asarray(scores, float)
    errs = {k: np.abs(s - np.asarray(v, float)) for k, v in truths.items()}
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, len(s), size=(n_boot, len(s))) if len(s) else np.zeros((0, 0), int)
    out = []
    for k, e in errs.items():
        boots = e[idx].mean(axis=1) if len(s) else np.array([np.nan])
        diff = (e - errs[base])
        dboots = diff[idx].mean(axis=1) if len(s) else np.array([np.nan])
        out.append({"ground_truth": k, "n": len(s), "mae": float(e.mean()) if len(s) else float("nan"),
                    "ci_low": float(np.quantile(boots, 0.025)), "ci_high": float(np.quantile(boots, 0.975)),
                    "change_vs_" + base: float(diff.mean()) if len(s) else float("nan"),
                    "change_ci_low": float(np.quantile(dboots, 0.025)),
                    "change_ci_high": float(np.quantile(dboots, 0.975))})
    return out


# ------------------------------------------------------------------------------- fuzzing run 0
@dataclass(frozen=True)
class Run0:
    """Run 0 of a pair's archived label, re-executed: its verdict string and cost."""

    verdicts: str
    score: float | None
    excluded: bool
    seed: int
    seconds: float  # wall time of the fuzz_pair call when it was computed (cached runs keep it)
    own_positions: tuple[int, ...]  # where the benchmark's own test inputs sit in the run's inputs
    n_seeds: int = 0  # seed inputs (own + extended tests) that open the run, before the generated ones


def own_positions(uid: str, spec: Any, n: int) -> tuple[int, ...]:
    """Indices, among a run's first ``n`` inputs, of the task's own benchmark tests: seed inputs
    are every task's :func:`~lcl.engine.inputs.generate.task_seeds` in order, each task's own ones
    (``extra["n_own_seeds"]``, all of them for APPS' examples) before its extended tests. PIE
    ships no tests: empty."""
    pos: list[int] = []
    off = 0
    for t in tasks_for(uid):
        seeds = task_seeds(t, spec)
        n_own = min(len(seeds), int(t.extra.get("n_own_seeds", len(t.seed_inputs))))
        pos += range(off, off + n_own)
        off += len(seeds)
    return tuple(p for p in pos if p < n)


class Run0Record(TypedDict):
    """Run 0 as cached (:func:`fuzz_run0`): its verdicts, score, exclusion, seed and time."""

    verdicts: str
    score: float | None
    excluded: bool
    seed: int
    seconds: float


def fuzz_run0(row: PairRow, settings: S.Settings, seed: int) -> Run0:
    """Run 0 of a LoCaL row's label: the generator :func:`~lcl.study.task_specs.resolve_published`
    gives its task (as :func:`lcl.study.labelling.candidate_batch` builds the batch), base seed ``seed``, the
    profile's settings. Cached by both codes, the generator's digest-bearing name, N, seed,
    settings and engine version, so a rerun fuzzes nothing."""
    spec = resolve_published({"id": row["id"], "reference": row["reference"], "candidate": row["candidate"],
                              "task": row["task"]})
    if spec is None:
        raise ValueError(f"{row['id']}: no task for this pair")
    gen, stdin = spec["generator"], bool(spec["stdin"])
    n = settings.n_default("program" if stdin else "function")
    k = cache.key("lcl-x1-run0", S.ENGINE_VERSION, code_digest(row["reference"]), code_digest(row["candidate"]),
                  spec["entry"], stdin, generator_name(gen), n, seed, settings.result_relevant())

    def compute() -> Run0Record:
        t0 = time.perf_counter()
        res = fuzz_pair(row["reference"], row["candidate"], entry=spec["entry"], stdin=stdin, generator=gen,
                        seed=seed, settings=settings, only_runs=[0], label=row["id"])
        r0 = res.runs[0]
        return {"verdicts": r0.verdicts, "score": r0.score, "excluded": r0.excluded, "seed": r0.seed,
                "seconds": time.perf_counter() - t0}

    d: Run0Record = cache.cached("x1-run0", k, compute)
    assert isinstance(gen, SpecGenerator)  # resolve_published gives our rows a spec's generator
    return Run0(d["verdicts"], d["score"], d["excluded"], d["seed"], d["seconds"],
                own_positions(str(row["task"]), gen.spec, n), min(len(gen.seed_inputs), n))


def _timeouts_invalid(counts: LabelCounts | None) -> int:
    """Inputs of the archived label that timed out, crashed or were invalid."""
    return 0 if counts is None else counts["timeouts"] + counts["crashes"] + counts["invalid"]


def pair_row(row: PairRow, r0: Run0, grid: Sequence[int] = N_GRID) -> dict[str, Any]:
    """One pair's line of the study table: archived label (c), run 0's reproduction, (a), (b),
    df(N) over the grid and the Wilson interval of the archived df_score."""
    archived = (row.get("run_scores") or [None])[0]
    m, valid, lo, hi = archived_interval(row.get("counts"))
    n_full = len(r0.verdicts)
    out: dict[str, Any] = {
        "id": row["id"], "benchmark": row["benchmark"], "variant_type": row["variant_type"], "level": row["level"],
        "n_full": n_full,
        "df_c": df_of(row), "run0_archived": archived, "run0_full": r0.score,
        "run0_excluded": r0.excluded,
        # time-dependent verdicts (variant timeouts, invalid inputs where the reference timed out) on
        # either side: where a re-execution on another machine may legitimately differ
        "run0_timeouts": r0.verdicts.count(S.VTIMEOUT) + r0.verdicts.count(S.VCRASH),
        "run0_invalid": r0.verdicts.count(S.INVALID),
        "c_timeouts_invalid": _timeouts_invalid(row.get("counts")),
        "reproduces": archived is not None and r0.score is not None and archived == r0.score,
        "n_own": len(r0.own_positions), "df_a": positions_score(r0.verdicts, r0.own_positions) if r0.own_positions else None,
        "df_b": prefix_score(r0.verdicts, SPARSE_N),
        "n_seeds": r0.n_seeds,
        "df_b_generated": positions_score(r0.verdicts, range(r0.n_seeds, r0.n_seeds + SPARSE_N)),
        "c_matches": m, "c_valid": valid, "c_ci_low": lo, "c_ci_high": hi,
        "seconds": r0.seconds,
    }
    for n in sorted({*grid, n_full}):  # the pair's own N is the curve's last point even off the grid
        out[f"df_N{n}"] = prefix_score(r0.verdicts, n) if n <= n_full else None
    return out


def study_table(rows: list[PairRow], settings: S.Settings, seed: int, progress: bool = False,
                jobs: int = 1) -> pd.DataFrame:
    """The per-pair table of the study (:func:`pair_row` for each row, in the order of ``rows``).

    ``jobs`` > 1 re-executes that many pairs at once, in threads as :func:`lcl.engine.fuzz.run_batch`
    does: a pair's harness mostly waits for its sandboxed workers (one per pair), so J threads
    keep J cores busy. Each pair's run 0 depends only on its own codes, generator, seed and
    settings (budgets are charged in worker CPU time), so the table is the same for any ``jobs``.
    """
    return pd.DataFrame([pair_row(r, r0) for r, r0 in zip(rows, run0_all(rows, settings, seed, progress, jobs),
                                                          strict=True)])


def run0_all(rows: list[PairRow], settings: S.Settings, seed: int, progress: bool = False,
             jobs: int = 1) -> list[Run0]:
    """:func:`fuzz_run0` of every row, in the order of ``rows``, ``jobs`` pairs at a time."""
    bar: Any = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=len(rows), desc="run 0", unit="pair", leave=False)

    def one(row: PairRow) -> Run0:
        r0 = fuzz_run0(row, settings, seed)
        if bar is not None:
            bar.update(1)
        return r0

    try:
        if jobs <= 1 or len(rows) <= 1:
            return [one(r) for r in rows]
        all_spec_uids()  # builds the task index once, before the threads all need it
        with ThreadPoolExecutor(max_workers=jobs, thread_name_prefix="lcl-x1") as pool:
            return list(pool.map(one, rows))
    finally:
        if bar is not None:
            bar.close()


def equal_one(x: Any) -> bool:
    """Whether a score calls the pair equivalent (df = 1); missing scores do not."""
    return x is not None and not (isinstance(x, float) and math.isnan(x)) and float(x) >= 1.0


def sparse_false_equivalence(table: pd.DataFrame) -> pd.DataFrame:
    """Per benchmark x kind (and overall): the share of pairs that (a) / (b) calls equivalent
    (df = 1) while (c) does not (df_c < 1), with Wilson 95% intervals. (a) is computed over the
    pairs that have own tests (PIE has none: n/a)."""
    out = []
    groups = [(("all", "all"), table)] + [((b, k), g) for (b, k), g in table.groupby(["benchmark", "variant_type"])]
    for (b, k), g in groups:
        for which, col in (("(a) own tests", "df_a"), ("(b) first 100 inputs", "df_b"),
                           ("(b') first 100 generated inputs", "df_b_generated")):
            has = g[g[col].notna()]
            if has.empty:
                out.append({"benchmark": b, "variant_type": k, "ground_truth": which, "k": 0, "n": 0,
                            "share": float("nan"), "ci_low": float("nan"), "ci_high": float("nan"),
                            "note": "no own tests" if col == "df_a" else "no valid input"})
                continue
            flags = [equal_one(a) and not equal_one(c) for a, c in zip(has[col], has.df_c)]
            out.append({"benchmark": b, "variant_type": k, "ground_truth": which, **share(flags), "note": ""})
    return pd.DataFrame(out)


def near_perfect(table: pd.DataFrame, low: float = NEAR_PERFECT_LOW) -> pd.DataFrame:
    """Code2Bench's near-perfect band: per kind (and overall) the share of pairs with
    ``low <= df_c < 1`` and, among them, the share that (a) / (b) calls equivalent."""
    out = []
    for k, g in [("all", table)] + list(table.groupby("variant_type")):
        band = g[(g.df_c >= low) & (g.df_c < 1)]
        row = {"variant_type": k, **{f"band_{x}": v for x, v in share(list((g.df_c >= low) & (g.df_c < 1))).items()}}
        for name, col in (("a", "df_a"), ("b", "df_b")):
            has = band[band[col].notna()]
            s = share([equal_one(x) for x in has[col]])
            row.update({f"{name}_says_1": s["k"], f"{name}_n": s["n"], f"{name}_share": s["share"],
                        f"{name}_ci_low": s["ci_low"], f"{name}_ci_high": s["ci_high"]})
        out.append(row)
    return pd.DataFrame(out)


def width_distribution(table: pd.DataFrame) -> pd.DataFrame:
    """Distribution of the Wilson 95% interval widths of the archived df_scores, per kind."""
    out = []
    for k, g in [("all", table)] + list(table.groupby("variant_type")):
        w = (g.c_ci_high - g.c_ci_low).dropna()
        if w.empty:
            continue
        out.append({"variant_type": k, "pairs": len(w), "valid_inputs_median": float(g.c_valid.median()),
                    "width_median": float(w.median()), "width_p90": float(w.quantile(0.9)), "width_max": float(w.max()),
                    "share_width_over_0.05": float((w > 0.05).mean())})
    return pd.DataFrame(out)


def time_dependent(table: pd.DataFrame) -> pd.Series:
    """Pairs whose run 0 or archived label holds a time-dependent verdict or exclusion (a timeout,
    crash, invalid input, or an archived run 0 excluded for its time budget)."""
    return (table.run0_archived.isna() | table.run0_excluded.astype(bool) | (table.run0_timeouts > 0)
            | (table.run0_invalid > 0) | (table.c_timeouts_invalid > 0))


def reproduction(table: pd.DataFrame) -> pd.DataFrame:
    """How many pairs' run 0 reproduces the archived run_scores[0] exactly, per benchmark x kind."""
    rows = [{"benchmark": "all", "variant_type": "all", "pairs": len(table), "reproduced": int(table.reproduces.sum())}]
    for (b, k), g in table.groupby(["benchmark", "variant_type"]):
        rows.append({"benchmark": b, "variant_type": k, "pairs": len(g), "reproduced": int(g.reproduces.sum())})
    out = pd.DataFrame(rows)
    out["share"] = out.reproduced / out.pairs
    return out


def cost(table: pd.DataFrame) -> pd.DataFrame:
    """Wall seconds of run 0 per pair (when it was fuzzed), per benchmark."""
    rows = []
    for b, g in [("all", table)] + list(table.groupby("benchmark")):
        rows.append({"benchmark": b, "pairs": len(g), "total_s": float(g.seconds.sum()),
                     "median_s": float(g.seconds.median()), "max_s": float(g.seconds.max())})
    return pd.DataFrame(rows)


# ------------------------------------------------------------------------------- notebook 09's tables
#: the dataset labels of notebook 09's tables: LoCaL, and LoCaL-all as the sensitivity rows
LOCAL, LOCAL_ALL = "LoCaL", "LoCaL-all (sensitivity)"
#: the sparse ground truths of :func:`sparse_false_equivalence`, in its order
GROUND_TRUTHS = ("(a) own tests", "(b) first 100 inputs", "(b') first 100 generated inputs")
NOT_REPRODUCED_COLUMNS = ["id", "run0_archived", "run0_full", "run0_excluded", "run0_timeouts", "run0_invalid",
                          "c_timeouts_invalid", "time_dependent"]


def not_reproduced(*tables: pd.DataFrame) -> pd.DataFrame:
    """The pairs of :func:`study_table`'s ``tables`` (each pair once) whose run 0 did not reproduce the
    archived ``run_scores[0]``, flagged :func:`time_dependent` where a timeout, an invalid input or an
    excluded run can explain it."""
    off = pd.concat(tables).drop_duplicates("id")
    off = off[~off.reproduces.astype(bool)]
    return off.assign(time_dependent=time_dependent(off))[NOT_REPRODUCED_COLUMNS]


def convergence_table(per_pair: pd.DataFrame, paper_n: Mapping[str, int]) -> tuple[pd.DataFrame, dict[str, int | None]]:
    """:func:`convergence_summary` over every pair (level ``all``) and per level (function, program),
    with ``enough_N`` (:func:`smallest_sufficient_n` of the level) and ``paper_N`` (the paper's N of
    the level, Algorithm 1: ``paper_n``); also the enough N per level."""
    conv = convergence(per_pair)
    summary = pd.concat([convergence_summary(conv).assign(level="all")]
                        + [convergence_summary(g).assign(level=lv) for lv, g in conv.groupby("level")],
                        ignore_index=True)
    enough = {lv: smallest_sufficient_n(g) for lv, g in summary.groupby("level")}
    summary["enough_N"] = summary.level.map(enough)
    summary["paper_N"] = summary.level.map(paper_n)
    return summary, enough


def mae_table(scored: pd.DataFrame, per_pair: pd.DataFrame, cems: Sequence[str], *, n_boot: int,
              seed: int) -> pd.DataFrame:
    """Table 5's MAE (Section 4.2) of each CEM of ``scored`` against the ground truths (c), (b) and
    (a) of :func:`study_table`'s ``per_pair``, on the pairs that have all three and, for (b) against
    (c), on every pair with (b); with the paired bootstrap change from (c) (:func:`paired_mae`)."""
    m = scored.merge(per_pair[["id", "df_a", "df_b"]], on="id")
    both = m[m.df_a.notna() & m.df_b.notna()]
    rows = []
    for c in cems:
        for sub, g in (("pairs with (a), (b), (c)", both), ("all pairs, (b) vs (c)", m[m.df_b.notna()])):
            truths = {"(c) full": g.df_score.to_numpy(float), "(b) first 100": g.df_b.to_numpy(float)}
            if sub.startswith("pairs with"):
                truths["(a) own tests"] = g.df_a.to_numpy(float)
            for r in paired_mae(g[c].to_numpy(float), truths, "(c) full", n_boot=n_boot, seed=seed):
                rows.append({"CEM": c, "pairs": sub, **r})
    return pd.DataFrame(rows)


def plot_sparse_equivalence(fe: pd.DataFrame) -> Figure:
    """Figure: per benchmark x kind, the share of pairs each sparse ground truth calls equivalent
    while the full label does not (:func:`sparse_false_equivalence`, Wilson 95% bars), one panel for
    LoCaL and one for LoCaL-all; "n/a" where there is no such ground truth (PIE: no own tests)."""
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(12, 3.8), sharey=True)
    for ax, (name, frame) in zip(axes, (("LoCaL", LOCAL), ("LoCaL-all", LOCAL_ALL))):
        f = fe[(fe.dataset == frame) & (fe.benchmark != "all") & (fe.n > 0)]
        groups = sorted({(b, k) for b, k in zip(f.benchmark, f.variant_type)})
        x = np.arange(len(groups))
        for i, gt in enumerate(GROUND_TRUTHS):
            g = f[f.ground_truth == gt].set_index(["benchmark", "variant_type"])
            vals = np.array([g.loc[k, "share"] if k in g.index else np.nan for k in groups])
            lo = np.array([g.loc[k, "ci_low"] if k in g.index else np.nan for k in groups])
            hi = np.array([g.loc[k, "ci_high"] if k in g.index else np.nan for k in groups])
            ax.bar(x + (i - 1) * 0.27, vals, width=0.27, label=gt,
                   yerr=np.vstack([vals - lo, hi - vals]), capsize=2)
            for j in np.flatnonzero(np.isnan(vals)):  # PIE: no own tests
                ax.text(x[j] + (i - 1) * 0.27, 0.005, "n/a", ha="center", fontsize=6, rotation=90)
        ax.set_xticks(x, [f"{b}\n{k}" for b, k in groups], fontsize=6.5)
        ax.set_title(name, fontsize=9)
    axes[0].set_ylabel("share: sparse says 1, full label < 1")
    axes[0].legend(frameon=False, fontsize=7)
    fig.tight_layout()
    return fig


def plot_convergence(summary: pd.DataFrame, paper_n: Mapping[str, int], profile: str) -> Figure:
    """Figure: median and 90th percentile of |df(N) - df(full)| against N per level
    (:func:`convergence_table`), the paper's N of each level dotted and the tolerance in red."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3.6))
    for lv, g in summary[summary.level != "all"].groupby("level"):
        ax.plot(g.N, g["median"], marker="o", label=f"{lv}s: median")
        ax.plot(g.N, g.p90, marker="s", linestyle="--", label=f"{lv}s: 90th percentile")
        ax.axvline(paper_n[str(lv)], color="grey", linestyle=":", linewidth=1)
    ax.axhline(TOLERANCE, color="red", linewidth=0.8, label=f"tolerance {TOLERANCE}")
    ax.set_xscale("log")
    ax.set_xlabel("N (first N inputs of run 0); dotted: the paper's N")
    ax.set_ylabel("|df(N) - df(full)|")
    ax.legend(frameon=False, fontsize=7)
    ax.set_title(f"Convergence of df(N) on LoCaL ({profile})", fontsize=9)
    fig.tight_layout()
    return fig


# ------------------------------------------------------------------------------- notebook 09's findings
def overall(fe: pd.DataFrame, dataset: str, ground_truth: str) -> pd.Series:
    """The row of :func:`sparse_false_equivalence` over every benchmark for ``dataset`` and ``ground_truth``."""
    return fe[(fe.dataset == dataset) & (fe.benchmark == "all") & (fe.ground_truth == ground_truth)].iloc[0]


def worst_stratum_text(strata: pd.DataFrame, where: str) -> str:
    """The benchmark x kind stratum where own tests (a) most often call a pair equivalent that the
    full label does not (``strata``: rows of :func:`sparse_false_equivalence`, worst first)."""
    if not len(strata) or strata.iloc[0].k == 0:
        return f"no benchmark x kind stratum has such a pair {where}"
    r = strata.iloc[0]
    return (f"the worst stratum {where} is {r.benchmark} {r.variant_type}: {r.share:.1%} ({int(r.k)}/{int(r.n)}, "
            f"CI {r.ci_low:.1%}-{r.ci_high:.1%})")


def what_we_found(fe: pd.DataFrame, repro: pd.DataFrame, near: pd.DataFrame, widths: pd.DataFrame,
                  summary: pd.DataFrame, enough: Mapping[str, int | None], ours_n: Mapping[str, int],
                  paper_n: Mapping[str, int], off: pd.DataFrame, mae: pd.DataFrame) -> list[str]:
    """Notebook 09's "what we found" lines, each computed from its tables: run 0's reproduction
    (``repro``, ``off``: :func:`not_reproduced`), the sparse ground truths' false equivalences
    (``fe``) and the worst stratum, the near-perfect band (``near``), the df_score intervals
    (``widths``), the convergence of df(N) (``summary``, ``enough``: :func:`convergence_table`;
    our N and the paper's, Algorithm 1) and the CEMs' MAE under each ground truth (``mae``, Table 5's
    measure)."""
    fa, fb = overall(fe, LOCAL, GROUND_TRUTHS[0]), overall(fe, LOCAL, GROUND_TRUTHS[1])
    sa, sb = overall(fe, LOCAL_ALL, GROUND_TRUTHS[0]), overall(fe, LOCAL_ALL, GROUND_TRUTHS[1])
    fg, sg = overall(fe, LOCAL, GROUND_TRUTHS[2]), overall(fe, LOCAL_ALL, GROUND_TRUTHS[2])
    rep = repro[(repro.dataset == "LoCaL") & (repro.benchmark == "all")].iloc[0]
    band = near[(near.dataset == LOCAL) & (near.variant_type == "all")].iloc[0]
    band_all = near[(near.dataset == LOCAL_ALL) & (near.variant_type == "all")].iloc[0]
    w = widths[(widths.dataset == LOCAL) & (widths.variant_type == "all")].iloc[0]
    n100 = summary[(summary.level == "all") & (summary.N == SPARSE_N)]
    enough_txt = ", ".join(f"{lv}s: {'none of the grid' if v is None else v}"
                           f"{' (only the whole run itself)' if v == ours_n[lv] else ''} (ours {ours_n[lv]}, "
                           f"paper {paper_n[lv]})"
                           for lv, v in enough.items() if lv != "all")
    ratio_txt = ", ".join(f"{paper_n[lv] / v:g}x (functions)" if lv == "function" else f"{paper_n[lv] / v:g}x (programs)"
                          for lv, v in enough.items() if lv in paper_n and v)
    strata = fe[(fe.benchmark != "all") & (fe.ground_truth == GROUND_TRUTHS[0]) & (fe.n > 0)]
    worst = [strata[pick].sort_values(["share", "n"], ascending=False) for pick in (strata.dataset == LOCAL,
                                                                                     strata.dataset != LOCAL)]
    mae_c = mae[(mae.pairs == "pairs with (a), (b), (c)")]
    pivot = mae_c.pivot(index="CEM", columns="ground_truth", values="mae") if len(mae_c) else pd.DataFrame()
    lines = [
        f"- Run 0 reproduced the archived run_scores[0] exactly for {int(rep.reproduced)} of {int(rep.pairs)} LoCaL "
        f"pairs; over both samples {len(off)} pair(s) did not, {int(off.time_dependent.sum())} of them with a "
        "timeout, an input invalid by the reference's time, or an archived run excluded for time on one side "
        "(CPU-time limits near their cap can fall either way on another machine).",
        f"- On LoCaL, the own tests (a) call {fa.share:.1%} of pairs equivalent while the full label does not "
        f"({int(fa.k)}/{int(fa.n)}, 95% CI {fa.ci_low:.1%}-{fa.ci_high:.1%}); the first 100 inputs (b): {fb.share:.1%} "
        f"({int(fb.k)}/{int(fb.n)}, CI {fb.ci_low:.1%}-{fb.ci_high:.1%}). Curation keeps only mutants with df < 0.5, "
        f"which sparse tests seldom score 1; before curation (LoCaL-all sample): (a) {sa.share:.1%} "
        f"({int(sa.k)}/{int(sa.n)}, CI {sa.ci_low:.1%}-{sa.ci_high:.1%}), (b) {sb.share:.1%} ({int(sb.k)}/{int(sb.n)}). "
        f"With the seed inputs left out, the first 100 generated inputs (b') say so for {fg.share:.1%} of LoCaL "
        f"({int(fg.k)}/{int(fg.n)}) and {sg.share:.1%} of LoCaL-all ({int(sg.k)}/{int(sg.n)}).",
        f"- Near-perfect band (0.98 <= df < 1): {band.band_share:.1%} of LoCaL pairs ({int(band.band_k)}/"
        f"{int(band.band_n)}), {band_all.band_share:.1%} of the LoCaL-all sample ({int(band_all.band_k)}/"
        f"{int(band_all.band_n)}); of those, (a) calls {int(band_all.a_says_1)}/{int(band_all.a_n)} and (b) "
        f"{int(band_all.b_says_1)}/{int(band_all.b_n)} equivalent.",
        f"- Each archived df_score rests on a median of {w.valid_inputs_median:.0f} valid inputs; its Wilson 95% "
        f"interval has median width {w.width_median:.3f} (90th percentile {w.width_p90:.3f}).",
        "- " + (f"At N = {SPARSE_N}, |df(N) - df(full)| has median {n100['median'].iloc[0]:.3f} and 90th percentile "
                f"{n100.p90.iloc[0]:.3f}. " if len(n100) else "") + f"Smallest N with 90% of pairs within 0.05: "
        f"{enough_txt}" + (f"; the paper's N is {ratio_txt} that" if ratio_txt else "") + ".",
    ]
    lines.insert(2, f"- For (a), {worst_stratum_text(worst[0], 'on LoCaL')}; "
                    f"{worst_stratum_text(worst[1], 'before curation')}.")
    if len(pivot) and "(a) own tests" in pivot:
        lines.append("- MAE on the same pairs, ground truth (c) -> (b) -> (a): " + "; ".join(
            f"{c} {pivot.loc[c, '(c) full']:.3f} -> {pivot.loc[c, '(b) first 100']:.3f} -> "
            f"{pivot.loc[c, '(a) own tests']:.3f}" for c in pivot.index) + ".")
    return lines


def _share_finding(fid: str, quantity: str, r: pd.Series, what: str) -> Finding:
    return Finding(fid, "X1", quantity, float(r.share), f"{what}: {r.share:.1%} of {int(r.n)} pairs "
                   f"(95% CI {r.ci_low:.1%}-{r.ci_high:.1%}).", float(r.ci_low), float(r.ci_high), int(r.n))


def findings(fe: pd.DataFrame, repro: pd.DataFrame, widths: pd.DataFrame, summary: pd.DataFrame,
             enough: Mapping[str, int | None], ours_n: Mapping[str, int], paper_n: Mapping[str, int]) -> list[Finding]:
    """Study X1's findings (``tables/findings_09.csv``): the false-equivalence shares of (a) and (b) on
    LoCaL and LoCaL-all (``fe``), run 0's reproduction (``repro``), the median width of df(c)'s
    interval (``widths``), |df(100) - df(full)| and the enough N per level (``summary``, ``enough``:
    :func:`convergence_table`; our N and the paper's, Algorithm 1)."""
    fa, fb = overall(fe, LOCAL, GROUND_TRUTHS[0]), overall(fe, LOCAL, GROUND_TRUTHS[1])
    sa, sb = overall(fe, LOCAL_ALL, GROUND_TRUTHS[0]), overall(fe, LOCAL_ALL, GROUND_TRUTHS[1])
    rep = repro[(repro.dataset == "LoCaL") & (repro.benchmark == "all")].iloc[0]
    w = widths[(widths.dataset == LOCAL) & (widths.variant_type == "all")].iloc[0]
    n100 = summary[(summary.level == "all") & (summary.N == SPARSE_N)]
    found = [
        _share_finding("X1.own_tests_false_equivalence", "share of LoCaL pairs with df(a) = 1 and df(c) < 1", fa,
                       "Own benchmark tests call a LoCaL pair equivalent that the full label does not"),
        _share_finding("X1.first100_false_equivalence", "share of LoCaL pairs with df(b) = 1 and df(c) < 1", fb,
                       "The first 100 fuzzed inputs call a LoCaL pair equivalent that the full label does not"),
        _share_finding("X1.own_tests_false_equivalence_all", "share of LoCaL-all pairs with df(a) = 1 and df(c) < 1",
                       sa, "Before curation, own benchmark tests call a pair equivalent that the full label does not"),
        _share_finding("X1.first100_false_equivalence_all", "share of LoCaL-all pairs with df(b) = 1 and df(c) < 1",
                       sb, "Before curation, the first 100 inputs call a pair equivalent that the full label does not"),
        Finding("X1.run0_reproduced", "X1", "share of pairs whose run 0 reproduces run_scores[0]",
                float(rep.reproduced / rep.pairs),
                f"Run 0 fuzzed again reproduced the archived score of {int(rep.reproduced)} of {int(rep.pairs)} pairs.",
                n=int(rep.pairs)),
        Finding("X1.df_interval_width_median", "X1", "median Wilson 95% width of df(c)", float(w.width_median),
                f"The median LoCaL df_score is pinned to a 95% interval {w.width_median:.3f} wide by its inputs.",
                n=int(w.pairs)),
    ]
    if len(n100):
        found.append(Finding("X1.abs_error_at_100_p90", "X1", "90th percentile of |df(100) - df(full)|",
                             float(n100.p90.iloc[0]),
                             f"With the first 100 inputs, 90% of LoCaL pairs are within {n100.p90.iloc[0]:.3f} of their "
                             f"full-N score.", n=int(n100.pairs.iloc[0])))
    for lv in ("function", "program"):
        n = enough.get(lv)
        if n is not None:
            found.append(Finding(f"X1.enough_n_{lv}", "X1", f"smallest N with 90% of {lv} pairs within 0.05 of df(full)",
                                 float(n), f"For {lv}s, {n} inputs bring 90% of LoCaL pairs within "
                                 f"{TOLERANCE} of their score at our N = {ours_n[lv]} (the paper's N: {paper_n[lv]}).",
                                 n=int(summary[(summary.level == lv)].pairs.max())))
    return found
