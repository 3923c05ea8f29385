"""Mega-batch hardest negatives (Wieting & Gimpel 2018, para-nmt; Chen & Gimpel 2020).

Wieting's para-nmt trainer (``main/models.py``, ``utils.get_pairs_fast``) takes ``M``
consecutive mini-batches of ``B`` pairs (``-mb_batchsize``; Chen & Gimpel: ``M = 20``,
``B = 100``), encodes their ``2·M·B`` sentences without gradient, gives every sentence as its
negative the most similar sentence of that pool other than itself and its own paraphrase, then
steps mini-batch by mini-batch with those negatives fixed: each step encodes the chosen
negative sentences again, with the current parameters and with gradient (the negatives'
choice is stale by up to ``M − 1`` steps, their vectors are not).

:func:`mine` does the mining with any :class:`~paracomp.losses.scores.Score`: the pool is laid
out as side 1 of its ``P = M·B`` pairs, then side 2 (for ``M = 1``, the
:class:`~paracomp.losses.negatives.Layout` of a batch), so the partner of row ``i`` is row
``(i + P) mod 2P``. Wieting's code marks self and partner with cosine distance 1, which it can
still pick when every other sentence is further away; here they are never picked. Ties go to
the lowest row.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from paracomp.losses.scores import Score

MINING_BUDGET = 1 << 22
"""Scores held at once by :func:`mine` (rows of the pool × the pool); 16 MiB in float32."""

EXACT_BLOCK = 256
"""Anchors a block at most for a score with ``exact_pairwise``: a block scores its rows
against the rows from its first on, so smaller blocks score fewer pairs twice (a 4,000-row
pool: 8.5 million scores instead of 10.0 million with blocks of 1,048), the same negatives."""


@dataclass(frozen=True)
class MegaBatchNegatives:
    """``rows[i]``: the pool row of the negative of anchor row ``i`` (2P,)."""

    rows: torch.Tensor

    @property
    def n_pairs(self) -> int:
        return self.rows.numel() // 2

    def for_pairs(self, start: int, size: int) -> tuple[torch.Tensor, torch.Tensor]:
        """The negatives of the anchors of pool pairs ``start … start + size − 1``, in a
        mini-batch's anchor order (side 1 of each pair, then side 2): the pool pair of each
        negative and its side (0: side 1, 1: side 2), both (2·size,)."""
        p = self.n_pairs
        rows = torch.cat([self.rows[start : start + size], self.rows[p + start : p + start + size]])
        return rows % p, rows // p


@torch.no_grad()
def mine(vectors: torch.Tensor, score: Score, budget: int = MINING_BUDGET) -> MegaBatchNegatives:
    """For each row of the pool ``vectors`` (2P, d), side 1 of ``P ≥ 2`` pairs then side 2,
    the most similar other row under ``score`` that is neither itself nor its partner.

    ``score`` must be symmetric (cosine, dot, Euclidean, the log expected inner product are):
    each pair of rows is scored once, a block of anchors (about ``budget`` scores, at most
    :data:`EXACT_BLOCK` anchors for a score with ``exact_pairwise``) against the rows from the
    block's first on, the block's rows serving as candidates of the later rows too."""
    total = vectors.shape[0]
    if total % 2 or total < 4:
        raise ValueError(f"need the two sides of at least 2 pairs, got {total} rows")
    pairs, device = total // 2, vectors.device
    block = max(1, budget // total)
    if score.exact_pairwise:
        block = min(block, EXACT_BLOCK)
    best = torch.full((total,), float("-inf"), dtype=vectors.dtype, device=device)
    chosen = (torch.arange(total, device=device) + 1) % total  # valid, if every score is −inf
    for start in range(0, total, block):
        stop = min(start + block, total)
        sims = score.pairwise(vectors[start:stop], vectors[start:])  # columns: rows start…
        local = torch.arange(stop - start, device=device)
        partner = (local + start + pairs) % total - start
        sims[local, local] = float("-inf")
        later = partner >= 0
        sims[local[later], partner[later]] = float("-inf")
        # candidates are met in increasing row order; strict ">" keeps the lowest of ties
        found, where = sims.max(1)
        _update(best, chosen, slice(start, stop), found, where + start)
        found, where = sims[:, stop - start :].max(0)
        _update(best, chosen, slice(stop, total), found, where + start)
    return MegaBatchNegatives(chosen)


def _update(
    best: torch.Tensor, chosen: torch.Tensor, rows: slice, found: torch.Tensor, where: torch.Tensor
) -> None:
    """Where ``found`` beats ``best[rows]``, take it and its row ``where``."""
    better = found > best[rows]
    best[rows] = torch.where(better, found, best[rows])
    chosen[rows] = torch.where(better, where, chosen[rows])
