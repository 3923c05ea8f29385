"""The regularisers of Wieting et al. (2015), Eq. 1 and Eq. 2 (and of Wieting & Gimpel 2017,
whose code adds the same ``0.5·LC·Σ‖θ‖² + 0.5·LW·‖We − We_init‖²``).

Paper: ``λ_W (‖W‖² + ‖b‖²) + λ_Ww ‖W_w,initial − W_w‖²``. The authors' MATLAB
(``objectiveWordDerNew.m``, ``computeGradNewObj*.m``) adds
``(λ_W/2)(‖W1‖² + ‖W2‖² + ‖b‖²) + (λ_Ww/2)‖We_old − We‖²`` to **each mini-batch's** mean
hinge, over the **whole** word matrix: every row that has moved is pulled back at every step,
whether or not it is in the batch. The trainer's settings ``reg_composer`` and ``reg_initial``
are the code's λ (:func:`composition_l2` with ``half=True``, :class:`InitialPull`); the paper's
λ is half of it (``half=False``).
"""

from __future__ import annotations

from collections.abc import Iterable

import torch

from paracomp.models.pair import RowGradient


def composition_l2(params: Iterable[torch.Tensor], lam: float, half: bool = True) -> torch.Tensor:
    """``λ_W Σ‖θ‖²`` over the composition parameters (``W`` and ``b``), halved with ``half``."""
    total = sum(p.pow(2).sum() for p in params)
    return torch.as_tensor(total) * (lam / 2 if half else lam)


class InitialPull:
    """``(λ/2)‖W − W_init‖²`` over the whole word table, every step, as the authors' code: its
    gradient ``λ(W − W_init)`` is dense (every row that has moved is pulled back, in the batch
    or not), so it goes to the optimiser as a gradient of all rows. ``initial`` is a copy of
    the table before training."""

    def __init__(self, initial: torch.Tensor, lam: float):
        self.initial, self.lam = initial.detach().clone(), lam

    def __call__(
        self, weight: torch.Tensor, rows: RowGradient | None
    ) -> tuple[torch.Tensor, RowGradient]:
        """This term's value and ``rows`` (a gradient of some rows, or none) plus its
        gradient, over all rows; one pass over the table for each."""
        diff = weight.detach() - self.initial
        flat = diff.view(-1)
        loss = torch.dot(flat, flat) * (self.lam / 2)
        grad = diff.mul_(self.lam)
        if rows is not None:
            grad.index_add_(0, rows.index, rows.grad.to(grad.dtype))
        return loss, RowGradient(torch.arange(grad.shape[0], device=grad.device), grad)

    def add_to_grad(self, weight: torch.nn.Parameter) -> torch.Tensor:
        """Add this term's gradient to ``weight.grad`` (sparse, as the model's hooks leave
        it) as a sparse gradient of all rows; returns the term's value."""
        rows = None
        if weight.grad is not None:
            grad = weight.grad.coalesce()
            rows = RowGradient(grad.indices()[0], grad.values())
        loss, pulled = self(weight, rows)
        weight.grad = pulled.sparse(weight.shape)
        return loss
