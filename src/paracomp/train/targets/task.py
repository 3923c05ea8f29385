"""Training segments towards target words, as a :class:`~paracomp.train.loop.Task`: the
CompVec objective of Scheepers et al. (2018), a lemma's definition composed and moved towards
the lemma.

For each (target, segment) pair (a lemma and its definition) the segment's word rows (input
dropout, inverted scaling) are composed to ``c``; the positive ``y⁺`` is the target and the
negative ``y⁻`` a uniformly random target of the training pairs (not filtered, gradients flow
into it), both passed through the same composition function as one-token segments (the
authors' final code; the identity for the algebraic functions). The loss is the batch mean of
the triplet hinge ``[α − s(c, y⁺) + s(c, y⁻)]_+`` with ``s = −‖·−·‖²`` (digest §3.5),
optimised with Adam.

The word matrix (the whole vocabulary, from pretrained vectors, dense, as TensorFlow's Adam
updates it) is frozen for the first ``freeze_steps`` steps; ``steps=0`` only exports the
initial matrix. Every random draw (batch order, negatives, dropout) comes from generators
seeded by ``(seed, epoch)`` or ``(seed, step)``, so a run resumes from any checkpoint (every
``checkpoint_every`` steps) to the same weights as one never stopped.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import torch
from torch import nn

from paracomp.errors import DataError
from paracomp.losses.scores import SCORES
from paracomp.models.base import Composer, SegmentBatch, StaticLayout
from paracomp.models.registry import COMPOSERS
from paracomp.train import loop, run_folder, seeds
from paracomp.train.config import TrainConfig
from paracomp.train.optim import target_adam

UNK_ID = 1
SEGMENT, TARGET = "definition", "lemma"
"""The columns of a training table: a segment and the target word it is moved towards."""


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
        words, targets = rows.split([ids.numel(), lemmas.numel()])
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


def triplet_loss(
    composed: torch.Tensor, positive: torch.Tensor, negative: torch.Tensor, margin: float
) -> torch.Tensor:
    """Batch mean of ``[α + ‖c − y⁺‖² − ‖c − y⁻‖²]_+`` (Eq. 1, the code's mean)."""
    score = SCORES["sq_euclidean"].paired
    return torch.relu(margin - score(composed, positive) + score(composed, negative)).mean()


def build_model(config: TrainConfig, matrix: np.ndarray) -> DefinitionModel:
    """The model before training: ``matrix`` rows and a composer initialised from the seed."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seeds.keyed(config.seed, 0))
        composer = COMPOSERS[config.composer](matrix.shape[1])
    return DefinitionModel(composer, torch.tensor(np.asarray(matrix, dtype=np.float32)))


class _Schedule:
    """Batches of a shuffled pass per epoch (reshuffled each epoch), by step number."""

    def __init__(self, n: int, batch_size: int, seed: int, device: torch.device):
        self.n, self.batch_size, self.seed, self.device = n, batch_size, seed, device
        self.per_epoch = -(-n // batch_size)
        self._epoch, self._order = -1, torch.empty(0, dtype=torch.long)

    def rows(self, step: int) -> torch.Tensor:
        epoch, index = divmod(step, self.per_epoch)
        if epoch != self._epoch:
            gen = torch.Generator().manual_seed(seeds.keyed(self.seed, 1, epoch))
            self._epoch, self._order = epoch, torch.randperm(self.n, generator=gen).to(self.device)
        return self._order[index * self.batch_size : (index + 1) * self.batch_size]


Batch = tuple[torch.Tensor, torch.Generator]


class TargetTask(loop.Task):
    """``config.steps`` steps of the triplet loss over (target, segment) pairs, from the word
    rows ``matrix`` of ``vocabulary``."""

    curve_x = "step"
    flush_denormal = True

    def __init__(
        self, config: TrainConfig, pairs: pa.Table, vocabulary: list[str], matrix: np.ndarray
    ):
        if len(vocabulary) != matrix.shape[0]:
            raise DataError(f"{len(vocabulary)} vocabulary words but {matrix.shape[0]} matrix rows")
        self.config, self.vocabulary = config, vocabulary
        self.device = loop.resolve_device(config)
        index = {word: i for i, word in enumerate(vocabulary)}
        self.data = EncodedDefinitions.build(
            pairs.column(SEGMENT).to_pylist(),
            pairs.column(TARGET).to_pylist(),
            index,
            config.max_length,
        ).to(self.device)
        self.negatives = torch.unique(self.data.lemmas)
        self.model = build_model(config, matrix).to(self.device)
        self.optimizer = target_adam(self.model.parameters(), config)
        self.schedule = _Schedule(len(self.data), config.batch_size, config.seed, self.device)
        self.steps_per_epoch = self.schedule.per_epoch
        self.total_steps = config.steps
        self.log_every, self.checkpoint_every = config.log_every, config.checkpoint_every

    def batches(self, first: int) -> Iterator[Batch]:
        for step in range(first, self.total_steps):
            generator = torch.Generator(device=self.device)
            yield (
                self.schedule.rows(step),
                generator.manual_seed(seeds.keyed(self.config.seed, 2, step)),
            )

    def batch_pairs(self, batch: Batch) -> int:
        return batch[0].numel()

    def step(self, step: int, batch: Batch) -> torch.Tensor:
        rows, generator = batch
        self.model.weight.requires_grad_(step >= self.config.freeze_steps)
        ids, offsets = self.data.take(rows)
        pick = torch.randint(
            0, self.negatives.numel(), (rows.numel(),), generator=generator, device=self.device
        )
        lemmas = torch.cat([self.data.lemmas[rows], self.negatives[pick]])
        composed, targets = self.model(ids, offsets, lemmas, self.config.dropout, generator)
        positive, negative = targets.split(rows.numel())
        loss = triplet_loss(composed, positive, negative, self.config.margin)
        self.optimizer.zero_grad(set_to_none=True)
        loss.backward()
        self.optimizer.step()
        return loss.detach()

    def fingerprint(self) -> dict[str, Any]:
        return {
            "pairs": len(self.data),
            "tokens": int(self.data.starts[-1]),
            "vocabulary": len(self.vocabulary),
        }

    def state_dict(self) -> dict[str, Any]:
        return {"model": self.model.state_dict(), "optimizer": self.optimizer.state_dict()}

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        self.model.load_state_dict(state["model"])
        self.optimizer.load_state_dict(state["optimizer"])

    def exported(self, steps: int) -> tuple[list[str], np.ndarray, str]:
        matrix = self.model.weight.detach().float().cpu().numpy()
        return self.vocabulary, matrix, f"word matrix after {steps} steps (row i = token id i)"


def load_model(out_dir: Path, device: str = "cpu") -> tuple[DefinitionModel, list[str]]:
    """A trained run's model (eval mode) and vocabulary, from its folder."""
    config, composer = run_folder.read_composer(Path(out_dir), device)
    vocabulary, matrix = run_folder.read_rows(Path(out_dir))
    model = build_model(config, matrix).to(device)
    model.composer.load_state_dict(composer)
    model.eval()
    return model, vocabulary
