"""Composition functions: a batch of segments (word rows plus token ids) to one vector each.

A composer never owns the word embeddings: the model gathers the rows of the distinct tokens of
a batch (see :mod:`paracomp.train.model`) and hands them over in a :class:`SegmentBatch` with
the tokens as indices into those rows. Other composers (e.g. Gaussian operators) plug in by
subclassing :class:`Composer` (``word_width`` is the width of one word's row, e.g. ``2·dim`` for
a word operator with a shift and a scale) and registering in :data:`COMPOSERS`.

Besides sum and mean, the registry holds the composition functions of Scheepers et al. (2018):
element-wise ``product`` and ``max``, ``sum_proj``, the recurrent ``rnn``, ``gru`` and ``bigru``
(:mod:`paracomp.train.recurrent`) and the convolutional ``cnn3`` and ``cnn3579``
(:mod:`paracomp.train.convolutional`). A segment's vector never depends on the other segments
of its batch, and an empty segment composes to the zero vector (``product``: ones,
``sum_proj``: ``tanh(b)``, the value of an empty sum).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

import torch
import torch.nn.functional as F
from torch import nn

from paracomp.train.convolutional import ConvComposer
from paracomp.train.recurrent import BiGRUComposer, RecurrentComposer
from paracomp.train.segments import Composer, ComposerFactory, SegmentBatch

__all__ = [
    "COMPOSERS",
    "AdditiveComposer",
    "Composer",
    "ComposerFactory",
    "MaxComposer",
    "ProductComposer",
    "ProjectedSumComposer",
    "SegmentBatch",
]


class _Bag(torch.autograd.Function):
    """``F.embedding_bag`` (sum or mean) whose backward is one ``index_add_`` into the rows:
    on CPU about twice as fast as the sort-based backward of ``embedding_bag``."""

    @staticmethod
    def forward(ctx, rows: torch.Tensor, ids: torch.Tensor, offsets: torch.Tensor, mode: str):
        lengths = torch.diff(offsets, append=offsets.new_tensor([ids.numel()]))
        ctx.save_for_backward(ids, lengths)
        ctx.mean, ctx.n_rows = mode == "mean", rows.shape[0]
        return F.embedding_bag(ids, rows, offsets, mode=mode)

    @staticmethod
    def backward(ctx, grad: torch.Tensor) -> tuple[torch.Tensor, None, None, None]:
        ids, lengths = ctx.saved_tensors
        if ctx.mean:
            grad = grad / lengths.clamp_min(1).unsqueeze(1).to(grad.dtype)
        per_token = grad.repeat_interleave(lengths, dim=0, output_size=ids.numel())
        rows = grad.new_zeros(ctx.n_rows, grad.shape[1]).index_add_(0, ids, per_token)
        return rows, None, None, None


class AdditiveComposer(Composer):
    """Sum (``g(x) = Σ W[:, i]``, BiCVM and J_bi) or mean (Wieting's word averaging) of the
    word vectors; an empty segment composes to the zero vector."""

    def __init__(self, dim: int, mode: str = "sum"):
        if mode not in ("sum", "mean"):
            raise ValueError(f"additive mode must be 'sum' or 'mean', not {mode!r}")
        super().__init__(dim)
        self.mode = mode

    def forward(self, batch: SegmentBatch) -> torch.Tensor:
        return _Bag.apply(batch.rows, batch.ids, batch.offsets, self.mode)


class ProductComposer(Composer):
    """Element-wise product of a segment's word vectors (the authors' code sets pads to ones,
    to the same effect); an empty segment composes to the empty product, the ones vector."""

    def forward(self, batch: SegmentBatch) -> torch.Tensor:
        return torch.segment_reduce(batch.tokens(), "prod", lengths=batch.lengths(), unsafe=True)


class MaxComposer(Composer):
    """Element-wise maximum over a segment's word vectors; an empty segment composes to zero.

    With ``pad_to`` it is the authors' code, which takes the maximum over all ``pad_to``
    padded positions, zero pads included: ``max(0, max_i x_i)`` for segments shorter than
    ``pad_to`` tokens (the paper's definition is ``pad_to=None``)."""

    def __init__(self, dim: int, pad_to: int | None = None):
        super().__init__(dim)
        self.pad_to = pad_to

    def forward(self, batch: SegmentBatch) -> torch.Tensor:
        lengths = batch.lengths()
        top = torch.segment_reduce(batch.tokens(), "max", lengths=lengths, unsafe=True)
        if self.pad_to is None:
            return top.masked_fill((lengths == 0).unsqueeze(1), 0.0)
        return torch.where((lengths < self.pad_to).unsqueeze(1), top.clamp_min(0.0), top)


class ProjectedSumComposer(Composer):
    """``tanh(W·Σx + b)`` (Scheepers et al.'s "+ Proj.", Eq. 3), ``W ~ N(0, 0.01²)``, ``b = 0``;
    an empty segment composes to ``tanh(b)``, zero at initialisation."""

    def __init__(self, dim: int, generator: torch.Generator | None = None):
        super().__init__(dim)
        self.proj = nn.utils.skip_init(nn.Linear, dim, dim)
        with torch.no_grad():
            self.proj.weight.normal_(0.0, 0.01, generator=generator)
            self.proj.bias.zero_()

    def forward(self, batch: SegmentBatch) -> torch.Tensor:
        return torch.tanh(self.proj(_Bag.apply(batch.rows, batch.ids, batch.offsets, "sum")))


def _without_parameters(make: Callable[[int], Composer]) -> ComposerFactory:
    """The factory of a composer that has nothing to initialise."""

    def factory(dim: int, generator: torch.Generator | None = None) -> Composer:
        return make(dim)

    return factory


COMPOSERS: dict[str, ComposerFactory] = {
    "sum": _without_parameters(partial(AdditiveComposer, mode="sum")),
    "mean": _without_parameters(partial(AdditiveComposer, mode="mean")),
    "product": _without_parameters(ProductComposer),
    "max": _without_parameters(MaxComposer),
    "max_pad": _without_parameters(partial(MaxComposer, pad_to=32)),
    "sum_proj": ProjectedSumComposer,
    "rnn": partial(RecurrentComposer, cell=nn.RNN),
    "gru": partial(RecurrentComposer, cell=nn.GRU),
    "bigru": BiGRUComposer,
    "cnn3": partial(ConvComposer, shares={3: 1}),
    "cnn3579": partial(ConvComposer, shares={3: 150, 5: 75, 7: 50, 9: 25}),
}
"""Composer factories by config name; each takes the output dimension and, optionally, the
generator to draw the initial parameters from (see :class:`ComposerFactory`)."""
