"""MAX negatives as Wieting et al. (2015) mine them, and the hinge that skips a pair without one.

The authors' MATLAB ``getPairs.m`` (``tacl2015``) picks, for each phrase of each pair of the
mini-batch, the candidate with the highest **dot product** among both phrases of every other
pair, skipping:

- a candidate whose token sequence is identical to the **anchor** (``comparet(currt, t1)``;
  one identical to the anchor's partner is allowed, and then only adds the constant δ);
- with ``params.constraints`` (word model, "+ constraints"), a candidate ``c`` whose
  constraint list contains the anchor ``w`` (``comparet2``: ``w ∈ wordmap(c)``; the paper's
  wording, "t could only be paired with w if it was not in its list", reads as
  ``c ∉ list(w)``: ``rule="anchor"``; ``rule="either"`` excludes both);
- any candidate scoring ``≤ −5``, the initial best score (``floor``).

A phrase without a negative gets none, and its pair then contributes no loss at all
(``objectiveWordDerNew.m``: ``if isempty(p1) || isempty(p2) continue``), still counting in
the batch mean. :class:`ConstrainedMaxSampler` returns ``−1`` for such an anchor and
:class:`SkippingHingeObjective` zeroes both hinge terms of its pair. Segment identity comes from
:func:`segment_keys`, which the objective computes from the batch and hands to the sampler.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import torch

from paracomp.losses.hinge import HingeObjective, PairBatch
from paracomp.losses.negatives import (
    Layout,
    MaxSampler,
    NegativeSampler,
    exclusion_mask,
    in_batch_positions,
    in_batch_scores,
)
from paracomp.losses.scores import SCORES, Score
from paracomp.models.pair import PairModel, RowGradient

RULES = ("candidate", "anchor", "either")


def _ranges(start: torch.Tensor, count: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """``start[i], …, start[i] + count[i] − 1`` for every ``i``, concatenated, and the ``i``
    each comes from."""
    total = int(count.sum())
    source = torch.arange(count.numel(), device=count.device).repeat_interleave(
        count, output_size=total
    )
    offset = torch.arange(total, device=count.device) - (count.cumsum(0) - count)[source]
    return start[source] + offset, source


@dataclass(frozen=True)
class ForbiddenPairs:
    """Word-id pairs ``(owner, member)``: ``member`` is in ``owner``'s constraint list;
    stored as sorted codes ``owner · n_words + member`` and, row by row (CSR), as the members
    ``members[indptr[w]:indptr[w+1]]`` of each owner ``w``."""

    codes: torch.Tensor
    indptr: torch.Tensor
    n_words: int

    @classmethod
    def build(
        cls, lists: Mapping[str, Collection[str]], index: Mapping[str, int], n_words: int
    ) -> ForbiddenPairs:
        """From constraint lists over words (:func:`paracomp.paraphrase.lexical.
        constraint_lists`) and the vocabulary's ``index``; words outside it are dropped."""
        codes = torch.tensor(
            sorted(
                {
                    index[owner] * n_words + index[member]
                    for owner, members in lists.items()
                    if owner in index
                    for member in members
                    if member in index
                }
            ),
            dtype=torch.long,
        )
        bounds = torch.arange(n_words + 1, dtype=torch.long) * n_words
        return cls(codes, torch.searchsorted(codes, bounds), n_words)

    def contains(self, owner: torch.Tensor, member: torch.Tensor) -> torch.Tensor:
        """Whether ``member ∈ list(owner)``, elementwise (broadcast); negative keys (segments
        longer than a word) are never in a list."""
        code = owner * self.n_words + member
        codes = self.codes.to(code.device)
        if not codes.numel():
            return torch.zeros(code.shape, dtype=torch.bool, device=code.device)
        at = torch.searchsorted(codes, code).clamp_max(codes.numel() - 1)
        return (codes[at] == code) & (owner >= 0) & (member >= 0)

    def within(self, keys: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Every pair of positions ``(o, m)`` of ``keys`` with ``keys[m] ∈ list(keys[o])``:
        the owners' lists are walked (a few words each), never all pairs of positions."""
        codes, indptr = self.codes.to(keys.device), self.indptr.to(keys.device)
        owners = torch.nonzero(keys >= 0).view(-1)
        start = indptr[keys[owners]]
        entry, source = _ranges(start, indptr[keys[owners] + 1] - start)
        wanted = codes[entry] % self.n_words
        ordered, order = torch.sort(keys)
        low = torch.searchsorted(ordered, wanted)
        found, which = _ranges(low, torch.searchsorted(ordered, wanted, right=True) - low)
        return owners[source[which]], order[found]


def segment_keys(ids: torch.Tensor, starts: torch.Tensor) -> torch.Tensor:
    """A key per segment, equal for segments with identical token sequences: the word id when
    every segment is one token (so that :class:`ForbiddenPairs` can look it up), else
    ``−1 − k`` for the ``k``-th distinct sequence."""
    lengths = torch.diff(starts, append=starts.new_full((1,), ids.numel()))
    if bool((lengths == 1).all()):
        return ids[starts]
    width = int(lengths.max()) if lengths.numel() else 0
    padded = torch.full((starts.numel(), width + 1), -1, dtype=torch.long, device=ids.device)
    padded[:, 0] = lengths
    rows = torch.arange(starts.numel(), device=ids.device).repeat_interleave(lengths)
    cols = torch.arange(ids.numel(), device=ids.device) - starts.repeat_interleave(lengths) + 1
    padded[rows, cols] = ids.long()
    # numpy's row-wise unique sorts once; torch's compares rows one pair at a time on CPU
    inverse = np.unique(padded.cpu().numpy(), axis=0, return_inverse=True)[1]
    return -1 - torch.from_numpy(inverse.reshape(-1)).to(ids.device)


@lru_cache(maxsize=16)
def _own_pair(batch: int, device: torch.device) -> torch.Tensor:
    """(2B, 2B): True where a candidate is the anchor itself or its partner."""
    return torch.isinf(exclusion_mask(batch, False, device))


class ConstrainedMaxSampler(MaxSampler):
    """MAX over all ``2B`` segments of the batch as the MATLAB code mines it (module
    docstring). :meth:`sample` needs ``keys`` (:func:`segment_keys` of the batch, in layout
    order) and returns ``−1`` for an anchor with no allowed candidate. ``dense`` looks every
    (anchor, candidate) pair up in ``forbidden`` instead of walking the owners' lists: more
    lookups, in shapes fixed by the batch and reading nothing back on the host (a CUDA
    graph's)."""

    def __init__(
        self,
        generator: torch.Generator,
        forbidden: ForbiddenPairs | None = None,
        rule: str = "candidate",
        skip_identical: bool = True,
        floor: float | None = -5.0,
        dense: bool = False,
    ):
        if rule not in RULES:
            raise ValueError(f"rule must be one of {RULES}, not {rule!r}")
        super().__init__(generator, cross=False)
        self.forbidden, self.rule = forbidden, rule
        self.skip_identical, self.floor = skip_identical, floor
        self.dense = dense

    @torch.no_grad()
    def sample(
        self,
        vectors: torch.Tensor,
        layout: Layout,
        score: Score,
        sims: torch.Tensor | None = None,
        keys: torch.Tensor | None = None,
    ) -> torch.Tensor:
        if not layout.in_batch:
            raise ValueError("MAX negatives are mined within the batch; got extra segments")
        b, device = layout.batch, vectors.device
        if keys is None or keys.shape != (2 * b,):
            raise ValueError(f"need the keys of the {2 * b} segments of the batch")
        if sims is None:
            sims = in_batch_scores(vectors, b, score, cross=False)
        banned = _own_pair(b, device).clone()
        if self.skip_identical:
            banned |= keys.unsqueeze(1) == keys.unsqueeze(0)
        if self.forbidden is not None and self.dense:
            # [a, c]: the anchor's key is in the candidate's list
            listed = self.forbidden.contains(keys.unsqueeze(0), keys.unsqueeze(1))
            if self.rule != "anchor":
                banned |= listed
            if self.rule != "candidate":
                banned |= listed.T
        elif self.forbidden is not None:
            owner, member = self.forbidden.within(keys)
            if self.rule != "anchor":  # the anchor (member) is in the candidate's list
                banned[member, owner] = True
            if self.rule != "candidate":  # the candidate (member) is in the anchor's list
                banned[owner, member] = True
        if self.floor is not None:
            banned |= sims <= self.floor
        best = sims.masked_fill(banned, float("-inf")).max(1)
        return torch.where(torch.isinf(best.values), -1, best.indices).unsqueeze(1)


class KeyedSampler(NegativeSampler):
    """A :class:`ConstrainedMaxSampler` bound to one batch's keys (the sampler interface the
    hinge calls)."""

    k, cross = 1, False

    def __init__(self, sampler: ConstrainedMaxSampler, keys: torch.Tensor):
        super().__init__(sampler.generator)
        self.sampler, self.keys = sampler, keys

    def sample(
        self, vectors: torch.Tensor, layout: Layout, score: Score, sims: torch.Tensor | None = None
    ) -> torch.Tensor:
        return self.sampler.sample(vectors, layout, score, sims, keys=self.keys)


class SkippingHingeObjective(HingeObjective):
    """Eq. 1 and Eq. 2 of Wieting et al. (2015) as coded: the two-sided hinge with dot
    products and margin 1, averaged over the pairs of the batch, with MAX negatives from a
    :class:`ConstrainedMaxSampler` (any in-batch sampler works); a pair where either side has
    no negative (``−1``) contributes nothing. ``reg`` is the trainer's lazy L2 on the batch's
    rows; Wieting's regularisers are in :mod:`paracomp.losses.regularizers`."""

    def __init__(self, margin: float = 1.0, reg: float = 0.0, score: Score = SCORES["dot"]) -> None:
        super().__init__(score, margin, reg, "mean")

    def loss(self, model: PairModel, batch: PairBatch, sampler: NegativeSampler) -> torch.Tensor:
        return super().loss(model, batch, self._bind(batch, sampler))

    def loss_and_gradient(
        self, model: PairModel, batch: PairBatch, sampler: NegativeSampler
    ) -> tuple[torch.Tensor, RowGradient] | None:
        return super().loss_and_gradient(model, batch, self._bind(batch, sampler))

    @staticmethod
    def _bind(batch: PairBatch, sampler: NegativeSampler) -> NegativeSampler:
        if isinstance(sampler, ConstrainedMaxSampler):
            return KeyedSampler(sampler, segment_keys(batch.ids, batch.starts))
        return sampler

    def hinge(
        self, vectors: torch.Tensor, layout: Layout, sampler: NegativeSampler
    ) -> torch.Tensor:
        """(2B, 1) hinge terms; the scores that mine the negatives carry no gradient, those
        of the terms are recomputed row by row (autograd then never builds a (2B)² matrix)."""
        if not layout.in_batch:
            return super().hinge(vectors, layout, sampler)
        b = layout.batch
        with torch.no_grad():
            sims = in_batch_scores(vectors, b, self.score, cross=False)
        negatives, skipped = self._negatives(vectors, layout, sampler, sims)
        positive = self.score.paired(vectors[:b], vectors[b : 2 * b])
        negative = self.score.paired(vectors[: 2 * b], vectors[negatives.view(-1)])
        return self.hinge_terms(positive, negative.unsqueeze(1)).masked_fill(skipped, 0.0)

    def _in_batch(
        self, vectors: torch.Tensor, layout: Layout, sampler: NegativeSampler
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        b = layout.batch
        sims = in_batch_scores(vectors, b, self.score, cross=False)
        negatives, skipped = self._negatives(vectors, layout, sampler, sims.detach())
        positions = in_batch_positions(negatives, b, cross=False)
        terms = self.hinge_terms(sims.diagonal(b), sims.take(positions))
        return terms.masked_fill(skipped, 0.0), sims, positions

    def _negatives(
        self, vectors: torch.Tensor, layout: Layout, sampler: NegativeSampler, sims: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """The sampler's (2B, 1) negatives, the partner standing in for a missing one (its
        term is then the constant δ), and (2B, 1) whether the anchor's pair is skipped."""
        if sampler.cross:
            raise ValueError("Wieting's MAX draws from both sides (cross=False)")
        b = layout.batch
        negatives = sampler.sample(vectors.detach(), layout, self.score, sims)
        missing = negatives < 0
        partner = (torch.arange(2 * b, device=vectors.device) + b).remainder(2 * b)
        negatives = torch.where(missing, partner.unsqueeze(1), negatives)
        skipped = missing.any(1).view(2, b).any(0).repeat(2).unsqueeze(1)
        return negatives, skipped
