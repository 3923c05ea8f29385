"""What every composer shares: the :class:`SegmentBatch` it composes, the :class:`Composer`
base class and the :class:`ComposerFactory` signature of the registry in
:mod:`paracomp.models.algebraic`."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Protocol

import torch
from torch import nn


@dataclass(frozen=True)
class SegmentBatch:
    """``n`` segments: ``rows`` are the word rows they use, ``ids`` index ``rows`` (segments
    concatenated) and ``offsets[i]`` is where segment ``i`` starts in ``ids``."""

    rows: torch.Tensor
    ids: torch.Tensor
    offsets: torch.Tensor

    def __len__(self) -> int:
        return self.offsets.numel()

    def lengths(self) -> torch.Tensor:
        """The number of tokens of each segment, ``(n,)``."""
        return torch.diff(self.offsets, append=self.offsets.new_tensor([self.ids.numel()]))

    def tokens(self) -> torch.Tensor:
        """The rows of all tokens, segments concatenated, ``(N, word_width)``."""
        return self.rows.index_select(0, self.ids)

    def spaced(self, gap: int) -> torch.Tensor:
        """The rows of all tokens with ``gap`` zero rows before each segment and after the
        last, ``(N + gap·(n + 1), word_width)``: a valid convolution of width ``gap + 1`` over
        it gives each segment its wide convolution, the segments' positions one after the
        other. Pads get no gradient."""
        total, width = self.ids.numel(), self.rows.shape[1]
        segment = torch.repeat_interleave(self.lengths(), output_size=total)
        where = torch.arange(total, device=self.ids.device) + gap * (segment + 1)
        spaced = self.rows.new_zeros(total + gap * (len(self) + 1), width)
        return spaced.index_copy(0, where, self.tokens())

    def packed(self, reverse: bool = False) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """``(data, batch_sizes, places)``, the layout of a
        :class:`~torch.nn.utils.rnn.PackedSequence`: the segments sorted by decreasing length
        (ties in batch order; segment ``i`` at place ``places[i]``) and step ``t`` holding the
        rows of token ``t`` of the ``batch_sizes[t]`` segments longer than ``t`` (an int64 CPU
        tensor; empty segments are in no step). ``reverse`` takes the tokens last to first."""
        where, batch_sizes, places = self.packing(reverse)
        ids = torch.empty_like(self.ids).index_copy_(0, where, self.ids)
        return self.rows.index_select(0, ids), batch_sizes, places

    def packing(self, reverse: bool = False) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """``(where, batch_sizes, places)`` of :meth:`packed`: token ``k`` (``ids`` order)
        goes to row ``where[k]`` of the packed data."""
        lengths = self.lengths()
        n, total, device = len(self), self.ids.numel(), self.ids.device
        order = torch.sort(lengths, descending=True, stable=True).indices
        places = torch.empty_like(order).scatter_(0, order, torch.arange(n, device=device))
        batch_sizes = n - torch.bincount(lengths.cpu(), minlength=1).cumsum(0)[:-1]
        step_start = (batch_sizes.cumsum(0) - batch_sizes).to(device)
        segment = torch.repeat_interleave(lengths, output_size=total)
        step = torch.arange(total, device=device) - self.offsets.index_select(0, segment)
        if reverse:
            step = lengths.index_select(0, segment) - 1 - step
        where = step_start.index_select(0, step) + places.index_select(0, segment)
        return where, batch_sizes, places


class Composer(nn.Module, ABC):
    """Maps a :class:`SegmentBatch` of ``n`` segments to an ``(n, dim)`` tensor."""

    def __init__(self, dim: int, word_width: int | None = None):
        super().__init__()
        self.dim = dim
        self.word_width = dim if word_width is None else word_width

    @abstractmethod
    def forward(self, batch: SegmentBatch) -> torch.Tensor: ...

    def words(self, rows: torch.Tensor) -> torch.Tensor:
        """Each of ``rows`` composed as a one-token segment, ``(n, dim)``: target words, which
        are never padded (CompVec's lemmas)."""
        singles = torch.arange(rows.shape[0], device=rows.device)
        return self(SegmentBatch(rows, singles, singles))


class ComposerFactory(Protocol):
    """Builds a composer of output dimension ``dim``, drawing its initial parameters, if any,
    from ``generator`` only (from torch's global generator when ``None``)."""

    def __call__(self, dim: int, generator: torch.Generator | None = None) -> Composer: ...
