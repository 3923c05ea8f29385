"""The CompVec step (:class:`~paracomp.train.targets.task.TargetTask`) with shapes fixed by the batch
size and ``max_length``, replayed from CUDA graphs on a GPU.

The eager step's shapes follow its batch (its definitions' tokens), and on a GPU such a step
of a few hundred small kernels is bound by their launches (2.6 ms for ``sum`` at batch 512,
dim 50, on an H100, issue #13). :class:`StaticTargetTask` keeps the definitions on the device
as a padded grid (definitions × ``max_length`` token ids, and their lengths) and lays each
batch out with :class:`~paracomp.models.base.StaticLayout`: the real tokens in definition
order, then the pads as one more segment whose vector is dropped. Lemmas compose as one-position
grids. Its composers (:data:`~paracomp.models.STATIC_COMPOSERS`) read nothing back on the host
over such a batch (tests trace every one with ``torch.compile(fullgraph=True)``), so forward,
backward and Adam (``capturable``) are captured once per phase (words frozen, words tuned) in a
CUDA graph (:class:`~paracomp.train.cuda_graph.GraphedStep`) and replayed; an epoch's last,
smaller batch runs eagerly.

The random draws come from one device generator, re-seeded before every step with the eager
step's per-step seed, in the eager step's order: the negatives (the same numbers) and then the
dropout of every token position (real tokens first), so on a CPU, whose generator fills in
order, the masks of the real tokens are the eager step's and the run equals it up to rounding
(tested). On CUDA the dropout draw is a different, identically distributed one (the draw's
shape decides which Philox numbers go where).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

import numpy as np
import pyarrow as pa
import torch
import torch.nn.functional as F

from paracomp.models import STATIC_COMPOSERS
from paracomp.models.base import StaticLayout
from paracomp.models.vocab import Segments
from paracomp.run_config import TrainConfig
from paracomp.train import seeds
from paracomp.train.optim import target_adam
from paracomp.train.targets.task import TargetTask, triplet_loss

Batch = tuple[torch.Tensor, int]
"""A step's definitions (row numbers, on the device) and the seed of its draws."""


def supports(config: TrainConfig) -> bool:
    """Whether :class:`StaticTargetTask` trains ``config``'s composer (untagged)."""
    return config.composer in STATIC_COMPOSERS and config.boundary_tags == "none"


class StaticTargetTask(TargetTask):
    """:class:`TargetTask` with the static step; ``graphed`` (CUDA only) replays it from CUDA
    graphs. Checkpoints are :class:`TargetTask`'s."""

    def __init__(
        self,
        config: TrainConfig,
        pairs: pa.Table,
        vocabulary: list[str],
        matrix: np.ndarray,
        graphed: bool = False,
    ):
        if not supports(config):
            raise ValueError(f"no static step for composer {config.composer!r}")
        super().__init__(config, pairs, vocabulary, matrix)
        if graphed:
            self.optimizer = target_adam(self.model.parameters(), config, capturable=True)
        definitions = Segments(self.data.ids, self.data.starts)
        rows = torch.arange(len(self.data), device=self.device)
        grid, self.lengths = definitions.padded(rows, 0)
        self.grid = F.pad(grid, (0, max(1 - grid.shape[1], 0)))  # at least one position
        self.width = self.grid.shape[1]
        self.generator = torch.Generator(device=self.device)
        self.graphed = graphed
        self._steps: dict[bool, Callable[[torch.Tensor], torch.Tensor]] = {}

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        """:class:`TargetTask`'s; Adam stays capturable when graphed (a checkpoint of the eager
        step records it is not)."""
        super().load_state_dict(state)
        for group in self.optimizer.param_groups:
            group["capturable"] = self.graphed

    def batches(self, first: int) -> Iterator[Batch]:  # type: ignore[override]
        for step in range(first, self.total_steps):
            yield self.schedule.rows(step), seeds.keyed(self.config.seed, 2, step)

    def step(self, step: int, batch: Batch) -> torch.Tensor:  # type: ignore[override]
        rows, seed = batch
        frozen = step < self.config.freeze_steps
        self.model.weight.requires_grad_(not frozen)
        self.generator.manual_seed(seed)
        if frozen not in self._steps:
            self._steps[frozen] = self._static_step
            if self.graphed:
                from paracomp.train.cuda_graph import GraphedStep

                batch_size = self.config.batch_size
                self._steps[frozen] = GraphedStep(self._static_step, batch_size, [self.generator])
        return self._steps[frozen](rows)

    def draws(self, rows: torch.Tensor) -> torch.Tensor:
        """The step's negative targets (positions in ``self.negatives``)."""
        size = (rows.numel(),)
        n = self.negatives.numel()
        return torch.randint(0, n, size, generator=self.generator, device=self.device)

    def loss(self, rows: torch.Tensor, pick: torch.Tensor) -> torch.Tensor:
        """The triplet loss of definitions ``rows`` against negatives ``pick`` (the dropout
        drawn from the task's generator)."""
        layout = StaticLayout.build(self.lengths.index_select(0, rows), self.width)
        ids = layout.ids(self.grid.index_select(0, rows))
        positives = self.data.lemmas.index_select(0, rows)
        lemmas = torch.cat([positives, self.negatives.index_select(0, pick)])
        dropout, generator = self.config.dropout, self.generator
        composed, targets = self.model(ids, layout.offsets, lemmas, dropout, generator, layout)
        positive, negative = targets.split(rows.numel())
        return triplet_loss(composed, positive, negative, self.config.margin)

    def _static_step(self, rows: torch.Tensor) -> torch.Tensor:
        loss = self.loss(rows, self.draws(rows))
        self.optimizer.zero_grad(set_to_none=True)
        loss.backward()
        self.optimizer.step()
        return loss.detach()
