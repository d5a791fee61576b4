"""Steps 2-4 of the clone pipeline (:mod:`lcl.study.clones`): family candidates, their behaviour
fingerprints from the sandboxed fuzzing engine (probe on the largest inputs first), and the
clusters of candidates with identical fingerprints.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from lcl.core import seeds
from lcl.core.errors import UserError
from lcl.engine.fuzz import CodeSpec, Settings, compute_reference
from lcl.engine.fuzz.semantics import DIGEST_SIZE, EXC, OK

from .caps import Caps
from .domains import generate
from .extraction import Function
from .families import ENTRY, FAMILIES, FAMILY, Family, harness

if TYPE_CHECKING:
    from lcl.core.records import Ledger
    from lcl.engine.fuzz import ResultStore

#: probe: the largest inputs first, with a short per-input timeout (CPU seconds)
PROBE_INPUTS = 8
PROBE_TIMEOUT = 0.5
FINGERPRINT_TIMEOUT = 2.0


@dataclass
class Candidate:
    family: Family
    function: Function
    fingerprint: bytes | None = None

    @property
    def code(self) -> str:
        return harness(self.function.code, self.function.name, self.family.observe)


@dataclass
class Cluster:
    id: str
    family: Family
    members: list[Function] = field(default_factory=list)

    @property
    def packages(self) -> list[str]:
        return sorted({m.package for m in self.members})


def candidates(functions: list[Function], caps: Caps, seed: int, ledger: Ledger) -> list[Candidate]:
    """Family candidates (one per family and matching function), signature and import checks."""
    out: list[Candidate] = []
    families = [f for f in FAMILIES if caps.families is None or f.name in caps.families]
    matched: set[str] = set()
    for fam in families:
        members = [f for f in functions if fam.matches(f)]
        matched.update(f.qualname for f in members)
        ledger.generated["CLONE candidates (family x function)"] += len(members)
        ok = []
        for f in members:
            if f.problem:
                ledger.drop("CLONE candidate", f.problem.split(" (")[0])
            elif not f.accepts(fam.arity):
                ledger.drop("CLONE candidate", f"signature does not fit the family ({fam.arity} argument(s))")
            else:
                ok.append(f)
        if caps.functions_per_family is not None and len(ok) > caps.functions_per_family:
            k = caps.functions_per_family
            ledger.drop("CLONE candidate", f"over the per-family cap of the profile ({k}, seeded sample)", len(ok) - k)
            keep = sorted(seeds.rng(seed, "clones", fam.name).sample(range(len(ok)), k))
            ok = [ok[i] for i in keep]
        out += [Candidate(fam, f) for f in ok]
    ledger.drop("CLONE function", "in no candidate family (not a candidate)",
                sum(1 for f in functions if f.qualname not in matched))
    return out


def _settings(timeout: float) -> Settings:
    return Settings().with_(reference_timeout=timeout, watchdog_grace=0.2)


def fingerprint_all(cands: list[Candidate], n: int, seed: int, ledger: Ledger, store: ResultStore | None = None,
                    progress: bool = False) -> list[Candidate]:
    """Run every candidate on ``n`` inputs of its domain (probe first); keep those with a usable
    behaviour fingerprint. Reference outcomes are cached in the fuzz store's ``refs`` table."""
    own = store is None
    if store is None:
        from lcl.engine.fuzz import ResultStore

        store = ResultStore()
    refs = store.refs()
    inputs_by_domain: dict[str, list[Any]] = {}
    kept = []
    try:
        for i, c in enumerate(cands):
            if progress:
                print(f"\rfingerprints {i + 1}/{len(cands)}", end="", file=sys.stderr)
            dom = c.family.domain
            if dom not in inputs_by_domain:
                inputs_by_domain[dom] = generate(dom, seed, n)
            items = inputs_by_domain[dom]
            spec = CodeSpec("function", c.code, ENTRY, "reference.py")
            probe = sorted(items, key=lambda x: -len(repr(x)))[:PROBE_INPUTS]
            try:
                pr = compute_reference(spec, probe, _settings(PROBE_TIMEOUT), ref_cache=refs)
                if any(k not in (OK, EXC) for k in pr.kinds):
                    ledger.drop("CLONE candidate", "times out or crashes on the probe (largest) inputs")
                    continue
                res = compute_reference(spec, items, _settings(FINGERPRINT_TIMEOUT), ref_cache=refs)
            except UserError:
                ledger.drop("CLONE candidate", "cannot be loaded in the sandbox")
                continue
            kinds = bytes(res.kinds)
            if any(k not in (OK, EXC) for k in kinds):
                ledger.drop("CLONE candidate", "times out or crashes on some domain inputs")
                continue
            ok = [i for i, k in enumerate(kinds) if k == OK]
            if 2 * len(ok) < len(kinds):
                ledger.drop("CLONE candidate", "raises on more than half of the domain inputs")
                continue
            if len({res.digest(i) for i in ok}) <= 1 and len(kinds) > 1:
                ledger.drop("CLONE candidate", "same output on every input (uninformative)")
                continue
            assert len(res.digests) == DIGEST_SIZE * len(kinds)
            c.fingerprint = kinds + bytes(res.digests)
            kept.append(c)
    finally:
        if progress:
            print(file=sys.stderr)
        if own:
            store.close()
    return kept


def cluster(cands: list[Candidate], ledger: Ledger) -> list[Cluster]:
    """Candidates of a family with identical fingerprints; singletons are counted and dropped."""
    groups: dict[tuple[str, bytes], list[Function]] = {}
    for c in cands:
        assert c.fingerprint is not None
        groups.setdefault((c.family.name, c.fingerprint), []).append(c.function)
    out: list[Cluster] = []
    by_family: dict[str, list[list[Function]]] = {}
    for (fam, _), members in groups.items():
        if len(members) < 2:
            ledger.drop("CLONE candidate", "no equivalent implementation among the candidates (singleton)")
            continue
        by_family.setdefault(fam, []).append(sorted(members, key=lambda f: f.qualname))
    for fam in FAMILY:
        ms = sorted(by_family.get(fam, []), key=lambda m: (-len(m), m[0].qualname))
        for k, members in enumerate(ms, 1):
            out.append(Cluster(f"{fam}#{k}", FAMILY[fam], members))
    return out
