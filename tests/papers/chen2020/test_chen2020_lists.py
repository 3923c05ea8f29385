"""Tables 5 and 6 on hand-made WLO parameters and sentences."""

import math

import numpy as np

from paracomp.papers.chen2020.lists import (
    COLUMNS,
    entropy_shift,
    sentence_extremes,
    word_lists,
)

WORDS = ["the", "of", "brussels", "placebo", "derived", "renal"]
# ΔH = Σ_d log|A|: the 0.01, of −0.5, brussels 0.02, placebo −3, derived −1, renal −2
LOG_SCALE = np.array([[0.01, 0.0], [-0.25, -0.25], [0.01, 0.01], [-1.5, -1.5], [-1, 0], [-2, 0]])
# ‖B‖: the 0.1, of 0.2, brussels 5, placebo 6, derived 0.3, renal 4
SHIFT = np.array([[0.1, 0.0], [0.2, 0.0], [3.0, 4.0], [6.0, 0.0], [0.0, 0.3], [0.0, 4.0]])


def test_entropy_shift():
    np.testing.assert_allclose(entropy_shift(LOG_SCALE), [0.01, -0.5, 0.02, -3.0, -1.0, -2.0])


def test_word_lists_by_hand():
    lists = word_lists(WORDS, LOG_SCALE, SHIFT, k=2)
    assert list(lists) == list(COLUMNS)
    # median split of the norms: small {the, of, derived}, large {brussels, placebo, renal}
    assert lists["small_norm", "small_abs_entropy"] == ["the", "of"]
    assert lists["small_norm", "small_entropy"] == ["derived", "of"]
    assert lists["large_norm", "small_abs_entropy"] == ["brussels", "renal"]
    assert lists["large_norm", "small_entropy"] == ["placebo", "renal"]


def test_word_lists_quantile():
    lists = word_lists(WORDS, LOG_SCALE, SHIFT, k=20, quantile=0.2)
    assert lists["large_norm", "small_entropy"] == ["placebo", "brussels"]  # the top 20%
    assert lists["small_norm", "small_entropy"] == ["of", "the"]


def test_sentence_extremes_by_length():
    sentences = ["a b", "c d", "e f", "g h i", "j"]
    scores = np.array([1.0, 3.0, 2.0, -math.inf, 0.0])
    extremes = sentence_extremes(sentences, scores, [2, 2, 2, 3, 1], k=2)
    assert extremes[2] == (["c d", "e f"], ["a b", "e f"])
    assert extremes[3] == (["g h i"], ["g h i"])
    assert sorted(extremes) == [1, 2, 3]
