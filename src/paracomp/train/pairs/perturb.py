"""Seeded input perturbations, the regularisers of Wieting & Gimpel (2017, §4.2).

- **dropout** (:func:`dropout`): inverted element-wise dropout on the word vectors of every
  token occurrence (Lasagne's ``DropoutLayer`` on the embedding layer's output);
- **word dropout** (:func:`word_dropout`): a token occurrence's whole vector is zeroed with
  probability ``p`` and the others are scaled by ``1/(1 − p)`` (the code's
  ``DropoutLayer(shared_axes=(2,))``); tokens are not removed, so lengths do not change;
- **scrambling** (:func:`scramble`): per pair a Bernoulli(``p``) draw; a drawn pair has the
  words of both its sentences shuffled (each its own uniform permutation), redrawn every time
  the pair is in a batch. The trainer scrambles before it selects negatives.

The authors' code allows one of dropout and word dropout at a time (:class:`InputNoise`).
Pair runs drop out the segments they compose with gradient and mine negatives without dropout
(:mod:`paracomp.train.pairs.noisy`); target runs use their own input dropout
(:mod:`paracomp.train.targets.task`).

Every draw comes from the ``torch.Generator`` passed in, and how many values a call draws
depends only on the batch's shape, so a trainer that saves the generator's state resumes the
same perturbations. :class:`~paracomp.models.base.SegmentBatch` holds the rows of distinct
tokens; the dropouts act per occurrence, so they return a batch with one row per token
(:func:`per_token`), whose gradient reaches the distinct rows through ``index_select``.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import torch

from paracomp.models.base import SegmentBatch


def per_token(batch: SegmentBatch) -> SegmentBatch:
    """The same segments with one row per token occurrence: ``rows = batch.tokens()``,
    ``ids = 0 … N − 1``."""
    ids = torch.arange(batch.ids.numel(), device=batch.ids.device)
    return dataclasses.replace(batch, rows=batch.tokens(), ids=ids)


def _uniform(
    shape: tuple[int, ...], generator: torch.Generator, like: torch.Tensor
) -> torch.Tensor:
    """Uniform [0, 1) draws from ``generator`` (on its device), moved to ``like``'s device."""
    draws = torch.rand(shape, generator=generator, device=generator.device, dtype=torch.float64)
    return draws.to(like.device)


def _dropped(tokens: SegmentBatch, keep: torch.Tensor, rate: float) -> SegmentBatch:
    """``tokens`` with its rows multiplied by ``keep / (1 − rate)``."""
    if not 0.0 <= rate < 1.0:
        raise ValueError(f"dropout rates must lie in [0, 1), got {rate}")
    scaled = tokens.rows * keep.to(tokens.rows.dtype) / (1.0 - rate)
    return dataclasses.replace(tokens, rows=scaled)


def dropout(batch: SegmentBatch, rate: float, generator: torch.Generator) -> SegmentBatch:
    """Inverted dropout on every element of every token occurrence's vector."""
    tokens = per_token(batch)
    keep = _uniform(tuple(tokens.rows.shape), generator, tokens.rows) >= rate
    return _dropped(tokens, keep, rate)


def word_dropout(batch: SegmentBatch, rate: float, generator: torch.Generator) -> SegmentBatch:
    """Each token occurrence's whole vector zeroed with probability ``rate``, the others
    scaled by ``1/(1 − rate)``; segment lengths do not change."""
    tokens = per_token(batch)
    keep = _uniform((tokens.rows.shape[0], 1), generator, tokens.rows) >= rate
    return _dropped(tokens, keep, rate)


def scramble(
    ids: torch.Tensor,
    offsets: torch.Tensor,
    rate: float,
    generator: torch.Generator,
    pairs: int | None = None,
) -> torch.Tensor:
    """``ids`` with the tokens of both segments of each drawn pair shuffled.

    The ``2B`` segments are side 1 of ``B`` pairs, then side 2 (segment ``i`` pairs with
    ``i + B``), each starting at its ``offsets`` entry; with ``pairs`` (``B``) segments after
    the ``2B`` (a :class:`~paracomp.models.base.StaticLayout`'s pads) stay as they are. Each
    pair is drawn with probability ``rate``; a drawn pair's two segments are each permuted
    uniformly at random, the others are left as they are. Draws ``B + N`` uniforms."""
    n = offsets.numel()
    if pairs is None and n % 2:
        raise ValueError(f"scrambling needs the segments of whole pairs, got {n} segments")
    b = n // 2 if pairs is None else pairs
    total = ids.numel()
    lengths = torch.diff(offsets, append=offsets.new_full((1,), total))
    drawn = (_uniform((b,), generator, ids) < rate).repeat(2)
    if 2 * b < n:
        drawn = torch.cat([drawn, drawn.new_zeros(n - 2 * b)])
    keys = _uniform((total,), generator, ids)
    segment = torch.repeat_interleave(lengths, output_size=total)
    position = torch.arange(total, device=ids.device) - offsets.index_select(0, segment)
    in_order = position / lengths.index_select(0, segment).to(torch.float64)
    keys = torch.where(drawn.index_select(0, segment), keys, in_order) + segment
    return ids.index_select(0, torch.argsort(keys, stable=True))


@dataclass(frozen=True)
class InputNoise:
    """The perturbations of one training configuration: ``dropout`` or ``word_dropout``
    (not both, as in the authors' code) and ``scramble``, each a rate; 0 switches it off
    and then draws nothing."""

    dropout: float = 0.0
    word_dropout: float = 0.0
    scramble: float = 0.0

    def __post_init__(self) -> None:
        for name in ("dropout", "word_dropout"):
            if not 0.0 <= getattr(self, name) < 1.0:
                raise ValueError(f"{name} must lie in [0, 1), got {getattr(self, name)}")
        if not 0.0 <= self.scramble <= 1.0:
            raise ValueError(f"scramble must lie in [0, 1], got {self.scramble}")
        if self.dropout and self.word_dropout:
            raise ValueError("dropout and word dropout cannot both be on (as in the authors' code)")

    def scrambled(
        self, ids: torch.Tensor, offsets: torch.Tensor, generator: torch.Generator
    ) -> torch.Tensor:
        """:func:`scramble` at this rate (``ids`` unchanged when off)."""
        return scramble(ids, offsets, self.scramble, generator) if self.scramble else ids

    def dropped(self, batch: SegmentBatch, generator: torch.Generator) -> SegmentBatch:
        """:func:`dropout` or :func:`word_dropout` at this rate (``batch`` unchanged when
        both are off)."""
        if self.dropout:
            return dropout(batch, self.dropout, generator)
        if self.word_dropout:
            return word_dropout(batch, self.word_dropout, generator)
        return batch
