"""A toy code metric: the Jaccard similarity of the two programs' sets of word tokens.

It is the smallest thing with the interface every metric of the compendium has,
``score(references, candidates, lang) -> one score in [0, 1] per pair``, and it is surface-only
by design: it sees how code looks, not what it does, so LoCaL should catch it out.
"""

from __future__ import annotations

import re

version = "1"
label = "Token Jaccard (toy)"


def _tokens(code: str) -> set[str]:
    return set(re.findall(r"\w+", code))


def score(references: list[str], candidates: list[str], lang: str) -> list[float]:
    """Jaccard similarity of word-token sets, per pair (1.0 for two empty programs)."""
    out = []
    for ref, cand in zip(references, candidates, strict=True):
        a, b = _tokens(ref), _tokens(cand)
        out.append(len(a & b) / len(a | b) if a | b else 1.0)
    return out
