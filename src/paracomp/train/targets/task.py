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

from collections.abc import Iterator, Mapping
from typing import Any

import numpy as np
import pyarrow as pa
import torch

from paracomp.errors import DataError
from paracomp.losses.scores import SCORES
from paracomp.models.definition import DefinitionModel, EncodedDefinitions
from paracomp.models.registry import COMPOSERS
from paracomp.run_config import TrainConfig
from paracomp.train import loop, seeds
from paracomp.train.optim import target_adam

SEGMENT, TARGET = "definition", "lemma"
"""The columns of a training table: a segment and the target word it is moved towards."""


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
        self._gradient: torch.Tensor | None = None  # the word matrix's, zero between steps

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
        """One Adam step. The step's word rows are gathered as a leaf and their gradient added
        into a persistent matrix-sized buffer with the ``index_add_`` of autograd's
        ``index_select`` backward (the same sums in the same order, so the same weights), which
        spares allocating and zeroing a whole matrix every step; only the rows added to are
        zeroed again after Adam's (dense) step."""
        rows, generator = batch
        tuned = step >= self.config.freeze_steps
        ids, offsets = self.data.take(rows)
        pick = torch.randint(
            0, self.negatives.numel(), (rows.numel(),), generator=generator, device=self.device
        )
        lemmas = torch.cat([self.data.lemmas[rows], self.negatives[pick]])
        tokens = torch.cat([ids, lemmas])
        words = self.model.weight.detach().index_select(0, tokens).requires_grad_(tuned)
        composed, targets = self.model.from_rows(
            words, ids.numel(), offsets, self.config.dropout, generator
        )
        positive, negative = targets.split(rows.numel())
        loss = triplet_loss(composed, positive, negative, self.config.margin)
        self.optimizer.zero_grad(set_to_none=True)
        loss.backward()
        if tuned:
            if self._gradient is None:
                self._gradient = torch.zeros_like(self.model.weight)
            self.model.weight.grad = self._gradient.index_add_(0, tokens, words.grad)
        self.optimizer.step()
        if self.model.weight.grad is not None:
            self.model.weight.grad.index_fill_(0, tokens, 0.0)
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
