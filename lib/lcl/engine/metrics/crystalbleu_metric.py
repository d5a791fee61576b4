"""CrystalBLEU (Eghbali & Pradel 2022) via ``crystalbleu==0.2`` on Pygments tokens.

Tokens: the Pygments lexer's token texts for the language, whitespace-only tokens dropped
(comments kept, as the lexer emits them). The *ignore set* is the k = 50 (the paper's k)
most frequent 1- to 4-grams, counted n by n over the documents of a corpus. Score:
``crystalbleu.sentence_bleu([ref], cand, ignoring=ignore_set)`` (uniform 4-gram weights, no
smoothing, so a pair without a surviving 4-gram match scores 0).

Modes:

``paper`` (default: the reproduction)
    the authors' wrapper: the ignore set is recomputed from the batch passed in, and they
    passed one pair at a time, so it comes from that pair's reference and candidate. With
    k = 50 this removes most of what two short programs share; it is why the paper's
    CrystalBLEU is so often 0. Reproduces ``author_scores.crystalbleu`` (rounded to 2
    decimals there) within 0.01 for 99.3% of the published pairs. Label ``CrystalBLEU``.
``corpus`` (sensitivity)
    the ignore set comes from all references and candidates being scored together (for
    ``lcl score``: the whole input file, per language), as CrystalBLEU's own authors
    intended it. Cache keys include its digest. Label ``CrystalBLEU[corpus]``.
"""

from __future__ import annotations

import functools
import hashlib
import json
import warnings
from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np

from .base import Metric, MetricConfig

K = 50
VERSION = "crystalbleu==0.2;pygments;k-ngrams-1-4;v1"


@functools.lru_cache(maxsize=4)
def _lexer(lang: str):  # noqa: ANN202
    from pygments.lexers import JavaLexer, PythonLexer

    return JavaLexer() if lang == "java" else PythonLexer()


@functools.lru_cache(maxsize=32768)
def _tokens(code: str, lang: str) -> tuple[str, ...]:
    from pygments import lex

    return tuple(v for _, v in lex(code, _lexer(lang)) if v.strip())


def tokenize(code: str, lang: str = "python") -> list[str]:
    """Pygments token texts, whitespace-only tokens dropped (memoised)."""
    return list(_tokens(code, lang))


def ignore_set(docs: Sequence[Sequence[str]], k: int = K) -> dict[tuple[str, ...], int]:
    """The k most frequent 1-4-grams over ``docs`` (counted for n = 1..4, each over all docs)."""
    counts: Counter[tuple[str, ...]] = Counter()
    for n in range(1, 5):
        for doc in docs:
            counts.update(zip(*(doc[i:] for i in range(n))))  # = nltk.util.ngrams(doc, n)
    return dict(counts.most_common(k))


def _digest(ignore: dict[tuple[str, ...], int]) -> str:
    return hashlib.sha256(json.dumps(sorted(ignore), ensure_ascii=False).encode()).hexdigest()


def _bleu(ref: list[str], cand: list[str], ignore: dict[tuple[str, ...], int]) -> float:
    from crystalbleu import sentence_bleu

    if not ref or not cand:
        return 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # nltk-style "0 counts of n-gram overlaps" warnings
        try:
            return float(sentence_bleu([ref], cand, ignoring=ignore))
        except ZeroDivisionError:
            return 0.0


class CrystalBLEU(Metric):
    name = "crystalbleu"
    version = VERSION
    chunk_size = 1024

    def __init__(self, mode: str = "paper", k: int = K, ignore: dict[tuple[str, ...], int] | None = None):
        if mode not in ("corpus", "paper"):
            raise ValueError("CrystalBLEU mode must be 'corpus' or 'paper'")
        if mode == "paper" and ignore is not None:
            # a fixed ignore set replaces the corpus one; paper mode derives its own per pair
            raise ValueError("a fixed CrystalBLEU ignore set needs mode='corpus'")
        self.mode, self.k, self.fixed_ignore = mode, k, ignore
        self.label = "CrystalBLEU" if mode == "paper" else "CrystalBLEU[corpus]"

    def prepare(self, references: Sequence[str], candidates: Sequence[str], lang: str,
                ids: Sequence[str] | None = None) -> dict[tuple[str, ...], int] | None:
        if self.mode == "paper":
            return None
        if self.fixed_ignore is not None:
            ignore = self.fixed_ignore
        else:
            docs = [tokenize(c, lang) for c in (*references, *candidates)]
            ignore = ignore_set(docs, self.k)
        return ignore

    def config(self, state: Any) -> MetricConfig:
        cfg: MetricConfig = {"mode": self.mode, "k": self.k}
        if state is not None:
            cfg["ignore"] = _digest(state)
        return cfg

    def score_chunk(self, references: Sequence[str], candidates: Sequence[str], lang: str, state: Any) -> np.ndarray:
        out = []
        for r, c in zip(references, candidates, strict=True):
            rt, ct = tokenize(r, lang), tokenize(c, lang)
            ignore = ignore_set([rt, ct], self.k) if self.mode == "paper" else state
            out.append(_bleu(rt, ct, ignore))
        return np.array(out)
