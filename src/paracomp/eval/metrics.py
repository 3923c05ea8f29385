"""Correlation metrics, vectorised, with the same definitions as scipy.stats (numpy only:
``scipy.stats`` takes most of a second to import, which every evaluation, table and tuning
command paid for its ``rankdata``)."""

from __future__ import annotations

import numpy as np


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


def average_ranks(values: np.ndarray) -> np.ndarray:
    """``scipy.stats.rankdata(values)`` (``method="average"``, flattened): 1-based ranks, ties
    sharing their mean rank; all NaN where any value is NaN."""
    values = np.asarray(values).ravel()
    if values.dtype.kind == "f" and np.isnan(values).any():
        return np.full(values.size, np.nan)
    order = np.argsort(values, kind="mergesort")
    ordered = values[order]
    first = np.r_[True, ordered[1:] != ordered[:-1]] if values.size else np.zeros(0, bool)
    group = np.cumsum(first) - 1
    bounds = np.r_[np.flatnonzero(first), values.size]  # where each tie group starts, then n
    ranks = np.empty(values.size)
    ranks[order] = (0.5 * (bounds[:-1] + bounds[1:] + 1))[group]
    return ranks


def spearman(x: np.ndarray, y: np.ndarray) -> float:
    """Spearman's rho: Pearson's r of average ranks (ties share their mean rank)."""
    return pearson(average_ranks(x), average_ranks(y))
