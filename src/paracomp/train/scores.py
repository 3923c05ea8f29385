"""Scores between composed segments: higher means more similar.

Distances enter as negated similarities, so one hinge ``[δ − s(a, p) + s(a, n)]_+`` covers
both Eq. 1 of Elgohary & Carpuat (``δ + ‖a − p‖² − ‖a − n‖²`` with ``sq_euclidean``) and
Wieting's cosine hinge. ``paired`` scores matching rows of broadcastable ``(…, d)`` tensors;
``pairwise`` scores every row of ``a`` (n, d) against every row of ``b`` (m, d).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import torch

_EPS = 1e-8


def sq_euclidean_distance(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """``‖a − b‖²`` over the last dimension."""
    return (a - b).pow(2).sum(-1)


def pairwise_sq_euclidean_distance(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """``‖a_i − b_j‖²`` for all i, j, by ``‖a‖² + ‖b‖² − 2 a·b`` (one matrix product)."""
    return _pairwise_sq_similarity(a, b).neg_().clamp_min_(0.0)


def _pairwise_sq_similarity(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """``−‖a_i − b_j‖² = 2 a_i·b_j − ‖a_i‖² − ‖b_j‖²`` (may round to just above 0)."""
    sq_a = torch.linalg.vecdot(a, a)
    sq_b = sq_a if b is a else torch.linalg.vecdot(b, b)
    return torch.addmm(sq_a.neg().unsqueeze(1), a, b.T, alpha=2.0).sub_(sq_b)


def _euclidean(sq: torch.Tensor) -> torch.Tensor:
    # clamp: no infinite gradient where two segments compose to the same vector
    return sq.clamp_min(_EPS * _EPS).sqrt()


def _cosine(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    den = (a.norm(dim=-1) * b.norm(dim=-1)).clamp_min(_EPS)
    return (a * b).sum(-1) / den


def _pairwise_cosine(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    unit_a = torch.nn.functional.normalize(a, dim=1, eps=_EPS)
    unit_b = unit_a if b is a else torch.nn.functional.normalize(b, dim=1, eps=_EPS)
    return unit_a @ unit_b.T


@dataclass(frozen=True)
class Score:
    """A similarity with its row-wise (``paired``) and all-pairs (``pairwise``) forms."""

    name: str
    paired: Callable[[torch.Tensor, torch.Tensor], torch.Tensor]
    pairwise: Callable[[torch.Tensor, torch.Tensor], torch.Tensor]


SCORES: dict[str, Score] = {
    "sq_euclidean": Score(
        "sq_euclidean",
        lambda a, b: -sq_euclidean_distance(a, b),
        _pairwise_sq_similarity,
    ),
    "euclidean": Score(
        "euclidean",
        lambda a, b: -_euclidean(sq_euclidean_distance(a, b)),
        lambda a, b: -_euclidean(pairwise_sq_euclidean_distance(a, b)),
    ),
    "cosine": Score("cosine", _cosine, _pairwise_cosine),
    "dot": Score("dot", lambda a, b: (a * b).sum(-1), lambda a, b: a @ b.T),
}
"""Scores by config name; cosine of a zero vector is 0."""
