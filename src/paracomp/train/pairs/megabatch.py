"""Mega-batch hardest negatives as a mode of the pair trainer (``megabatch: M``).

Wieting & Gimpel's para-nmt trainer (``main/models.py``), which Chen & Gimpel (2020) train
with: an epoch's shuffled pairs are cut into batches of ``batch_size`` and the batches into
groups of ``M`` (a last group of a single pair joins the one before, so that every group can
be mined). For each group, when the trainer reaches it:

1. the pairs' segments are laid out as a pool, side 1 of its ``P`` pairs then side 2, and, with
   ``scramble``, the words of both segments of each drawn pair are shuffled
   (:func:`paracomp.train.pairs.perturb.scramble`) for the whole group, mining and steps alike;
2. the pool is composed without gradient and every segment gets as its negative the most
   similar other segment of the pool under the run's score, never itself nor its partner
   (:func:`paracomp.losses.megabatch.mine`);
3. one optimiser step per batch: its pairs ``(s1, s2)`` and their fixed negatives
   ``(n1, n2)`` are composed again, with the current parameters and with gradient, and the
   loss is

       Σ_pairs [δ − d(s1, s2) + d(s1, n1)]_+ + [δ − d(s1, s2) + d(s2, n2)]_+
         + c·‖W_step‖² + λ Σ_pairs Σ_{s ∈ {s1, s2, n1, n2}} prior(s)

   with the objective's reduction over pairs (J_pa: the mean, as para-nmt's ``T.mean``), its
   lazy L2 on the word rows the step uses (each once), and, with ``prior_weight`` λ > 0, the
   WLO prior (:func:`paracomp.losses.gaussian.wlo_prior`, reading ``prior``) reduced over
   pairs like the hinge.

Every step of a group sees the negatives mined at the group's start (stale by up to ``M − 1``
steps, as in para-nmt). Mining draws nothing at random; the scrambles come from the task's
perturbation generator, the order from its order generator, so a run resumed from an epoch's
checkpoint (where pair runs checkpoint) continues exactly. ``M = 1`` mines each batch alone.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import torch
import torch.nn.functional as F

from paracomp.losses.gaussian import wlo_prior
from paracomp.losses.hinge import HingeObjective
from paracomp.losses.megabatch import MegaBatchNegatives, mine
from paracomp.models.pair import PairModel
from paracomp.models.vocab import EncodedPairs, Segments
from paracomp.train.pairs.perturb import InputNoise


def group_bounds(n_pairs: int, batch_size: int, megabatch: int) -> list[tuple[int, int]]:
    """``(first, stop)`` positions of each group of ``megabatch`` batches in an epoch's order;
    a last group of one pair joins the previous group."""
    size = batch_size * megabatch
    bounds = [(lo, min(lo + size, n_pairs)) for lo in range(0, n_pairs, size)]
    if len(bounds) > 1 and bounds[-1][1] - bounds[-1][0] == 1:
        bounds[-2:] = [(bounds[-2][0], n_pairs)]
    return bounds


@dataclass(frozen=True)
class MegaBatch:
    """One mined group: ``pairs`` (P,) index the data; ``pool`` holds their 2P segments (side
    1, then side 2) as trained (scrambled where drawn); ``negatives`` the mined pool rows."""

    pairs: torch.Tensor
    pool: Segments
    negatives: MegaBatchNegatives


@dataclass(frozen=True)
class MegaStep:
    """One optimiser step: the pairs ``start … start + size − 1`` of ``group``'s pool."""

    group: MegaBatch
    start: int
    size: int

    def segments(self) -> tuple[torch.Tensor, torch.Tensor]:
        """Ids and starts of the step's ``4·size`` segments: ``s1``, ``s2``, then the
        negatives ``n1`` of the side-1 anchors and ``n2`` of the side-2 anchors."""
        p = self.group.pairs.numel()
        device = self.group.pool.ids.device
        side1 = torch.arange(self.start, self.start + self.size, device=device)
        anchors = torch.cat([side1, side1 + p])
        rows = self.group.negatives.rows.index_select(0, anchors)
        return self.group.pool.take(torch.cat([anchors, rows]))


def pool_segments(data: EncodedPairs, pairs: torch.Tensor) -> Segments:
    """The segments of ``pairs``: side 1 of each, then side 2."""
    ids, starts = data.segments.take(torch.cat([pairs, pairs + data.n_pairs]))
    end = starts.new_full((1,), ids.numel())
    return Segments(ids, torch.cat([starts, end]))


@torch.no_grad()
def compose_pool(model: PairModel, pool: Segments, chunk: int) -> torch.Tensor:
    """The pool's segments composed without gradient, ``chunk`` segments at a time."""
    out = []
    for first in range(0, len(pool), chunk):
        stop = min(first + chunk, len(pool))
        lo, hi = int(pool.offsets[first]), int(pool.offsets[stop])
        ids = pool.ids[lo:hi].long()
        out.append(model(ids, pool.offsets[first:stop] - lo))
    return torch.cat(out)


@dataclass
class MegaBatchMode:
    """The mega-batch mode of a :class:`~paracomp.train.pairs.task.PairTask`: ``megabatch`` batches
    of ``batch_size`` pairs a group, negatives mined with ``objective.score``, the prior of
    weight ``prior_weight`` (reading ``prior``) on top of the objective's loss."""

    megabatch: int
    batch_size: int
    objective: HingeObjective
    noise: InputNoise
    prior_weight: float = 0.0
    prior: str = "operator"

    def steps(
        self,
        data: EncodedPairs,
        order: torch.Tensor,
        model: PairModel,
        perturb: torch.Generator | None,
        precision: Callable[[], contextlib.AbstractContextManager[object]],
        skip: int = 0,
    ) -> Iterator[MegaStep]:
        """The steps of one epoch over ``order`` after its first ``skip``, each group mined
        when the first of its steps is asked for (so with the parameters of that moment)."""
        step = 0
        for lo, hi in group_bounds(order.numel(), self.batch_size, self.megabatch):
            sizes = [min(self.batch_size, hi - s) for s in range(lo, hi, self.batch_size)]
            if step + len(sizes) <= skip:
                step += len(sizes)
                continue
            group = self.mined(data, order[lo:hi], model, perturb, precision)
            for index, size in enumerate(sizes):
                if step >= skip:
                    yield MegaStep(group, index * self.batch_size, size)
                step += 1

    def mined(
        self,
        data: EncodedPairs,
        pairs: torch.Tensor,
        model: PairModel,
        perturb: torch.Generator | None,
        precision: Callable[[], contextlib.AbstractContextManager[object]],
    ) -> MegaBatch:
        """The group of ``pairs``: their pool (scrambled as drawn) and its negatives."""
        pool = pool_segments(data, pairs)
        if perturb is not None:
            ids = self.noise.scrambled(pool.ids, pool.offsets[:-1], perturb)
            pool = Segments(ids, pool.offsets)
        with precision():
            vectors = compose_pool(model, pool, 2 * self.batch_size)
        negatives = mine(
            vectors.to(torch.promote_types(vectors.dtype, torch.float32)), self.objective.score
        )
        return MegaBatch(pairs, pool, negatives)

    def loss(
        self, model: PairModel, step: MegaStep, generator: torch.Generator | None = None
    ) -> torch.Tensor:
        """The step's loss (module docstring), with autograd; with ``dropout`` or
        ``word_dropout`` the composed word rows are dropped out (draws from ``generator``),
        the mining having composed without."""
        ids, starts = step.segments()
        batch = model.lookup(ids, starts)
        dropping = self.noise.dropout or self.noise.word_dropout
        vectors = model.composed(self.noise.dropped(batch, generator) if dropping else batch)
        loss = mega_hinge(self.objective, vectors)
        scale = 1.0 / step.size if self.objective.reduction == "mean" else 1.0
        if self.objective.reg:
            loss = loss + self.objective.reg * batch.rows.pow(2).sum()
        if self.prior_weight:
            prior = wlo_prior(model.composer, batch, self.prior).sum()
            loss = loss + self.prior_weight * scale * prior
        return loss


def mega_hinge(objective: HingeObjective, vectors: torch.Tensor) -> torch.Tensor:
    """The hinge of a step's composed ``s1``, ``s2``, ``n1``, ``n2`` (``4·size`` rows), reduced
    over pairs as ``objective`` reduces (step 3 of the module docstring)."""
    s1, s2, n1, n2 = vectors.chunk(4)
    score, margin = objective.score, objective.margin
    positive = score.paired(s1, s2)
    terms = F.relu(margin - positive + score.paired(s1, n1))
    terms = terms + F.relu(margin - positive + score.paired(s2, n2))
    scale = 1.0 / s1.shape[0] if objective.reduction == "mean" else 1.0
    return terms.sum() * scale
