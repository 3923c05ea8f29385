"""Test-set bootstrap: seeded, paired resamples of a test set and statistics over all of them.

Each test set (a subset of an evaluation set, named by its ``key``, e.g.
``sts2016/headlines/test``) of ``n`` pairs gets one ``B × n`` matrix of pair indices, drawn
from a generator seeded by ``(seed, crc32(key))``: the same matrix for every model and every
cell that reads that set (paired resampling: a difference of two models on one set is
resampled with the same pairs on both sides), and an independent one for every other set.
Statistics are computed on all ``B`` resamples at once from the matrix of counts (how often
each pair is drawn in each resample): a correlation is a weighted correlation with those
counts as weights, i.e. matrix products, never a loop over resamples. Spearman's ρ ranks each
resample's values anew (average ranks, ties and repeated draws sharing their mean rank, as
``scipy.stats.rankdata`` ranks the resampled array).

Intervals are **percentile** intervals (the 2.5th and 97.5th percentiles of the ``B``
replicates, linear interpolation: ``scipy.stats.bootstrap(method="percentile")``); a test set
of fewer than :data:`MIN_PAIRS` pairs gets none.
"""

from __future__ import annotations

import zlib
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np

from paracomp.timing import timed

RESAMPLES = 1000
SEED = 0
LEVEL = 0.95
MIN_PAIRS = 10
CACHE_BYTES = 256 * 2**20
"""Counts matrices kept for reuse (least recently used dropped first)."""


def generator(key: str, seed: int = SEED) -> np.random.Generator:
    """The generator of test set ``key``'s resamples: seeded by ``seed`` and the set's name."""
    return np.random.default_rng([seed, zlib.crc32(key.encode("utf-8"))])


@timed("bootstrap")
def indices(key: str, n: int, resamples: int = RESAMPLES, seed: int = SEED) -> np.ndarray:
    """The ``resamples × n`` pair indices of test set ``key`` (each row a resample drawn with
    replacement; the draw ``scipy.stats.bootstrap`` makes from the same generator)."""
    return generator(key, seed).integers(0, n, (resamples, n))


def counts_of(index: np.ndarray, n: int) -> np.ndarray:
    """How often each of ``n`` pairs is drawn in each resample (rows of ``index``), float64."""
    rows = index.shape[0]
    flat = (index + (np.arange(rows) * n)[:, None]).ravel()
    return np.bincount(flat, minlength=rows * n).reshape(rows, n).astype(np.float64)


@dataclass(frozen=True)
class Sample:
    """Where a cell's scored pairs lie in their test set: the set's ``key``, its ``size`` (all
    its pairs) and the ``positions`` of the scored ones (all of them unless some were dropped)."""

    key: str
    size: int
    positions: np.ndarray

    @classmethod
    def whole(cls, key: str, size: int) -> Sample:
        return cls(key, size, np.arange(size))


class Resampler:
    """The resample counts of every test set, drawn once per set and kept while they fit in
    :data:`CACHE_BYTES`."""

    def __init__(
        self, resamples: int = RESAMPLES, seed: int = SEED, cache_bytes: int = CACHE_BYTES
    ):
        if resamples < 2:
            raise ValueError(f"need at least 2 resamples, got {resamples}")
        self.resamples, self.seed, self.cache_bytes = resamples, seed, cache_bytes
        self._cache: OrderedDict[tuple[str, int], np.ndarray] = OrderedDict()
        self._done: dict[tuple, np.ndarray] = {}

    def correlation(
        self, sample: Sample, metric: str, gold: np.ndarray, pred: np.ndarray
    ) -> np.ndarray:
        """``metric`` (``pearson`` or ``spearman``) of the sample's pairs on every resample,
        computed once per sample and values (a subset read by several cells of a table)."""
        ident = (sample.key, sample.size, metric,
                 *(hash(np.ascontiguousarray(a).tobytes()) for a in (sample.positions, gold, pred)))  # fmt: skip
        found = self._done.get(ident)
        if found is None:
            found = self._done[ident] = CORRELATIONS[metric](self.counts(sample), gold, pred)
        return found

    def counts(self, sample: Sample) -> np.ndarray:
        """``resamples × len(positions)`` counts of the sample's scored pairs."""
        ident = (sample.key, sample.size)
        found = self._cache.get(ident)
        if found is None:
            found = counts_of(indices(*ident, self.resamples, self.seed), sample.size)
            self._cache[ident] = found
            while sum(c.nbytes for c in self._cache.values()) > self.cache_bytes:
                if len(self._cache) == 1:
                    break
                self._cache.popitem(last=False)
        self._cache.move_to_end(ident)
        if len(sample.positions) == sample.size:
            return found
        return found[:, sample.positions]


def _weighted_pearson(w: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Pearson's r of ``x`` and ``y`` weighted by each row of ``w`` (``B × n``): ``x`` of
    shape ``(n,)`` and ``y`` of ``(n,)`` or ``(n, m)`` (matrix products, ``m`` columns at
    once), or both ``B × n`` (values that differ per resample, e.g. ranks)."""
    if x.shape == w.shape:
        x = x - x.mean(axis=1, keepdims=True)
        y = y - y.mean(axis=1, keepdims=True)
        sums = [(w * v).sum(axis=1) for v in (np.ones_like(x), x, y, x * x, y * y, x * y)]
    else:  # one pass over w: a matrix product with the six columns (×m for y of (n, m))
        x = (x - x.mean()).reshape(-1, *([1] * (y.ndim - 1)))
        y = y - y.mean(axis=0)
        parts = np.broadcast_arrays(np.ones_like(x), x, y, x * x, y * y, x * y)
        stacked = np.stack([p.reshape(len(p), -1) for p in parts], axis=1)  # n × 6 × m
        sums = np.moveaxis((w @ stacked.reshape(len(stacked), -1)).reshape(len(w), 6, -1), 1, 0)
        sums = sums if y.ndim == 2 else sums[..., 0]
    total, sx, sy, sxx, syy, sxy = sums
    cov = sxy - sx * sy / total
    var = (sxx - sx * sx / total) * (syy - sy * sy / total)
    with np.errstate(invalid="ignore", divide="ignore"):
        r = np.where(var > 0, cov / np.sqrt(np.where(var > 0, var, 1.0)), np.nan)
    return np.clip(r, -1.0, 1.0)


def resampled_ranks(counts: np.ndarray, values: np.ndarray) -> np.ndarray:
    """``B × n`` average ranks of ``values`` in each resample (a pair drawn k times is k tied
    values; pairs not drawn get the rank they would share, and weight 0)."""
    order = np.argsort(values, kind="mergesort")
    ordered = values[order]
    first = np.r_[True, ordered[1:] != ordered[:-1]]
    group = np.cumsum(first) - 1
    per_group = np.add.reduceat(counts[:, order], np.flatnonzero(first), axis=1)
    below = np.cumsum(per_group, axis=1) - per_group
    ranks = np.empty_like(counts)
    ranks[:, order] = (below + 0.5 * (per_group + 1))[:, group]
    return ranks


@timed("bootstrap")
def pearson(counts: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Pearson's r on every resample: ``(B,)``, or ``B × m`` for ``y`` of shape ``(n, m)``."""
    return _weighted_pearson(counts, np.asarray(x, np.float64), np.asarray(y, np.float64))


@timed("bootstrap")
def spearman(counts: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Spearman's ρ on every resample, ``(B,)``: Pearson's r of each resample's ranks."""
    x, y = np.asarray(x, np.float64), np.asarray(y, np.float64)
    return _weighted_pearson(counts, resampled_ranks(counts, x), resampled_ranks(counts, y))


CORRELATIONS = {"pearson": pearson, "spearman": spearman}


@timed("bootstrap")
def mean(counts: np.ndarray, values: np.ndarray) -> np.ndarray:
    """The mean of ``values`` (e.g. 0/1 for an accuracy) on every resample, ``(B,)``."""
    return counts @ np.asarray(values, np.float64) / counts.sum(axis=1)


def interval(replicates: np.ndarray, level: float = LEVEL) -> tuple[float, float]:
    """The percentile interval of ``replicates`` (NaN ones left out; NaN if none is left)."""
    finite = replicates[np.isfinite(replicates)]
    if not len(finite):
        return float("nan"), float("nan")
    low, high = np.quantile(finite, [(1 - level) / 2, (1 + level) / 2])
    return float(low), float(high)


def too_few(n: int, what: str) -> str:
    """Why a test set of ``n`` pairs gets no interval ("" when it gets one)."""
    return f"no interval: {what} has {n} pairs (< {MIN_PAIRS})" if n < MIN_PAIRS else ""
