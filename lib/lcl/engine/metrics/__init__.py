"""Code evaluation metrics behind one interface.

Every metric is an object with ``score(references, candidates, lang) -> np.ndarray`` of
floats in [0, 1] (NaN only for an external score that is missing), cached on disk by metric
name, metric version, settings and pair hash (:mod:`lcl.engine.metrics.cache`).

Names (also the output field names of ``lcl score``):

============================  ===============================  ==============================
name                          label (tables, figures, files)   what
============================  ===============================  ==============================
``surface_sim``               SurfaceSim                       Eq. 1, ``paper`` mode
``surface_sim_tree``          SurfaceSim[tree]                 Eq. 1, ``tree`` mode (APTED)
``codebleu``                  CodeBLEU                         codebleu==0.7.0, default weights
``crystalbleu``               CrystalBLEU                      crystalbleu==0.2, k=50, per pair
``crystalbleu_corpus``        CrystalBLEU[corpus]              the same, corpus ignore set
``codebertscore``             CodeBERTScore[MiniLM]            code-bert-score, substitute enc.
``codescore_style``           CodeScore-style (retrained)      our learned metric
``external:PATH``             external:<file name>             JSONL of {id, score}
``module:function``           module:function                  f(references, candidates, lang)
============================  ===============================  ==============================

Library use::

    from lcl import metrics
    scores = metrics.score("codebleu", refs, cands, lang="python")
    m = metrics.get_metric("codebertscore", encoder="/models/codebert-python")
    scores = m.score(refs, cands, "python")
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypedDict, Unpack

import numpy as np

from lcl.core.errors import UserError

from .base import LANGS, Metric, MetricWarning
from .codebertscore_metric import CodeBERTScore
from .codebleu_metric import CodeBLEU
from .codescore_style import CodeScoreStyle, default_model_path
from .crystalbleu_metric import CrystalBLEU
from .local_trained import LocalTrained, model_dir
from .surface_metric import SurfaceSim

__all__ = [
    "LANGS",
    "METRIC_NAMES",
    "REGISTRY",
    "Metric",
    "MetricOptions",
    "MetricWarning",
    "get_metric",
    "label",
    "register",
    "score",
]


class MetricOptions(TypedDict, total=False):
    """The keyword options the registry's factories read (each takes the ones it needs; ``None``
    leaves a constructor's default)."""

    workers: int | None  # codebleu, surface_sim_tree, codebertscore
    k: int | None  # crystalbleu
    ignore: dict[tuple[str, ...], int] | None  # crystalbleu: a fixed ignore set
    crystalbleu_mode: str | None
    encoder: str | Path | None  # codebertscore
    num_layers: int | None
    component: str | None
    batch_size: int | None  # codebertscore, codescore_style, local_trained
    device: str | None
    codescore_model: str | Path | None
    allow_overlap: bool | None  # codescore_style, local_trained
    profile: str | None  # local_trained
    local_trained_model: str | Path | None


#: name -> factory(**options) -> Metric
REGISTRY: dict[str, Callable[..., Metric]] = {}


def register(name: str) -> Callable[[Callable[..., Metric]], Callable[..., Metric]]:
    """Decorator: make a metric factory available under ``name``."""

    def deco(factory: Callable[..., Metric]) -> Callable[..., Metric]:
        REGISTRY[name] = factory
        return factory

    return deco


def _pick(options: Mapping[str, object], *names: str) -> dict[str, Any]:
    """The constructor keywords among ``names`` that ``options`` sets (values of several types:
    the constructor's signature is their type)."""
    return {k: options[k] for k in names if options.get(k) is not None}


@register("surface_sim")
def _surface_sim(**options: Unpack[MetricOptions]) -> Metric:
    return SurfaceSim("paper")


@register("surface_sim_tree")
def _surface_sim_tree(**options: Unpack[MetricOptions]) -> Metric:
    return SurfaceSim("tree", **_pick(options, "workers"))


@register("codebleu")
def _codebleu(**options: Unpack[MetricOptions]) -> Metric:
    return CodeBLEU(**_pick(options, "workers"))


@register("crystalbleu")
def _crystalbleu(**options: Unpack[MetricOptions]) -> Metric:
    opts = _pick(options, "k", "ignore")
    if options.get("crystalbleu_mode"):
        opts["mode"] = options["crystalbleu_mode"]
    return CrystalBLEU(**opts)


@register("crystalbleu_corpus")
def _crystalbleu_corpus(**options: Unpack[MetricOptions]) -> Metric:
    return CrystalBLEU(mode="corpus", **_pick(options, "k", "ignore"))


@register("codebertscore")
def _codebertscore(**options: Unpack[MetricOptions]) -> Metric:
    opts = _pick(options, "encoder", "num_layers", "component", "batch_size", "device", "workers")
    return CodeBERTScore(**opts)


@register("codescore_style")
def _codescore_style(**options: Unpack[MetricOptions]) -> Metric:
    path = options.get("codescore_model") or os.environ.get("LCL_CODESCORE_MODEL") or default_model_path()
    if not path:
        raise UserError(
            "codescore_style needs a trained model: train one with "
            "'lcl codescore-train TRAIN.jsonl' (or lcl.engine.metrics.codescore_style.train), then pass "
            "--codescore-model DIR or set LCL_CODESCORE_MODEL"
        )
    return CodeScoreStyle(path, **_pick(options, "allow_overlap", "batch_size"))


@register("local_trained")
def _local_trained(**options: Unpack[MetricOptions]) -> Metric:
    path = model_dir(options.get("profile"), options.get("local_trained_model"))
    return LocalTrained(path, **_pick(options, "allow_overlap", "batch_size"))


METRIC_NAMES: tuple[str, ...] = tuple(REGISTRY)


def get_metric(name: str, **options: Unpack[MetricOptions]) -> Metric:
    """The metric called ``name`` (a registry name, ``external:PATH`` or ``module:function``)."""
    name = name.strip()
    if name in REGISTRY:
        return REGISTRY[name](**options)
    if name.startswith("external:"):
        from .external import ExternalScores

        return ExternalScores(name[len("external:") :])
    if ":" in name:
        from .external import FunctionMetric

        return FunctionMetric(name)
    raise UserError(
        f"unknown metric {name!r}; use one of {', '.join(REGISTRY)}, external:PATH (JSONL of id, score) "
        "or module:function"
    )


def label(name: str, **options: Unpack[MetricOptions]) -> str:
    """What tables, figures and file names call metric ``name`` (e.g. CodeBERTScore[MiniLM])."""
    static = {
        "surface_sim": "SurfaceSim",
        "surface_sim_tree": "SurfaceSim[tree]",
        "codebleu": "CodeBLEU",
        "crystalbleu": "CrystalBLEU",
        "crystalbleu_corpus": "CrystalBLEU[corpus]",
        "codescore_style": "CodeScore-style (retrained)",
        "local_trained": "LoCaL-trained[MiniLM]",
    }
    if name == "codebertscore" and not options.get("encoder"):
        return "CodeBERTScore[MiniLM]"
    if name == "crystalbleu" and options.get("crystalbleu_mode") == "corpus":
        return "CrystalBLEU[corpus]"
    if name in static:
        return static[name]
    if name.startswith("external:"):
        return f"external:{Path(name[9:]).stem}"
    return get_metric(name, **options).label


def score(
    metric: str | Metric,
    references: Sequence[str],
    candidates: Sequence[str],
    lang: str = "python",
    *,
    ids: Sequence[str] | None = None,
    cache: bool = True,
    **options: Unpack[MetricOptions],
) -> np.ndarray:
    """Score pairs with one metric: an array of floats in [0, 1], one per pair."""
    m = metric if isinstance(metric, Metric) else get_metric(metric, **options)
    return m.score(references, candidates, lang, ids=ids, cache=cache)
