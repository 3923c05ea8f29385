"""Convolutional composers of Scheepers et al. (2018, Eq. 6): wide convolutions over a
segment's word vectors, ``ReLU(conv + b)``, max-pooled over positions."""

from __future__ import annotations

from collections.abc import Mapping

import torch
from torch import nn

from paracomp.models.base import Composer, SegmentBatch


def filter_counts(dim: int, shares: Mapping[int, int]) -> dict[int, int]:
    """Filters per width: ``dim`` split in the proportions ``shares`` (width → share) by
    largest remainders, ties going to the width listed first; e.g. shares 150/75/50/25 give
    25/13/8/4 at ``dim=50`` and 64/32/21/11 at ``dim=128``."""
    total = sum(shares.values())
    counts = {width: dim * share // total for width, share in shares.items()}
    by_remainder = sorted(shares, key=lambda width: -(dim * shares[width] % total))
    for width in by_remainder[: dim - sum(counts.values())]:
        counts[width] += 1
    return counts


class _ShiftedSum(torch.autograd.Function):
    """``out[t] = Σ_k taps[t + k, k]`` of ``taps`` (T, width, count), ``(T − width + 1, count)``:
    the convolution from each token's product with each kernel position. Its backward writes
    the gradient into one buffer (slicing's own backward fills one per position)."""

    @staticmethod
    def forward(ctx, taps: torch.Tensor) -> torch.Tensor:
        width = taps.shape[1]
        positions = taps.shape[0] - width + 1
        ctx.shape = taps.shape
        out = taps[:positions, 0].clone()
        for k in range(1, width):
            out += taps[k : k + positions, k]
        return out

    @staticmethod
    def backward(ctx, grad: torch.Tensor) -> torch.Tensor:
        taps = grad.new_zeros(ctx.shape)
        positions = grad.shape[0]
        for k in range(ctx.shape[1]):
            taps[k : k + positions, k] = grad
        return taps


class ConvComposer(Composer):
    """For each width ``F`` of ``shares`` (width → share of the ``dim`` filters, see
    :func:`filter_counts`): a wide convolution (``F − 1`` zero vectors on each side of the
    segment), ``ReLU(conv + b)``, and the maximum over the ``length + F − 1`` positions whose
    window holds a real token; the maxima of all widths are concatenated. An empty segment
    composes to zero. Weights ``N(0, 0.1²)`` and biases zero, as in the authors' code. One
    convolution per width runs over the whole batch (:meth:`SegmentBatch.spaced`).

    Unlike the authors' code, which pools over every position of the sequence padded to 32
    tokens, windows of pads only do not count (they would put a floor of ``ReLU(b)`` under
    the output of short segments)."""

    def __init__(
        self,
        dim: int,
        generator: torch.Generator | None = None,
        *,
        shares: Mapping[int, int],
    ):
        counts = filter_counts(dim, shares)
        if min(counts.values()) < 1:
            raise ValueError(f"dim={dim} leaves no filters for some width of {dict(shares)}")
        super().__init__(dim)
        self.convs = nn.ModuleList(
            nn.utils.skip_init(nn.Conv1d, dim, count, width) for width, count in counts.items()
        )
        with torch.no_grad():
            for conv in self.convs:
                conv.weight.normal_(0.0, 0.1, generator=generator)
                conv.bias.zero_()

    def forward(self, batch: SegmentBatch) -> torch.Tensor:
        lengths = batch.lengths()
        pooled = []
        for conv in self.convs:
            width, count = conv.kernel_size[0], conv.out_channels
            spaced = batch.spaced(width - 1)
            # one product of every token with every kernel position, then shifted sums:
            # out[t] = Σ_k x[t + k] · w[:, :, k]; on a CPU, oneDNN's convolution over so few
            # channels ran at half this rate (cnn3579, dim 50)
            taps = spaced @ conv.weight.permute(1, 2, 0).flatten(1)
            out = _ShiftedSum.apply(taps.view(-1, width, count)) + conv.bias
            pooled.append(batch.reduce(torch.relu(out), "max", lengths + width - 1))
        return torch.cat(pooled, dim=1).masked_fill((lengths == 0).unsqueeze(1), 0.0)
