"""Tables 7 and 9: error by gold range, change of error by length and overlap ratio."""

from __future__ import annotations

import numpy as np
import pytest

from paracomp.papers.wieting2015.errors import (
    LENGTH_BINS,
    OVERLAP_BINS,
    bin_index,
    error_by_gold_range,
    error_change,
    to_gold_scale,
)
from paracomp.papers.wieting2015.overlap import length_ratio
from paracomp.paraphrase.ppdb import read_scored_pairs


def test_to_gold_scale() -> None:
    np.testing.assert_allclose(to_gold_scale([-1.0, 0.0, 1.0, -0.05]), [1.0, 3.0, 5.0, 2.9])
    np.testing.assert_allclose(to_gold_scale([0.2, 0.4, 0.6], "minmax"), [1.0, 3.0, 5.0])
    with pytest.raises(ValueError, match="mapping"):
        to_gold_scale([0.0], "sigmoid")


def test_error_by_gold_range() -> None:
    gold = np.array([1.0, 1.8, 2.0, 4.0, 5.0])
    predicted = np.array([2.0, 1.0, 3.5, 4.5, 4.0])
    # [1,2): |1|, |0.8| -> 0.9; [2,3): 1.5; [3,4): none; [4,5]: 0.5, 1 -> 0.75
    means = error_by_gold_range(gold, predicted)
    assert means[0] == pytest.approx(0.9) and means[1] == pytest.approx(1.5)
    assert means[2] is None and means[3] == pytest.approx(0.75)


def test_bins_are_closed_on_the_right() -> None:
    ratios = [0.0, 0.4, 0.6, 0.61, 0.8, 1.0, 1.5]
    assert bin_index(ratios, LENGTH_BINS).tolist() == [0, 0, 0, 1, 1, 2, -1]
    assert bin_index([1 / 3, 2 / 6, 0.34, 2 / 3, 4 / 6, 1.0], OVERLAP_BINS).tolist() == [
        0,
        0,
        1,
        1,
        1,
        2,
    ]


def test_error_change_by_hand() -> None:
    gold = np.array([4.5, 4.8, 1.5, 1.2, 3.0, 4.2])
    additive = np.array([4.0, 3.8, 2.5, 1.2, 3.0, 4.2])
    rnn = np.array([4.5, 4.3, 2.0, 2.2, 0.0, 3.2])
    ratios = np.array([0.5, 0.7, 0.5, 0.9, 0.5, 0.9])
    table = error_change(gold, additive, rnn, ratios, LENGTH_BINS)
    # gold 3.0 is neither positive nor negative and is left out.
    # positive, bin 0: add |0.5| rnn 0 -> −100 %; bin 1: add 1.0 rnn 0.5 -> −50 %;
    # bin 2: add 0 (gold 4.2 exact) -> undefined
    assert table["positive"] == [pytest.approx(-100.0), pytest.approx(-50.0), None]
    # negative, bin 0: add 1.0 rnn 0.5 -> −50 %; bin 2: add 0 -> undefined
    assert table["negative"] == [pytest.approx(-50.0), None, None]
    # both, bin 0: add mean(0.5, 1.0) = .75, rnn mean(0, .5) = .25 -> −66.7 %;
    # bin 2: add mean(0, 0) -> undefined
    assert table["both"][0] == pytest.approx(-200 / 3) and table["both"][2] is None


def test_one_length_outlier_in_the_test_split(mirror_file) -> None:
    # Footnote 14: the length ratios range over [0.4, 1] "with one outlier data point
    # removed". Among the positive (> 4) and negative (< 2) pairs of the test split exactly
    # one pair lies below 0.4, none in dev: Table 9 analyses the test split.
    for split, outliers in (("test", 1), ("dev", 0)):
        table = read_scored_pairs(mirror_file(f"annotated-ppdb/ppdb_{split}.txt"))
        gold = table["score"].to_numpy()
        ratios = np.array(
            [length_ratio(a, b) for a, b in zip(table["s1"].to_pylist(), table["s2"].to_pylist())]
        )
        kept = (gold > 4) | (gold < 2)
        assert int((ratios[kept] < 0.4).sum()) == outliers
        assert ratios[kept].max() == 1.0
