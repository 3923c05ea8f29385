"""Sentence encoders for evaluation; the averaged-embeddings encoder is the baseline.

Every model family exposes :class:`SentenceEncoder`, so the evaluator never depends on how a
model composes words.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np
import scipy.sparse as sp

OOV_POLICIES = ("skip", "unk", "drop")


class SentenceEncoder(Protocol):
    """Maps tokenised sentences to vectors; ``known`` tells which tokens are in vocabulary."""

    def encode(self, sentences: Sequence[Sequence[str]]) -> np.ndarray: ...

    def known(self, token: str) -> bool: ...


class AveragedEmbeddings:
    """Average of word vectors (sum and average give the same cosine).

    OOV tokens are skipped under ``skip`` and ``drop`` (the evaluator drops whole pairs for
    ``drop``) and count as a zero UNK vector in the denominator under ``unk``. A sentence with
    no known token encodes as the zero vector, whose cosine with anything is 0.
    """

    def __init__(self, words: Sequence[str], matrix: np.ndarray, oov: str = "skip"):
        if oov not in OOV_POLICIES:
            raise ValueError(f"unknown OOV policy {oov!r}; expected one of {OOV_POLICIES}")
        self.index = {w: i for i, w in enumerate(words)}
        self.matrix = np.asarray(matrix, dtype=np.float32)
        self.oov = oov

    def known(self, token: str) -> bool:
        return token in self.index

    def encode(self, sentences: Sequence[Sequence[str]]) -> np.ndarray:
        rows, cols, lengths = [], [], np.zeros(len(sentences), dtype=np.float32)
        index = self.index
        for r, tokens in enumerate(sentences):
            ids = [index[t] for t in tokens if t in index]
            rows.extend([r] * len(ids))
            cols.extend(ids)
            lengths[r] = len(tokens) if self.oov == "unk" else len(ids)
        counts = sp.csr_matrix(
            (np.ones(len(cols), dtype=np.float32), (rows, cols)),
            shape=(len(sentences), self.matrix.shape[0]),
        )
        summed = np.asarray(counts @ self.matrix)
        return summed / np.maximum(lengths, 1.0)[:, None]


def with_fallback(
    words: Sequence[str],
    matrix: np.ndarray,
    fallback_words: Sequence[str],
    fallback: np.ndarray,
) -> tuple[list[str], np.ndarray]:
    """``words`` and their rows, then every word of ``fallback_words`` they lack with its
    ``fallback`` row (a model's own rows first; the vectors it started from for the rest)."""
    known = set(words)
    extra = [i for i, w in enumerate(fallback_words) if w not in known]
    rows = np.asarray(fallback, dtype=np.float32)[extra]
    merged = np.concatenate([np.asarray(matrix, dtype=np.float32), rows])
    return [*words, *(fallback_words[i] for i in extra)], merged


def cosine_rows(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Row-wise cosine similarity; 0 where either row is the zero vector."""
    num = np.einsum("ij,ij->i", a, b, dtype=np.float64)
    den = np.linalg.norm(a, axis=1).astype(np.float64) * np.linalg.norm(b, axis=1)
    out = np.zeros_like(num)
    np.divide(num, den, out=out, where=den > 0)
    return out
