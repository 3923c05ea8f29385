"""Training objectives: a scalar loss for one batch of pairs.

Both objectives of Elgohary & Carpuat (2016) are the same two-sided hinge

    Σ_anchors Σ_negatives [δ − s(a, partner) + s(a, negative)]_+  +  c·‖W_batch‖²

over the ``2B`` anchors of a batch (side 1 of each pair against negatives for it, then
side 2), with different scores, negatives, reductions and regularisers:

- J_bi (:class:`BiCVMObjective`, Eq. 1): ``s = −‖·−·‖²``, ``k`` random negatives per side,
  summed over the batch as BiCVM and Eq. 1 do, ``c = λ/2``.
- J_pa (:class:`ParaphraseObjective`): cosine or −Euclidean, one MAX/MIX negative per side,
  averaged over the pairs of the batch as in Wieting's code, ``c = λ``.

The regulariser is lazy: it covers only the word rows used in the batch, once per step, not
scaled by the batch's share of the corpus. Updates therefore stay sparse, and over an epoch a
word's rows are decayed once per batch it occurs in (a frequency-weighted L2 rather than
Eq. 1's single ``λ/2‖W‖²``; BiCVM's batch-fraction scaling would all but switch it off for
rare words). With AdaGrad, summing rather than averaging the hinge only shifts the weight of
the regulariser: AdaGrad's steps do not change when the whole loss is scaled.

For additive composers on CPU the gradient is worked out by hand, without autograd
(:meth:`HingeObjective.loss_and_gradient`): the same as autograd's up to rounding, in a
fraction of the time, a step on phrase pairs being mostly per-op overhead.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass

import torch
import torch.nn.functional as F

from paracomp.train.model import PairModel, RowGradient
from paracomp.train.negatives import Layout, NegativeSampler, in_batch_positions, in_batch_scores
from paracomp.train.scores import SCORES, Score
from paracomp.train.vocab import EncodedPairs


@dataclass(frozen=True)
class PairBatch:
    """The pairs ``pairs`` (indices into ``data``) of one step, with ``ids`` and ``starts``
    of their segments (side 1 of every pair, then side 2) from :meth:`EncodedPairs.batches`."""

    pairs: torch.Tensor
    ids: torch.Tensor
    starts: torch.Tensor
    data: EncodedPairs


def _rows(vectors: torch.Tensor, rows: torch.Tensor) -> torch.Tensor:
    """``vectors[rows]``: a view where ``rows`` are consecutive (corpus negatives), else a
    copy."""
    first = int(rows[0, 0]) if rows.numel() else 0
    run = torch.arange(first, first + rows.numel(), device=rows.device)
    if torch.equal(rows.view(-1), run):
        return vectors[first : first + rows.numel()].view(*rows.shape, -1)
    return vectors.index_select(0, rows.reshape(-1)).view(*rows.shape, -1)


class Objective(ABC):
    @abstractmethod
    def loss(self, model: PairModel, batch: PairBatch, sampler: NegativeSampler) -> torch.Tensor:
        """The batch's loss; its gradient reaches only the rows and parameters it used."""

    def loss_and_gradient(
        self, model: PairModel, batch: PairBatch, sampler: NegativeSampler
    ) -> tuple[torch.Tensor, RowGradient] | None:
        """The batch's loss without autograd and its gradient with respect to the word rows
        (``model``'s only parameters), if this objective can work it out for ``model``; else
        ``None``, without drawing negatives."""
        return None


class HingeObjective(Objective):
    """The two-sided hinge above; ``reduction`` is ``"sum"`` or ``"mean"`` over pairs.

    With additive composers on CPU (:attr:`PairModel.has_bag`) the gradient comes without
    autograd (:meth:`loss_and_gradient`): that of the hinge with respect to the composed
    vectors in closed form from the score (:meth:`hinge_grad`), that of the regulariser as
    ``2c·W_batch``. Otherwise autograd differentiates :meth:`hinge` through the composer."""

    def __init__(self, score: Score, margin: float, reg: float, reduction: str):
        if reduction not in ("sum", "mean"):
            raise ValueError(f"reduction must be 'sum' or 'mean', not {reduction!r}")
        self.score, self.margin, self.reg, self.reduction = score, margin, reg, reduction

    def loss(self, model: PairModel, batch: PairBatch, sampler: NegativeSampler) -> torch.Tensor:
        if torch.is_grad_enabled():
            by_hand = self.loss_and_gradient(model, batch, sampler)
            if by_hand is not None:
                return model.loss_with_gradient(*by_hand)
        ids, starts, layout = self._segments(batch, sampler)
        vectors, sq_norm = model.compose(ids, starts, norm=bool(self.reg))
        return self._total(self.hinge(vectors, layout, sampler).sum(), layout, sq_norm)

    def loss_and_gradient(
        self, model: PairModel, batch: PairBatch, sampler: NegativeSampler
    ) -> tuple[torch.Tensor, RowGradient] | None:
        if not model.has_bag:
            return None
        ids, starts, layout = self._segments(batch, sampler)
        bag = model.bag(ids, starts)
        scale = 1.0 / layout.batch if self.reduction == "mean" else 1.0
        terms, segments, grad = self.hinge_grad(bag.vectors, layout, sampler, scale)
        index, row_grad = bag.backward(segments, grad)
        sq_norm = None
        if self.reg:
            rows = bag.table.index_select(0, index)
            sq_norm = rows.pow(2).sum()
            row_grad.add_(rows, alpha=2.0 * self.reg)
        return self._total(terms.sum(), layout, sq_norm), RowGradient(index, row_grad)

    def _segments(
        self, batch: PairBatch, sampler: NegativeSampler
    ) -> tuple[torch.Tensor, torch.Tensor, Layout]:
        """Ids and starts of the batch's segments and the sampler's extra ones, their layout."""
        extra1, extra2 = sampler.extra(batch.pairs, batch.data.n_pairs)
        layout = Layout(batch.pairs.numel(), extra1.numel(), extra2.numel())
        if layout.in_batch:
            return batch.ids, batch.starts, layout
        more_ids, more_starts = batch.data.take_pairs(extra1, extra2, side2_first=True)
        starts = torch.cat([batch.starts, more_starts + batch.ids.numel()])
        return torch.cat([batch.ids, more_ids]), starts, layout

    def _total(
        self, hinge: torch.Tensor, layout: Layout, sq_norm: torch.Tensor | None
    ) -> torch.Tensor:
        """The loss from the sum of the hinge terms and ``‖W_batch‖²``."""
        if self.reduction == "mean":
            hinge = hinge / layout.batch
        return hinge if sq_norm is None else hinge + self.reg * sq_norm

    def hinge(
        self, vectors: torch.Tensor, layout: Layout, sampler: NegativeSampler
    ) -> torch.Tensor:
        """(2B, k) hinge terms of the composed batch ``vectors`` and the sampler's negatives."""
        if layout.in_batch:
            return self._in_batch(vectors, layout, sampler)[0]
        return self._gathered(vectors, layout, sampler)[0]

    def hinge_grad(
        self, vectors: torch.Tensor, layout: Layout, sampler: NegativeSampler, scale: float
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """:meth:`hinge` and the gradient of ``scale·Σ hinge`` with respect to ``vectors``,
        worked out without autograd, as ``(terms, segments, grad)``: ``grad[i]`` is a
        gradient of ``vectors[segments[i]]``; the gradient of a vector is the sum of its
        rows (segments may repeat; those not listed have none)."""
        b, score = layout.batch, self.score
        with torch.no_grad():
            if layout.in_batch:
                terms, sims, positions = self._in_batch(vectors, layout, sampler)
                active = (terms > 0).to(sims.dtype).mul_(scale)
                coef = torch.zeros_like(sims)
                coef.view(-1).index_add_(0, positions.view(-1), active.view(-1))
                positive = active.sum(1).view(2, b).sum(0).neg_()  # one score, both anchors
                coef.diagonal(0 if sampler.cross else b).add_(positive)
                segments = torch.arange(2 * b, device=vectors.device)
                if sampler.cross:
                    grad_a, grad_b = score.grad(vectors[:b], vectors[b:], sims, coef)
                    return terms, segments, torch.cat([grad_a, grad_b]).to(vectors.dtype)
                grad_a, grad_b = score.grad(vectors, vectors, sims, coef)
                return terms, segments, grad_a.add_(grad_b).to(vectors.dtype)
            terms, positive, negative, negatives = self._gathered(vectors, layout, sampler)
            anchor, nth = terms.nonzero(as_tuple=True)  # few terms are active: only those
            pairs = torch.arange(b, device=vectors.device)
            counts = (terms > 0).sum(1).view(2, b).sum(0)  # one positive score, both anchors
            # one score.grad over the pairs' positive scores and the active negative ones
            first = torch.cat([pairs, anchor])
            second = torch.cat([pairs + b, negatives[anchor, nth]])
            scores = torch.cat([positive, negative[anchor, nth]])
            coef = torch.cat(
                [counts.to(scores.dtype).mul_(-scale), scores.new_full(nth.shape, scale)]
            )
            grad_first, grad_second = score.grad(
                vectors[first].unsqueeze(1),
                vectors[second].unsqueeze(1),
                scores.view(-1, 1, 1),
                coef.view(-1, 1, 1),
            )
            grad = torch.cat([grad_first, grad_second]).squeeze(1)
            return terms, torch.cat([first, second]), grad.to(vectors.dtype)

    def _gathered(
        self, vectors: torch.Tensor, layout: Layout, sampler: NegativeSampler
    ) -> tuple[torch.Tensor, ...]:
        """The hinge terms against negatives gathered by row, the (B,) positive and (2B, k)
        negative scores and the negatives' rows. Scores are the batched ``pairwise`` form
        (fewer passes over the (2B, k, d) negatives than ``paired``; the in-batch form)."""
        b = layout.batch
        negatives = sampler.sample(vectors.detach(), layout, self.score)
        pairs = vectors[:b].unsqueeze(1), vectors[b : 2 * b].unsqueeze(1)
        positive = self.score.pairwise(*pairs).view(b)
        negative = self.score.pairwise(vectors[: 2 * b].unsqueeze(1), _rows(vectors, negatives))
        negative = negative.squeeze(1)
        return self._terms(positive, negative), positive, negative, negatives

    def _in_batch(
        self, vectors: torch.Tensor, layout: Layout, sampler: NegativeSampler
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """The hinge terms from one score matrix of the batch (:func:`in_batch_scores`, which
        also serves MAX), the matrix and where the negatives' scores sit in it (flattened)."""
        b = layout.batch
        sims = in_batch_scores(vectors, b, self.score, sampler.cross)
        negatives = sampler.sample(vectors.detach(), layout, self.score, sims.detach())
        positions = in_batch_positions(negatives, b, sampler.cross)
        positive = sims.diagonal(0 if sampler.cross else b)
        return self._terms(positive, sims.take(positions)), sims, positions

    def _terms(self, positive: torch.Tensor, negative: torch.Tensor) -> torch.Tensor:
        """``[δ − s(a, partner) + s(a, negative)]_+`` from the (B,) positive scores (both
        anchors of pair i share ``positive[i]``) and the (2B, k) negative ones."""
        b, k = positive.numel(), negative.shape[1]
        margins = (positive - self.margin).view(1, b, 1)
        return F.relu(negative.view(2, b, k) - margins).view(2 * b, k)


class BiCVMObjective(HingeObjective):
    """J_bi (Eq. 1): ``Σ_i [δ + ‖g(x1)−g(x2)‖² − ‖g(x1)−g(x̄2^i)‖²]_+ + [δ + ‖g(x1)−g(x2)‖²
    − ‖g(x2)−g(x̄1^i)‖²]_+ + (λ/2)‖W‖²``, summed over the batch."""

    def __init__(self, margin: float, reg: float, score: Score = SCORES["sq_euclidean"]):
        super().__init__(score, margin, reg / 2.0, "sum")


class ParaphraseObjective(HingeObjective):
    """J_pa: ``[δ − s(x1,x2) + s(x1,t1)]_+ + [δ − s(x1,x2) + s(x2,t2)]_+ + λ‖W‖²``, averaged
    over the pairs of the batch."""

    def __init__(self, margin: float, reg: float, score: Score = SCORES["cosine"]):
        super().__init__(score, margin, reg, "mean")


OBJECTIVES: dict[str, type[HingeObjective]] = {
    "bicvm": BiCVMObjective,
    "paraphrase": ParaphraseObjective,
}
"""Objective classes by config name; each takes ``margin``, ``reg`` and a ``score``."""
