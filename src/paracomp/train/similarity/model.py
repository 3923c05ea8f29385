"""Tai et al.'s (2015) similarity head over a composer, and the scored pairs it trains on.

h× = hL ⊙ hR, h+ = |hL − hR|, hs = σ(W× h× + W+ h+ + b), p̂ = softmax(Wp hs + bp); the
prediction is ŷ = rᵀp̂ with r = [1 … K], and the target p is Tai et al.'s sparse distribution
of the gold score moved into [1, K] (SentEval's SICK-R target).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa
import torch
from torch import nn

from paracomp.errors import DataError
from paracomp.eval.senteval import tai_distribution
from paracomp.models.base import SegmentBatch

PARTS = ("train", "dev", "test")
"""The parts of a SCORED_PAIRS table: trained on, selecting the epoch, reported."""


def sparse_target(scores: np.ndarray, classes: int) -> np.ndarray:
    """Tai et al.'s p for ``scores`` clipped to [1, K]."""
    return tai_distribution(np.clip(np.asarray(scores, dtype=np.float64), 1.0, classes), classes)


class SimilarityHead(nn.Module):
    """hs = σ(W× (hL ⊙ hR) + W+ |hL − hR| + b); log softmax(Wp hs + bp)."""

    def __init__(self, dim: int, hidden: int, classes: int):
        super().__init__()
        self.times = nn.Linear(dim, hidden, bias=False)
        self.plus = nn.Linear(dim, hidden)
        self.out = nn.Linear(hidden, classes)

    def forward(self, left: torch.Tensor, right: torch.Tensor) -> torch.Tensor:
        hidden = torch.sigmoid(self.times(left * right) + self.plus((left - right).abs()))
        return torch.log_softmax(self.out(hidden), dim=1)


@dataclass
class Noise:
    """Input noise of a training step: ``dropout`` of every word vector's entries or
    ``word_dropout`` of whole vectors (the rest scaled by 1/(1 − p), lengths kept), drawn from
    ``generator`` on the CPU, so that every device draws the same masks."""

    generator: torch.Generator
    dropout: float
    word_dropout: float

    def apply(self, rows: torch.Tensor) -> torch.Tensor:
        if self.dropout:
            keep = torch.rand(rows.shape, generator=self.generator) >= self.dropout
            return rows * keep.to(rows.device) / (1.0 - self.dropout)
        if self.word_dropout:
            keep = torch.rand((rows.shape[0], 1), generator=self.generator) >= self.word_dropout
            return rows * keep.to(rows.device) / (1.0 - self.word_dropout)
        return rows


class SimilarityModel(nn.Module):
    """Word rows, the composer and Tai et al.'s head. With a ``runner`` (composing in the
    composer's place, e.g. :class:`~paracomp.train.cuda_graph.GriddedComposer`) both sides of
    a batch are composed in one call (the runner's graphs hold one composition per shape until
    its backward)."""

    def __init__(self, matrix: np.ndarray, composer: nn.Module, hidden: int, classes: int):
        super().__init__()
        self.weight = nn.Parameter(torch.tensor(np.asarray(matrix), dtype=torch.float32))
        self.composer = composer
        self.head = SimilarityHead(composer.dim, hidden, classes)
        self.runner: Callable[[SegmentBatch], torch.Tensor] | None = None

    def embed(self, sentences: Sequence[np.ndarray], noise: Noise | None) -> torch.Tensor:
        lengths = [len(s) for s in sentences]
        device = self.weight.device
        flat = torch.as_tensor(np.concatenate(sentences) if sentences else np.zeros(0, np.int64))
        rows = self.weight.index_select(0, flat.to(device))
        if noise is not None:
            rows = noise.apply(rows)
        offsets = torch.as_tensor(np.cumsum([0, *lengths[:-1]]), dtype=torch.long, device=device)
        ids = torch.arange(rows.shape[0], device=device)
        batch = SegmentBatch(rows, ids, offsets)
        return self.composer(batch) if self.runner is None else self.runner(batch)

    def forward(
        self, left: Sequence[np.ndarray], right: Sequence[np.ndarray], noise: Noise | None = None
    ) -> torch.Tensor:
        """The log class distributions of the pairs (``left[i]``, ``right[i]``)."""
        if self.runner is not None:
            return self.head(*self.embed([*left, *right], noise).split(len(left)))
        return self.head(self.embed(left, noise), self.embed(right, noise))


@dataclass
class ScoredData:
    """Token ids of each side of the pairs (unknown tokens dropped), gold scores and parts."""

    left: list[np.ndarray]
    right: list[np.ndarray]
    gold: np.ndarray
    part: np.ndarray

    @classmethod
    def encode(cls, table: pa.Table, index: dict[str, int]) -> ScoredData:
        """A SCORED_PAIRS table over the word ``index``."""

        def ids(side: list[list[str]]) -> list[np.ndarray]:
            return [np.array([index[t] for t in s if t in index], dtype=np.int64) for s in side]

        part = np.array(table.column("part").to_pylist(), dtype=object)
        unknown = sorted(set(part) - set(PARTS))
        if unknown:
            raise DataError(f"scored pairs: parts {unknown} (known: {list(PARTS)})")
        return cls(
            ids(table.column("tokens1").to_pylist()),
            ids(table.column("tokens2").to_pylist()),
            table.column("score").to_numpy().astype(np.float64),
            part,
        )

    def rows(self, part: str) -> np.ndarray:
        return np.flatnonzero(self.part == part)

    def fingerprint(self) -> dict[str, Any]:
        return {p: int(len(self.rows(p))) for p in PARTS} | {
            "tokens": int(sum(map(len, self.left)) + sum(map(len, self.right)))
        }
