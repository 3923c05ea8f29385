"""Scores between composed segments: higher means more similar.

Distances enter as negated similarities, so one hinge ``[δ − s(a, p) + s(a, n)]_+`` covers
Eq. 1 of Elgohary & Carpuat (``δ + ‖a − p‖² − ‖a − n‖²`` with ``sq_euclidean``), BiCVM's
coded hinge (``δ + ½‖a − p‖² − ½‖a − n‖²`` with ``half_sq_euclidean``) and Wieting's cosine
hinge. ``paired`` scores matching rows of broadcastable ``(…, d)`` tensors;
``pairwise`` scores every row of ``a`` (n, d) against every row of ``b`` (m, d), or does so
for each of a batch, (B, n, d) against (B, m, d); ``grad`` is the gradient of a weighted sum
of scores, for objectives that skip autograd (``None``: autograd only).

``log_eip`` scores diagonal Gaussians ``[μ | log σ²]`` (:mod:`paracomp.losses.gaussian`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import torch

from paracomp.losses.gaussian import (
    log_expected_inner_product,
    pairwise_log_expected_inner_product,
)

_EPS = 1e-8


def sq_euclidean_distance(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """``‖a − b‖²`` over the last dimension."""
    return (a - b).pow(2).sum(-1)


def pairwise_sq_euclidean_distance(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """``‖a_i − b_j‖²`` for all i, j, by ``‖a‖² + ‖b‖² − 2 a·b`` (one matrix product)."""
    return _pairwise_sq_similarity(a, b).neg_().clamp_min_(0.0)


def _pairwise_sq_similarity(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """``−‖a_i − b_j‖² = 2 a_i·b_j − ‖a_i‖² − ‖b_j‖²`` (may round to just above 0)."""
    sq_a = _sq_norm(a)
    sq_b = sq_a if b is a else _sq_norm(b)
    product = torch.addmm if a.dim() == 2 else torch.baddbmm
    return product(sq_a.neg().unsqueeze(-1), a, b.mT, alpha=2.0).sub_(sq_b.unsqueeze(-2))


def _pairwise_half_sq_similarity(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """``−½‖a_i − b_j‖² = a_i·b_j − ½‖a_i‖² − ½‖b_j‖²``, in as many ops as the full one."""
    sq_a = _sq_norm(a)
    sq_b = sq_a if b is a else _sq_norm(b)
    product = torch.addmm if a.dim() == 2 else torch.baddbmm
    return product(sq_a.mul(-0.5).unsqueeze(-1), a, b.mT).sub_(sq_b.unsqueeze(-2), alpha=0.5)


def _sq_norm(x: torch.Tensor) -> torch.Tensor:
    """``‖x‖²`` over the last dimension (one fused reduction; ``vecdot`` multiplies first)."""
    return torch.linalg.vector_norm(x, dim=-1).square()


def _euclidean(sq: torch.Tensor) -> torch.Tensor:
    # clamp: no infinite gradient where two segments compose to the same vector
    return sq.clamp_min(_EPS * _EPS).sqrt()


def _cosine(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    den = (a.norm(dim=-1) * b.norm(dim=-1)).clamp_min(_EPS)
    return (a * b).sum(-1) / den


def _unit(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """``x / max(‖x‖, ε)`` (``F.normalize``, with fewer ops) and ``‖x‖``, over the last dim."""
    norm = torch.linalg.vector_norm(x, dim=-1, keepdim=True)
    return x / norm.clamp_min(_EPS), norm


def _pairwise_cosine(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    unit_a = _unit(a)[0]
    unit_b = unit_a if b is a else _unit(b)[0]
    return unit_a @ unit_b.mT


def _weighted(c: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    """``c @ x``, as a broadcast product where the sum runs over one row (batched outer
    products are slow on CPU)."""
    return c * x if c.shape[-1] == 1 else c @ x


def _dot_grad(
    a: torch.Tensor, b: torch.Tensor, s: torch.Tensor, c: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    return _weighted(c, b), _weighted(c.mT, a)


def _sq_grad(
    a: torch.Tensor, b: torch.Tensor, s: torch.Tensor, c: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    # s_ij = 2 a_i·b_j − ‖a_i‖² − ‖b_j‖²
    da, db = _half_sq_grad(a, b, s, c)
    return da.mul_(2.0), db.mul_(2.0)


def _half_sq_grad(
    a: torch.Tensor, b: torch.Tensor, s: torch.Tensor, c: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    # s_ij = a_i·b_j − ½‖a_i‖² − ½‖b_j‖²
    da = _weighted(c, b).sub_(a * c.sum(-1, keepdim=True))
    db = _weighted(c.mT, a).sub_(b * c.sum(-2).unsqueeze(-1))
    return da, db


def _euclidean_grad(
    a: torch.Tensor, b: torch.Tensor, s: torch.Tensor, c: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    # s = −√q, q = ‖a − b‖² (= −the sq_euclidean score) clamped to ε², no gradient below:
    # ds/dq = 1 / (2s), so c·ds = −c / (2s) · d(sq_euclidean score)
    return _sq_grad(a, b, s, (c / (-2.0 * s)).masked_fill_(s > -_EPS, 0.0))


def _unit_grad(unit: torch.Tensor, norm: torch.Tensor, grad: torch.Tensor) -> torch.Tensor:
    """Gradient through ``x / max(‖x‖, ε)`` (``F.normalize``) given that of the result."""
    radial = (unit * grad).sum(-1, keepdim=True).masked_fill_(norm < _EPS, 0.0)
    return grad.sub_(unit * radial).div_(norm.clamp_min(_EPS))


def _cosine_grad(
    a: torch.Tensor, b: torch.Tensor, s: torch.Tensor, c: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    (unit_a, norm_a), (unit_b, norm_b) = _unit(a), _unit(b)
    grad_a, grad_b = _weighted(c, unit_b), _weighted(c.mT, unit_a)
    return _unit_grad(unit_a, norm_a, grad_a), _unit_grad(unit_b, norm_b, grad_b)


Grad = Callable[
    [torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor], tuple[torch.Tensor, torch.Tensor]
]


@dataclass(frozen=True)
class Score:
    """A similarity with its row-wise (``paired``) and all-pairs (``pairwise``) forms, and
    ``grad(a, b, s, c)``: the gradients with respect to ``a`` (…, n, d) and ``b`` (…, m, d)
    of ``Σ c ⊙ s``, where ``s = pairwise(a, b)`` (…, n, m), for objectives that skip
    autograd (``None`` where only autograd differentiates the score). ``exact_pairwise``:
    ``pairwise`` computes each score on its own, so its bits do not depend on the shapes it is
    called with (a matrix product's do), and mining may score fewer pairs in smaller blocks."""

    name: str
    paired: Callable[[torch.Tensor, torch.Tensor], torch.Tensor]
    pairwise: Callable[[torch.Tensor, torch.Tensor], torch.Tensor]
    grad: Grad | None
    exact_pairwise: bool = False


SCORES: dict[str, Score] = {
    "sq_euclidean": Score(
        "sq_euclidean",
        lambda a, b: -sq_euclidean_distance(a, b),
        _pairwise_sq_similarity,
        _sq_grad,
    ),
    "half_sq_euclidean": Score(
        "half_sq_euclidean",
        lambda a, b: sq_euclidean_distance(a, b).mul_(-0.5),
        _pairwise_half_sq_similarity,
        _half_sq_grad,
    ),
    "euclidean": Score(
        "euclidean",
        lambda a, b: -_euclidean(sq_euclidean_distance(a, b)),
        lambda a, b: -_euclidean(pairwise_sq_euclidean_distance(a, b)),
        _euclidean_grad,
    ),
    "cosine": Score("cosine", _cosine, _pairwise_cosine, _cosine_grad),
    "dot": Score("dot", lambda a, b: (a * b).sum(-1), lambda a, b: a @ b.mT, _dot_grad),
    "log_eip": Score(
        "log_eip", log_expected_inner_product, pairwise_log_expected_inner_product, None, True
    ),
}
"""Scores by config name; cosine of a zero vector is 0."""

LOG_EIP = SCORES["log_eip"]
"""The log expected inner product of diagonal Gaussians (Chen & Gimpel 2020, Eq. 4
corrected), autograd only."""
