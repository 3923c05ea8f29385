"""Training objectives: a scalar loss for one batch of pairs.

Both objectives of Elgohary & Carpuat (2016) are the same two-sided hinge, with an optional
attraction term on every pair,

    R( γ·Σ_anchors Σ_negatives [δ − s(a, partner) + s(a, negative)]_+
       + α·Σ_pairs ‖g(x1) − g(x2)‖² )  +  c·‖W_batch‖²

over the ``2B`` anchors of a batch (side 1 of each pair against negatives for it, then
side 2), ``R`` the sum or the mean over the pairs, with different scores, negatives,
reductions and regularisers:

- J_bi (:class:`BiCVMObjective`): ``k`` random negatives per side, summed over the batch,
  ``c = λ/2``. As printed (Eq. 1): ``s = −‖·−·‖²``, ``α = 0``, ``γ = 1``. As the authors' base
  code, ``karlmoritz/bicvm``'s ``dbltrain``, trains it (the reference form, elgohary2016's
  default): ``s = −½‖·−·‖²`` (``half_sq_euclidean``: its hinge is ``margin + 0.5‖a−b‖² −
  0.5‖a−n‖²``, ``general_trainer.cc``), the hinge scaled by ``γ = --gamma`` (default 0.1; every
  hinge gradient there is ``gamma*(…)``), and ``α = 1``: each side of every pair gets the
  gradient of ``½‖a−b‖²`` from ``SingleProp::backpropBi`` (``Delta_D += alpha_lbl·(a−b)``,
  ``alpha_lbl = 1.0`` in ``dbltrain.cc``, never scaled) in each of the two directions
  (``calc_bi_error1/2``), whether or not a hinge is active: ``α·‖a−b‖²`` per pair. Without it
  learning stops once the hinges are inactive. λ: BiCVM's L2 term is ``λ_D·(batch/N)·½‖W‖²``
  with an integer batch fraction (``train_adagrad.cc``: ``lambdas.multiply((model.to −
  model.from) / size)``), zero whenever there is more than one batch, so the code trains
  without L2; the reference form is ``reg = 0`` (elgohary2016's config), and ``reg > 0``
  adds the printed λ as below to either form.
- J_pa (:class:`ParaphraseObjective`): cosine or −Euclidean, one MAX/MIX negative per side,
  averaged over the pairs of the batch as in Wieting's code, ``c = λ``, ``α = 0``, ``γ = 1``.

The regulariser is lazy: it covers only the word rows used in the batch, once per step, not
scaled by the batch's share of the corpus. Updates therefore stay sparse, and over an epoch a
word's rows are decayed once per batch it occurs in (a frequency-weighted L2 rather than
Eq. 1's single ``λ/2‖W‖²``; BiCVM's intended batch-fraction scaling would all but switch it
off for rare words). With AdaGrad, summing rather than averaging the hinge only shifts the weight of
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

from paracomp.losses.negatives import Layout, NegativeSampler, in_batch_positions, in_batch_scores
from paracomp.losses.scores import SCORES, Score
from paracomp.models.pair import BatchTrees, PairModel, RowGradient
from paracomp.models.vocab import EncodedPairs


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
    """The two-sided hinge above; ``reduction`` is ``"sum"`` or ``"mean"`` over pairs,
    ``attraction`` is α and ``hinge_scale`` γ (``0`` and ``1``: the hinge alone).

    With additive composers on CPU (:attr:`PairModel.has_bag`) the gradient comes without
    autograd (:meth:`loss_and_gradient`): that of the hinge and the attraction with respect to
    the composed vectors in closed form (:meth:`hinge_grad`), that of the regulariser as
    ``2c·W_batch``. Otherwise autograd differentiates :meth:`hinge` and the attraction
    through the composer."""

    def __init__(
        self,
        score: Score,
        margin: float,
        reg: float,
        reduction: str,
        attraction: float = 0.0,
        hinge_scale: float = 1.0,
    ):
        if reduction not in ("sum", "mean"):
            raise ValueError(f"reduction must be 'sum' or 'mean', not {reduction!r}")
        self.score, self.margin, self.reg, self.reduction = score, margin, reg, reduction
        self.attraction, self.hinge_scale = attraction, hinge_scale

    def loss(self, model: PairModel, batch: PairBatch, sampler: NegativeSampler) -> torch.Tensor:
        if torch.is_grad_enabled():
            by_hand = self.loss_and_gradient(model, batch, sampler)
            if by_hand is not None:
                return model.loss_with_gradient(*by_hand)
        ids, starts, layout, trees = self.batch_segments(batch, sampler)
        vectors, sq_norm = model.compose(ids, starts, norm=bool(self.reg), trees=trees)
        hinge = self.hinge(vectors, layout, sampler).sum()
        return self.total_loss(hinge, layout, sq_norm, self.attraction_term(vectors, layout))

    def loss_and_gradient(
        self, model: PairModel, batch: PairBatch, sampler: NegativeSampler
    ) -> tuple[torch.Tensor, RowGradient] | None:
        if not model.has_bag or self.score.grad is None:
            return None
        ids, starts, layout, _ = self.batch_segments(batch, sampler)
        bag = model.bag(ids, starts)
        b, scale = layout.batch, 1.0 / layout.batch if self.reduction == "mean" else 1.0
        attraction = pull = None
        if self.attraction:  # Σ‖g(x1) − g(x2)‖² and its gradient on side 1, 2α·(g(x1) − g(x2))
            diff = bag.vectors[:b] - bag.vectors[b : 2 * b]
            attraction = torch.dot(diff.view(-1), diff.view(-1))
            pull = diff.mul_(2.0 * scale * self.attraction)
        terms, segments, grad = self.hinge_grad(
            bag.vectors, layout, sampler, scale * self.hinge_scale, pull
        )
        index, row_grad = bag.backward(segments, grad)
        sq_norm = None
        if self.reg:
            rows = bag.table.index_select(0, index)
            sq_norm = rows.pow(2).sum()
            row_grad.add_(rows, alpha=2.0 * self.reg)
        loss = self.total_loss(terms.sum(), layout, sq_norm, attraction)
        return loss, RowGradient(index, row_grad)

    def batch_segments(
        self, batch: PairBatch, sampler: NegativeSampler
    ) -> tuple[torch.Tensor, torch.Tensor, Layout, BatchTrees | None]:
        """Ids and starts of the batch's segments and the sampler's extra ones, their layout
        and, if the data has trees, their merges and heights."""
        extra1, extra2 = sampler.extra(batch.pairs, batch.data.n_pairs)
        layout = Layout(batch.pairs.numel(), extra1.numel(), extra2.numel())
        trees = batch.data.trees_of(batch.pairs, extra1, extra2)
        if layout.in_batch:
            return batch.ids, batch.starts, layout, trees
        more_ids, more_starts = batch.data.take_pairs(extra1, extra2, side2_first=True)
        starts = torch.cat([batch.starts, more_starts + batch.ids.numel()])
        return torch.cat([batch.ids, more_ids]), starts, layout, trees

    def attraction_term(self, vectors: torch.Tensor, layout: Layout) -> torch.Tensor | None:
        """``Σ_pairs ‖g(x1) − g(x2)‖²`` of the composed batch (None where ``α = 0``)."""
        if not self.attraction:
            return None
        b = layout.batch
        return (vectors[:b] - vectors[b : 2 * b]).pow(2).sum()

    def total_loss(
        self,
        hinge: torch.Tensor,
        layout: Layout,
        sq_norm: torch.Tensor | None,
        attraction: torch.Tensor | None = None,
    ) -> torch.Tensor:
        """The loss from the sum of the hinge terms, ``Σ_pairs ‖g(x1) − g(x2)‖²`` and
        ``‖W_batch‖²``."""
        if self.hinge_scale != 1.0:
            hinge = hinge * self.hinge_scale
        if attraction is not None:
            hinge = hinge.add(attraction, alpha=self.attraction)
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
        self,
        vectors: torch.Tensor,
        layout: Layout,
        sampler: NegativeSampler,
        scale: float,
        pull: torch.Tensor | None = None,
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """:meth:`hinge` and the gradient of ``scale·Σ hinge`` with respect to ``vectors``,
        worked out without autograd, as ``(terms, segments, grad)``: ``grad[i]`` is a gradient
        of ``vectors[segments[i]]``; the gradient of a vector is the sum of its rows (segments
        may repeat; those not listed have none). ``pull`` (B, d), the gradient of a term of
        every pair that is antisymmetric in its sides (the attraction), is added to side 1's
        gradient and subtracted from side 2's; the hinge's goes only where a term is active."""
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
                    _pull(pull, grad_a, grad_b)
                    return terms, segments, torch.cat([grad_a, grad_b]).to(vectors.dtype)
                grad_a, grad_b = score.grad(vectors, vectors, sims, coef)
                grad = grad_a.add_(grad_b)
                _pull(pull, grad[:b], grad[b:])
                return terms, segments, grad.to(vectors.dtype)
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
            # rows 0…B-1 of first and second are the pairs' sides 1 and 2
            _pull(pull, grad_first[:b, 0], grad_second[:b, 0])
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
        return self.hinge_terms(positive, negative), positive, negative, negatives

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
        return self.hinge_terms(positive, sims.take(positions)), sims, positions

    def hinge_terms(self, positive: torch.Tensor, negative: torch.Tensor) -> torch.Tensor:
        """``[δ − s(a, partner) + s(a, negative)]_+`` from the (B,) positive scores (both
        anchors of pair i share ``positive[i]``) and the (2B, k) negative ones."""
        b, k = positive.numel(), negative.shape[1]
        margins = (positive - self.margin).view(1, b, 1)
        return F.relu(negative.view(2, b, k) - margins).view(2 * b, k)


def _pull(pull: torch.Tensor | None, side1: torch.Tensor, side2: torch.Tensor) -> None:
    """Add ``pull`` to the gradient rows ``side1`` of the pairs' side 1 and subtract it from
    ``side2`` (in place)."""
    if pull is not None:
        side1.add_(pull)
        side2.sub_(pull)


class BiCVMObjective(HingeObjective):
    """J_bi: ``Σ_pairs ( γ·Σ_i ([δ + d(x1,x2) − d(x1,x̄2^i)]_+ + [δ + d(x1,x2) − d(x2,x̄1^i)]_+)
    + α·‖g(x1)−g(x2)‖² ) + (λ/2)‖W_batch‖²``, ``d = −s``, summed over the batch. The defaults
    are Eq. 1 as printed (``d = ‖·−·‖²``, ``α = 0``, ``γ = 1``); BiCVM's code trains ``d =
    ½‖·−·‖²``, ``α = 1``, ``γ = 0.1``, ``λ = 0`` (the module docstring)."""

    def __init__(
        self,
        margin: float,
        reg: float,
        score: Score = SCORES["sq_euclidean"],
        attraction: float = 0.0,
        hinge_scale: float = 1.0,
    ):
        super().__init__(score, margin, reg / 2.0, "sum", attraction, hinge_scale)


class ParaphraseObjective(HingeObjective):
    """J_pa: ``[δ − s(x1,x2) + s(x1,t1)]_+ + [δ − s(x1,x2) + s(x2,t2)]_+ + λ‖W‖²``, averaged
    over the pairs of the batch (with ``α``, ``γ`` as :class:`HingeObjective`'s; ``0`` and
    ``1`` in Wieting's code)."""

    def __init__(
        self,
        margin: float,
        reg: float,
        score: Score = SCORES["cosine"],
        attraction: float = 0.0,
        hinge_scale: float = 1.0,
    ):
        super().__init__(score, margin, reg, "mean", attraction, hinge_scale)


OBJECTIVES: dict[str, type[HingeObjective]] = {
    "bicvm": BiCVMObjective,
    "paraphrase": ParaphraseObjective,
}
"""Objective classes by config name; each takes ``margin``, ``reg``, a ``score``,
``attraction`` and ``hinge_scale``."""
