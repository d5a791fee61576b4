"""RQ5 (Section 4.7, Table 6): the CodeScore-style model retrained with p% LoCaL pairs.

Keep the training size fixed, replace p% of the CodeScore_base training pairs
(:mod:`lcl.study.codescore_base`) with LoCaL pairs (p = 0, 10, ..., 100), hold LoCaL's PIE pairs out
for testing, train five independent models per p and report their MAE on Baseline, LoCaL_test
and Combined beside the mean predictor's (the learned gain). The models are substitutes for
the CodeScore checkpoint, labelled "CodeScore-style (retrained)" everywhere.
"""

from __future__ import annotations

import math
import random
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol, TypedDict

import numpy as np
import pandas as pd

from lcl.core import claim_links, seeds
from lcl.core.claim_links import Derived, Link
from lcl.core.errors import UserError
from lcl.core.profiles import Profile
from lcl.core.records import PairRow, df_of, has_score
from lcl.engine.metrics import codescore_style as cs
from lcl.engine.metrics.cache import pair_digest
from lcl.engine.stats import mae
from lcl.engine.variants.mutants import normalise
from lcl.study.codescore_base import TrainSettings, train_model

# ------------------------------------------------------------------- RQ5 (Section 4.7)
# Paper Section 4.7.1: keep the training size fixed, replace p% of the base training pairs
# with LoCaL pairs (p = 0, 10, ..., 100), hold LoCaL's PIE pairs out for testing, train five
# independent models per p and report mean (+- std) MAE on Baseline (CodeScore's inference
# set), LoCaL_test (held-out PIE pairs) and their union (Table 6).

RQ5_SETS: tuple[str, ...] = ("Combined", "Baseline", "LoCaL_test")
#: one colour per evaluation set, the same in every RQ5 figure
if TYPE_CHECKING:
    from matplotlib.figure import Figure


class Scorer(Protocol):
    """What RQ5 evaluates: a model that predicts a df_score for each (reference, candidate)."""

    def predict(self, references: list[str], candidates: list[str]) -> np.ndarray: ...


class Trainer(Protocol):
    """How RQ5 trains one model (:func:`lcl.study.codescore_base.train_model`'s signature)."""

    def __call__(self, pairs: list[PairRow], seed: int, *, exclude: list[tuple[str, str]],
                 config: TrainSettings | None, validation: list[PairRow]) -> Scorer: ...


SET_COLORS = {"Combined": "tab:purple", "Baseline": "tab:blue", "LoCaL_test": "tab:orange"}
HELD_OUT_BENCHMARK = "PIE"  # Section 4.7.1: "The PIE samples in LoCaL are held out for inference"


def pair_key(row: PairRow) -> str:
    """Content digest of a row's (reference, candidate): identity for overlap checks."""
    return pair_digest(row["reference"], row["candidate"])


def problem_key(row: PairRow) -> str:
    """The problem a pair belongs to: its reference program after ``ast.unparse`` (layout and
    comments aside; the stripped text when it does not parse). The sets carry no shared problem
    ids (CodeScore_test's pairs have none) and LoCaL's APPS references are CodeScore_test's golden
    code, so the reference is what ties a training pair to an evaluation pair of the same problem."""
    text = str(row["reference"])
    try:
        return normalise(text)
    except (UserError, ValueError, RecursionError):
        return text.strip()


def labelled_rows(rows: list[PairRow]) -> list[PairRow]:
    """Rows with a usable df_score in [0, 1] (drops unknown labels and timeouts, -1), each
    with a ``candidate`` key."""
    out: list[PairRow] = []
    for r in rows:
        df = r.get("df_score")
        if not has_score(df):
            continue
        out.append({**r, "df_score": float(df)})
    return out


def split_local(local_rows: list[PairRow]) -> tuple[list[PairRow], list[PairRow]]:
    """(LoCaL pairs usable for training, held-out PIE pairs) (Section 4.7.1)."""
    rows = labelled_rows(local_rows)
    held = [r for r in rows if r.get("benchmark") == HELD_OUT_BENCHMARK]
    train = [r for r in rows if r.get("benchmark") != HELD_OUT_BENCHMARK]
    return train, held


def evaluation_sets(codescore_test_rows: list[PairRow], local_pie_rows: list[PairRow], n: int,
                    seed: int) -> tuple[list[PairRow], list[PairRow]]:
    """Baseline (random pairs of CodeScore_test) and LoCaL_test (random held-out PIE pairs).

    Section 4.7.1: "two disjoint sets of 259 ... random samples each". Both sets get the same
    size, ``min(n, len(codescore_test_rows), len(local_pie_rows))`` when both sources have
    pairs (so Combined weighs them equally, as in the paper); a set whose source is empty is
    empty and the other keeps ``min(n, available)``. Pairs in both sources are dropped from
    LoCaL_test so the sets are disjoint. Sampled with ``seed``; row order is by id.
    """
    base = _dedupe(labelled_rows(codescore_test_rows))
    keys = {pair_key(r) for r in base}
    pie = [r for r in _dedupe(labelled_rows(local_pie_rows)) if pair_key(r) not in keys]
    sizes = [len(x) for x in (base, pie) if x]
    k = min([n, *sizes]) if sizes else 0
    rng = random.Random(seeds.unit_seed(seed, "rq5-eval"))
    pick = [sorted(rng.sample(src, min(k, len(src))), key=lambda r: str(r["id"])) for src in (base, pie)]
    return pick[0], pick[1]


def _dedupe(rows: list[PairRow]) -> list[PairRow]:
    seen: set[str] = set()
    out = []
    for r in sorted(rows, key=lambda r: str(r["id"])):
        k = pair_key(r)
        if k not in seen:
            seen.add(k)
            out.append(r)
    return out


def training_pools(base_rows: list[PairRow], local_train_rows: list[PairRow],
                   evaluation: list[PairRow]) -> tuple[list[PairRow], list[PairRow], Counter]:
    """The base and LoCaL training pools: labelled, deduplicated, no PIE pair, no pair that is
    also an evaluation pair, and no pair of a problem (:func:`problem_key`) that has an evaluation
    pair, so a model is never evaluated on a problem it was trained on. Returns (base pool, LoCaL
    pool, count of what was removed)."""
    banned = {pair_key(r) for r in evaluation}
    problems = {problem_key(r) for r in evaluation}
    removed: Counter = Counter()
    pools = []
    for name, rows in (("base", base_rows), ("LoCaL", local_train_rows)):
        kept = []
        lab = labelled_rows(rows)
        removed[f"{name}: unlabelled or timed out"] += len(rows) - len(lab)
        for r in _dedupe(lab):
            if r.get("benchmark") == HELD_OUT_BENCHMARK:
                removed[f"{name}: PIE pair (held out)"] += 1
            elif pair_key(r) in banned:
                removed[f"{name}: also an evaluation pair"] += 1
            elif problem_key(r) in problems:
                removed[f"{name}: problem of an evaluation pair"] += 1
            else:
                kept.append(r)
        removed[f"{name}: duplicate pair"] += len(lab) - len(_dedupe(lab))
        pools.append(kept)
    return pools[0], pools[1], +removed


def training_size(base_pool: list[PairRow], local_pool: list[PairRow]) -> int:
    """The fixed training size: the base set's size (paper: 2026), or the LoCaL pool's when it
    is smaller, so that every p from 0 to 100 can be drawn without replacement."""
    return min(len(base_pool), len(local_pool))


def n_local(p: int, size: int) -> int:
    """How many of ``size`` training pairs are LoCaL pairs at p%."""
    return int(round(p * size / 100))


def mixed_training_set(base_rows: list[PairRow], local_train_rows: list[PairRow], p: int, size: int,
                       rng: random.Random) -> list[PairRow]:
    """CodeScore_mixed's training set (Section 4.7.1): ``size`` pairs, ``round(p * size / 100)``
    drawn at random from the LoCaL pool, the rest from the base pool (without replacement).
    p = 0 is CodeScore_base's set (subsampled to ``size``)."""
    if not 0 <= p <= 100:
        raise ValueError(f"p must be a percentage in [0, 100], not {p}")
    k = n_local(p, size)
    if k > len(local_train_rows) or size - k > len(base_rows):
        raise ValueError(f"cannot draw {k} LoCaL and {size - k} base pairs from pools of "
                         f"{len(local_train_rows)} and {len(base_rows)}")
    if any(r.get("benchmark") == HELD_OUT_BENCHMARK for r in local_train_rows):
        raise ValueError("the LoCaL training pool contains held-out PIE pairs")
    local = rng.sample(sorted(local_train_rows, key=lambda r: str(r["id"])), k)
    base = rng.sample(sorted(base_rows, key=lambda r: str(r["id"])), size - k)
    return [PairRow(**r, source="base") for r in base] + [PairRow(**r, source="LoCaL") for r in local]


VAL_FRACTION = 0.125  # Section 4.7.1: 312 validation entries beside 2500 training entries (12.5 %)


def split_validation(rows: list[PairRow], fraction: float,
                     rng: random.Random) -> tuple[list[PairRow], list[PairRow]]:
    """(training, validation): ``round(fraction * len(rows))`` random rows held out for early
    stopping (Section 4.7.1 trains CodeScore with a validation set), at least one row left
    for training; ``fraction`` 0 holds nothing out."""
    if not 0.0 <= fraction < 1.0:
        raise ValueError(f"validation fraction must be in [0, 1), not {fraction}")
    k = min(int(round(fraction * len(rows))), max(len(rows) - 1, 0))
    held = set(rng.sample(range(len(rows)), k))
    return ([r for i, r in enumerate(rows) if i not in held], [r for i, r in enumerate(rows) if i in held])


class MeanModel:
    """The trivial baseline: predicts the mean df_score of its training pairs for every pair,
    so each MAE in Table 6 can be read against what no learning at all achieves."""

    def __init__(self, rows: list[PairRow]) -> None:
        if not rows:
            raise ValueError("the mean baseline needs at least one training pair")
        self.value = float(sum(df_of(r) for r in rows) / len(rows))

    def predict(self, references: list[str], candidates: list[str]) -> np.ndarray:
        return np.full(len(references), self.value, dtype=float)


def rq5_config(profile: Profile, mode: str = "full") -> TrainSettings:
    """The CodeScore-style training settings RQ5 uses in ``profile`` (Section 4.7.1 holds them
    constant across p). ``full``: fine-tuning, sized for CPU by the profile (top layers, capped
    steps, short prefix-trimmed inputs, early stopping on the validation split); ``fast``: the
    frozen-encoder variant (MLP head on cached embeddings), the cheaper sensitivity run."""
    if mode == "fast":
        return {"mode": "fast", "eval_every": 10, "patience": 3}
    if mode != "full":
        raise ValueError(f"RQ5 mode must be 'full' or 'fast', not {mode!r}")
    return {"mode": "full", "max_length": profile.rq5_max_length, "unfreeze_layers": profile.rq5_unfreeze_layers,
            "max_steps": profile.rq5_max_steps, "epochs": 100, "batch_size": 16, "lr_full": 2e-4, "lr_head": 3e-3,
            "trim_common_prefix": True, "cache_frozen": profile.rq5_unfreeze_layers is not None,
            "eval_every": profile.rq5_eval_every, "patience": profile.rq5_patience}


def evaluate(model: Scorer, sets: dict[str, list[PairRow]]) -> dict[str, tuple[float, int]]:
    """MAE (Section 4.2) of ``model`` on each non-empty set and on their union (Combined)."""
    preds: dict[str, np.ndarray] = {}
    out: dict[str, tuple[float, int]] = {}
    for name, rows in sets.items():
        if not rows:
            continue
        preds[name] = np.asarray(model.predict([r["reference"] for r in rows], [r["candidate"] for r in rows]), float)
        out[name] = (mae(preds[name], np.asarray([r["df_score"] for r in rows], float)), len(rows))
    if len(preds) > 1:
        allp = np.concatenate([preds[k] for k in preds])
        allt = np.concatenate([[r["df_score"] for r in sets[k]] for k in preds])
        out["Combined"] = (mae(allp, allt), len(allt))
    return out


RUN_COLUMNS = ["p", "model", "seed", "set", "MAE", "MAE (mean baseline)", "n_eval", "n_train", "n_val",
               "n_local", "steps", "best_val_MAE", "train_s", "model_hash"]


def experiment(base_rows: list[PairRow], local_rows: list[PairRow],
               codescore_test_rows: list[PairRow], percentages: tuple[int, ...] | list[int],
               models_per_p: int, n_eval: int, seed: int, *, trainer: Trainer | None = None,
               config: TrainSettings | None = None, val_fraction: float = 0.0, progress: bool = True) -> pd.DataFrame:
    """Table 6's runs (Section 4.7.1) as a long table with :data:`RUN_COLUMNS` (one row per
    model and evaluation set), each MAE next to the mean baseline's on the same pairs.

    Each (p, k) draws its training set, its validation split (``val_fraction`` of the fixed
    training size, same p mix) and initialises its model with the seed
    ``seeds.unit_seed(seed, "rq5", p, k)``; models are trained by ``trainer`` (default
    :func:`train_model`, cached by training content) with the evaluation pairs as ``exclude``.
    """
    trainer = trainer or train_model
    local_train, pie = split_local(local_rows)
    baseline, local_test = evaluation_sets(codescore_test_rows, pie, n_eval, seed)
    sets = {"Baseline": baseline, "LoCaL_test": local_test}
    evaluation = baseline + local_test
    base_pool, local_pool, _ = training_pools(base_rows, local_train, evaluation)
    size = training_size(base_pool, local_pool)
    if size < 2 or not evaluation:
        raise ValueError(f"RQ5 needs training pools and evaluation pairs: size {size}, "
                         f"{len(baseline)} Baseline and {len(local_test)} LoCaL_test pairs")
    exclude = [(r["reference"], r["candidate"]) for r in evaluation]
    banned = {pair_key(r) for r in evaluation}
    rows: list[dict[str, Any]] = []
    for p in percentages:
        for k in range(models_per_p):
            s = seeds.unit_seed(seed, "rq5", p, k)
            rng = random.Random(s)
            drawn = mixed_training_set(base_pool, local_pool, p, size, rng)
            train_set, val = split_validation(drawn, val_fraction, rng)
            assert not banned & {pair_key(r) for r in train_set + val}, "evaluation pair in a training set"
            model = trainer(train_set, s, exclude=exclude, config=config, validation=val)
            rows += _run_rows(p, k, s, model, train_set, val, sets)
            if progress:
                got = ", ".join(f"{r['set']} {r['MAE']:.3f} (mean {r['MAE (mean baseline)']:.3f})"
                                for r in rows if r["p"] == p and r["model"] == k)
                print(f"p = {p:3d}%, model {k}: {rows[-1]['n_local']}/{len(train_set)} LoCaL pairs, "
                      f"{rows[-1]['train_s']} s; MAE {got}", flush=True)
    order = {s: i for i, s in enumerate(RQ5_SETS)}
    out = pd.DataFrame(rows, columns=RUN_COLUMNS)
    return out.sort_values(["p", "model", "set"], key=lambda c: c.map(order) if c.name == "set" else c,
                           kind="stable").reset_index(drop=True)


def _run_rows(p: int, k: int, seed: int, model: Scorer, train_set: list[PairRow], val: list[PairRow],
              sets: dict[str, list[PairRow]]) -> list[dict[str, Any]]:
    """One model's rows of the runs table: its MAE and the mean baseline's per set, its cost."""
    meta = getattr(model, "meta", {}).get("train", {})
    mean = evaluate(MeanModel(train_set), sets)
    common = {"p": p, "model": k, "seed": seed, "n_train": len(train_set), "n_val": len(val),
              "n_local": sum(r.get("source") == "LoCaL" for r in train_set), "steps": meta.get("steps"),
              "best_val_MAE": (meta.get("validation") or {}).get("best_mae"),
              "train_s": getattr(model, "train_seconds", None),
              "model_hash": (getattr(model, "content_hash", None) or "")[:12]}
    return [{**common, "set": name, "MAE": value, "MAE (mean baseline)": mean[name][0], "n_eval": n}
            for name, (value, n) in evaluate(model, sets).items()]


def table6(runs: pd.DataFrame, with_paper: bool = True) -> pd.DataFrame:
    """Table 6: one row per p with mean and sample standard deviation (ddof = 1; NaN for a
    single model) of MAE per set over the independent models, the mean baseline's MAE (mean
    over the models' training sets, when ``runs`` has it) and the paper's values beside."""
    g = runs.groupby(["p", "set"])["MAE"]
    stats = pd.DataFrame({"mean": g.mean(), "std": g.std(ddof=1), "models": g.count()}).reset_index()
    out = pd.DataFrame({"p (%)": sorted(runs["p"].unique())})
    out["models"] = [int(stats[stats.p == p]["models"].max()) for p in out["p (%)"]]
    for name in RQ5_SETS:
        st = stats[stats.set == name].set_index("p")
        out[f"{name} MAE"] = [float(st.loc[p, "mean"]) if p in st.index else float("nan") for p in out["p (%)"]]
        out[f"{name} std"] = [float(st.loc[p, "std"]) if p in st.index else float("nan") for p in out["p (%)"]]
        if "MAE (mean baseline)" in runs.columns:
            mb = runs[runs.set == name].groupby("p")["MAE (mean baseline)"].mean()
            out[f"{name} MAE (mean baseline)"] = [float(mb.get(p, float("nan"))) for p in out["p (%)"]]
    return claim_links.add_paper_columns(out, CLAIMS, TABLE6) if with_paper else out


TABLE6 = "table6_training"
RUNS = "rq5_runs"
#: "For each p, we train five independent models and report the mean(± standard deviation) of MAE
#: (Table 6)" (Section 4.7.1)
PAPER_MODELS = 5
_RQ5_PERCENT = ("percentile bootstrap 95% CI over the independent models (rq5_runs): the models at p = 0 and at "
                "p = 100 resampled independently, 2000 resamples, seed 0")


def _headline_of(claim_id: str) -> Callable[[dict[str, pd.DataFrame]], float]:
    return lambda t: headline(t[TABLE6])[claim_id]


#: claim id -> (set, sign): the relative change of that set's mean MAE from p = 0 to p = 100
_HEADLINE_SETS = {"RQ5.local_test_reduction": ("LoCaL_test", -1.0), "RQ5.baseline_increase": ("Baseline", 1.0),
                  "RQ5.combined_drop": ("Combined", -1.0)}


def headline_interval(runs: pd.DataFrame, claim_id: str, column: str = "MAE", n_boot: int = 2000,
                      seed: int = 0) -> tuple[float, float]:
    """Percentile bootstrap 95 % interval of a Section 4.7.2 percentage over the models of
    ``runs`` (models at p = 0 and p = 100 resampled independently; NaN with fewer than two
    models at either end). ``column``: ``MAE`` (the fine-tuned models) or ``MAE (mean baseline)``."""
    name, sign = _HEADLINE_SETS[claim_id]
    g = runs[runs["set"] == name]
    a, b = (g[g["p"] == p][column].to_numpy(float) for p in (0, 100))
    if len(a) < 2 or len(b) < 2:
        return float("nan"), float("nan")
    rng = np.random.default_rng(seed)
    ma = a[rng.integers(0, len(a), size=(n_boot, len(a)))].mean(axis=1)
    mb = b[rng.integers(0, len(b), size=(n_boot, len(b)))].mean(axis=1)
    pct = sign * (mb - ma) / ma * 100
    lo, hi = np.quantile(pct, [0.025, 0.975])
    return float(lo), float(hi)


def _interval_of(claim_id: str) -> Callable[[dict[str, pd.DataFrame]], tuple[float, float]]:
    return lambda t: headline_interval(t[RUNS], claim_id)


def _t6_links() -> list[Link | Derived]:
    out: list[Link | Derived] = [Link(f"T6.{name}.{p}", TABLE6, "p (%)", str(p), f"{name} MAE", std=f"{name} std",
                                      n="models", paper_n=PAPER_MODELS)
                                 for name in ("Combined", "Baseline", "LoCaL_test") for p in range(0, 101, 10)]
    # the mean predictor (trivial model) on the same sets: conclusions are also run on it
    out += [Link(f"aux.T6.mean.{name}.{p}", TABLE6, "p (%)", str(p), f"{name} MAE (mean baseline)", paper=False)
            for name in ("Combined", "Baseline", "LoCaL_test") for p in range(0, 101, 10)]
    for cid in _HEADLINE_SETS:
        out.append(Derived(cid, (TABLE6,), _headline_of(cid), interval=_interval_of(cid), interval_tables=(RUNS,),
                           interval_reason=_RQ5_PERCENT))
    return out


#: Table 6's claims (mean and std over the models per p, as the paper reports) and Section 4.7's
CLAIMS: list[Link | Derived] = _t6_links()


def headline(table: pd.DataFrame) -> dict[str, float]:
    """Section 4.7.2's three percentages from a :func:`table6` table (p = 100 vs p = 0):
    LoCaL_test MAE reduction, Baseline MAE increase, Combined MAE drop (NaN when missing)."""
    t = table.set_index("p (%)")

    def rel(name: str) -> float:
        col = f"{name} MAE"
        if 0 not in t.index or 100 not in t.index or col not in t.columns:
            return float("nan")
        a, b = float(t.loc[0, col]), float(t.loc[100, col])
        return (b - a) / a * 100 if a else float("nan")

    return {"RQ5.local_test_reduction": -rel("LoCaL_test"), "RQ5.baseline_increase": rel("Baseline"),
            "RQ5.combined_drop": -rel("Combined")}


#: "with just ≈9.1% increase in the baseline MAE" next to an ≈85% LoCaL_test reduction (Section
#: 4.7.2): a Baseline rise counts as slight when it is below this share of the LoCaL_test reduction
SLIGHT_SHARE = 0.5


class Endpoint(TypedDict):
    """One set's MAE at the lowest and the highest p (:func:`direction`)."""

    lo: float
    hi: float
    std_lo: float
    std_hi: float
    change_pct: float
    beyond_spread: bool | None
    mean_lo: float
    mean_hi: float


class Direction(TypedDict):
    """Whether Section 4.7.2's direction holds (:func:`direction`)."""

    p_lo: int
    p_hi: int
    LoCaL_test: Endpoint
    Baseline: Endpoint
    local_test_falls: bool
    baseline_rise_slight: bool
    holds: bool
    missing: list[str]


def _endpoint(t: pd.DataFrame, name: str, lo: int, hi: int) -> Endpoint:
    def get(p: int, col: str) -> float:
        return float(t.loc[p, col]) if col in t.columns else float("nan")

    a, b = get(lo, f"{name} MAE"), get(hi, f"{name} MAE")
    sa, sb = get(lo, f"{name} std"), get(hi, f"{name} std")
    spread = None if math.isnan(sa) or math.isnan(sb) else abs(b - a) > math.hypot(sa, sb)
    return {"lo": a, "hi": b, "std_lo": sa, "std_hi": sb, "change_pct": (b - a) / a * 100 if a else float("nan"),
            "beyond_spread": spread,
            "mean_lo": get(lo, f"{name} MAE (mean baseline)"), "mean_hi": get(hi, f"{name} MAE (mean baseline)")}


def direction(table: pd.DataFrame) -> Direction:
    """Whether Section 4.7.2's direction holds in a :func:`table6` table, lowest vs highest p:
    LoCaL_test MAE falls by more than the models' spread (|change| > hypot of the two stds; with
    one model per p there is no spread and only the sign counts, ``beyond_spread`` None) and
    Baseline MAE rises only slightly (its relative change is below :data:`SLIGHT_SHARE` of the
    LoCaL_test relative reduction). Also whether each endpoint model beats the mean baseline."""
    t = table.set_index("p (%)")
    lo, hi = int(min(t.index)), int(max(t.index))
    lt, bl = _endpoint(t, "LoCaL_test", lo, hi), _endpoint(t, "Baseline", lo, hi)
    falls = bool(lt["hi"] < lt["lo"] and lt["beyond_spread"] is not False)
    slight = bool(falls and bl["change_pct"] < SLIGHT_SHARE * -lt["change_pct"])
    missing = [n for n, e in (("LoCaL_test", lt), ("Baseline", bl)) if e["lo"] != e["lo"] or e["hi"] != e["hi"]]
    return {"p_lo": lo, "p_hi": hi, "LoCaL_test": lt, "Baseline": bl, "local_test_falls": falls,
            "baseline_rise_slight": slight, "holds": falls and slight and not missing, "missing": missing}


def direction_sentence(d: Direction) -> str:
    """The "what we found" sentence for :func:`direction`'s result, every number from it."""

    def pm(x: float, s: float) -> str:
        return f"{x:.3f}" + ("" if s != s else f" ± {s:.3f}")

    def part(name: str) -> str:
        e = d["LoCaL_test"] if name == "LoCaL_test" else d["Baseline"]
        word = "falls" if e["hi"] < e["lo"] else "rises" if e["hi"] > e["lo"] else "stays"
        spread = {True: "beyond the spread over models", False: "within the spread over models",
                  None: "one model per p, so no spread"}[e["beyond_spread"]]
        mean = (f"; mean baseline {e['mean_lo']:.3f} and {e['mean_hi']:.3f}" if e["mean_lo"] == e["mean_lo"] else "")
        return (f"{name} MAE {word} from {pm(e['lo'], e['std_lo'])} (p = {d['p_lo']}) to {pm(e['hi'], e['std_hi'])} "
                f"(p = {d['p_hi']}), {e['change_pct']:+.1f}%, {spread}{mean}")

    if d.get("missing"):
        return (f"{', '.join(d['missing'])} not evaluated here, so the paper's direction cannot be judged"
                + "".join(f"; {part(n)}" for n in ("LoCaL_test", "Baseline") if n not in d["missing"]) + ".")
    verdict = "holds" if d["holds"] else "does not hold"
    lt = d["LoCaL_test"]
    why = [] if d["holds"] else [
        f"Baseline MAE rises by more than {SLIGHT_SHARE:.0%} of the LoCaL_test reduction" if d["local_test_falls"]
        else "LoCaL_test MAE falls only within the spread over models" if lt["hi"] < lt["lo"]
        else "LoCaL_test MAE does not fall"]
    return (f"{part('LoCaL_test')}; {part('Baseline')}. The paper's direction (LoCaL_test error falls as p rises, "
            f"Baseline error rises only slightly) {verdict}" + (f": {why[0]}." if why else "."))


#: one row of the cost table (:func:`cost_summary`)
CostRow = TypedDict("CostRow", {"run": str, "models": int, "train s per model (mean)": float,
                                "train s per model (max)": float, "train s (all models)": float,
                                "settings": str, "device": str})


def cost_summary(runs: pd.DataFrame, label: str, settings: TrainSettings, device: str) -> CostRow:
    """One row of the cost table: models trained, seconds per model (mean, max) and in all, the
    training settings and the device, from a runs table's ``train_s`` column."""
    per = runs.drop_duplicates(["p", "model"])["train_s"].astype(float)
    return {"run": label, "models": len(per), "train s per model (mean)": float(per.mean()),
            "train s per model (max)": float(per.max()), "train s (all models)": float(per.sum()),
            "settings": settings_text(settings), "device": device}


def calibrate(rows: list[PairRow], config: TrainSettings, batch: int = 16) -> dict[str, float]:
    """Seconds per pair of a training step and of prediction with ``config``, to cost a grid
    that is not run here: a throwaway model takes two optimiser steps of ``batch`` rows, twice
    (the second run finds the frozen layers' states memoised, as every model after the first
    does in a grid), then predicts the same rows. ``first_pass_s_per_pair`` is the one-time
    extra of a pair's first visit (the frozen-layer pass with ``cache_frozen``)."""
    pick = labelled_rows(rows)[: 2 * batch]
    if len(pick) < 2:
        raise ValueError("calibration needs at least 2 labelled rows")
    tp = [cs.TrainPair(str(r["id"]), r["reference"], r["candidate"], df_of(r)) for r in pick]
    settings: TrainSettings = {**config, "batch_size": -(-len(tp) // 2), "max_steps": 2, "epochs": 1, "patience": 0}
    cfg = cs.TrainConfig(**settings)
    memo = dict(cs.BOTTOM)  # the cold run must find nothing memoised, even after a grid ran here
    cs.BOTTOM.clear()
    try:
        cold = float(cs.train(tp, config=cfg).train_seconds or 0.0)
    finally:
        cs.BOTTOM.update(memo)
    model = cs.train(tp, config=cfg)
    warm = float(model.train_seconds or 0.0)
    t0 = time.time()
    model.predict([p.reference for p in tp], [p.candidate for p in tp], cfg.batch_size)
    return {"train_s_per_pair": warm / len(tp), "predict_s_per_pair": (time.time() - t0) / len(tp),
            "first_pass_s_per_pair": max(cold - warm, 0.0) / len(tp)}


def grid_seconds(cal: dict[str, float], *, models: int, train_pair_steps: int, predicted_pairs: int,
                 distinct_pairs: int = 0) -> float:
    """Estimated seconds for ``models`` models, each with ``train_pair_steps`` (steps x batch)
    training pair-steps and ``predicted_pairs`` predictions (validation and evaluation), plus
    the one-time first pass over ``distinct_pairs`` pairs."""
    per_model = train_pair_steps * cal["train_s_per_pair"] + predicted_pairs * cal["predict_s_per_pair"]
    return models * per_model + distinct_pairs * cal.get("first_pass_s_per_pair", 0.0)


def plot_mae_vs_p(table: pd.DataFrame, label: str = "CodeScore-style (retrained)") -> Figure:
    """Figure: mean MAE vs p per set with +-1 std bands (ours, solid) and the paper's Table 6
    (dashed, when the table has the paper columns)."""
    import matplotlib.pyplot as plt
    colors = SET_COLORS
    fig, ax = plt.subplots(figsize=(6.0, 4.0))
    p = table["p (%)"].to_numpy(float)
    for name in RQ5_SETS:
        m = table[f"{name} MAE"].to_numpy(float)
        if np.isnan(m).all():
            continue
        s = np.nan_to_num(table[f"{name} std"].to_numpy(float))
        ax.plot(p, m, "o-", color=colors[name], label=f"{name} (ours)")
        ax.fill_between(p, m - s, m + s, color=colors[name], alpha=0.2, linewidth=0)
        if f"{name} MAE (paper)" in table.columns:
            ax.plot(p, table[f"{name} MAE (paper)"].to_numpy(float), "--", color=colors[name], alpha=0.6,
                    label=f"{name} (paper)")
    ax.set_xlabel("p: % of LoCaL pairs in the training set")
    ax.set_ylabel("MAE (mean ± std over models)")
    ax.set_xticks(p)
    ax.set_ylim(bottom=0)
    ax.set_title(f"RQ5: {label} trained with p% LoCaL")
    ax.legend(frameon=False, fontsize=8, ncol=2)
    fig.tight_layout()
    return fig


GAIN = "rq5_learned_gain"
GAIN_COLUMNS = ["p (%)", "set", "models", "learned gain", "CI low", "CI high", "models beating the mean predictor"]


def learned_gain(runs: pd.DataFrame) -> pd.DataFrame:
    """Per p and set, what training bought over the trivial model: each independent model's
    ``MAE(mean predictor) - MAE(model)``, where the mean predictor answers its own training
    draw's mean label for every pair; the mean over the models with a 95% t interval over them
    (none with a single model), and how many models beat the mean predictor. Above 0: the model
    learned something the mean label does not give."""
    from scipy import stats as st

    rows = []
    for (p, name), g in runs.groupby(["p", "set"], sort=True):
        gains = (g["MAE (mean baseline)"] - g["MAE"]).to_numpy(float)
        gains = gains[~np.isnan(gains)]
        k, m = len(gains), float(gains.mean()) if len(gains) else float("nan")
        lo = hi = float("nan")
        if k > 1:
            half = float(st.t.ppf(0.975, k - 1) * gains.std(ddof=1) / np.sqrt(k))
            lo, hi = m - half, m + half
        rows.append({"p (%)": int(p), "set": name, "models": k, "learned gain": round(m, 4), "CI low": round(lo, 4),
                     "CI high": round(hi, 4),
                     "models beating the mean predictor": int((gains > 0).sum())})
    order = {n: i for i, n in enumerate(RQ5_SETS)}
    out = pd.DataFrame(rows, columns=GAIN_COLUMNS)
    return out.sort_values(["set", "p (%)"], key=lambda c: c.map(order) if c.name == "set" else c,
                           ignore_index=True)


def plot_learned_gain(gain: pd.DataFrame, label: str = "CodeScore-style (retrained)") -> Figure:
    """Figure: the learned gain vs p per set, with its 95% interval over the models; the line at 0
    is the mean predictor."""
    import matplotlib.pyplot as plt
    colors = SET_COLORS
    fig, ax = plt.subplots(figsize=(6.0, 4.0))
    ax.axhline(0, color="0.3", linewidth=1, label="mean predictor")
    for i, name in enumerate(RQ5_SETS):
        g = gain[gain["set"] == name]
        if g.empty or g["learned gain"].isna().all():
            continue
        p = g["p (%)"].to_numpy(float) + (i - 1) * 0.8  # side by side at each p
        m = g["learned gain"].to_numpy(float)
        err = np.vstack([m - g["CI low"].to_numpy(float), g["CI high"].to_numpy(float) - m])
        ax.errorbar(p, m, yerr=np.nan_to_num(err), fmt="o-", color=colors[name], capsize=2, label=name)
    ax.set_xlabel("p: % of LoCaL pairs in the training set")
    ax.set_ylabel("MAE(mean predictor) - MAE(model)")
    ax.set_title(f"RQ5: what {label} learned beyond the mean label")
    ax.legend(frameon=False, fontsize=8)
    fig.tight_layout()
    return fig


# ------------------------------------------------------------------- notebook 07's tables and sentences
def settings_text(cfg: Mapping[str, object]) -> str:
    """Training settings as ``key=value, ...`` (the tables' notes and the cost table)."""
    return ", ".join(f"{k}={v}" for k, v in cfg.items())


def label_means(sets: Mapping[str, list[PairRow]]) -> dict[str, float]:
    """The mean df_score of each named set of pairs (NaN for an empty one)."""
    return {name: (sum(df_of(r) for r in rows) / len(rows) if rows else float("nan")) for name, rows in sets.items()}


def setup_table(base_pool: list[PairRow], local_pool: list[PairRow], pie: list[PairRow], size: int,
                baseline: list[PairRow], local_test: list[PairRow]) -> tuple[pd.DataFrame, dict[str, float]]:
    """Section 4.7.1's sets as notebook 07 builds them: the two training pools (:func:`training_pools`),
    the held-out PIE pairs, the fixed training size (:func:`training_size`) and the evaluation sets
    (:func:`evaluation_sets`), with their sizes and mean labels; also the mean labels by set
    (``base``, ``LoCaL``, ``Baseline``, ``LoCaL_test``)."""
    mean = label_means({"base": base_pool, "LoCaL": local_pool, "Baseline": baseline, "LoCaL_test": local_test})
    table = pd.DataFrame([
        {"set": "base training pool (codegen-2b HumanEval, fuzzer-labelled)", "pairs": len(base_pool),
         "mean df_score": mean["base"]},
        {"set": "LoCaL training pool (non-PIE)", "pairs": len(local_pool), "mean df_score": mean["LoCaL"]},
        {"set": "held-out PIE LoCaL pairs", "pairs": len(pie), "mean df_score": None},
        {"set": "fixed training size", "pairs": size, "mean df_score": None},
        {"set": "Baseline (CodeScore_test sample)", "pairs": len(baseline), "mean df_score": mean["Baseline"]},
        {"set": "LoCaL_test (held-out PIE sample)", "pairs": len(local_test), "mean df_score": mean["LoCaL_test"]},
    ])
    return table, mean


def table6_notes(label: str, config: TrainSettings, device: str, profile: Profile, *, base_pool: list[PairRow],
                 base_dropped: Mapping[str, int], local_pool: list[PairRow], size: int, pie: list[PairRow],
                 baseline: list[PairRow], local_test: list[PairRow], removed: Mapping[str, int]) -> list[str]:
    """The notes of Table 6 and its runs table: the model and its settings, the validation split, the
    mean baseline, the pools and what was dropped or removed from them, the fixed training size, the
    evaluation sets and the models per p (Section 4.7.1)."""
    return [
        f"Model: {label}, MiniLM cross-encoder fine-tuned on CPU, not CodeScore; settings (fixed across p): "
        f"{settings_text(config)}; device {device}.",
        f"Validation: {VAL_FRACTION:.1%} of each model's training draw (same p mix) held out for early stopping "
        "(best validation MAE kept); the rest is trained on.",
        "Mean baseline: predicts the mean df_score of each model's training pairs for every pair (no learning).",
        f"Base pool: {len(base_pool)} codegen-2b HumanEval completions labelled by our fuzzer "
        f"(N = {profile.fuzz_inputs_function}, R = {profile.fuzz_runs}); dropped: "
        + (", ".join(f"{k} = {v}" for k, v in base_dropped.items()) or "none") + ".",
        f"Training size fixed at {size} = min(base pool {len(base_pool)}, LoCaL non-PIE pool {len(local_pool)})"
        + (" (the LoCaL pool is the smaller one, so the size is below the base set's)"
           if len(local_pool) < len(base_pool) else "") + "; p% of it LoCaL (curated), the rest base pairs.",
        f"Evaluation: Baseline = {len(baseline)} random CodeScore_test pairs (authors' labels), LoCaL_test = "
        f"{len(local_test)} random held-out PIE LoCaL pairs (of {len(pie)}), Combined = both; same sets for every "
        "model.",
        f"{profile.rq5_models_per_p} independent model(s) per p (seed per (p, k): training sample, validation split "
        "and initialisation); std is the sample std over models (— with one model).",
        "Removed from the training pools: " + (", ".join(f"{k} = {v}" for k, v in removed.items()) or "nothing") + ".",
    ]


def runs_table(base_rows: list[PairRow], local_rows: list[PairRow], codescore_test_rows: list[PairRow],
               percentages: Sequence[int], profile: Profile, seed: int, config: TrainSettings, *,
               run: bool = True) -> pd.DataFrame:
    """:func:`experiment` with the profile's models per p and evaluation size and the validation split
    of Section 4.7.1 (:data:`VAL_FRACTION`); an empty runs table when ``run`` is false (no training
    pool or no evaluation set here)."""
    if not run:
        return pd.DataFrame(columns=RUN_COLUMNS)
    return experiment(base_rows, local_rows, codescore_test_rows, list(percentages), profile.rq5_models_per_p,
                      profile.rq5_eval, seed, config=config, val_fraction=VAL_FRACTION)


def headline_note(head: Mapping[str, float], paper: Mapping[str, float]) -> str:
    """Section 4.7.2's three percentages (:func:`headline`), ours beside the paper's."""
    return ("p = 100 vs p = 0: LoCaL_test MAE reduction {:.1f}% (paper ≈{:g}%), Baseline MAE change {:+.1f}% "
            "(paper +{:g}%), Combined MAE drop {:.1f}% (paper ≈{:g}%).".format(
                head["RQ5.local_test_reduction"], paper["RQ5.local_test_reduction"],
                head["RQ5.baseline_increase"], paper["RQ5.baseline_increase"],
                head["RQ5.combined_drop"], paper["RQ5.combined_drop"]))


def _mean_std(m: float, s: float) -> str:
    return "—" if m != m else f"{m:.2f}" + ("" if s != s else f" (±{s:.2f})")


def table6_shown(table: pd.DataFrame) -> pd.DataFrame:
    """Table 6 (:func:`table6`) as the paper prints it: one row per set and source (ours, the mean
    baseline, the paper's), one column per p, each cell ``mean (±std)``."""
    rows = {f"{n} (ours)": [_mean_std(r[f"{n} MAE"], r[f"{n} std"]) for _, r in table.iterrows()] for n in RQ5_SETS}
    rows |= {f"{n} (mean baseline)": [_mean_std(r[f"{n} MAE (mean baseline)"], float("nan"))
                                      for _, r in table.iterrows()] for n in RQ5_SETS}
    rows |= {f"{n} (paper)": [_mean_std(r[f"{n} MAE (paper)"], r[f"{n} std (paper)"]) for _, r in table.iterrows()]
             for n in RQ5_SETS}
    return pd.DataFrame(rows, index=[f"{p}%" for p in table["p (%)"]]).T


def summary_row(label: str, table: pd.DataFrame) -> dict[str, object]:
    """One row of the sensitivity table: a :func:`table6` table's MAE and std per set at the lowest
    and highest p, the mean baseline at the highest, Section 4.7.2's three percentages
    (:func:`headline`) and whether the paper's direction holds (:func:`direction`)."""
    if table.empty:
        return {"run": label}
    d, h = direction(table), headline(table)
    out: dict[str, object] = {"run": label, "models per p": int(table["models"].max())}
    t = table.set_index("p (%)")
    for name in RQ5_SETS:
        for p in (d["p_lo"], d["p_hi"]):
            r = t.loc[p]
            out[f"{name} MAE p={p}"] = r[f"{name} MAE"]
            out[f"{name} std p={p}"] = r[f"{name} std"]
        out[f"{name} mean baseline p={d['p_hi']}"] = t.loc[d["p_hi"], f"{name} MAE (mean baseline)"]
    out |= {"LoCaL_test reduction %": h["RQ5.local_test_reduction"], "Baseline change %": h["RQ5.baseline_increase"],
            "Combined drop %": h["RQ5.combined_drop"], "paper direction holds": d["holds"]}
    return out


def sensitivity_table(tables: Sequence[tuple[str, pd.DataFrame]]) -> pd.DataFrame:
    """:func:`summary_row` of each (label, :func:`table6` table), one row each."""
    return pd.DataFrame([summary_row(label, t) for label, t in tables])


#: the paper-like fine-tuning the cost table estimates: every layer, 512 tokens, no trimming
PAPER_LIKE: TrainSettings = {"mode": "full", "max_length": 512, "unfreeze_layers": None, "trim_common_prefix": False}


def cost_estimates(local_pool: list[PairRow], profile: str, full: Profile, device: str) -> list[dict[str, object]]:
    """Two rows of the cost table, estimated from a :func:`calibrate` run on ``local_pool``: this CPU
    setting and paper-like fine-tuning (:data:`PAPER_LIKE`, 3 passes over the base set: the paper
    states no epoch count) over the ``full`` profile's grid (:func:`grid_seconds`)."""
    cal_rows = sorted(local_pool, key=lambda r: str(r["id"]))
    n_models = len(full.rq5_percentages) * full.rq5_models_per_p
    val_full = round(VAL_FRACTION * full.rq5_base_pairs)  # upper bound: training size <= base pairs
    # pairs a full grid visits at least once: both pools (the LoCaL pool's full size is known only at full;
    # elsewhere it is taken as large as the base set) and the two evaluation sets
    distinct = full.rq5_base_pairs + (len(local_pool) if profile == "full" else full.rq5_base_pairs) + 2 * full.rq5_eval
    rows: list[dict[str, object]] = []
    for label, cfg, pair_steps, evals in (
            ("estimate: this CPU setting, full profile grid", rq5_config(full), full.rq5_max_steps * 16,
             full.rq5_max_steps // full.rq5_eval_every),
            ("estimate: paper-like fine-tuning, full profile grid", PAPER_LIKE, 3 * full.rq5_base_pairs, 3)):
        cal = calibrate(cal_rows, cfg, batch=16 if cfg.get("cache_frozen") else 1)
        total = grid_seconds(cal, models=n_models, train_pair_steps=pair_steps,
                             predicted_pairs=evals * val_full + 2 * full.rq5_eval, distinct_pairs=distinct)
        rows.append({"run": label, "models": n_models, "train s per model (mean)": total / n_models,
                     "train s per model (max)": float("nan"), "train s (all models)": total,
                     "settings": settings_text(cfg) + f"; {pair_steps} pair-steps, {evals} validations of "
                     f"{val_full} pairs per model, {distinct} distinct pairs; calibrated "
                     f"{cal['train_s_per_pair']:.3f} s "
                     f"per training pair, {cal['predict_s_per_pair']:.3f} s per predicted pair, "
                     f"{cal['first_pass_s_per_pair']:.3f} s per pair's first pass", "device": device})
    return rows


def cost_table(measured: Sequence[tuple[pd.DataFrame, str, TrainSettings]], local_pool: list[PairRow], profile: str,
               full: Profile, device: str) -> pd.DataFrame:
    """The cost table: one measured row per (runs table, label, settings) of ``measured``
    (:func:`cost_summary`), then the two estimates for the full grid (:func:`cost_estimates`)."""
    rows: list[Mapping[str, object]] = [cost_summary(runs, label, cfg, device) for runs, label, cfg in measured]
    return pd.DataFrame(rows + cost_estimates(local_pool, profile, full, device))


def result_lines(t6: pd.DataFrame, frozen: pd.DataFrame, local_all: pd.DataFrame | None, gain: pd.DataFrame,
                 percentages: Sequence[int], models_per_p: int) -> list[str]:
    """Notebook 07's "what we found" lines on the numbers: whether Section 4.7.2's direction holds for
    the fine-tuned models (Table 6), the frozen encoder and LoCaL-all (``local_all``, when run), and
    at the lowest and highest p each set's MAE against the mean baseline and the learned gain over
    the mean predictor (:func:`learned_gain`) with its interval."""
    ends = (min(percentages), max(percentages))
    lines = [f"- Fine-tuned ({models_per_p} model(s) per p): {direction_sentence(direction(t6))}",
             f"- Frozen encoder (cheaper variant): {direction_sentence(direction(frozen))}"]
    if local_all is not None:
        lines.append(f"- LoCaL-all (fine-tuned, endpoints): {direction_sentence(direction(local_all))}")
    for p in ends:
        r = t6.set_index("p (%)").loc[p]
        vs = [f"{n} {r[f'{n} MAE']:.3f} vs {r[f'{n} MAE (mean baseline)']:.3f} "
              f"({'better' if r[f'{n} MAE'] < r[f'{n} MAE (mean baseline)'] else 'not better'})"
              for n in RQ5_SETS if r[f"{n} MAE"] == r[f"{n} MAE"]]
        lines.append(f"- Fine-tuned vs the mean baseline at p = {p} (MAE, mean over models): " + "; ".join(vs) + ".")
    for p in ends:
        gp = gain[gain["p (%)"] == p].set_index("set")
        parts = [f"{n} {g['learned gain']:+.3f}" + ("" if g["CI low"] != g["CI low"] else
                                                     f" [{g['CI low']:+.3f}, {g['CI high']:+.3f}]")
                 + f" ({int(g['models beating the mean predictor'])} of {int(g['models'])} models beat it)"
                 for n, g in gp.iterrows()]
        lines.append(f"- Learned gain over the mean predictor at p = {p}: " + "; ".join(parts) + ".")
    return lines
