"""Step 5 of the clone pipeline (:mod:`lcl.clones`): capped, seeded within-cluster pairs, their
labels by Algorithm 1 on fresh domain inputs, SurfaceSim (Eq. 1), the whole pipeline for a
profile (:func:`build`), and the per-cluster table and counts the notebook reports.
"""

from __future__ import annotations

import itertools
from collections import Counter
from typing import Any

import pandas as pd

from .. import seeds
from ..labelling import algorithm1_settings, fuzz_labels
from ..records import Outcome, df_band, result_outcome
from ..similarity import surface_sim
from ..sources import load_manifest
from .caps import Caps, caps_for
from .clustering import Cluster, candidates, cluster, fingerprint_all
from .domains import DomainGenerator
from .extraction import PACKAGES, extract
from .families import ENTRY, harness


def _licences() -> dict[str, dict[str, Any]]:
    return {s.name: {"licence": s.licence, "registry": s.registry, "upstream": s.upstream}
            for s in load_manifest() if s.name in PACKAGES}


def pair_rows(clusters: list[Cluster], caps: Caps, seed: int, ledger: Any) -> list[dict[str, Any]]:
    """Within-cluster pairs (capped, seeded), not yet labelled."""
    lic = _licences()
    rows = []
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
            row = {
                "id": f"CLONE_{cl.id.replace('#', '_')}_{k}", "benchmark": "Clones", "task": f"Clones/{cl.id}",
                "level": "function", "variant_type": "CLONE", "cluster": cl.id, "family": fam.name,
                "domain": fam.domain, "observe": fam.observe, "generator": "human",
                "reference": a.code, "variant": b.code, "entry_point": a.name,
                "cross_package": a.package != b.package,
            }
            for side, f in (("reference", a), ("variant", b)):
                info = lic.get(f.package, {})
                row.update({f"{side}_package": f.package, f"{side}_module": f.module, f"{side}_function": f.name,
                            f"{side}_licence": info.get("licence"), f"{side}_registry": info.get("registry")})
            rows.append(row)
    return rows


def resolve_clone(row: dict[str, Any]) -> dict[str, Any] | None:
    """Resolver for :func:`lcl.fuzz.run_batch` (``resolvers=[...]``): clone rows carry their input domain."""
    if not str(row.get("id", "")).startswith("CLONE_") or "clone_domain" not in row:
        return None
    return {"entry": ENTRY, "generator": DomainGenerator(row["clone_domain"])}


def label(rows: list[dict[str, Any]], profile: Any, seed: int, jobs: int, progress: bool = True) -> list[dict[str, Any]]:
    """Algorithm 1 for every clone pair: R runs of N fresh domain inputs (profile settings)."""
    if not rows:
        return []
    settings = algorithm1_settings(profile.fuzz_runs, profile.fuzz_inputs_function)
    batch = [{"id": r["id"], "golden_code": harness(r["reference"], r["reference_function"], r["observe"]),
              "generated_code": harness(r["variant"], r["variant_function"], r["observe"]),
              "clone_domain": r["domain"]} for r in rows]
    return fuzz_labels(batch, settings, seed=seed, jobs=jobs, progress=progress, resolver=resolve_clone)


def assemble(rows: list[dict[str, Any]], results: list[dict[str, Any]], ledger: Any) -> list[dict[str, Any]]:
    """Attach labels and SurfaceSim (of the plain units); discard unconfirmed pairs (counted)."""
    by_id = {r["id"]: r for r in results}
    out = []
    for row in rows:
        res = by_id.get(row["id"], {})
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
                    "surface_sim": surface_sim(row["reference"], row["variant"], mode="paper")})
    return out


def build(profile: Any, seed: int, jobs: int, ledger: Any, progress: bool = True) -> tuple[list[dict[str, Any]], list[Cluster]]:
    """The whole pipeline for a profile: (labelled CLONE pairs, clusters)."""
    caps = caps_for(profile.name)
    functions = extract(ledger=ledger)
    cands = candidates(functions, caps, seed, ledger)
    kept = fingerprint_all(cands, profile.fuzz_inputs_function, seed, ledger, progress=progress)
    clusters = cluster(kept, ledger)
    rows = pair_rows(clusters, caps, seed, ledger)
    results = label(rows, profile, seed, jobs, progress=progress)
    return assemble(rows, results, ledger), clusters


def cluster_table(clusters: list[Cluster], pairs: list[dict[str, Any]]) -> Any:
    """One row per cluster: functions, emitted pairs, mean SurfaceSim and df_score."""
    by: dict[str, list[dict[str, Any]]] = {}
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
            "mean df_score": round(sum(p["df_score"] for p in ps) / len(ps), 3) if ps else None,
            "members": "; ".join(m.qualname for m in cl.members),
        })
    return pd.DataFrame(rows, columns=["cluster", "family", "domain", "functions", "packages", "pairs",
                                       "mean SurfaceSim", "mean df_score", "members"])


def summary(clusters: list[Cluster], pairs: list[dict[str, Any]]) -> dict[str, Any]:
    """Counts for the notebook's text: clusters, distinct functions in them, pairs, means."""
    fs = {m.qualname for c in clusters for m in c.members}
    return {"clusters": len(clusters), "functions": len(fs), "pairs": len(pairs),
            "mean_surface_sim": (sum(p["surface_sim"] for p in pairs) / len(pairs)) if pairs else None,
            "mean_df_score": (sum(p["df_score"] for p in pairs) / len(pairs)) if pairs else None,
            "cross_package_pairs": sum(1 for p in pairs if p.get("cross_package")),
            "families": dict(Counter(c.family.name for c in clusters))}
