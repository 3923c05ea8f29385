"""Aggregations of per-subset correlations into group rows (year averages, overall scores).

A group's members may be subsets (leaves) or other groups. Modes:

- ``mean``: unweighted mean of the members' values (so an overall row is a mean of year means);
- ``datasets-mean``: unweighted mean over the leaf subsets under the group;
- ``wmean``: mean over the leaf subsets weighted by their number of scored pairs;
- ``pooled``: one correlation over all pairs of the leaf subsets put together.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from paracomp.eval.metrics import pearson, spearman

MODES = ("mean", "datasets-mean", "wmean", "pooled")


@dataclass(frozen=True)
class Leaf:
    """One evaluated subset: its correlation, pair count and the pairs themselves."""

    value: float
    n: int
    gold: np.ndarray
    pred: np.ndarray


@dataclass(frozen=True)
class Group:
    members: tuple[Leaf | Group, ...]


def leaves(node: Leaf | Group) -> list[Leaf]:
    """All leaves under a node, depth first."""
    if isinstance(node, Leaf):
        return [node]
    return [leaf for member in node.members for leaf in leaves(member)]


def value(node: Leaf | Group, mode: str, metric: str = "pearson") -> float:
    """The aggregated value of ``node``; NaN if any leaf under it is NaN (missing data)."""
    if mode not in MODES:
        raise ValueError(f"unknown aggregation {mode!r}; expected one of {MODES}")
    if isinstance(node, Leaf):
        return node.value
    if mode == "mean":
        return _mean([value(m, mode, metric) for m in node.members])
    parts = leaves(node)
    if mode == "datasets-mean":
        return _mean([leaf.value for leaf in parts])
    if mode == "wmean":
        values = np.array([leaf.value for leaf in parts])
        weights = np.array([leaf.n for leaf in parts], dtype=np.float64)
        return float(values @ weights / weights.sum()) if weights.sum() > 0 else float("nan")
    if any(np.isnan(leaf.value) for leaf in parts):
        return float("nan")
    corr = pearson if metric == "pearson" else spearman
    return corr(np.concatenate([p.gold for p in parts]), np.concatenate([p.pred for p in parts]))


def _mean(values: Sequence[float]) -> float:
    return float(np.mean(values)) if values else float("nan")
