"""A pair objective's step under embedding dropout or word dropout (``dropout``,
``word_dropout``; Wieting & Gimpel 2017, §4.2), as the authors' code trains it.

``jwieting/acl2017`` (``main/models.py``) builds two forward passes of one network: a
deterministic one (no dropout) that ``get_pairs`` runs over the batch's ``2B`` sentences,
already scrambled, to pick the MAX negatives (``utils.get_pairs_fast``: cosine over all ``2B``,
the sentence itself and its partner masked); and a training one, ``get_output(...,
deterministic=False)`` called separately for ``g1``, ``g2``, ``p1`` and ``p2``, so the anchors
and the negatives (copies of other sentences of the batch) are composed ``4B`` times, each
with a dropout mask of its own. :func:`noisy_loss` does the same:

1. the batch's segments (scrambled by the caller) are composed without gradient and without
   dropout, and the sampler picks each anchor's negatives from those vectors (MAX: the most
   similar of the batch's other segments, never the anchor nor its partner);
2. the ``2B`` anchors and their ``2B·k`` negatives are composed again, with gradient, from the
   word rows of every token occurrence dropped out independently
   (:meth:`~paracomp.train.pairs.perturb.InputNoise.dropped`, draws from the task's perturbation
   generator), and the objective's hinge, attraction, reduction and lazy L2 on the word rows
   are taken over them.

Without dropout the same loss, composed once, is the objective's own (the copies of the
negatives would equal the anchors they copy); the trainer takes this path only when a dropout
is on. Random samplers do not look at the vectors, so step 1 composes nothing for them.
"""

from __future__ import annotations

import torch

from paracomp.losses.hinge import HingeObjective, PairBatch
from paracomp.losses.negatives import Layout, NegativeSampler, RandomSampler
from paracomp.models.pair import PairModel
from paracomp.models.vocab import Segments
from paracomp.train.pairs.perturb import InputNoise


def noisy_loss(
    objective: HingeObjective,
    model: PairModel,
    batch: PairBatch,
    sampler: NegativeSampler,
    noise: InputNoise,
    generator: torch.Generator,
) -> torch.Tensor:
    """The batch's loss (module docstring) with autograd, negatives mined without dropout."""
    ids, starts, layout, _ = objective.batch_segments(batch, sampler)
    b = layout.batch
    if isinstance(sampler, RandomSampler):  # picks rows without looking at them
        clean = ids.new_empty(len(starts), 0, dtype=model.weight.dtype)
    else:
        with torch.no_grad():
            clean = model(ids, starts)
    negatives = sampler.sample(clean, layout, objective.score)
    k = negatives.shape[1]
    anchors = torch.arange(2 * b, device=negatives.device)
    segments = Segments(ids, torch.cat([starts, starts.new_full((1,), ids.numel())]))
    taken_ids, taken_starts = segments.take(torch.cat([anchors, negatives.reshape(-1)]))
    words = model.lookup(taken_ids.to(ids.device), taken_starts.to(ids.device))
    vectors = model.composed(noise.dropped(words, generator))
    sq_norm = words.rows.pow(2).sum() if objective.reg else None
    return noisy_total(objective, vectors, layout, k, sq_norm)


def noisy_total(
    objective: HingeObjective,
    vectors: torch.Tensor,
    layout: Layout,
    k: int,
    sq_norm: torch.Tensor | None,
) -> torch.Tensor:
    """The loss from the composed ``2B`` anchors and, after them, their ``2B·k`` negatives
    (step 2 of the module docstring)."""
    b, score = layout.batch, objective.score
    composed, others = vectors[: 2 * b], vectors[2 * b :]
    positive = score.pairwise(composed[:b].unsqueeze(1), composed[b:].unsqueeze(1)).view(b)
    negative = score.pairwise(
        composed.unsqueeze(1), others.view(2 * b, k, vectors.shape[1])
    ).squeeze(1)
    terms = objective.hinge_terms(positive, negative)
    attraction = objective.attraction_term(composed, layout)
    return objective.total_loss(terms.sum(), layout, sq_norm, attraction)
