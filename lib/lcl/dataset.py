"""The LoCaL pair dataset (issue "Variant generation and the LoCaL pair dataset").

Step I (paper Section 3.3.2): for every selected task, mutants of the reference (SFD
candidates, MutPy) and optimised variants (DFS candidates: our offline rewriter; for PIE the
benchmark's own fast program). Step III: every pair is labelled by differential fuzzing with
the task's input spec (Algorithm 1). Then SurfaceSim (Eq. 1, paper mode) is attached.

Every candidate that does not make it into the benchmark is counted with its reason:
generation drops (duplicates, not compiling: :class:`lcl.variants.MutationStats`), pairs that
cannot be fuzzed, pairs whose every run timed out (df_score = -1, excluded as in the paper),
and optimised variants that are not equivalent (df_score < 1: discarded, as the issue asks).
"""

from __future__ import annotations

import ast
import random
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from . import loaders
from .profiles import Profile
from .records import Task

SCHEMA = {
    "id": "LCL_<benchmark>_<task>_<MUT|OPT>_<k>",
    "benchmark": "HumanEval | MBPP | APPS | PIE",
    "task": "task uid (spec id for PIE: PIE/<problem>)",
    "level": "function | program",
    "variant_type": "MUT | OPT | CLONE | PUBLISHED",
    "operator": "MutPy operator (MUT)",
    "strategies": "paper strategy labels (OPT; [] = surface rewrites only)",
    "rewrites": "concrete rewrites applied (OPT)",
    "generator": "mutpy | rewriter | pie_fast",
    "reference": "ast.unparse of the reference",
    "variant": "the variant's code",
    "df_score": "Algorithm 1; mean over kept runs",
    "run_scores": "per-run scores (None = excluded run)",
    "counts": "matches, mismatches, timeouts, crashes, invalid over kept runs",
    "spec": "verified | reviewed | inferred (the task's input spec)",
    "surface_sim": "Eq. 1, paper mode",
}


@dataclass
class Ledger:
    """Where every candidate went."""

    generated: Counter = field(default_factory=Counter)
    dropped: Counter = field(default_factory=Counter)  # (kind, reason) -> count

    def drop(self, kind: str, reason: str, n: int = 1) -> None:
        if n:
            self.dropped[f"{kind}: {reason}"] += n

    def to_rows(self) -> list[dict[str, Any]]:
        rows = [{"stage": "generated", "what": k, "count": v} for k, v in sorted(self.generated.items())]
        rows += [{"stage": "excluded", "what": k, "count": v} for k, v in sorted(self.dropped.items())]
        return rows


def _unparse(code: str) -> str:
    return ast.unparse(ast.parse(code))


def selected_tasks(profile: Profile) -> list[Task]:
    out: list[Task] = []
    for bench in loaders.BENCHMARKS:
        if not loaders.benchmark_available(bench):
            continue
        chosen = loaders.select(bench, loaders.LOADERS[bench]().tasks)
        out += chosen[: profile.max_tasks_per_benchmark] if profile.max_tasks_per_benchmark else chosen
    return out


def candidates(tasks: list[Task], profile: Profile, seed: int, ledger: Ledger) -> list[dict[str, Any]]:
    """MUT and OPT candidate rows (not yet labelled)."""
    from .inputs.store import spec_uid
    from .variants import MutationStats, generate_mutants, optimise

    rows: list[dict[str, Any]] = []
    for task in tasks:
        try:
            ref = _unparse(task.reference)
        except (SyntaxError, ValueError) as exc:
            ledger.drop("reference", f"cannot unparse ({type(exc).__name__})")
            continue
        base = {"benchmark": task.benchmark, "task": spec_uid(task), "level": task.level, "reference": ref,
                "entry": task.entry_point, "stdin": task.level == "program"}
        stem = f"LCL_{task.benchmark}_{task.task_id.replace('/', '_')}"
        stats = MutationStats()
        mutants = generate_mutants(ref, stats=stats)
        ledger.generated["MUT candidates"] += stats.generated
        ledger.drop("MUT", "duplicate", stats.duplicates)
        ledger.drop("MUT", "identical to the original", stats.identical_to_original)
        ledger.drop("MUT", "does not compile", stats.not_compiling + stats.unparse_errors)
        cap = profile.mutants_per_function if task.level == "function" else profile.mutants_per_program
        if cap is not None and len(mutants) > cap:
            ledger.drop("MUT", f"over the per-task cap ({cap}, seeded sample)", len(mutants) - cap)
            keep = sorted(random.Random(f"{seed}:{task.uid}").sample(range(len(mutants)), cap))
            mutants = [mutants[i] for i in keep]
        for m in mutants:
            rows.append({**base, "id": f"{stem}_MUT_{m.index}", "variant_type": "MUT", "variant": m.code,
                         "operator": m.operator, "lineno": m.lineno, "generator": "mutpy"})
        ledger.generated["OPT candidates"] += 1
        if task.benchmark == "PIE":
            fast = task.extra.get("fast") or ""
            try:
                rows.append({**base, "id": f"{stem}_OPT_1", "variant_type": "OPT", "variant": _unparse(fast),
                             "strategies": [], "rewrites": [], "generator": "pie_fast"})
            except (SyntaxError, ValueError):
                ledger.drop("OPT", "PIE fast program does not parse")
            continue
        v = optimise(ref, entry_point=task.entry_point, seed=seed)
        if v.code.strip() == ref.strip():
            ledger.drop("OPT", "no rewrite applies")
            continue
        rows.append({**base, "id": f"{stem}_OPT_1", "variant_type": "OPT", "variant": v.code,
                     "strategies": list(v.strategies), "rewrites": list(v.rewrites), "generator": "rewriter"})
    return rows


def label(rows: list[dict[str, Any]], profile: Profile, seed: int, jobs: int, progress: bool = True) -> list[dict[str, Any]]:
    """Algorithm 1 for every candidate (published-style rows + our task id), resumable."""
    from .fuzz import Settings, register_resolver, run_batch
    from .inputs.resolve import resolve_published

    register_resolver(resolve_published)
    settings = Settings().with_(runs=profile.fuzz_runs, n_function=profile.fuzz_inputs_function,
                                n_program=profile.fuzz_inputs_program)
    batch = [{"id": r["id"], "golden_code": r["reference"], "generated_code": r["variant"], "task": r["task"]}
             for r in rows]
    return run_batch(batch, settings=settings, seed=seed, jobs=jobs, progress=progress, keep_going=True) if batch else []


def assemble(rows: list[dict[str, Any]], results: list[dict[str, Any]], ledger: Ledger) -> list[dict[str, Any]]:
    """Attach labels and SurfaceSim; apply the exclusions; every exclusion is counted."""
    from .inputs.store import spec_for
    from .similarity import surface_sim

    by_id = {r["id"]: r for r in results}
    out = []
    for row in rows:
        res = by_id.get(row["id"], {})
        kind = row["variant_type"]
        df = res.get("df_score")
        if res.get("error") or df is None:
            ledger.drop(kind, "cannot be fuzzed (" + str(res.get("error", "no result"))[:60] + ")")
            continue
        if df < 0:
            ledger.drop(kind, "every run timed out (df_score = -1)")
            continue
        if kind == "OPT" and df < 1.0:
            ledger.drop(kind, "not equivalent (df_score < 1): discarded")
            continue
        spec = spec_for(row["task"])
        out.append({
            **{k: v for k, v in row.items() if k not in ("entry", "stdin")},
            "entry_point": row.get("entry"),
            "df_score": df, "run_scores": res.get("run_scores"), "counts": res.get("counts"),
            "verdict_digest": res.get("verdict_digest"), "seeds": res.get("seeds"),
            "spec": "verified" if spec.verified else spec.origin,
            "surface_sim": surface_sim(row["reference"], row["variant"], mode="paper"),
        })
    return out


def table2(pairs: list[dict[str, Any]]) -> Any:
    """Table 2: counts per variant type and level, mean SurfaceSim and mean df_score."""
    import pandas as pd

    df = pd.DataFrame(pairs)
    rows = []
    for kind, label_ in (("OPT", "Optimized"), ("MUT", "Mutated")):
        g = df[df.variant_type == kind] if len(df) else df
        rows.append({
            "Variant Type": label_,
            "Method-Level": int((g.level == "function").sum()) if len(g) else 0,
            "Program-Level": int((g.level == "program").sum()) if len(g) else 0,
            "Total": len(g),
            "Avg. SurfaceSim": round(float(g.surface_sim.mean()), 3) if len(g) else None,
            "Avg. df_score": round(float(g.df_score.mean()), 3) if len(g) else None,
        })
    return pd.DataFrame(rows)


def fingerprint(pairs: list[dict[str, Any]]) -> Any:
    """Code2Bench-style diagnostic fingerprint of the mutants: equivalent (df = 1), near-perfect
    band (0.98 <= df < 1: a 100-test suite would likely call these correct), differs on some
    inputs, differs on every input (df = 0); plus the share whose runs saw timeouts or crashes."""
    import pandas as pd

    m = pd.DataFrame([p for p in pairs if p["variant_type"] == "MUT"])
    if m.empty:
        return pd.DataFrame()
    crash = m["counts"].map(lambda c: bool(c and c.get("crashes")))
    tout = m["counts"].map(lambda c: bool(c and c.get("timeouts")))
    bands = {
        "equivalent (df = 1)": (m.df_score >= 1.0),
        "near-perfect (0.98 <= df < 1)": (m.df_score >= 0.98) & (m.df_score < 1.0),
        "differs on some inputs (0 < df < 0.98)": (m.df_score > 0) & (m.df_score < 0.98),
        "differs on every input (df = 0)": (m.df_score <= 0),
        "crashed on some input": crash,
        "timed out on some input": tout,
    }
    return pd.DataFrame([{"band": k, "mutants": int(v.sum()), "share %": round(100 * float(v.mean()), 1)}
                         for k, v in bands.items()])


def local_path(profile: str) -> Any:
    """Where notebook 02 writes the LoCaL pairs of a profile."""
    from . import paths

    return paths.processed() / f"local_pairs_{profile}.jsonl"


def load_local(profile: str) -> list[dict[str, Any]]:
    """The LoCaL pairs built by notebook 02 for ``profile`` (clear error when not built yet)."""
    from .errors import UserError
    from .io import read_jsonl

    path = local_path(profile)
    if not path.exists():
        raise UserError(f"{path} does not exist yet: build it with 'make all PROFILE={profile}' "
                        f"(notebook 02_variants writes it)")
    return read_jsonl(path)
