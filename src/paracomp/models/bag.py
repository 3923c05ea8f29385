"""Additive composition (sum or mean of word rows) on CPU without autograd.

An objective that works out the gradient with respect to the composed vectors itself (see
:meth:`paracomp.losses.hinge.HingeObjective.loss_and_gradient`) needs no graph through
the composition either: :class:`AdditiveBag` composes the segments with one
``F.embedding_bag`` over the table and maps the vectors' gradient back to the rows of the
distinct tokens with :func:`~paracomp.models.sparse_rows.rows_gradient`. A step of J_bi or J_pa
on phrase pairs is made of small tensors, so what this saves is mostly per-op overhead
(autograd nodes, ``torch.unique``, ``repeat_interleave``).
"""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F

from paracomp.models.sparse_rows import rows_gradient


class AdditiveBag:
    """Segments ``ids``/``offsets`` (CPU, int64) summed (``mode="sum"``) or averaged over
    rows of ``table`` (detached); ``slot`` is the scratch of :func:`rows_gradient`."""

    def __init__(
        self,
        table: torch.Tensor,
        ids: torch.Tensor,
        offsets: torch.Tensor,
        mode: str,
        slot: np.ndarray,
    ):
        self.table, self.ids, self.offsets, self.mode, self._slot = table, ids, offsets, mode, slot
        self.vectors = F.embedding_bag(ids, table, offsets, mode=mode)

    def backward(
        self, segments: torch.Tensor, grad: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """The rows of the distinct tokens and their gradient, given that of :attr:`vectors`:
        ``grad[i]`` of vector ``segments[i]`` (summed over repeats; none where not listed)."""
        index, rows = rows_gradient(
            self.ids.numpy(),
            self.offsets.numpy(),
            segments.numpy(),
            grad.to(self.table.dtype).contiguous().numpy(),
            self.mode == "mean",
            self._slot,
        )
        return torch.from_numpy(index), torch.from_numpy(rows)
