"""Correlation metrics, vectorised, with the same definitions as scipy.stats."""

from __future__ import annotations

import numpy as np
from scipy.stats import rankdata


def pearson(x: np.ndarray, y: np.ndarray) -> float:
    """Pearson's r; NaN when fewer than two points or a constant input."""
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    if x.shape != y.shape:
        raise ValueError(f"shape mismatch: {x.shape} vs {y.shape}")
    if x.size < 2:
        return float("nan")
    xc, yc = x - x.mean(), y - y.mean()
    denom = np.sqrt((xc @ xc) * (yc @ yc))
    return float(np.clip((xc @ yc) / denom, -1.0, 1.0)) if denom > 0 else float("nan")


def spearman(x: np.ndarray, y: np.ndarray) -> float:
    """Spearman's rho: Pearson's r of average ranks (ties share their mean rank)."""
    return pearson(rankdata(x), rankdata(y))
