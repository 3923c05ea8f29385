"""Steiger's (1980) test for two dependent, overlapping correlations.

Two models scored against the same gold: ``r_jk = corr(gold, A)`` and ``r_jh = corr(gold,
B)`` share the gold ``j``, and depend on each other through ``r_kh = corr(A, B)``. Steiger's
Z (1980, p. 247, eq. 14, with the pooled ``r̄`` of his "Z1*" and Fisher's z):

    Z = √(n − 3) (z_jk − z_jh) / √(2 − 2c),
    c = [r_kh (1 − 2r̄²) − ½ r̄² (1 − 2r̄² − r_kh²)] / (1 − r̄²)²,  r̄ = (r_jk + r_jh) / 2

(eq. 10 for ``c``, brackets around the divisor as cocor reads it). Wieting et al. (2015) mark a
model significantly better than another at p < 0.05 by the **one-tailed** test (§5.3, "the
one-tailed method of (Steiger, 1980)"; §6 says "the method of (Steiger, 1980)", read as the
same). Their correlations are Spearman's ρ, so the test is applied to rank correlations
(``method="spearman"``), ``r_kh`` included.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.stats import norm

from paracomp.eval.metrics import pearson, spearman

ALTERNATIVES = ("greater", "less", "two-sided")
CORRELATIONS = {"spearman": spearman, "pearson": pearson}


@dataclass(frozen=True)
class Comparison:
    """Correlations of models A and B with the gold, between them, and the test."""

    r_a: float
    r_b: float
    r_ab: float
    n: int
    z: float
    p: float


def steiger_z(r_jk: float, r_jh: float, r_kh: float, n: int) -> float:
    """Steiger's Z for ``r_jk`` vs ``r_jh`` (positive when ``r_jk`` is larger); 0 for two
    models that rank alike (``r_kh = 1``)."""
    if n <= 3:
        raise ValueError(f"need n > 3, got {n}")
    r_bar = (r_jk + r_jh) / 2
    sq = r_bar * r_bar
    c = (r_kh * (1 - 2 * sq) - 0.5 * sq * (1 - 2 * sq - r_kh * r_kh)) / (1 - sq) ** 2
    diff = math.atanh(r_jk) - math.atanh(r_jh)
    if c >= 1:  # r_kh = 1: the two models rank alike
        return 0.0 if diff == 0 else math.copysign(math.inf, diff)
    return math.sqrt(n - 3) * diff / math.sqrt(2 - 2 * c)


def p_value(z: float, alternative: str = "greater") -> float:
    """The p-value of a standard-normal ``z``: ``"greater"`` tests r_jk > r_jh (one-tailed)."""
    if alternative not in ALTERNATIVES:
        raise ValueError(f"alternative must be one of {ALTERNATIVES}, not {alternative!r}")
    if alternative == "greater":
        return float(norm.sf(z))
    if alternative == "less":
        return float(norm.cdf(z))
    return float(2 * norm.sf(abs(z)))


def compare(
    gold: np.ndarray,
    a: np.ndarray,
    b: np.ndarray,
    method: str = "spearman",
    alternative: str = "greater",
) -> Comparison:
    """Steiger's test of model ``a``'s correlation with ``gold`` against model ``b``'s."""
    corr = CORRELATIONS[method]
    r_a, r_b, r_ab = corr(gold, a), corr(gold, b), corr(a, b)
    z = steiger_z(r_a, r_b, r_ab, len(gold))
    return Comparison(r_a, r_b, r_ab, len(gold), z, p_value(z, alternative))
