"""What every composer shares: the :class:`SegmentBatch` it composes, the
:class:`StaticLayout` that gives a batch shapes fixed by its size, the :class:`Composer` base
class and the :class:`ComposerFactory` signature of the registry in
:mod:`paracomp.models.registry`."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Protocol

import torch
import torch.nn.functional as F
from torch import nn


def reduce_before_pads(rows: torch.Tensor, how: str, starts: torch.Tensor) -> torch.Tensor:
    """``torch.segment_reduce`` (``how``) of the segments of ``rows`` that start at ``starts``,
    the last start being where a :class:`StaticLayout`'s pads begin: the pads are not walked
    and their row is zero."""
    return F.pad(torch.segment_reduce(rows, how, offsets=starts, unsafe=True), (0, 0, 0, 1))


@dataclass(frozen=True)
class SegmentBatch:
    """``n`` segments: ``rows`` are the word rows they use, ``ids`` index ``rows`` (segments
    concatenated) and ``offsets[i]`` is where segment ``i`` starts in ``ids``."""

    rows: torch.Tensor
    ids: torch.Tensor
    offsets: torch.Tensor
    grid: torch.Tensor | None = field(default=None, kw_only=True)
    """(n, width): position ``j`` of segment ``i`` is ``ids[grid[i, j]]`` where ``mask[i, j]``
    (a :class:`StaticLayout` batch; composers that step over positions use it instead of the
    packed layout, whose shapes depend on the lengths)."""
    mask: torch.Tensor | None = field(default=None, kw_only=True)
    pads: bool = field(default=False, kw_only=True)
    """The last segment is a :class:`StaticLayout`'s pads, whose vector is dropped: reductions
    over segments (:meth:`reduce`, the sum and mean composers) skip its tokens and give it
    zeros. A GPU kernel walks each segment in one thread, and the pads are often most of a
    batch's positions (a CompVec step at batch 512 spent 1.7 of its 2.1 ms on them)."""

    def __len__(self) -> int:
        return self.offsets.numel()

    def lengths(self) -> torch.Tensor:
        """The number of tokens of each segment, ``(n,)``."""
        return torch.diff(self.offsets, append=self.offsets.new_full((1,), self.ids.numel()))

    def reduce(
        self, rows: torch.Tensor, how: str, lengths: torch.Tensor | None = None
    ) -> torch.Tensor:
        """``torch.segment_reduce`` (``how``) of ``rows``, the segments' rows concatenated,
        ``lengths`` of them each (default :meth:`lengths`); the pads' row (:attr:`pads`) is
        zero."""
        lengths = self.lengths() if lengths is None else lengths
        if not self.pads:
            return torch.segment_reduce(rows, how, lengths=lengths, unsafe=True)
        return reduce_before_pads(rows, how, torch.cumsum(lengths, 0) - lengths)

    def mean(self, rows: torch.Tensor) -> torch.Tensor:
        """The mean of each segment's rows (``rows``: one per token, segments concatenated),
        zero for an empty segment."""
        lengths = self.lengths()
        return self.reduce(rows, "sum", lengths) / lengths.clamp_min(1).unsqueeze(1).to(rows.dtype)

    def tokens(self) -> torch.Tensor:
        """The rows of all tokens, segments concatenated, ``(N, word_width)``."""
        return self.rows.index_select(0, self.ids)

    def on_grid(self, grid: torch.Tensor | None = None) -> torch.Tensor:
        """The token rows at each position of ``grid`` (default :attr:`grid`), shape
        ``grid.shape + (word_width,)``: one ``index_select``, whose backward is an
        ``index_add_``. Not ``tokens()[grid]``: the backward of that indexing sorts the
        positions, and on a GPU the many pads at position 0 then run in one thread (5 of a
        CompVec GRU step's 6.4 ms at batch 512)."""
        grid = self.grid if grid is None else grid
        assert grid is not None
        rows = self.rows.index_select(0, self.ids.index_select(0, grid.reshape(-1)))
        return rows.view(*grid.shape, rows.shape[1])

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


@dataclass(frozen=True)
class StaticLayout:
    """``n`` segments given as a padded grid (``n × width`` token ids, segment ``i``'s
    ``lengths[i]`` tokens first) laid out as a :class:`SegmentBatch` of ``n + 1`` segments whose
    shapes depend on ``n`` and ``width`` only, built without reading anything back on the host:
    the real tokens in segment order, then the ``n·width − Σ lengths`` pads as one last segment,
    which composers compose like any other and whose vector is dropped (:meth:`batch`). So a
    step over it can be captured in a CUDA graph and replayed for any lengths; each real
    segment composes as it does in a batch of its own tokens (composers never mix segments).

    ``order`` gives the grid's flat positions in that layout, ``offsets`` (``n + 1``) where each
    segment starts, ``grid`` and ``mask`` (``(n + 1) × width``) where each position of each
    segment is (the pad segment: nowhere)."""

    order: torch.Tensor
    offsets: torch.Tensor
    grid: torch.Tensor
    mask: torch.Tensor

    @classmethod
    def build(cls, lengths: torch.Tensor, width: int) -> StaticLayout:
        positions = torch.arange(width, device=lengths.device)
        mask = positions < lengths.unsqueeze(1)
        order = torch.sort((~mask).view(-1).to(torch.uint8), stable=True).indices
        starts = torch.cumsum(lengths, 0) - lengths
        offsets = torch.cat([starts, lengths.sum().view(1)])
        mask = torch.cat([mask, mask.new_zeros(1, width)])
        grid = (offsets.unsqueeze(1) + positions).masked_fill_(~mask, 0)
        return cls(order, offsets, grid, mask)

    def ids(self, grid_ids: torch.Tensor) -> torch.Tensor:
        """The token ids of the grid ``grid_ids`` (``n × width``) in the layout's order."""
        return grid_ids.reshape(-1).index_select(0, self.order)

    def batch(self, rows: torch.Tensor) -> SegmentBatch:
        """The batch of the tokens' rows ``rows`` (``n·width`` of them, in the layout's
        order); its composed vectors' last row is the pad segment's."""
        local = torch.arange(rows.shape[0], device=rows.device)
        return SegmentBatch(rows, local, self.offsets, grid=self.grid, mask=self.mask, pads=True)


def padded_tokens(batch: SegmentBatch, width: int) -> tuple[torch.Tensor, torch.Tensor]:
    """``batch``'s token rows followed by zero rows up to ``len(batch)·width`` (``width`` at
    least its longest segment), and its lengths: the arguments of :class:`Gridded`, whose
    shapes depend on ``len(batch)`` and ``width`` only."""
    tokens = batch.tokens()
    pads = tokens.new_zeros(len(batch) * width - tokens.shape[0], tokens.shape[1])
    return torch.cat([tokens, pads]), batch.lengths()


class Gridded(nn.Module):
    """``composer`` over :class:`StaticLayout` batches of ``width`` positions:
    ``forward(*padded_tokens(batch, width))`` is ``composer(batch)``, in shapes fixed by the
    number of segments and ``width`` (so it can be captured in a CUDA graph, forward and
    backward)."""

    def __init__(self, composer: Composer, width: int):
        super().__init__()
        self.composer, self.width = composer, width

    def forward(self, tokens: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        return self.composer(StaticLayout.build(lengths, self.width).batch(tokens))[:-1]


class Composer(nn.Module, ABC):
    """Maps a :class:`SegmentBatch` of ``n`` segments to an ``(n, dim)`` tensor."""

    def __init__(self, dim: int, word_width: int | None = None):
        super().__init__()
        self.dim = dim
        self.word_width = dim if word_width is None else word_width

    @abstractmethod
    def forward(self, batch: SegmentBatch) -> torch.Tensor: ...

    def words(self, rows: torch.Tensor, static: bool = False) -> torch.Tensor:
        """Each of ``rows`` composed as a one-token segment, ``(n, dim)``: target words, which
        are never padded (CompVec's lemmas); ``static`` lays them out as a one-position grid
        (:attr:`SegmentBatch.grid`)."""
        singles = torch.arange(rows.shape[0], device=rows.device)
        if not static:
            return self(SegmentBatch(rows, singles, singles))
        mask = torch.ones(rows.shape[0], 1, dtype=torch.bool, device=rows.device)
        offsets = torch.arange(rows.shape[0], device=rows.device)  # not ``singles``: Dynamo
        # traces no autograd.Function given one tensor twice
        return self(SegmentBatch(rows, singles, offsets, grid=singles.view(-1, 1), mask=mask))


class ComposerFactory(Protocol):
    """Builds a composer of output dimension ``dim``, drawing its initial parameters, if any,
    from ``generator`` only (from torch's global generator when ``None``)."""

    def __call__(self, dim: int, generator: torch.Generator | None = None) -> Composer: ...


def normal_parameter(
    shape: tuple[int, ...], std: float, generator: torch.Generator | None
) -> nn.Parameter:
    """A parameter of ``shape`` drawn from ``N(0, std²)`` with ``generator``."""
    return nn.Parameter(torch.empty(shape).normal_(0.0, std, generator=generator))
