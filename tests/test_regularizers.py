"""Wieting et al. (2015)'s regularisers, by hand."""

from __future__ import annotations

import pytest
import torch

from paracomp.losses.regularizers import InitialPull, composition_l2
from paracomp.models.pair import RowGradient


def test_composition_l2() -> None:
    w = torch.tensor([[1.0, -2.0], [0.5, 0.0]])  # ‖W‖² = 1 + 4 + 0.25 = 5.25
    b = torch.tensor([3.0, -1.0])  # ‖b‖² = 10
    assert composition_l2([w, b], 0.1).item() == pytest.approx(0.05 * 15.25)
    assert composition_l2([w, b], 0.1, half=False).item() == pytest.approx(1.525)
    assert composition_l2([w, b], 0.0).item() == 0.0


def test_initial_pull() -> None:
    initial = torch.tensor([[1.0, 1.0], [0.0, 2.0], [5.0, 5.0]])
    weight = torch.tensor([[2.0, 1.0], [0.0, 0.0], [5.0, 5.0]])
    # differences (1, 0), (0, −2), (0, 0): squared norm 5
    pull = InitialPull(initial, 0.01)
    loss, rows = pull(weight, RowGradient(torch.tensor([2]), torch.tensor([[1.0, -1.0]])))
    assert loss.item() == pytest.approx(0.025)
    assert rows.index.tolist() == [0, 1, 2]
    expected = torch.tensor([[0.01, 0.0], [0.0, -0.02], [1.0, -1.0]])
    torch.testing.assert_close(rows.grad, expected)
    parameter = torch.nn.Parameter(weight.clone())
    assert pull.add_to_grad(parameter).item() == pytest.approx(0.025)
    torch.testing.assert_close(
        parameter.grad.to_dense(), expected - torch.tensor([[0, 0], [0, 0], [1.0, -1.0]])
    )
