"""Spearman's ρ on Mitchell & Lapata's (2010) bigrams (Table 5, "ML" columns).

The mirror's ``ml2010-bigrams`` files (``bigram_{dev,test}.{jn,nn,vn}.txt``, read with
:func:`paracomp.paraphrase.ppdb.read_scored_pairs`) hold one line per participant rating: the
same 108 bigram pairs per type in both splits, 5 raters each in dev (540 lines) and 13 in test
(1,404), split by participant, the raters unnamed. ``aggregate="ratings"`` (default)
correlates the model's score, repeated on each line, with every individual rating, as
Mitchell & Lapata did and as Wang & Zong's code (the source of these files) computes
``spearmanr`` over all lines; ``"mean"`` correlates with each pair's mean rating (108 points).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from paracomp.eval.metrics import spearman

AGGREGATES = ("ratings", "mean")
TYPES = ("jn", "nn", "vn")


def item_means(
    s1: Sequence[str], s2: Sequence[str], ratings: Sequence[float]
) -> tuple[list[tuple[str, str]], np.ndarray]:
    """The distinct pairs in order of first appearance and their mean ratings."""
    sums: dict[tuple[str, str], list[float]] = {}
    for pair, rating in zip(zip(s1, s2, strict=True), ratings, strict=True):
        sums.setdefault(pair, []).append(float(rating))
    return list(sums), np.array([np.mean(r) for r in sums.values()])


def ml_spearman(
    s1: Sequence[str],
    s2: Sequence[str],
    ratings: Sequence[float],
    predicted: Sequence[float],
    aggregate: str = "ratings",
) -> float:
    """ρ between a model's scores (one per line, equal on the lines of one pair) and the
    ratings, over all lines or over the pairs' mean ratings."""
    if aggregate not in AGGREGATES:
        raise ValueError(f"aggregate must be one of {AGGREGATES}, not {aggregate!r}")
    if aggregate == "ratings":
        return spearman(np.asarray(predicted, dtype=np.float64), np.asarray(ratings))
    pairs, means = item_means(s1, s2, ratings)
    by_pair = dict(zip(zip(s1, s2, strict=True), predicted, strict=True))
    return spearman(np.array([by_pair[p] for p in pairs], dtype=np.float64), means)
