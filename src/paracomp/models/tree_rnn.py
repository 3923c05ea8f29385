"""The recursive neural network of Wieting et al. (2015), Eq. 1, over binary trees.

``g(p) = tanh(W [g(c1); g(c2)] + b)`` for an internal node with children ``c1`` (left) and
``c2`` (right), ``W`` (n × 2n), ``b`` (n); a leaf is its word vector (no nonlinearity), so a
one-word segment composes to its word vector and a bigram to one node (§4, §6.3; the MATLAB
``forwardpassWordDer.m`` computes ``tanh(W1 c1 + W2 c2 + b)`` with ``W = [W1 W2]``). An empty
segment composes to the zero vector.

Trees travel with the batch as merge lists (:mod:`paracomp.models.trees`): a
:class:`TreeBatch` is a :class:`SegmentBatch` plus each segment's merges, concatenated in
segment order, and their heights. A step runs **one matrix product per tree level**, over the
merges of that height in every segment of the batch, not one per node: all nodes of height
``h`` only need nodes of smaller height.

Initialisation: the authors load ``W`` and ``b`` from ``theta_init_25.mat``, which was never
released and whose construction is not described (digest §3.1). ``init="sum"`` (the
registry's ``tree_rnn``) is ``W = [I I] + U(−noise, noise)``, ``b = 0``: the RNN starts as the
tanh of the sum of its children; ``init="average"`` (the class default) is ``W = ½[I I] +
U(−noise, noise)``, as Socher et al.'s (2013) CVG, which weighs a word by ½ per level above
it; ``init="uniform"`` is Socher et al.'s (2011) RAE initialisation, from whose code the
MATLAB tree readers descend: ``W ~ U(−r, r)``, ``r = √(6 / (3n + 1))``, ``b = 0``. On
Annotated-PPDB test with 50-d PARAGRAM vectors (from GloVe) the untrained RNN scores
Spearman 0.22 (average) and 0.29 (sum) over right-branching trees, 0.24 and 0.30 over
spaCy dependency trees, vector addition 0.35: the sum start is the closer to the additive
model the RNN is compared with, and trains to above it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from paracomp.models.base import Composer, SegmentBatch
from paracomp.models.trees import check, left_branching, levels, right_branching

INITS = ("average", "sum", "uniform")
BRANCHINGS = {"right": right_branching, "left": left_branching}


@dataclass(frozen=True)
class TreeBatch(SegmentBatch):
    """A :class:`SegmentBatch` with a binary tree per segment: ``merges`` (M, 2) holds the
    ``max(L − 1, 0)`` merges of each segment of ``L`` tokens, segments one after the other,
    with the segment's local node ids (tokens ``0…L−1``, merge ``k`` is node ``L + k``, the
    root last), and ``heights`` (M,) the height of each merge (1 for a merge of two tokens)."""

    merges: torch.Tensor
    heights: torch.Tensor

    @classmethod
    def of(cls, batch: SegmentBatch, merges: torch.Tensor, heights: torch.Tensor) -> TreeBatch:
        return cls(batch.rows, batch.ids, batch.offsets, merges, heights)


@dataclass(frozen=True)
class Trees:
    """The trees of ``n`` segments, stored once for a data set: segment ``i``'s merges are
    ``merges[offsets[i]:offsets[i+1]]`` (local node ids), their heights alike."""

    merges: torch.Tensor
    heights: torch.Tensor
    offsets: torch.Tensor

    @classmethod
    def build(cls, trees: Sequence[np.ndarray], lengths: Sequence[int]) -> Trees:
        """From one merge array per segment (checked against its length)."""
        for merges, n in zip(trees, lengths, strict=True):
            check(merges, n)
        counts = np.array([max(n - 1, 0) for n in lengths], dtype=np.int64)
        offsets = np.zeros(len(counts) + 1, dtype=np.int64)
        np.cumsum(counts, out=offsets[1:])
        flat = [np.asarray(m, dtype=np.int64).reshape(-1, 2) for m in trees]
        heights = [levels(m, n) for m, n in zip(flat, lengths, strict=True)]
        return cls(
            torch.from_numpy(np.concatenate([np.empty((0, 2), np.int64), *flat])),
            torch.from_numpy(np.concatenate([np.empty(0, np.int64), *heights])),
            torch.from_numpy(offsets),
        )

    def take(self, index: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Merges and heights of the segments ``index``, one after the other (for
        :meth:`TreeBatch.of`)."""
        starts, ends = self.offsets[index], self.offsets[index + 1]
        counts = ends - starts
        total = int(counts.sum())
        shift = (starts - (counts.cumsum(0) - counts)).repeat_interleave(counts, output_size=total)
        positions = torch.arange(total, device=index.device) + shift
        return self.merges[positions], self.heights[positions]

    def to(self, device: torch.device) -> Trees:
        return Trees(self.merges.to(device), self.heights.to(device), self.offsets.to(device))

    def digest(self) -> str:
        """sha256 of the merges and offsets (a checkpoint is resumed on the same trees)."""
        data = [self.merges.cpu().numpy().tobytes(), self.offsets.cpu().numpy().tobytes()]
        return hashlib.sha256(b"".join(data)).hexdigest()


def branching_trees(
    lengths: torch.Tensor, side: str = "right"
) -> tuple[torch.Tensor, torch.Tensor]:
    """Merges and heights of right- (or left-) branching trees over segments of ``lengths``,
    laid out as :attr:`TreeBatch.merges`."""
    if side not in BRANCHINGS:
        raise ValueError(f"branching must be one of {sorted(BRANCHINGS)}, not {side!r}")
    counts = (lengths - 1).clamp_min(0)
    total = int(counts.sum())
    n = lengths.repeat_interleave(counts, output_size=total)
    k = torch.arange(total, device=lengths.device) - (counts.cumsum(0) - counts).repeat_interleave(
        counts, output_size=total
    )
    if side == "right":
        merges = torch.stack([n - 2 - k, n - 1 + k], dim=1)
    else:
        merges = torch.stack([torch.where(k == 0, 0, n + k - 1), k + 1], dim=1)
    return merges, k + 1


class TreeRNNComposer(Composer):
    """Eq. 1 over the trees of a :class:`TreeBatch`. A plain :class:`SegmentBatch` is composed
    over ``branching`` trees ("right" or "left") if given, else rejected."""

    def __init__(
        self,
        dim: int,
        generator: torch.Generator | None = None,
        init: str = "average",
        noise: float = 0.01,
        branching: str | None = None,
    ):
        super().__init__(dim)
        if init not in INITS:
            raise ValueError(f"init must be one of {INITS}, not {init!r}")
        if branching is not None and branching not in BRANCHINGS:
            raise ValueError(f"branching must be one of {sorted(BRANCHINGS)} or None")
        self.branching = branching
        weight = torch.empty(dim, 2 * dim)
        if init in ("average", "sum"):
            weight.uniform_(-noise, noise, generator=generator)
            eye = torch.eye(dim) / (2 if init == "average" else 1)
            weight += torch.cat([eye, eye], dim=1)
        else:
            r = (6.0 / (3 * dim + 1)) ** 0.5
            weight.uniform_(-r, r, generator=generator)
        self.weight = nn.Parameter(weight)
        self.bias = nn.Parameter(torch.zeros(dim))

    def forward(self, batch: SegmentBatch) -> torch.Tensor:
        if batch.grid is not None and not isinstance(batch, TreeBatch) and self.branching:
            return self._gridded(batch)
        lengths = batch.lengths()
        if isinstance(batch, TreeBatch):
            merges, heights = batch.merges, batch.heights
        elif self.branching is not None:
            merges, heights = branching_trees(lengths, self.branching)
        else:
            raise TypeError("the tree RNN needs a TreeBatch (or a default branching)")
        tokens = batch.tokens()
        counts = (lengths - 1).clamp_min(0)
        total = int(counts.sum())
        if merges.shape != (total, 2):
            raise ValueError(f"{len(batch)} segments need {total} merges, got {merges.shape}")
        if tokens.shape[0] == 0:
            return tokens.new_zeros(len(batch), self.dim)
        states, slot, first = tokens, None, counts.cumsum(0) - counts
        if total:
            states, slot = self._merge(batch, tokens, merges, heights, counts, first)
        root = batch.offsets.clamp_max(tokens.shape[0] - 1)  # one token: the token itself
        if slot is not None:
            root = torch.where(counts > 0, slot[(first + counts - 1).clamp_min(0)], root)
        return states[root] * (lengths > 0).unsqueeze(1).to(states.dtype)

    def _gridded(self, batch: SegmentBatch) -> torch.Tensor:
        """A :class:`~paracomp.models.base.StaticLayout` batch over its ``branching`` trees, one
        step per grid position: right-branching from each segment's last token leftwards
        (``h ← tanh(W [x_t; h] + b)``), left-branching from its first rightwards (``h ←
        tanh(W [h; x_t] + b)``), the same merges as the levels of :meth:`forward`, in shapes
        that do not depend on the lengths."""
        assert batch.grid is not None and batch.mask is not None
        tokens = batch.on_grid()  # (n, width, dim)
        lengths = batch.mask.sum(1, keepdim=True)
        right = self.branching == "right"
        h = tokens.new_zeros(tokens.shape[0], self.dim)
        width = tokens.shape[1]
        for t in range(width - 1, -1, -1) if right else range(width):
            x = tokens[:, t]
            pair = torch.cat([x, h] if right else [h, x], dim=1)
            merged = torch.tanh(torch.addmm(self.bias, pair, self.weight.T))
            leaf = (lengths - 1 == t) if right else (lengths > 0) & (t == 0)
            inner = (t < lengths - 1) if right else (t > 0) & (t < lengths)
            h = torch.where(leaf, x, torch.where(inner, merged, h))
        return h

    def _merge(
        self,
        batch: SegmentBatch,
        tokens: torch.Tensor,
        merges: torch.Tensor,
        heights: torch.Tensor,
        counts: torch.Tensor,
        first: torch.Tensor,
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """The vectors of all nodes (tokens, then merges by height) and each merge's row."""
        n_tokens, total, device = tokens.shape[0], merges.shape[0], tokens.device
        segment = torch.arange(len(batch), device=device).repeat_interleave(
            counts, output_size=total
        )
        order = torch.sort(heights, stable=True).indices
        slot = torch.empty_like(order)
        slot[order] = torch.arange(n_tokens, n_tokens + total, device=device)
        length = batch.lengths()[segment].unsqueeze(1)
        is_token = merges < length
        token = merges.clamp_max(length - 1) + batch.offsets[segment].unsqueeze(1)
        inner = (merges - length).clamp_min(0) + first[segment].unsqueeze(1)
        children = torch.where(is_token, token, slot[inner])[order]
        states, start = tokens, 0
        for size in torch.bincount(heights)[1:].tolist():
            pairs = states[children[start : start + size].reshape(-1)].reshape(size, -1)
            states = torch.cat([states, torch.tanh(torch.addmm(self.bias, pairs, self.weight.T))])
            start += size
        return states, slot
