"""The second generation backend: a spec compiled to a Hypothesis strategy.

The strategy drives the very decoder of :mod:`lcl.engine.inputs.generate` with Hypothesis draws
(:class:`DrawSource`), so both backends accept the same specs and produce only valid
inputs, and Hypothesis can still shrink towards simple inputs.
"""

from __future__ import annotations

from hypothesis import strategies as st

from .generate import Input, decode
from .spec import Spec


class DrawSource:
    """Choices drawn from a Hypothesis ``data`` object."""

    def __init__(self, draw: st.DrawFn) -> None:
        self.draw = draw

    def int_in(self, lo: int, hi: int) -> int:
        return lo if hi <= lo else self.draw(st.integers(lo, hi))

    def float_in(self, lo: float, hi: float) -> float:
        return lo if hi <= lo else self.draw(st.floats(lo, hi, allow_nan=False, allow_infinity=False))

    def boolean(self) -> bool:
        return self.draw(st.booleans())

    def probability(self) -> float:
        return self.draw(st.floats(0.0, 1.0))


def strategy(spec: Spec) -> st.SearchStrategy[Input]:
    """A Hypothesis strategy producing inputs that satisfy ``spec``."""

    @st.composite
    def _inputs(draw: st.DrawFn) -> Input:
        return decode(spec, DrawSource(draw))

    return _inputs()


def sample(spec: Spec, n: int, seed: int) -> list[Input]:
    """Up to ``n`` examples from the Hypothesis backend, deterministic for (spec, n, seed).

    Runs Hypothesis' generate phase only (no database, no shrinking); Hypothesis may stop
    early when the input space is small, so fewer than ``n`` examples can come back.
    """
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as hseed

    collected: list[Input] = []

    @hseed(seed)
    @settings(max_examples=n, database=None, phases=[Phase.generate], deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(strategy(spec))
    def _collect(x: Input) -> None:
        collected.append(x)

    _collect()
    return collected[:n]
