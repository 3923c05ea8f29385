"""Optimisers by config name, for word rows with sparse gradients and dense parameters.

``adagrad``: :class:`RowSparseAdagrad` for the word rows (the update of ``torch.optim.Adagrad``
on sparse gradients, without its ``sparse_mask`` round trips, which cost more than the rest of
a step) and ``torch.optim.Adagrad`` for dense parameters. ``sgd``: ``torch.optim.SGD`` for
both. ``adam``: ``torch.optim.SparseAdam`` (lazy Adam) for the rows, ``torch.optim.Adam`` for
dense parameters.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import torch
from torch import nn

from paracomp.train.model import PairModel


class RowSparseAdagrad(torch.optim.Optimizer):
    """AdaGrad (``lr_decay=0``, zero initial accumulator) for parameters whose gradient is a
    sparse tensor of whole rows: ``G[r] += g²; w[r] -= lr·g / (√G[r] + eps)`` on those rows."""

    def __init__(self, params: Iterable[nn.Parameter], lr: float = 0.01, eps: float = 1e-10):
        super().__init__(params, {"lr": lr, "eps": eps})

    @torch.no_grad()
    def step(self, closure: Callable[[], float] | None = None) -> None:
        for group in self.param_groups:
            for param in group["params"]:
                if param.grad is None:
                    continue
                if not param.grad.is_sparse:
                    raise ValueError("RowSparseAdagrad needs sparse gradients")
                grad = param.grad if param.grad.is_coalesced() else param.grad.coalesce()
                rows, values = grad.indices()[0], grad.values()
                state = self.state[param]
                if not state:
                    state["sum"] = torch.zeros_like(param)
                state["sum"].index_add_(0, rows, values * values)
                std = state["sum"].index_select(0, rows).sqrt_().add_(group["eps"])
                param.index_add_(0, rows, values.div(std).mul_(-group["lr"]))


class Optimizers:
    """Optimisers stepped together: one for the word rows, one for dense parameters."""

    def __init__(self, optimizers: list[torch.optim.Optimizer]):
        self.optimizers = optimizers

    def zero_grad(self) -> None:
        for opt in self.optimizers:
            for group in opt.param_groups:
                for param in group["params"]:
                    param.grad = None

    def step(self) -> None:
        for opt in self.optimizers:
            opt.step()

    def state_dict(self) -> list[dict[str, Any]]:
        return [opt.state_dict() for opt in self.optimizers]

    def load_state_dict(self, states: list[dict[str, Any]]) -> None:
        for opt, state in zip(self.optimizers, states, strict=True):
            opt.load_state_dict(state)


_FACTORIES: dict[str, tuple[type[torch.optim.Optimizer], type[torch.optim.Optimizer]]] = {
    "adagrad": (RowSparseAdagrad, torch.optim.Adagrad),
    "sgd": (torch.optim.SGD, torch.optim.SGD),
    "adam": (torch.optim.SparseAdam, torch.optim.Adam),
}
OPTIMIZERS = tuple(_FACTORIES)


def make_optimizer(model: PairModel, name: str, lr: float, **options: Any) -> Optimizers:
    """The optimiser ``name`` (one of :data:`OPTIMIZERS`) with learning rate ``lr``;
    ``options`` (e.g. ``eps``) go to both the sparse and the dense optimiser."""
    if name not in _FACTORIES:
        raise ValueError(f"unknown optimiser {name!r}; expected one of {OPTIMIZERS}")
    sparse_cls, dense_cls = _FACTORIES[name]
    opts = [sparse_cls(model.sparse_parameters(), lr=lr, **options)]
    dense = model.dense_parameters()
    if dense:
        opts.append(dense_cls(dense, lr=lr, **options))
    return Optimizers(opts)
