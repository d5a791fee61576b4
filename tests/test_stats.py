from __future__ import annotations

import numpy as np
import pytest

from lcl.engine import stats


def test_spearman_ci_contains_rho_and_is_deterministic():
    rng = np.random.default_rng(0)
    x = rng.random(200)
    y = x + rng.normal(0, 0.3, 200)
    c = stats.spearman(x, y, n_boot=300, seed=1)
    assert c.ci_low < c.rho < c.ci_high and c.p_value < 1e-10 and c.n == 200
    assert c == stats.spearman(x, y, n_boot=300, seed=1)
    assert stats.spearman(x, -y, n_boot=50).rho < 0


def test_shapiro_flags_non_normal():
    rng = np.random.default_rng(0)
    c = stats.spearman(rng.exponential(size=300), rng.random(300), n_boot=20)
    assert c.shapiro_p_x < 0.05


def test_distinguishability_and_mae():
    assert stats.distinguishability([0.5, 0.7], [0.2, 0.2]) == pytest.approx(3.0)
    assert stats.distinguishability([0.5], [0.0]) == float("inf")
    assert stats.mae([0.1, 0.9], [0.0, 1.0]) == pytest.approx(0.1)
    with pytest.raises(ValueError):
        stats.mae([], [])
