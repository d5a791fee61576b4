"""Curation of LoCaL: which labelled candidates are LoCaL pairs (paper Section 3.3).

The paper says each LoCaL pair "is carefully curated to target either the SFD or DFS region"
without stating the rule. The authors' release shows it: in ``local_pairs_dev.jsonl`` every
mutant (MUT) has df_score below 0.5 (largest 0.4924) and every optimised variant (OP) has
df_score above 0.5 (smallest 0.537), in every benchmark. So a candidate is kept when its label
lies on its region's side of 0.5: a mutant must differ from the reference on most inputs
(SFD: different semantics), an optimised variant must agree on most of them (DFS: similar
semantics). :func:`release_evidence` recomputes those bounds from the release, and
:func:`boundary_consistent` checks that the rule separates it, so the notebook states the rule
with the numbers behind it.

``LoCaL`` (the reproduction) = candidates with ``in_local`` true; ``LoCaL-all`` = every
labelled candidate (the uncurated sensitivity set). Both live in one file,
``data/processed/local_pairs_<profile>.jsonl``, one filter apart.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Protocol

#: df_score boundary between the SFD side (mutants, below) and the DFS side (optimised, above)
DF_BOUNDARY = 0.5

#: dataset names used in tables: the curated reproduction and the uncurated sensitivity set
LOCAL = "LoCaL"
LOCAL_ALL = "LoCaL-all"
SUBSETS = {"local": LOCAL, "all": LOCAL_ALL}


class _Ledger(Protocol):
    def drop(self, kind: str, reason: str, n: int = 1) -> None: ...


def in_local(kind: str, df_score: float) -> bool:
    """True when a candidate of ``kind`` (MUT | OPT) with label ``df_score`` is a LoCaL pair."""
    if kind == "MUT":
        return df_score < DF_BOUNDARY
    if kind == "OPT":
        return df_score > DF_BOUNDARY
    raise ValueError(f"curation is defined for MUT and OPT candidates, not {kind!r}")


def drop_reason(kind: str) -> str:
    """The ledger's wording for a candidate that the curation leaves out of LoCaL."""
    if kind == "MUT":
        return f"not in LoCaL: df_score >= {DF_BOUNDARY} (a mutant that behaves mostly like the reference)"
    return f"not in LoCaL: df_score <= {DF_BOUNDARY} (an optimised variant that differs on most inputs)"


def curate(pairs: list[dict[str, Any]], ledger: _Ledger | None = None) -> list[dict[str, Any]]:
    """Set ``in_local`` on every labelled pair (in place; returns ``pairs``); each pair left out
    of LoCaL is counted in ``ledger`` under its kind. Pairs stay in the list: LoCaL-all."""
    for p in pairs:
        p["in_local"] = in_local(p["variant_type"], float(p["df_score"]))
        if not p["in_local"] and ledger is not None:
            ledger.drop(p["variant_type"], drop_reason(p["variant_type"]))
    return pairs


def select(pairs: Iterable[dict[str, Any]], subset: str = "local") -> list[dict[str, Any]]:
    """``subset`` 'local': the curated LoCaL pairs; 'all': every labelled candidate."""
    if subset not in SUBSETS:
        raise ValueError(f"subset must be one of {', '.join(SUBSETS)}, not {subset!r}")
    rows = list(pairs)
    if subset == "all":
        return rows
    missing = sum("in_local" not in p for p in rows)
    if missing:
        raise ValueError(f"{missing} pairs carry no 'in_local' flag: rebuild them with notebook 02_variants")
    return [p for p in rows if p["in_local"]]


# ---------------------------------------------------------------------------- evidence
def release_evidence(published: list[dict[str, Any]]) -> Any:
    """df_score per benchmark and kind in the authors' release (PUBLISHED pairs with a kind):
    count, min, max, mean and the count on each side of :data:`DF_BOUNDARY`."""
    import pandas as pd

    cols = ["benchmark", "kind", "pairs", "min df", "max df", "mean df", f"df < {DF_BOUNDARY}", f"df > {DF_BOUNDARY}"]
    rows = [p for p in published if p.get("published_kind") in ("MUT", "OPT")]
    if not rows:
        return pd.DataFrame(columns=cols)
    f = pd.DataFrame({"benchmark": [p["benchmark"] for p in rows], "kind": [p["published_kind"] for p in rows],
                      "df": [float(p["df_score"]) for p in rows]})
    out = []
    for keys, g in [*((k, g) for k, g in f.groupby(["benchmark", "kind"], sort=True)),
                    *((("all", k), g) for k, g in f.groupby("kind", sort=True))]:
        out.append({"benchmark": keys[0], "kind": keys[1], "pairs": len(g), "min df": round(g.df.min(), 4),
                    "max df": round(g.df.max(), 4), "mean df": round(g.df.mean(), 4),
                    f"df < {DF_BOUNDARY}": int((g.df < DF_BOUNDARY).sum()),
                    f"df > {DF_BOUNDARY}": int((g.df > DF_BOUNDARY).sum())})
    return pd.DataFrame(out, columns=cols)


def boundary_consistent(evidence: Any) -> bool | None:
    """Whether :data:`DF_BOUNDARY` separates the release: every MUT below it and every OPT
    above it (``None`` without evidence, e.g. when the data mirror is absent)."""
    if evidence is None or len(evidence) == 0:
        return None
    overall = evidence[evidence.benchmark == "all"].set_index("kind")
    ok = True
    if "MUT" in overall.index:
        ok &= bool(overall.loc["MUT", "max df"] < DF_BOUNDARY)
    if "OPT" in overall.index:
        ok &= bool(overall.loc["OPT", "min df"] > DF_BOUNDARY)
    return ok
