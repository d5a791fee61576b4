"""``lcl inputs``: draft, inspect and check input-constraint specs.

  lcl inputs draft HumanEval/0            print the inferred draft (from seed inputs)
  lcl inputs draft HumanEval/0 --write    start a reviewed spec from the draft (data/constraints/)
  lcl inputs sample MBPP/11 --n 5         show generated inputs (seed inputs excluded)
  lcl inputs check PIE/p02599             validity, distinct inputs, branch coverage of the reference(s)
  lcl inputs status                       reviewed / verified / inferred counts per benchmark
  lcl inputs agreement --profile full     re-derive the published df_score labels, MAE and bucket agreement
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter

from lcl.core.io import write_text
from lcl.engine.inputs.generate import generate
from lcl.engine.inputs.quality import measure
from lcl.engine.inputs.spec import Spec, dumps, load
from lcl.study import task_specs as store

from .common import add_run_options, profile_of


def _spec(args: argparse.Namespace) -> Spec:
    return load(args.spec) if getattr(args, "spec", None) else store.spec_for(args.task)


def cmd_inputs_draft(args: argparse.Namespace) -> int:
    if args.write:
        print(f"wrote {store.write_draft(args.task, args.force)}")
    else:
        print(dumps(store.infer(args.task), strict=False), end="")
    return 0


def cmd_inputs_sample(args: argparse.Namespace) -> int:
    for inp in generate(_spec(args), args.n, args.seed):
        print(json.dumps(inp, default=repr) if not isinstance(inp, str) else inp.rstrip("\n") + "\n---")
    return 0


def cmd_inputs_check(args: argparse.Namespace) -> int:
    spec = _spec(args)
    tasks = store.check_references(args.task, args.max_references)
    worst = 1.0
    for t in tasks:
        q = measure(t, spec, n=args.n, seed=args.seed)
        if q.validity == q.validity:  # NaN: the reference cannot run here (missing module)
            worst = min(worst, q.validity)
        cov = "n/a" if q.branch_coverage is None else f"{q.branch_coverage:.0%}"
        seeds = "n/a" if q.seed_validity is None else f"{q.seed_validity:.1%} of {q.n_seed}"
        print(f"{t.uid}: validity {q.validity:.1%} on generated inputs ({q.verdicts}); seed inputs valid {seeds}; "
              f"distinct {q.n_distinct}/{q.n_inputs}, branch coverage {cov}, missing lines {q.missing_lines[:12]}, "
              f"missing branches {q.missing_branches[:8]} {q.note}")
        for verdict, example in q.examples.items():
            print(f"    {verdict} on {example}")
    print(f"origin={spec.origin} verified={spec.verified}; worst validity {worst:.1%} "
          f"({'meets' if worst >= 0.95 else 'BELOW'} the 95% target)")
    return 0 if worst >= 0.95 else 1


def cmd_inputs_status(args: argparse.Namespace) -> int:
    counts: Counter[tuple[str, str]] = Counter()
    for uid in store.all_spec_uids():
        bench = uid.split("/")[0]
        p = store.reviewed_path(uid)
        if p.exists():
            spec = load(p)
            kind = "verified" if spec.verified else "reviewed (pending)" if spec.origin == "reviewed" else \
                "inferred (committed draft)"
            counts[bench, kind] += 1
        else:
            counts[bench, "inferred on demand"] += 1
    for (bench, kind), n in sorted(counts.items()):
        print(f"{bench:<10} {kind:<20} {n}")
    return 0


def cmd_inputs_agreement(args: argparse.Namespace) -> int:
    """The published labels re-derived outside Jupyter by the 01 notebook's stage
    (:func:`lcl.study.label_agreement.build_agreement`: same pairs, N, R and seed).
    Without the published labels (registry-only data) it says so and exits 0, as the notebook
    skips them, so ``make labels`` still finishes."""
    import pandas as pd

    from lcl.study import label_agreement

    profile = profile_of(args)
    rederived, unavailable = label_agreement.build_agreement(profile, args.seed, args.jobs, progress=not args.no_progress)
    for note in unavailable:
        print(note, file=sys.stderr)
    if rederived is None:
        print("published-label agreement skipped: no published labels here (they come from the data mirror; "
              "see `lcl data status`)", file=sys.stderr)
        return 0
    if args.out:
        print(f"wrote {write_text(args.out, rederived.drop(columns=['counts']).to_csv(index=False))}")
    with pd.option_context("display.width", 200, "display.max_columns", 20, "display.precision", 4):
        print(label_agreement.agreement(rederived).to_string(index=False))
        print(f"\ndisagreements with |diff| > {label_agreement.LARGE_DIFF} by cause family "
              f"(recorded in {label_agreement.causes_file().name}; see docs/LABELS.md):")
        print(label_agreement.cause_summary(rederived).to_string(index=False))
    print("targets: MAE <= 0.05 and bucket agreement >= 90% per set")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("inputs", help="draft, sample and check input-constraint specs",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    isub = p.add_subparsers(dest="inputs_command", metavar="ACTION", required=True)
    d = isub.add_parser("draft", help="infer a draft spec from the task's seed inputs")
    d.add_argument("task")
    d.add_argument("--write", action="store_true", help="write it to data/constraints/ for review")
    d.add_argument("--force", action="store_true")
    d.set_defaults(func=cmd_inputs_draft)
    for name, fn, helptext in (("sample", cmd_inputs_sample, "print generated inputs"),
                               ("check", cmd_inputs_check, "validity rate and branch coverage of the reference(s)")):
        c = isub.add_parser(name, help=helptext)
        c.add_argument("task")
        c.add_argument("--spec", help="use this spec file instead of the task's stored one")
        c.add_argument("--n", type=int, default=5 if name == "sample" else 200)
        add_run_options(c, profile=False, seed={"default": 0}, jobs=False, progress=False)
        if name == "check":
            c.add_argument("--max-references", type=int, default=5,
                           help="PIE: check at most this many accepted programs of the problem")
        c.set_defaults(func=fn)
    s = isub.add_parser("status", help="how many tasks have reviewed / verified / only inferred specs")
    s.set_defaults(func=cmd_inputs_status)
    a = isub.add_parser("agreement", help="re-derive the published df_score labels and compare (resumable)",
                        description="Fuzz the published LoCaL pairs and the CodeScore_test baseline with our engine "
                                    "and inputs, exactly as the 01 notebook does (same pairs, N, R and seed), and "
                                    "print the MAE and bucket agreement with the authors' labels per set. Results "
                                    "go to the fuzz result store: interrupt it and rerun it freely.",
                        epilog="example: lcl inputs agreement --profile full --jobs 2 --out build/labels.csv")
    add_run_options(a)
    a.add_argument("--out", help="also write every pair's row (theirs, ours, buckets, spec) to this CSV")
    a.set_defaults(func=cmd_inputs_agreement)
