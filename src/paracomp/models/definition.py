"""Segments composed towards target words (the CompVec family's model): definitions as token
ids (:class:`EncodedDefinitions`) and the word matrix with its composition function
(:class:`DefinitionModel`), which training (:mod:`paracomp.train.targets.task`) moves and
evaluation reads from a run's folder (:func:`paracomp.run_folder.read_definition_model`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import torch
from torch import nn

from paracomp.errors import DataError
from paracomp.models.base import Composer, SegmentBatch, StaticLayout

UNK_ID = 1
"""The id of unknown definition words (0 pads)."""


@dataclass
class EncodedDefinitions:
    """Definitions as token ids (concatenated, each cut to ``max_length``) with the id of
    their lemma; ``starts[i]:starts[i+1]`` are definition ``i``'s tokens."""

    ids: torch.Tensor
    starts: torch.Tensor
    lemmas: torch.Tensor

    @classmethod
    def build(
        cls,
        definitions: Sequence[str],
        lemmas: Sequence[str],
        index: Mapping[str, int],
        max_length: int,
    ) -> EncodedDefinitions:
        """Unknown definition words become UNK; a lemma outside the vocabulary is an error.
        ``lemmas`` may be empty (definitions to compose only)."""
        ids: list[int] = []
        starts = [0]
        for definition in definitions:
            tokens = definition.split()[:max_length]
            ids.extend(index.get(token, UNK_ID) for token in tokens)
            starts.append(len(ids))
        missing = sorted({lemma for lemma in lemmas if lemma not in index})
        if missing:
            raise DataError(f"{len(missing)} lemmas are not in the vocabulary, e.g. {missing[:3]}")
        return cls(
            torch.tensor(ids, dtype=torch.long),
            torch.tensor(starts, dtype=torch.long),
            torch.tensor([index[lemma] for lemma in lemmas], dtype=torch.long),
        )

    def __len__(self) -> int:
        return self.starts.numel() - 1

    def to(self, device: torch.device) -> EncodedDefinitions:
        return EncodedDefinitions(
            self.ids.to(device), self.starts.to(device), self.lemmas.to(device)
        )

    def take(self, rows: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Token ids and segment offsets of definitions ``rows``, concatenated."""
        begin = self.starts[rows]
        lengths = self.starts[rows + 1] - begin
        offsets = torch.cumsum(lengths, 0) - lengths
        total = int(lengths.sum())
        within = torch.arange(total, device=rows.device) - offsets.repeat_interleave(
            lengths, output_size=total
        )
        return self.ids[begin.repeat_interleave(lengths, output_size=total) + within], offsets


class DefinitionModel(nn.Module):
    """The word matrix (one row per vocabulary id) and a composition function."""

    def __init__(self, composer: Composer, weight: torch.Tensor):
        super().__init__()
        self.composer = composer
        self.weight = nn.Parameter(weight)

    def compose(
        self,
        ids: torch.Tensor,
        offsets: torch.Tensor,
        dropout: float = 0.0,
        generator: torch.Generator | None = None,
    ) -> torch.Tensor:
        """Compose segments of token ids; ``dropout`` zeroes input vectors' entries."""
        return self._compose(self.weight.index_select(0, ids), offsets, dropout, generator)

    def lemma_vectors(self, ids: torch.Tensor) -> torch.Tensor:
        """Lemmas as target words through the composition function (one-token segments,
        never padded)."""
        return self.composer.words(self.weight.index_select(0, ids))

    def forward(
        self,
        ids: torch.Tensor,
        offsets: torch.Tensor,
        lemmas: torch.Tensor,
        dropout: float,
        generator: torch.Generator | None = None,
        layout: StaticLayout | None = None,
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """A training step's composed definitions and lemma vectors, from one gather of the
        word matrix (one dense gradient buffer instead of two). With ``layout``, ``ids`` are
        its tokens in its order (``offsets`` unused) and shapes stay fixed: the static step
        (:mod:`paracomp.train.targets.static`)."""
        rows = self.weight.index_select(0, torch.cat([ids, lemmas]))
        return self.from_rows(rows, ids.numel(), offsets, dropout, generator, layout)

    def from_rows(
        self,
        rows: torch.Tensor,
        tokens: int,
        offsets: torch.Tensor,
        dropout: float,
        generator: torch.Generator | None = None,
        layout: StaticLayout | None = None,
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """:meth:`forward` from its gathered rows: the first ``tokens`` the definitions', the
        rest the lemmas'."""
        words, targets = rows.split([tokens, rows.shape[0] - tokens])
        static = layout is not None
        composed = self._compose(words, offsets, dropout, generator, layout)
        return composed, self.composer.words(targets, static=static)

    def _compose(
        self,
        rows: torch.Tensor,
        offsets: torch.Tensor,
        dropout: float = 0.0,
        generator: torch.Generator | None = None,
        layout: StaticLayout | None = None,
    ) -> torch.Tensor:
        if dropout:
            keep = torch.rand(rows.shape, generator=generator, device=rows.device) >= dropout
            rows = rows * keep / (1.0 - dropout)
        if layout is not None:
            return self.composer(layout.batch(rows))[:-1]
        local = torch.arange(rows.shape[0], device=rows.device)
        return self.composer(SegmentBatch(rows, local, offsets))
