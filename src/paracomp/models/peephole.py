"""Encoders of Wieting & Gimpel (2017): the peephole LSTM and the gated recurrent averaging
networks (GRAN), uni- and bidirectional.

**The LSTM** (:class:`PeepholeLSTM`) is Lasagne's ``LSTMLayer(peepholes=True,
learn_init=False)`` that the authors' code (``jwieting/acl2017``) runs, Gers et al. (2003)'s
cell with diagonal peepholes::

    i_t = σ(W_xi x_t + W_hi h_{t−1} + p_i ⊙ c_{t−1} + b_i)
    f_t = σ(W_xf x_t + W_hf h_{t−1} + p_f ⊙ c_{t−1} + b_f)
    c_t = f_t ⊙ c_{t−1} + i_t ⊙ tanh(W_xc x_t + W_hc h_{t−1} + b_c)
    o_t = σ(W_xo x_t + W_ho h_{t−1} + p_o ⊙ c_t + b_o)          (the new cell state)
    h_t = o_t ⊙ tanh(c_t)                       (``outgate=False``: h_t = tanh(c_t))

``h_0 = c_0 = 0`` (not learned); every weight and peephole ``N(0, 0.1²)``, every bias 0 (no
forget-gate bias), as Lasagne's ``Gate()`` defaults. Gate blocks are stacked in Lasagne's
order ``i, f, c, o``.

**Composers** (registry names; ``dim`` = word width = hidden size, as the code needs for the
GRAN gates):

- ``lstm``: ``h`` at the segment's last token (the paper's ``h_{−1}``);
- ``lstmavg``: the mean of ``h_t`` over the segment's tokens;
- ``bilstmavg``: a forward and a backward peephole LSTM (Lasagne's default peepholes also in
  the authors' Bi models), combined per token (``bi_combine``) and averaged;
- ``gran`` (Eq. 1): ``a_t = x_t ⊙ σ(W_x x_t + W_h h_t + b)``, output the mean of ``a_t`` (the gate
  sees the current ``h_t``, which has read ``x_t``);
- ``gran2``: ``a_t = h_t ⊙ σ(W_x x_t + W_h h_t + b)``, mean;
- ``gran3``: ``a_t = a_{t−1} ⊙ g1_t + x_t ⊙ g2_t`` (``a_0 = 0``), ``g_i = σ(W_xi x_t + W_hi h_t +
  b_i)``;
- ``gran4``: as ``gran3`` with ``g_i = σ(W_xi x_t + W_hi h_t + W_ai a_{t−1} + b_i)``;
- ``gran5``: ``a_t = x_t ⊙ g1_t + h_t ⊙ g2_t`` (gates as ``gran3``);
- ``gran5_mean``: ``gran5`` averaged over ``t``, the paper's reading (below);
- ``bigran``: a forward and a backward type-1 GRAN, their ``a_t`` combined per token
  (``bi_combine``) and averaged.

Where paper and code disagree this follows the code:

- GRAN-3/4/5 output ``a`` at the last real token (the code's ``SliceLayer(-1)`` over masked
  steps that carry the state over pads). For GRAN-3/4 the paper divides that state by ``|s|``,
  which no cosine can see; for GRAN-5 the paper ("can be reduced to either word-averaging or
  averaging LSTM states") implies the mean over ``t``: that reading is ``gran5_mean``.
- The Bi combination (``bi_combine``): ``sum`` adds the two directions' per-token outputs
  (what the released code always runs: its ``-sumlayer`` flag is a string that is never
  false), ``tanh_concat`` is the paper's alternative, one ``tanh`` layer (``2·dim → dim``,
  Glorot-uniform weights, zero bias, Lasagne's ``DenseLayer``) over ``[forward; backward]`` at
  each token; either is then averaged over the tokens. The backward direction reads the
  segment last to first from a zero state at its last real token.

``boundary_tags`` (footnote 4's EOS/SOS, tuned in the paper, absent from the released code)
adds a learned start and/or end row to each non-empty segment (:class:`BoundaryTags`); the
default ``none`` composes the segment's own tokens only.

Padding never enters a state: each segment is stepped over its own tokens only, in the packed
layout of :meth:`SegmentBatch.packing` (segments sorted by length, the ones still running a
prefix of each step's batch), which gives what the code's masked steps give. An empty
segment composes to zero.

Speed: the input projections of every gate of every token are one matrix product (the LSTM's
four blocks and the GRAN gates' ``W_x`` fused) over the batch's distinct word rows, gathered
in packed order after it (over the token rows where each token has its own, as under
dropout); a step does one ``addmm`` with ``h`` and elementwise work; the GRAN gates' ``W_h h_t``
terms are one product over all tokens after the LSTM has run (GRAN-4 adds one ``a_{t−1}``
product per step). Autograd differentiates it all (nothing custom). The same code runs on
CUDA tensors. ``outgate=False`` (the code's undocumented ``-outgate False``) is a keyword of
the composers, not a run setting.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn

from paracomp.models.base import Composer, ComposerFactory, SegmentBatch, normal_parameter
from paracomp.models.boundary import BoundaryTags

BI_COMBINE = ("sum", "tanh_concat")
"""How the Bi encoders combine the two directions at each token (config ``bi_combine``)."""


class _Packing:
    """The packed layout of a batch: ``where`` (token ``k`` → packed row), ``sizes`` (segments
    running at each step) and ``rows`` (the ``batch.rows`` row of each packed row)."""

    def __init__(self, batch: SegmentBatch, reverse: bool):
        where, sizes, places = batch.packing(reverse)
        self.where, self.sizes = where, sizes.tolist()
        self.rows = torch.empty_like(batch.ids).index_copy_(0, where, batch.ids)
        lengths = batch.lengths()
        # the packed row of each non-empty segment's last step (its last token when forward)
        last = batch.offsets + lengths - 1 if not reverse else batch.offsets
        self.nonempty = lengths > 0
        self.last = (
            where.index_select(0, last.clamp_min(0)[self.nonempty]) if where.numel() else where
        )

    def tokens(self, packed: torch.Tensor) -> torch.Tensor:
        """Packed rows back in token (``batch.ids``) order."""
        return packed.index_select(0, self.where)

    def final(self, packed: torch.Tensor, n: int) -> torch.Tensor:
        """(n, ·): each segment's row at its last step, zero for an empty segment."""
        out = packed.new_zeros(n, packed.shape[1])
        return out.index_copy(
            0, self.nonempty.nonzero().view(-1), packed.index_select(0, self.last)
        )


class _GridPacking:
    """:class:`_Packing`'s interface over a :class:`~paracomp.models.base.StaticLayout` batch:
    every segment runs every position of the grid (``sizes``: ``width`` steps of all ``n``
    segments, shapes that do not depend on the lengths), the tokens in order (``reverse``:
    reversed within each segment's length) and the pads after them, so a state read at a token
    never saw a pad. The pad segment's tokens are in no position; they read packed row 0 (only
    the pad segment, whose vector is dropped, uses them)."""

    def __init__(self, batch: SegmentBatch, reverse: bool):
        assert batch.grid is not None and batch.mask is not None
        grid, mask = batch.grid, batch.mask
        n, width = grid.shape
        self.lengths = mask.sum(1)
        positions = torch.arange(width, device=grid.device)
        if reverse:
            within = (self.lengths.unsqueeze(1) - 1 - positions).clamp_min(0)
            grid = grid.gather(1, torch.where(mask, within, positions))
        self.sizes = [n] * width
        by_step = grid.t().reshape(-1)  # packed row t·n + i: position t of segment i
        self.rows = batch.ids.index_select(0, by_step)
        tokens = batch.ids.numel()
        slot = torch.where(mask.t().reshape(-1), by_step, tokens)  # pads: a slot past the end
        rows = torch.arange(n * width, device=grid.device)
        self.where = by_step.new_zeros(tokens + 1).scatter_(0, slot, rows)[:tokens]
        self.last = (self.lengths - 1).clamp_min(0) * n + torch.arange(n, device=grid.device)

    def tokens(self, packed: torch.Tensor) -> torch.Tensor:
        """Packed rows back in token (``batch.ids``) order."""
        return packed.index_select(0, self.where)

    def final(self, packed: torch.Tensor, n: int) -> torch.Tensor:
        """(n, ·): each segment's row at its last step, zero for an empty segment."""
        return packed.index_select(0, self.last).masked_fill((self.lengths == 0).unsqueeze(1), 0.0)


def _packing(batch: SegmentBatch, reverse: bool) -> _Packing | _GridPacking:
    return _GridPacking(batch, reverse) if batch.grid is not None else _Packing(batch, reverse)


class PeepholeLSTM(nn.Module):
    """Lasagne's peephole ``LSTMLayer`` (module docstring) from ``inputs`` to ``hidden`` units.
    ``weight_ih`` (4H, inputs) and ``weight_hh`` (4H, H) stack the ``i, f, c, o`` blocks;
    ``peephole`` (3, H) holds ``p_i, p_f, p_o``; ``bias`` (4H,)."""

    def __init__(
        self,
        inputs: int,
        hidden: int,
        generator: torch.Generator | None = None,
        *,
        outgate: bool = True,
    ):
        super().__init__()
        self.inputs, self.hidden, self.outgate = inputs, hidden, outgate
        self.weight_ih = normal_parameter((4 * hidden, inputs), 0.1, generator)
        self.weight_hh = normal_parameter((4 * hidden, hidden), 0.1, generator)
        self.peephole = normal_parameter((3, hidden), 0.1, generator)
        self.bias = nn.Parameter(torch.zeros(4 * hidden))

    def run(self, projected: torch.Tensor, sizes: list[int]) -> torch.Tensor:
        """The hidden states (packed rows) from the packed input projections ``projected``
        (``W_x·x + b`` of the four blocks, (N, 4H)) of steps of ``sizes`` segments."""
        if not sizes:
            return projected.new_zeros(0, self.hidden)
        h = projected.new_zeros(sizes[0], self.hidden)
        c = torch.zeros_like(h)
        weight_hh = self.weight_hh.t()
        p_i, p_f, p_o = self.peephole.unbind(0)
        states = []
        for x in projected.split(sizes):
            size = x.shape[0]
            if size < h.shape[0]:  # slicing only where segments end: a slice's backward fills
                h, c = h[:size], c[:size]
            i, f, g, o = torch.addmm(x, h, weight_hh).chunk(4, 1)
            i = torch.sigmoid(torch.addcmul(i, c, p_i))
            f = torch.sigmoid(torch.addcmul(f, c, p_f))
            c = torch.addcmul(f * c, i, torch.tanh(g))
            h = torch.tanh(c)
            if self.outgate:
                h = torch.sigmoid(torch.addcmul(o, c, p_o)) * h
            states.append(h)
        return torch.cat(states)

    def forward(
        self,
        batch: SegmentBatch,
        reverse: bool = False,
        extra: tuple[torch.Tensor, torch.Tensor] | None = None,
    ) -> tuple[torch.Tensor, torch.Tensor | None, torch.Tensor, _Packing | _GridPacking]:
        """The hidden states of ``batch`` (packed rows), the packed projections of the rows by
        ``extra`` (a weight and a bias projected in the same product as the LSTM's inputs,
        ``None`` without), the packed word rows and the layout. ``reverse`` reads each
        segment last to first. Where the batch has fewer rows than tokens (its distinct words,
        unperturbed) each row is projected once and the products are gathered; otherwise (a
        row per token, or a table wider than the batch, whose gathered products' gradient
        would be a zero-filled table as wide) the rows are gathered, then projected."""
        packing = _packing(batch, reverse)
        x = batch.rows.index_select(0, packing.rows)
        weight, bias = self.weight_ih, self.bias
        if extra is not None:
            weight, bias = torch.cat([weight, extra[0]]), torch.cat([bias, extra[1]])
        if batch.rows.shape[0] < packing.rows.numel():
            projected = F.linear(batch.rows, weight, bias).index_select(0, packing.rows)
        else:
            projected = F.linear(x, weight, bias)
        lstm, more = projected, None
        if extra is not None:  # views: a step's addmm reads its rows where they are
            lstm, more = projected.split([4 * self.hidden, extra[0].shape[0]], dim=1)
        return self.run(lstm, packing.sizes), more, x, packing


class PeepholeStates(nn.Module):
    """:class:`PeepholeLSTM` in the place of :class:`~paracomp.models.gaussian.LSTMStates`
    (e.g. ``LSTMAvgComposer(..., states=PeepholeStates(...))``, Chen & Gimpel's LSTM AVG with
    the cell of Wieting's code): the hidden state at each token, ``batch.ids`` order."""

    def __init__(self, word_width: int, hidden: int, generator: torch.Generator | None = None):
        super().__init__()
        self.lstm = PeepholeLSTM(word_width, hidden, generator)

    def forward(self, batch: SegmentBatch) -> torch.Tensor:
        states, _, _, packing = self.lstm(batch)
        return packing.tokens(states)


class LSTMComposer(Composer):
    """``lstm`` (``readout="last"``) and ``lstmavg`` (``"mean"``): the peephole LSTM with
    ``dim`` units over ``dim``-wide words."""

    def __init__(
        self,
        dim: int,
        generator: torch.Generator | None = None,
        *,
        readout: str = "last",
        outgate: bool = True,
        boundary_tags: str = "none",
    ):
        if readout not in ("last", "mean"):
            raise ValueError(f"readout must be 'last' or 'mean', not {readout!r}")
        super().__init__(dim)
        self.readout = readout
        self.lstm = PeepholeLSTM(dim, dim, generator, outgate=outgate)
        self.tags = BoundaryTags(dim, boundary_tags, generator)

    def forward(self, batch: SegmentBatch) -> torch.Tensor:
        batch, _ = self.tags(batch)
        states, _, _, packing = self.lstm(batch)
        if self.readout == "last":
            return packing.final(states, len(batch))
        return batch.mean(packing.tokens(states))


GATES = {1: 1, 2: 1, 3: 2, 4: 2, 5: 2}
"""The number of gates of each GRAN type."""


class GRANComposer(Composer):
    """A GRAN of ``gran_type`` 1–5 (module docstring) over the peephole LSTM, ``dim`` units;
    ``readout`` is ``"mean"`` (the average of ``a_t``) or ``"last"`` (``a`` at the last
    token), by default the code's (mean for types 1–2, last for 3–5). The gates' ``W_x``,
    ``W_h`` (and GRAN-4's ``W_a``) are ``N(0, 0.1²)``, their biases 0, as the code's
    ``W_avg*``, ``b_avg*``; gate ``i``'s weights are rows ``i·dim … (i+1)·dim − 1``."""

    def __init__(
        self,
        dim: int,
        generator: torch.Generator | None = None,
        *,
        gran_type: int = 1,
        readout: str | None = None,
        outgate: bool = True,
        boundary_tags: str = "none",
    ):
        if gran_type not in GATES:
            raise ValueError(f"gran_type must be one of {sorted(GATES)}, got {gran_type}")
        readout = readout or ("mean" if gran_type <= 2 else "last")
        if readout not in ("last", "mean"):
            raise ValueError(f"readout must be 'last' or 'mean', not {readout!r}")
        super().__init__(dim)
        self.gran_type, self.readout = gran_type, readout
        self.lstm = PeepholeLSTM(dim, dim, generator, outgate=outgate)
        width = GATES[gran_type] * dim
        self.gate_x = normal_parameter((width, dim), 0.1, generator)
        self.gate_h = normal_parameter((width, dim), 0.1, generator)
        self.gate_a = normal_parameter((width, dim), 0.1, generator) if gran_type == 4 else None
        self.gate_bias = nn.Parameter(torch.zeros(width))
        self.tags = BoundaryTags(dim, boundary_tags, generator)

    def averaged(
        self, batch: SegmentBatch, reverse: bool = False
    ) -> tuple[torch.Tensor, _Packing | _GridPacking]:
        """``a_t`` at every token (packed rows) and the layout."""
        states, projected, x, packing = self.lstm(batch, reverse, (self.gate_x, self.gate_bias))
        assert projected is not None
        pre = torch.addmm(projected, states, self.gate_h.t())  # W_x x_t + W_h h_t + b
        if self.gran_type == 1:
            return x * torch.sigmoid(pre), packing
        if self.gran_type == 2:
            return states * torch.sigmoid(pre), packing
        if self.gran_type == 5:
            g1, g2 = torch.sigmoid(pre).chunk(2, 1)
            return x * g1 + states * g2, packing
        return self._recurrent(pre, x, packing.sizes), packing

    def _recurrent(self, pre: torch.Tensor, x: torch.Tensor, sizes: list[int]) -> torch.Tensor:
        """GRAN-3/4's ``a_t = a_{t−1} ⊙ g1_t + x_t ⊙ g2_t`` over the packed steps."""
        if not sizes:
            return x.new_zeros(0, self.dim)
        a = x.new_zeros(sizes[0], self.dim)
        out = []
        for p, x_t in zip(pre.split(sizes), x.split(sizes), strict=True):
            if p.shape[0] < a.shape[0]:
                a = a[: p.shape[0]]
            if self.gate_a is not None:
                p = torch.addmm(p, a, self.gate_a.t())
            g1, g2 = torch.sigmoid(p).chunk(2, 1)
            a = torch.addcmul(a * g1, x_t, g2)
            out.append(a)
        return torch.cat(out)

    def forward(self, batch: SegmentBatch) -> torch.Tensor:
        batch, _ = self.tags(batch)
        averaged, packing = self.averaged(batch)
        if self.readout == "last":
            return packing.final(averaged, len(batch))
        return batch.mean(packing.tokens(averaged))

    def gates(self, batch: SegmentBatch) -> torch.Tensor:
        """GRAN-1's gate ``σ(W_x x_t + W_h h_t + b)`` at every token, ``ids`` order (N, dim):
        the vectors whose L1 norms the paper's Tables 9–11 average (boundary tags' gates
        left out)."""
        batch, own = self.tags(batch)
        states, projected, _, packing = self.lstm(batch, False, (self.gate_x, self.gate_bias))
        assert projected is not None
        pre = torch.addmm(projected, states, self.gate_h.t())
        gates = packing.tokens(torch.sigmoid(pre[:, : self.dim]))
        return gates if own is None else gates[own]


class _Combine(nn.Module):
    """``bi_combine`` of the two directions' per-token rows: ``sum``, or ``tanh_concat``,
    ``tanh(W [fwd; bwd] + b)`` with ``W`` (dim, 2·dim) Glorot-uniform and ``b = 0``."""

    def __init__(self, dim: int, combine: str, generator: torch.Generator | None):
        if combine not in BI_COMBINE:
            raise ValueError(f"bi_combine must be one of {BI_COMBINE}, not {combine!r}")
        super().__init__()
        self.combine = combine
        if combine == "tanh_concat":
            bound = math.sqrt(6.0 / (3 * dim))
            weight = torch.empty(dim, 2 * dim).uniform_(-bound, bound, generator=generator)
            self.weight = nn.Parameter(weight)
            self.bias = nn.Parameter(torch.zeros(dim))

    def forward(self, forward: torch.Tensor, backward: torch.Tensor, batch: SegmentBatch):
        if self.combine == "sum":  # the mean of the sums is the sum of the means
            return batch.mean(forward) + batch.mean(backward)
        both = torch.cat([forward, backward], 1)
        return batch.mean(torch.tanh(F.linear(both, self.weight, self.bias)))


class BiLSTMAvgComposer(Composer):
    """``bilstmavg``: forward and backward peephole LSTMs (``dim`` units each), their states
    at each token combined by ``bi_combine`` and averaged."""

    def __init__(
        self,
        dim: int,
        generator: torch.Generator | None = None,
        *,
        bi_combine: str = "sum",
        outgate: bool = True,
        boundary_tags: str = "none",
    ):
        super().__init__(dim)
        self.forward_lstm = PeepholeLSTM(dim, dim, generator, outgate=outgate)
        self.backward_lstm = PeepholeLSTM(dim, dim, generator, outgate=outgate)
        self.combine = _Combine(dim, bi_combine, generator)
        self.tags = BoundaryTags(dim, boundary_tags, generator)

    def forward(self, batch: SegmentBatch) -> torch.Tensor:
        batch, _ = self.tags(batch)
        states, _, _, packing = self.forward_lstm(batch)
        back, _, _, back_packing = self.backward_lstm(batch, reverse=True)
        return self.combine(packing.tokens(states), back_packing.tokens(back), batch)


class BiGRANComposer(Composer):
    """``bigran``: a forward and a backward type-1 GRAN (``dim`` units each), their ``a_t``
    combined at each token by ``bi_combine`` and averaged (the code's backward GRAN is
    always type 1; so is the forward one of the paper's BiGRAN)."""

    def __init__(
        self,
        dim: int,
        generator: torch.Generator | None = None,
        *,
        bi_combine: str = "sum",
        outgate: bool = True,
        boundary_tags: str = "none",
    ):
        super().__init__(dim)
        self.forward_gran = GRANComposer(dim, generator, gran_type=1, outgate=outgate)
        self.backward_gran = GRANComposer(dim, generator, gran_type=1, outgate=outgate)
        self.combine = _Combine(dim, bi_combine, generator)
        self.tags = BoundaryTags(dim, boundary_tags, generator)

    def forward(self, batch: SegmentBatch) -> torch.Tensor:
        batch, _ = self.tags(batch)
        ahead, packing = self.forward_gran.averaged(batch)
        back, back_packing = self.backward_gran.averaged(batch, reverse=True)
        return self.combine(packing.tokens(ahead), back_packing.tokens(back), batch)


def _gran(gran_type: int, readout: str | None = None) -> ComposerFactory:
    def factory(dim: int, generator: torch.Generator | None = None, **settings) -> Composer:
        return GRANComposer(dim, generator, gran_type=gran_type, readout=readout, **settings)

    return factory


def _lstm(readout: str) -> ComposerFactory:
    def factory(dim: int, generator: torch.Generator | None = None, **settings) -> Composer:
        return LSTMComposer(dim, generator, readout=readout, **settings)

    return factory


PEEPHOLE_COMPOSERS: dict[str, ComposerFactory] = {
    "lstm": _lstm("last"),
    "lstmavg": _lstm("mean"),
    "bilstmavg": BiLSTMAvgComposer,
    "gran": _gran(1),
    "gran2": _gran(2),
    "gran3": _gran(3),
    "gran4": _gran(4),
    "gran5": _gran(5),
    "gran5_mean": _gran(5, "mean"),
    "bigran": BiGRANComposer,
}
"""Wieting & Gimpel's (2017) encoders by config name, registered in
:mod:`paracomp.models.registry`."""
