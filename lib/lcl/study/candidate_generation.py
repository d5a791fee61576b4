"""Step I of LoCaL's construction (paper Section 3.3.2): the candidates of every selected task.

Mutants of the reference (SFD candidates, MutPy) and an optimised variant (DFS candidates: our
offline rewriter, its surface target drawn from the released GPT-4 variants by
:mod:`lcl.study.surface_budget`). Generated per task and cached by everything a task's candidates
depend on; every drop (duplicates, not compiling, over the per-task cap) is counted in a
:class:`~lcl.core.records.Ledger`.

PIE is the exception on both sides (Table 1's footnote: "PIE already has optimized variants, only
mutated variants are generated from k samples"): its k selected slow programs get mutants only,
and its optimised variants are PIE's own slow/fast pairs drawn from *outside* those k
(:func:`pie_opt_tasks`). The authors' release shows where theirs came from: every released PIE OPT
pair is a ``LOCAL_PIE_extra_*`` id, and their slow programs rank across all of PIE by length, not
among the k longest.
"""

from __future__ import annotations

import ast
from collections import Counter
from functools import lru_cache, partial
from importlib.metadata import version

from lcl.core import cache, paths, seeds
from lcl.core.profiles import Profile
from lcl.core.records import Ledger, PairRow, Task
from lcl.engine.variants import MutationStats, generate_mutants, optimise

from . import loaders, surface_budget
from .task_specs import spec_uid


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

def selected_tasks(profile: Profile) -> list[Task]:
    out: list[Task] = []
    for bench in loaders.BENCHMARKS:
        if not loaders.benchmark_available(bench):
            continue
        chosen = loaders.select(bench, loaders.LOADERS[bench]().tasks)
        out += chosen[: profile.max_tasks_per_benchmark] if profile.max_tasks_per_benchmark else chosen
    return out

#: the PIE pairs whose fast program is an optimised variant: as many as the k PIE slow programs
#: that get mutants (the release's PIE OPT count is in no table of the paper; this keeps the number
#: of PIE OPT candidates, and so their fuzzing cost, what it was when they were the k's fast programs)
PIE_OPT_PAIRS: int = loaders.SELECT_K["PIE"] or 0


def pie_opt_tasks(profile: Profile, seed: int) -> list[Task]:
    """PIE slow/fast pairs outside the k selected slow programs, a seeded sample of
    :data:`PIE_OPT_PAIRS` (or the profile's per-benchmark cap): their fast programs are LoCaL's PIE
    optimised variants (Table 1's footnote; the release's ``LOCAL_PIE_extra_*`` ids)."""
    if not loaders.benchmark_available("PIE"):
        return []
    tasks = loaders.LOADERS["PIE"]().tasks
    chosen = {t.task_id for t in loaders.select("PIE", tasks)}
    rest = [t for t in tasks if t.task_id not in chosen]
    n = min(len(rest), profile.max_tasks_per_benchmark or PIE_OPT_PAIRS)
    keep = sorted(seeds.rng(seed, "pie-opt-pairs").sample(range(len(rest)), n))
    return [rest[i] for i in keep]


def candidates(tasks: list[Task], profile: Profile, seed: int, ledger: Ledger) -> list[PairRow]:
    """MUT and OPT candidate rows (not yet labelled), every drop counted in ``ledger``.

    Generated per task and cached, keyed by everything a task's candidates depend on (its
    reference, PIE fast program, ids, seed, the per-task cap, the generators' source and the
    MutPy version), so notebook 02, ``lcl variants label`` and the RQ2 pool regenerate nothing
    twice."""
    code = _generator_version()
    rows: list[PairRow] = []
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
    """Digest of the candidate generators' source (this module, ``lcl.engine.variants``) and MutPy's version."""
    here = paths.library()
    # every generator module, those in the variants' subpackages too (rglob)
    files = [here / "study" / "candidate_generation.py", here / "study" / "surface_budget.py",
             surface_budget.table_path(), *sorted((here / "engine" / "variants").rglob("*.py"))]
    return cache.key(version("mutpy-pynguin"), *(f.read_bytes() for f in files))

def _task_candidates(task: Task, uid: str, cap: int | None, seed: int) -> tuple[list[PairRow], Counter, Counter]:
    """One task's candidates (Step I) and what was generated / dropped."""
    ledger = Ledger()
    rows: list[PairRow] = []
    try:
        ref = strip_docstrings(task.reference)
    except (SyntaxError, ValueError) as exc:
        ledger.drop("reference", f"cannot unparse ({type(exc).__name__})")
        return rows, ledger.generated, ledger.dropped
    base: PairRow = {"benchmark": task.benchmark, "task": uid, "level": task.level, "reference": ref,
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
        rows.append({**base, "id": f"{stem}_MUT_{m.index}", "variant_type": "MUT", "candidate": m.code,
                     "operator": m.operator, "lineno": m.lineno, "generator": "mutpy"})
    if task.benchmark == "PIE":  # its optimised variants come from other pairs (pie_opt_tasks)
        return rows, ledger.generated, ledger.dropped
    ledger.generated["OPT candidates"] += 1
    # how far the surface is rewritten: a target drawn from the released GPT-4 variants' SurfaceSim
    # (lcl.study.surface_budget), never an RQ3 threshold, which Algorithm 2 then fits on these pairs
    v = optimise(ref, entry_point=task.entry_point, seed=seed, target_similarity=surface_budget.target(task.uid, seed))
    if v.code.strip() == ref.strip():
        ledger.drop("OPT", "no rewrite applies")
        return rows, ledger.generated, ledger.dropped
    rows.append({**base, "id": f"{stem}_OPT_1", "variant_type": "OPT", "candidate": v.code,
                 "strategies": list(v.strategies), "rewrites": list(v.rewrites), "generator": "rewriter"})
    return rows, ledger.generated, ledger.dropped



def pie_opt_candidates(tasks: list[Task], ledger: Ledger) -> list[PairRow]:
    """The fast program of each PIE pair of :func:`pie_opt_tasks` as an OPT candidate of its slow
    program, both as the mutants' references are (docstrings stripped, ``ast.unparse``)."""
    rows: list[PairRow] = []
    for task in tasks:
        ledger.generated["OPT candidates"] += 1
        try:
            ref, fast = strip_docstrings(task.reference), _unparse(task.extra.get("fast") or "")
        except (SyntaxError, ValueError):
            ledger.drop("OPT", "PIE slow or fast program does not parse")
            continue
        rows.append({"benchmark": "PIE", "task": spec_uid(task), "level": task.level, "reference": ref,
                     "entry": None, "stdin": True, "id": f"LCL_PIE_{task.task_id.replace('/', '_')}_OPT_1",
                     "variant_type": "OPT", "candidate": fast, "strategies": [], "rewrites": [],
                     "generator": "pie_fast"})
    return rows
