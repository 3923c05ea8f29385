"""Pretrained vectors as initial rows: the most frequent words with an unknown-word vector,
PCA, and the export of a run that started from them."""

from __future__ import annotations

import numpy as np
import pytest

from paracomp.train.pretrained import found_rows, frequent_with_unk, merged_rows, pca


def test_frequent_with_unk_averages_the_rest():
    words = ["the", "of", "cat", "dog", "emu"]
    vectors = np.arange(10, dtype=np.float32).reshape(5, 2)
    kept, matrix = frequent_with_unk(words, vectors, 2, "<unk>")
    assert kept == ["the", "of", "<unk>"]
    np.testing.assert_array_equal(matrix, [[0, 1], [2, 3], [6, 7]])  # mean of rows 2-4
    kept, matrix = frequent_with_unk(words, vectors, 5, "<unk>")
    assert kept == words and matrix.shape == (5, 2)


def test_pca_by_hand():
    # points on the line y = 2x (plus a constant third coordinate): one axis holds it all
    x = np.array([-2.0, -1.0, 0.0, 1.0, 2.0])
    vectors = np.stack([x, 2 * x, np.full(5, 3.0)], axis=1)
    projected, share = pca(vectors, 1)
    np.testing.assert_allclose(projected[:, 0], x * np.sqrt(5), atol=1e-6)  # |(1, 2)| = √5
    assert share[0] == pytest.approx(1.0)
    again, _ = pca(vectors[::-1], 1)
    np.testing.assert_allclose(again[:, 0], projected[::-1, 0], atol=1e-6)  # sign is fixed
    with pytest.raises(ValueError):
        pca(vectors, 4)


def test_merged_rows_keeps_untrained_words():
    words, vectors = ["a", "b", "c"], np.zeros((3, 2), dtype=np.float32)
    trained = np.array([[1, 1], [2, 2]], dtype=np.float32)
    merged, matrix = merged_rows(words, vectors, ["c", "new"], trained)
    assert merged == ["a", "b", "c", "new"]
    np.testing.assert_array_equal(matrix, [[0, 0], [0, 0], [1, 1], [2, 2]])
    np.testing.assert_array_equal(vectors, 0)  # the input is not changed
    np.testing.assert_array_equal(found_rows(["c", "zz", "a"], words), [2, -1, 0])
