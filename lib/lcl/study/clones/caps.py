"""How much clone work each profile does: families, candidates per family and pairs per cluster
(:class:`Caps`, keyed by profile name).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Caps:
    """How much clone work a profile does (module-level, keyed by profile name)."""

    families: tuple[str, ...] | None = None  # None = every family
    functions_per_family: int | None = None  # candidates kept per family (seeded sample); None = all
    pairs_per_cluster: int = 10  # emitted pairs per cluster (seeded sample)


CAPS: dict[str, Caps] = {
    "full": Caps(None, None, 10),
    "quick": Caps(None, None, 3),
    "smoke": Caps(("sort", "search", "gcd"), 6, 2),
}


def caps_for(profile: str) -> Caps:
    return CAPS.get(profile, CAPS["full"])
