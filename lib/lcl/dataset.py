"""The LoCaL pair dataset.

Step I (paper Section 3.3.2): for every selected task, mutants of the reference (SFD
candidates, MutPy) and optimised variants (DFS candidates: our offline rewriter; for PIE the
benchmark's own fast program). Step III: every pair is labelled by differential fuzzing with
the task's input spec (Algorithm 1). Then SurfaceSim (Eq. 1, paper mode) is attached.

Every candidate that does not make it into the benchmark is counted with its reason:
generation drops (duplicates, not compiling: :class:`lcl.variants.MutationStats`), pairs that
cannot be fuzzed, pairs whose every run timed out (df_score = -1, excluded as in the paper).
Every labelled candidate is kept in the pairs file (``LoCaL-all``); the curation rule of
:mod:`lcl.curation` marks the LoCaL pairs (``in_local``) and counts the others in the ledger.
"""

from __future__ import annotations

import ast
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache, partial
from typing import Any

from . import cache, claim_links, curation, loaders, paths, seeds, surface_budget
from .claim_links import Derived, Link
from .labelling import label_candidates, profile_settings
from .profiles import Profile
from .records import Outcome, Task, result_outcome

SCHEMA = {
    # -- every pair file (local_pairs_<profile>, clone_pairs_<profile>, published_pairs) --
    "id": "LCL_<benchmark>_<task>_<MUT|OPT>_<k> | CLONE_<family>_<n>_<k> | the published id (#k for repeats)",
    "benchmark": "HumanEval | MBPP | APPS | PIE | Clones",
    "task": "task uid (spec id for PIE: PIE/<problem>; Clones/<cluster> for clones)",
    "level": "function | program",
    "variant_type": "MUT | OPT (local_pairs) | CLONE (clone_pairs) | PUBLISHED (published_pairs)",
    "reference": "the reference code (ast.unparse of the task's reference; a clone unit; the published golden_code)",
    "variant": "the variant's code (mutant, optimised variant, second clone unit, published generated_code)",
    "df_score": "Algorithm 1; mean over kept runs (PUBLISHED: the authors' published score)",
    "surface_sim": "Eq. 1, paper mode (ours, for every kind)",
    "generator": "mutpy | rewriter | pie_fast | human (CLONE) | published",
    "curated": "MUT / OPT: the pair passes the curation rule (lcl.curation; refactorings never do): in LoCaL-curated",
    "in_local": "MUT / OPT: curated and in the seeded sample at Table 2's makeup (lcl.curation): in LoCaL",
    # -- MUT / OPT / CLONE (our labels) --
    "run_scores": "per-run scores (None = excluded run)",
    "counts": "matches, mismatches, timeouts, crashes, invalid, skipped over kept runs",
    "verdict_digest": "SHA-256 of the verdict vector (lcl.fuzz)",
    "seeds": "per-run input seeds",
    "spec": "verified | reviewed | inferred (the task's input spec); 'clone domain <name>' for clones",
    "entry_point": "function entry point (None for programs; the reference's function for clones)",
    # -- MUT / OPT --
    "operator": "MutPy operator (MUT)",
    "lineno": "line of the mutated node (MUT)",
    "strategies": "paper strategy labels (OPT; [] = surface rewrites only)",
    "rewrites": "concrete rewrites applied (OPT)",
    # -- CLONE (lcl.clones) --
    "cluster": "<family>#<n>: functions with identical behaviour fingerprints",
    "family": "candidate family (name/signature rule, lcl.clones.FAMILIES)",
    "domain": "input domain of the family (lcl.clones.DOMAINS)",
    "observe": "return | return_or_arg0 (what is compared: the returned value, or the mutated first argument when it returns None)",
    "cross_package": "the two functions come from different collections",
    "reference_package": "algorithms | pygorithm | searchsort | algos_py (also variant_package)",
    "reference_module": "module path inside the package (also variant_module)",
    "reference_function": "function name (also variant_function)",
    "reference_licence": "licence of the source package, from data/sources.toml (also variant_licence)",
    "reference_registry": "PyPI name==version it was read from (also variant_registry)",
    "variant_package": "see reference_package",
    "variant_module": "see reference_module",
    "variant_function": "see reference_function",
    "variant_licence": "see reference_licence",
    "variant_registry": "see reference_registry",
    # -- PUBLISHED --
    "published_kind": "MUT | OPT | None (the release's local_type; None: PIE pairs without one)",
    "published_id": "the id in the release (repeated ids keep it here)",
    "surface_sim_published": "the authors' surfaceSim (author_scores), when given",
    "author_scores": "the authors' per-pair metric scores (JSON text in Parquet)",
}

#: Parquet column types (pyarrow); any other column is stored as JSON text (see write_parquet)
_COUNTS = ("matches", "mismatches", "timeouts", "crashes", "invalid", "skipped")
PARQUET_TYPES = {
    **dict.fromkeys(("id", "benchmark", "task", "level", "variant_type", "reference", "variant", "generator", "verdict_digest", "spec", "entry_point", "operator", "cluster", "family", "domain", "observe", "published_kind", "published_id", *(f"{side}_{x}" for side in ("reference", "variant") for x in ("package", "module", "function", "licence", "registry"))), "string"),
    "df_score": "float64", "surface_sim": "float64", "in_local": "bool", "curated": "bool", "surface_sim_published": "float64",
    "lineno": "int64", "cross_package": "bool",
    "run_scores": "list<float64>", "seeds": "list<int64>", "strategies": "list<string>", "rewrites": "list<string>",
    "counts": "struct<" + ", ".join(f"{c}: int64" for c in _COUNTS) + ">",
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


def strip_docstrings(code: str) -> str:
    """``ast.unparse`` of ``code`` without module, class and function docstrings.

    The authors' references carry none (no golden_code of the published HumanEval pairs has a
    docstring), so neither do ours: a prompt's docstring would otherwise dominate SurfaceSim of
    every mutant and every optimised variant. Only ``__doc__`` changes."""
    tree = ast.parse(code)
    strip_docstring_nodes(tree)
    return ast.unparse(tree)


def strip_docstring_nodes(tree: ast.AST) -> None:
    """Remove module, class and function docstrings from ``tree`` in place."""
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                    and isinstance(body[0].value.value, str):
                node.body = body[1:] or [ast.Pass()]


@dataclass
class LocalStage:
    """Steps I and III (Section 3.3) for a profile: the selected tasks, their MUT and OPT
    candidates, each candidate's Algorithm 1 result (same order; empty until labelled), and
    every drop on the way. :meth:`pairs` assembles LoCaL-all from them."""

    tasks: list[Task]
    rows: list[dict[str, Any]]
    ledger: Ledger
    results: list[dict[str, Any]] = field(default_factory=list)
    seed: int = 0

    def pairs(self) -> list[dict[str, Any]]:
        return assemble(self.rows, self.results, self.ledger, self.seed)


def local_candidates(profile: Profile, seed: int, *, benchmarks: tuple[str, ...] = (),
                     kind: str | None = None) -> LocalStage:
    """Step I: the selected tasks (of ``benchmarks``, default all) and their candidates (of
    ``kind``, default MUT and OPT), not yet labelled."""
    tasks = [t for t in selected_tasks(profile) if not benchmarks or t.benchmark in benchmarks]
    ledger = Ledger()
    rows = candidates(tasks, profile, seed, ledger)
    if kind:
        rows = [r for r in rows if r["variant_type"] == kind]
    return LocalStage(tasks, rows, ledger, seed=seed)


def build_local(profile: Profile, seed: int, jobs: int, *, benchmarks: tuple[str, ...] = (),
                kind: str | None = None, progress: bool = True) -> LocalStage:
    """The LoCaL stage of notebook 02 and ``lcl variants label``: candidates (Step I) labelled by
    Algorithm 1 (Step III), resumable through the result store and the label archive."""
    stage = local_candidates(profile, seed, benchmarks=benchmarks, kind=kind)
    stage.results = label_candidates(stage.rows, profile_settings(profile), seed, jobs, progress=progress)
    return stage


def selected_tasks(profile: Profile) -> list[Task]:
    out: list[Task] = []
    for bench in loaders.BENCHMARKS:
        if not loaders.benchmark_available(bench):
            continue
        chosen = loaders.select(bench, loaders.LOADERS[bench]().tasks)
        out += chosen[: profile.max_tasks_per_benchmark] if profile.max_tasks_per_benchmark else chosen
    return out


def candidates(tasks: list[Task], profile: Profile, seed: int, ledger: Ledger) -> list[dict[str, Any]]:
    """MUT and OPT candidate rows (not yet labelled), every drop counted in ``ledger``.

    Generated per task and cached, keyed by everything a task's candidates depend on (its
    reference, PIE fast program, ids, seed, the per-task cap, the generators' source and the
    MutPy version), so notebook 02, ``lcl variants label`` and the RQ2 pool regenerate nothing
    twice."""
    from .task_specs import spec_uid

    code = _generator_version()
    rows: list[dict[str, Any]] = []
    for task in tasks:
        cap = profile.mutants_per_function if task.level == "function" else profile.mutants_per_program
        uid = spec_uid(task)
        k = cache.key("lcl-candidates", code, task.benchmark, task.task_id, task.uid, uid, task.level,
                      task.entry_point, task.reference, task.extra.get("fast") if task.benchmark == "PIE" else None,
                      seed, cap)
        task_rows, generated, dropped = cache.cached("candidates", k, partial(_task_candidates, task, uid, cap, seed))
        rows += task_rows
        ledger.generated.update(generated)
        ledger.dropped.update(dropped)
    return rows


@lru_cache(maxsize=1)
def _generator_version() -> str:
    """Digest of the candidate generators' source (this module, ``lcl.variants``) and MutPy's version."""
    from importlib.metadata import version

    here = paths.library()
    # every generator module, those in the variants' subpackages too (rglob)
    files = [here / "dataset.py", here / "surface_budget.py", surface_budget.table_path(),
             *sorted((here / "variants").rglob("*.py"))]
    return cache.key(version("mutpy-pynguin"), *(f.read_bytes() for f in files))


def _task_candidates(task: Task, uid: str, cap: int | None, seed: int) -> tuple[list[dict[str, Any]], Counter, Counter]:
    """One task's candidates (Step I) and what was generated / dropped."""
    from .variants import MutationStats, generate_mutants, optimise

    ledger = Ledger()
    rows: list[dict[str, Any]] = []
    try:
        ref = strip_docstrings(task.reference)
    except (SyntaxError, ValueError) as exc:
        ledger.drop("reference", f"cannot unparse ({type(exc).__name__})")
        return rows, ledger.generated, ledger.dropped
    base = {"benchmark": task.benchmark, "task": uid, "level": task.level, "reference": ref,
            "entry": task.entry_point, "stdin": task.level == "program"}
    stem = f"LCL_{task.benchmark}_{task.task_id.replace('/', '_')}"
    stats = MutationStats()
    mutants = generate_mutants(ref, stats=stats)
    ledger.generated["MUT candidates"] += stats.generated
    ledger.drop("MUT", "duplicate", stats.duplicates)
    ledger.drop("MUT", "identical to the original", stats.identical_to_original)
    ledger.drop("MUT", "does not compile", stats.not_compiling + stats.unparse_errors)
    if cap is not None and len(mutants) > cap:
        ledger.drop("MUT", f"over the per-task cap ({cap}, seeded sample)", len(mutants) - cap)
        keep = sorted(seeds.rng(seed, task.uid).sample(range(len(mutants)), cap))
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
        return rows, ledger.generated, ledger.dropped
    # how far the surface is rewritten: a target drawn from the released GPT-4 variants' SurfaceSim
    # (lcl.surface_budget), never an RQ3 threshold, which Algorithm 2 then fits on these pairs
    v = optimise(ref, entry_point=task.entry_point, seed=seed, target_similarity=surface_budget.target(task.uid, seed))
    if v.code.strip() == ref.strip():
        ledger.drop("OPT", "no rewrite applies")
        return rows, ledger.generated, ledger.dropped
    rows.append({**base, "id": f"{stem}_OPT_1", "variant_type": "OPT", "variant": v.code,
                 "strategies": list(v.strategies), "rewrites": list(v.rewrites), "generator": "rewriter"})
    return rows, ledger.generated, ledger.dropped


def assemble(rows: list[dict[str, Any]], results: list[dict[str, Any]], ledger: Ledger,
             seed: int = 0) -> list[dict[str, Any]]:
    """Attach labels and SurfaceSim; apply the exclusions (no label); mark the LoCaL pairs
    (:func:`lcl.curation.curate`). Every exclusion and every pair left out of LoCaL is counted."""
    from .similarity import surface_sim
    from .task_specs import spec_for

    by_id = {r["id"]: r for r in results}
    out = []
    for row in rows:
        res = by_id.get(row["id"], {})
        kind = row["variant_type"]
        df, what = res.get("df_score"), result_outcome(res)
        if what is Outcome.ERROR:
            ledger.drop(kind, "cannot be fuzzed (" + str(res.get("error", "no result"))[:60] + ")")
            continue
        if what is Outcome.NO_KEPT_RUN:
            ledger.drop(kind, "every run timed out (df_score = -1)")
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
    return curation.curate(out, ledger, seed)


#: DFS target of a source of optimised variants built without the paper's data in view (the
#: human-written clones), near Table 2's Optimized row: mean SurfaceSim at most this, mean df_score
#: at least DFS_MIN_DF. The rewriter's SurfaceSim follows the released variants by construction
#: (lcl.surface_budget), so the target says nothing about it.
DFS_MAX_SURFACE_SIM = 0.70
DFS_MIN_DF = 0.98


def dfs_target(pairs: list[dict[str, Any]], generator: str = "rewriter") -> dict[str, Any]:
    """Count, mean SurfaceSim and mean df_score of the kept optimised variants of ``generator``, and
    whether they meet the DFS target (PIE's own fast programs are generator ``pie_fast``)."""
    g = [p for p in pairs if p["variant_type"] == "OPT" and p.get("generator") == generator]
    sim = sum(p["surface_sim"] for p in g) / len(g) if g else None
    df = sum(p["df_score"] for p in g) / len(g) if g else None
    met = bool(g) and sim <= DFS_MAX_SURFACE_SIM and df >= DFS_MIN_DF  # type: ignore[operator]
    return {"generator": generator, "pairs": len(g), "mean_surface_sim": sim, "mean_df_score": df, "met": met}


def opt_by_generator(pairs: list[dict[str, Any]]) -> Any:
    """Kept optimised variants per benchmark and generator: count, mean SurfaceSim, mean df_score."""
    import pandas as pd

    o = pd.DataFrame([p for p in pairs if p["variant_type"] == "OPT"])
    if o.empty:
        return pd.DataFrame(columns=["benchmark", "generator", "pairs", "mean SurfaceSim", "mean df_score"])
    g = o.groupby(["benchmark", "generator"], sort=True)
    return pd.DataFrame({"pairs": g.size(), "mean SurfaceSim": g.surface_sim.mean().round(3),
                         "mean df_score": g.df_score.mean().round(3)}).reset_index()


TABLE2 = "table2_variants"
_SIZE = ("a count of our LoCaL: a seeded sample of our curated pairs drawn to Table 2's counts, scaled by "
         "the largest fraction every cell fills (local_makeup), so it is reported, not judged: the shares hold by "
         "construction, the fraction shows how far our sources fall short")
_T2_KINDS = (("opt", "Optimized"), ("mut", "Mutated"))
#: Table 2's claims (the bootstrap CI over pairs for the two means)
CLAIMS: list[Any] = [
    *(Link(f"T2.{tag}.{suffix}", TABLE2, "Variant Type", kind, column, tolerance_reason=_SIZE)
      for tag, kind in _T2_KINDS for suffix, column in (("method", "Method-Level"), ("program", "Program-Level"),
                                                         ("total", "Total"))),
    *(Link(f"T2.{tag}.{suffix}", TABLE2, "Variant Type", kind, column, low=f"{column} CI low",
           high=f"{column} CI high")
      for tag, kind in _T2_KINDS for suffix, column in (("surfacesim", "Avg. SurfaceSim"), ("df", "Avg. df_score"))),
    Derived("T2.total", (TABLE2,), lambda t: float(t[TABLE2]["Total"].sum()), tolerance_reason=_SIZE),
]


def _mean_ci(values: Any, seed: int) -> tuple[float | None, float | None]:
    """Percentile bootstrap 95 % CI of a mean over pairs (None for fewer than two pairs)."""
    import numpy as np

    from .stats import bootstrap_ci

    v = [float(x) for x in values]
    if len(v) < 2:
        return None, None
    lo, hi = bootstrap_ci(np.asarray(v), n_boot=1000, seed=seed)
    return round(lo, 4), round(hi, 4)


def table2(pairs: list[dict[str, Any]], seed: int = 0) -> Any:
    """Table 2: counts per variant type and level, mean SurfaceSim and mean df_score, each mean
    with a bootstrap 95 % CI over pairs (counts have none: they are sizes of our set)."""
    import pandas as pd

    df = pd.DataFrame(pairs)
    rows = []
    for kind, label_ in (("OPT", "Optimized"), ("MUT", "Mutated")):
        g = df[df.variant_type == kind] if len(df) else df
        row: dict[str, Any] = {
            "Variant Type": label_,
            "Method-Level": int((g.level == "function").sum()) if len(g) else 0,
            "Program-Level": int((g.level == "program").sum()) if len(g) else 0,
            "Total": len(g),
        }
        for column, name in (("Avg. SurfaceSim", "surface_sim"), ("Avg. df_score", "df_score")):
            row[column] = round(float(g[name].mean()), 3) if len(g) else None
            row[f"{column} CI low"], row[f"{column} CI high"] = _mean_ci(g[name] if len(g) else [], seed)
        rows.append(row)
    return pd.DataFrame(rows)


def table2_with_paper(pairs: list[dict[str, Any]], seed: int = 0) -> Any:
    """:func:`table2` with the paper's values beside ours (from the claim declarations)."""
    return claim_links.add_paper_columns(table2(pairs, seed), CLAIMS, TABLE2)


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



def load_local(profile: str, subset: str = "local") -> list[dict[str, Any]]:
    """The pairs built by notebook 02 for ``profile`` (clear error when not built yet):
    ``subset`` 'local' LoCaL, 'curated' LoCaL-curated, 'all' every labelled candidate (LoCaL-all)."""
    from .errors import UserError
    from .io import read_jsonl

    path = paths.local_pairs(profile)
    if not path.exists():
        raise UserError(f"{path} does not exist yet: build it with 'make all PROFILE={profile}' "
                        f"(notebook 02_variants writes it)")
    try:
        return curation.select(read_jsonl(path), subset)
    except ValueError as e:
        raise UserError(f"{path}: {e}") from None


# ============================================================================ published pairs
def published_pairs(ledger: Ledger) -> list[dict[str, Any]]:
    """The published LoCaL pairs (mirror's ``local_release/``) as a third source: variant_type
    PUBLISHED, the release's kind kept in ``published_kind``, its score as ``df_score``, our
    SurfaceSim next to the authors'. ``[]`` (with a printed note) when the mirror is absent."""
    import warnings

    from .similarity import SimilarityWarning, surface_sim

    out = []
    for p in loaders.pairs_if_available("LoCaL_published"):
        ledger.generated["PUBLISHED pairs in the release"] += 1
        if p.df_score is None:
            ledger.drop("PUBLISHED", "no published score")
            continue
        if p.outcome is Outcome.NO_KEPT_RUN:
            ledger.drop("PUBLISHED", "timed out in the authors' fuzzing (score = -1)")
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SimilarityWarning)
            sim = surface_sim(p.reference, p.candidate, mode="paper")
        authors = p.extra.get("author_scores") or None
        out.append({
            "id": p.id, "benchmark": p.benchmark, "task": p.task, "level": p.level, "variant_type": "PUBLISHED",
            "published_kind": p.variant_type, "published_id": p.extra.get("published_id", p.id),
            "reference": p.reference, "variant": p.candidate, "df_score": p.df_score, "surface_sim": sim,
            "surface_sim_published": (authors or {}).get("surfaceSim"), "author_scores": authors,
            "generator": "published",
        })
    return out


# ============================================================================ summaries
_KIND_LABEL = {"OPT": "Optimized", "MUT": "Mutated", "CLONE": "Clones (human-written)", None: "Untyped (PIE)"}


def _summary_row(g: Any, source: str, label_: str) -> dict[str, Any]:
    n = len(g)
    return {
        "Source": source, "Variant Type": label_,
        "Method-Level": int((g.level == "function").sum()) if n else 0,
        "Program-Level": int((g.level == "program").sum()) if n else 0,
        "Total": n,
        "Avg. SurfaceSim": round(float(g.surface_sim.mean()), 3) if n else None,
        "Avg. df_score": round(float(g.df_score.mean()), 3) if n else None,
        "share df = 1 (%)": round(100 * float((g.df_score >= 1.0).mean()), 1) if n else None,
    }


def table2_sources(ours: list[dict[str, Any]], clones: list[dict[str, Any]],
                   published: list[dict[str, Any]], profile: str) -> Any:
    """Table-2-like summary of every source side by side: our MUT/OPT, our clones, and the
    published pairs per published kind (plus all of them)."""
    import pandas as pd

    rows = []
    o = pd.DataFrame(ours)
    for kind in ("OPT", "MUT"):
        rows.append(_summary_row(o[o.variant_type == kind] if len(o) else o, f"ours ({profile})", _KIND_LABEL[kind]))
    c = pd.DataFrame(clones)
    rows.append(_summary_row(c, f"ours ({profile})", _KIND_LABEL["CLONE"]))
    p = pd.DataFrame(published)
    if len(p):
        for pkind in ("OPT", "MUT", None):
            g = p[p.published_kind.isna()] if pkind is None else p[p.published_kind == pkind]
            rows.append(_summary_row(g, "published release", _KIND_LABEL[pkind]))
        rows.append(_summary_row(p, "published release", "All"))
        # our mutants all parse (MutPy's operators written back with ast.unparse); some of the
        # release's do not, and a pair that does not parse has a low Sim_AST, so the two are apart
        mut = p[p.published_kind == "MUT"]
        parses = mut.apply(lambda r: _parses(r.get("candidate", r.get("variant"))), axis=1) if len(mut) else mut
        for ok, where in ((True, "parses under Python 3"), (False, "does not parse under Python 3")):
            rows.append(_summary_row(mut[parses == ok] if len(mut) else mut, f"published release, {where}",
                                     _KIND_LABEL["MUT"]))
    return pd.DataFrame(rows)


def _parses(code: Any) -> bool:
    try:
        ast.parse(str(code))
    except (SyntaxError, ValueError):
        return False
    return True


def ledger_table(ledgers: dict[str, Ledger]) -> Any:
    """Every ledger as one table (source, stage, what, count)."""
    import pandas as pd

    rows = [{"source": name, **r} for name, led in ledgers.items() for r in led.to_rows()]
    return pd.DataFrame(rows, columns=["source", "stage", "what", "count"])


# ============================================================================ files
def _arrow_type(spec: str) -> Any:
    import pyarrow as pa

    simple = {"string": pa.string(), "float64": pa.float64(), "int64": pa.int64(), "bool": pa.bool_()}
    if spec in simple:
        return simple[spec]
    if spec.startswith("list<"):
        return pa.list_(simple[spec[5:-1]])
    if spec.startswith("struct<"):
        return pa.struct([(name.strip(), simple[t.strip()]) for name, t in
                          (f.split(":") for f in spec[7:-1].split(","))])
    raise ValueError(spec)


def write_parquet(path: Any, rows: list[dict[str, Any]]) -> Any:
    """Rows -> Parquet (pyarrow), atomically. Columns: :data:`SCHEMA` order first, then the
    rest sorted; types from :data:`PARQUET_TYPES`; any other column (nested, heterogeneous:
    ``author_scores``) is JSON text. Each field carries its SCHEMA description as metadata."""
    import json

    import pyarrow as pa
    import pyarrow.parquet as pq

    from .io import atomic_path

    keys = {k for r in rows for k in r}
    cols = [k for k in SCHEMA if k in keys] + sorted(keys - set(SCHEMA))
    fields, arrays = [], []
    for k in cols:
        vals = [r.get(k) for r in rows]
        if k in PARQUET_TYPES:
            t = _arrow_type(PARQUET_TYPES[k])
            if PARQUET_TYPES[k].startswith("struct<"):
                vals = [None if v is None else {c: v.get(c, 0) for c in _COUNTS} for v in vals]
        else:
            t = pa.string()
            vals = [None if v is None else json.dumps(v, sort_keys=True, default=str) for v in vals]
        meta = {"description": SCHEMA.get(k, "JSON text"), "encoding": "native" if k in PARQUET_TYPES else "json"}
        fields.append(pa.field(k, t, metadata=meta))
        arrays.append(pa.array(vals, type=t))
    table = pa.Table.from_arrays(arrays, schema=pa.schema(fields, metadata={"lcl.schema": "lcl.dataset.SCHEMA"}))
    with atomic_path(path) as tmp:
        pq.write_table(table, tmp)
    return path


def write_pairs(jsonl_path: Any, rows: list[dict[str, Any]], *, profile: str | None = None,
                seed: int | None = None) -> tuple[Any, Any]:
    """``<name>.jsonl`` and ``<name>.parquet`` side by side; with ``profile``, each with its
    provenance sidecar, like every other declared output of the build."""
    from pathlib import Path

    from .io import write_jsonl
    from .provenance import record

    p = Path(jsonl_path)
    write_jsonl(p, rows)
    pq_path = write_parquet(p.with_suffix(".parquet"), rows)
    if profile is not None:
        for out in (p, pq_path):
            record(out, profile=profile, seed=seed, extra={"rows": len(rows)})
    return p, pq_path




def load_clones(profile: str) -> list[dict[str, Any]]:
    """The CLONE pairs built by notebook 02 for ``profile``."""
    from .errors import UserError
    from .io import read_jsonl

    path = paths.clone_pairs(profile)
    if not path.exists():
        raise UserError(f"{path} does not exist yet: run notebook 02_variants with --profile {profile}")
    return read_jsonl(path)


def load_published() -> list[dict[str, Any]]:
    """The PUBLISHED pairs written by notebook 02 (``[]`` when the mirror was absent)."""
    from .io import read_jsonl

    path = paths.published_pairs()
    return read_jsonl(path) if path.exists() else []


# ============================================================================ optimised sources
#: where an optimised (DFS) variant comes from: the rewriter's refactorings (never in LoCaL) and
#: optimisations are ours, so RQ3 shows them apart from the sources no rule of ours built
OPT_SOURCES = ("rewriter (surface only)", "rewriter (algorithmic strategies)", "PIE fast programs",
               "human-written clones")


def opt_source(pair: dict[str, Any]) -> str | None:
    """The :data:`OPT_SOURCES` entry of an optimised variant or clone pair (``None`` otherwise)."""
    if pair.get("variant_type") == "CLONE":
        return OPT_SOURCES[3]
    if pair.get("variant_type") != "OPT":
        return None
    if pair.get("generator") == "pie_fast":
        return OPT_SOURCES[2]
    return OPT_SOURCES[1] if curation.local_kind(pair) else OPT_SOURCES[0]  # one rule for a refactoring
