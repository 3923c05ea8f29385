"""Initial word rows from pretrained vectors for a fixed vocabulary."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

PAD = "PAD"


def initial_matrix(
    vocabulary: Sequence[str],
    words: Sequence[str],
    vectors: np.ndarray,
    seed: int,
    low: float = -1.0,
    high: float = 1.0,
) -> tuple[np.ndarray, np.ndarray]:
    """Rows for ``vocabulary``: the pretrained vector of the exactly matching word (no case
    folding, as the authors' loader), else ``uniform(low, high)`` drawn with ``seed``; the
    ``PAD`` row is zero. Returns the float32 matrix and the mask of pretrained rows."""
    index = {word: i for i, word in enumerate(words)}
    rng = np.random.default_rng(seed)
    matrix = rng.uniform(low, high, (len(vocabulary), vectors.shape[1])).astype(np.float32)
    rows = np.array([index.get(word, -1) for word in vocabulary], dtype=np.int64)
    found = rows >= 0
    matrix[found] = vectors[rows[found]]
    pad = np.array([word == PAD for word in vocabulary], dtype=bool)
    matrix[pad] = 0.0
    return matrix, found
