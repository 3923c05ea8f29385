"""The step of the pair objectives through autograd (learned composers: Wieting & Gimpel's
LSTMs and GRANs, word averaging with Adam or dropout, Wieting et al.'s PARAGRAM and RNN, …) in
shapes fixed by the batch size and the data's longest segment, replayed from a CUDA graph on a
GPU.

The eager step (:meth:`PairTask.step <paracomp.train.pairs.task.PairTask.step>`) gathers the rows of
a batch's distinct words (``unique``), takes the negatives' segments by their lengths and hands
the optimisers sparse gradients of those rows: shapes that follow the batch and reads on the
host, which a CUDA graph cannot hold. :class:`StaticLearnedTask` instead keeps the segments on
the device as a padded grid and, each step,

- lays the batch's ``2B`` segments out with :class:`~paracomp.models.base.StaticLayout` (real
  tokens first, the pads as one more segment whose vector is dropped), scrambles them
  (:func:`~paracomp.train.pairs.perturb.scramble`, the pads left alone), composes them (without
  gradient where negatives are mined before dropout, :mod:`paracomp.train.pairs.noisy`), mines with
  the eager step's sampler, and composes the anchors and their negatives' copies again from a
  second layout, dropped out, or the ``2B`` once without dropout (the objective's own hinge);
  ``max_skip`` (:class:`~paracomp.losses.constrained.SkippingHingeObjective`) mines with keys
  precomputed per segment and looks every (anchor, candidate) pair up in the constraint lists
  (the eager step computes keys per batch on the host and walks the lists);
- takes the gradient of the whole word table (dense) and updates it as the eager optimiser
  updates the rows it is given: AdaGrad and SGD leave the rows without gradient as they are;
  Adam moves every row (``adam_rows: dense``) or, lazy (``torch.optim.SparseAdam``), only the
  rows the batch uses (every row under ``reg_initial``, whose pull reaches them all), with its
  moments and bias correction;
  the composer's parameters go to the eager dense optimiser (Adam ``capturable`` on CUDA) or
  to AdaGrad's update by hand.

Random draws come from the eager step's generators, in its order. Graphed, the perturbations
(scrambling, dropout) draw for every position of the grid, pads included, from a device
generator of the same seed (the eager CUDA step draws them on the CPU): other, identically
distributed draws, saved in the checkpoint beside the eager ones. Otherwise (on a CPU) they
draw for the real tokens only, reading their count on the host, from the eager step's
generator: a run equals the eager one up to rounding (tested). The optimisers' states are
the eager ones', so checkpoints move between the two steps.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping, Sequence
from typing import Any

import numpy as np
import pyarrow as pa
import torch
import torch.nn.functional as F

from paracomp.losses.constrained import (
    ConstrainedMaxSampler,
    ForbiddenPairs,
    KeyedSampler,
    segment_keys,
)
from paracomp.losses.gaussian import wlo_prior
from paracomp.losses.negatives import Layout, MaxSampler, NegativeSampler, RandomSampler
from paracomp.losses.regularizers import composition_l2
from paracomp.models import STATIC_COMPOSERS
from paracomp.models.base import SegmentBatch, StaticLayout
from paracomp.models.gaussian import WLOComposer
from paracomp.models.vocab import EncodedPairs, Segments
from paracomp.run_config import TrainConfig
from paracomp.train import seeds
from paracomp.train.pairs.megabatch import MegaStep, mega_hinge
from paracomp.train.pairs.noisy import noisy_total
from paracomp.train.pairs.perturb import scramble
from paracomp.train.pairs.task import PairTask


def supports(config: TrainConfig) -> bool:
    """Whether :class:`StaticLearnedTask` trains ``config``: a pair objective with MAX, MIX or
    random in-batch negatives, or Wieting et al.'s (2015) ``max_skip`` without perturbations, a
    composer of :data:`~paracomp.models.STATIC_COMPOSERS` (untagged), AdaGrad, Adam or SGD, and
    none of the settings it does not implement (autocast, the WLO prior's ``running`` reading;
    the L2 pulls with mega-batches, whose eager step has none)."""
    perturbed = config.scramble or config.dropout or config.word_dropout
    return (
        config.pairs
        and (
            config.sampler in ("max", "mix")
            or (config.sampler, config.pool) == ("random", "batch")
            or (config.sampler == "max_skip" and not perturbed)
        )
        and config.composer in STATIC_COMPOSERS
        and config.boundary_tags == "none"
        and config.optimizer in ("adagrad", "adam", "sgd")
        and not config.mixed_precision
        and not (config.prior_weight and config.prior != "operator")
        and not (config.megabatch and (config.reg_initial or config.reg_composer))
    )


class StaticLearnedTask(PairTask):
    """A :class:`PairTask` of :func:`supports` with the static step (module docstring);
    ``graphed`` (CUDA) replays it from a CUDA graph. ``static_draws`` (default: ``graphed``)
    perturbs every grid position, as the graph does, instead of the real tokens only."""

    def __init__(
        self,
        config: TrainConfig,
        pairs: pa.Table | EncodedPairs,
        init: tuple[Sequence[str], np.ndarray] | None = None,
        constraints: Mapping[str, Collection[str]] | None = None,
        graphed: bool = False,
        static_draws: bool | None = None,
    ):
        if not supports(config):
            raise ValueError(f"no static step for this run (composer {config.composer!r})")
        super().__init__(config, pairs, init, constraints)
        if self.data.trees is not None:
            raise ValueError("the static step composes no parser trees")
        self.model.runner = None
        self._grid()
        self.mining = self._mining()
        self.table, self.dense = self.optimizer.optimizers[0], self.optimizer.optimizers[1:]
        weight = self.model.weight
        if config.optimizer == "adam":
            state = self.table.state[weight]
            state.setdefault("step", 0)
            state.setdefault("exp_avg", torch.zeros_like(weight))
            state.setdefault("exp_avg_sq", torch.zeros_like(weight))
            self.adam_step = torch.zeros((), device=self.device)
            if graphed:
                for group in self.dense[0].param_groups if self.dense else []:
                    group["capturable"] = True
        elif config.optimizer == "adagrad":
            self.table.state[weight].setdefault("sum", torch.zeros_like(weight))
        self.noise_generator = self.perturb
        if graphed and self.perturb is not None:
            self.noise_generator = torch.Generator(device=self.device)
            self.noise_generator.manual_seed(seeds.stream(config.seed, seeds.PERTURBATION))
        self.graphed = graphed
        self.static_draws = graphed if static_draws is None else static_draws
        self._call = self._step
        if self.megabatch is not None:  # the group's pool, as mined (a last group: one more)
            pool = 2 * (config.batch_size * config.megabatch + 1)
            self.pool_grid = torch.zeros(pool, self.width, dtype=torch.long, device=self.device)
            self.pool_lengths = torch.zeros(pool, dtype=torch.long, device=self.device)
        if graphed:
            from paracomp.train.cuda_graph import GraphedStep

            generators = [self.sampler.generator]
            if self.noise_generator is not None:
                generators.append(self.noise_generator)
            size = config.batch_size * (4 if self.megabatch is not None else 1)
            self._call = GraphedStep(self._step, size, generators)

    def _grid(self) -> None:
        """The segments as a padded id grid, their lengths and, for ``max_skip``, their keys:
        the word id of a one-token segment and a key per distinct token sequence (which a batch
        uses when any of its segments is longer than a word, as
        :func:`~paracomp.losses.constrained.segment_keys` decides per batch), on the device."""
        segments = self.data.segments
        grid, lengths = segments.padded(torch.arange(len(segments), device=self.device), 0)
        self.grid = F.pad(grid, (0, max(1 - grid.shape[1], 0)))  # at least one position
        self.lengths, self.width = lengths, self.grid.shape[1]
        self.keys: dict[str, torch.Tensor] = {}
        if isinstance(self.sampler, ConstrainedMaxSampler):
            single = lengths == 1
            self.keys = {
                "single": single,
                "word": torch.where(single, self.grid[:, 0], -1),
                "sequence": segment_keys(segments.ids.long(), segments.offsets[:-1]),
            }

    def _mining(self) -> ConstrainedMaxSampler | None:
        """``max_skip``'s sampler with its constraint lists on the device, looking every pair
        up (``dense``)."""
        if not isinstance(self.sampler, ConstrainedMaxSampler):
            return None
        forbidden = self.sampler.forbidden
        if forbidden is not None:
            codes, indptr = forbidden.codes.to(self.device), forbidden.indptr.to(self.device)
            forbidden = ForbiddenPairs(codes, indptr, forbidden.n_words)
        sampler = self.sampler
        rule, skip, floor = sampler.rule, sampler.skip_identical, sampler.floor
        return ConstrainedMaxSampler(sampler.generator, forbidden, rule, skip, floor, dense=True)

    def _sampler(self, segments: torch.Tensor) -> NegativeSampler:
        """The sampler of the batch of ``segments`` (``max_skip``'s bound to their keys)."""
        if self.mining is None:
            return self.sampler
        words = self.keys["single"].index_select(0, segments).all()
        word_keys = self.keys["word"].index_select(0, segments)
        keys = torch.where(words, word_keys, self.keys["sequence"].index_select(0, segments))
        return KeyedSampler(self.mining, keys)

    def batches(self, first: int) -> Iterator[tuple[torch.Tensor]]:
        """The pair ids of each batch; with mega-batches, each step's ``s1``, ``s2``, ``n1``,
        ``n2`` as rows of its group's pool (the groups mined as the eager step mines them,
        each pool copied into the step's grid before its first step)."""
        if self.megabatch is None:
            yield from self.pair_ids(first)
            return
        group = None
        for step in super().batches(first):
            assert isinstance(step, MegaStep)
            if step.group is not group:
                group = step.group
                self._load_pool(group.pool)
            p = group.pairs.numel()
            side1 = torch.arange(step.start, step.start + step.size, device=self.device)
            anchors = torch.cat([side1, side1 + p])
            yield (torch.cat([anchors, group.negatives.rows.index_select(0, anchors)]),)

    def _load_pool(self, pool: Segments) -> None:
        grid, lengths = pool.padded(torch.arange(len(pool), device=self.device), 0)
        n, width = grid.shape
        self.pool_grid[:n].zero_()
        self.pool_grid[:n, :width] = grid
        self.pool_lengths[:n] = lengths

    def batch_pairs(self, batch: tuple[torch.Tensor]) -> int:  # type: ignore[override]
        return batch[0].numel() // (4 if self.megabatch is not None else 1)

    def step(self, step: int, batch: tuple[torch.Tensor]) -> torch.Tensor:
        if self.config.optimizer == "adam":  # the host's count, for checkpoints
            self.table.state[self.model.weight]["step"] += 1
        for optimizer in self.dense if self.config.optimizer == "adagrad" else []:
            for param in optimizer.param_groups[0]["params"]:
                state = optimizer.state[param]
                state["step"] = state.get("step", torch.tensor(0.0)) + 1
        return self._call(batch[0])

    def _dropped(
        self, layout: StaticLayout, rows: torch.Tensor, lengths: torch.Tensor
    ) -> SegmentBatch:
        """The batch of ``rows`` laid out by ``layout`` under dropout or word dropout: drawn for
        every position (static draws) or for the real tokens only (their count read on the
        host, the eager step's draws)."""
        generator = self.noise_generator
        assert generator is not None
        if self.static_draws:
            return self.noise.dropped(layout.batch(rows), generator)
        n = int(lengths.sum())
        local = torch.arange(n, device=rows.device)
        head = SegmentBatch(rows[:n], local, layout.offsets[:-1])
        return layout.batch(torch.cat([self.noise.dropped(head, generator).rows, rows[n:]]))

    def _mega_loss(self, rows: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor | None]:
        """A mega-batch step's loss, its ``4·size`` segments ``rows`` of the pool."""
        lengths = self.pool_lengths.index_select(0, rows)
        layout = StaticLayout.build(lengths, self.width)
        ids = layout.ids(self.pool_grid.index_select(0, rows))
        words = self.model.weight.index_select(0, ids)
        batch = layout.batch(words)
        composed = self._dropped(layout, words, lengths) if self.dropping else batch
        loss = mega_hinge(self.objective, self.model.composer(composed)[:-1])
        touched = self._touched(ids, lengths)
        if self.objective.reg:
            loss = loss + self.objective.reg * self._sq_norm(touched)
        if self.config.prior_weight:  # over the words as looked up, before any dropout
            assert isinstance(self.model.composer, WLOComposer)
            prior = wlo_prior(self.model.composer, batch, "operator")[:-1].sum()
            mean = self.objective.reduction == "mean"
            scale = 4.0 / rows.numel() if mean else 1.0  # over the step's pairs
            loss = loss + self.config.prior_weight * scale * prior
        return loss, touched

    def loss(self, pairs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor | None]:
        """The objective on the batch of ``pairs`` (with mega-batches: a step's pool rows) and
        which word rows it uses (:meth:`_touched`)."""
        if self.megabatch is not None:
            return self._mega_loss(pairs)
        b, model, noise, generator = pairs.numel(), self.model, self.noise, self.noise_generator
        segments = torch.cat([pairs, pairs + self.data.n_pairs])
        lengths = self.lengths.index_select(0, segments)
        layout = StaticLayout.build(lengths, self.width)
        ids = layout.ids(self.grid.index_select(0, segments))
        exact = None if self.static_draws else int(lengths.sum())
        if noise.scramble:
            assert generator is not None
            if exact is None:
                ids = scramble(ids, layout.offsets, noise.scramble, generator, pairs=b)
            else:  # the eager step's draws: the real tokens' only
                head = scramble(ids[:exact], layout.offsets[:-1], noise.scramble, generator)
                ids = torch.cat([head, ids[exact:]])
        touched = self._touched(ids, lengths)
        sq_norm = self._sq_norm(touched) if self.objective.reg else None
        pairs_layout = Layout(b)
        if not self.dropping:
            vectors = model.composer(layout.batch(model.weight.index_select(0, ids)))[:-1]
            hinge = self.objective.hinge(vectors, pairs_layout, self._sampler(segments)).sum()
            attraction = self.objective.attraction_term(vectors, pairs_layout)
            loss = self.objective.total_loss(hinge, pairs_layout, sq_norm, attraction)
        else:
            if isinstance(self.sampler, MaxSampler):
                with torch.no_grad():
                    rows = model.weight.index_select(0, ids)
                    clean = model.composer(layout.batch(rows))[:-1]
            else:
                assert isinstance(self.sampler, RandomSampler)
                clean = ids.new_empty(2 * b, 0, dtype=model.weight.dtype)
            negatives = self.sampler.sample(clean, pairs_layout, self.objective.score)
            taken = torch.cat([torch.arange(2 * b, device=ids.device), negatives.view(-1)])
            scrambled = ids[layout.grid[:-1]]  # the batch's grid, as scrambled
            taken_lengths = lengths.index_select(0, taken)
            again = StaticLayout.build(taken_lengths, self.width)
            rows = model.weight.index_select(0, again.ids(scrambled.index_select(0, taken)))
            vectors = model.composer(self._dropped(again, rows, taken_lengths))[:-1]
            loss = noisy_total(self.objective, vectors, pairs_layout, negatives.shape[1], sq_norm)
        if self.config.reg_composer:
            loss = loss + composition_l2(model.composer.parameters(), self.config.reg_composer)
        return loss, touched

    def _touched(self, ids: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor | None:
        """(rows, 1): which word rows the batch's real tokens (``lengths`` of them in all, the
        first of ``ids``) use: the rows of the eager step's sparse gradient. ``None`` where
        nothing reads it (no lazy L2, no lazy Adam on some rows only)."""
        lazy_adam = self._lazy() and self.pull is None
        if not (self.objective.reg or lazy_adam):
            return None
        rows = self.model.weight.shape[0]
        real = torch.arange(ids.numel(), device=ids.device) < lengths.sum()
        counts = torch.zeros(rows + 1, device=ids.device)
        counts.index_add_(0, ids.masked_fill(~real, rows), real.to(counts.dtype))
        return (counts[:-1] > 0).unsqueeze(1)

    def _sq_norm(self, touched: torch.Tensor | None) -> torch.Tensor:
        """``‖W_batch‖²``, each row the batch uses once (the lazy L2 ``reg``)."""
        assert touched is not None
        return (self.model.weight.pow(2) * touched).sum()

    def _step(self, pairs: torch.Tensor) -> torch.Tensor:
        loss, touched = self.loss(pairs)
        weight = self.model.weight
        self.optimizer.zero_grad()
        loss.backward()
        loss = loss.detach()
        grad = weight.grad
        assert grad is not None and not grad.is_sparse
        with torch.no_grad():
            if self.pull is not None:
                diff = weight - self.pull.initial
                loss = loss + torch.dot(diff.view(-1), diff.view(-1)) * (self.pull.lam / 2)
                grad.add_(diff, alpha=self.pull.lam)
            self._update_table(grad, touched)
            self._update_dense()
        return loss

    def _update_table(self, grad: torch.Tensor, touched: torch.Tensor | None) -> None:
        """The eager table optimiser's update, on every row (module docstring)."""
        weight, group = self.model.weight, self.table.param_groups[0]
        lr = group["lr"]
        if self.config.optimizer == "sgd":
            weight.add_(grad, alpha=-lr)
        elif self.config.optimizer == "adagrad":
            sums = self.table.state[weight]["sum"]
            sums.addcmul_(grad, grad)
            weight.addcdiv_(grad, sums.sqrt().add_(group["eps"]), value=-lr)
        else:
            self._adam(grad, touched, group)

    def _lazy(self) -> bool:
        return self.config.optimizer == "adam" and self.config.adam_rows == "lazy"

    def _adam(
        self, grad: torch.Tensor, touched: torch.Tensor | None, group: Mapping[str, Any]
    ) -> None:
        """:class:`~paracomp.train.optim.DenseAdam` on every row, or lazy
        ``torch.optim.SparseAdam`` on the rows the batch uses (``touched``; every row under
        ``reg_initial``, whose pull reaches them all), with the step counted on the device."""
        weight, state = self.model.weight, self.table.state[self.model.weight]
        beta1, beta2 = group["betas"]
        if self.pull is not None or not self._lazy():
            touched = torch.ones((), dtype=torch.bool, device=weight.device)
        self.adam_step += 1
        m, v = state["exp_avg"], state["exp_avg_sq"]
        m.copy_(torch.where(touched, m + (grad - m) * (1 - beta1), m))
        v.copy_(torch.where(touched, v + (grad * grad - v) * (1 - beta2), v))
        correction1 = 1 - beta1**self.adam_step
        correction2 = 1 - beta2**self.adam_step
        step_size = group["lr"] * correction2.sqrt() / correction1
        update = m / (v.sqrt() + group["eps"]) * step_size
        weight.sub_(torch.where(touched, update, 0.0))

    def _update_dense(self) -> None:
        """The composer's parameters: the eager dense optimiser, or AdaGrad by hand (torch's
        cannot be captured; its ``step`` is counted on the host, :meth:`step`)."""
        for optimizer in self.dense:
            if self.config.optimizer != "adagrad":
                optimizer.step()
                continue
            group = optimizer.param_groups[0]
            for param in group["params"]:
                if param.grad is None:
                    continue
                state = optimizer.state[param]
                sums = state.setdefault("sum", torch.zeros_like(param))
                sums.addcmul_(param.grad, param.grad)
                param.addcdiv_(param.grad, sums.sqrt().add_(group["eps"]), value=-group["lr"])

    def state_dict(self) -> dict[str, Any]:
        state = super().state_dict()
        if self.graphed and self.noise_generator is not None:
            state["noise_device"] = self.noise_generator.get_state()
        return state

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        super().load_state_dict(state)
        if self.config.optimizer == "adam":
            self.adam_step.fill_(float(self.table.state[self.model.weight]["step"]))
            for group in self.dense[0].param_groups if self.dense and self.graphed else []:
                group["capturable"] = True
        if self.graphed and self.noise_generator is not None and "noise_device" in state:
            self.noise_generator.set_state(state["noise_device"])
