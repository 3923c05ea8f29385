"""Recurrent composers of Scheepers et al. (2018, Eqs. 4–5): a segment's vector is the hidden
state after its last real token (``h₀ = 0``, so an empty segment composes to zero).

Each segment is stepped over its own tokens only (the packed layout of
:meth:`SegmentBatch.packed`), which gives the state of the authors' masked steps that carry
``h`` over pads. On CUDA ``nn.RNN``/``nn.GRU`` run the packed batch (cuDNN); on CPU the same
cells are unrolled here, 1.5–2.5× faster than ``nn.GRU``'s packed CPU path forward and
backward. A :class:`~paracomp.models.base.StaticLayout` batch runs ``nn.RNN``/``nn.GRU`` over its
whole grid instead (cuDNN on CUDA), each segment's state read at its last token: the same
states, in shapes that do not depend on the lengths (a CUDA graph's).

Initialisation follows the authors' code: input weights ``N(0, 0.01²)``, each gate's recurrent
weights orthogonal with gain 0.01, biases zero. Through that gain the RNN's gradients shrink
about 100× a step, into denormal floats after some 20 tokens, which slow a CPU backward
several-fold unless ``torch.set_flush_denormal(True)``.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn
from torch.nn.utils.rnn import PackedSequence

from paracomp.models.base import Composer, SegmentBatch


def _recurrent(
    cell: type[nn.RNN] | type[nn.GRU], dim: int, hidden: int, generator: torch.Generator | None
) -> nn.RNN | nn.GRU:
    """A one-layer ``cell`` from ``dim`` to ``hidden`` units with the authors' initialisation."""
    # skip_init's meta-device trick by hand (nn.GRU hides its device argument in **kwargs)
    rnn = cell(dim, hidden, device="meta").to_empty(device="cpu")
    with torch.no_grad():
        rnn.weight_ih_l0.normal_(0.0, 0.01, generator=generator)
        for gate in rnn.weight_hh_l0.split(hidden):
            nn.init.orthogonal_(gate, 0.01, generator=generator)
        rnn.bias_ih_l0.zero_()
        rnn.bias_hh_l0.zero_()
    return rnn


def _gru_step(gru: nn.GRU, x: torch.Tensor, h: torch.Tensor) -> torch.Tensor:
    """One ``nn.GRU`` step from the input projection ``x`` (``W_ih·x + b_ih``)."""
    x_r, x_z, x_n = x.chunk(3, 1)
    h_r, h_z, h_n = F.linear(h, gru.weight_hh_l0, gru.bias_hh_l0).chunk(3, 1)
    reset, update = torch.sigmoid(x_r + h_r), torch.sigmoid(x_z + h_z)
    candidate = torch.tanh(x_n + reset * h_n)
    return candidate + update * (h - candidate)


def _rnn_step(rnn: nn.RNN, x: torch.Tensor, h: torch.Tensor) -> torch.Tensor:
    """One tanh ``nn.RNN`` step from the input projection ``x`` (``W_ih·x + b_ih``)."""
    return torch.tanh(x + F.linear(h, rnn.weight_hh_l0, rnn.bias_hh_l0))


def _unrolled(rnn: nn.RNN | nn.GRU, data: torch.Tensor, batch_sizes: torch.Tensor) -> torch.Tensor:
    """What ``rnn(PackedSequence(data, batch_sizes))`` returns as its last state, step by step:
    the sequences still running are a prefix of the batch, so each step splits off those that
    end."""
    step = _gru_step if isinstance(rnn, nn.GRU) else _rnn_step
    sizes = [*batch_sizes.tolist(), 0]
    inputs = F.linear(data, rnn.weight_ih_l0, rnn.bias_ih_l0).split(sizes[:-1])
    h = data.new_zeros(sizes[0], rnn.hidden_size)
    ended = []
    for t, x in enumerate(inputs):
        h, end = step(rnn, x, h).split([sizes[t + 1], sizes[t] - sizes[t + 1]])
        ended.append(end)
    return torch.cat(ended[::-1])


def _gridded(rnn: nn.RNN | nn.GRU, batch: SegmentBatch, reverse: bool) -> torch.Tensor:
    """The final states over ``batch.grid``: ``rnn`` run over every position (one cuDNN call on
    CUDA), each segment's state read at its last token; pads come after the tokens, so they
    never enter a state read. ``reverse`` runs over each segment's tokens in reverse order
    (reversed within its length, pads still last)."""
    assert batch.grid is not None and batch.mask is not None
    lengths = batch.mask.sum(1)
    grid = batch.grid
    if reverse:
        positions = torch.arange(grid.shape[1], device=grid.device)
        within = (lengths.unsqueeze(1) - 1 - positions).clamp_min(0)
        grid = grid.gather(1, torch.where(batch.mask, within, positions))
    states = rnn(batch.on_grid(grid.t()))[0]  # (width, n, hidden)
    last = (lengths - 1).clamp_min(0)
    final = states[last, torch.arange(len(batch), device=grid.device)]
    return final.masked_fill((lengths == 0).unsqueeze(1), 0.0)


def _final_states(rnn: nn.RNN | nn.GRU, batch: SegmentBatch, reverse: bool = False) -> torch.Tensor:
    """``rnn``'s state after each segment's last token (first, with ``reverse``), zero for
    empty segments."""
    if batch.grid is not None:
        return _gridded(rnn, batch, reverse)
    data, batch_sizes, places = batch.packed(reverse)
    if not batch_sizes.numel():
        return data.new_zeros(len(batch), rnn.hidden_size)
    if data.device.type == "cpu":
        last = _unrolled(rnn, data, batch_sizes)
    else:
        last = rnn(PackedSequence(data, batch_sizes))[1][0]
    empty = last.new_zeros(len(batch) - last.shape[0], rnn.hidden_size)
    return torch.cat([last, empty]).index_select(0, places)


class RecurrentComposer(Composer):
    """An ``nn.RNN`` (tanh; "RNN", Eq. 4) or ``nn.GRU`` ("GRU", Eq. 5) with ``dim`` hidden
    units.

    ``nn.RNN`` has two zero-initialised biases where Eq. 4 has one ``b``, and ``nn.GRU`` is
    PyTorch's (cuDNN's) GRU, which differs from the authors' TensorFlow cell in two ways: its
    update gate ``z`` keeps the old state (``h = (1−z)·h̃ + z·h₋₁``, the paper's ``u = 1−z``: the
    same function family, identically distributed at initialisation) and its reset gate
    multiplies ``W_h·h₋₁ + b_h`` rather than ``h₋₁`` before the product with ``W_h``."""

    def __init__(
        self,
        dim: int,
        generator: torch.Generator | None = None,
        *,
        cell: type[nn.RNN] | type[nn.GRU],
    ):
        super().__init__(dim)
        self.rnn = _recurrent(cell, dim, dim, generator)

    def forward(self, batch: SegmentBatch) -> torch.Tensor:
        return _final_states(self.rnn, batch)


class BiGRUComposer(Composer):
    """The "Bi-GRU": a GRU of ``dim // 2`` units over each segment's tokens and a separate one of
    ``dim − dim // 2`` units over them in reverse order, their final states concatenated (no
    projection; :class:`RecurrentComposer` describes the GRU)."""

    def __init__(self, dim: int, generator: torch.Generator | None = None):
        if dim < 2:
            raise ValueError(f"bigru needs dim >= 2, got {dim}")
        super().__init__(dim)
        self.forward_gru = _recurrent(nn.GRU, dim, dim // 2, generator)
        self.backward_gru = _recurrent(nn.GRU, dim, dim - dim // 2, generator)

    def forward(self, batch: SegmentBatch) -> torch.Tensor:
        return torch.cat(
            [_final_states(self.forward_gru, batch), _final_states(self.backward_gru, batch, True)],
            dim=1,
        )
