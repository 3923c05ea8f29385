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
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass

import torch
import torch.nn.functional as F

from paracomp.train.model import PairModel
from paracomp.train.negatives import Layout, NegativeSampler, in_batch_scores
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


class Objective(ABC):
    @abstractmethod
    def loss(self, model: PairModel, batch: PairBatch, sampler: NegativeSampler) -> torch.Tensor:
        """The batch's loss; its gradient reaches only the rows and parameters it used."""


class HingeObjective(Objective):
    """The two-sided hinge above; ``reduction`` is ``"sum"`` or ``"mean"`` over pairs."""

    def __init__(self, score: Score, margin: float, reg: float, reduction: str):
        if reduction not in ("sum", "mean"):
            raise ValueError(f"reduction must be 'sum' or 'mean', not {reduction!r}")
        self.score, self.margin, self.reg, self.reduction = score, margin, reg, reduction

    def loss(self, model: PairModel, batch: PairBatch, sampler: NegativeSampler) -> torch.Tensor:
        extra1, extra2 = sampler.extra(batch.pairs, batch.data.n_pairs)
        layout = Layout(batch.pairs.numel(), extra1.numel(), extra2.numel())
        ids, starts = batch.ids, batch.starts
        if not layout.in_batch:
            more_ids, more_starts = batch.data.take_pairs(extra1, extra2)
            starts = torch.cat([starts, more_starts + ids.numel()])
            ids = torch.cat([ids, more_ids])
        segments = model.lookup(ids, starts)
        hinge = self.hinge(model.composer(segments), layout, sampler).sum()
        if self.reduction == "mean":
            hinge = hinge / layout.batch
        if self.reg:
            hinge = hinge + self.reg * segments.rows.pow(2).sum()
        return hinge

    def hinge(
        self, vectors: torch.Tensor, layout: Layout, sampler: NegativeSampler
    ) -> torch.Tensor:
        """(2B, k) hinge terms of the composed batch ``vectors`` and the sampler's negatives."""
        b = layout.batch
        if not layout.in_batch:
            negatives = sampler.sample(vectors.detach(), layout, self.score)
            positive = self.score.paired(vectors[:b], vectors[b : 2 * b]).repeat(2)
            picked = vectors.index_select(0, negatives.reshape(-1)).view(*negatives.shape, -1)
            negative = self.score.paired(vectors[: 2 * b].unsqueeze(1), picked)
            return F.relu(negative - (positive - self.margin).unsqueeze(1))
        # in-batch: one score matrix gives the positive and every negative and serves MAX,
        # cheaper than gathering 2B·k vectors; cross samplers need only a (B, B) block of it
        sims = in_batch_scores(vectors, b, self.score, sampler.cross)
        negatives = sampler.sample(vectors.detach(), layout, self.score, sims.detach())
        if sampler.cross:  # column j is pair j of the other side
            positive, negatives = sims[:b].diagonal(), negatives.remainder(b)
        else:
            positive = sims.diagonal(b)
        negative = sims.gather(1, negatives)
        return F.relu(negative - (positive.repeat(2) - self.margin).unsqueeze(1))


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
