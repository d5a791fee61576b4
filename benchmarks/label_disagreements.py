#!/usr/bin/env python
"""Disagreements between our re-derived df_score and the published labels, for the HumanEval / MBPP / APPS pairs of the published LoCaL
release and for the CodeScore_test baseline (MBPP, APPS).

Every pair is re-derived with :func:`lcl.study.label_agreement.rederive` (the sandboxed engine, spec-driven
inputs, results in the engine's store ``.cache/fuzz/results.sqlite``, so a rerun only fuzzes
pairs whose code, spec, seed or settings changed). One row per pair goes to
``build/label_disagreements.csv``: id, set, theirs, ours, |diff|, both buckets (0 / between /
1), our verdict counts summed over the runs, and a ``cause``.

The cause of a disagreement (|diff| > 0.2) is a judgement recorded by hand after looking at
the reference, the variant, the spec and per-input verdicts (``--explain ID``); it lives in
``data/reference/label_causes.csv`` with its evidence (:func:`lcl.study.label_agreement.cause_for` applies
it). Pairs that agree get ``agree``; large disagreements nobody has looked at yet get
``unexamined``; smaller ones (0.05 < |diff| <= 0.2) get ``small: sampling`` unless a cause is
recorded.

    python benchmarks/label_disagreements.py --jobs 1                        # every set
    python benchmarks/label_disagreements.py --set LoCaL/MBPP --n 200 --runs 2
    python benchmarks/label_disagreements.py --explain LOCAL_MBPP_12_3_MUT_2  # per-input verdicts

``--explain`` runs the one pair again through the engine (sandboxed; nothing runs in this
process) and prints the inputs on which the variant mismatches, is invalid, or matches.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "lib"))

SETS = ("LoCaL/HumanEval", "LoCaL/MBPP", "LoCaL/APPS", "CodeScore_test/MBPP", "CodeScore_test/APPS")
SEED = 20250101

# The cause of each examined disagreement lives in data/reference/label_causes.csv (id, cause,
# evidence), read through lcl.study.label_agreement.recorded_causes. Cause vocabulary (the family comes first):
#   theirs: equivalent mutant labelled <x>     -- the variant is equivalent on every valid input
#   theirs: label inconsistent with their own tests
#   theirs: inputs outside the task's constraints -- their generator feeds inputs the task excludes
#   ours: spec too narrow (misses X)           -- fixed in the spec, pair re-derived
#   ours: spec too wide (...)                  -- fixed in the spec, pair re-derived
#   ours: invalid-input handling               -- the reference raises; we exclude, they count
#   distribution: trigger rate                 -- both input sets valid; the behaviour that differs
#                                                 is triggered at a different rate
#   equality: int vs float / int vs bool       -- output equality semantics differ
#   environment: ...                           -- module missing / Python-version behaviour


def load_pairs(sets: list[str], limit: int | None) -> list:
    from lcl.study import loaders

    out = []
    pub = loaders.load_local_published() if any(s.startswith("LoCaL/") for s in sets) else []
    cst = loaders.load_codescore_test() if any(s.startswith("CodeScore_test/") for s in sets) else []
    for s in sets:
        ds, bench = s.split("/")
        src = pub if ds == "LoCaL" else cst
        got = [p for p in src if p.benchmark == bench]
        out += got[:limit] if limit else got
    return out


def set_of(row) -> str:
    return ("LoCaL" if row["dataset"] == "LoCaL_published" else row["dataset"]) + "/" + str(row["benchmark"])


def main_run(args: argparse.Namespace) -> int:
    import pandas as pd

    from lcl.study import label_agreement

    sets = args.set or list(SETS)
    pairs = load_pairs(sets, args.limit)
    print(f"{len(pairs)} pairs in {', '.join(sets)}; N={args.n}/{args.n_program}, R={args.runs}", file=sys.stderr)
    df = label_agreement.rederive(pairs, n_function=args.n, n_program=args.n_program, runs=args.runs, seed=args.seed,
                         jobs=args.jobs, progress=not args.quiet)
    df["set"] = df.apply(set_of, axis=1)
    df = label_agreement.with_causes(df)
    rows = []
    for r in df.to_dict("records"):
        c = r.get("counts") or {}
        cause, evidence = r["cause"], r["evidence"]
        rows.append({"id": r["id"], "set": r["set"], "task": r["task"], "variant_type": r["variant_type"],
                     "spec": r["spec"], "theirs": r["theirs"],
                     "ours": None if r["ours"] is None else round(r["ours"], 4),
                     "abs_diff": None if r["abs_diff"] is None else round(r["abs_diff"], 4),
                     "bucket_theirs": r["bucket_theirs"], "bucket_ours": r["bucket_ours"],
                     "matches": c.get("matches"), "mismatches": c.get("mismatches"), "invalid": c.get("invalid"),
                     "timeouts": c.get("timeouts"), "crashes": c.get("crashes"),
                     "cause": cause, "evidence": evidence})
    out = Path(args.out)
    # merge with rows of sets not run this time, so a partial rerun keeps the others
    old = []
    if out.exists() and args.set:
        with out.open() as fh:
            old = [r for r in csv.DictReader(fh) if r["set"] not in sets]
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        for r in old + rows:
            w.writerow(r)
    all_rows = pd.DataFrame(old + rows)
    for col in ("theirs", "ours", "abs_diff"):
        all_rows[col] = pd.to_numeric(all_rows[col], errors="coerce")
    print(summary(all_rows).to_string(index=False))
    big = all_rows[all_rows.abs_diff > 0.2]
    print("\ncauses of |diff| > 0.2:")
    print(big.groupby(["set", "cause"]).size().to_string())
    return 0


def summary(df):
    import pandas as pd

    rows = []
    for s, g in df.groupby("set"):
        ok = g[g.abs_diff.notna()]
        rows.append({"set": s, "pairs": len(g), "fuzzed": len(ok), "MAE": round(ok.abs_diff.mean(), 4),
                     "bucket agreement": round((ok.bucket_theirs == ok.bucket_ours).mean(), 4),
                     "|diff|>0.2": int((ok.abs_diff > 0.2).sum())})
    return pd.DataFrame(rows)


def explain(args: argparse.Namespace) -> int:
    """Per-input verdicts of one pair, through the sandboxed engine."""
    from lcl.study import loaders
    from lcl.engine.fuzz import Settings, fuzz_pair
    from lcl.engine.fuzz.semantics import run_seed
    from lcl.study.task_specs import resolve_published, spec_for, task_uid_for_row

    pairs = {p.id: p for p in loaders.load_local_published() + loaders.load_codescore_test()}
    p = pairs[args.explain]
    row = {"id": p.id, "golden_code": p.reference, "generated_code": p.candidate}
    info = resolve_published(row)
    uid = task_uid_for_row(row)
    spec = spec_for(uid)
    print(f"== {p.id}  task {uid}  theirs={p.df_score}  spec={spec.origin} verified={spec.verified}")
    print(f"-- spec notes: {spec.notes}")
    if args.show_code:
        print("-- reference:\n" + p.reference + "\n-- variant:\n" + p.candidate)
    elif args.diff:
        import difflib

        print("".join(difflib.unified_diff(p.reference.splitlines(True), p.candidate.splitlines(True),
                                           "reference", "variant", n=2)))
    s = Settings().with_(runs=args.runs, n_function=args.n, n_program=args.n_program)
    level = "program" if info["stdin"] else "function"
    n = s.n_default(level)
    if args.inputs:  # explicit inputs (a JSON list): check a hypothesis about where the sides differ
        xs = json.loads(args.inputs)
        res = fuzz_pair(p.reference, p.candidate, entry=info["entry"], stdin=info["stdin"], inputs=xs,
                        seed=args.seed, settings=s.with_(runs=1), label=p.id)
        print(f"explicit inputs: {res.counts()}")
        for x, v in zip(xs, res.runs[0].verdicts):
            print(f"   {v} {json.dumps(x)[:300]}")
        return 0
    res = fuzz_pair(p.reference, p.candidate, entry=info["entry"], stdin=info["stdin"], generator=info["generator"],
                    seed=args.seed, settings=s, label=p.id)
    print(f"ours={res.df_score:.4f} counts={res.counts()}")
    for r in res.runs:
        items = info["generator"](run_seed(args.seed, r.run), n)
        by = {}
        for x, v in zip(items, r.verdicts):
            by.setdefault(v, []).append(x)
        print(f"-- run {r.run}: score={r.score} {dict(Counter(r.verdicts))}")
        for v in ("X", "T", "C", "I", "M"):
            for x in by.get(v, [])[: args.show]:
                print(f"   {v} {json.dumps(x)[:300]}")
        if not args.all_runs:
            break
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--set", action="append", choices=SETS, help="pair set (repeatable; default all)")
    ap.add_argument("--n", type=int, default=200, help="inputs per run, functions (default 200)")
    ap.add_argument("--n-program", type=int, default=100, help="inputs per run, programs (default 100)")
    ap.add_argument("--runs", type=int, default=2, help="runs R (default 2)")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--limit", type=int, default=None, help="at most this many pairs per set")
    ap.add_argument("--seed", type=int, default=SEED)
    ap.add_argument("--out", default=str(ROOT / "build" / "label_disagreements.csv"))
    ap.add_argument("--quiet", action="store_true")
    ap.add_argument("--explain", metavar="ID", help="print per-input verdicts of one pair and exit")
    ap.add_argument("--show", type=int, default=4, help="--explain: inputs shown per verdict")
    ap.add_argument("--show-code", action="store_true", help="--explain: print both codes")
    ap.add_argument("--diff", action="store_true", help="--explain: print a unified diff of the codes")
    ap.add_argument("--inputs", metavar="JSON", help="--explain: run these inputs (a JSON list) instead")
    ap.add_argument("--all-runs", action="store_true", help="--explain: every run, not only the first")
    ap.add_argument("--no-et", action="store_true",
                    help="ablation: leave the MBPP-ET / HumanEval-ET test inputs out of the seed inputs "
                         "(only the benchmarks' own asserts come first); use with a different --out")
    args = ap.parse_args()
    if args.no_et:
        from lcl.study import sources

        available = sources.available
        sources.available = lambda name: name not in ("mbpp_et", "humaneval_et") and available(name)
    return explain(args) if args.explain else main_run(args)


if __name__ == "__main__":
    sys.exit(main())
