"""The rewriter's driver (Section 3.3.2, Step I, offline): :func:`optimise` applies the
optimisation rewrites (those with a paper strategy) in a seeded order, then composes surface
rewrites while each lowers SurfaceSim (Eq. 1) to the reference, validating every step (it must
reparse, compile and keep the top-level signatures); :class:`Variant` is its result.
"""

from __future__ import annotations

import ast
import copy
import random
from dataclasses import dataclass, field

from lcl.core.errors import UserError

from .astutil import FUNC, dynamic, positional_only_callers, simple_params
from .context import STRATEGIES, Ctx, Rewrite
from .registry import LAST_RESORT_RULES, REWRITES
from .similarity import surface_similarity


@dataclass(frozen=True)
class Variant:
    """An optimised variant. ``strategies`` are the paper's labels of the optimisation rewrites
    applied (empty when only surface rewrites applied: the paper's "None"); ``rewrites`` are the
    concrete rewrite names in application order; ``similarity`` is SurfaceSim (Eq. 1, paper mode:
    see :func:`surface_similarity`) between ``original`` (``ast.unparse`` of the reference) and
    ``code``."""

    code: str
    original: str
    strategies: tuple[str, ...]
    rewrites: tuple[str, ...]
    similarity: float
    rejected: tuple[str, ...] = field(default=())  # rewrites whose output failed validation

    @property
    def changed(self) -> bool:
        return self.code != self.original

    @property
    def strategy_label(self) -> str:
        """The paper's strategy field: comma-separated labels, or ``"None"``."""
        return ", ".join(self.strategies) if self.strategies else "None"


def _signatures(tree: ast.Module, anonymous: frozenset[str] = frozenset()) -> dict[str, str]:
    """Top-level function signatures; for functions in ``anonymous`` (parameters renamable) only
    the shape counts, not the parameter names."""
    out = {}
    for n in tree.body:
        if isinstance(n, FUNC):
            args = n.args
            if n.name in anonymous:
                args = copy.deepcopy(args)
                for a in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]:
                    if a is not None:
                        a.arg = "_"
            out[n.name] = ast.dump(args)
    return out


def _validated(tree: ast.Module, required: dict[str, str],
               anonymous: frozenset[str] = frozenset()) -> str | None:
    try:
        ast.fix_missing_locations(tree)
        text = ast.unparse(tree)
        reparsed = ast.parse(text)
        compile(text, "<variant>", "exec", dont_inherit=True)
    except Exception:  # noqa: BLE001 - any failure means the rewrite is rejected
        return None
    sigs = _signatures(reparsed, anonymous)
    if any(sigs.get(name) != sig for name, sig in required.items()):
        return None
    return text


def optimise(code: str, *, entry_point: str | None = None, seed: int = 0, target_similarity: float = 0.0,
             max_steps: int = 120, allow_docstring_removal: bool = True) -> Variant:
    """Rewrite ``code`` into a (conservatively) semantics-preserving optimised variant.

    First every applicable optimisation rewrite (labelled with a paper strategy) is applied, in
    an order drawn from ``seed``; then surface rewrites are composed, each kept only if it lowers
    SurfaceSim (Eq. 1) to the original, until it is at most ``target_similarity``, no rewrite
    lowers it, or ``max_steps`` surface attempts were made (the default target, 0, means: as far as
    surface rewrites lower it; callers choose a target, e.g. from a distribution of real
    optimisations, never from a threshold that is then fitted on the variants). ``entry_point`` marks function-level
    code (its name and signature are kept, as are those of every top-level function); ``None``
    means a stdin program.
    """
    try:
        tree = ast.parse(code)
    except SyntaxError as exc:
        raise UserError(f"reference does not parse: {exc}") from exc
    original = ast.unparse(tree)
    tree = ast.parse(original)
    if entry_point is not None and entry_point not in _signatures(tree):
        raise UserError(f"entry point {entry_point!r} is not a top-level function of the reference")
    renamable = frozenset(
        () if dynamic(tree) else
        (n.name for n in tree.body if isinstance(n, ast.FunctionDef) and n.name != entry_point
         and simple_params(n) and positional_only_callers(tree, n.name)))
    required = _signatures(tree, renamable)
    rng = random.Random(seed)
    ctx = Ctx(tree, entry_point, rng, program=entry_point is None)
    ctx.renamable = renamable
    applied: list[Rewrite] = []
    rejected: list[str] = []
    cur_text = original
    steps = 0

    def attempt(rw: Rewrite) -> str | None:
        nonlocal steps
        steps += 1
        cand = ast.parse(cur_text)  # a fresh tree: much cheaper than copy.deepcopy
        try:
            if not rw.fn(cand, ctx):
                return None
        except (RecursionError, AssertionError, AttributeError, TypeError, ValueError, IndexError, KeyError):
            rejected.append(rw.name)
            return None
        text = _validated(cand, required, renamable)
        if text is None:
            rejected.append(rw.name)
        return text

    optimisations = [r for r in REWRITES if r.strategy is not None]
    rng.shuffle(optimisations)
    for _ in range(3):
        progress = False
        for rw in optimisations:
            got = attempt(rw)
            if got is not None and got != cur_text:
                cur_text = got
                applied.append(rw)
                progress = True
        if not progress:
            break
    sim = surface_similarity(original, cur_text)
    steps = 0  # max_steps bounds the surface phase only
    surface = [r for r in REWRITES if r.strategy is None]
    while sim > target_similarity and steps < max_steps:
        rng.shuffle(surface)
        progress = False
        for rw in surface:
            if sim <= target_similarity or steps >= max_steps:
                break
            if rw.name == "rename_locals" and rw in applied:
                continue  # renaming renamed names only uglifies them
            got = attempt(rw)
            if got is not None:
                new_sim = surface_similarity(original, got)
                if new_sim < sim:
                    cur_text = got
                    sim = new_sim
                    applied.append(rw)
                    progress = True
        if not progress:
            break
    for rw in LAST_RESORT_RULES if allow_docstring_removal else ():
        if sim <= target_similarity:
            break
        got = attempt(rw)
        if got is not None:
            cur_text = got
            sim = surface_similarity(original, cur_text)
            applied.append(rw)
    labels = {r.strategy for r in applied if r.strategy}
    return Variant(code=cur_text, original=original,
                   strategies=tuple(s for s in STRATEGIES if s in labels),
                   rewrites=tuple(r.name for r in applied), similarity=sim, rejected=tuple(rejected))
