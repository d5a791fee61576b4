"""Metrics computed elsewhere: ``external:PATH`` (a JSONL of ``{id, score}``) and
``module:function`` (any importable ``function(references, candidates, lang)``).

External scores enter every table like any other metric. They are matched by pair id, so
``ids`` must be given (``lcl score`` passes each row's ``id``); a pair without a score gets
NaN and one warning names how many are missing. Scores must lie in [0, 1].
"""

from __future__ import annotations

import hashlib
import importlib
import inspect
import math
import os
import sys
import traceback
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from lcl.core.cache import file_digest
from lcl.core.errors import UserError
from lcl.core.io import read_user_jsonl

from .base import Metric, warn


class ExternalScores(Metric):
    cacheable = False  # reading the file is the cache
    chunk_size = 1 << 30

    def __init__(self, path: str | Path):
        self.path = Path(path)
        if not self.path.is_file():
            raise UserError(f"external scores file {self.path} does not exist (expected JSONL of {{id, score}})")
        self.name = f"external:{path}"
        self.label = f"external:{self.path.stem}"
        self.version = file_digest(self.path)[:16]
        self.scores: dict[str, float] = {}
        rows = read_user_jsonl(self.path)
        first: dict[str, int] = {}
        for lineno, row in enumerate(rows, 1):
            if not isinstance(row, dict):
                raise UserError(f"{self.path}: row {lineno} is not a JSON object {{id, score}}")
            if "id" not in row or "score" not in row:
                raise UserError(f"{self.path}: row {lineno} lacks 'id' or 'score'")
            v = row["score"]
            try:
                v = float(v) if v is not None else math.nan
            except (TypeError, ValueError) as exc:
                raise UserError(f"{self.path}: row {lineno} ({row['id']}): score {v!r} is not a number") from exc
            if not math.isnan(v) and not 0.0 <= v <= 1.0:
                raise UserError(f"{self.path}: row {lineno} ({row['id']}): score {v} outside [0, 1]")
            rid = str(row["id"])
            if rid in first:  # not "last one wins": a pair would silently get either score
                raise UserError(f"{self.path}: id {rid!r} appears twice (rows {first[rid]} and {lineno})")
            first[rid] = lineno
            self.scores[rid] = v

    def prepare(self, references: Sequence[str], candidates: Sequence[str], lang: str,
                ids: Sequence[str] | None = None) -> list[str]:
        if ids is None:
            raise UserError(f"{self.name}: external scores are matched by pair id; pass ids=")
        return list(ids)  # one chunk holds every pair (chunk_size, no cache): the chunk's ids

    def score_chunk(self, references: Sequence[str], candidates: Sequence[str], lang: str, state: Any) -> np.ndarray:
        return np.array([self.scores.get(str(i), math.nan) for i in state], dtype=float)

    def score(self, references, candidates, lang="python", *, ids=None, cache=True, progress=None):  # noqa: ANN001, ANN201
        out = super().score(references, candidates, lang, ids=ids, cache=False, progress=progress)
        missing = int(np.isnan(out).sum())
        if missing:
            warn(f"{self.name}: {missing} of {len(out)} pairs have no score in {self.path} (NaN)")
        return out


class FunctionMetric(Metric):
    """A third-party metric given as ``module:function``."""

    def __init__(self, spec: str):
        mod_name, _, fn_name = spec.partition(":")
        # the current folder is searched as `python -m` would: `lcl` is a console script, whose
        # sys.path starts at its own folder, yet a metric usually sits beside the user's data
        here = os.getcwd()
        if here not in sys.path:
            sys.path.insert(0, here)
        try:
            module = importlib.import_module(mod_name)
        except ImportError as exc:
            if exc.name and not (mod_name == exc.name or mod_name.startswith(exc.name + ".")):
                raise UserError(f"metric {spec!r}: module {mod_name!r} was found but{_where(exc)} it imports "
                                f"{exc.name!r}, which is not installed in this environment ({exc})") from exc
            raise UserError(f"metric {spec!r}: cannot import module {mod_name!r} ({exc}); it is looked up in the "
                            f"current folder ({here}) and on PYTHONPATH: run lcl from the folder above the module, "
                            "or add that folder to PYTHONPATH") from exc
        except Exception as exc:  # the module itself fails: say where, not a traceback
            raise UserError(f"metric {spec!r}: importing {mod_name!r} failed{_where(exc)}: "
                            f"{type(exc).__name__}: {exc}") from exc
        fn = getattr(module, fn_name, None)
        if not callable(fn):
            raise UserError(f"metric {spec!r}: {mod_name} has no function {fn_name!r}")
        self.fn = fn
        self.name = spec
        self.label = str(getattr(fn, "label", None) or getattr(module, "label", None) or spec)
        try:
            src = inspect.getsource(fn)
        except (OSError, TypeError):
            src = repr(fn)
        ver = (getattr(fn, "version", None) or getattr(module, "version", None)
               or getattr(module, "__version__", None) or "")
        self.version = f"{ver};{hashlib.sha256(src.encode()).hexdigest()[:16]}"
        # a metric may say which languages it scores (``languages = ("python",)`` on the function or
        # its module); undeclared, every language is passed through, as before, and ``declared_languages``
        # stays None so that a caller who needs a promise (Java sets) can tell the two apart
        declared = getattr(fn, "languages", None) or getattr(module, "languages", None)
        self.declared_languages: tuple[str, ...] | None = None
        if declared:
            names = (declared,) if isinstance(declared, str) else tuple(str(x) for x in declared)
            self.declared_languages = self.languages = names

    def score_chunk(self, references: Sequence[str], candidates: Sequence[str], lang: str, state: Any) -> np.ndarray:
        vals = np.asarray(list(self.fn(list(references), list(candidates), lang)), dtype=float)
        if vals.shape != (len(references),):
            raise UserError(f"metric {self.name!r} returned {vals.shape[0] if vals.ndim else 0} scores for {len(references)} pairs")
        return vals


def _where(exc: BaseException) -> str:
    """`` at FILE:LINE`` of the innermost frame that raised ``exc`` (a syntax error's own place)."""
    if isinstance(exc, SyntaxError) and exc.filename:
        return f" at {exc.filename}:{exc.lineno}"
    frames = traceback.extract_tb(exc.__traceback__)
    user = [f for f in frames if "importlib" not in f.filename]
    return f" at {user[-1].filename}:{user[-1].lineno}" if user else ""
