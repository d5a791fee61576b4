"""The RQ2 pool: df = 0 mutants of PIE slow programs for ``ds_replaced`` (paper Section 4.4.1).

Each repetition of RQ2's construction draws its own ``n`` mutants with df_score exactly 0: the
population's candidates (MutPy mutants generated as LoCaL's are, :func:`lcl.study.candidate_generation.candidates`)
in the repetition's own order (:func:`repetition_order` with :func:`repetition_seed`), fuzzed
``batch`` at a time until ``n`` have df = 0 (:func:`mutant_pool`, :func:`repetition_pools`).
Confirming df = 0 is what is expensive ("with differential fuzzing is expensive"), so a
candidate's first run screens it first (:func:`screen`). Labels are shared through the result
store and the committed label archive, so a candidate two repetitions draw is fuzzed once.
:mod:`lcl.rq.distinguish` builds the repetitions and Table 4 from these pools.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import numpy as np
import pandas as pd

from lcl.core import records, seeds
from lcl.core.errors import UserError
from lcl.core.profiles import Profile
from lcl.core.records import Outcome, PairRow, Task, df_band, result_outcome
from lcl.engine.fuzz import Settings
from lcl.engine.fuzz.semantics import FuzzResult

from . import candidate_generation, loaders
from .labelling import candidates_stored, label_candidates, profile_settings
from .task_specs import spec_for, spec_uid


def repetition_seed(seed: int, r: int) -> int:
    """The recorded seed of repetition ``r`` (derived from the run's seed)."""
    return int(np.random.SeedSequence([seed, r]).generate_state(1)[0])



# ----------------------------------------------------------------------------- mutant pool
#: where the RQ2 mutants come from: LoCaL's own mutants with df_score = 0 from every benchmark
#: (``LOCAL_DF0``, the population the authors' script draws from, :func:`local_df0_pool`), fresh
#: mutants of the slow programs of the PIE pairs that RQ1 and RQ2 sample from (``PIE_PAIRS``), or
#: LoCaL's own 100 PIE slow programs mutated afresh (``LOCAL``); the last two are sensitivity rows
PIE_PAIRS, LOCAL, LOCAL_DF0 = "pie-pairs", "local", "local-df0"
POPULATIONS = (PIE_PAIRS, LOCAL)


def local_df0_pool(rows: Sequence[PairRow]) -> tuple[list[PairRow], Counter]:
    """LoCaL's mutants with df_score exactly 0, from every source benchmark: the ``ds_replaced``
    population of the authors' released RQ2 script (``Experiments/RQ2/scripts/
    analyze_distinguishability.py`` keeps the LoCaL rows whose ``variant_type`` is a mutation,
    whose ``df_score`` equals 0.0 and whose two programs are non-empty, whatever their benchmark).

    ``rows``: LoCaL's pair rows as notebook 02 wrote them (our labels, our pairs). One fixed pool:
    every repetition samples its mutants from all of it, as the script does. Returned rows are
    sorted by id, carry ``benchmark`` and ``level`` (not only PIE programs), and the ledger counts
    what was kept per benchmark and what was left out.
    """
    counts: Counter = Counter()
    pool: list[PairRow] = []
    for row in rows:
        if row.get("variant_type") != "MUT":
            continue
        counts["LoCaL mutants"] += 1
        if row.get("df_score") != 0.0:
            counts["left out: df_score is not 0"] += 1
        elif not (row.get("reference") or "").strip() or not (row.get("candidate") or "").strip():
            counts["left out: an empty program"] += 1
        else:
            counts[f"kept (df_score = 0): {row.get('benchmark')}"] += 1
            pool.append({"id": row["id"], "task": row.get("task"), "benchmark": row.get("benchmark"),
                         "level": row.get("level"), "reference": row["reference"], "candidate": row["candidate"],
                         "operator": row.get("operator"), "df_score": 0.0})
    counts[KEPT] = len(pool)
    return sorted(pool, key=lambda r: r["id"]), counts


def population_tasks(population: str) -> list[Task]:
    """The slow programs a population mutates, before the spec filter: every PIE pair's slow
    program (``PIE_PAIRS``; Section 4.4.1 mutates "slow implementations" of the PIE pairs it
    draws from) or the 100 longest ones LoCaL is built on (``LOCAL``; Section 3.1)."""
    if population not in POPULATIONS:
        raise ValueError(f"unknown RQ2 mutant population {population!r}; use one of {POPULATIONS}")
    tasks = loaders.load_pie().tasks
    return loaders.select("PIE", tasks) if population == LOCAL else list(tasks)


def pool_programs(profile: Profile, seed: int, population: str = PIE_PAIRS) -> tuple[list[Task], Counter]:
    """The slow programs of ``population`` (:func:`population_tasks`) whose problem has a
    verified, non-empty input spec; with ``profile.rq2_pool_programs`` set, a seeded sample of
    that many. Skips are counted."""
    skipped: Counter = Counter()
    status: dict[str, str] = {}
    keep = []
    for t in population_tasks(population):
        uid = spec_uid(t)
        if uid not in status:
            try:
                spec = spec_for(uid)
                status[uid] = "ok" if spec.verified and spec.grammar else (
                    "spec not verified" if not spec.verified else "spec verified but empty")
            except UserError:
                status[uid] = "no spec"
        if status[uid] == "ok":
            keep.append(t)
        else:
            skipped[f"slow program skipped: {status[uid]}"] += 1
    if profile.rq2_pool_programs is not None and len(keep) > profile.rq2_pool_programs:
        rng = seeds.rng(seed, "rq2-pool")
        skipped["slow program not sampled (profile cap)"] += len(keep) - profile.rq2_pool_programs
        keep = [keep[i] for i in sorted(rng.sample(range(len(keep)), profile.rq2_pool_programs))]
    skipped["problems with a verified spec"] = sum(v == "ok" for v in status.values())
    return keep, skipped


def population_candidates(profile: Profile, seed: int,
                          population: str = PIE_PAIRS) -> tuple[list[PairRow], Counter]:
    """The population's MUT candidates (:func:`lcl.study.candidate_generation.candidates` of :func:`pool_programs`,
    the LoCaL generator, so ids and labels are shared with LoCaL) in a fixed seeded order (sorted
    by id, then shuffled), and the ledger of programs and candidates left out.

    With ``profile.rq2_pool_candidates`` set (``PIE_PAIRS`` only), the population is the first
    that many candidates of that order: a seeded random sample of the mutants, the largest one
    whose labels the committed archive holds at that profile (fuzzing all of them costs hours)."""
    tasks, counts = pool_programs(profile, seed, population)
    counts["slow programs mutated"] = len(tasks)
    ledger = records.Ledger()
    rows = [r for r in candidate_generation.candidates(tasks, profile, seed, ledger) if r["variant_type"] == "MUT"]
    counts["MUT candidates generated"] = ledger.generated["MUT candidates"]
    for k, v in ledger.dropped.items():
        if k.startswith(("MUT", "reference")):
            counts[k] += v
    rows = sorted(rows, key=lambda r: r["id"])
    seeds.rng(seed, "rq2-order").shuffle(rows)
    cap = profile.rq2_pool_candidates if population == PIE_PAIRS else None
    if cap is not None and len(rows) > cap:
        counts["MUT candidates outside the sampled population (profile cap)"] = len(rows) - cap
        rows = rows[:cap]
    counts["MUT candidates in the population"] = len(rows)
    return rows, counts


def repetition_order(rows: Sequence[PairRow], seed_r: int) -> list[PairRow]:
    """The population's candidates in repetition ``seed_r``'s own seeded order: each repetition
    draws its mutants afresh (Section 4.4.1 repeats "the entire dataset construction")."""
    out = sorted(rows, key=lambda r: r["id"])
    seeds.rng(seed_r, "rq2-mutants").shuffle(out)
    return out


def pool_candidates(profile: Profile, seed: int, order_seed: int | None = None,
                    population: str = PIE_PAIRS) -> tuple[list[PairRow], Counter]:
    """The candidates in the order they are fuzzed: the population's fixed order, or with
    ``order_seed`` (a repetition's seed) :func:`repetition_order`."""
    rows, counts = population_candidates(profile, seed, population)
    return (rows if order_seed is None else repetition_order(rows, order_seed)), counts


def pool_status(profile: Profile, seed: int, target: int | None, order_seed: int | None = None,
                population: str = PIE_PAIRS) -> tuple[Counter, bool]:
    """Where the pool of a profile stands, fuzzing nothing: of its candidates (in fuzzing order),
    how many have their full label (and how many of those have df_score = 0), how many the R = 1
    screen already left out, how many wait for their full label after the screen, and how many
    are still to fuzz; read from the result store (and the label archive merged into it). The
    flag says whether :func:`mutant_pool` with ``target`` would fuzz nothing more: ``target``
    df = 0 mutants come before the first candidate still to fuzz, or none is left. ``order_seed``
    and ``population`` as in :func:`pool_candidates`."""

    rows, _ = pool_candidates(profile, seed, order_seed, population)
    settings = profile_settings(profile)
    full = candidates_stored(rows, settings, seed) if rows else {}
    done = [r for r in rows if full.get(r["id"])]
    dfs = {r["id"]: r for r in label_candidates(done, settings, seed, 1, progress=False)} if done else {}
    first_run = screen_settings(settings)
    rest = [r for r in rows if not full.get(r["id"])] if settings.runs >= SCREEN_MIN_RUNS else []
    first = candidates_stored(rest, first_run, seed) if rest else {}
    firsts = [r for r in rest if first.get(r["id"])]
    screened = {r["id"]: r for r in label_candidates(firsts, first_run, seed, 1, progress=False)} if firsts else {}
    out: Counter = Counter({"candidates": len(rows)})
    complete, in_order = True, 0  # in_order: df = 0 mutants met before the first one still to fuzz
    for row in rows:
        rid = row["id"]
        pending = False
        if rid in dfs:
            out["full label stored"] += 1
            res = dfs[rid]
            zero = not res.get("error") and res.get("df_score") == 0.0
            out["of which df_score = 0"] += int(zero)
            in_order += int(zero and complete)
        elif rid in screened:
            res = screened[rid]
            left_out = not res.get("error") and (res.get("df_score") or 0) > 0
            out["screened out (first run already matches: df_score > 0)" if left_out
                else "screened, full label still to fuzz"] += 1
            pending = not left_out
        elif full.get(rid) is None:
            out["cannot be fuzzed"] += 1
        else:
            out["still to fuzz"] += 1
            pending = True
        if pending and complete and (target is None or in_order < target):
            complete = False
    return out, complete


#: ledger entries of :func:`mutant_pool` that :func:`candidates_per_df0` reads back
FUZZED, AFTER_TARGET, KEPT = ("mutants fuzzed", "fuzzed after the pool target was reached (not used)",
                              "kept: df_score = 0")


def mutant_pool(profile: Profile, seed: int, jobs: int, progress: bool = True, *, target: int | None = None,
                batch: int = 100, order_seed: int | None = None,
                population: str = PIE_PAIRS) -> tuple[list[PairRow], Counter]:
    """Mutants of PIE slow programs with ``df_score`` exactly 0, and where every other candidate went.

    Mutants are generated as LoCaL's are (:func:`lcl.study.candidate_generation.candidates`, same ids, same
    per-program cap ``profile.mutants_per_program``), so fuzz results are shared with the LoCaL
    dataset in the engine's store (a rerun is cheap). Candidates (:func:`pool_candidates` of
    ``population``, in the order ``order_seed`` gives) are fuzzed ``batch`` at a time until
    ``target`` of them have df_score = 0 (``None``: fuzz every candidate); the pool is the first
    ``target`` df = 0 mutants in that order, so it does not depend on ``batch``. As in the paper
    (Section 4.4.1), confirming df = 0 is what is expensive, hence the target.

    Screening: a candidate is first fuzzed for its first run alone (:func:`screen`, Algorithm 1
    with R = 1: the same seed, inputs and T as run 1 of the full label, stored under its own
    key). A first run that is kept with a score above 0 means df_score > 0 whatever the other
    runs give, so the candidate is left out without its other R - 1 runs; the rest get the full
    label. Survivors pay their first run twice, so with a share s screened out the screen saves
    s (R - 1) - (1 - s) runs per candidate: nothing at R = 2 (quick profile: s = 19/36, so it is
    off there), a quarter to a third of the runs at R = 5 (full profile).

    Returned rows (sorted by id) carry ``reference`` (ast.unparse of the slow program),
    ``candidate`` (the mutant), ``task`` (``PIE/<problem>``), ``operator`` and ``df_score`` (0.0).
    """

    rows, counts = pool_candidates(profile, seed, order_seed, population)
    pool: list[PairRow] = []
    fuzzed = 0
    for start in range(0, len(rows), batch):
        if target is not None and len(pool) >= target:
            break
        chunk = rows[start:start + batch]
        fuzzed += len(chunk)
        out = screen(chunk, profile_settings(profile), seed, jobs, progress)
        full = [r for r in chunk if r["id"] not in out]
        results = ({r["id"]: r for r in label_candidates(full, profile_settings(profile), seed, jobs, progress=progress)}
                   if full else {})
        for row in chunk:
            res = results.get(row["id"], {})
            what, band = result_outcome(res), df_band(res.get("df_score"))
            if target is not None and len(pool) >= target:
                counts[AFTER_TARGET] += 1
            elif row["id"] in out:
                counts["excluded: its first run already matches on some input (df_score > 0; screened, R = 1)"] += 1
            elif what is Outcome.ERROR:
                counts["excluded: cannot be fuzzed"] += 1
            elif what is Outcome.NO_KEPT_RUN:
                counts[f"excluded: df_score = -1 ({_why_no_runs(res)})"] += 1
            elif band == "1":
                counts["excluded: equivalent (df_score = 1)"] += 1
            elif band == "between":
                counts["excluded: differs on some inputs only (0 < df_score < 1)"] += 1
            else:
                c = res.get("counts")
                if c and c["crashes"]:
                    counts["kept (df_score = 0), of which crashed on some input"] += 1
                if c and c["timeouts"]:
                    counts["kept (df_score = 0), of which timed out on some input"] += 1
                pool.append({"id": row["id"], "task": row["task"], "reference": row["reference"],
                             "candidate": row["candidate"], "operator": row.get("operator"), "df_score": 0.0})
    counts[FUZZED] = fuzzed
    if fuzzed < len(rows):
        counts["not fuzzed: pool target reached"] = len(rows) - fuzzed
    counts[KEPT] = len(pool)
    counts["slow programs the kept mutants come from"] = len({r["task"] for r in pool})
    return sorted(pool, key=lambda r: r["id"]), counts


def repetition_pools(profile: Profile, seed: int, jobs: int, n: int, k: int, population: str = PIE_PAIRS,
                     progress: bool = True) -> tuple[list[list[PairRow]], list[Counter]]:
    """Each repetition's own df = 0 mutants (Section 4.4.1): for repetition ``r``, the population's
    candidates in that repetition's order (:func:`repetition_order` with :func:`repetition_seed`)
    are fuzzed until ``n`` have df_score = 0. Labels are shared through the result store, so a
    candidate two repetitions draw is fuzzed once; the ledgers are per repetition."""
    pools, ledgers = [], []
    for r in range(k):
        pool, counts = mutant_pool(profile, seed, jobs, progress, target=n, order_seed=repetition_seed(seed, r),
                                   population=population)
        pools.append(pool)
        ledgers.append(counts)
    return pools, ledgers


def population_pools(profile: Profile, seed: int, jobs: int, n: int, k: int, populations: Sequence[str],
                     progress: bool = True) -> tuple[dict[str, list[list[PairRow]]], dict[str, list[Counter]]]:
    """:func:`repetition_pools` of each population: the pools and the ledgers, keyed by population."""
    pools: dict[str, list[list[PairRow]]] = {}
    ledgers: dict[str, list[Counter]] = {}
    for population in populations:
        pools[population], ledgers[population] = repetition_pools(profile, seed, jobs, n, k, population, progress)
    return pools, ledgers


#: screen candidates by their first run only from this R on (see :func:`mutant_pool`)
SCREEN_MIN_RUNS = 3


def screen_settings(settings: Settings) -> Settings:
    """The screen's settings: run 1 of Algorithm 1 alone (R = 1; its seed, inputs and T are
    those of the full label's run 1), stored under a key of its own."""
    return settings.with_(runs=1)


def screen(rows: list[PairRow], settings: Settings, seed: int, jobs: int, progress: bool = True) -> set[str]:
    """Ids of candidates whose first run alone shows df_score > 0 (kept, score above 0); none
    when R is below :data:`SCREEN_MIN_RUNS`.

    Candidates whose full label is already in the result store are not screened (their label is
    used as it is). The others get :func:`screen_settings`' single run."""
    if settings.runs < SCREEN_MIN_RUNS:
        return set()
    stored = candidates_stored(rows, settings, seed)
    todo = [r for r in rows if stored.get(r["id"]) is False]
    if not todo:
        return set()
    return {r["id"] for r in label_candidates(todo, screen_settings(settings), seed, jobs, progress=progress)
            if not r.get("error") and (r.get("df_score") or 0) > 0}


def _why_no_runs(res: FuzzResult) -> str:
    """Why every run of a result was excluded (the runs' reasons, e.g. ``no valid input`` when the
    slow reference itself fails on every generated input, ``time budget exceeded``)."""
    reasons = sorted({str(r["reason"]) for r in res.get("runs") or [] if r["excluded"]})
    return "; ".join(reasons) if reasons else "every run excluded"


# ----------------------------------------------------------------------------- pool reporting
def ledger_frame(ledgers: Sequence[Counter]) -> pd.DataFrame:
    """Per-repetition ledgers of :func:`repetition_pools` as one table: a row per entry, a column
    per repetition (``r0``, ``r1``, ...; 0 where a repetition has no such entry)."""
    keys: list[str] = []
    for c in ledgers:
        keys += [k for k in c if k not in keys]
    return pd.DataFrame([{"what": k, **{f"r{r}": int(c.get(k, 0)) for r, c in enumerate(ledgers)}} for k in keys],
                        columns=["what", *(f"r{r}" for r in range(len(ledgers)))])



def candidates_per_df0(ledgers: Sequence[Counter]) -> float:
    """Candidates a repetition examined (fuzzed or screened) per df = 0 mutant it kept, mean over
    the repetitions' ledgers (:func:`mutant_pool`); those fuzzed after the target count for nothing.
    NaN when no repetition kept one."""
    rates = [(c[FUZZED] - c[AFTER_TARGET]) / c[KEPT] for c in ledgers if c.get(KEPT)]
    return float(np.mean(rates)) if rates else float("nan")


def fuzz_cost(sample: dict[str, float], needed: int) -> dict[str, float]:
    """What labelling ``needed`` df = 0 mutants costs, extrapolated from a measured ``sample``
    (``candidates`` fuzzed, of which ``df0`` have df_score = 0, and ``cpu_s`` CPU seconds for
    all of it, screen included): candidates per df = 0 mutant, candidates needed and CPU-hours.
    Section 4.4.1: confirming df = 0 "with differential fuzzing is expensive"."""
    if sample["candidates"] <= 0 or sample["df0"] <= 0:
        raise ValueError("the sample needs fuzzed candidates and at least one df = 0 mutant")
    per = sample["candidates"] / sample["df0"]
    cpu_per = sample["cpu_s"] / sample["candidates"]
    return {"candidates per df = 0 mutant": per, "CPU s per candidate": cpu_per,
            "candidates needed": per * needed, "CPU hours": per * needed * cpu_per / 3600.0}
