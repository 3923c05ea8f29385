"""Cased pretrained vectors (GloVe 840B, word2vec GoogleNews, fastText) are looked up as the
papers' code looks them up: the sentence is lowercased and each token matched exactly, so
only the vectors of lower-case forms are used (Wieting's lookupIDX: ``w = w.lower()`` then an
exact dict lookup in the file's words; Scheepers et al.'s CompVec: lowercased tokens, an exact
match on the file's lines, no case folding of the file). The vectors keep their case."""

import numpy as np
import pandas as pd

from paracomp.eval.encode import AveragedEmbeddings
from paracomp.eval.sts import predict_pairs


def test_a_cased_file_is_read_by_lowercased_exact_match():
    words = ["The", "the", "Paris", "city", "town"]
    matrix = np.array(
        [[9.0, 9.0], [1.0, 0.0], [0.0, 9.0], [1.0, 1.0], [1.0, 0.9]], dtype=np.float32
    )
    encoder = AveragedEmbeddings(words, matrix, oov="skip")
    pairs = pd.DataFrame(
        {
            "dataset": ["d", "d"],
            "subset": ["s", "s"],
            "split": ["test", "test"],
            "id": ["1", "2"],
            "s1": ["The city", "Paris"],
            "s2": ["the town", "paris"],
            "score": [5.0, 4.0],
        }
    )
    scored = predict_pairs(pairs, encoder, "moses", True, "skip")
    # "The" reads the row of "the", not its own; "Paris" lowercased has no row: OOV, skipped
    left, right = (matrix[1] + matrix[3]) / 2, (matrix[1] + matrix[4]) / 2
    expected = left @ right / np.linalg.norm(left) / np.linalg.norm(right)
    assert abs(scored["pred"].iloc[0] - expected) < 1e-6
    assert bool(scored["oov"].iloc[1]) and scored["pred"].iloc[1] == 0.0
