"""Input quality of the study's tasks (notebook 01): validity, distinct inputs and branch coverage
of every task's spec (reviewed, else inferred) measured with :func:`lcl.engine.inputs.quality.measure`
in the engine, the comparison of the three input backends, and the reviewed scope.
"""

from __future__ import annotations

import json
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, TypedDict

import pandas as pd

from lcl.core import cache
from lcl.core.records import Task
from lcl.engine.inputs.quality import VALIDITY_TARGET, backend_inputs, cached_measure, probe
from lcl.engine.inputs.spec import Spec, dumps, load

from . import loaders
from .task_specs import all_spec_uids, check_references, reviewed_path, spec_for, spec_uid, task_uid_for_row

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["backend_comparison", "quality_table", "scope_uids", "summarise"]


class _BackendQuality(TypedDict):
    n_inputs: int
    n_distinct: int
    validity: float
    branch_coverage: float


def quality_table(uids: list[str], *, n: int = 200, seed: int = 0, jobs: int = 2, progress: bool = True) -> pd.DataFrame:
    """Quality of every task's stored spec (reviewed, else inferred) as a DataFrame.

    One row per reference checked (PIE: several accepted programs per problem). Results are
    cached by (reference, spec, n, seed), so a rerun only measures what changed.
    """
    from tqdm.auto import tqdm


    work = []
    for uid in uids:
        spec = spec_for(uid)
        for task in check_references(uid, 3):
            work.append((uid, task, spec))
    rows = []
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        futures = [pool.submit(cached_measure, t, s, n, seed) for _, t, s in work]
        for (uid, task, spec), fut in tqdm(zip(work, futures), total=len(work), disable=not progress,
                                          desc="input quality"):
            q = fut.result()
            rows.append({"task": uid, "reference": task.uid, "benchmark": uid.split("/")[0],
                         "spec_origin": spec.origin, "verified": spec.verified, "n_inputs": q.n_inputs,
                         "n_distinct": q.n_distinct, "validity": q.validity, "seed_validity": q.seed_validity,
                         "branch_coverage": q.branch_coverage,
                         "line_coverage": q.line_coverage, "missing_lines": q.missing_lines,
                         "verdicts": q.verdicts, "note": q.note or spec.notes})
    return pd.DataFrame(rows)


def backend_comparison(uids: list[str], *, n: int = 200, seed: int = 0, progress: bool = True) -> pd.DataFrame:
    """Validity, distinct inputs and branch coverage of the reference per backend and task."""
    from tqdm.auto import tqdm


    rows = []
    for uid in tqdm(uids, disable=not progress, desc="backends"):
        spec = spec_for(uid)
        if not (spec.args or spec.grammar):
            continue
        task = check_references(uid, 1)[0]
        for backend in ("seeded", "atheris", "hypothesis"):
            key = cache.key("inputs-backend-v1", backend, task.reference, dumps(spec, strict=False), n, seed)

            def compute(backend: str = backend, task: Task = task, spec: Spec = spec) -> _BackendQuality:
                inputs = backend_inputs(backend, task, spec, n, seed)
                out = probe(task.reference, task.entry_point, inputs,
                            timeout=1.0 if task.level == "function" else 2.0)
                verdicts = out.get("verdicts", [])
                cov = out.get("coverage") or {}
                nb = cov.get("num_branches", 0)
                return {"n_inputs": len(inputs), "n_distinct": len({repr(i) for i in inputs}),
                        "validity": (verdicts.count("ok") / len(verdicts)) if verdicts else float("nan"),
                        "branch_coverage": (cov["covered_branches"] / nb) if nb else (1.0 if cov else float("nan"))}

            rows.append({"task": uid, "benchmark": uid.split("/")[0], "backend": backend,
                         **cache.cached("inputs-backend", key, compute)})
    return pd.DataFrame(rows)


def scope_uids(profile_max: int | None = None) -> list[str]:
    """Spec ids in the reviewed scope: every task with a committed reviewed spec, the paper's selection
    (HumanEval, MBPP, PIE problems) and every task behind a CodeScore_test or published LoCaL
    pair; ``profile_max`` keeps the first k per benchmark."""
    known = set(all_spec_uids())
    chosen: list[str] = [u for u in known if reviewed_path(u).exists() and load(reviewed_path(u)).origin != "inferred"]
    for bench in ("HumanEval", "MBPP", "PIE"):
        if loaders.benchmark_available(bench):
            chosen += [spec_uid(t) for t in loaders.select(bench, loaders.LOADERS[bench]().tasks)]
    for name in ("CodeScore_test", "LoCaL_published"):
        try:
            pairs = loaders.PAIR_LOADERS[name]()
        except Exception:  # noqa: BLE001 - mirror-only sources may be absent
            continue
        chosen += [u for p in pairs if (u := task_uid_for_row({"id": p.id, "golden_code": p.reference})) in known]
    uids = sorted(dict.fromkeys(chosen), key=lambda u: (u.split("/")[0], u))
    if profile_max:
        out, per = [], Counter[str]()
        for u in uids:
            b = u.split("/")[0]
            if per[b] < profile_max:
                out.append(u)
                per[b] += 1
        return out
    return uids


def summarise(frame: pd.DataFrame) -> pd.DataFrame:
    """Per benchmark: tasks, share verified, validity (mean, min, share >= 95%), coverage."""
    if frame.empty:
        return pd.DataFrame()
    per_task = frame.groupby("task").agg(benchmark=("benchmark", "first"), verified=("verified", "first"),
                                      validity=("validity", "min"), branch=("branch_coverage", "min"))
    g = per_task.groupby("benchmark")
    return pd.DataFrame({
        "tasks": g.size(),
        "verified %": (100 * g["verified"].mean()).round(1),
        "mean validity": g["validity"].mean().round(4),
        "min validity": g["validity"].min().round(4),
        "tasks >= 95% valid %": (100 * g["validity"].apply(lambda v: (v >= VALIDITY_TARGET).mean())).round(1),
        "mean branch coverage": g["branch"].mean().round(4),
        "tasks at 100% branches %": (100 * g["branch"].apply(lambda v: (v >= 1.0 - 1e-9).mean())).round(1),
    }).reset_index()


def spec_status(uids: list[str]) -> pd.DataFrame:
    """Tasks in scope per benchmark (rows) and spec status (columns: verified, reviewed, inferred)."""
    status = pd.DataFrame([{"benchmark": u.split("/")[0],
                            "spec": ("verified" if spec_for(u).verified else spec_for(u).origin)} for u in uids])
    return status.value_counts().unstack(fill_value=0).reset_index() if not status.empty else status


#: the columns the table of references below a target shows
BELOW_COLUMNS = ["task", "reference", "spec_origin", "verified", "validity", "branch_coverage", "missing_lines", "note"]


def below_target(frame: pd.DataFrame) -> pd.DataFrame:
    """References of :func:`quality_table` below the validity target or 100% branch coverage, with
    the reviewer's note; the missing lines as JSON text."""
    below = frame[(frame.validity < VALIDITY_TARGET) | (frame.branch_coverage < 1.0)][BELOW_COLUMNS]
    return below.assign(missing_lines=below["missing_lines"].map(json.dumps))


def backend_sample(uids: list[str], tasks: int) -> list[str]:
    """About ``tasks`` of the tasks whose spec can generate inputs (arguments or a grammar), evenly
    spaced in ``uids``: the tasks on which the generators are compared."""
    usable = [u for u in uids if spec_for(u).args or spec_for(u).grammar]
    return usable[:: max(1, len(usable) // tasks)]


def by_backend(comparison: pd.DataFrame) -> pd.DataFrame:
    """Mean validity, branch coverage and distinct inputs per generator (:func:`backend_comparison`)."""
    return comparison.groupby("backend")[["validity", "branch_coverage", "n_distinct"]].mean().round(4).reset_index()


def found(summary: pd.DataFrame, below: pd.DataFrame, backends: pd.DataFrame, sampled: int) -> list[str]:
    """Notebook 01's sentences on the inputs: per benchmark, validity and coverage against the
    targets; how many references fall below one; which generator covers the most branches."""
    lines = [f"- **{r['benchmark']}**: {r['tasks']} tasks, {r['verified %']}% verified; mean validity "
             f"{r['mean validity']:.3f} (min {r['min validity']:.3f}; {r['tasks >= 95% valid %']}% of tasks "
             f"meet the 95% target); mean branch coverage {r['mean branch coverage']:.3f} "
             f"({r['tasks at 100% branches %']}% of tasks at 100%)." for _, r in summary.iterrows()]
    lines.append(f"- {len(below)} references fall below a target; each carries the reviewer's reason in `notes`.")
    best = backends.sort_values("branch_coverage", ascending=False).iloc[0]
    lines.append(f"- Across {sampled} sampled tasks the highest mean branch coverage comes from "
                 f"**{best['backend']}** ({best['branch_coverage']:.3f}).")
    return lines


def plot_quality(frame: pd.DataFrame) -> Figure:
    """Figure: validity rate and branch coverage per benchmark, one box per benchmark and one point
    per reference (:func:`quality_table`'s rows), the 95% validity target as a dashed line."""
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(9, 3.2))
    for ax, col, label in ((axes[0], "validity", "validity rate"), (axes[1], "branch_coverage", "branch coverage")):
        data = [frame.loc[frame.benchmark == b, col].dropna() for b in sorted(frame.benchmark.unique())]
        ax.boxplot(data, tick_labels=sorted(frame.benchmark.unique()), showfliers=True)
        ax.set_ylabel(label)
        ax.set_ylim(-0.02, 1.02)
        if col == "validity":
            ax.axhline(VALIDITY_TARGET, color="tab:red", lw=0.8, ls="--", label="95% target")
            ax.legend(frameon=False, fontsize=8)
    fig.suptitle("Input quality per benchmark (one point per reference)")
    fig.tight_layout()
    return fig
