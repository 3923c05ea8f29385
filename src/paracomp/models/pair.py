"""The trained model: one embedding table for both sides' vocabularies, and a composer.

Each step gathers the rows of the distinct tokens of the batch once, as a leaf tensor; a hook
hands their gradient to the table as a coalesced sparse tensor (what a sparse ``nn.Embedding``
produces, minus duplicates), so optimisers touch only those rows and any ``torch.optim``
optimiser that takes sparse gradients works. Compared with a sparse ``EmbeddingBag`` over the
whole table plus ``torch.optim.Adagrad``, this avoids sorting and coalescing one gradient row
per token and ``sparse_mask``: 2–10× faster on CPU.

Additive composers on CPU also offer :meth:`PairModel.bag`, composition without autograd, for
objectives that work out the gradient themselves, as a :class:`RowGradient` that goes straight
to the optimiser (:meth:`~paracomp.train.optim.Optimizers.step_rows`) or, through
:meth:`PairModel.loss_with_gradient`, to autograd (the same coalesced sparse gradient).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from paracomp.models.algebraic import AdditiveComposer
from paracomp.models.bag import AdditiveBag
from paracomp.models.base import Composer, SegmentBatch
from paracomp.models.tree_rnn import TreeBatch

BatchTrees = tuple[torch.Tensor, torch.Tensor]
"""The merges and heights of a batch's segments (:class:`TreeBatch`)."""


@dataclass(frozen=True)
class RowGradient:
    """A gradient with respect to the word table that is zero outside rows ``index``
    (distinct); ``grad[i]`` is that of row ``index[i]``."""

    index: torch.Tensor
    grad: torch.Tensor

    def sparse(self, shape: torch.Size) -> torch.Tensor:
        """As a coalesced sparse COO tensor of the table's ``shape`` (rows in order)."""
        index, order = self.index.sort()
        return torch.sparse_coo_tensor(
            index.unsqueeze(0),
            self.grad.index_select(0, order),
            shape,
            is_coalesced=True,
            check_invariants=False,
        )


class PairModel(nn.Module):
    """Word rows (``n_rows × composer.word_width``, normal init with std ``init_scale``)
    composed by ``composer``."""

    def __init__(
        self, composer: Composer, n_rows: int, init_scale: float, generator: torch.Generator
    ):
        super().__init__()
        self.composer = composer
        # composes in the composer's place where set: the same function, e.g. replayed from
        # CUDA graphs (paracomp.train.cuda_graph.GriddedComposer)
        self.runner: Callable[[SegmentBatch], torch.Tensor] | None = None
        weight = torch.empty(n_rows, composer.word_width)
        weight.normal_(0.0, init_scale, generator=generator)
        self.weight = nn.Parameter(weight)
        self._slot = np.full(n_rows, -1, dtype=np.int64)  # scratch of AdditiveBag

    def lookup(
        self, ids: torch.Tensor, offsets: torch.Tensor, trees: BatchTrees | None = None
    ) -> SegmentBatch:
        """The segments as a :class:`SegmentBatch` over the rows of their distinct tokens (a
        :class:`TreeBatch` with ``trees``, their merges and heights)."""
        index, local = torch.unique(ids, sorted=True, return_inverse=True)
        rows = self.weight.detach().index_select(0, index)
        if torch.is_grad_enabled():
            rows.requires_grad_()
            rows.register_hook(lambda grad: _accumulate(self.weight, RowGradient(index, grad)))
        if trees is not None:
            return TreeBatch(rows, local, offsets, *trees)
        return SegmentBatch(rows, local, offsets)

    def compose(
        self,
        ids: torch.Tensor,
        offsets: torch.Tensor,
        norm: bool = False,
        trees: BatchTrees | None = None,
    ) -> tuple[torch.Tensor, torch.Tensor | None]:
        """The composed segments and, with ``norm``, the squared norm of the rows of their
        distinct tokens (each row once)."""
        segments = self.lookup(ids, offsets, trees)
        return self.composed(segments), segments.rows.pow(2).sum() if norm else None

    def composed(self, batch: SegmentBatch) -> torch.Tensor:
        """``composer(batch)``, by :attr:`runner` where set."""
        return self.composer(batch) if self.runner is None else self.runner(batch)

    def forward(self, ids: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
        return self.compose(ids, offsets)[0]

    @property
    def has_bag(self) -> bool:
        """Whether :meth:`bag` works: an additive composer, on CPU."""
        return isinstance(self.composer, AdditiveComposer) and self.weight.device.type == "cpu"

    def bag(self, ids: torch.Tensor, offsets: torch.Tensor) -> AdditiveBag:
        """The segments composed without autograd (only if :attr:`has_bag`)."""
        assert isinstance(self.composer, AdditiveComposer)
        return AdditiveBag(self.weight.detach(), ids, offsets, self.composer.mode, self._slot)

    def loss_with_gradient(self, loss: torch.Tensor, rows: RowGradient) -> torch.Tensor:
        """``loss`` (a scalar without autograd history) as a loss whose gradient with respect
        to the table is ``rows``."""
        return _KnownGradient.apply(self.weight, loss, rows.index, rows.grad)

    def sparse_parameters(self) -> list[nn.Parameter]:
        """Parameters whose gradients are sparse (the word rows)."""
        return [self.weight]

    def dense_parameters(self) -> list[nn.Parameter]:
        """Parameters with dense gradients (those of the composer, if any)."""
        return list(self.composer.parameters())


def _accumulate(weight: nn.Parameter, rows: RowGradient) -> None:
    """Add ``rows`` to ``weight.grad`` as a coalesced sparse tensor."""
    sparse = rows.sparse(weight.shape)
    weight.grad = sparse if weight.grad is None else weight.grad + sparse


class _KnownGradient(torch.autograd.Function):
    """A scalar loss whose gradient with respect to ``weight`` is already known. Backwards it
    goes to ``weight.grad`` as :func:`_accumulate` puts it, not through autograd, which would
    drop the sparse tensor's coalesced flag (and so coalesce it again in the optimiser)."""

    @staticmethod
    def forward(
        ctx, weight: torch.Tensor, loss: torch.Tensor, index: torch.Tensor, grad: torch.Tensor
    ) -> torch.Tensor:
        ctx.save_for_backward(weight, index, grad)
        return loss.clone()

    @staticmethod
    def backward(ctx, scale: torch.Tensor) -> tuple[None, None, None, None]:
        weight, index, grad = ctx.saved_tensors
        _accumulate(weight, RowGradient(index, grad if scale.item() == 1.0 else grad * scale))
        return None, None, None, None
