"""Composers of Chen & Gimpel (2020): sentences as diagonal Gaussians, and LSTM averaging.

A Gaussian composer's output row is ``[μ | log σ²]``, ``2k`` wide for a ``k``-dimensional
Gaussian with diagonal covariance; its factory's ``dim`` is ``k`` (the paper's "dimension"),
its :attr:`Composer.dim` the output width ``2k``.

- :class:`WLOComposer` ("word linear operator", Eqs. 1–3): word ``w`` scales by ``A_w`` and
  shifts by ``B_w`` (``z_i = A_i ⊙ (z_{i−1} + B_i)``, ``z_0 ~ N(0, I)``).
- :class:`LSTMGaussianComposer` ("LSTM GAUSSIAN"): LSTM AVG, then separate linear maps of the
  averaged hidden states to ``μ`` and to ``log σ²``.
- :class:`LSTMAvgComposer` ("LSTM AVG"): the average of an LSTM's hidden states.

WORDAVG is the ``mean`` composer of :mod:`paracomp.models.registry`; WORDSUM is not trained on
its own: under cosine the hinge of ``sum`` equals that of ``mean`` (``cos(Σv, Σv′) =
cos(v̄, v̄′)``), so WORDSUM is the WORDAVG embeddings composed by ``sum`` at test time.

The LSTM is one replaceable piece, :class:`LSTMStates` (``SegmentBatch`` to the hidden state at
each token): here PyTorch's ``nn.LSTM`` over a packed batch, PyTorch's own initialisation drawn
from the factory's generator. Wieting & Gimpel's para-nmt code (the training code Chen & Gimpel
build on) uses Lasagne's ``LSTMLayer`` with peepholes (``peepholes=True, learn_init=False``,
weights ``N(0, 0.1²)``, biases 0), whose cell differs from ``nn.LSTM``'s by the peephole
terms; a Lasagne-style peephole LSTM can stand in for :class:`LSTMStates` unchanged.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from paracomp.models.base import Composer, ComposerFactory, SegmentBatch


def split(gaussians: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """``(μ, log σ²)`` of ``[μ | log σ²]`` rows (…, 2k); an odd width is refused."""
    if gaussians.shape[-1] % 2:
        raise ValueError(
            f"Gaussian rows [μ | log σ²] need an even width, not {gaussians.shape[-1]}"
        )
    mean, log_var = gaussians.chunk(2, dim=-1)
    return mean, log_var


def padded(batch: SegmentBatch) -> tuple[torch.Tensor, torch.Tensor]:
    """``(n, L, word_width)`` rows of each segment's tokens in order, zero after its last
    token (``L`` the longest segment), and the ``(n, L)`` mask of real tokens; pads get no
    gradient. A :class:`~paracomp.models.base.StaticLayout` batch gives its own grid (``L`` its
    width)."""
    if batch.grid is not None and batch.mask is not None:
        return batch.on_grid() * batch.mask.unsqueeze(2), batch.mask
    lengths = batch.lengths()
    n, total = len(batch), batch.ids.numel()
    longest = int(lengths.max()) if n else 0
    segment = torch.repeat_interleave(lengths, output_size=total)
    step = torch.arange(total, device=batch.ids.device) - batch.offsets.index_select(0, segment)
    grid = batch.rows.new_zeros(n, longest, batch.rows.shape[1])
    grid = grid.index_put((segment, step), batch.tokens())
    mask = torch.zeros(n, longest, dtype=torch.bool, device=batch.ids.device)
    return grid, mask.index_put_((segment, step), torch.ones_like(step, dtype=torch.bool))


class WLOComposer(Composer):
    """The word linear operator model: a word's row is ``[a_w | B_w]`` (``2k`` wide) with
    ``A_w = exp(a_w)``, and a sentence ``w_1 … w_n`` composes to ``N(μ_n, diag σ²_n)`` with

        μ_n = Σ_i (Π_{j ≥ i} A_j) ⊙ B_i      (the recursion μ ← A_i ⊙ (μ + B_i) from μ_0 = 0)
        log σ²_n = 2 Σ_i a_i                  (σ²_n = Π_i A_i², from σ²_0 = 1)

    the products taken in log space (``Π_{j ≥ i} A_j = exp(Σ_{j ≥ i} a_j)``): ``log σ²`` is
    exact however long the sentence, and the mean overflows only where its own terms are out of
    range. The mean depends on word order, the variance does not; an empty segment composes
    to ``N(0, I)``.

    Parameterisation (the paper does not give one): the row stores ``log|A|``, so ``|A| > 0``
    always and the model's random ``N(0, s²)`` row initialisation gives ``|A| ≈ 1``
    (``|A| = e^{±s}``) and ``B ≈ 0``: each operator starts close to the identity, and the
    products of many stay finite. This fixes the sign of ``A`` to ``+``, a restriction of the
    paper's real ``A`` (a word can no longer reflect the running mean; ``σ²`` and the entropy,
    the specificity score, are unaffected), which also keeps ``|A|`` from passing through 0,
    where ``log σ² = −∞``. The composer itself has no parameters (``generator`` is unused)."""

    def __init__(self, dim: int, generator: torch.Generator | None = None):
        super().__init__(2 * dim, word_width=2 * dim)
        self.gaussian_dim = dim

    def forward(self, batch: SegmentBatch) -> torch.Tensor:
        grid, _ = padded(batch)  # pads: a = 0 (A = 1), B = 0, so they add nothing
        log_scale, shift = grid.split(self.gaussian_dim, dim=-1)
        suffix = log_scale.flip(1).cumsum(1).flip(1)  # Σ_{j ≥ i} a_j
        mean = (suffix.exp() * shift).sum(1)
        return torch.cat([mean, 2.0 * log_scale.sum(1)], dim=1)

    def operator_gaussians(self, batch: SegmentBatch) -> torch.Tensor:
        """Each token's own operator applied to ``N(0, I)``: ``[A ⊙ B | 2a]`` (N, 2k), tokens in
        ``batch.ids`` order (the prior's reading (a), the distribution of a one-word
        sentence)."""
        log_scale, shift = batch.tokens().split(self.gaussian_dim, dim=-1)
        return torch.cat([log_scale.exp() * shift, 2.0 * log_scale], dim=1)

    def running_gaussians(self, batch: SegmentBatch) -> torch.Tensor:
        """The distribution of ``z_i`` after each token's operator within its segment,
        ``[μ_i | log σ²_i]`` (N, 2k), tokens in ``batch.ids`` order (the prior's reading
        (b)); the last token of a segment holds the segment's composed row."""
        grid, mask = padded(batch)
        if not mask.any():
            return grid.new_zeros(0, self.dim)
        log_scale, shift = grid.split(self.gaussian_dim, dim=-1)
        scale = log_scale.exp()
        mean = grid.new_zeros(len(batch), self.gaussian_dim)
        means = []
        for step in range(grid.shape[1]):
            mean = scale[:, step] * (mean + shift[:, step])
            means.append(mean)
        running = torch.cat([torch.stack(means, dim=1), 2.0 * log_scale.cumsum(1)], dim=-1)
        return running[mask]


def _uniform_(tensor: torch.Tensor, bound: float, generator: torch.Generator | None) -> None:
    with torch.no_grad():
        tensor.uniform_(-bound, bound, generator=generator)


def _linear(inputs: int, outputs: int, generator: torch.Generator | None) -> nn.Linear:
    """``nn.Linear`` with PyTorch's default initialisation (weights and bias
    ``U(±1/√inputs)``) drawn from ``generator``."""
    linear = nn.utils.skip_init(nn.Linear, inputs, outputs)
    _uniform_(linear.weight, 1.0 / math.sqrt(inputs), generator)
    _uniform_(linear.bias, 1.0 / math.sqrt(inputs), generator)
    return linear


class LSTMStates(nn.Module):
    """A one-layer unidirectional ``nn.LSTM`` from ``word_width`` to ``hidden`` units run over
    each segment's own tokens (packed, so pads never enter a state): the hidden state after
    each token, (N, hidden), tokens in ``batch.ids`` order. PyTorch's initialisation (every
    weight and bias ``U(±1/√hidden)``), drawn from ``generator``."""

    def __init__(self, word_width: int, hidden: int, generator: torch.Generator | None = None):
        super().__init__()
        self.hidden = hidden
        self.lstm = nn.LSTM(word_width, hidden, batch_first=True, device="meta")
        self.lstm.to_empty(device="cpu")
        for weight in self.lstm.parameters():
            _uniform_(weight, 1.0 / math.sqrt(hidden), generator)

    def forward(self, batch: SegmentBatch) -> torch.Tensor:
        if batch.grid is not None:
            return self._gridded(batch)
        if batch.rows.device.type == "cpu":
            return self._stepped(batch)
        grid, mask = padded(batch)
        if not mask.any():
            return grid.new_zeros(0, self.hidden)
        lengths = batch.lengths().clamp_min(1).cpu()  # empty segments: no token is kept
        packed = pack_padded_sequence(grid, lengths, batch_first=True, enforce_sorted=False)
        states = pad_packed_sequence(self.lstm(packed)[0], batch_first=True)[0]
        return states[mask[:, : states.shape[1]]]

    def _stepped(self, batch: SegmentBatch) -> torch.Tensor:
        """The states on CPU, where ``nn.LSTM``'s packed kernel with gradient runs at a quarter
        of the matrix-multiply rate (``benchmarks/bench_cost.py``): the input projections of
        every token as one product over the rows gathered in packed order (both biases
        added to it), then one ``addmm`` with ``h`` and the gate arithmetic per step, under
        autograd. The same cell as ``nn.LSTM``'s, equal up to the order of float32 sums."""
        where, sizes, _ = batch.packing()
        if not where.numel():
            return batch.rows.new_zeros(0, self.hidden)
        lstm = self.lstm
        ids = torch.empty_like(batch.ids).index_copy_(0, where, batch.ids)
        x = batch.rows.index_select(0, ids)
        projected = F.linear(x, lstm.weight_ih_l0, lstm.bias_ih_l0 + lstm.bias_hh_l0)
        h = projected.new_zeros(int(sizes[0]), self.hidden)
        c, weight, states = torch.zeros_like(h), lstm.weight_hh_l0.t(), []
        for step in projected.split(sizes.tolist()):
            size = step.shape[0]
            if size < h.shape[0]:
                h, c = h[:size], c[:size]
            i, f, g, o = torch.addmm(step, h, weight).chunk(4, 1)
            c = torch.addcmul(torch.sigmoid(f) * c, torch.sigmoid(i), torch.tanh(g))
            h = torch.sigmoid(o) * torch.tanh(c)
            states.append(h)
        return torch.cat(states).index_select(0, where)

    def _gridded(self, batch: SegmentBatch) -> torch.Tensor:
        """The states of a :class:`~paracomp.models.base.StaticLayout` batch: the LSTM over
        its whole grid, pads after the tokens, so a token's state never saw a pad (the pad
        segment's tokens, in no position, read the first state)."""
        assert batch.grid is not None and batch.mask is not None
        n, width = batch.grid.shape
        states = self.lstm(batch.on_grid())[0].reshape(n * width, self.hidden)
        tokens = batch.ids.numel()
        slot = torch.where(batch.mask, batch.grid, tokens).view(-1)
        rows = torch.arange(n * width, device=slot.device)
        where = slot.new_zeros(tokens + 1).scatter_(0, slot, rows)[:tokens]
        return states.index_select(0, where)


class LSTMAvgComposer(Composer):
    """LSTM AVG: the average of the hidden states (``dim`` units, over ``word_width``-wide
    word rows; the paper: 100 over 50) at the segment's tokens; zero for an empty segment.
    ``states`` replaces the default :class:`LSTMStates` (e.g. by a peephole LSTM)."""

    def __init__(
        self,
        dim: int,
        generator: torch.Generator | None = None,
        *,
        word_width: int | None = None,
        states: nn.Module | None = None,
    ):
        super().__init__(dim, word_width)
        self.states = LSTMStates(self.word_width, dim, generator) if states is None else states

    def forward(self, batch: SegmentBatch) -> torch.Tensor:
        return batch.mean(self.states(batch))


class LSTMGaussianComposer(Composer):
    """LSTM GAUSSIAN: LSTM AVG (``hidden`` units, default ``dim``), then two separate linear
    maps of the averaged states, one to ``μ`` and one to ``log σ²`` (``dim`` each): the
    variance is parameterised by its logarithm (the paper does not say; this keeps ``σ² > 0``
    without a clamp and is the row layout the scores take). The heads have PyTorch's default
    ``nn.Linear`` initialisation, drawn from ``generator``."""

    def __init__(
        self,
        dim: int,
        generator: torch.Generator | None = None,
        *,
        word_width: int | None = None,
        hidden: int | None = None,
        states: nn.Module | None = None,
    ):
        hidden = dim if hidden is None else hidden
        super().__init__(2 * dim, dim if word_width is None else word_width)
        self.gaussian_dim = dim
        self.average = LSTMAvgComposer(hidden, generator, word_width=self.word_width, states=states)
        self.mean = _linear(hidden, dim, generator)
        self.log_var = _linear(hidden, dim, generator)

    def forward(self, batch: SegmentBatch) -> torch.Tensor:
        average = self.average(batch)
        return torch.cat([self.mean(average), self.log_var(average)], dim=1)


def lstm_avg(dim: int, generator: torch.Generator | None = None) -> Composer:
    """The paper's LSTM AVG: ``dim`` hidden units (100) over 50-d words."""
    return LSTMAvgComposer(dim, generator, word_width=50)


def lstm_gaussian(dim: int, generator: torch.Generator | None = None) -> Composer:
    """The paper's LSTM GAUSSIAN: a ``dim``-d Gaussian (100) from 100 hidden units over 50-d
    words."""
    return LSTMGaussianComposer(dim, generator, word_width=50, hidden=100)


GAUSSIAN_COMPOSERS: dict[str, ComposerFactory] = {
    "wlo": WLOComposer,
    "lstm_avg": lstm_avg,
    "lstm_gaussian": lstm_gaussian,
}
"""Chen & Gimpel's composers by config name, registered in :mod:`paracomp.models.registry`
(WORDAVG and WORDSUM are ``mean`` and ``sum``)."""
