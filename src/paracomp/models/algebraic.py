"""Algebraic composers: sum and mean (with :class:`_Bag`'s fast backward), element-wise
product and maximum, and the projected sum of Scheepers et al. (2018). A segment's vector never
depends on the other segments of its batch, and an empty segment composes to the zero vector
(``product``: ones, ``sum_proj``: ``tanh(b)``, the value of an empty sum)."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from paracomp.models.base import Composer, SegmentBatch, reduce_before_pads


class _Bag(torch.autograd.Function):
    """``F.embedding_bag`` (sum or mean) whose backward is one ``index_add_`` into the rows:
    on CPU about twice as fast as the sort-based backward of ``embedding_bag``. With ``pads``
    (:attr:`SegmentBatch.pads`) the last segment's tokens are skipped and its vector is zero:
    ``embedding_bag`` on a GPU walks each segment in one thread."""

    @staticmethod
    def forward(
        ctx, rows: torch.Tensor, ids: torch.Tensor, offsets: torch.Tensor, mode: str, pads: bool
    ):
        lengths = torch.diff(offsets, append=offsets.new_full((1,), ids.numel()))
        ctx.save_for_backward(ids, lengths)
        ctx.mean, ctx.n_rows, ctx.pads = mode == "mean", rows.shape[0], pads
        if not pads:
            return F.embedding_bag(ids, rows, offsets, mode=mode)
        # not ``embedding_bag(include_last_offset=True)``: its float64 CPU kernel reads on
        # to the end (torch 2.13)
        total = reduce_before_pads(rows.index_select(0, ids), "sum", offsets)
        return total / lengths.clamp_min(1).unsqueeze(1).to(total.dtype) if ctx.mean else total

    @staticmethod
    def backward(ctx, grad: torch.Tensor) -> tuple[torch.Tensor, None, None, None, None]:
        ids, lengths = ctx.saved_tensors
        if ctx.pads:
            grad = F.pad(grad[:-1], (0, 0, 0, 1))
        if ctx.mean:
            grad = grad / lengths.clamp_min(1).unsqueeze(1).to(grad.dtype)
        per_token = grad.repeat_interleave(lengths, dim=0, output_size=ids.numel())
        rows = grad.new_zeros(ctx.n_rows, grad.shape[1]).index_add_(0, ids, per_token)
        return rows, None, None, None, None


class AdditiveComposer(Composer):
    """Sum (``g(x) = Σ W[:, i]``, BiCVM and J_bi) or mean (Wieting's word averaging) of the
    word vectors; an empty segment composes to the zero vector."""

    def __init__(self, dim: int, mode: str = "sum"):
        if mode not in ("sum", "mean"):
            raise ValueError(f"additive mode must be 'sum' or 'mean', not {mode!r}")
        super().__init__(dim)
        self.mode = mode

    def forward(self, batch: SegmentBatch) -> torch.Tensor:
        return _Bag.apply(batch.rows, batch.ids, batch.offsets, self.mode, batch.pads)


class ProductComposer(Composer):
    """Element-wise product of a segment's word vectors (the authors' code sets pads to ones,
    to the same effect); an empty segment composes to the empty product, the ones vector."""

    def forward(self, batch: SegmentBatch) -> torch.Tensor:
        return batch.reduce(batch.tokens(), "prod")


class MaxComposer(Composer):
    """Element-wise maximum over a segment's word vectors; an empty segment composes to zero.
    The maximum runs over the segment's own tokens only: no pad and no other segment of the
    batch takes part.

    ``pad_to`` (composer ``max_pad``) reproduces Scheepers et al.'s code on the segments it
    pads: definitions and SentEval sentences are zero-padded to 32 positions
    (``x_max_length``, pads masked to zero vectors) and ``tf.reduce_max`` runs over all of
    them (``model.py: c_fn``), so a segment shorter than ``pad_to`` tokens composes to
    ``max(0, max_i x_i)``, a fixed floor of zero (not padding: it does not depend on the
    batch). Target words are never padded (:meth:`words`). The paper's definition is
    ``pad_to=None``."""

    def __init__(self, dim: int, pad_to: int | None = None):
        super().__init__(dim)
        self.pad_to = pad_to

    def forward(self, batch: SegmentBatch) -> torch.Tensor:
        lengths = batch.lengths()
        top = batch.reduce(batch.tokens(), "max", lengths)
        if self.pad_to is None:
            return top.masked_fill((lengths == 0).unsqueeze(1), 0.0)
        return torch.where((lengths < self.pad_to).unsqueeze(1), top.clamp_min(0.0), top)

    def words(self, rows: torch.Tensor, static: bool = False) -> torch.Tensor:
        """A word is its own maximum, negative entries included, with or without ``pad_to``:
        in the authors' code a target is padded to ``y_max_length = 1`` position (itself), so
        the maximum over a lemma is the lemma's vector."""
        return rows


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
        return torch.tanh(
            self.proj(_Bag.apply(batch.rows, batch.ids, batch.offsets, "sum", batch.pads))
        )
