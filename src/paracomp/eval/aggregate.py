"""Aggregations of per-subset correlations into group rows (year averages, overall scores).

A group's members may be subsets (leaves) or other groups. Modes:

- ``mean``: unweighted mean of the members' values (so an overall row is a mean of year means);
- ``datasets-mean``: unweighted mean over the leaf subsets under the group;
- ``wmean``: mean over the leaf subsets weighted by their number of scored pairs;
- ``pooled``: one correlation over all pairs of the leaf subsets put together.

:func:`replicates` gives the same aggregate on every bootstrap resample
(:mod:`paracomp.eval.bootstrap`): each leaf resampled within its own test set, then aggregated
as the value is.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from paracomp.eval import bootstrap
from paracomp.eval.metrics import pearson, spearman

MODES = ("mean", "datasets-mean", "wmean", "pooled")


@dataclass(frozen=True)
class Leaf:
    """One evaluated subset: its correlation, pair count and the pairs themselves, and where
    they lie in their test set (``sample``, for :func:`replicates`)."""

    value: float
    n: int
    gold: np.ndarray
    pred: np.ndarray
    sample: bootstrap.Sample | None = None


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


def no_interval(node: Leaf | Group) -> str:
    """Why ``node`` gets no bootstrap interval ("" when it gets one)."""
    for leaf in leaves(node):
        if leaf.sample is None:
            return "no interval: the pairs' place in their test set is unknown"
        reason = bootstrap.too_few(leaf.n, leaf.sample.key)
        if reason:
            return reason
    return ""


def replicates(
    node: Leaf | Group, mode: str, metric: str, resampler: bootstrap.Resampler
) -> np.ndarray:
    """:func:`value` of ``node`` on each of the resampler's resamples, ``(B,)`` (every leaf
    needs its ``sample``: :func:`no_interval` says whether it has one)."""
    if isinstance(node, Leaf):
        if np.isnan(node.value):
            return np.full(resampler.resamples, np.nan)
        assert node.sample is not None
        return resampler.correlation(node.sample, metric, node.gold, node.pred)
    if mode == "mean":
        return np.mean([replicates(m, mode, metric, resampler) for m in node.members], axis=0)
    parts = leaves(node)
    if mode in ("datasets-mean", "wmean"):
        each = np.array([replicates(leaf, mode, metric, resampler) for leaf in parts])
        weights = np.array([leaf.n if mode == "wmean" else 1 for leaf in parts], np.float64)
        return weights @ each / weights.sum()
    if any(np.isnan(leaf.value) for leaf in parts):
        return np.full(resampler.resamples, np.nan)
    counts = np.hstack([resampler.counts(leaf.sample) for leaf in parts])  # type: ignore[arg-type]
    gold = np.concatenate([p.gold for p in parts])
    return bootstrap.CORRELATIONS[metric](counts, gold, np.concatenate([p.pred for p in parts]))
