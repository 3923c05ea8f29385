"""Wieting & Gimpel's (2017) encoders (paracomp.models.peephole): the peephole LSTM step and
the GRAN gates worked out by hand on 2-d inputs, every encoder against a padded, masked
re-statement of the authors' Lasagne scan (values and gradients), padding that never leaks,
the Bi combinations, initialisation, the registry, and CUDA against CPU."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from paracomp.models import BI_COMPOSERS, LEARNED_COMPOSERS
from paracomp.models.base import SegmentBatch
from paracomp.models.peephole import (
    PEEPHOLE_COMPOSERS,
    BiGRANComposer,
    BiLSTMAvgComposer,
    GRANComposer,
    LSTMComposer,
    PeepholeLSTM,
)
from paracomp.models.registry import COMPOSER_SETTINGS, COMPOSERS, make_composer
from paracomp.train.pairs.perturb import per_token

NAMES = sorted(PEEPHOLE_COMPOSERS)


def _batch(segments: list[list[int]], rows: torch.Tensor) -> SegmentBatch:
    lengths = torch.tensor([len(s) for s in segments])
    offsets = torch.cat([torch.zeros(1, dtype=torch.long), lengths.cumsum(0)[:-1]])
    ids = torch.tensor([i for s in segments for i in s], dtype=torch.long)
    return SegmentBatch(rows, ids, offsets)


def sigmoid(v: float) -> float:
    return 1.0 / (1.0 + math.exp(-v))


# ---------------------------------------------------------------------------------------------
# By hand: d = 2 with diagonal blocks, so that each unit is a scalar recurrence

# per unit u (two units): input weights of the blocks i, f, c, o; recurrent weights; peepholes
W_IN = {"i": (0.5, -0.3), "f": (0.2, 0.4), "c": (1.0, -0.7), "o": (-0.6, 0.9)}
W_HID = {"i": (0.3, 0.1), "f": (-0.2, 0.5), "c": (0.8, -0.4), "o": (0.25, 0.6)}
PEEP = {"i": (0.4, -0.5), "f": (0.3, 0.2), "o": (-0.7, 0.35)}
BIAS = {"i": (0.1, 0.0), "f": (0.0, -0.2), "c": (0.05, 0.1), "o": (-0.1, 0.3)}


def _set_lstm(lstm: PeepholeLSTM) -> None:
    """Diagonal blocks in Lasagne's order i, f, c, o from the tables above."""
    with torch.no_grad():
        lstm.weight_ih.zero_()
        lstm.weight_hh.zero_()
        for block, name in enumerate("ifco"):
            for u in range(2):
                lstm.weight_ih[2 * block + u, u] = W_IN[name][u]
                lstm.weight_hh[2 * block + u, u] = W_HID[name][u]
                lstm.bias[2 * block + u] = BIAS[name][u]
        for row, name in enumerate("ifo"):
            lstm.peephole[row] = torch.tensor(PEEP[name], dtype=torch.float64)


def _lstm_by_hand(xs: list[tuple[float, float]], outgate: bool = True) -> list[list[float]]:
    """The hidden state after each token, unit by unit, from the cell's equations."""
    states = []
    h, c = [0.0, 0.0], [0.0, 0.0]
    for x in xs:
        new_h, new_c = [], []
        for u in range(2):
            pre = {k: W_IN[k][u] * x[u] + W_HID[k][u] * h[u] + BIAS[k][u] for k in "ifco"}
            i = sigmoid(pre["i"] + PEEP["i"][u] * c[u])
            f = sigmoid(pre["f"] + PEEP["f"][u] * c[u])
            cell = f * c[u] + i * math.tanh(pre["c"])
            o = sigmoid(pre["o"] + PEEP["o"][u] * cell) if outgate else 1.0
            new_h.append(o * math.tanh(cell))
            new_c.append(cell)
        h, c = new_h, new_c
        states.append(h)
    return states


XS = [(1.0, -2.0), (0.5, 0.25), (-1.5, 0.75)]
ROWS = torch.tensor(XS, dtype=torch.float64)


def test_peephole_lstm_by_hand():
    for outgate in (True, False):
        composer = LSTMComposer(2, readout="last", outgate=outgate).double()
        _set_lstm(composer.lstm)
        by_hand = _lstm_by_hand(XS, outgate)
        out = composer(_batch([[0], [0, 1], [0, 1, 2], [2, 0]], ROWS))
        expected = [by_hand[0], by_hand[1], by_hand[2], _lstm_by_hand([XS[2], XS[0]], outgate)[1]]
        np.testing.assert_allclose(out.detach().numpy(), expected, rtol=1e-12)
    average = LSTMComposer(2, readout="mean").double()
    _set_lstm(average.lstm)
    out = average(_batch([[0, 1, 2]], ROWS))
    np.testing.assert_allclose(out.detach().numpy()[0], np.mean(_lstm_by_hand(XS), 0), rtol=1e-12)


# GRAN gates, diagonal too: gate g of unit u is σ(GX[g][u] x_u + GH[g][u] h_u + GA[g][u] a_u + GB)
GX = ((0.6, -0.4), (0.2, 0.7))
GH = ((-0.5, 0.3), (0.9, -0.1))
GA = ((0.45, -0.25), (-0.3, 0.55))
GB = ((0.1, -0.2), (0.0, 0.15))


def _gran(gran_type: int, readout: str | None = None) -> GRANComposer:
    composer = GRANComposer(2, gran_type=gran_type, readout=readout).double()
    _set_lstm(composer.lstm)
    with torch.no_grad():
        for param in (composer.gate_x, composer.gate_h, composer.gate_bias):
            param.zero_()
        if composer.gate_a is not None:
            composer.gate_a.zero_()
        for g in range(2 if gran_type >= 3 else 1):
            for u in range(2):
                composer.gate_x[2 * g + u, u] = GX[g][u]
                composer.gate_h[2 * g + u, u] = GH[g][u]
                composer.gate_bias[2 * g + u] = GB[g][u]
                if composer.gate_a is not None:
                    composer.gate_a[2 * g + u, u] = GA[g][u]
    return composer


def _gran_by_hand(gran_type: int, xs: list[tuple[float, float]]) -> list[list[float]]:
    """``a_t`` after each token, unit by unit (module docstring's equations)."""
    hs = _lstm_by_hand(xs)
    a, out = [0.0, 0.0], []
    for x, h in zip(xs, hs):
        new = []
        for u in range(2):
            recur = GA if gran_type == 4 else ((0.0, 0.0), (0.0, 0.0))
            gate = [
                sigmoid(GX[g][u] * x[u] + GH[g][u] * h[u] + recur[g][u] * a[u] + GB[g][u])
                for g in range(2)
            ]
            if gran_type == 1:
                new.append(x[u] * gate[0])
            elif gran_type == 2:
                new.append(h[u] * gate[0])
            elif gran_type in (3, 4):
                new.append(a[u] * gate[0] + x[u] * gate[1])
            else:
                new.append(x[u] * gate[0] + h[u] * gate[1])
        a = new
        out.append(a)
    return out


@pytest.mark.parametrize("gran_type", [1, 2, 3, 4, 5])
def test_gran_variants_by_hand(gran_type):
    composer = _gran(gran_type)
    out = composer(_batch([[0, 1, 2], [1]], ROWS)).detach().numpy()
    a = _gran_by_hand(gran_type, XS)
    single = _gran_by_hand(gran_type, [XS[1]])[0]
    if gran_type <= 2:  # the code averages types 1 and 2
        np.testing.assert_allclose(out, [np.mean(a, 0), single], rtol=1e-12)
    else:  # and takes the last a_t of types 3–5
        np.testing.assert_allclose(out, [a[-1], single], rtol=1e-12)
    if gran_type == 5:  # the paper's reading: averaged
        mean = _gran(5, "mean")(_batch([[0, 1, 2]], ROWS)).detach().numpy()
        np.testing.assert_allclose(mean[0], np.mean(a, 0), rtol=1e-12)


def test_gran_one_token_literal():
    """The first step written out: c = i·tanh(W_c x + b_c), h = o·tanh(c), a = x·σ(gate)."""
    composer = _gran(1)
    x0, x1 = XS[0]
    i0 = sigmoid(0.5 * x0 + 0.1)
    c0 = i0 * math.tanh(1.0 * x0 + 0.05)
    h0 = sigmoid(-0.6 * x0 - 0.1 - 0.7 * c0) * math.tanh(c0)
    a0 = x0 * sigmoid(0.6 * x0 - 0.5 * h0 + 0.1)
    i1 = sigmoid(-0.3 * x1)
    c1 = i1 * math.tanh(-0.7 * x1 + 0.1)
    h1 = sigmoid(0.9 * x1 + 0.3 + 0.35 * c1) * math.tanh(c1)
    a1 = x1 * sigmoid(-0.4 * x1 + 0.3 * h1 - 0.2)
    out = composer(_batch([[0]], ROWS))[0].tolist()
    assert out == pytest.approx([a0, a1], rel=1e-12)
    gates = composer.gates(_batch([[0]], ROWS))[0].tolist()
    assert gates == pytest.approx([a0 / x0, a1 / x1], rel=1e-12)


# ---------------------------------------------------------------------------------------------
# Against the authors' padded, masked scan (Lasagne's LSTMLayer and lasagne_gran_layer)


def _padded(batch: SegmentBatch) -> tuple[torch.Tensor, torch.Tensor]:
    lengths = batch.lengths().tolist()
    longest = max(lengths, default=0)
    grid = batch.rows.new_zeros(len(lengths), longest, batch.rows.shape[1])
    mask = torch.zeros(len(lengths), longest, dtype=batch.rows.dtype)
    for s, (start, n) in enumerate(zip(batch.offsets.tolist(), lengths)):
        grid[s, :n] = batch.rows[batch.ids[start : start + n]]
        mask[s, :n] = 1.0
    return grid, mask


def _scan(lstm: PeepholeLSTM, grid, mask, backwards=False, gran=None):
    """Every padded position's (h, a) as the masked Lasagne scan computes them: a step at a
    pad copies the previous states; backwards steps from the last position, then the outputs
    are flipped back."""
    n, length, _ = grid.shape
    hid = lstm.hidden
    h = c = grid.new_zeros(n, hid)
    a = grid.new_zeros(n, gran.dim) if gran is not None else None
    p_i, p_f, p_o = lstm.peephole
    hs, avgs = [None] * length, [None] * length
    steps = range(length - 1, -1, -1) if backwards else range(length)
    for t in steps:
        x, m = grid[:, t], mask[:, t : t + 1]
        gates = x @ lstm.weight_ih.T + h @ lstm.weight_hh.T + lstm.bias
        i, f, g, o = gates.split(hid, 1)
        i = torch.sigmoid(i + c * p_i)
        f = torch.sigmoid(f + c * p_f)
        new_c = f * c + i * torch.tanh(g)
        new_h = torch.tanh(new_c)
        if lstm.outgate:
            new_h = torch.sigmoid(o + new_c * p_o) * new_h
        c = m * new_c + (1 - m) * c
        h = m * new_h + (1 - m) * h
        if gran is not None:
            pre = x @ gran.gate_x.T + new_h @ gran.gate_h.T + gran.gate_bias
            if gran.gate_a is not None:
                pre = pre + a @ gran.gate_a.T
            gate = torch.sigmoid(pre)
            kind = gran.gran_type
            if kind == 1:
                new_a = x * gate
            elif kind == 2:
                new_a = new_h * gate
            elif kind in (3, 4):
                new_a = a * gate[:, : gran.dim] + x * gate[:, gran.dim :]
            else:
                new_a = x * gate[:, : gran.dim] + new_h * gate[:, gran.dim :]
            a = m * new_a + (1 - m) * a
            avgs[t] = a
        hs[t] = h
    stack = torch.stack(hs, 1) if length else grid.new_zeros(n, 0, hid)
    return stack, (torch.stack(avgs, 1) if gran is not None and length else None)


def _average(states, mask):
    return (states * mask[:, :, None]).sum(1) / mask.sum(1, keepdim=True).clamp_min(1)


def _reference(composer, batch: SegmentBatch) -> torch.Tensor:
    """The authors' network, re-stated over the padded batch (the composer's parameters)."""
    grid, mask = _padded(batch)
    last = grid.new_zeros(len(batch), composer.dim)
    if isinstance(composer, LSTMComposer):
        states, _ = _scan(composer.lstm, grid, mask)
        if composer.readout == "mean":
            return _average(states, mask)
        return states[:, -1] if states.shape[1] else last  # SliceLayer(-1) of the masked scan
    if isinstance(composer, GRANComposer):
        _, a = _scan(composer.lstm, grid, mask, gran=composer)
        if composer.readout == "mean":
            return _average(a, mask)
        return a[:, -1] if a is not None else last
    if isinstance(composer, BiLSTMAvgComposer):
        ahead, _ = _scan(composer.forward_lstm, grid, mask)
        back, _ = _scan(composer.backward_lstm, grid, mask, backwards=True)
    else:
        assert isinstance(composer, BiGRANComposer)
        _, ahead = _scan(composer.forward_gran.lstm, grid, mask, gran=composer.forward_gran)
        _, back = _scan(
            composer.backward_gran.lstm, grid, mask, backwards=True, gran=composer.backward_gran
        )
    combine = composer.combine
    if combine.combine == "sum":
        return _average(ahead + back, mask)
    dense = torch.tanh(torch.cat([ahead, back], 2) @ combine.weight.T + combine.bias)
    return _average(dense, mask)


def _composer(name: str, dim: int = 5, seed: int = 0, **settings):
    """The composer in float64 with every parameter redrawn at a visible scale."""
    composer = make_composer(name, dim, torch.Generator().manual_seed(seed), settings).double()
    generator = torch.Generator().manual_seed(seed + 1)
    with torch.no_grad():
        for param in composer.parameters():
            param.copy_(torch.randn(param.shape, generator=generator, dtype=torch.float64) * 0.5)
    return composer


SEGMENTS = [[0, 1, 2, 3], [4], [], [5, 0, 5, 1, 6, 2], [2, 3], [7, 7, 7]]
VARIANTS = [(name, {}) for name in NAMES] + [
    (name, {"bi_combine": "tanh_concat"}) for name in sorted(BI_COMPOSERS)
]
IDS = [f"{n}-{s.get('bi_combine', '')}".rstrip("-") for n, s in VARIANTS]


@pytest.mark.parametrize(("name", "settings"), VARIANTS, ids=IDS)
def test_equals_the_authors_masked_scan_values_and_gradients(name, settings):
    composer = _composer(name, **settings)
    rows = torch.randn(8, 5, generator=torch.Generator().manual_seed(9), dtype=torch.float64)
    rows.requires_grad_()
    batch = _batch(SEGMENTS, rows)
    out, expected = composer(batch), _reference(composer, batch)
    torch.testing.assert_close(out, expected, rtol=1e-10, atol=1e-12)
    weights = torch.randn(out.shape, generator=torch.Generator().manual_seed(4), dtype=out.dtype)
    params = [rows, *composer.parameters()]
    ours = torch.autograd.grad((out * weights).sum(), params)
    theirs = torch.autograd.grad((expected * weights).sum(), params)
    for a, b in zip(ours, theirs, strict=True):
        torch.testing.assert_close(a, b, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("name", ["lstm", "gran", "gran4", "bigran"])
def test_projecting_distinct_rows_or_token_rows_agrees(name):
    # SEGMENTS has 16 tokens over 8 rows (each row projected once, then gathered); per token
    # every occurrence has its own row (gathered, then projected), as under dropout
    composer = _composer(name)
    rows = torch.randn(8, 5, generator=torch.Generator().manual_seed(9), dtype=torch.float64)
    rows.requires_grad_()
    distinct = _batch(SEGMENTS, rows)
    tokens = per_token(distinct)
    assert tokens.rows.shape[0] == 16
    out, expected = composer(distinct), composer(tokens)
    torch.testing.assert_close(out, expected, rtol=1e-12, atol=1e-13)
    params = [rows, *composer.parameters()]
    ours = torch.autograd.grad(out.sum(), params)
    theirs = torch.autograd.grad(expected.sum(), params)
    for a, b in zip(ours, theirs, strict=True):
        torch.testing.assert_close(a, b, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize(("name", "settings"), VARIANTS, ids=IDS)
def test_padding_and_batch_neighbours_never_leak(name, settings):
    composer = _composer(name, **settings)
    rows = torch.randn(8, 5, generator=torch.Generator().manual_seed(3), dtype=torch.float64)
    alone = torch.cat([composer(_batch([s], rows)) for s in SEGMENTS])
    long = [i % 8 for i in range(30)]
    together = composer(_batch([long, *SEGMENTS, long[:17]], rows))[1:-1]
    torch.testing.assert_close(together, alone, rtol=1e-12, atol=1e-14)
    assert not together[2].any()  # the empty segment


def test_bi_directions_read_opposite_ways():
    composer = _composer("bilstmavg")
    rows = torch.randn(4, 5, generator=torch.Generator().manual_seed(1), dtype=torch.float64)
    forward = LSTMComposer(5, readout="mean").double()
    forward.lstm.load_state_dict(composer.forward_lstm.state_dict())
    backward = LSTMComposer(5, readout="mean").double()
    backward.lstm.load_state_dict(composer.backward_lstm.state_dict())
    segment = [0, 1, 2, 3]
    both = composer(_batch([segment], rows))
    expected = forward(_batch([segment], rows)) + backward(_batch([segment[::-1]], rows))
    torch.testing.assert_close(both, expected)


@pytest.mark.parametrize("tags", ["sos", "eos", "both"])
@pytest.mark.parametrize("name", ["lstm", "gran3", "bigran"])
def test_boundary_tags_are_rows_around_each_segment(name, tags):
    plain = _composer(name)
    tagged = make_composer(name, 5, settings={"boundary_tags": tags}).double()
    missing = tagged.load_state_dict(plain.state_dict(), strict=False).missing_keys
    assert all(key.startswith("tags.") for key in missing) and missing
    rows = torch.randn(8, 5, generator=torch.Generator().manual_seed(6), dtype=torch.float64)
    extra, sos, eos = [], [], []
    if tagged.tags.sos is not None:
        sos, extra = [8], [tagged.tags.sos.detach()]
    if tagged.tags.eos is not None:
        eos, extra = [8 + len(extra)], [*extra, tagged.tags.eos.detach()]
    by_hand = [sos + s + eos if s else [] for s in SEGMENTS]
    expected = plain(_batch(by_hand, torch.cat([rows, torch.stack(extra)])))
    torch.testing.assert_close(tagged(_batch(SEGMENTS, rows)), expected)
    assert not tagged(_batch(SEGMENTS, rows))[2].any()  # the empty segment stays empty


def test_gates_leave_the_tags_out():
    composer = make_composer("gran", 4, settings={"boundary_tags": "both"})
    rows = torch.randn(5, 4, generator=torch.Generator().manual_seed(1))
    gates = composer.gates(_batch([[0, 1, 2], [], [3, 4]], rows))
    assert gates.shape == (5, 4) and ((gates > 0) & (gates < 1)).all()
    assert not list(make_composer("gran", 4).tags.parameters())


def test_peephole_states_stand_in_for_chen_gimpels_lstm():
    from paracomp.models.gaussian import LSTMAvgComposer
    from paracomp.models.peephole import PeepholeStates

    ours = _composer("lstmavg").float()
    states = PeepholeStates(5, 5)
    states.lstm.load_state_dict(ours.lstm.state_dict())
    theirs = LSTMAvgComposer(5, states=states)
    rows = torch.randn(8, 5, generator=torch.Generator().manual_seed(2))
    torch.testing.assert_close(theirs(_batch(SEGMENTS, rows)), ours(_batch(SEGMENTS, rows)))


# ---------------------------------------------------------------------------------------------
# Initialisation, registry, settings


def test_initialisation_as_lasagne():
    composer = COMPOSERS["gran4"](300, torch.Generator().manual_seed(0))
    lstm = composer.lstm
    for weight in (lstm.weight_ih, lstm.weight_hh, lstm.peephole, composer.gate_x):
        assert weight.std().item() == pytest.approx(0.1, rel=0.02)
        assert weight.mean().abs().item() < 0.005
    assert composer.gate_a is not None and composer.gate_a.shape == (600, 300)
    assert not lstm.bias.any() and not composer.gate_bias.any()
    assert lstm.weight_ih.shape == (1200, 300) and lstm.peephole.shape == (3, 300)
    combine = make_composer("bigran", 300, settings={"bi_combine": "tanh_concat"}).combine
    bound = math.sqrt(6 / 900)
    assert combine.weight.shape == (300, 600) and combine.weight.abs().max() <= bound
    assert combine.weight.abs().max() > 0.99 * bound and not combine.bias.any()
    assert not list(make_composer("bigran", 4).combine.parameters())  # sum: no parameters


def test_registry_and_learned_composers():
    assert (
        set(PEEPHOLE_COMPOSERS) <= set(COMPOSERS) and set(PEEPHOLE_COMPOSERS) <= LEARNED_COMPOSERS
    )
    learned = {n for n in COMPOSERS if list(COMPOSERS[n](12).parameters())}
    assert learned == set(LEARNED_COMPOSERS)
    assert {n for n, keys in COMPOSER_SETTINGS.items() if "bi_combine" in keys} == BI_COMPOSERS
    with pytest.raises(ValueError, match="bi_combine"):
        make_composer("bilstmavg", 4, settings={"bi_combine": "max"})
    # settings a composer does not take are ignored
    assert isinstance(make_composer("gran", 4, settings={"bi_combine": "sum"}), GRANComposer)


def test_config_bi_combine_and_composers():
    from paracomp.errors import ConfigError
    from paracomp.run_config import TrainConfig
    from paracomp.train.pairs.build import build_model

    config = TrainConfig(composer="bigran", bi_combine="tanh_concat", dim=4)
    model = build_model(config, 10)
    assert model.composer.combine.combine == "tanh_concat"
    with pytest.raises(ConfigError, match="Bi composer"):
        TrainConfig(composer="gran", bi_combine="tanh_concat")
    with pytest.raises(ConfigError, match="boundary_tags"):
        TrainConfig(composer="mean", boundary_tags="eos")
    tagged = build_model(TrainConfig(composer="lstmavg", boundary_tags="eos", dim=4), 10)
    assert tagged.composer.tags.eos is not None and tagged.composer.tags.sos is None
    untagged = build_model(TrainConfig(composer="lstmavg", dim=4), 10)
    torch.testing.assert_close(  # the default draws what it drew before tags existed
        untagged.composer.lstm.weight_ih, tagged.composer.lstm.weight_ih
    )
    for name in NAMES:
        TrainConfig(composer=name)  # every name is in the schema


# ---------------------------------------------------------------------------------------------
# CUDA


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
@pytest.mark.parametrize(("name", "settings"), VARIANTS, ids=IDS)
def test_cuda_equals_cpu(name, settings):
    composer = _composer(name, **settings).float()
    rows = torch.randn(8, 5, generator=torch.Generator().manual_seed(2)).requires_grad_()
    out = composer(_batch(SEGMENTS, rows))
    out.square().sum().backward()
    # Copied: Module.cuda() moves the parameters' grads in place.
    grads = [g.clone() for g in (rows.grad, *[p.grad for p in composer.parameters()])]
    on_cuda = composer.cuda()
    for p in on_cuda.parameters():
        p.grad = None
    rows_cuda = rows.detach().cuda().requires_grad_()
    batch = _batch(SEGMENTS, rows_cuda)
    batch = SegmentBatch(rows_cuda, batch.ids.cuda(), batch.offsets.cuda())
    out_cuda = on_cuda(batch)
    out_cuda.square().sum().backward()
    torch.testing.assert_close(out_cuda.cpu(), out.detach(), rtol=1e-4, atol=1e-5)
    grads_cuda = [rows_cuda.grad, *[p.grad for p in on_cuda.parameters()]]
    for a, b in zip(grads_cuda, grads, strict=True):
        torch.testing.assert_close(a.cpu(), b, rtol=1e-4, atol=1e-5)
