"""The one scoring interface every metric implements (see :mod:`lcl.engine.metrics`)."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Generator, Sequence
from typing import Any

import numpy as np

from lcl.core.errors import UserError

from ..similarity import node_types
from .cache import ScoreCache, pair_digest, score_key

LANGS = ("python", "java")

#: what :meth:`Metric.config` returns: the settings besides name/version that decide a score
#: (JSON-encoded into the cache key), e.g. ``{"mode": "paper", "k": 500}``
MetricConfig = dict[str, str | int | float | tuple[float, ...]]


class MetricWarning(UserWarning):
    """A pair got a defined fallback score (empty/unparsable code, missing external score)."""


def warn(msg: str) -> None:
    warnings.warn(msg, MetricWarning, stacklevel=3)


def warn_degenerate(name: str, refs: Sequence[str], cands: Sequence[str], lang: str) -> None:
    """One warning per batch naming how many candidates/references are empty or unparsable."""
    empty = sum(1 for c in cands if not c.strip()) + sum(1 for r in refs if not r.strip())
    bad = 0
    for code in (*refs, *cands):
        if code.strip() and node_types(code, lang) is None:
            bad += 1
    if empty:
        warn(f"{name}: {empty} empty code string(s); they get the metric's defined fallback score")
    if bad:
        warn(f"{name}: {bad} code string(s) do not parse as {lang}; they get the metric's defined fallback (docs/METRICS.md)")


class Metric:
    """Base class: ``score(references, candidates, lang) -> np.ndarray`` of floats in [0, 1].

    Subclasses set ``name`` (output field name), ``version`` (bump when results change),
    ``label`` (what tables and figures print) and implement :meth:`score_chunk`. Corpus-level
    state (e.g. CrystalBLEU's ignore set) comes from :meth:`prepare`; :meth:`config` is what
    besides name/version/pair decides a score (it is part of the cache key).
    """

    name: str = "metric"
    version: str = "1"
    label: str = "metric"
    languages: tuple[str, ...] = LANGS
    chunk_size: int = 256
    cacheable: bool = True

    # -- to implement -------------------------------------------------------------
    def prepare(self, references: Sequence[str], candidates: Sequence[str], lang: str,
                ids: Sequence[str] | None = None) -> object:
        """The state one :meth:`score` call's chunks share (``ids``: the pairs' ids, when given);
        opaque to this class, which hands it back to :meth:`config` and :meth:`score_chunk`
        (subclasses narrow the return type)."""
        return None

    def config(self, state: Any) -> MetricConfig | None:
        return None

    def score_chunk(self, references: Sequence[str], candidates: Sequence[str], lang: str, state: Any) -> np.ndarray:
        raise NotImplementedError

    def score_chunks(self, chunks: Sequence[tuple[list[str], list[str]]], lang: str,
                     state: Any) -> Generator[np.ndarray, None, None]:
        """:meth:`score_chunk` of each (references, candidates) chunk, in order, computed as they
        are asked for. A metric whose chunks are independent may compute them in parallel."""
        for refs, cands in chunks:
            yield self.score_chunk(refs, cands, lang, state)

    # -- the interface --------------------------------------------------------------
    def check_lang(self, lang: str) -> None:
        if lang not in self.languages:
            raise UserError(f"metric {self.name!r} supports {', '.join(self.languages)}, not {lang!r}")

    def score(
        self,
        references: Sequence[str],
        candidates: Sequence[str],
        lang: str = "python",
        *,
        ids: Sequence[str] | None = None,
        cache: ScoreCache | bool | None = True,
        progress: Callable[[int], None] | None = None,
    ) -> np.ndarray:
        """Score pairs; cached pairs are read back, the rest computed chunk by chunk.

        ``progress`` is called with the number of pairs finished after each chunk (and once
        for the cached ones).
        """
        references, candidates = list(references), list(candidates)
        if len(references) != len(candidates):
            raise ValueError(f"{self.name}: {len(references)} references but {len(candidates)} candidates")
        self.check_lang(lang)
        n = len(references)
        out = np.full(n, np.nan, dtype=float)
        if n == 0:
            return out
        state = self.prepare(references, candidates, lang, ids=list(ids) if ids is not None else None)
        store: ScoreCache | None
        own = False
        if cache is True and self.cacheable:
            store, own = ScoreCache(), True
        elif isinstance(cache, ScoreCache) and self.cacheable:
            store = cache
        else:
            store = None
        keys: list[str] = []
        todo = list(range(n))
        try:
            if store is not None:
                cfg = self.config(state)
                keys = [
                    score_key(self.name, self.version, cfg, lang, pair_digest(r, c))
                    for r, c in zip(references, candidates, strict=True)
                ]
                hit = store.get_many(set(keys))
                todo = []
                for i, k in enumerate(keys):
                    if k in hit:
                        out[i] = hit[k]
                    else:
                        todo.append(i)
                if progress and n - len(todo):
                    progress(n - len(todo))
            if todo:
                warn_degenerate(self.name, [references[i] for i in todo], [candidates[i] for i in todo], lang)
            chunks = [todo[start : start + self.chunk_size] for start in range(0, len(todo), self.chunk_size)]
            results = self.score_chunks(
                [([references[i] for i in idx], [candidates[i] for i in idx]) for idx in chunks], lang, state
            )
            try:
                for idx in chunks:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore", MetricWarning)
                        vals = np.asarray(next(results), dtype=float)
                    if vals.shape != (len(idx),):
                        raise RuntimeError(f"{self.name}: returned {vals.shape} scores for {len(idx)} pairs")
                    vals = _check_range(self.name, vals)
                    out[idx] = vals
                    if store is not None:
                        store.put_many({keys[i]: float(v) for i, v in zip(idx, vals, strict=True)})
                    if progress:
                        progress(len(idx))
            finally:
                results.close()  # a parallel metric stops the chunks still in flight
        finally:
            if own and store is not None:
                store.close()
        return out

    __call__ = score

    def describe(self) -> dict[str, str]:
        return {"name": self.name, "label": self.label, "version": self.version}


def _check_range(name: str, vals: np.ndarray) -> np.ndarray:
    finite = vals[~np.isnan(vals)]
    if finite.size and (finite.min() < -1e-9 or finite.max() > 1 + 1e-9):
        raise UserError(f"metric {name!r} returned scores outside [0, 1] (min {finite.min()}, max {finite.max()})")
    return np.clip(vals, 0.0, 1.0)
