"""Static-shape steps of the pair objectives for sum and mean composers, for one model or for
several side by side (the points of a stack), on any device.

On CPU a step of :class:`~paracomp.train.pairs.task.PairTask` works on tensors whose shapes follow
the batch (its distinct words, its active hinge terms) and reads some of them back on the
host: cheap there, but on a GPU every op is a kernel launch and every read a synchronisation,
and such a step is bound by launches, not arithmetic. :class:`StaticStep` takes the same step
(the same scores, negatives, hinge, attraction, lazy regulariser and AdaGrad update, the
gradient worked out by hand as :meth:`~paracomp.losses.hinge.HingeObjective.loss_and_gradient`
does) with shapes fixed by the batch size and the longest segment of the data:

- segments are padded to the longest one with a zero row (row ``n_rows`` of each model: it gets
  no gradient, so it stays zero), and composing is one ``embedding_bag`` over a (segments ×
  longest) id matrix;
- every hinge term gets a gradient coefficient (zero where the term is inactive), not only the
  active ones;
- the word rows' gradient is summed into a table-sized buffer; AdaGrad then reads, updates and
  writes back the rows of every token slot (a row in several slots is written the same value by
  each) and clears the buffer at those slots;
- nothing is read back on the host; the data (padded ids, lengths) live on the device.

On CUDA the whole step, negatives included, is captured once in a CUDA graph and replayed
(:class:`~paracomp.train.cuda_graph.GraphedStep`); the last, smaller batch of an epoch runs
eagerly. Results equal the eager step's up to rounding (the order in which gradients are
summed), which grows where it is amplified: a MAX negative flips where two candidates' scores
tie within rounding, and the Euclidean score's gradient, ∝ 1/distance, turns rounding into
noise where a negative composes to (nearly) the anchor's own vector (a repeated segment).

**Several models** (a stack) train as stacked tensors: weights, AdaGrad sums and gradient
buffers of shape (models, rows + 1, dim), on the same batches. Their points may differ in every
setting of :data:`~paracomp.train.stacks.STACKED`. Models with the same score and the same kind
of negatives (random from the batch; random from the corpus with one k; MAX or MIX) form a
group whose step is one set of batched ops, per-model margin, λ, α, γ, learning rate, k (a
mask over the group's largest) and MAX-or-MIX coming in as tensors.

**Random draws.** Each model draws its negatives from the generator it has alone (seeded by
its seed), in the order and shapes of its eager step. The draws of a group's models have the
same shapes (a batch-pool draw is ``rand(2, B − 1)`` whatever k is; MIX's do not depend on
the scores; corpus draws depend on k, which the group shares) and, since a stack shares its
seed, the same generator state: a group draws once, from the generator of its first model that
draws (MAX draws nothing), and every model of it sees exactly the numbers it would draw alone.
:meth:`StaticStep.sync_generators` copies that state to the group's other models that draw,
before a checkpoint.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa
import torch
import torch.nn.functional as F

from paracomp.losses.negatives import (
    MaxSampler,
    MixSampler,
    RandomSampler,
    exclusion_mask,
    in_batch_positions,
    other_side_start,
)
from paracomp.losses.scores import Score
from paracomp.models.algebraic import AdditiveComposer
from paracomp.models.vocab import EncodedPairs
from paracomp.run_config import TrainConfig
from paracomp.train.optim import RowSparseAdagrad
from paracomp.train.pairs.task import PairTask


def supports(config: TrainConfig) -> bool:
    """Whether :class:`StaticStep` trains ``config``: a pair objective with the random, MAX or
    MIX sampler, a sum or mean composer, AdaGrad with its default ε, no mixed precision, and
    none of the settings the static step does not implement (mega-batches, scrambling,
    dropout, the prior, the L2 pulls of the composer or towards the initial rows); other runs
    take the
    eager step."""
    return (
        config.pairs
        and config.composer in ("sum", "mean")
        and config.sampler in ("random", "max", "mix")
        and config.optimizer == "adagrad"
        and config.adagrad_eps is None
        and not config.mixed_precision
        and not (config.megabatch or config.scramble or config.prior_weight)
        and not (config.dropout or config.word_dropout)
        and not (config.reg_initial or config.reg_composer)
    )


@dataclass(frozen=True)
class PaddedSegments:
    """The segments of :class:`~paracomp.models.vocab.EncodedPairs` as an (n, longest) id
    matrix padded with ``pad``, and their lengths (at least 1, to divide by)."""

    ids: torch.Tensor
    lengths: torch.Tensor

    @classmethod
    def build(cls, ids: np.ndarray, offsets: np.ndarray, pad: int) -> PaddedSegments:
        lengths = np.diff(offsets)
        width = max(int(lengths.max()), 1) if lengths.size else 1
        padded = np.full((lengths.size, width), pad, dtype=np.int32)
        padded[np.arange(width) < lengths[:, None]] = ids  # row by row: segments in order
        return cls(
            torch.from_numpy(padded), torch.from_numpy(np.maximum(lengths, 1).astype(np.float32))
        )

    def to(self, device: torch.device) -> PaddedSegments:
        return PaddedSegments(self.ids.to(device), self.lengths.to(device))


@dataclass
class _Group:
    """Models ``at`` (positions in the stack) with one score and one kind of negatives."""

    at: slice
    score: Score
    kind: str  # "batch", "corpus" (random negatives) or "in_batch" (MAX/MIX)
    k: int  # the largest k (random negatives), else 1
    ks: torch.Tensor | None  # (models, 1, 1) each model's k, where they differ
    mix: torch.Tensor  # (models, 1) whether each model is MIX (else MAX)
    any_mix: bool
    cross: bool
    generator: torch.Generator


def _draws(sampler: object) -> bool:
    """Whether ``sampler`` draws random numbers (all but MAX)."""
    return isinstance(sampler, RandomSampler | MixSampler)


def _kind(sampler: object) -> tuple[str, int]:
    if isinstance(sampler, RandomSampler):
        return (sampler.pool, sampler.k if sampler.pool == "corpus" else 0)
    if isinstance(sampler, MaxSampler):
        return ("in_batch", 0)
    raise TypeError(f"no static step for negatives of {type(sampler).__name__}")


class StaticStep:
    """The step of the pair tasks ``members`` (one model each, same data and batch size), on
    their stacked weights; ``graphed`` captures it in a CUDA graph. Each member's word table,
    AdaGrad sums and sampler generator stay its own (views into the stack), so its
    checkpoint, encoder and export are unchanged."""

    def __init__(self, members: Sequence[PairTask], graphed: bool = False):
        first = members[0]
        if not all(supports(m.config) for m in members):
            raise ValueError("the static step trains sum or mean composers with AdaGrad only")
        self.members = list(members)
        self.device, self.data = first.device, first.data
        self.batch_size = first.config.batch_size
        assert isinstance(first.model.composer, AdditiveComposer)
        self.mean = first.model.composer.mode == "mean"
        segments = self.data.segments
        self.rows = first.model.weight.shape[0]  # the pad row is rows
        self.padded = PaddedSegments.build(
            segments.ids.cpu().numpy(), segments.offsets.cpu().numpy(), self.rows
        ).to(self.device)
        keys = [(m.objective.score.name, *_kind(m.sampler)) for m in self.members]
        order = sorted(range(len(keys)), key=lambda i: (keys.index(keys[i]), i))
        self.position = [order.index(i) for i in range(len(order))]  # member -> stack position
        self.inverse = torch.tensor(self.position, device=self.device)
        dim = first.model.weight.shape[1]
        self.weight = torch.zeros(len(order), self.rows + 1, dim, device=self.device)
        self.sums = torch.zeros_like(self.weight)
        self.grad = torch.zeros_like(self.weight)
        self.counts = torch.zeros(len(order) * (self.rows + 1), device=self.device)
        ordered = [self.members[i] for i in order]
        settings = [
            [
                m.objective.margin,
                m.objective.hinge_scale,
                m.objective.attraction,
                m.objective.reg,
                self._adagrad(m).param_groups[0]["lr"],
            ]
            for m in ordered
        ]
        values = torch.tensor(settings, dtype=self.weight.dtype, device=self.device)
        # each (models, 1, 1), in stack order
        self.margin, self.gamma, self.alpha, self.reg, self.lr = values.T.reshape(5, -1, 1, 1)
        self.eps = self._adagrad(first).param_groups[0]["eps"]
        self.any_reg = bool(values[:, 3].any())
        self.any_attraction = bool(values[:, 2].any())
        self.groups = self._groups([keys[i] for i in order], ordered)
        self.adopt()
        if graphed:
            from paracomp.train.cuda_graph import GraphedStep

            generators = [g.generator for g in self.groups]
            self._call = GraphedStep(self._step, self.batch_size, generators)
        else:
            self._call = self._step

    @staticmethod
    def _adagrad(member: PairTask) -> RowSparseAdagrad:
        optimizer = member.optimizer.optimizers[0]
        assert isinstance(optimizer, RowSparseAdagrad)
        return optimizer

    def _groups(self, keys: list[tuple], ordered: list[PairTask]) -> list[_Group]:
        groups, start = [], 0
        while start < len(keys):
            stop = start + keys[start:].count(keys[start])
            members = ordered[start:stop]
            samplers = [m.sampler for m in members]
            ks = [s.k if isinstance(s, RandomSampler) else 1 for s in samplers]
            differ = min(ks) != max(ks)
            groups.append(
                _Group(
                    at=slice(start, stop),
                    score=members[0].objective.score,
                    kind=keys[start][1],
                    k=max(ks),
                    ks=torch.tensor(ks, device=self.device).view(-1, 1, 1) if differ else None,
                    mix=torch.tensor(
                        [isinstance(s, MixSampler) for s in samplers], device=self.device
                    ).view(-1, 1),
                    any_mix=any(isinstance(s, MixSampler) for s in samplers),
                    cross=samplers[0].cross,
                    generator=next((s for s in samplers if _draws(s)), samplers[0]).generator,
                )
            )
            start = stop
        return groups

    def adopt(self) -> None:
        """Make each member's word table and AdaGrad sums views into the stack (after
        construction, and after a member loaded a checkpoint, which replaces its sums)."""
        with torch.no_grad():
            for member, at in zip(self.members, self.position, strict=True):
                weight = member.model.weight
                if weight.data_ptr() != self.weight[at].data_ptr():
                    self.weight[at, : self.rows].copy_(weight.detach())
                    weight.data = self.weight[at, : self.rows]
                state = self._adagrad(member).state[weight]
                if "sum" in state:
                    self.sums[at, : self.rows].copy_(state["sum"])
                state["sum"] = self.sums[at, : self.rows]

    def sync_generators(self) -> None:
        """Give every member of a group that draws the state of the group's generator, which
        drew for all of them (MAX members draw nothing; their generators stay as they are)."""
        for group in self.groups:
            state = group.generator.get_state()
            for at in range(group.at.start, group.at.stop):
                sampler = self.members[self.position.index(at)].sampler
                if _draws(sampler):
                    sampler.generator.set_state(state)

    def __call__(self, pairs: torch.Tensor) -> torch.Tensor:
        """One step on the pairs ``pairs``; each member's loss, in member order."""
        return self._call(pairs)

    @torch.no_grad()
    def _step(self, pairs: torch.Tensor) -> torch.Tensor:
        b, n = pairs.numel(), self.data.n_pairs
        segments = torch.cat([pairs, pairs + n])
        losses = [self._group_step(group, pairs, segments, b) for group in self.groups]
        return torch.cat(losses).index_select(0, self.inverse)

    def _group_step(
        self, group: _Group, pairs: torch.Tensor, segments: torch.Tensor, b: int
    ) -> torch.Tensor:
        """The step of one group's models; their losses."""
        at, n, rows = group.at, self.data.n_pairs, self.rows + 1
        models = at.stop - at.start
        if group.kind == "corpus":  # RandomSampler.extra: side 2 of draw[1], side 1 of draw[0]
            shape = (2, b, group.k)
            draw = torch.randint(0, n - 1, shape, generator=group.generator, device=self.device)
            draw += draw >= pairs.view(1, -1, 1)
            segments = torch.cat([segments, draw[1].view(-1) + n, draw[0].view(-1)])
        ids = self.padded.ids.index_select(0, segments)
        if models == 1:
            slots = ids.long()
        else:
            base = torch.arange(models, device=self.device).mul_(rows).view(-1, 1, 1)
            slots = ids.unsqueeze(0) + base
        weight = self.weight[at].view(-1, self.weight.shape[-1])
        vectors = F.embedding_bag(slots.view(-1, ids.shape[1]), weight, mode="sum")
        vectors = vectors.view(models, segments.numel(), -1)
        lengths = self.padded.lengths.index_select(0, segments).view(1, -1, 1)
        if self.mean:
            vectors = vectors / lengths
        scale = 1.0 / b if self.members[0].objective.reduction == "mean" else 1.0
        hinge, grad = self._hinge(group, vectors, b, self.gamma[at] * scale)
        attraction = None
        if self.any_attraction:  # Σ‖g(x1) − g(x2)‖² and its gradient, 2α·(g(x1) − g(x2))
            diff = vectors[:, :b] - vectors[:, b : 2 * b]
            attraction = diff.pow(2).sum((1, 2))
            pull = diff.mul_(self.alpha[at] * (2.0 * scale))
            grad[:, :b] += pull
            grad[:, b : 2 * b] -= pull
        if self.mean:
            grad = grad / lengths
        sq_norm = self._update(at, slots.view(-1), grad, ids.shape[1])
        loss = hinge * self.gamma[at].view(-1)
        if attraction is not None:
            loss = loss + self.alpha[at].view(-1) * attraction
        if scale != 1.0:
            loss = loss / b
        return loss if sq_norm is None else loss + self.reg[at].view(-1) * sq_norm

    def _hinge(
        self, group: _Group, vectors: torch.Tensor, b: int, scale: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Each model's sum of hinge terms, and the gradient of ``scale·Σ hinge`` with respect
        to every composed segment, (models, segments, dim)."""
        models, score, margin = vectors.shape[0], group.score, self.margin[group.at]
        if group.kind == "corpus":  # negatives: rows 2B + i·k … of the composed segments
            k, dim = group.k, vectors.shape[-1]
            side1, side2 = vectors[:, :b].reshape(-1, 1, dim), vectors[:, b : 2 * b]
            side2 = side2.reshape(-1, 1, dim)
            anchors = vectors[:, : 2 * b].reshape(-1, 1, dim)
            negatives = vectors[:, 2 * b :].reshape(-1, k, dim)
            positive = score.pairwise(side1, side2).view(models, b)
            negative = score.pairwise(anchors, negatives).view(models, 2 * b, k)
            terms = self._terms(positive, negative, margin)
            active = (terms > 0).to(terms.dtype)
            counts = active.sum(2).view(models, 2, b).sum(1)
            coef = counts.mul_(scale.view(-1, 1)).neg_().view(-1, 1, 1)
            grad1, grad2 = score.grad(side1, side2, positive.view(-1, 1, 1), coef)
            coef = active.mul_(scale).view(-1, 1, k)
            grad_anchor, grad_negative = score.grad(
                anchors, negatives, negative.view(-1, 1, k), coef
            )
            grad_anchor = grad_anchor.view(models, 2 * b, dim)
            grad_anchor[:, :b] += grad1.view(models, b, dim)
            grad_anchor[:, b:] += grad2.view(models, b, dim)
            grad = torch.cat([grad_anchor, grad_negative.view(models, -1, dim)], 1)
            return terms.sum((1, 2)), grad
        cross = group.cross
        if cross:
            sims = score.pairwise(vectors[:, :b], vectors[:, b : 2 * b])
        else:
            both = vectors[:, : 2 * b]
            sims = score.pairwise(both, both)
        rows, k = self._negatives(group, sims, b)
        positions = in_batch_positions(rows, b, cross).expand(models, 2 * b, k)
        negative = sims.flatten(1).gather(1, positions.reshape(models, -1))
        positive = sims.diagonal(0 if cross else b, -2, -1)
        terms = self._terms(positive, negative.view(models, 2 * b, k), margin)
        if group.ks is not None and k:  # the models' own k ≤ the group's
            terms = terms * (torch.arange(k, device=self.device) < group.ks)
        active = (terms > 0).to(sims.dtype).mul_(scale)
        coef = torch.zeros_like(sims)
        coef.view(models, -1).scatter_add_(
            1, positions.reshape(models, -1), active.view(models, -1)
        )
        both_anchors = active.sum(2).view(models, 2, b).sum(1).neg_()
        coef.diagonal(0 if cross else b, -2, -1).add_(both_anchors)
        if cross:
            grad_a, grad_b = score.grad(vectors[:, :b], vectors[:, b : 2 * b], sims, coef)
            grad = torch.cat([grad_a, grad_b], 1)
        else:
            both = vectors[:, : 2 * b]
            grad_a, grad_b = score.grad(both, both, sims, coef)
            grad = grad_a.add_(grad_b)
        return terms.sum((1, 2)), grad

    def _negatives(self, group: _Group, sims: torch.Tensor, b: int) -> tuple[torch.Tensor, int]:
        """(1 or models, 2B, k) rows of the composed batch contrasted with each anchor, as
        :class:`RandomSampler` (pool batch), :class:`MaxSampler` and :class:`MixSampler`
        choose them (the same draws)."""
        device, models = self.device, sims.shape[0]
        if group.kind == "batch":
            k = min(group.k, b - 1)
            keys = torch.rand(2, b - 1, generator=group.generator, device=device)
            shifts = keys.argsort(dim=1)[:, :k] + 1
            pairs = torch.arange(b, device=device).view(1, b, 1) + shifts.unsqueeze(1)
            return (pairs.remainder_(b).view(1, 2 * b, k) + other_side_start(b, device)), k
        if b < 2:
            return torch.zeros((1, 2 * b, 0), dtype=torch.long, device=device), 0
        excluded = exclusion_mask(b, group.cross, device)
        if group.cross:  # side 1 of pair i takes the best of row i, side 2 of column i
            masked = sims + excluded[:b]
            best = torch.cat([masked.max(2).indices, masked.max(1).indices], 1)
        else:
            best = (sims + excluded).max(2).indices
        if group.any_mix:
            keys = torch.rand(excluded.shape, generator=group.generator, device=device)
            randomly = keys.add_(excluded).max(1).indices
            coin = torch.rand(2 * b, generator=group.generator, device=device) < 0.5
            best = torch.where(group.mix & ~coin, randomly, best)
        chosen = best.view(models, 2 * b, 1)
        return (chosen + other_side_start(b, device) if group.cross else chosen), 1

    @staticmethod
    def _terms(
        positive: torch.Tensor, negative: torch.Tensor, margin: torch.Tensor
    ) -> torch.Tensor:
        """``[δ − s(a, partner) + s(a, negative)]_+``, (models, 2B, k), from each model's (B,)
        positive and (2B, k) negative scores and margin."""
        models, b, k = positive.shape[0], positive.shape[1], negative.shape[2]
        margins = (positive - margin.view(-1, 1)).view(models, 1, b, 1)
        return F.relu(negative.view(models, 2, b, k) - margins).view(models, 2 * b, k)

    def _update(
        self, at: slice, slots: torch.Tensor, grad: torch.Tensor, width: int
    ) -> torch.Tensor | None:
        """AdaGrad on the rows of the token ``slots`` of models ``at`` given the gradient
        ``grad`` of their composed segments (a sum: each token's row gets its segment's);
        the squared norm of each model's distinct rows if any model has λ > 0."""
        dim = grad.shape[-1]
        models = at.stop - at.start
        weight = self.weight[at].view(-1, dim)
        sums, buffer = self.sums[at].view(-1, dim), self.grad[at]
        per_token = grad.unsqueeze(2).expand(-1, -1, width, -1).reshape(-1, dim)
        buffer.view(-1, dim).index_add_(0, slots, per_token)
        buffer[:, self.rows] = 0.0  # the pads' share: the zero row gets no update
        g = buffer.view(-1, dim).index_select(0, slots).view(models, -1, dim)
        rows = weight.index_select(0, slots).view(models, -1, dim)
        sq_norm = None
        if self.any_reg:  # each distinct row once: a row in c slots counts 1/c in each
            reg = self.reg[at]
            counts = self.counts[: weight.shape[0]]
            counts.index_add_(0, slots, torch.ones_like(slots, dtype=counts.dtype))
            share = counts.index_select(0, slots).view(models, -1)
            sq_norm = (rows.pow(2).sum(-1) / share).sum(1)
            counts.index_fill_(0, slots, 0.0)
            g = g + rows * (2.0 * reg)
        state = sums.index_select(0, slots).view(models, -1, dim).addcmul_(g, g)
        step = g.div_(state.sqrt().add_(self.eps)).mul_(-self.lr[at])
        weight.index_copy_(0, slots, rows.add_(step).view(-1, dim))
        sums.index_copy_(0, slots, state.view(-1, dim))
        buffer.view(-1, dim).index_fill_(0, slots, 0.0)
        return sq_norm


class StaticPairTask(PairTask):
    """A :class:`PairTask` whose steps are :class:`StaticStep`'s, replayed from a CUDA graph
    on CUDA with ``cuda_graph``; checkpoints, encoder and export are :class:`PairTask`'s."""

    def __init__(
        self,
        config: TrainConfig,
        pairs: pa.Table | EncodedPairs,
        init: tuple[Sequence[str], np.ndarray] | None = None,
    ):
        super().__init__(config, pairs, init)
        graphed = self.device.type == "cuda" and config.cuda_graph
        self.static = StaticStep([self], graphed)

    def batches(self, first: int) -> Iterator[tuple[torch.Tensor]]:
        return self.pair_ids(first)

    def step(self, step: int, batch: tuple[torch.Tensor]) -> torch.Tensor:
        return self.static(batch[0])[0]

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        super().load_state_dict(state)
        self.static.adopt()
