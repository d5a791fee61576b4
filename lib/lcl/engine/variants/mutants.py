"""Mutants (SFD region): first-order mutants of a reference, generated with MutPy's operators.

MutPy (``mutpy-pynguin``, imported as ``mutpy``) is used purely as a mutant *generator*: its
operator classes walk the AST of the reference and yield one mutated tree per mutation site.
Nothing here runs MutPy's test runner and nothing here executes a mutant; mutants are untrusted
code that only ever runs inside the sandboxed fuzzing engine.

Every mutant is written with :func:`ast.unparse` (MutPy's own code generator mangles walrus,
f-string format specs and ``match``), and so is the original (:func:`normalise`), so layout and
comments do not enter surface similarity. Mutants are deduplicated by text, mutants identical to
the original are dropped, and every mutant is compile-checked; everything dropped is counted in
:class:`MutationStats`.
"""

from __future__ import annotations

import ast
import warnings
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from lcl.core.errors import UserError

__all__ = [
    "Mutant",
    "MutationResult",
    "MutationStats",
    "generate_mutants",
    "mutate",
    "normalise",
    "operator_names",
]


@dataclass(frozen=True)
class Mutant:
    """One first-order mutant: ``code`` (``ast.unparse`` text), the MutPy operator's short name
    (``AOR``, ``ROR``, ``CRP``, ...), the line of the mutated node in the *normalised* original
    (:func:`normalise`), its position ``index`` in the result list, and MutPy's visitor name
    (e.g. ``mutate_Mult_to_Div``) saying which replacement was made."""

    code: str
    operator: str
    lineno: int | None
    index: int
    visitor: str = ""


@dataclass
class MutationStats:
    """What was generated and what was dropped, and why. Nothing is dropped silently."""

    generated: int = 0  # mutants MutPy yielded
    kept: int = 0
    duplicates: int = 0  # same unparsed text as an earlier mutant
    identical_to_original: int = 0  # unparsed text equals the normalised original
    not_compiling: int = 0  # compile() rejected the unparsed mutant
    unparse_errors: int = 0  # ast.unparse failed on MutPy's tree
    truncated: int = 0  # valid, new mutants beyond max_mutants
    operator_errors: list[tuple[str, str]] = field(default_factory=list)  # (operator, error)
    per_operator: Counter = field(default_factory=Counter)  # kept mutants per operator

    @property
    def dropped(self) -> int:
        return (self.duplicates + self.identical_to_original + self.not_compiling
                + self.unparse_errors + self.truncated)

    def merge(self, other: MutationStats) -> None:
        for name in ("generated", "kept", "duplicates", "identical_to_original", "not_compiling",
                     "unparse_errors", "truncated"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.operator_errors.extend(other.operator_errors)
        self.per_operator.update(other.per_operator)

    def to_dict(self) -> dict[str, Any]:
        return {
            "generated": self.generated, "kept": self.kept, "duplicates": self.duplicates,
            "identical_to_original": self.identical_to_original,
            "not_compiling": self.not_compiling, "unparse_errors": self.unparse_errors,
            "truncated": self.truncated, "dropped": self.dropped,
            "operator_errors": [list(e) for e in self.operator_errors],
            "per_operator": dict(sorted(self.per_operator.items())),
        }


@dataclass(frozen=True)
class MutationResult:
    original: str  # the normalised (ast.unparse) original that mutants differ from
    mutants: list[Mutant]
    stats: MutationStats


def _all_operator_classes() -> dict[str, type]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from mutpy import operators as mp_ops
    classes = set(mp_ops.standard_operators) | set(mp_ops.experimental_operators)
    return {cls.name(): cls for cls in classes}


def operator_names() -> list[str]:
    """Short names of all standard and experimental MutPy operators, sorted."""
    return sorted(_all_operator_classes())


def _select_operators(operators: Iterable[str | type] | None) -> list[Any]:
    available = _all_operator_classes()
    chosen: list[Any]  # MutPy operator classes (an untyped library)
    if operators is None:
        chosen = list(available.values())
    else:
        chosen = []
        for op in operators:
            if isinstance(op, str):
                if op.upper() not in available:
                    raise UserError(f"unknown MutPy operator {op!r}; known: {', '.join(sorted(available))}")
                chosen.append(available[op.upper()])
            elif isinstance(op, type) and hasattr(op, "mutate") and hasattr(op, "name"):
                chosen.append(op)
            else:
                raise UserError(f"not a MutPy operator: {op!r}")
    unique = {cls.name(): cls for cls in chosen}
    return [unique[name] for name in sorted(unique)]


def normalise(code: str) -> str:
    """The original as the mutants are written: ``ast.unparse(ast.parse(code))``.

    Raises :class:`UserError` when ``code`` does not parse."""
    try:
        return ast.unparse(ast.parse(code))
    except SyntaxError as exc:
        raise UserError(f"reference does not parse: {exc}") from exc


def _mutpy_tree(code: str) -> ast.AST:
    from mutpy import utils as mp_utils  # adds the parent/children links MutPy's operators need
    return mp_utils.create_ast(code)


def mutate(code: str, *, operators: Iterable[str | type] | None = None,
           max_mutants: int | None = None) -> MutationResult:
    """All first-order mutants of ``code`` (function-level code or a stdin program).

    Order is deterministic: operators sorted by short name, then MutPy's AST traversal order.
    ``max_mutants`` keeps the first N valid mutants in that order (the rest are counted as
    ``truncated``). Mutants are never executed."""
    original = normalise(code)
    selected = _select_operators(operators)
    stats = MutationStats()
    seen: set[str] = set()
    mutants: list[Mutant] = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # MutPy touches ast.Num/ast.Str (deprecated aliases)
        for cls in selected:
            name = cls.name()
            tree = _mutpy_tree(original)  # fresh tree: MutPy mutates in place and restores
            try:
                for mutation, mutant_tree in cls().mutate(tree, to_mutate=None, sampler=None,
                                                          coverage_injector=None, module=None):
                    stats.generated += 1
                    try:
                        text = ast.unparse(mutant_tree)
                    except Exception:  # noqa: BLE001 - MutPy can build trees unparse rejects
                        stats.unparse_errors += 1
                        continue
                    if text == original:
                        stats.identical_to_original += 1
                        continue
                    if text in seen:
                        stats.duplicates += 1
                        continue
                    seen.add(text)
                    try:
                        compile(text, "<mutant>", "exec", dont_inherit=True)
                    except (SyntaxError, ValueError):
                        stats.not_compiling += 1
                        continue
                    if max_mutants is not None and len(mutants) >= max_mutants:
                        stats.truncated += 1
                        continue
                    node = getattr(mutation, "node", None)
                    lineno = getattr(node, "lineno", None)
                    mutants.append(Mutant(code=text, operator=name, lineno=lineno, index=len(mutants),
                                          visitor=str(getattr(mutation, "visitor", "") or "")))
                    stats.kept += 1
                    stats.per_operator[name] += 1
            except Exception as exc:  # noqa: BLE001 - one operator failing must not stop the rest
                stats.operator_errors.append((name, f"{type(exc).__name__}: {exc}"))
    return MutationResult(original=original, mutants=mutants, stats=stats)


def generate_mutants(code: str, *, operators: Iterable[str | type] | None = None,
                     max_mutants: int | None = None, stats: MutationStats | None = None) -> list[Mutant]:
    """List form of :func:`mutate`; pass ``stats`` to have the drop counts merged into it."""
    result = mutate(code, operators=operators, max_mutants=max_mutants)
    if stats is not None:
        stats.merge(result.stats)
    return result.mutants
