"""Spearman's rho on Mitchell & Lapata's bigrams: every rating, or the pairs' means."""

from __future__ import annotations

import numpy as np
import pytest

from paracomp.eval.metrics import spearman
from paracomp.papers.wieting2015.ml2010 import item_means, ml_spearman
from paracomp.paraphrase.ppdb import read_scored_pairs


def test_by_hand() -> None:
    s1, s2 = ["a", "a", "b", "b", "c", "c"], ["x", "x", "y", "y", "z", "z"]
    ratings = [1, 3, 2, 6, 7, 5]  # means 2, 4, 6
    predicted = [0.1, 0.1, 0.5, 0.5, 0.3, 0.3]  # ranks of the pairs: 1, 3, 2
    assert ml_spearman(s1, s2, ratings, predicted, "mean") == pytest.approx(0.5)
    by_line = ml_spearman(s1, s2, ratings, predicted)
    assert by_line == pytest.approx(spearman(np.array(predicted), np.array(ratings)))
    pairs, means = item_means(s1, s2, ratings)
    assert pairs == [("a", "x"), ("b", "y"), ("c", "z")] and means.tolist() == [2, 4, 6]
    with pytest.raises(ValueError, match="aggregate"):
        ml_spearman(s1, s2, ratings, predicted, "median")


@pytest.mark.parametrize("kind", ["jn", "nn", "vn"])
def test_mirror_files(mirror_file, kind: str) -> None:
    dev = read_scored_pairs(mirror_file(f"ml2010-bigrams/bigram_dev.{kind}.txt"))
    test = read_scored_pairs(mirror_file(f"ml2010-bigrams/bigram_test.{kind}.txt"))
    for table, raters in ((dev, 5), (test, 13)):
        s1, s2 = table["s1"].to_pylist(), table["s2"].to_pylist()
        ratings = table["score"].to_numpy()
        pairs, means = item_means(s1, s2, ratings)
        assert len(pairs) == 108 and table.num_rows == 108 * raters
        # a "model" scoring each pair by its mean rating: perfect on means, not on lines,
        # where the raters disagree
        by_pair = dict(zip(pairs, means, strict=True))
        predicted = [by_pair[p] for p in zip(s1, s2, strict=True)]
        assert ml_spearman(s1, s2, ratings, predicted, "mean") == pytest.approx(1.0)
        assert 0.3 < ml_spearman(s1, s2, ratings, predicted) < 0.9
    # the same pairs in both splits (split by participant)
    assert set(zip(dev["s1"].to_pylist(), dev["s2"].to_pylist())) == set(
        zip(test["s1"].to_pylist(), test["s2"].to_pylist())
    )
