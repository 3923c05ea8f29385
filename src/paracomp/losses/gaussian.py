"""Scores and regularisers of diagonal Gaussians (Chen & Gimpel 2020), rows ``[μ | log σ²]``.

- :func:`log_expected_inner_product` (the score ``log_eip`` of
  :data:`paracomp.losses.scores.SCORES`), the similarity of probabilistic models: the log expected inner product
  (expected likelihood kernel, Vilnis & McCallum 2014) of two Gaussians, Eq. 4 as corrected in
  the digest (the integral is ``N(0; μ1 − μ2, Σ1 + Σ2)``; the score is its log, and the ``d``
  of ``(d/2) log 2π`` is the dimension ``k``):

      log ∫ N(x; μ1, Σ1) N(x; μ2, Σ2) dx
          = −½ Σ_j [log(σ²_1j + σ²_2j) + (μ_1j − μ_2j)² / (σ²_1j + σ²_2j)] − (k/2) log 2π

  computed from the log-variances (``log(σ²_1 + σ²_2) = logaddexp``), so it neither overflows
  nor divides by zero where variances are extreme (``1 / (σ²_1 + σ²_2)`` is capped just below
  the dtype's largest value: a score is then very low, never NaN).
- :func:`diagonal_kl`: ``KL(N(μ, σ²) ‖ N(0, I))``.
- :func:`wlo_prior`: the WLO prior regulariser, ``Σ_{w ∈ s} KL(N(μ(w), Σ(w)) ‖ N(0, I))`` per
  segment; the trainer sums it over ``s ∈ {s1, s2, n1, n2}`` and weights it by ``λ``.
"""

from __future__ import annotations

import math

import torch

from paracomp.models.base import SegmentBatch
from paracomp.models.gaussian import WLOComposer, split

LOG_2PI = math.log(2.0 * math.pi)

PAIRWISE_BUDGET = 1 << 18
"""Elements of each ``(…, rows, columns, k)`` temporary of
:func:`pairwise_log_expected_inner_product` on CPU (1 MiB in float32): bounds its memory for
any ``n × m``, e.g. a 4,000 × 4,000 mega-batch, and keeps the temporaries in a core's L2
cache; on other devices 4× as many (fewer, larger kernels)."""


def log_expected_inner_product(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """The log expected inner product of matching rows of broadcastable ``(…, 2k)`` tensors."""
    mean_a, log_var_a = split(a)
    mean_b, log_var_b = split(b)
    log_var = torch.logaddexp(log_var_a, log_var_b)
    precision = torch.exp(-log_var.clamp_min(_log_var_floor(log_var.dtype)))
    terms = log_var + (mean_a - mean_b).square() * precision
    return -0.5 * terms.sum(-1) - 0.5 * mean_a.shape[-1] * LOG_2PI


def _log_var_floor(dtype: torch.dtype) -> float:
    """``log(σ²_1 + σ²_2)`` below which ``1 / (σ²_1 + σ²_2)`` is taken at the floor: ``e^{80.7}``
    in float32 (``e^{701}`` in float64), so that equal means give 0 rather than ``0 · ∞``."""
    return 8.0 - math.log(torch.finfo(dtype).max)


def pairwise_log_expected_inner_product(
    a: torch.Tensor, b: torch.Tensor, budget: int | None = None
) -> torch.Tensor:
    """The log expected inner product of every row of ``a`` (…, n, 2k) with every row of ``b``
    (…, m, 2k), (…, n, m); ``a``'s rows are taken a chunk at a time so that no temporary holds
    more than about ``budget`` elements.

    Without autograd (mining negatives) and with every ``|log σ²|`` small enough for ``σ²``
    itself to be safe (float32: 40), it works on the variances, tile by tile (rows × columns
    of about ``budget`` elements) in two buffers reused in place: one ``log`` an element
    instead of ``logaddexp`` and ``exp``, 3–5× faster on CPU, equal up to rounding."""
    if budget is None:
        budget = PAIRWISE_BUDGET * (1 if a.device.type == "cpu" else 4)
    batch = math.prod(torch.broadcast_shapes(a.shape[:-2], b.shape[:-2]))
    rows = max(1, budget // max(1, batch * b.shape[-2] * a.shape[-1] // 2))
    needs_grad = torch.is_grad_enabled() and (a.requires_grad or b.requires_grad)
    limit = 0.45 * math.log(torch.finfo(a.dtype).max)
    log_vars = torch.cat([split(a)[1].flatten(), split(b)[1].flatten()])
    if needs_grad or not log_vars.numel() or log_vars.abs().max() > limit:
        columns = b.unsqueeze(-3)
        chunks = [
            log_expected_inner_product(chunk.unsqueeze(-2), columns)
            for chunk in a.split(rows, dim=-2)
        ]
        return torch.cat(chunks, dim=-2)
    with torch.no_grad():
        return _pairwise_tiled(a, b, budget)


def _pairwise_tiled(a: torch.Tensor, b: torch.Tensor, budget: int) -> torch.Tensor:
    """The log expected inner products of rows of ``a`` and ``b`` whose variances are in range
    (see :func:`pairwise_log_expected_inner_product`), a tile of about ``budget`` elements at
    a time in two reused buffers; each score is its row's terms summed as one contiguous row,
    so the tiling leaves every score's rounding as it is."""
    (mean_a, log_var_a), (mean_b, log_var_b) = split(a), split(b)
    lead = torch.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    (n, k), m = mean_a.shape[-2:], mean_b.shape[-2]
    per_row = math.prod(lead) * k
    columns = max(1, min(m, budget // max(1, per_row)))
    rows = max(1, min(n, budget // max(1, per_row * columns)))
    out = a.new_empty((*lead, n, m))
    full = (*lead, rows, columns, k)
    difference, variance = a.new_empty(full), a.new_empty(full)
    row_chunks = list(
        zip(mean_a.unsqueeze(-2).split(rows, -3), log_var_a.exp().unsqueeze(-2).split(rows, -3))
    )
    column_chunks = zip(
        mean_b.unsqueeze(-3).split(columns, -2),
        log_var_b.exp().unsqueeze(-3).split(columns, -2),
        out.split(columns, -1),
    )
    for tile_mean_b, tile_var_b, out_columns in column_chunks:
        for (tile_mean_a, tile_var_a), target in zip(row_chunks, out_columns.split(rows, -2)):
            shape = (*lead, tile_mean_a.shape[-3], tile_mean_b.shape[-2], k)
            var, terms = variance, difference
            if shape != full:
                size = math.prod(shape)
                var, terms = (
                    variance.view(-1)[:size].view(shape),
                    difference.view(-1)[:size].view(shape),
                )
            torch.add(tile_var_a, tile_var_b, out=var)
            torch.sub(tile_mean_a, tile_mean_b, out=terms)
            terms.square_().div_(var).add_(var.log_())  # (μ1 − μ2)² / (σ²_1 + σ²_2) + log(…)
            torch.sum(terms, -1, out=target)
    return out.mul_(-0.5).sub_(0.5 * k * LOG_2PI)


def diagonal_kl(gaussians: torch.Tensor) -> torch.Tensor:
    """``KL(N(μ, diag σ²) ‖ N(0, I)) = ½ Σ_j (σ²_j + μ_j² − 1 − log σ²_j)`` of ``[μ | log σ²]``
    rows (…, 2k), (…)."""
    mean, log_var = split(gaussians)
    return 0.5 * (log_var.exp() + mean.square() - 1.0 - log_var).sum(-1)


PRIOR_READINGS = ("operator", "running")


def wlo_prior(
    composer: WLOComposer, batch: SegmentBatch, reading: str = "operator"
) -> torch.Tensor:
    """``Σ_{w ∈ s} KL(N(μ(w), Σ(w)) ‖ N(0, I))`` for each segment ``s`` of ``batch``, (n,),
    every token counted (repeats too; an empty segment has 0).

    The paper ("the transformed distribution after each operator") allows two readings of
    ``N(μ(w), Σ(w))``; ``reading`` picks one:

    - ``"operator"`` (default, reading (a)): word ``w``'s operator applied to ``N(0, I)``,
      ``N(A_w ⊙ B_w, diag A_w²)``, a property of the word alone ("prior knowledge of the
      operator");
    - ``"running"`` (reading (b)): the distribution of ``z_i`` after the ``i``-th operator
      within the sentence, which also constrains the sentence's own distribution.
    """
    if reading == "operator":
        per_token = diagonal_kl(composer.operator_gaussians(batch))
    elif reading == "running":
        per_token = diagonal_kl(composer.running_gaussians(batch))
    else:
        raise ValueError(f"prior reading must be one of {PRIOR_READINGS}, not {reading!r}")
    return torch.segment_reduce(per_token, "sum", lengths=batch.lengths(), unsafe=True)
