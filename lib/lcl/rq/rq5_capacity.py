"""RQ5's capacity check: is Table 6's CPU fine-tuning setting too small for the CodeScore-style
substitute to learn?

The paper fine-tunes CodeScore end to end with a validation set (Section 4.7.1); Table 6's runs
here train the top MiniLM layer(s) for a capped number of steps on short inputs
(:func:`lcl.rq.rq5.rq5_config`). This module trains the same models (same training draws,
validation splits, seeds and evaluation sets as Table 6's first models at the endpoints of p)
under larger settings (more optimiser steps, more trainable layers, longer inputs) and reports,
per setting, its validation curve beside the mean predictor's validation MAE, its learned gain
over the mean predictor on each evaluation set, and its measured training seconds.

Settings are compared on the validation split only when one must be picked (:func:`best_setting`),
so that the evaluation sets never choose the setting they then judge.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypedDict

import pandas as pd

from lcl.core.profiles import Profile
from lcl.core.records import PairRow
from lcl.study import codescore_base

from . import rq5

if TYPE_CHECKING:
    from matplotlib.figure import Figure

CURVE_COLUMNS = ["setting", "p", "model", "seed", "step", "validation MAE", "validation MAE (mean predictor)"]
SUMMARY_COLUMNS = ["setting", "p (%)", "set", "models", "MAE", "MAE (mean predictor)", "learned gain", "CI low",
                   "CI high", "models beating the mean predictor", "steps run (mean)", "best step (mean)",
                   "best validation MAE (mean)", "validation MAE (mean predictor)", "train s per model (mean)"]


@dataclass(frozen=True)
class Setting:
    """One fine-tuning setting: optimiser steps at most (batch 16), top encoder layers trained
    (None: all), tokens of ``candidate [SEP] reference``."""

    max_steps: int
    unfreeze_layers: int | None
    max_length: int

    @property
    def name(self) -> str:
        layers = "all layers" if self.unfreeze_layers is None else f"top {self.unfreeze_layers} layer(s)"
        return f"{self.max_steps} steps, {layers}, {self.max_length} tokens"


def table6_setting(profile: Profile) -> Setting:
    """The setting Table 6's models are trained with in ``profile``."""
    return Setting(profile.rq5_max_steps, profile.rq5_unfreeze_layers, profile.rq5_max_length)


def settings(profile: Profile) -> list[Setting]:
    """Table 6's setting first, then the profile's larger ones (``profile.rq5_capacity``)."""
    first = table6_setting(profile)
    rest = [Setting(*s) for s in profile.rq5_capacity]
    return [first] + [s for s in rest if s != first]


def setting_names(profile: Profile) -> str:
    """The names of :func:`settings`, Table 6's first, as the notes print them."""
    return "; ".join(s.name for s in settings(profile))


def config_of(profile: Profile, setting: Setting) -> codescore_base.TrainSettings:
    """Table 6's training config with ``setting``'s steps, layers and tokens. Table 6's own setting
    keeps its config exactly, so its models are Table 6's (found in the model cache); larger ones
    validate as often and stop after ``profile.rq5_capacity_patience`` evaluations without
    improvement, so a long run stops once its validation curve has flattened."""
    cfg = rq5.rq5_config(profile)
    if setting == table6_setting(profile):
        return cfg
    return {**cfg, "max_steps": setting.max_steps, "unfreeze_layers": setting.unfreeze_layers,
            "max_length": setting.max_length, "cache_frozen": setting.unfreeze_layers is not None,
            "patience": profile.rq5_capacity_patience}


class _Record(TypedDict):
    history: list[tuple[int, float]]  # (step, validation MAE); lists when read back from a cached model's meta.json
    best_step: int | None
    mean_val_mae: float


class _Recorder:
    """A trainer that trains as :func:`lcl.study.codescore_base.train_model` does and keeps, per model seed, its
    validation history and the mean predictor's MAE on the same validation split."""

    def __init__(self, trainer: rq5.Trainer) -> None:
        self.trainer = trainer
        self.records: dict[int, _Record] = {}

    def __call__(self, pairs: list[PairRow], seed: int, **kw: Any) -> rq5.Scorer:
        model = self.trainer(pairs, seed, **kw)
        validation = kw.get("validation") or []
        mean = rq5.MeanModel(pairs).value
        val_mae = (sum(abs(float(r["df_score"]) - mean) for r in validation) / len(validation)
                   if validation else float("nan"))
        v = (getattr(model, "meta", {}).get("train", {}).get("validation") or {})
        self.records[seed] = {"history": list(v.get("history") or []), "best_step": v.get("best_step"),
                              "mean_val_mae": val_mae}
        return model


def run(base_rows: list[PairRow], local_rows: list[PairRow], codescore_test_rows: list[PairRow],
        profile: Profile, seed: int, *, trainer: rq5.Trainer | None = None,
        progress: bool = True) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Every setting of :func:`settings` at the lowest and highest p of the profile, with
    ``profile.rq5_capacity_models`` models each: the runs table (:data:`lcl.rq.rq5.RUN_COLUMNS`
    plus ``setting`` and ``best_step``) and the validation curves (:data:`CURVE_COLUMNS`)."""
    ends = (min(profile.rq5_percentages), max(profile.rq5_percentages))
    all_runs, curves = [], []
    for setting in settings(profile):
        rec = _Recorder(trainer or codescore_base.train_model)
        if progress:
            print(f"capacity: {setting.name}", flush=True)
        runs = rq5.experiment(base_rows, local_rows, codescore_test_rows, ends, profile.rq5_capacity_models,
                                   profile.rq5_eval, seed, trainer=rec, config=config_of(profile, setting),
                                   val_fraction=rq5.VAL_FRACTION, progress=progress)
        runs.insert(0, "setting", setting.name)
        runs["best_step"] = runs["seed"].map(lambda s, rec=rec: rec.records[s]["best_step"])
        runs["validation MAE (mean predictor)"] = runs["seed"].map(lambda s, rec=rec: rec.records[s]["mean_val_mae"])
        all_runs.append(runs)
        for (p, k, s), _ in runs.groupby(["p", "model", "seed"], sort=True):
            r = rec.records[s]
            curves += [{"setting": setting.name, "p": int(p), "model": int(k), "seed": int(s), "step": int(step),
                        "validation MAE": float(v), "validation MAE (mean predictor)": r["mean_val_mae"]}
                       for step, v in r["history"]]
    return (pd.concat(all_runs, ignore_index=True) if all_runs else pd.DataFrame(),
            pd.DataFrame(curves, columns=CURVE_COLUMNS))


def summary(runs: pd.DataFrame) -> pd.DataFrame:
    """One row per setting, p and evaluation set: mean MAE of the model and of the mean predictor,
    the learned gain with its 95% t interval over the models (:func:`lcl.rq.rq5.learned_gain`),
    and per model the steps run, the best validation step and MAE, and the training seconds."""
    rows = []
    order = list(dict.fromkeys(runs["setting"])) if len(runs) else []
    for name in order:
        r = runs[runs["setting"] == name]
        per_model = r.drop_duplicates(["p", "model"])
        gain = rq5.learned_gain(r).set_index(["p (%)", "set"])
        for (p, set_name), g in r.groupby(["p", "set"], sort=True):
            pm = per_model[per_model["p"] == p]
            lg = gain.loc[(int(p), set_name)]
            rows.append({"setting": name, "p (%)": int(p), "set": set_name, "models": int(lg["models"]),
                         "MAE": float(g["MAE"].mean()), "MAE (mean predictor)": float(g["MAE (mean baseline)"].mean()),
                         "learned gain": lg["learned gain"], "CI low": lg["CI low"], "CI high": lg["CI high"],
                         "models beating the mean predictor": int(lg["models beating the mean predictor"]),
                         "steps run (mean)": float(pm["steps"].astype(float).mean()),
                         "best step (mean)": float(pm["best_step"].astype(float).mean()),
                         "best validation MAE (mean)": float(pm["best_val_MAE"].astype(float).mean()),
                         "validation MAE (mean predictor)": float(pm["validation MAE (mean predictor)"].mean()),
                         "train s per model (mean)": float(pm["train_s"].astype(float).mean())})
    set_order = {n: i for i, n in enumerate(rq5.RQ5_SETS)}
    out = pd.DataFrame(rows, columns=SUMMARY_COLUMNS)
    if len(out):
        out["_o"] = out["setting"].map({n: i for i, n in enumerate(order)})
        out = out.sort_values(["p (%)", "_o", "set"], key=lambda c: c.map(set_order) if c.name == "set" else c,
                              ignore_index=True).drop(columns="_o")
    return out


def best_setting(table: pd.DataFrame, p: int) -> str | None:
    """The setting with the lowest mean best validation MAE at ``p``: chosen on the validation
    split, never on the evaluation sets it is then read on."""
    t = table[table["p (%)"] == p].drop_duplicates("setting")
    if t.empty or t["best validation MAE (mean)"].isna().all():
        return None
    return str(t.loc[t["best validation MAE (mean)"].idxmin(), "setting"])


def plot_curves(curves: pd.DataFrame, label: str = "CodeScore-style (retrained)") -> Figure:
    """Figure: validation MAE against optimiser steps, one panel per p and one line per setting
    (each model drawn thin); the dashed line is the mean predictor's MAE on the same split."""
    import matplotlib.pyplot as plt

    ps = sorted(curves["p"].unique()) if len(curves) else []
    fig, axes = plt.subplots(1, max(len(ps), 1), figsize=(5.2 * max(len(ps), 1), 3.8), sharey=True, squeeze=False)
    names = list(dict.fromkeys(curves["setting"])) if len(curves) else []
    colors = plt.get_cmap("tab10")
    for ax, p in zip(axes[0], ps, strict=False):
        c = curves[curves["p"] == p]
        ax.axhline(float(c["validation MAE (mean predictor)"].mean()), color="0.3", linestyle="--", linewidth=1,
                   label="mean predictor")
        # Table 6's setting (the first) on top and wider: the larger settings share its seed, so
        # their first steps retrace its curve and would hide it
        for i, name in reversed(list(enumerate(names))):
            first = i == 0
            for j, (_, g) in enumerate(c[c["setting"] == name].groupby("model")):
                ax.plot(g["step"], g["validation MAE"], "o-", markersize=6 if first else 3, color=colors(i),
                        linewidth=2.6 if first else 1.2, alpha=0.85, zorder=3 if first else 2,
                        label=(f"{name} (Table 6's)" if first else name) if j == 0 else None)
        ax.set_title(f"p = {p}% LoCaL")
        ax.set_xlabel("optimiser steps (batch 16)")
    axes[0][0].set_ylabel("validation MAE")
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=min(len(labels), 3), frameon=False, fontsize=8)
    fig.suptitle(f"RQ5 capacity: {label}'s validation curves per fine-tuning setting", fontsize=10)
    fig.tight_layout(rect=(0, 0.12 + 0.04 * (len(labels) > 3), 1, 1))
    return fig


def finding(table: pd.DataFrame, p: int, set_name: str = "Combined") -> str:
    """One computed sentence for the notebook: at ``p``, Table 6's setting (the table's first) and
    the setting :func:`best_setting` picks on validation, each with its learned gain on
    ``set_name``, its best validation MAE beside the mean predictor's, and its seconds per model."""
    t = table[(table["p (%)"] == p) & (table["set"] == set_name)].set_index("setting")
    if t.empty:
        return f"p = {p}: no capacity runs."
    first, best = str(t.index[0]), best_setting(table, p)

    def part(name: str) -> str:
        r = t.loc[name]
        return (f"{name}: learned gain {r['learned gain']:+.3f} on {set_name}, best validation MAE "
                f"{r['best validation MAE (mean)']:.3f} (mean predictor {r['validation MAE (mean predictor)']:.3f}), "
                f"{r['train s per model (mean)']:.0f} s per model")

    if best is None or best == first:
        return f"p = {p}: Table 6's setting has the lowest validation MAE ({part(first)})."
    return f"p = {p}: Table 6's setting ({part(first)}); lowest validation MAE: {part(best)}."


def finding_lines(table: pd.DataFrame, percentages: Sequence[int]) -> list[str]:
    """Notebook 07's capacity lines: :func:`finding` at the lowest and the highest p (none without runs)."""
    if not len(table):
        return []
    return [f"- Capacity, {finding(table, p)}" for p in (min(percentages), max(percentages))]
