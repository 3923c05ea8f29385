"""Boundary tags (Wieting & Gimpel 2017, footnote 4): learned start/end rows a segment gets
before it is composed (config ``boundary_tags``)."""

from __future__ import annotations

import torch
from torch import nn

from paracomp.models.base import SegmentBatch, normal_parameter

TAGS = ("none", "sos", "eos", "both")
"""Boundary tags a segment gets before it is composed (config ``boundary_tags``)."""


class BoundaryTags(nn.Module):
    """Footnote 4's EOS/SOS tags: a learned start row before each non-empty segment's tokens
    and/or an end row after them (``tags`` ``sos``, ``eos``, ``both``; ``none`` adds nothing
    and has no parameters). The rows are the composer's parameters, ``N(0, 0.1²)``: the
    released code has no tags, and a composer that owns them needs no vocabulary entry, at
    training or test time. An empty segment stays empty (it composes to zero)."""

    def __init__(self, dim: int, tags: str, generator: torch.Generator | None):
        if tags not in TAGS:
            raise ValueError(f"boundary_tags must be one of {TAGS}, not {tags!r}")
        super().__init__()
        self.tags = tags
        self.sos = normal_parameter((dim,), 0.1, generator) if tags in ("sos", "both") else None
        self.eos = normal_parameter((dim,), 0.1, generator) if tags in ("eos", "both") else None

    def forward(self, batch: SegmentBatch) -> tuple[SegmentBatch, torch.Tensor | None]:
        """The tagged batch and which of its tokens are the batch's own (``None`` untagged)."""
        if self.sos is None and self.eos is None:
            return batch, None
        lengths, device = batch.lengths(), batch.ids.device
        nonempty = (lengths > 0).to(lengths.dtype)
        before = nonempty if self.sos is not None else torch.zeros_like(nonempty)
        after = nonempty if self.eos is not None else torch.zeros_like(nonempty)
        tagged = lengths + before + after
        offsets = tagged.cumsum(0) - tagged
        total = int(tagged.sum())
        segment = torch.repeat_interleave(lengths, output_size=batch.ids.numel())
        position = torch.arange(batch.ids.numel(), device=device) - batch.offsets[segment]
        where = offsets[segment] + before[segment] + position
        n_rows = batch.rows.shape[0]
        ids = batch.ids.new_empty(total)
        ids[where] = batch.ids
        rows = [batch.rows]
        if self.sos is not None:
            ids[offsets[lengths > 0]] = n_rows
            rows.append(self.sos.unsqueeze(0))
        if self.eos is not None:
            ids[(offsets + tagged - 1)[lengths > 0]] = n_rows + len(rows) - 1
            rows.append(self.eos.unsqueeze(0))
        own = torch.zeros(total, dtype=torch.bool, device=device)
        own[where] = True
        rows_ = torch.cat([rows[0], *(r.to(rows[0].dtype) for r in rows[1:])])
        return SegmentBatch(rows_, ids, offsets), own
