#!/usr/bin/env python
"""Surface similarity of the offline optimiser's variants (lcl.engine.variants.rewrite) to their references.

For every HumanEval reference (or those of --bench, when data/raw has them) prints the share
rewritten, the mean SurfaceSim (Eq. 1, ``lcl.engine.similarity.surface_sim(..., mode="paper")``) and its
two halves, and the rewrites used. With ``--fuzz N`` it also fuzzes a seeded sample of N variants
against their references (Algorithm 1, 200 inputs, R = 2 by default) and prints the mean
df_score and the non-equivalent variants.

    .venv/bin/python benchmarks/rewrite_surface.py
    .venv/bin/python benchmarks/rewrite_surface.py --fuzz 164 --jobs 1
    .venv/bin/python benchmarks/rewrite_surface.py --bench mbpp --selected --fuzz 100
"""

from __future__ import annotations

import argparse
import ast
import random
import statistics
import sys
import tempfile
import time
import warnings
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))


def _variants(tasks: list, seed: int, keep_docstrings: bool = False) -> list[dict]:
    from lcl.engine.similarity import SimilarityWarning, sim_ast, sim_edit
    from lcl.study.task_specs import spec_uid
    from lcl.engine.variants import optimise

    rows = []
    for task in tasks:
        ref = ast.unparse(ast.parse(task.reference))  # as lcl.study.candidate_generation.candidates does
        v = optimise(ref, entry_point=task.entry_point, seed=seed, allow_docstring_removal=not keep_docstrings)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SimilarityWarning)
            e, a = sim_edit(ref, v.code, "paper"), sim_ast(ref, v.code, "paper")
        rows.append({"id": task.uid.replace("/", "_"), "task": spec_uid(task), "reference": ref, "variant": v.code,
                     "changed": v.code.strip() != ref.strip(), "edit": e, "ast": a, "sim": (e + a) / 2,
                     "rewrites": v.rewrites, "strategies": v.strategies, "rejected": v.rejected})
    return rows


def _summary(name: str, rows: list[dict]) -> None:
    changed = [r for r in rows if r["changed"]]
    print(f"== {name}: {len(rows)} references, rewritten {len(changed)} ({100 * len(changed) / len(rows):.1f} %)")
    for label, sel in (("all", rows), ("rewritten", changed)):
        if sel:
            print(f"   mean SurfaceSim ({label}): {statistics.mean(r['sim'] for r in sel):.3f}"
                  f"  (Sim_Edit {statistics.mean(r['edit'] for r in sel):.3f},"
                  f" Sim_AST {statistics.mean(r['ast'] for r in sel):.3f});"
                  f" <= 0.70: {sum(r['sim'] <= 0.70 for r in sel)}")
    used = Counter(x for r in rows for x in dict.fromkeys(r["rewrites"]))
    print("   rewrites (variants):", ", ".join(f"{k} {v}" for k, v in used.most_common()))
    labels = Counter(s for r in rows for s in r["strategies"])
    print("   strategies (variants):", dict(labels), "| None:", sum(1 for r in changed if not r["strategies"]))
    rej = Counter(x for r in rows for x in r["rejected"])
    if rej:
        print("   rejected:", dict(rej))


def _fuzz(rows: list[dict], n: int, inputs: int, runs: int, jobs: int, seed: int) -> None:
    from lcl.engine.fuzz import Settings, run_batch
    from lcl.engine.fuzz.store import ResultStore
    from lcl.study.task_specs import resolve_published

    pool = [r for r in rows if r["changed"]]
    sample = sorted(random.Random(seed).sample(range(len(pool)), min(n, len(pool))))
    batch = [{"id": pool[i]["id"], "golden_code": pool[i]["reference"], "generated_code": pool[i]["variant"],
              "task": pool[i]["task"]} for i in sample]
    settings = Settings().with_(runs=runs, n_function=inputs, n_program=inputs)
    t0 = time.perf_counter()
    res: list[dict] = []
    with tempfile.TemporaryDirectory() as tmp:
        store = ResultStore(Path(tmp) / "results.sqlite")
        try:
            for start in range(0, len(batch), 20):
                chunk = batch[start:start + 20]
                try:
                    res += run_batch(chunk, settings=settings, seed=seed, jobs=jobs, store=store, progress=False,
                                     keep_going=True, resolvers=[resolve_published])
                except Exception:  # noqa: BLE001 - an engine failure on one pair: rerun the chunk pair by pair
                    for row in chunk:
                        try:
                            res += run_batch([row], settings=settings, seed=seed, jobs=jobs, store=store,
                                             progress=False, keep_going=True, resolvers=[resolve_published])
                        except Exception as exc:  # noqa: BLE001
                            res.append({"id": row["id"], "error": f"engine: {type(exc).__name__}: {exc}"})
        finally:
            store.db.close()
    dt = time.perf_counter() - t0
    by_id = {r["id"]: r for r in pool}
    scores = [r.get("df_score") for r in res]
    ok = [s for s in scores if s is not None and s >= 0]
    bad = [r for r in res if r.get("df_score") is not None and 0 <= r["df_score"] < 1]
    errs = [r for r in res if r.get("error") or r.get("df_score") is None]
    print(f"== fuzz sample: {len(batch)} variants, N={inputs}, R={runs}, {dt:.0f} s")
    if ok:
        print(f"   mean df_score {statistics.mean(ok):.4f}; non-equivalent {len(bad)}; errors {len(errs)}")
        totals: Counter = Counter()
        for r in res:
            totals.update(r.get("counts") or {})
        print("   executions:", dict(sorted(totals.items())))
    for r in bad:
        print(f"   NOT EQUIVALENT {r['id']} df={r['df_score']:.3f} rewrites={by_id[r['id']]['rewrites']}")
    for r in errs:
        print(f"   error {r['id']}: {str(r.get('error'))[:120]}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--bench", default="humaneval",
                    help="comma-separated: humaneval, mbpp, apps (those data/raw has); default humaneval")
    ap.add_argument("--selected", action="store_true",
                    help="only the references the pipeline uses (lcl.study.loaders.select: e.g. the 100 longest MBPP)")
    ap.add_argument("--fuzz", type=int, default=0, metavar="N", help="fuzz a sample of N rewritten variants")
    ap.add_argument("--inputs", type=int, default=200)
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--keep-docstrings", action="store_true", help="allow_docstring_removal=False")
    ap.add_argument("--show", type=int, default=0, metavar="K", help="print the K most similar variants")
    args = ap.parse_args()

    from lcl.study import loaders

    known = {"humaneval": ("HumanEval", loaders.load_humaneval), "mbpp": ("MBPP", loaders.load_mbpp),
             "apps": ("APPS", loaders.load_apps)}
    benches = [known[b.strip().lower()] for b in args.bench.split(",") if b.strip()]
    all_rows: list[dict] = []
    for name, load in benches:
        try:
            tasks = load().tasks
            if args.selected:
                tasks = loaders.select(name, tasks)
        except Exception as exc:  # noqa: BLE001 - a missing benchmark is reported, not fatal
            print(f"== {name}: not available ({type(exc).__name__}: {exc})")
            continue
        t0 = time.perf_counter()
        rows = _variants(tasks, args.seed, args.keep_docstrings)
        _summary(name, rows)
        print(f"   rewriting took {time.perf_counter() - t0:.1f} s")
        for r in sorted(rows, key=lambda r: -r["sim"])[: args.show]:
            print(f"--- {r['id']} sim={r['sim']:.3f} edit={r['edit']:.3f} ast={r['ast']:.3f} {r['rewrites']}")
            print(r["variant"])
        all_rows += rows
    if args.fuzz:
        _fuzz(all_rows, args.fuzz, args.inputs, args.runs, args.jobs, args.seed)


if __name__ == "__main__":
    main()
