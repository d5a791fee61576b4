"""Step 5 of the clone pipeline (:mod:`lcl.study.clones`): capped, seeded within-cluster pairs, their
labels by Algorithm 1 on fresh domain inputs, SurfaceSim (Eq. 1), the whole pipeline for a
profile (:func:`build`), and the per-cluster table and counts the notebook reports.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Mapping
from typing import Any, TypedDict

import pandas as pd

from lcl.core import seeds
from lcl.core.profiles import Profile
from lcl.core.records import Ledger, Outcome, PairRow, df_band, df_of, result_outcome
from lcl.engine.fuzz.batch.jobs import ResolvedInputs
from lcl.engine.fuzz.semantics import FuzzResult
from lcl.engine.similarity import surface_sim

from ..labelling import algorithm1_settings, fuzz_labels
from ..sources import load_manifest
from .caps import Caps, caps_for
from .clustering import Cluster, candidates, cluster, fingerprint_all
from .domains import DomainGenerator
from .extraction import PACKAGES, extract
from .families import ENTRY, harness


def _licences() -> dict[str, dict[str, str | None]]:
    return {s.name: {"licence": s.licence, "registry": s.registry, "upstream": s.upstream}
            for s in load_manifest() if s.name in PACKAGES}


def pair_rows(clusters: list[Cluster], caps: Caps, seed: int, ledger: Ledger) -> list[PairRow]:
    """Within-cluster pairs (capped, seeded), not yet labelled."""
    lic = _licences()
    rows: list[PairRow] = []
    for cl in clusters:
        pairs = list(itertools.combinations(cl.members, 2))
        ledger.generated["CLONE candidate pairs"] += len(pairs)
        distinct = [(a, b) for a, b in pairs if a.code != b.code]
        ledger.drop("CLONE pair", "identical code (the same unit in two places)", len(pairs) - len(distinct))
        r = seeds.rng(seed, "clones", cl.id)
        if len(distinct) > caps.pairs_per_cluster:
            # cross-package pairs first (more independent authorship), each group in seeded order
            order = list(range(len(distinct)))
            r.shuffle(order)
            order.sort(key=lambda i: distinct[i][0].package == distinct[i][1].package)
            ledger.drop("CLONE pair", f"over the per-cluster cap ({caps.pairs_per_cluster}, seeded sample, "
                        "cross-package pairs first)", len(distinct) - caps.pairs_per_cluster)
            distinct = [distinct[i] for i in sorted(order[:caps.pairs_per_cluster])]
        for k, (a, b) in enumerate(distinct, 1):
            if r.random() < 0.5:
                a, b = b, a
            fam = cl.family
            row: PairRow = {
                "id": f"CLONE_{cl.id.replace('#', '_')}_{k}", "benchmark": "Clones", "task": f"Clones/{cl.id}",
                "level": "function", "variant_type": "CLONE", "cluster": cl.id, "family": fam.name,
                "domain": fam.domain, "observe": fam.observe, "generator": "human",
                "reference": a.code, "candidate": b.code, "entry_point": a.name,
                "cross_package": a.package != b.package,
            }
            ref, cand = lic.get(a.package, {}), lic.get(b.package, {})
            row.update({"reference_package": a.package, "reference_module": a.module, "reference_function": a.name,
                        "reference_licence": ref.get("licence"), "reference_registry": ref.get("registry"),
                        "variant_package": b.package, "variant_module": b.module, "variant_function": b.name,
                        "variant_licence": cand.get("licence"), "variant_registry": cand.get("registry")})
            rows.append(row)
    return rows


def resolve_clone(row: Mapping[str, Any]) -> ResolvedInputs | None:
    """Resolver for :func:`lcl.engine.fuzz.run_batch` (``resolvers=[...]``): clone rows carry their input domain."""
    if not str(row.get("id", "")).startswith("CLONE_") or "domain" not in row:
        return None
    return {"entry": ENTRY, "generator": DomainGenerator(row["domain"])}


def label_pairs(rows: list[PairRow], profile: Profile, seed: int, jobs: int, progress: bool = True) -> list[FuzzResult]:
    """Algorithm 1 for every clone pair: R runs of N fresh domain inputs (profile settings)."""
    if not rows:
        return []
    settings = algorithm1_settings(profile.fuzz_runs, profile.fuzz_inputs_function)
    batch: list[PairRow] = [{"id": r["id"], "reference": harness(r["reference"], r["reference_function"], r["observe"]),
                             "candidate": harness(r["candidate"], r["variant_function"], r["observe"]),
                             "domain": r["domain"]} for r in rows]
    return fuzz_labels(batch, settings, seed=seed, jobs=jobs, progress=progress, resolver=resolve_clone)


def assemble(rows: list[PairRow], results: list[FuzzResult], ledger: Ledger) -> list[PairRow]:
    """Attach labels and SurfaceSim (of the plain units); discard unconfirmed pairs (counted)."""
    by_id = {r["id"]: r for r in results}
    out: list[PairRow] = []
    for row in rows:
        res: FuzzResult = by_id.get(row["id"], {})
        df, what = res.get("df_score"), result_outcome(res)
        if what is Outcome.ERROR:
            ledger.drop("CLONE pair", "cannot be fuzzed (" + str(res.get("error", "no result"))[:60] + ")")
            continue
        if what is Outcome.NO_KEPT_RUN:
            ledger.drop("CLONE pair", "every run timed out (df_score = -1)")
            continue
        if df_band(df) != "1":
            ledger.drop("CLONE pair", "equivalence not confirmed on fresh inputs (df_score < 1): discarded")
            continue
        out.append({**row, "df_score": df, "run_scores": res.get("run_scores"), "counts": res.get("counts"),
                    "verdict_digest": res.get("verdict_digest"), "seeds": res.get("seeds"),
                    "spec": f"clone domain {row['domain']}",
                    "surface_sim": surface_sim(row["reference"], row["candidate"], mode="paper")})
    return out


def build(profile: Profile, seed: int, jobs: int, ledger: Ledger, progress: bool = True) -> tuple[list[PairRow], list[Cluster]]:
    """The whole pipeline for a profile: (labelled CLONE pairs, clusters)."""
    caps = caps_for(profile.name)
    functions = extract(ledger=ledger)
    cands = candidates(functions, caps, seed, ledger)
    kept = fingerprint_all(cands, profile.fuzz_inputs_function, seed, ledger, progress=progress)
    clusters = cluster(kept, ledger)
    rows = pair_rows(clusters, caps, seed, ledger)
    results = label_pairs(rows, profile, seed, jobs, progress=progress)
    return assemble(rows, results, ledger), clusters


def cluster_table(clusters: list[Cluster], pairs: list[PairRow]) -> pd.DataFrame:
    """One row per cluster: functions, emitted pairs, mean SurfaceSim and df_score."""
    by: dict[str, list[PairRow]] = {}
    for p in pairs:
        by.setdefault(p["cluster"], []).append(p)
    rows = []
    for cl in clusters:
        ps = by.get(cl.id, [])
        rows.append({
            "cluster": cl.id, "family": cl.family.name, "domain": cl.family.domain,
            "functions": len(cl.members), "packages": ", ".join(cl.packages),
            "pairs": len(ps),
            "mean SurfaceSim": round(sum(p["surface_sim"] for p in ps) / len(ps), 3) if ps else None,
            "mean df_score": round(sum(df_of(p) for p in ps) / len(ps), 3) if ps else None,
            "members": "; ".join(m.qualname for m in cl.members),
        })
    return pd.DataFrame(rows, columns=["cluster", "family", "domain", "functions", "packages", "pairs",
                                       "mean SurfaceSim", "mean df_score", "members"])


class CloneSummary(TypedDict):
    """The clone pipeline's counts for the notebook's text."""

    clusters: int
    functions: int
    pairs: int
    mean_surface_sim: float | None
    mean_df_score: float | None
    cross_package_pairs: int
    families: dict[str, int]


def summary(clusters: list[Cluster], pairs: list[PairRow]) -> CloneSummary:
    """Counts for the notebook's text: clusters, distinct functions in them, pairs, means."""
    fs = {m.qualname for c in clusters for m in c.members}
    return {"clusters": len(clusters), "functions": len(fs), "pairs": len(pairs),
            "mean_surface_sim": (sum(p["surface_sim"] for p in pairs) / len(pairs)) if pairs else None,
            "mean_df_score": (sum(df_of(p) for p in pairs) / len(pairs)) if pairs else None,
            "cross_package_pairs": sum(1 for p in pairs if p.get("cross_package")),
            "families": dict(Counter(c.family.name for c in clusters))}
