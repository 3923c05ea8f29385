"""Optimisers by config name, for word rows with sparse gradients and dense parameters.

``adagrad``: :class:`RowSparseAdagrad` for the word rows (the update of ``torch.optim.Adagrad``
on sparse gradients, without its ``sparse_mask`` round trips, which cost more than the rest of
a step; on CPU one numba kernel) and ``torch.optim.Adagrad`` for dense parameters. ``sgd``:
``torch.optim.SGD`` for both. ``adam``: :class:`DenseAdam` for the rows (``adam_rows: dense``,
the default: every row moves on its moments each step, whether the batch uses it or not, as the
authors' code (Wieting & Gimpel's Lasagne ``adam`` over all parameters, embeddings included;
Chen's PyTorch ``torch.optim.Adam`` over a dense ``nn.Embedding``) or ``torch.optim.SparseAdam``
(``adam_rows: lazy``: only the rows a batch uses move), ``torch.optim.Adam``'s update for dense
parameters (:func:`adam`).

Constructing or stepping a ``torch.optim.Optimizer`` imports ``torch._dynamo`` (about 1.2 CPU-s,
as much as torch itself, in every training process): the optimisers a CPU run uses by default
are stepped by hand on :class:`_Groups`, and torch's own classes remain where a run asks for
them (``adam_rows: lazy``, ``sgd``, AdaGrad's dense parameters) or runs on CUDA.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np
import torch
from torch import nn
from torch.optim.adam import adam as adam_update
from torch.utils._foreach_utils import _get_fused_kernels_supported_devices as fused_devices

from paracomp.models.pair import PairModel, RowGradient
from paracomp.models.sparse_rows import adagrad_rows, adam_all_rows
from paracomp.run_config import TrainConfig


class _Groups:
    """What the trainer uses of ``torch.optim.Optimizer`` (``param_groups``, ``state``,
    ``zero_grad``, and ``state_dict`` in its layout, so checkpoints are interchangeable) for
    an optimiser stepped by hand: constructing a ``torch.optim.Optimizer`` imports
    ``torch._dynamo`` (1–2 s, a third of a short tuning job)."""

    def __init__(self, params: Iterable[nn.Parameter], defaults: dict[str, Any]):
        self.param_groups: list[dict[str, Any]] = [{**defaults, "params": list(params)}]
        self.state: defaultdict[torch.Tensor, dict[str, Any]] = defaultdict(dict)

    def _params(self) -> list[torch.Tensor]:
        return [param for group in self.param_groups for param in group["params"]]

    def zero_grad(self, set_to_none: bool = True) -> None:
        for param in self._params():
            param.grad = None

    def state_dict(self) -> dict[str, Any]:
        index = {id(param): i for i, param in enumerate(self._params())}
        groups = [
            {
                **{k: v for k, v in g.items() if k != "params"},
                "params": [index[id(p)] for p in g["params"]],
            }
            for g in self.param_groups
        ]
        state = {index[id(param)]: values for param, values in self.state.items()}
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        params, groups = self._params(), state_dict["param_groups"]
        if [len(g["params"]) for g in groups] != [len(g["params"]) for g in self.param_groups]:
            raise ValueError("loaded state dict has a different number of parameters")
        for group, saved in zip(self.param_groups, groups, strict=True):
            group.update({k: v for k, v in saved.items() if k != "params"})
        self.state = defaultdict(dict)
        for i, values in state_dict["state"].items():
            param = params[i]
            self.state[param] = {
                k: v.to(param.device, param.dtype) if torch.is_tensor(v) and k != "step" else v
                for k, v in values.items()
            }


class RowSparseAdagrad(_Groups):
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
                self.step_rows(param, RowGradient(grad.indices()[0], grad.values()))

    def step_rows(self, param: nn.Parameter, rows: RowGradient) -> None:
        """The update of ``param`` (one of this optimiser's) for the gradient ``rows``."""
        group = next(g for g in self.param_groups if any(p is param for p in g["params"]))
        state = self.state[param]
        if not state:
            state["sum"] = torch.zeros_like(param)
        update = _adagrad_cpu if param.device.type == "cpu" else _adagrad
        with torch.no_grad():
            update(param, state["sum"], rows, group["lr"], group["eps"])


def _adagrad(
    param: torch.Tensor, state: torch.Tensor, rows: RowGradient, lr: float, eps: float
) -> None:
    """The update of :class:`RowSparseAdagrad`, in torch ops."""
    state.index_add_(0, rows.index, rows.grad * rows.grad)
    std = state.index_select(0, rows.index).sqrt_().add_(eps)
    param.index_add_(0, rows.index, rows.grad.div(std).mul_(-lr))


def _adagrad_cpu(
    param: torch.Tensor, state: torch.Tensor, rows: RowGradient, lr: float, eps: float
) -> None:
    """:func:`_adagrad` as one numba kernel, for CPU tensors."""
    weight = param.detach().numpy()
    real = weight.dtype.type
    grad = rows.grad.to(param.dtype).contiguous().numpy()
    adagrad_rows(weight, state.numpy(), rows.index.numpy(), grad, real(lr), real(eps))


def _adam_cpu(
    param: torch.Tensor,
    exp_avg: torch.Tensor,
    exp_avg_sq: torch.Tensor,
    grad: torch.Tensor,
    betas: tuple[float, float],
    size: float,
    eps: float,
) -> None:
    """:class:`DenseAdam`'s step for CPU tensors and a coalesced gradient of whole rows, as
    one numba kernel."""
    weight = param.detach().numpy()
    real = weight.dtype.type
    beta1, beta2 = betas
    constants = np.array([beta1, beta2, 1 - beta1, 1 - beta2], dtype=weight.dtype)
    values = grad.values().to(param.dtype).contiguous().numpy()
    index = grad.indices()[0].numpy()
    adam_all_rows(weight, exp_avg.numpy(), exp_avg_sq.numpy(), index, values, constants,
                  real(size), real(eps))  # fmt: skip


class DenseAdam(_Groups):
    """Adam over every row of a table whose gradient comes as sparse rows (the rows a batch
    does not use have gradient 0): ``m ← β₁m + (1−β₁)g``, ``v ← β₂v + (1−β₂)g²``,
    ``w ← w − lr·√(1−β₂ᵗ)/(1−β₁ᵗ) · m/(√v + ε)`` on all rows, Lasagne's ``adam`` (the ε of
    ``torch.optim.SparseAdam``, outside the bias correction). Its state has SparseAdam's keys,
    so a static step can take it over. On a CPU, with whole rows' gradients, the step is one
    numba kernel (:func:`~paracomp.models.sparse_rows.adam_all_rows`): AVG on wieting2017's
    Bible pairs (34,021 × 50 rows, 175 steps an epoch) 0.32 → 0.25 s an epoch (2026-11-27,
    2-core EPYC, 1 thread)."""

    def __init__(
        self,
        params: Iterable[nn.Parameter],
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
    ):
        super().__init__(params, {"lr": lr, "betas": betas, "eps": eps})

    @torch.no_grad()
    def step(self, closure: Callable[[], float] | None = None) -> None:
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            for param in group["params"]:
                if param.grad is None:
                    continue
                state = self.state[param]
                if not state:
                    state["step"] = 0
                    state["exp_avg"] = torch.zeros_like(param)
                    state["exp_avg_sq"] = torch.zeros_like(param)
                state["step"] += 1
                m, v, grad = state["exp_avg"], state["exp_avg_sq"], param.grad
                t = state["step"]
                size = group["lr"] * (1 - beta2**t) ** 0.5 / (1 - beta1**t)
                rows = grad.is_sparse and grad.sparse_dim() == 1  # whole rows
                if rows:
                    grad = grad if grad.is_coalesced() else grad.coalesce()
                if rows and param.device.type == "cpu":
                    _adam_cpu(param, m, v, grad, group["betas"], size, group["eps"])
                    continue
                m.mul_(beta1)
                v.mul_(beta2)
                if rows:
                    index, values = grad.indices()[0], grad.values()
                    m.index_add_(0, index, values, alpha=1 - beta1)
                    v.index_add_(0, index, values * values, alpha=1 - beta2)
                else:
                    grad = grad.to_dense()
                    m.add_(grad, alpha=1 - beta1)
                    v.addcmul_(grad, grad, value=1 - beta2)
                param.addcdiv_(m, v.sqrt().add_(group["eps"]), value=-size)


class Adam(_Groups):
    """``torch.optim.Adam`` (no weight decay, AMSGrad or ``maximize``), stepped through its
    functional form ``torch.optim.adam.adam`` with the state and the arguments ``Adam.step``
    gives it: every update is torch's bit for bit and the state dict has its layout (a test
    checks both), without importing ``torch._dynamo`` (module docstring). ``fused`` as
    torch's, where the device has the fused kernel."""

    def __init__(
        self,
        params: Iterable[nn.Parameter],
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        fused: bool | None = None,
    ):
        super().__init__(
            params,
            {"lr": lr, "betas": betas, "eps": eps, "weight_decay": 0.0, "amsgrad": False,
             "maximize": False, "foreach": None, "capturable": False, "differentiable": False,
             "fused": fused, "decoupled_weight_decay": False},
        )  # fmt: skip

    @torch.no_grad()
    def step(self, closure: Callable[[], float] | None = None) -> None:
        for group in self.param_groups:
            params = [param for param in group["params"] if param.grad is not None]
            for param in params:
                state = self.state[param]
                if not state:  # as Adam._init_group
                    double = torch.get_default_dtype() == torch.float64 and not group["fused"]
                    step = torch.zeros((), dtype=torch.float64 if double else torch.float32)
                    state["step"] = step.to(param.device) if group["fused"] else step
                    state["exp_avg"] = torch.zeros_like(param, memory_format=torch.preserve_format)
                    state["exp_avg_sq"] = torch.zeros_like(
                        param, memory_format=torch.preserve_format
                    )
            states = [self.state[param] for param in params]
            beta1, beta2 = group["betas"]
            adam_update(
                params,
                [param.grad for param in params],
                [state["exp_avg"] for state in states],
                [state["exp_avg_sq"] for state in states],
                [],
                [state["step"] for state in states],
                foreach=group["foreach"],
                fused=group["fused"],
                amsgrad=False,
                beta1=beta1,
                beta2=beta2,
                lr=group["lr"],
                weight_decay=0.0,
                eps=group["eps"],
                maximize=False,
            )


def adam(
    parameters: Iterable[nn.Parameter], *, fused: bool = False, **options: Any
) -> Adam | torch.optim.Adam:
    """Adam over ``parameters``: :class:`Adam` where they are all on a CPU, ``torch.optim.Adam``
    elsewhere (a CUDA graph makes its state ``capturable``). ``fused``: torch's fused kernel
    where the device has one (on a CPU about 5x faster over a whole vocabulary)."""
    parameters = list(parameters)
    on_cpu = all(param.device.type == "cpu" for param in parameters)
    if fused and not all(param.device.type in fused_devices() for param in parameters):
        fused = False
    if on_cpu and not options.get("capturable"):
        return Adam(parameters, fused=fused or None, **options)
    return torch.optim.Adam(parameters, fused=fused or None, **options)


class Optimizers:
    """Optimisers stepped together: one for the word rows, one for dense parameters."""

    def __init__(self, optimizers: list[torch.optim.Optimizer | _Groups]):
        self.optimizers = optimizers

    def zero_grad(self) -> None:
        for opt in self.optimizers:
            for group in opt.param_groups:
                for param in group["params"]:
                    param.grad = None

    def step(self) -> None:
        for opt in self.optimizers:
            opt.step()

    def step_rows(self, param: nn.Parameter, rows: RowGradient) -> None:
        """A step whose only gradient is ``rows`` of ``param``, a parameter of the first
        (sparse) optimiser: straight to :class:`RowSparseAdagrad`, skipping ``param.grad``
        and the hooks of ``torch.optim`` (other optimisers get it as a sparse gradient)."""
        sparse = self.optimizers[0]
        if isinstance(sparse, RowSparseAdagrad):
            sparse.step_rows(param, rows)
            return
        self.zero_grad()
        param.grad = rows.sparse(param.shape)
        self.step()

    def state_dict(self) -> list[dict[str, Any]]:
        return [opt.state_dict() for opt in self.optimizers]

    def load_state_dict(self, states: list[dict[str, Any]]) -> None:
        for opt, state in zip(self.optimizers, states, strict=True):
            opt.load_state_dict(state)


_FACTORIES: dict[str, tuple[Callable[..., torch.optim.Optimizer | _Groups], Callable[..., Any]]] = {
    "adagrad": (RowSparseAdagrad, torch.optim.Adagrad),
    "sgd": (torch.optim.SGD, torch.optim.SGD),
    "adam": (DenseAdam, adam),
}
OPTIMIZERS = tuple(_FACTORIES)
ADAM_ROWS = ("dense", "lazy")
"""How Adam moves the word rows: all of them each step, or only those the batch uses."""


def make_optimizer(
    model: PairModel,
    name: str,
    lr: float,
    dense_lr: float | None = None,
    adam_rows: str = "dense",
    **options: Any,
) -> Optimizers:
    """The optimiser ``name`` (one of :data:`OPTIMIZERS`) with learning rate ``lr`` (``dense_lr``
    for the dense parameters, if given), Adam moving the word rows as ``adam_rows`` says (one
    of :data:`ADAM_ROWS`); ``options`` (e.g. ``eps``) go to both the sparse and the dense
    optimiser."""
    if name not in _FACTORIES:
        raise ValueError(f"unknown optimiser {name!r}; expected one of {OPTIMIZERS}")
    if adam_rows not in ADAM_ROWS:
        raise ValueError(f"unknown adam_rows {adam_rows!r}; expected one of {ADAM_ROWS}")
    sparse_cls, dense_cls = _FACTORIES[name]
    if name == "adam" and adam_rows == "lazy":
        sparse_cls = torch.optim.SparseAdam
    opts = [sparse_cls(model.sparse_parameters(), lr=lr, **options)]
    dense = model.dense_parameters()
    if dense:
        opts.append(dense_cls(dense, lr=lr if dense_lr is None else dense_lr, **options))
    return Optimizers(opts)


def target_adam(
    parameters: Iterable[nn.Parameter], config: TrainConfig, capturable: bool = False
) -> Adam | torch.optim.Adam:
    """The optimiser of a target run: dense Adam (TensorFlow's, as the authors'), fused where
    this torch build has it: on a CPU about 5x faster over a whole vocabulary, most of whose
    second moments are zero. ``capturable``: safe to capture in a CUDA graph (CUDA only)."""
    options: dict[str, Any] = {"lr": config.lr, "betas": (0.9, config.beta2), "eps": config.eps}
    if capturable:
        options["capturable"] = True
    return adam(parameters, fused=True, **options)
