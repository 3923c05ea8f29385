"""Gaussian scores and regularisers: the log expected inner product against numerical
integrals, its all-pairs and chunked forms, extreme variances, the diagonal KL by hand and
against torch.distributions, the WLO prior in both readings, gradients against autograd."""

import math

import numpy as np
import pytest
import torch
from scipy import integrate
from scipy.stats import norm

from paracomp.losses.gaussian import (
    diagonal_kl,
    log_expected_inner_product,
    pairwise_log_expected_inner_product,
    wlo_prior,
)
from paracomp.losses.scores import LOG_EIP, SCORES
from paracomp.models.base import SegmentBatch
from paracomp.models.gaussian import WLOComposer


def _gaussian(mean: list[float], var: list[float]) -> torch.Tensor:
    return torch.tensor([*mean, *np.log(var)], dtype=torch.float64)


def test_log_eip_1d_against_integral():
    (mu1, v1), (mu2, v2) = (0.3, 0.5), (-1.2, 2.0)

    def product(x: float) -> float:
        return norm.pdf(x, mu1, math.sqrt(v1)) * norm.pdf(x, mu2, math.sqrt(v2))

    integral, _ = integrate.quad(product, -np.inf, np.inf)
    score = log_expected_inner_product(_gaussian([mu1], [v1]), _gaussian([mu2], [v2]))
    assert float(score) == pytest.approx(math.log(integral), abs=1e-8)


@pytest.mark.slow
def test_log_eip_2d_against_integral():
    a = _gaussian([0.5, -1.0], [0.3, 1.5])
    b = _gaussian([-0.2, 0.4], [0.8, 0.6])
    mu1, mu2 = a[:2].numpy(), b[:2].numpy()
    sd1, sd2 = np.exp(a[2:].numpy() / 2), np.exp(b[2:].numpy() / 2)

    def product(y: float, x: float) -> float:
        point = np.array([x, y])
        return float(np.prod(norm.pdf(point, mu1, sd1) * norm.pdf(point, mu2, sd2)))

    integral, _ = integrate.dblquad(product, -12, 12, -12, 12, epsabs=1e-12)
    assert float(log_expected_inner_product(a, b)) == pytest.approx(math.log(integral), abs=1e-6)


def test_log_eip_symmetric_and_highest_for_equal_means():
    a, b = _gaussian([1.0, 2.0], [0.5, 3.0]), _gaussian([0.0, -1.0], [1.0, 0.2])
    assert float(log_expected_inner_product(a, b)) == float(log_expected_inner_product(b, a))
    moved = _gaussian([0.5, 2.0], [1.0, 0.2])
    assert log_expected_inner_product(a, moved) > log_expected_inner_product(a, b)


def _random(shape: tuple[int, ...], seed: int, dtype=torch.float64) -> torch.Tensor:
    return torch.randn(shape, generator=torch.Generator().manual_seed(seed), dtype=dtype)


def test_pairwise_matches_paired_chunked_and_batched():
    a, b = _random((7, 6), 0), _random((5, 6), 1)
    want = torch.stack([log_expected_inner_product(a[i], b) for i in range(7)])
    torch.testing.assert_close(pairwise_log_expected_inner_product(a, b), want)
    for budget in (1, 15, 16, 10**9):  # a row of the (n, m, k) temporaries: 5·3 = 15
        torch.testing.assert_close(pairwise_log_expected_inner_product(a, b, budget), want)
    batched_a, batched_b = _random((4, 3, 6), 2), _random((4, 2, 6), 3)
    batched = LOG_EIP.pairwise(batched_a, batched_b)
    assert batched.shape == (4, 3, 2)
    for n in range(4):
        torch.testing.assert_close(batched[n], LOG_EIP.pairwise(batched_a[n], batched_b[n]))
    assert SCORES["log_eip"] is LOG_EIP
    assert LOG_EIP.pairwise(a[:0], b).shape == (0, 5)


def test_pairwise_paths_agree():
    """Without gradient and with |log σ²| ≤ 40 (float32), the in-place variance form; with
    gradient, or beyond (log σ² = ±60 here), the log form: the same scores."""
    a, b = _random((6, 8), 8, torch.float32) * 3, _random((5, 8), 9, torch.float32) * 3
    want = torch.stack([log_expected_inner_product(a[i], b) for i in range(6)])
    torch.testing.assert_close(LOG_EIP.pairwise(a, b), want)
    with_grad = LOG_EIP.pairwise(a.clone().requires_grad_(), b)
    assert with_grad.requires_grad
    torch.testing.assert_close(with_grad.detach(), want)
    wide = a.clone()
    wide[0, 4], wide[1, 5], wide[1, 1] = 60.0, -60.0, b[2, 1]
    want = torch.stack([log_expected_inner_product(wide[i], b) for i in range(6)])
    got = LOG_EIP.pairwise(wide, b)
    assert torch.isfinite(got).all()
    torch.testing.assert_close(got, want)


def test_log_eip_extreme_log_variances_in_float32():
    """log σ² = ±200: σ² itself is out of float32's range (exp(200) = inf, exp(−200) = 0), the
    score is not (means apart in the wide dimension, equal in the narrow one)."""
    a = torch.tensor([[1.0, 0.5, 200.0, -200.0]])
    b = torch.tensor([[0.0, 0.5, 190.0, -201.0]])
    got = log_expected_inner_product(a, b)
    log_sum = torch.logaddexp(a[:, 2:].double(), b[:, 2:].double())
    squares = torch.tensor([[1.0, 0.0]], dtype=torch.float64)
    want = -0.5 * (log_sum + squares * torch.exp(-log_sum)).sum(-1) - math.log(2 * math.pi)
    assert torch.isfinite(got).all()
    torch.testing.assert_close(got.double(), want, rtol=1e-6, atol=1e-3)


def test_log_eip_gradients_against_autograd():
    a = (_random((3, 4), 4) * 0.5).requires_grad_()
    b = (_random((2, 4), 5) * 0.5).requires_grad_()
    assert torch.autograd.gradcheck(LOG_EIP.pairwise, (a, b))
    assert torch.autograd.gradcheck(lambda x, y: LOG_EIP.paired(x[:2], y), (a, b))


def test_diagonal_kl_by_hand():
    # μ = (1, 0), σ² = (1, e): ½[(1 + 1 − 1 − 0) + (e + 0 − 1 − 1)] = ½(e − 1)
    assert float(diagonal_kl(_gaussian([1.0, 0.0], [1.0, math.e]))) == pytest.approx(
        (math.e - 1) / 2
    )
    assert float(diagonal_kl(_gaussian([0.0, 0.0], [1.0, 1.0]))) == 0.0


def test_diagonal_kl_against_torch_distributions():
    rows = _random((5, 6), 6)
    mean, log_var = rows[:, :3], rows[:, 3:]
    posterior = torch.distributions.Normal(mean, (log_var / 2).exp())
    prior = torch.distributions.Normal(torch.zeros(3).double(), torch.ones(3).double())
    want = torch.distributions.kl_divergence(posterior, prior).sum(-1)
    torch.testing.assert_close(diagonal_kl(rows), want)


def _batch(segments: list[list[int]], rows: torch.Tensor) -> SegmentBatch:
    lengths = torch.tensor([len(s) for s in segments])
    offsets = torch.cat([torch.zeros(1, dtype=torch.long), lengths.cumsum(0)[:-1]])
    ids = torch.tensor([i for s in segments for i in s], dtype=torch.long)
    return SegmentBatch(rows, ids, offsets)


# x: A = 2, B = 1; y: A = 1, B = 0 (the identity: no KL of its own)
ROWS = torch.tensor([[math.log(2.0), 1.0], [0.0, 0.0]], dtype=torch.float64)


def test_wlo_prior_operator_reading_by_hand():
    # x alone: N(2, 4), KL = ½(4 + 4 − 1 − log 4); y: N(0, 1), KL = 0
    kl_x = 0.5 * (4 + 4 - 1 - math.log(4.0))
    prior = wlo_prior(WLOComposer(1), _batch([[0, 1, 0], [1], []], ROWS))
    torch.testing.assert_close(prior, torch.tensor([2 * kl_x, 0.0, 0.0]).double())


def test_wlo_prior_running_reading_by_hand():
    # [x, y, x]: z1 ~ N(2, 4), z2 = z1 ~ N(2, 4), z3 ~ N(2·(2 + 1), 16) = N(6, 16)
    def kl(mean: float, var: float) -> float:
        return 0.5 * (var + mean**2 - 1 - math.log(var))

    prior = wlo_prior(WLOComposer(1), _batch([[0, 1, 0], [1], []], ROWS), reading="running")
    want = torch.tensor([2 * kl(2, 4) + kl(6, 16), 0.0, 0.0]).double()
    torch.testing.assert_close(prior, want)


def test_wlo_prior_rejects_unknown_reading():
    with pytest.raises(ValueError, match="reading"):
        wlo_prior(WLOComposer(1), _batch([[0]], ROWS), reading="sentence")


@pytest.mark.parametrize("reading", ["operator", "running"])
def test_wlo_prior_gradients_against_autograd(reading):
    rows = (_random((4, 6), 7) * 0.4).requires_grad_()
    segments = [[0, 1, 2], [3, 3], []]
    composer = WLOComposer(3)
    assert torch.autograd.gradcheck(
        lambda r: wlo_prior(composer, _batch(segments, r), reading), (rows,)
    )
