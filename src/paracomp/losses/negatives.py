"""Negative samplers: which segments each side of each pair is contrasted with.

A step composes the segments of a batch once, in the order of :class:`Layout`, and a sampler
returns, for each of the ``2B`` anchors (side 1 of every pair, then side 2), the rows of that
composed batch to use as its negatives. Samplers work under ``torch.no_grad`` (the authors'
code mines negatives outside the gradient) and draw from their own ``torch.Generator``.

Negatives outside the batch (random segments of the whole corpus) are requested with
:meth:`NegativeSampler.extra` before composing, so they are composed in the same pass, after
the batch's own segments. Mega-batching (Wieting & Gimpel's para-nmt, Chen & Gimpel: compose
m batches without gradient, then MAX over the pool) fits the same way: a sampler, given the
model at construction, whose ``extra`` returns the pair ids of the MAX negatives mined over
the pooled batches, and whose ``sample`` points at those extra rows.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from functools import lru_cache

import torch

from paracomp.losses.scores import Score


@dataclass(frozen=True)
class Layout:
    """Rows of a composed batch: side 1 of the ``batch`` pairs, side 2 of them, then ``extra2``
    more side-2 and ``extra1`` more side-1 segments (side 2 first, as the anchors: side-2
    segments are the negatives of side-1 anchors). Rows ``0…2B-1`` are the anchors; the
    partner of row ``i`` is row ``(i + B) mod 2B``."""

    batch: int
    extra1: int = 0
    extra2: int = 0

    @property
    def in_batch(self) -> bool:
        """No segments beyond the batch's own."""
        return not (self.extra1 or self.extra2)


@lru_cache(maxsize=16)
def exclusion_mask(batch: int, cross: bool, device: torch.device) -> torch.Tensor:
    """−inf where a candidate is the anchor's own pair, else 0: (2B, B) over pairs of the
    other side with ``cross`` (column ``j`` is pair j), (2B, 2B) over all segments without.
    Added to scores, cheaper than ``masked_fill``."""
    pair = torch.arange(2 * batch, device=device) % batch
    own = pair[:, None] == (pair[None, :batch] if cross else pair[None, :])
    return torch.zeros(own.shape, device=device).masked_fill_(own, float("-inf"))


@lru_cache(maxsize=16)
def other_side_start(batch: int, device: torch.device) -> torch.Tensor:
    """(2B, 1): the first row of the other side's batch segments, for each anchor."""
    return torch.tensor([batch, 0], device=device).repeat_interleave(batch).unsqueeze(1)


def in_batch_scores(vectors: torch.Tensor, batch: int, score: Score, cross: bool) -> torch.Tensor:
    """Scores among the batch's own ``2B`` segments: with ``cross``, the (B, B) block of side 1
    of pair i (row) against side 2 of pair j (column), which serves the anchors of both sides,
    scores being symmetric; otherwise (2B, 2B), every segment against every segment."""
    if not cross:
        return score.pairwise(vectors, vectors)
    return score.pairwise(vectors[:batch], vectors[batch : 2 * batch])


def in_batch_positions(rows: torch.Tensor, batch: int, cross: bool) -> torch.Tensor:
    """Where the scores of the ``2B`` anchors with segments ``rows`` (2B, k) sit in the
    flattened :func:`in_batch_scores` (rows of the other side when ``cross``)."""
    base, stride = _positions(batch, cross, rows.device)
    return rows * stride + base


@lru_cache(maxsize=16)
def _positions(batch: int, cross: bool, device: torch.device) -> tuple[torch.Tensor, torch.Tensor]:
    """(2B, 1) ``base`` and ``stride``: anchor a's score with row r is at ``base[a] + r·stride[a]``."""
    anchor = torch.arange(2 * batch, device=device).unsqueeze(1)
    if not cross:
        return anchor * 2 * batch, torch.ones_like(anchor)
    side2 = anchor >= batch  # side 1 of pair a: block[a, r − B]; side 2 of pair i: block[r, i]
    base = torch.where(side2, anchor - batch, anchor * batch - batch)
    return base, torch.where(side2, batch, 1)


class NegativeSampler(ABC):
    """Chooses ``k`` negatives per anchor; its state is its generator's. ``cross`` samplers
    only pick segments of the anchor's other side."""

    k: int
    cross: bool

    def __init__(self, generator: torch.Generator):
        self.generator = generator

    def extra(self, pairs: torch.Tensor, n_pairs: int) -> tuple[torch.Tensor, torch.Tensor]:
        """Pair ids whose side-1 and side-2 segments must be composed beyond the batch."""
        empty = pairs.new_empty(0)
        return empty, empty

    @abstractmethod
    def sample(
        self, vectors: torch.Tensor, layout: Layout, score: Score, sims: torch.Tensor | None = None
    ) -> torch.Tensor:
        """(2B, k) rows of ``vectors`` (laid out as ``layout``) to contrast with each anchor.
        ``sims`` may pass :func:`in_batch_scores` (with this sampler's ``cross``) when the
        caller has computed it already."""

    def state_dict(self) -> dict[str, torch.Tensor]:
        return {"generator": self.generator.get_state()}

    def load_state_dict(self, state: dict[str, torch.Tensor]) -> None:
        self.generator.set_state(state["generator"])


class RandomSampler(NegativeSampler):
    """J_bi's negatives: for side 1 of a pair ``k`` random side-2 segments, for side 2 ``k``
    random side-1 segments, never from the pair itself.

    ``pool="corpus"`` (default, Eq. 1 as written) draws them uniformly, with replacement, from
    all pairs of the training set and composes them too: ``2·k·B`` extra segments a step.
    ``pool="batch"`` takes ``min(k, B-1)`` distinct ones among the other pairs of the
    mini-batch, at no extra composition cost: as BiCVM, by offsets (pair ``i`` gets pairs
    ``i + o_j mod B``), here ``k`` random distinct offsets per side and step, which on a
    shuffled batch gives each anchor a uniformly random k-subset of the other pairs.
    """

    cross = True

    def __init__(self, k: int, generator: torch.Generator, pool: str = "corpus"):
        if pool not in ("corpus", "batch"):
            raise ValueError(f"negative pool must be 'corpus' or 'batch', not {pool!r}")
        if k < 1:
            raise ValueError(f"need k >= 1 negatives, got {k}")
        super().__init__(generator)
        self.k, self.pool = k, pool

    def extra(self, pairs: torch.Tensor, n_pairs: int) -> tuple[torch.Tensor, torch.Tensor]:
        if self.pool == "batch":
            return super().extra(pairs, n_pairs)
        shape = (2, pairs.numel(), self.k)
        draw = torch.randint(0, n_pairs - 1, shape, generator=self.generator, device=pairs.device)
        draw += draw >= pairs.view(1, -1, 1)  # skip the pair itself
        return draw[0].view(-1), draw[1].view(-1)

    @torch.no_grad()
    def sample(
        self, vectors: torch.Tensor, layout: Layout, score: Score, sims: torch.Tensor | None = None
    ) -> torch.Tensor:
        b, device = layout.batch, vectors.device
        if self.pool == "corpus":  # anchor i gets extra rows i·k… (side 2 first, see Layout)
            return torch.arange(2 * b, 2 * b * (self.k + 1), device=device).view(2 * b, self.k)
        k = min(self.k, b - 1)
        keys = torch.rand(2, b - 1, generator=self.generator, device=device)
        shifts = keys.argsort(dim=1)[:, :k] + 1
        pairs = torch.arange(b, device=device).view(1, b, 1) + shifts.unsqueeze(1)
        return pairs.remainder_(b).view(2 * b, k) + other_side_start(b, device)


class MaxSampler(NegativeSampler):
    """MAX (Wieting et al.): the most similar in-batch segment that is neither the anchor nor
    its partner, by the objective's score. With ``cross`` (bilingual data) only segments of the
    other side are candidates; otherwise all ``2B`` segments are, as in Wieting's code (whose
    cosine-distance fill of 1 for self and partner could pick them; here they never are)."""

    k = 1

    def __init__(self, generator: torch.Generator, cross: bool):
        super().__init__(generator)
        self.cross = cross

    @torch.no_grad()
    def sample(
        self, vectors: torch.Tensor, layout: Layout, score: Score, sims: torch.Tensor | None = None
    ) -> torch.Tensor:
        if not layout.in_batch:
            raise ValueError("MAX negatives are mined within the batch; got extra segments")
        b, device = layout.batch, vectors.device
        if b < 2:
            return vectors.new_empty((2 * b, 0), dtype=torch.long)
        if sims is None:
            sims = in_batch_scores(vectors, b, score, self.cross)
        excluded = exclusion_mask(b, self.cross, device)
        # max().indices: the first maximum, as argmax(), in half the time on CPU
        if self.cross:  # side 1 of pair i takes the best of row i, side 2 of column i
            masked = sims + excluded[:b]
            best = torch.cat([masked.max(1).indices, masked.max(0).indices])
        else:
            best = (sims + excluded).max(1).indices
        chosen = self._choose(best, excluded).unsqueeze(1)
        return chosen + other_side_start(b, device) if self.cross else chosen

    def _choose(self, best: torch.Tensor, excluded: torch.Tensor) -> torch.Tensor:
        """The negative of each anchor given ``best``, the MAX ones, and ``exclusion_mask``."""
        return best


class MixSampler(MaxSampler):
    """MIX: per anchor, the MAX negative with probability 0.5, else a uniformly random valid
    candidate (Wieting's fair coin per example and side; his random pick could return the
    anchor's own pair, this one cannot)."""

    def _choose(self, best: torch.Tensor, excluded: torch.Tensor) -> torch.Tensor:
        keys = torch.rand(excluded.shape, generator=self.generator, device=excluded.device)
        randomly = keys.add_(excluded).max(1).indices
        coin = torch.rand(best.numel(), generator=self.generator, device=excluded.device) < 0.5
        return torch.where(coin, best, randomly)
