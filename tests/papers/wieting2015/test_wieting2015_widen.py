"""The PARAGRAM-SL999 stand-in: trained rows over their source's whole vocabulary."""

import numpy as np
import pytest

from paracomp.papers.wieting2015.data import UNK, widened
from paracomp.train.pretrained import frequent_with_unk, pca

SOURCE_WORDS = ["the", "cat", "sat", "mat", "rug"]
SOURCE = np.array(
    [[1.0, 2.0, 0.0], [0.0, 1.0, 3.0], [2.0, 0.0, 1.0], [4.0, 1.0, 1.0], [1.0, 1.0, 5.0]],
    dtype=np.float32,
)


def test_words_outside_training_keep_their_source_vectors():
    trained = (["the", "cat", UNK], np.array([[9, 9, 9], [8, 8, 8], [7, 7, 7]], np.float32))
    words, matrix = widened(trained, (SOURCE_WORDS, SOURCE), size=2, dim=3)
    assert words == ["the", "cat", UNK, "sat", "mat", "rug"]
    np.testing.assert_array_equal(matrix[:3], trained[1])
    np.testing.assert_array_equal(matrix[3:], SOURCE[2:])


def test_projected_as_the_initial_vectors_were():
    """With a PCA init, an untrained word's row is what the init's projection gives it: for
    a word of the init (here every frequent word is left untrained) its init row exactly."""
    init_words, init = frequent_with_unk(SOURCE_WORDS, SOURCE, 3, UNK)  # the, cat, sat, <unk>
    projected, _ = pca(init, 2)
    trained = (["the", UNK], projected[[0, 3]])
    words, matrix = widened(trained, (SOURCE_WORDS, SOURCE), size=3, dim=2)
    assert words == ["the", UNK, "cat", "sat", "mat", "rug"]
    np.testing.assert_allclose(matrix[2:4], projected[1:3], atol=1e-6)
    # "mat" by hand: centred on the init's mean, on the init's axes
    centred = SOURCE[3].astype(np.float64) - init.astype(np.float64).mean(axis=0)
    gram = init.astype(np.float64) - init.astype(np.float64).mean(axis=0)
    values, axes = np.linalg.eigh(gram.T @ gram / (len(init) - 1))
    axes = axes[:, np.argsort(values)[::-1][:2]]
    axes *= np.sign(axes[np.abs(axes).argmax(axis=0), np.arange(2)])
    np.testing.assert_allclose(matrix[4], centred @ axes, atol=1e-5)


def test_dimensions_must_agree():
    trained = (["the"], np.zeros((1, 2), np.float32))
    with pytest.raises(ValueError, match="2-dimensional, the source's 3"):
        widened(trained, (SOURCE_WORDS, SOURCE), size=2, dim=3)
