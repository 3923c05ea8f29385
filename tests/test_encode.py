import numpy as np
import pandas as pd
import pytest

from paracomp.eval.encode import AveragedEmbeddings, cosine_rows, with_fallback
from paracomp.eval.sts import predict_pairs, subset_metrics
from paracomp.eval.wordsim import evaluate_wordsim

WORDS = ["a", "cat", "dog", "sat"]
MATRIX = np.array([[1, 0], [0, 1], [0, 2], [1, 1]], dtype=np.float32)


def test_average_and_oov_policies():
    skip = AveragedEmbeddings(WORDS, MATRIX, "skip")
    unk = AveragedEmbeddings(WORDS, MATRIX, "unk")
    sents = [["a", "cat"], ["a", "zebra"], ["zebra"]]
    np.testing.assert_allclose(skip.encode(sents), [[0.5, 0.5], [1, 0], [0, 0]])
    np.testing.assert_allclose(unk.encode(sents), [[0.5, 0.5], [0.5, 0], [0, 0]])
    with pytest.raises(ValueError):
        AveragedEmbeddings(WORDS, MATRIX, "ignore")


def test_cosine_zero_vector_scores_zero():
    out = cosine_rows(np.array([[1.0, 0], [0, 0]]), np.array([[1.0, 1], [1, 0]]))
    np.testing.assert_allclose(out, [1 / np.sqrt(2), 0])


def _pairs():
    return pd.DataFrame(
        {
            "dataset": "toy",
            "subset": ["x", "x", "x", "y"],
            "split": "test",
            "id": ["1", "2", "3", "4"],
            "s1": ["a cat", "a dog", "the zebra", "a"],
            "s2": ["a cat", "cat sat", "a dog", "cat"],
            "score": [5.0, 2.0, 1.0, None],
        }
    )


def test_predict_pairs_drops_unscored_and_marks_oov():
    enc = AveragedEmbeddings(WORDS, MATRIX, "skip")
    preds = predict_pairs(_pairs(), enc, "whitespace", True, "skip")
    assert list(preds["id"]) == ["1", "2", "3"]
    assert list(preds["oov"]) == [False, False, True]
    assert preds["pred"].iloc[0] == pytest.approx(1.0)
    metrics = subset_metrics(preds)
    assert metrics.loc[0, "n"] == 3 and metrics.loc[0, "n_oov"] == 1


def test_drop_policy_removes_oov_pairs_from_correlation():
    enc = AveragedEmbeddings(WORDS, MATRIX, "drop")
    metrics = subset_metrics(predict_pairs(_pairs(), enc, "whitespace", True, "drop"))
    assert metrics.loc[0, "n"] == 2 and metrics.loc[0, "n_dropped"] == 1


def test_wordsim_counts_oov_pairs():
    pairs = pd.DataFrame(
        {
            "dataset": "ws",
            "w1": ["Cat", "a", "zebra"],
            "w2": ["dog", "sat", "cat"],
            "score": [8.0, 1.0, 3.0],
        }
    )
    res = evaluate_wordsim(pairs, AveragedEmbeddings(WORDS, MATRIX, "skip"), True, "skip")
    assert (res["n_total"], res["n"], res["n_oov"]) == (3, 2, 1)
    res = evaluate_wordsim(pairs, AveragedEmbeddings(WORDS, MATRIX, "unk"), True, "unk")
    assert res["n"] == 3


def test_with_fallback_adds_only_the_words_a_model_lacks():
    words, rows = with_fallback(
        ["dog", "cat"], np.array([[1, 2], [3, 4]]),
        ["cat", "pet", "dog", "zoo"], np.array([[9, 9], [5, 6], [9, 9], [7, 8]]),
    )  # fmt: skip
    assert words == ["dog", "cat", "pet", "zoo"]
    assert rows.dtype == np.float32 and rows.tolist() == [[1, 2], [3, 4], [5, 6], [7, 8]]
