"""Steiger's (1980) test for dependent overlapping correlations, against published examples."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import spearmanr

from paracomp.eval.significance import compare, p_value, steiger_z


def test_steiger_1980_case_a() -> None:
    # Steiger (1980), Psychological Bulletin 87(2), p. 249, Case A: n = 103, r_jk = .4,
    # r_jh = .5, r_kh = .1. The paper prints Z = −.8913, having rounded the covariance to
    # .0042; the formula without rounding gives −.8887 (as R's cocor, whose tests note both).
    z = steiger_z(0.4, 0.5, 0.1, 103)
    assert z == pytest.approx(-0.8887185, abs=1e-7)
    assert z == pytest.approx(-0.8913, abs=0.003)


def test_depcor_example() -> None:
    # Silver, Hittner & May (2006), DEPCOR, Applied Psychological Measurement 30:152-153:
    # r_jk = .3, r_jh = .4, r_kh = .5, n = 100 -> Z = −1.0718, two-tailed p = .2838.
    z = steiger_z(0.3, 0.4, 0.5, 100)
    assert z == pytest.approx(-1.0718, abs=5e-5)
    assert p_value(z, "two-sided") == pytest.approx(0.2838, abs=5e-5)
    assert p_value(z, "less") == pytest.approx(0.1419, abs=5e-5)
    assert p_value(z, "greater") == pytest.approx(1 - 0.1419, abs=5e-5)


def test_compare_on_scores() -> None:
    rng = np.random.default_rng(0)
    gold = rng.normal(size=200)
    good = gold + rng.normal(scale=0.5, size=200)
    poor = gold + rng.normal(scale=2.0, size=200)
    result = compare(gold, good, poor)
    assert result.r_a == pytest.approx(spearmanr(gold, good)[0])
    assert result.r_ab == pytest.approx(spearmanr(good, poor)[0])
    assert result.z == pytest.approx(steiger_z(result.r_a, result.r_b, result.r_ab, 200))
    assert result.p < 0.05
    assert compare(gold, poor, good).p > 0.95  # one-tailed: the other way round
    assert compare(gold, good, good).z == 0.0 and steiger_z(0.5, 0.5, 1.0, 10) == 0.0
