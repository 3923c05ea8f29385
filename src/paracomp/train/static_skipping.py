"""The step of Wieting et al.'s (2015) word and phrase objective (sampler ``max_skip``,
:class:`~paracomp.losses.constrained.SkippingHingeObjective`) for sum and mean composers with
AdaGrad, in shapes fixed by the batch size and the data's longest segment, replayed from a
CUDA graph on a GPU (PARAGRAM's runs, ``wieting2015``).

The eager step mines among a batch's segments with keys it computes per batch (a row-wise
``unique`` on the host) and walks the constraint lists of the batch's words (``nonzero``), and
its word rows, their gradient and AdaGrad's update follow the batch's distinct words: shapes
and host reads a CUDA graph cannot hold. :class:`StaticSkipTask` instead

- keeps the segments on the device as a padded grid and their keys precomputed (the word id of
  a one-token segment, and a key per distinct token sequence, which a batch uses when any of
  its segments is longer than a word, as :func:`~paracomp.losses.constrained.segment_keys`
  decides per batch);
- looks every (anchor, candidate) pair of the batch up in the constraint lists (the sampler's
  ``dense`` lookup) and otherwise mines, skips and scores with the eager step's own sampler and
  objective code;
- differentiates with respect to the whole table (dense), adds ``reg_initial``'s pull (dense
  in the eager step too) and updates every row by AdaGrad, which leaves the rows without
  gradient as they are (``g = 0`` adds nothing to the sums and moves nothing): the eager step's
  update.

It draws nothing. Results equal the eager step's up to rounding (tested on CPU); checkpoints,
encoder and export are :class:`~paracomp.train.pairs.PairTask`'s.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping, Sequence

import numpy as np
import pyarrow as pa
import torch
import torch.nn.functional as F

from paracomp.losses.constrained import (
    ConstrainedMaxSampler,
    ForbiddenPairs,
    SkippingHingeObjective,
    _Keyed,
    segment_keys,
)
from paracomp.losses.negatives import Layout
from paracomp.models.vocab import EncodedPairs
from paracomp.train.config import TrainConfig
from paracomp.train.optim import RowSparseAdagrad
from paracomp.train.pairs import PairTask


def supports(config: TrainConfig) -> bool:
    """Whether :class:`StaticSkipTask` trains ``config``: sampler ``max_skip``, a sum or mean
    composer, AdaGrad, and none of the settings it does not implement (the lazy L2 ``reg``,
    perturbations, mega-batches, autocast)."""
    return (
        config.pairs
        and config.sampler == "max_skip"
        and config.composer in ("sum", "mean")
        and config.optimizer == "adagrad"
        and not config.reg
        and not (config.scramble or config.dropout or config.word_dropout)
        and not (config.megabatch or config.prior_weight or config.mixed_precision)
    )


class StaticSkipTask(PairTask):
    """A :class:`PairTask` of :func:`supports` with the static step (module docstring);
    ``graphed`` (CUDA) replays it from a CUDA graph."""

    def __init__(
        self,
        config: TrainConfig,
        pairs: pa.Table | EncodedPairs,
        init: tuple[Sequence[str], np.ndarray] | None = None,
        constraints: Mapping[str, Collection[str]] | None = None,
        graphed: bool = False,
    ):
        if not supports(config):
            raise ValueError("the static skipping step trains max_skip with sum or mean only")
        super().__init__(config, pairs, init, constraints)
        assert isinstance(self.sampler, ConstrainedMaxSampler)
        assert isinstance(self.objective, SkippingHingeObjective)
        forbidden = self.sampler.forbidden
        if forbidden is not None:
            codes, indptr = forbidden.codes.to(self.device), forbidden.indptr.to(self.device)
            forbidden = ForbiddenPairs(codes, indptr, forbidden.n_words)
        self.mining = ConstrainedMaxSampler(
            self.sampler.generator,
            forbidden,
            self.sampler.rule,
            self.sampler.skip_identical,
            self.sampler.floor,
            dense=True,
        )
        self._grid()
        self.mean = config.composer == "mean"
        adagrad = self.optimizer.optimizers[0]
        assert isinstance(adagrad, RowSparseAdagrad)
        self.lr, self.eps = adagrad.param_groups[0]["lr"], adagrad.param_groups[0]["eps"]
        self._call = self._step
        if graphed:
            from paracomp.train.cuda_graph import GraphedStep

            self._call = GraphedStep(self._step, config.batch_size, [])

    def _grid(self) -> None:
        """The segments as a padded id grid with a weight per position (1 for a token, 0 for a
        pad), their lengths and their two keys (module docstring), on the device."""
        segments = self.data.segments
        ids, offsets = segments.ids.cpu().long(), segments.offsets.cpu()
        lengths = offsets[1:] - offsets[:-1]
        width = max(int(lengths.max()) if lengths.numel() else 0, 1)
        mask = torch.arange(width) < lengths.unsqueeze(1)
        grid = torch.zeros(lengths.numel(), width, dtype=torch.long)
        grid[mask] = ids
        starts = offsets[:-1]
        self.single = (lengths == 1).to(self.device)
        words = torch.where(lengths == 1, ids[starts.clamp_max(max(ids.numel() - 1, 0))], -1)
        self.keys = {
            "word": words.to(self.device),
            "sequence": segment_keys(ids, starts).to(self.device),
        }
        self.grid, self.mask = grid.to(self.device), mask.to(self.device)
        self.lengths = lengths.clamp_min(1).to(self.device, torch.float32)

    def batches(self, first: int) -> Iterator[tuple[torch.Tensor]]:
        return self.pair_ids(first)

    def step(self, step: int, batch: tuple[torch.Tensor]) -> torch.Tensor:
        return self._call(batch[0])

    def loss(self, pairs: torch.Tensor) -> torch.Tensor:
        """The objective on the batch of ``pairs`` (autograd reaches the whole table)."""
        b = pairs.numel()
        segments = torch.cat([pairs, pairs + self.data.n_pairs])
        weights = self.mask.index_select(0, segments).to(self.model.weight.dtype)
        vectors = F.embedding_bag(
            self.grid.index_select(0, segments),
            self.model.weight,
            mode="sum",
            per_sample_weights=weights,
        )
        if self.mean:
            vectors = vectors / self.lengths.index_select(0, segments).unsqueeze(1)
        words = self.single.index_select(0, segments).all()
        keys = torch.where(
            words,
            self.keys["word"].index_select(0, segments),
            self.keys["sequence"].index_select(0, segments),
        )
        layout = Layout(b)
        hinge = self.objective.hinge(vectors, layout, _Keyed(self.mining, keys)).sum()
        return self.objective._total(hinge, layout, None)

    def _step(self, pairs: torch.Tensor) -> torch.Tensor:
        weight = self.model.weight
        loss = self.loss(pairs)
        (grad,) = torch.autograd.grad(loss, weight)
        loss = loss.detach()
        with torch.no_grad():
            if self.pull is not None:
                diff = weight - self.pull.initial
                loss = loss + torch.dot(diff.view(-1), diff.view(-1)) * (self.pull.lam / 2)
                grad = grad.add_(diff, alpha=self.pull.lam)
            sums = self.optimizer.optimizers[0].state[weight].setdefault(
                "sum", torch.zeros_like(weight)
            )
            sums.addcmul_(grad, grad)
            weight.addcdiv_(grad, sums.sqrt().add_(self.eps), value=-self.lr)
        return loss
