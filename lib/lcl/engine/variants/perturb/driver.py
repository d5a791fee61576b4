"""The registry of perturbations (:data:`PERTURBATIONS`, in the study's order) and the driver that
applies them to pair rows, each with an RNG from a stable hash of ``(seed, id, name)`` (study X2).
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from lcl.core.errors import UserError
from lcl.core.seeds import digest64

from .comments import misleading_comment
from .dead_code_insertion import dead_code
from .docstrings import reference_docstring
from .renaming import rename_identifiers
from .reordering import reorder_statements
from .source_text import Perturbation

#: The perturbations by short name, in the study's order.
PERTURBATIONS: dict[str, Perturbation] = {
    "misleading_comment": misleading_comment,
    "reference_docstring": reference_docstring,
    "rename_identifiers": rename_identifiers,
    "dead_code": dead_code,
    "reorder_statements": reorder_statements,
}


def apply_perturbation(name: str, candidate: str, reference: str, rng: random.Random) -> str | None:
    """Run the perturbation ``name``; ``None`` when it does not apply."""
    if name not in PERTURBATIONS:
        raise UserError(f"unknown perturbation {name!r}; known: {', '.join(PERTURBATIONS)}")
    return PERTURBATIONS[name](candidate, reference, rng)



# ----------------------------------------------------------------------------- driver

def pair_rng(seed: int, pair_id: str, name: str) -> random.Random:
    """An RNG per (seed, pair, perturbation) from a stable hash (Python's ``hash`` is salted)."""
    return random.Random(digest64(seed, pair_id, name, sep="\x1f"))


def perturb_pairs(rows: Iterable[Mapping[str, Any]], names: Sequence[str] | None = None, seed: int = 0, *,
                  side: str = "candidate") -> list[dict[str, Any]]:
    """Perturbed copies of pair rows (keys ``id``, ``reference``, ``candidate``; every other key
    is copied through).

    For each row and each perturbation in ``names`` (default: all, in :data:`PERTURBATIONS`
    order) that applies, the result has ``id = f"{id}~{name}"``, ``perturbation``, ``side``
    (``"candidate"``: the optimised variant is perturbed, the reference is the donor; or
    ``"reference"``: the other way round), ``parent_id`` and the perturbed code in place of that
    side's. Rows where a perturbation does not apply produce nothing for it. Study X2: every
    output row must be re-verified by differential fuzzing (Algorithm 1) before use.
    """
    if side not in ("candidate", "reference"):
        raise UserError(f"side must be 'candidate' or 'reference', not {side!r}")
    chosen = list(PERTURBATIONS) if names is None else list(names)
    unknown = [n for n in chosen if n not in PERTURBATIONS]
    if unknown:
        raise UserError(f"unknown perturbation(s) {', '.join(map(repr, unknown))}; known: {', '.join(PERTURBATIONS)}")
    other = "reference" if side == "candidate" else "candidate"
    out: list[dict[str, Any]] = []
    for row in rows:
        missing = [k for k in ("id", "reference", "candidate") if k not in row]
        if missing:
            raise UserError(f"pair row {row.get('id', '?')!r} lacks {', '.join(missing)}")
        for name in chosen:
            got = PERTURBATIONS[name](row[side], row[other], pair_rng(seed, str(row["id"]), name))
            if got is None:
                continue
            new = dict(row)
            new.update({"id": f"{row['id']}~{name}", "perturbation": name, "side": side, "parent_id": row["id"],
                        side: got})
            out.append(new)
    return out
