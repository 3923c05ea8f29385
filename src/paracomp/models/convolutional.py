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
            gap = conv.kernel_size[0] - 1
            h = torch.relu(conv(batch.spaced(gap).T.unsqueeze(0))[0])
            pooled.append(batch.reduce(h.T, "max", lengths + gap))
        return torch.cat(pooled, dim=1).masked_fill((lengths == 0).unsqueeze(1), 0.0)
