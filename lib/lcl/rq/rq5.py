"""RQ5 (Section 4.7, Table 6): the CodeScore-style model retrained with p% LoCaL pairs.

Keep the training size fixed, replace p% of the CodeScore_base training pairs
(:mod:`lcl.study.codescore_base`) with LoCaL pairs (p = 0, 10, ..., 100), hold LoCaL's PIE pairs out
for testing, train five independent models per p and report their MAE on Baseline, LoCaL_test
and Combined beside two comparators that learn (almost) nothing: the mean predictor (the
training draw's mean label) and the surface rule (one similarity threshold fitted on the same
training draw, :class:`SurfaceRule`); the learned gain is the model's MAE advantage over each.
The models are substitutes for the CodeScore checkpoint, labelled "CodeScore-style (retrained)"
everywhere.
"""

from __future__ import annotations

import difflib
import math
import random
import time
import warnings
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
from lcl.engine.similarity import SimilarityWarning, surface_sim_many
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


#: the similarities a surface rule can threshold: name -> how it is written in the tables
RULE_SIMILARITIES = {"surfacesim": "SurfaceSim", "difflib": "difflib ratio"}
_SIM_MEMO: dict[tuple[str, str, str], float] = {}


def similarities(references: Sequence[str], candidates: Sequence[str], kind: str = "surfacesim") -> np.ndarray:
    """Each pair's similarity, memoised per (kind, reference, candidate) because every model of the
    grid draws from the same pools. ``surfacesim``: the engine's SurfaceSim (Eq. 1, ``paper`` mode);
    ``difflib``: ``difflib.SequenceMatcher(None, reference, candidate).ratio()`` on characters with
    difflib's default junk heuristic: a check of ours on the authors' RQ5 data (their package holds no
    difflib rule)."""
    if kind not in RULE_SIMILARITIES:
        raise ValueError(f"unknown similarity {kind!r}: one of {sorted(RULE_SIMILARITIES)}")
    todo = [(r, c) for r, c in zip(references, candidates, strict=True) if (kind, r, c) not in _SIM_MEMO]
    todo = list(dict.fromkeys(todo))
    if todo:
        if kind == "surfacesim":
            with warnings.catch_warnings():  # unparsable code scores Sim_AST = 0, as everywhere
                warnings.simplefilter("ignore", SimilarityWarning)
                got = surface_sim_many([r for r, _ in todo], [c for _, c in todo], workers=1, warn=False)
        else:
            got = [difflib.SequenceMatcher(None, r, c).ratio() for r, c in todo]
        _SIM_MEMO.update({(kind, r, c): float(v) for (r, c), v in zip(todo, got, strict=True)})
    return np.asarray([_SIM_MEMO[(kind, r, c)] for r, c in zip(references, candidates, strict=True)], float)


def fit_threshold(sims: np.ndarray, labels: np.ndarray) -> tuple[float, str, float]:
    """The decision stump that minimises the training MAE: (threshold t, sense, training MAE),
    predicting 1 where ``sim >= t`` (sense ``>=``) or where ``sim < t`` (sense ``<``), else 0.

    Both senses are searched because the surface signal can point either way: on CodeScore-style
    pairs a candidate that looks like its reference tends to be right, on LoCaL the error-prone
    pairs are built so that it does not (the authors' own check is "1 if similarity < 0.8").
    With labels in [0, 1] a pair's error under one sense is 1 minus its error under the other, so
    MAE(<, t) = 1 - MAE(>=, t). Thresholds are the midpoints between consecutive distinct
    similarities (plus "everything 1" and "everything 0"); ties go to ``>=``, then the lowest t."""
    if len(sims) == 0:
        raise ValueError("a surface rule needs at least one training pair")
    order = np.argsort(sims, kind="stable")
    s, y = sims[order], labels[order]
    values, starts = np.unique(s, return_index=True)
    below_y = np.concatenate([[0.0], np.cumsum(y)])[np.append(starts, len(s))]  # sum of y below each cut
    n_below = np.append(starts, len(s)).astype(float)
    n = float(len(s))
    # cut j: pairs with similarity below the j-th distinct value predicted 0, the rest 1
    err_ge = (below_y + (n - n_below) - (y.sum() - below_y)) / n
    cuts = np.concatenate([[values[0]], (values[:-1] + values[1:]) / 2, [math.inf]])
    best_ge, best_lt = int(np.argmin(err_ge)), int(np.argmax(err_ge))
    if err_ge[best_ge] <= 1.0 - err_ge[best_lt] + 1e-12:
        return float(cuts[best_ge]), ">=", float(err_ge[best_ge])
    return float(cuts[best_lt]), "<", float(1.0 - err_ge[best_lt])


class SurfaceRule:
    """The surface-rule comparator: a rule that learns nothing beyond one threshold on a similarity,
    fitted on the model's own training draw (never on validation or evaluation pairs) by
    :func:`fit_threshold`, answering 1 or 0 for every pair. A model that does not beat it has
    learned no more than how alike the two programs look."""

    def __init__(self, rows: list[PairRow], kind: str = "surfacesim") -> None:
        if not rows:
            raise ValueError("the surface rule needs at least one training pair")
        self.kind = kind
        sims = similarities([r["reference"] for r in rows], [r["candidate"] for r in rows], kind)
        self.threshold, self.sense, self.train_mae = fit_threshold(sims, np.asarray([df_of(r) for r in rows], float))

    def predict(self, references: list[str], candidates: list[str]) -> np.ndarray:
        sims = similarities(references, candidates, self.kind)
        hit = sims >= self.threshold if self.sense == ">=" else sims < self.threshold
        return hit.astype(float)

    def describe(self) -> str:
        """The fitted rule in words, e.g. ``1 if SurfaceSim < 0.812 else 0``."""
        return f"1 if {RULE_SIMILARITIES[self.kind]} {self.sense} {self.threshold:.3f} else 0"


def rq5_config(profile: Profile, mode: str = "full") -> TrainSettings:
    """The CodeScore-style training settings RQ5 uses in ``profile`` (Section 4.7.1 holds them
    constant across p). ``full``: fine-tuning, sized for CPU by the profile (top layers, capped
    steps, short prefix-trimmed inputs, early stopping on the validation split); ``fast``: the
    frozen-encoder variant (MLP head on cached embeddings), the cheaper sensitivity run;
    ``paper-like``: the paper's fine-tune (every layer, 512 tokens, no trimming, early stopping on
    the validation split with no step cap), documented for a machine with a GPU and not run by the
    build (the cost table estimates it; the encoder trains on the CPU unless the engine is given a
    device)."""
    if mode == "fast":
        return {"mode": "fast", "eval_every": 10, "patience": 3}
    if mode == "paper-like":
        return {**PAPER_LIKE, "max_steps": None, "epochs": 10, "batch_size": 16, "lr_full": 2e-5,
                "eval_every": profile.rq5_eval_every, "patience": max(profile.rq5_patience, 3)}
    if mode != "full":
        raise ValueError(f"RQ5 mode must be 'full', 'fast' or 'paper-like', not {mode!r}")
    return {"mode": "full", "max_length": profile.rq5_max_length, "unfreeze_layers": profile.rq5_unfreeze_layers,
            "max_steps": profile.rq5_max_steps, "epochs": 100, "batch_size": 16, "lr_full": 2e-4, "lr_head": 3e-3,
            "trim_common_prefix": True, "cache_frozen": profile.rq5_unfreeze_layers is not None,
            "eval_every": profile.rq5_eval_every, "patience": profile.rq5_patience}


def setting_sentence(profile: Profile) -> str:
    """The training setting Table 6 runs in ``profile`` in words, from :func:`rq5_config`: the CPU
    substitute for the paper's fine-tune, and the paper-like setting that is not run."""
    cfg = rq5_config(profile)
    top = "every" if cfg["unfreeze_layers"] is None else f"the top {cfg['unfreeze_layers']}"
    return (f"CPU setting (a substitute for the paper's fine-tune): {top} encoder layer(s) trained, at most "
            f"{cfg['max_steps']} optimiser steps of {cfg['batch_size']} pairs, {cfg['max_length']}-token inputs with "
            "their shared leading lines trimmed, early stopping on the validation split; the paper-like setting "
            f"({settings_text(rq5_config(profile, 'paper-like'))}) is not run here (no GPU in this build).")


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


#: the comparators' MAE columns of the runs table: the mean predictor, the surface rule on SurfaceSim
#: (Table 6's) and on difflib's ratio (sensitivity)
MEAN_COL, RULE_COL, DIFFLIB_COL = "MAE (mean baseline)", "MAE (surface rule)", "MAE (surface rule, difflib)"
RUN_COLUMNS = ["p", "model", "seed", "set", "MAE", MEAN_COL, RULE_COL, DIFFLIB_COL, "n_eval", "n_train", "n_val",
               "n_local", "steps", "best_val_MAE", "train_s", "model_hash", "surface rule", "difflib rule"]


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
    """One model's rows of the runs table: its MAE, the mean baseline's and the surface rules' (each
    fitted on this model's training draw, :class:`SurfaceRule`) per set, its cost."""
    meta = getattr(model, "meta", {}).get("train", {})
    mean = evaluate(MeanModel(train_set), sets)
    rule, rule_d = SurfaceRule(train_set), SurfaceRule(train_set, "difflib")
    by_rule, by_difflib = evaluate(rule, sets), evaluate(rule_d, sets)
    common = {"p": p, "model": k, "seed": seed, "n_train": len(train_set), "n_val": len(val),
              "n_local": sum(r.get("source") == "LoCaL" for r in train_set), "steps": meta.get("steps"),
              "best_val_MAE": (meta.get("validation") or {}).get("best_mae"),
              "train_s": getattr(model, "train_seconds", None),
              "model_hash": (getattr(model, "content_hash", None) or "")[:12],
              "surface rule": rule.describe(), "difflib rule": rule_d.describe()}
    return [{**common, "set": name, "MAE": value, MEAN_COL: mean[name][0], RULE_COL: by_rule[name][0],
             DIFFLIB_COL: by_difflib[name][0], "n_eval": n}
            for name, (value, n) in evaluate(model, sets).items()]


def table6(runs: pd.DataFrame, with_paper: bool = True) -> pd.DataFrame:
    """Table 6: one row per p with mean and sample standard deviation (ddof = 1; NaN for a
    single model) of MAE per set over the independent models, the mean baseline's MAE (mean
    over the models' training sets, when ``runs`` has it), the surface rule's (mean and std over
    the same models' training draws; difflib's as a sensitivity, when ``runs`` has them) and the
    paper's values beside. Combined pools both sets' pairs; with equal set sizes (as
    :func:`evaluation_sets` draws them) that is the authors' mean of the two sets' MAEs."""
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
        for col, suffix, with_std in ((RULE_COL, "surface rule", True), (DIFFLIB_COL, "surface rule, difflib", False)):
            if col in runs.columns:
                g_rule = runs[runs.set == name].groupby("p")[col]
                m, sd = g_rule.mean(), g_rule.std(ddof=1)
                out[f"{name} MAE ({suffix})"] = [float(m.get(p, float("nan"))) for p in out["p (%)"]]
                if with_std:
                    out[f"{name} std ({suffix})"] = [float(sd.get(p, float("nan"))) for p in out["p (%)"]]
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
    return out + _rule_links()


#: the surface rule's readings: ``aux.RQ5.surface_rule.<set>.<p>`` its Table 6 MAE (mean over the models'
#: training draws, 95% t interval over them), ``aux.RQ5.surface_rule.<headline id>`` Section 4.7.2's percentage
#: recomputed on it (with the models' bootstrap interval), and per set and p the learned gain over each
#: comparator, ``aux.RQ5.gain_over_rule.<set>.<p>`` and ``aux.RQ5.gain_over_mean.<set>.<p>``, with a 95% t
#: interval over the models (:func:`learned_gain`'s)
RULE_PREFIX, GAIN_RULE_PREFIX, GAIN_MEAN_PREFIX = "aux.RQ5.surface_rule", "aux.RQ5.gain_over_rule", "aux.RQ5.gain_over_mean"
_GAIN_REASON = "95% t interval over the independent models of each p (rq5_runs), as rq5_learned_gain"


def rule_headline_id(cid: str) -> str:
    """The surface rule's reading of a Section 4.7.2 percentage (``RQ5.combined_drop`` ->
    ``aux.RQ5.surface_rule.combined_drop``)."""
    return f"{RULE_PREFIX}.{cid.split('.', 1)[1]}"


def _t_stats(values: np.ndarray) -> tuple[float, float, float]:
    """(mean, 95% t interval low, high) of ``values`` (NaNs dropped); NaN bounds below two values."""
    from scipy import stats as st

    values = values[~np.isnan(values)]
    if not len(values):
        return float("nan"), float("nan"), float("nan")
    m = float(values.mean())
    if len(values) < 2:
        return m, float("nan"), float("nan")
    half = float(st.t.ppf(0.975, len(values) - 1) * values.std(ddof=1) / np.sqrt(len(values)))
    return m, m - half, m + half


def _cell(runs: pd.DataFrame, p: int, name: str) -> pd.DataFrame:
    return runs[(runs["p"] == p) & (runs["set"] == name)]


def gain_of(runs: pd.DataFrame, p: int, name: str, comparator: str = RULE_COL) -> tuple[float, float, float]:
    """Per model at ``p`` on set ``name``: MAE(comparator) - MAE(model); (mean, 95% t interval low,
    high) over the models, NaN bounds with fewer than two models."""
    g = _cell(runs, p, name)
    return _t_stats((g[comparator] - g["MAE"]).to_numpy(float))


def _rule_value(p: int, name: str) -> Callable[[dict[str, pd.DataFrame]], float]:
    return lambda t: _t_stats(_cell(t[RUNS], p, name)[RULE_COL].to_numpy(float))[0]


def _rule_mae_interval(p: int, name: str) -> Callable[[dict[str, pd.DataFrame]], tuple[float, float]]:
    return lambda t: _t_stats(_cell(t[RUNS], p, name)[RULE_COL].to_numpy(float))[1:]


def _gain_value(p: int, name: str, col: str) -> Callable[[dict[str, pd.DataFrame]], float]:
    return lambda t: gain_of(t[RUNS], p, name, col)[0]


def _gain_interval(p: int, name: str, col: str) -> Callable[[dict[str, pd.DataFrame]], tuple[float, float]]:
    return lambda t: gain_of(t[RUNS], p, name, col)[1:]


def _rule_headline_of(cid: str) -> Callable[[dict[str, pd.DataFrame]], float]:
    return lambda t: headline(t[TABLE6], " (surface rule)")[cid]


def _rule_interval_of(cid: str) -> Callable[[dict[str, pd.DataFrame]], tuple[float, float]]:
    return lambda t: headline_interval(t[RUNS], cid, RULE_COL)


def _rule_links() -> list[Link | Derived]:
    """The surface rule's readings (:data:`RULE_PREFIX`), so every RQ5 conclusion can be run on it."""
    # read from the runs (a derived value, not a Table 6 link) so that the rule's MAE carries the same
    # interval over the models as the gains beside it; its value is Table 6's "<set> MAE (surface rule)"
    out: list[Link | Derived] = [Derived(f"{RULE_PREFIX}.{name}.{p}", (RUNS,), _rule_value(p, name),
                                         interval=_rule_mae_interval(p, name), interval_tables=(RUNS,),
                                         interval_reason=_GAIN_REASON.replace("as rq5_learned_gain",
                                                                              "of the rule fitted on each draw"))
                                 for name in RQ5_SETS for p in range(0, 101, 10)]
    out += [Derived(rule_headline_id(cid), (TABLE6,), _rule_headline_of(cid), interval=_rule_interval_of(cid),
                    interval_tables=(RUNS,), interval_reason=_RQ5_PERCENT) for cid in _HEADLINE_SETS]
    for prefix, col in ((GAIN_RULE_PREFIX, RULE_COL), (GAIN_MEAN_PREFIX, MEAN_COL)):
        out += [Derived(f"{prefix}.{name}.{p}", (RUNS,), _gain_value(p, name, col), interval=_gain_interval(p, name, col),
                        interval_tables=(RUNS,), interval_reason=_GAIN_REASON)
                for name in RQ5_SETS for p in range(0, 101, 10)]
    return out


#: "most of the gain already at a small p" as one paired contrast over the models, on Combined:
#: (MAE_0 - MAE_p) - (MAE_0 - MAE_100) / 2 at p = 20, above 0 when p = 20 reaches at least half of the
#: drop from p = 0 to p = 100 (:func:`half_contrast`)
CONTRAST_P, CONTRAST_SETS = 20, ("Combined",)
#: the base seed of the contrast's bootstrap (the tables hold no base seed; headline_interval uses 0 too)
CONTRAST_SEED = 0
_CONTRAST_HOW = ("percentile bootstrap 95% CI over the independent models (rq5_runs): the models at p = 0, p = {p} "
                 "and p = 100 resampled within each p, 2000 resamples, seeded through lcl.core.seeds")


def contrast_id(name: str, p: int = CONTRAST_P) -> str:
    """The reading of :func:`half_contrast` on set ``name`` at ``p`` (``aux.RQ5.contrast.Combined.half_at_20``)."""
    return f"aux.RQ5.contrast.{name}.half_at_{p}"


def half_contrast(runs: pd.DataFrame, name: str, p: int = CONTRAST_P, n_boot: int = 2000,
                  seed: int = CONTRAST_SEED) -> tuple[float, float, float]:
    """(value, 95% low, high) of (MAE_0 - MAE_p) - (MAE_0 - MAE_100) / 2 on set ``name``, each MAE
    the mean over the models of that p (Table 6's). Its interval: a percentile bootstrap over the
    models, each p's models resampled on their own (they are trained independently), the seed from
    :func:`lcl.core.seeds.unit_seed`. All NaN where ``p`` is not among the percentages run (the
    profile's grid): the value is not interpolated; NaN bounds with fewer than two models at any p."""
    g = runs[runs["set"] == name]
    maes = [g[g["p"] == q]["MAE"].to_numpy(float) for q in (0, p, 100)]
    maes = [m[np.isfinite(m)] for m in maes]
    if any(not len(m) for m in maes):
        return float("nan"), float("nan"), float("nan")

    def contrast(m0: np.ndarray, mp: np.ndarray, m100: np.ndarray) -> np.ndarray:
        return (m0 - mp) - 0.5 * (m0 - m100)
    value = float(contrast(*(np.asarray(m.mean()) for m in maes)))
    if any(len(m) < 2 for m in maes):
        return value, float("nan"), float("nan")
    rng = np.random.default_rng(seeds.unit_seed(seed, "rq5", "contrast", name, p))
    means = [m[rng.integers(0, len(m), size=(n_boot, len(m)))].mean(axis=1) for m in maes]
    lo, hi = np.quantile(contrast(*means), [0.025, 0.975])
    return value, float(lo), float(hi)


def contrast_lines(runs: pd.DataFrame, percentages: Sequence[int]) -> list[str]:
    """One computed line per :data:`CONTRAST_SETS` set: "most of the gain already at p = 20" as the
    contrast of :func:`half_contrast` with its interval, or why it is absent."""
    lines = []
    for name in CONTRAST_SETS:
        if CONTRAST_P not in percentages:
            lines.append(f"- {name}: p = {CONTRAST_P} is not among this profile's percentages "
                         f"({', '.join(map(str, percentages))}), so {contrast_id(name)} is not computed (never "
                         "interpolated).")
            continue
        v, lo, hi = half_contrast(runs, name)
        iv = f" (95% CI {lo:.3f} to {hi:.3f})" if np.isfinite(lo) else " (no interval: fewer than two models per p)"
        lines.append(f"- {name}: (MAE_0 - MAE_{CONTRAST_P}) - (MAE_0 - MAE_100) / 2 = {v:.3f}{iv}; above 0 would "
                     f"mean p = {CONTRAST_P} already reaches half of the drop from p = 0 to p = 100.")
    return lines


def _contrast_reading(name: str) -> Derived:
    def value(t: dict[str, pd.DataFrame]) -> float:
        return half_contrast(t[RUNS], name)[0]

    def interval(t: dict[str, pd.DataFrame]) -> tuple[float, float]:
        return half_contrast(t[RUNS], name)[1:]
    return Derived(contrast_id(name), (RUNS,), value, interval=interval, interval_tables=(RUNS,),
                   interval_reason=_CONTRAST_HOW.format(p=CONTRAST_P))


def _contrast_links() -> list[Derived]:
    return [_contrast_reading(name) for name in CONTRAST_SETS]


#: Table 6's claims (mean and std over the models per p, as the paper reports) and Section 4.7's
CLAIMS: list[Link | Derived] = [*_t6_links(), *_contrast_links()]


def headline(table: pd.DataFrame, which: str = "") -> dict[str, float]:
    """Section 4.7.2's three percentages from a :func:`table6` table (p = 100 vs p = 0):
    LoCaL_test MAE reduction, Baseline MAE increase, Combined MAE drop (NaN when missing).
    ``which``: the columns' suffix, ``""`` for the models, ``" (surface rule)"`` for the surface rule."""
    t = table.set_index("p (%)")

    def rel(name: str) -> float:
        col = f"{name} MAE{which}"
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
GAIN_COLUMNS = ["p (%)", "set", "models", "learned gain", "CI low", "CI high", "models beating the mean predictor",
                "gain over surface rule", "CI low (surface rule)", "CI high (surface rule)",
                "models beating the surface rule"]


def learned_gain(runs: pd.DataFrame) -> pd.DataFrame:
    """Per p and set, what training bought over the two comparators that learn (almost) nothing:
    each independent model's ``MAE(mean predictor) - MAE(model)`` (the mean predictor answers its
    own training draw's mean label for every pair) and ``MAE(surface rule) - MAE(model)`` (the
    rule is one SurfaceSim threshold fitted on the same draw, :class:`SurfaceRule`); the mean
    over the models with a 95% t interval over them (none with a single model, :func:`gain_of`),
    and how many models beat each comparator. Above 0: the model learned something the mean label,
    or how alike the programs look, does not give."""
    rows = []
    for (p, name), g in runs.groupby(["p", "set"], sort=True):
        row: dict[str, object] = {"p (%)": int(p), "set": name, "models": int(g["MAE"].notna().sum())}
        for col, head, lo_c, hi_c, beat in ((MEAN_COL, "learned gain", "CI low", "CI high",
                                             "models beating the mean predictor"),
                                            (RULE_COL, "gain over surface rule", "CI low (surface rule)",
                                             "CI high (surface rule)", "models beating the surface rule")):
            if col not in g.columns:
                row |= {head: float("nan"), lo_c: float("nan"), hi_c: float("nan"), beat: 0}
                continue
            m, lo, hi = gain_of(g, int(p), str(name), col)
            row |= {head: round(m, 4), lo_c: round(lo, 4), hi_c: round(hi, 4),
                    beat: int(((g[col] - g["MAE"]).to_numpy(float) > 0).sum())}
        rows.append(row)
    order = {n: i for i, n in enumerate(RQ5_SETS)}
    out = pd.DataFrame(rows, columns=GAIN_COLUMNS)
    return out.sort_values(["set", "p (%)"], key=lambda c: c.map(order) if c.name == "set" else c,
                           ignore_index=True)


def plot_learned_gain(gain: pd.DataFrame, label: str = "CodeScore-style (retrained)") -> Figure:
    """Figure: the learned gain vs p per set with its 95% interval over the models, over the mean
    predictor (left) and over the surface rule (right, when ``gain`` has it); the line at 0 is
    the comparator."""
    import matplotlib.pyplot as plt
    colors = SET_COLORS
    panels = [("learned gain", "CI low", "CI high", "mean predictor")]
    if "gain over surface rule" in gain.columns and not gain["gain over surface rule"].isna().all():
        panels.append(("gain over surface rule", "CI low (surface rule)", "CI high (surface rule)", "surface rule"))
    fig, axes = plt.subplots(1, len(panels), figsize=(6.0 * len(panels), 4.0), sharey=True, squeeze=False)
    for ax, (col, lo, hi, what) in zip(axes[0], panels, strict=True):
        ax.axhline(0, color="0.3", linewidth=1, label=what)
        for i, name in enumerate(RQ5_SETS):
            g = gain[gain["set"] == name]
            if g.empty or g[col].isna().all():
                continue
            p = g["p (%)"].to_numpy(float) + (i - 1) * 0.8  # side by side at each p
            m = g[col].to_numpy(float)
            err = np.vstack([m - g[lo].to_numpy(float), g[hi].to_numpy(float) - m])
            ax.errorbar(p, m, yerr=np.nan_to_num(err), fmt="o-", color=colors[name], capsize=2, label=name)
        ax.set_xlabel("p: % of LoCaL pairs in the training set")
        ax.set_ylabel(f"MAE({what}) - MAE(model)")
        ax.tick_params(labelleft=True)  # each panel reads on its own
        ax.set_title(f"RQ5: what {label} learned beyond the {what}", fontsize=9)
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
    baseline, the surface rule when the table has it, the paper's), one column per p, each cell
    ``mean (±std)``."""
    rows = {f"{n} (ours)": [_mean_std(r[f"{n} MAE"], r[f"{n} std"]) for _, r in table.iterrows()] for n in RQ5_SETS}
    rows |= {f"{n} (mean baseline)": [_mean_std(r[f"{n} MAE (mean baseline)"], float("nan"))
                                      for _, r in table.iterrows()] for n in RQ5_SETS}
    if f"{RQ5_SETS[0]} MAE (surface rule)" in table.columns:
        rows |= {f"{n} (surface rule)": [_mean_std(r[f"{n} MAE (surface rule)"], r[f"{n} std (surface rule)"])
                                         for _, r in table.iterrows()] for n in RQ5_SETS}
    rows |= {f"{n} (paper)": [_mean_std(r[f"{n} MAE (paper)"], r[f"{n} std (paper)"]) for _, r in table.iterrows()]
             for n in RQ5_SETS}
    return pd.DataFrame(rows, index=[f"{p}%" for p in table["p (%)"]]).T


def summary_row(label: str, table: pd.DataFrame) -> dict[str, object]:
    """One row of the sensitivity table: a :func:`table6` table's MAE and std per set at the lowest
    and highest p, the mean baseline and the surface rule at the highest, Section 4.7.2's three percentages
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
        if f"{name} MAE (surface rule)" in t.columns:
            out[f"{name} surface rule p={d['p_hi']}"] = t.loc[d["p_hi"], f"{name} MAE (surface rule)"]
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


def _gain_words(m: float, lo: float, hi: float, what: str) -> str:
    """Whether a gain over ``what`` is resolved by its interval, in words."""
    if lo != lo:
        return f"{m:+.3f} (one model: no interval, so not resolved)"
    verdict = ("beats the " + what if lo > 0 else "is beaten by the " + what if hi < 0
               else "is not resolved from the " + what)
    return f"{m:+.3f} [{lo:+.3f}, {hi:+.3f}], the model {verdict}"


def rule_lines(t6: pd.DataFrame, runs: pd.DataFrame, gain: pd.DataFrame, percentages: Sequence[int]) -> list[str]:
    """Notebook 07's "what we found" lines on the surface rule: the rule each endpoint fitted (first
    model's draw), its MAE per set beside the model's, the learned gain over it with its interval,
    and Section 4.7.2's percentages recomputed on the rule (:func:`headline`)."""
    if f"{RQ5_SETS[0]} MAE (surface rule)" not in t6.columns or runs.empty:
        return []
    lines = []
    t = t6.set_index("p (%)")
    for p in (min(percentages), max(percentages)):
        fitted = sorted(set(runs[runs["p"] == p]["surface rule"].astype(str)))
        mae = "; ".join(f"{n} {t.loc[p, f'{n} MAE (surface rule)']:.3f} vs model {t.loc[p, f'{n} MAE']:.3f}"
                        for n in RQ5_SETS if t.loc[p, f"{n} MAE"] == t.loc[p, f"{n} MAE"])
        gp = gain[gain["p (%)"] == p].set_index("set")
        gains = "; ".join(f"{n} " + _gain_words(float(g["gain over surface rule"]), float(g["CI low (surface rule)"]),
                                                float(g["CI high (surface rule)"]), "surface rule")
                          for n, g in gp.iterrows())
        lines.append(f"- Surface rule at p = {p} (fitted on each model's training draw: "
                     f"{', '.join(fitted[:3])}{' ...' if len(fitted) > 3 else ''}): MAE {mae}. "
                     f"Learned gain over it: {gains}.")
    h = headline(t6, " (surface rule)")
    lines.append("- Section 4.7.2's percentages on the surface rule (p = 100 vs p = 0): LoCaL_test MAE reduction "
                 f"{h['RQ5.local_test_reduction']:.1f}%, Baseline MAE change {h['RQ5.baseline_increase']:+.1f}%, "
                 f"Combined MAE drop {h['RQ5.combined_drop']:.1f}%: what refitting one threshold on the new "
                 "training mix gives, without learning anything else.")
    return lines


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
