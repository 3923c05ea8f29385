"""A sentence encoder that composes word rows with a trained composition function.

As the CompVec batcher for SentEval (digest §2.3): a token in the model's vocabulary takes its
(tuned) row, any other token the original pretrained vector, a token in neither is skipped;
at most ``max_length`` tokens are kept; a sentence with no known token encodes as zeros.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch

from paracomp.eval.encode import with_fallback
from paracomp.models.base import Composer, SegmentBatch

SPECIAL = ("PAD", "UNK")


class ComposedEncoder:
    """:class:`~paracomp.eval.encode.SentenceEncoder` over a composer (in eval mode)."""

    def __init__(
        self,
        composer: Composer,
        vocabulary: Sequence[str],
        matrix: np.ndarray,
        fallback_words: Sequence[str] = (),
        fallback: np.ndarray | None = None,
        max_length: int = 32,
        batch_size: int = 1024,
    ):
        self.composer = composer.eval()
        keep = [i for i, w in enumerate(vocabulary) if w not in SPECIAL]
        words = [vocabulary[i] for i in keep]
        rows = np.asarray(matrix, dtype=np.float32)[keep]
        if fallback is not None:
            words, rows = with_fallback(words, rows, fallback_words, fallback)
        self.index = {w: i for i, w in enumerate(words)}
        self.rows = torch.from_numpy(np.ascontiguousarray(rows))
        self.max_length, self.batch_size = max_length, batch_size

    def known(self, token: str) -> bool:
        return token in self.index

    @torch.no_grad()
    def encode(self, sentences: Sequence[Sequence[str]]) -> np.ndarray:
        out = []
        for start in range(0, len(sentences), self.batch_size):
            chunk = sentences[start : start + self.batch_size]
            ids = [
                [self.index[t] for t in tokens[: self.max_length] if t in self.index]
                for tokens in chunk
            ]
            out.append(self._compose(ids))
        if not out:
            return np.zeros((0, self.rows.shape[1]), dtype=np.float32)
        return np.concatenate(out)

    def _compose(self, ids: list[list[int]]) -> np.ndarray:
        lengths = torch.tensor([len(x) for x in ids], dtype=torch.long)
        flat = torch.tensor([i for x in ids for i in x], dtype=torch.long)
        index, local = torch.unique(flat, return_inverse=True)
        offsets = torch.cumsum(lengths, 0) - lengths
        device = self.rows.device
        batch = SegmentBatch(self.rows[index.to(device)], local.to(device), offsets.to(device))
        vectors = self.composer(batch)
        vectors[lengths.to(device) == 0] = 0.0
        return vectors.float().cpu().numpy()
