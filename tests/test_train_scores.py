"""Scores: the pairwise matrix agrees with the row-wise form, in value and gradient."""

import pytest
import torch

from paracomp.losses.scores import SCORES, sq_euclidean_distance


@pytest.mark.parametrize("name", sorted(SCORES))
def test_pairwise_matches_paired(name):
    score = SCORES[name]
    gen = torch.Generator().manual_seed(0)
    a = torch.randn(5, 4, dtype=torch.float64, generator=gen, requires_grad=True)
    b = torch.randn(6, 4, dtype=torch.float64, generator=gen, requires_grad=True)
    weights = torch.randn(5, 6, dtype=torch.float64, generator=gen)
    matrix = score.pairwise(a, b)
    rows = score.paired(a.unsqueeze(1), b.unsqueeze(0))
    torch.testing.assert_close(matrix, rows)
    grads = torch.autograd.grad((matrix * weights).sum(), (a, b))
    expected = torch.autograd.grad((rows * weights).sum(), (a, b))
    torch.testing.assert_close(grads, expected)


def test_values():
    a, b = torch.tensor([[3.0, 0.0]]), torch.tensor([[0.0, 4.0]])
    assert sq_euclidean_distance(a, b).item() == 25.0
    assert SCORES["sq_euclidean"].paired(a, b).item() == -25.0
    assert SCORES["euclidean"].paired(a, b).item() == -5.0
    assert SCORES["dot"].paired(a, a).item() == 9.0
    assert SCORES["cosine"].paired(a, b).item() == 0.0
    assert SCORES["cosine"].paired(a, torch.zeros(1, 2)).item() == 0.0  # zero vector


@pytest.mark.parametrize("name", sorted(n for n, s in SCORES.items() if s.grad is not None))
@pytest.mark.parametrize("shapes", [((5, 4), (6, 4)), ((3, 1, 4), (3, 5, 4))])
def test_grad_matches_autograd(name, shapes):
    score = SCORES[name]
    gen = torch.Generator().manual_seed(1)
    a = torch.randn(*shapes[0], dtype=torch.float64, generator=gen, requires_grad=True)
    b = torch.randn(*shapes[1], dtype=torch.float64, generator=gen, requires_grad=True)
    scores = score.pairwise(a, b)
    weights = torch.randn(scores.shape, dtype=torch.float64, generator=gen)
    expected = torch.autograd.grad((scores * weights).sum(), (a, b))
    got = score.grad(a.detach(), b.detach(), scores.detach(), weights)
    torch.testing.assert_close(got, expected)


@pytest.mark.parametrize("name", sorted(SCORES))
def test_batched_pairwise_matches_paired(name):
    score = SCORES[name]
    gen = torch.Generator().manual_seed(2)
    a, b = torch.randn(3, 1, 4, generator=gen), torch.randn(3, 5, 4, generator=gen)
    torch.testing.assert_close(score.pairwise(a, b).squeeze(1), score.paired(a, b))
