"""Chen & Gimpel's specificity protocols: entropy and norm scorers, the threshold search (by
hand and against exhaustive search), accuracy and F1, Spearman, the length-normalised protocol
on a hand-made set, the baselines by hand, and the majority baseline on the mirror's News."""

import math

import numpy as np
import pytest
from scipy.stats import multivariate_normal

from paracomp.data.specificity import read_ko2019_news, read_speciteller_news
from paracomp.papers.chen2020.specificity import (
    binary_metrics,
    constant_scores,
    frequency_ranks,
    frequency_scores,
    gaussian_entropy,
    length_normalised,
    news_protocol,
    order_ranks,
    spearman,
    specificity,
    token_lengths,
    tune_threshold,
    vector_norm,
    vector_scores,
)


def test_entropy_by_hand_and_against_scipy():
    rows = np.array([[0.0, 0.0, 0.0, 0.0], [5.0, -1.0, math.log(4.0), math.log(0.5)]])
    base = 1.0 + math.log(2 * math.pi)  # two dimensions of variance 1: 2 · ½(1 + log 2π)
    np.testing.assert_allclose(gaussian_entropy(rows), [base, base + 0.5 * math.log(2.0)])
    scipy_entropy = multivariate_normal(mean=[5.0, -1.0], cov=np.diag([4.0, 0.5])).entropy()
    assert gaussian_entropy(rows)[1] == pytest.approx(scipy_entropy)


def test_norm_and_specificity_direction():
    np.testing.assert_allclose(vector_norm(np.array([[3.0, 4.0], [0.0, 0.0]])), [5.0, 0.0])
    rows = np.array([[0.0, 0.0, 1.0, 1.0], [0.0, 0.0, -1.0, -1.0]])  # second: lower entropy
    assert specificity(rows, probabilistic=True)[1] > specificity(rows, probabilistic=True)[0]
    np.testing.assert_allclose(specificity(rows, probabilistic=False), [math.sqrt(2)] * 2)


def test_threshold_by_hand():
    # cuts: all specific 2/5, after 1: 3/5, after 2: 4/5, after 3: 3/5, after 4: 4/5, none 3/5
    threshold = tune_threshold(np.array([5.0, 1.0, 3.0, 2.0, 4.0]), np.array([1, 0, 1, 0, 0]))
    assert (threshold.value, threshold.accuracy) == (2.5, 80.0)  # the lower of the two best
    assert threshold.predict(np.array([2.5, 2.6])).tolist() == [False, True]


def test_threshold_extremes_and_ties():
    # all specific wins: −inf; tied scores cannot be split
    assert tune_threshold(np.array([1.0, 1.0, 2.0]), np.array([1, 1, 1])).value == -math.inf
    tied = tune_threshold(np.array([1.0, 1.0, 1.0, 2.0]), np.array([0, 1, 0, 1]))
    assert (tied.value, tied.accuracy) == (1.5, 75.0)
    # all general: +inf, so that a test score above every tuning score is general too (the
    # largest tuning score as the cut called those specific)
    general = tune_threshold(np.array([1.0, 2.0]), np.array([0, 0]))
    assert general.value == math.inf and general.accuracy == 100.0
    assert not general.predict(np.array([0.5, 2.0, 2.5, 1e9])).any()
    with pytest.raises(ValueError):
        tune_threshold(np.array([]), np.array([]))


def test_threshold_against_exhaustive_search():
    generator = np.random.default_rng(0)
    for _ in range(20):
        scores = generator.integers(0, 8, size=30).astype(float)
        labels = generator.random(30) < 0.5
        best = max(
            np.mean((scores > t) == labels) for t in np.concatenate([[-1.0], np.unique(scores)])
        )
        threshold = tune_threshold(scores, labels)
        assert threshold.accuracy == pytest.approx(100 * best)
        assert np.mean(threshold.predict(scores) == labels) == pytest.approx(best)


def test_binary_metrics_by_hand():
    predicted = np.array([1, 1, 0, 0, 1], dtype=bool)
    gold = np.array([1, 0, 0, 1, 1], dtype=bool)
    accuracy, f1_specific, f1_macro = binary_metrics(predicted, gold)
    # specific: tp 2, fp 1, fn 1 → F1 2/3; general: tp 1, fp 1, fn 1 → F1 1/2
    assert accuracy == pytest.approx(60.0)
    assert f1_specific == pytest.approx(200 / 3)
    assert f1_macro == pytest.approx((200 / 3 + 50) / 2)


def test_news_protocol_by_hand():
    train_scores, train_labels = np.array([1.0, 2.0, 3.0, 4.0]), np.array([0, 0, 1, 1])
    test_scores, test_labels = np.array([2.4, 2.6, 10.0, 0.0]), np.array([1, 1, 1, 0])
    result = news_protocol(train_scores, train_labels, test_scores, test_labels)
    assert result.threshold == 2.5  # predictions: general, specific, specific, general
    assert (result.accuracy, result.n) == (75.0, 4)
    assert result.f1_specific == pytest.approx(80.0)


def test_spearman():
    assert spearman(np.array([1.0, 2.0, 3.0]), np.array([30.0, 20.0, 10.0])) == pytest.approx(-100)
    assert spearman(np.array([1.0, 5.0, 2.0, 7.0]), np.array([1.0, 3.0, 2.0, 4.0])) == (
        pytest.approx(100)
    )


def test_length_normalised_by_hand():
    # lengths 3, 4, 5; tuned on 5 → tested on 4, tuned on 4 → tested on 3; 5 is never tested
    lengths = np.array([3, 3, 3, 4, 4, 4, 4, 5, 5, 5])
    scores = np.array([0.1, 0.9, 0.5, 0.2, 0.8, 0.3, 0.7, 0.4, 0.6, 0.5])
    labels = np.array([0, 1, 1, 0, 1, 1, 1, 0, 1, 1])
    # length 5: 0.4 (g), 0.5 (s), 0.6 (s) → t = 0.45; length 4 (0.2, 0.8, 0.3, 0.7) predicted
    #   g, s, g, s against g, s, s, s → 3/4. length 4: 0.2 (g), 0.3 (s), 0.7 (s), 0.8 (s) →
    #   t = 0.25; length 3 (0.1, 0.9, 0.5) predicted g, s, s against g, s, s → 3/3
    result = length_normalised(scores, labels, lengths)
    assert (result.pool, result.lengths) == (7, (3, 4))
    assert result.accuracy == pytest.approx(600 / 7)
    assert result.majority == pytest.approx(100 * 5 / 7)  # 5 of the 7 tested are specific
    empty = length_normalised(scores[:3], labels[:3], lengths[:3])
    assert empty.pool == 0 and math.isnan(empty.accuracy)


def test_a_group_whose_best_cut_is_all_general():
    """Length 4 is all general (scores 0.2-0.4): its cut is +inf, so every length-3 sentence
    is called general, the one scoring 0.9 (above length 4's largest) too: 2 of 3 right (the
    largest tuning score as the cut made it 1 of 3)."""
    lengths = np.array([3, 3, 3, 4, 4, 4])
    scores = np.array([0.1, 0.9, 0.3, 0.2, 0.4, 0.3])
    labels = np.array([0, 0, 1, 0, 0, 0])
    result = length_normalised(scores, labels, lengths)
    assert (result.pool, result.lengths) == (3, (3,))
    assert result.accuracy == pytest.approx(200 / 3)


def test_length_normalised_constant_scores_follow_the_next_group():
    lengths = np.array([1, 1, 2, 2, 2])
    labels = np.array([1, 1, 1, 1, 0])  # length 2 mostly specific → predicts specific on 1
    result = length_normalised(constant_scores(5), labels, lengths)
    assert (result.accuracy, result.pool) == (100.0, 2)


def test_frequency_baselines_by_hand():
    ranks = frequency_ranks([["the", "cat"], ["the", "dog"], ["a", "cat", "the"]])
    assert ranks == {"the": 1, "cat": 2, "a": 3, "dog": 4}  # equal counts alphabetically
    sentences = [["the", "dog"], ["zebra"], []]
    np.testing.assert_allclose(frequency_scores(sentences, ranks, "sum"), [5.0, 5.0, 0.0])
    np.testing.assert_allclose(frequency_scores(sentences, ranks, "mean"), [2.5, 5.0, 0.0])
    with pytest.raises(ValueError):
        frequency_scores(sentences, ranks, "max")


def test_frequency_ranks_from_a_vocabulary_in_frequency_order():
    ranks = order_ranks(["the", ",", "cat", "the", "dog"])
    assert ranks == {"the": 1, ",": 2, "cat": 3, "dog": 5}  # a repeat keeps its first row
    np.testing.assert_allclose(frequency_scores([["cat", "emu"]], ranks, "sum"), [3.0 + 6.0])


def test_vector_baselines_by_hand():
    words, matrix = ["a", "b"], np.array([[3.0, 0.0], [0.0, 4.0]])
    sentences = [["a", "b"], ["a", "oov", "a"], ["oov"]]
    np.testing.assert_allclose(vector_scores(sentences, words, matrix, "sum"), [5.0, 6.0, 0.0])
    np.testing.assert_allclose(vector_scores(sentences, words, matrix, "mean"), [2.5, 3.0, 0.0])


def test_length_baseline():
    assert token_lengths([["a", "b"], [], ["c"]]).tolist() == [2, 0, 1]


def test_news_majority_baseline_on_the_mirror(mirror_file):
    """The training majority (specific, 2,231 of 4,342) on the 885 test sentences: 483/885 =
    54.6, Table 2's Majority baseline."""
    news = read_speciteller_news(mirror_file("specificity-news-speciteller/labels.txt").parent)
    train = read_ko2019_news(mirror_file("specificity-ko2019/label.txt").parent)
    result = news_protocol(
        constant_scores(len(train)), train.labels, constant_scores(len(news)), news.labels
    )
    assert result.threshold == -math.inf
    assert round(result.accuracy, 1) == 54.6
    assert result.accuracy == pytest.approx(100 * 483 / 885)
