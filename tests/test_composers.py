"""Composers: shapes, independence from the rest of the batch, gradients, empty segments, values
worked out by hand or by stepping the cells over the unpadded segment, initialisation."""

import math

import pytest
import torch
import torch.nn.functional as F
from torch.nn.utils.rnn import PackedSequence

from paracomp.models.algebraic import MaxComposer
from paracomp.models.base import SegmentBatch
from paracomp.models.convolutional import filter_counts
from paracomp.models.pair import PairModel
from paracomp.models.recurrent import _unrolled
from paracomp.models.registry import COMPOSERS
from paracomp.run_config import TrainConfig
from paracomp.train import seeds
from paracomp.train.pairs.build import build_model

OTHER_WIDTHS = {"wlo", "lstm_avg", "lstm_gaussian"}  # tests/test_models_gaussian.py
NAMES = [name for name in COMPOSERS if name not in OTHER_WIDTHS]
W2017 = ["lstm", "lstmavg", "bilstmavg", "gran", "gran2", "gran3", "gran4", "gran5"]
W2017 += ["gran5_mean", "bigran"]
LEARNED = ["sum_proj", "rnn", "gru", "bigru", "cnn3", "cnn3579", "tree_rnn", *W2017]
DIM = 12  # every width of cnn3579 gets filters (6/3/2/1), bigru halves 6+6


def _batch(segments: list[list[int]], rows: torch.Tensor) -> SegmentBatch:
    """Segments given as lists of row indices."""
    lengths = torch.tensor([len(s) for s in segments])
    offsets = torch.cat([torch.zeros(1, dtype=torch.long), lengths.cumsum(0)[:-1]])
    ids = torch.tensor([i for s in segments for i in s], dtype=torch.long)
    return SegmentBatch(rows, ids, offsets)


def _composer(name: str, dim: int = DIM, seed: int = 0):
    """The composer with all parameters (biases included) redrawn at a visible scale, so that a
    pad processed as a token, or a window of pads pooled, changes the output."""
    composer = COMPOSERS[name](dim, torch.Generator().manual_seed(seed))
    generator = torch.Generator().manual_seed(seed + 1)
    with torch.no_grad():
        for param in composer.parameters():
            param.copy_(torch.randn(param.shape, generator=generator) * 0.5)
    return composer


def _rows(n: int = 8, dim: int = DIM, seed: int = 2) -> torch.Tensor:
    return torch.randn(n, dim, generator=torch.Generator().manual_seed(seed))


SEGMENTS = [[0, 1, 2], [3], [4, 0, 4, 1], [2, 3]]


def test_registry_names():
    assert set(COMPOSERS) == {
        "sum",
        "mean",
        "product",
        "max",
        "max_pad",
        "sum_proj",
        "rnn",
        "gru",
        "bigru",
        "cnn3",
        "cnn3579",
        *OTHER_WIDTHS,
        "tree_rnn",
        *W2017,  # tests/test_models_w2017.py
    }


@pytest.mark.parametrize("name", NAMES)
def test_shape_and_word_width(name):
    composer = _composer(name)
    assert composer.word_width == DIM
    assert composer(_batch(SEGMENTS, _rows())).shape == (len(SEGMENTS), DIM)


@pytest.mark.parametrize("name", NAMES)
def test_output_does_not_depend_on_the_rest_of_the_batch(name):
    composer, rows = _composer(name), _rows()
    alone = torch.cat([composer(_batch([s], rows)) for s in SEGMENTS])
    together = composer(_batch(SEGMENTS, rows))
    long = [i % 8 for i in range(40)]
    with_long = composer(_batch([long, *SEGMENTS[:2], long, *SEGMENTS[2:]], rows))
    torch.testing.assert_close(together, alone)
    torch.testing.assert_close(with_long[[1, 2, 4, 5]], alone)


@pytest.mark.parametrize("name", NAMES)
def test_gradient_reaches_only_the_rows_used(name):
    composer = _composer(name)
    rows = _rows().requires_grad_()
    out = composer(_batch([[0, 2], [5], [2, 0, 5]], rows))
    (out * torch.randn(out.shape, generator=torch.Generator().manual_seed(3))).sum().backward()
    unused = [1, 3, 4, 6, 7]
    assert torch.all(rows.grad[unused] == 0)
    assert rows.grad[[0, 2, 5]].abs().sum() > 0


def _empty_value(name: str, composer) -> torch.Tensor:
    if name == "product":
        return torch.ones(DIM)
    if name == "sum_proj":  # the projection of the empty (zero) sum
        return torch.tanh(composer.proj.bias.detach())
    return torch.zeros(DIM)


@pytest.mark.parametrize("name", NAMES)
def test_empty_segments(name):
    composer, rows = _composer(name), _rows().requires_grad_()
    out = composer(_batch([[], [0, 1], [], [2], []], rows))
    empty = _empty_value(name, composer)
    for i in (0, 2, 4):
        torch.testing.assert_close(out[i].detach(), empty)
    torch.testing.assert_close(out[[1, 3]], composer(_batch([[0, 1], [2]], rows)))
    out.sum().backward()
    assert torch.isfinite(rows.grad).all()
    all_empty = composer(_batch([[], []], rows))
    torch.testing.assert_close(all_empty.detach(), torch.stack([empty, empty]))


def test_spaced_helper():
    rows = torch.arange(12.0).view(6, 2)
    spaced = _batch([[1, 2], [], [4]], rows).spaced(2)
    assert spaced[:, 0].tolist() == [0, 0, 2, 4, 0, 0, 0, 0, 8, 0, 0]
    assert spaced[:, 1].tolist() == [0, 0, 3, 5, 0, 0, 0, 0, 9, 0, 0]
    zero = [0.0, 0.0]
    assert _batch([[], []], rows).spaced(1).tolist() == [zero] * 3


def test_packed_helper():
    rows = torch.arange(12.0).view(6, 2)
    batch = _batch([[1], [2, 3, 4], [], [5, 0]], rows)
    data, batch_sizes, places = batch.packed()
    # sorted by length: [2,3,4] [5,0] [1] []; steps: (2,5,1) (3,0) (4)
    assert batch_sizes.tolist() == [3, 2, 1] and batch_sizes.device.type == "cpu"
    assert places.tolist() == [2, 0, 3, 1]
    assert data[:, 0].tolist() == [4, 10, 2, 6, 0, 8]
    data, _, _ = batch.packed(reverse=True)  # (4,0,1) (3,5) (2)
    assert data[:, 0].tolist() == [8, 0, 2, 6, 10, 4]
    data, batch_sizes, places = _batch([[], []], rows).packed()
    assert data.shape == (0, 2) and batch_sizes.numel() == 0 and places.tolist() == [0, 1]


# hand-computed values on 2-d rows: a=(1,-2) b=(3,-1) c=(-4,-0.5)
HAND_ROWS = torch.tensor([[1.0, -2.0], [3.0, -1.0], [-4.0, -0.5]])
HAND = [[0, 1, 2], [2], [0, 1]]


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("sum", [[0.0, -3.5], [-4.0, -0.5], [4.0, -3.0]]),
        ("mean", [[0.0, -3.5 / 3], [-4.0, -0.5], [2.0, -1.5]]),
        ("product", [[-12.0, -1.0], [-4.0, -0.5], [3.0, 2.0]]),
        ("max", [[3.0, -0.5], [-4.0, -0.5], [3.0, -1.0]]),
        ("max_pad", [[3.0, 0.0], [0.0, 0.0], [3.0, 0.0]]),
    ],
)
def test_algebraic_values_by_hand(name, expected):
    out = COMPOSERS[name](2)(_batch(HAND, HAND_ROWS))
    torch.testing.assert_close(out, torch.tensor(expected))


def test_max_pad_keeps_negative_maxima_of_segments_filling_the_padding():
    out = MaxComposer(2, pad_to=3)(_batch(HAND, HAND_ROWS))
    torch.testing.assert_close(out, torch.tensor([[3.0, -0.5], [0.0, 0.0], [3.0, 0.0]]))


@pytest.mark.parametrize("name", ["max", "max_pad"])
def test_max_of_one_word_is_the_word_negative_entries_included(name):
    # a target word is never padded: c = (-4, -0.5) stays itself, in both max composers
    composer = COMPOSERS[name](2)
    torch.testing.assert_close(composer.words(HAND_ROWS), HAND_ROWS)
    if name == "max":  # so is a one-token segment under the paper's max
        torch.testing.assert_close(composer(_batch([[2]], HAND_ROWS))[0], HAND_ROWS[2])


@pytest.mark.parametrize("name", ["max", "max_pad"])
def test_max_of_a_ragged_batch_is_the_max_of_each_segments_own_rows(name):
    # no pad and no other segment enters a max; max_pad adds only the authors' zero floor of
    # segments shorter than their 32 padded positions
    rows = _rows()
    segments = [[0, 1, 2], [3], [4, 0, 4, 1], [2, 3], [5, 6, 7, 5] * 8]  # the last: 32 tokens
    out = COMPOSERS[name](DIM)(_batch(segments, rows))
    for i, segment in enumerate(segments):
        own = rows[segment].amax(0)
        if name == "max_pad" and len(segment) < 32:
            own = own.clamp_min(0.0)
        torch.testing.assert_close(out[i], own)
    assert (out[4] < 0).any()  # a full segment keeps its negative maxima


def test_sum_proj_by_hand():
    composer = COMPOSERS["sum_proj"](2)
    with torch.no_grad():
        composer.proj.weight.copy_(torch.tensor([[0.5, 0.0], [1.0, -1.0]]))
        composer.proj.bias.copy_(torch.tensor([0.25, -0.5]))
    out = composer(_batch(HAND, HAND_ROWS))
    # sums (0,-3.5) (-4,-0.5) (4,-3) -> W·s + b
    pre = torch.tensor([[0.25, 3.0], [-1.75, -4.0], [2.25, 6.5]])
    torch.testing.assert_close(out, torch.tanh(pre))


def _step_rnn(rnn, tokens: torch.Tensor) -> torch.Tensor:
    """Eq. 4 stepped by hand: h = tanh(W_ih x + b_ih + W_hh h + b_hh)."""
    h = torch.zeros(rnn.hidden_size)
    for x in tokens:
        h = torch.tanh(
            rnn.weight_ih_l0 @ x + rnn.bias_ih_l0 + rnn.weight_hh_l0 @ h + rnn.bias_hh_l0
        )
    return h


def _step_gru(gru, tokens: torch.Tensor) -> torch.Tensor:
    """``nn.GRUCell`` with ``gru``'s weights stepped over ``tokens``."""
    cell = torch.nn.GRUCell(gru.input_size, gru.hidden_size)
    with torch.no_grad():
        for name in ("weight_ih", "weight_hh", "bias_ih", "bias_hh"):
            getattr(cell, name).copy_(getattr(gru, f"{name}_l0"))
    h = torch.zeros(1, gru.hidden_size)
    for x in tokens:
        h = cell(x.unsqueeze(0), h)
    return h[0]


@pytest.mark.parametrize("name", ["rnn", "gru"])
def test_unrolled_cpu_path_equals_the_packed_module(name):
    composer, rows = _composer(name), _rows().requires_grad_()
    data, batch_sizes, _ = _batch(SEGMENTS, rows).packed()
    unrolled = _unrolled(composer.rnn, data, batch_sizes)
    module = composer.rnn(PackedSequence(data, batch_sizes))[1][0]
    torch.testing.assert_close(unrolled, module)
    weights = torch.randn(unrolled.shape, generator=torch.Generator().manual_seed(4))
    grads = [
        torch.autograd.grad(
            (out * weights).sum(), [rows, *composer.parameters()], retain_graph=True
        )
        for out in (unrolled, module)
    ]
    for a, b in zip(*grads):
        torch.testing.assert_close(a, b)


@pytest.mark.parametrize("name", ["rnn", "gru"])
def test_recurrent_final_state_by_stepping(name):
    composer, rows = _composer(name), _rows()
    out = composer(_batch(SEGMENTS, rows))
    step = _step_rnn if name == "rnn" else _step_gru
    with torch.no_grad():
        for i, segment in enumerate(SEGMENTS):
            torch.testing.assert_close(out[i], step(composer.rnn, rows[segment]))


def test_bigru_halves_by_stepping():
    dim = 7
    composer, rows = _composer("bigru", dim), _rows(dim=dim)
    out = composer(_batch(SEGMENTS, rows))
    assert composer.forward_gru.hidden_size == 3 and composer.backward_gru.hidden_size == 4
    with torch.no_grad():
        for i, segment in enumerate(SEGMENTS):
            tokens = rows[segment]
            torch.testing.assert_close(out[i, :3], _step_gru(composer.forward_gru, tokens))
            torch.testing.assert_close(out[i, 3:], _step_gru(composer.backward_gru, tokens.flip(0)))


@pytest.mark.parametrize("name", ["cnn3", "cnn3579"])
def test_cnn_equals_wide_convolution_of_the_unpadded_segment(name):
    composer, rows = _composer(name), _rows()
    out = composer(_batch(SEGMENTS, rows))
    widths = [conv.kernel_size[0] for conv in composer.convs]
    assert widths == ([3] if name == "cnn3" else [3, 5, 7, 9])
    with torch.no_grad():
        for i, segment in enumerate(SEGMENTS):
            x = rows[segment].T.unsqueeze(0)  # (1, dim, length)
            pooled = [
                F.conv1d(x, conv.weight, conv.bias, padding=conv.kernel_size[0] - 1)
                .relu()
                .amax(2)[0]
                for conv in composer.convs
            ]
            torch.testing.assert_close(out[i], torch.cat(pooled))


@pytest.mark.parametrize("name", ["cnn3", "cnn3579"])
def test_cnn_gradients_equal_those_of_the_wide_convolution(name):
    """The composer's convolution (token products, then shifted sums with a hand-written
    backward) gives torch's ``conv1d`` gradients, weights, biases and word rows alike."""
    composer, rows = _composer(name).double(), _rows().double().requires_grad_()
    weights = torch.randn(len(SEGMENTS), DIM, generator=torch.Generator().manual_seed(5))
    (composer(_batch(SEGMENTS, rows)) * weights.double()).sum().backward()
    ours = [rows.grad, *(p.grad for p in composer.parameters())]
    composer.zero_grad()
    rows.grad = None
    outs = []
    for segment in SEGMENTS:
        x = rows[segment].T.unsqueeze(0)
        outs.append(
            torch.cat(
                [
                    F.conv1d(x, conv.weight, conv.bias, padding=conv.kernel_size[0] - 1)
                    .relu()
                    .amax(2)[0]
                    for conv in composer.convs
                ]
            )
        )
    (torch.stack(outs) * weights.double()).sum().backward()
    theirs = [rows.grad, *(p.grad for p in composer.parameters())]
    for a, b in zip(ours, theirs, strict=True):
        torch.testing.assert_close(a, b)


def test_filter_counts():
    shares = {3: 150, 5: 75, 7: 50, 9: 25}
    assert filter_counts(300, shares) == {3: 150, 5: 75, 7: 50, 9: 25}
    assert filter_counts(50, shares) == {3: 25, 5: 13, 7: 8, 9: 4}
    assert filter_counts(128, shares) == {3: 64, 5: 32, 7: 21, 9: 11}
    for dim in range(1, 400):
        assert sum(filter_counts(dim, shares).values()) == dim
    assert [c.out_channels for c in COMPOSERS["cnn3579"](50).convs] == [25, 13, 8, 4]
    assert COMPOSERS["cnn3"](50).convs[0].out_channels == 50
    with pytest.raises(ValueError, match="no filters"):
        COMPOSERS["cnn3579"](5)


@pytest.mark.parametrize("name", LEARNED)
def test_initialisation_is_seeded_and_leaves_the_global_generator_alone(name):
    state = torch.get_rng_state()
    a = COMPOSERS[name](DIM, torch.Generator().manual_seed(5)).state_dict()
    b = COMPOSERS[name](DIM, torch.Generator().manual_seed(5)).state_dict()
    c = COMPOSERS[name](DIM, torch.Generator().manual_seed(6)).state_dict()
    assert torch.equal(torch.get_rng_state(), state)
    assert all(torch.equal(a[k], b[k]) for k in a)
    assert any(not torch.equal(a[k], c[k]) for k in a)


@pytest.mark.parametrize("name", ["rnn", "gru", "bigru"])
def test_recurrent_initialisation(name):
    composer = COMPOSERS[name](300, torch.Generator().manual_seed(0))
    for rnn in composer.children():
        h = rnn.hidden_size
        assert rnn.weight_ih_l0.std().item() == pytest.approx(0.01, rel=0.05)
        for gate in rnn.weight_hh_l0.detach().split(h):
            torch.testing.assert_close(gate @ gate.T, 1e-4 * torch.eye(h), atol=1e-9, rtol=0)
        assert not rnn.bias_ih_l0.any() and not rnn.bias_hh_l0.any()


def test_projection_and_convolution_initialisation():
    proj = COMPOSERS["sum_proj"](300, torch.Generator().manual_seed(0)).proj
    assert proj.weight.std().item() == pytest.approx(0.01, rel=0.05)
    assert not proj.bias.any()
    for conv in COMPOSERS["cnn3579"](300, torch.Generator().manual_seed(0)).convs:
        assert conv.weight.std().item() == pytest.approx(0.1, rel=0.1)
        assert not conv.bias.any()


@pytest.mark.parametrize("name", ["sum", "mean"])
def test_build_model_keeps_the_word_rows_of_parameterless_composers(name):
    config = TrainConfig(composer=name, dim=4)
    before = PairModel(
        COMPOSERS[name](4),
        10,
        config.init_scale,
        torch.Generator().manual_seed(seeds.stream(config.seed, seeds.INIT)),
    )
    assert torch.equal(build_model(config, 10).weight, before.weight)


def test_build_model_seeds_the_composer():
    config = TrainConfig(composer="gru", dim=4)
    a, b = build_model(config, 10), build_model(config, 10)
    other = build_model(TrainConfig(composer="gru", dim=4, seed=2), 10)
    assert all(torch.equal(x, y) for x, y in zip(a.state_dict().values(), b.state_dict().values()))
    assert not torch.equal(a.composer.rnn.weight_ih_l0, other.composer.rnn.weight_ih_l0)


@pytest.mark.parametrize("name", NAMES)
def test_bfloat16_autocast(name):
    composer, rows = _composer(name), _rows().requires_grad_()
    with torch.autocast("cpu", torch.bfloat16):
        out = composer(_batch(SEGMENTS, rows))
    out.float().sum().backward()
    assert torch.isfinite(rows.grad).all()
    assert math.isfinite(out.float().sum().item())


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
@pytest.mark.parametrize("name", NAMES)
def test_cuda_matches_cpu(name):
    """On CUDA the recurrent composers run cuDNN instead of the unrolled CPU cells."""
    composer, rows = _composer(name), _rows()
    segments = [[], *SEGMENTS, [i % 8 for i in range(40)]]
    outputs, grads = [], []
    for device in ("cpu", "cuda"):
        on_device = rows.detach().to(device).requires_grad_()  # a leaf on either device
        batch = _batch(segments, on_device)
        batch = SegmentBatch(on_device, batch.ids.to(device), batch.offsets.to(device))
        with torch.backends.cudnn.flags(enabled=True, allow_tf32=False):
            out = composer.to(device)(batch)
            out.pow(2).sum().backward()
        outputs.append(out.detach().cpu())
        grads.append(on_device.grad.cpu())
    torch.testing.assert_close(outputs[1], outputs[0], atol=1e-4, rtol=1e-4)
    torch.testing.assert_close(grads[1], grads[0], atol=1e-4, rtol=1e-4)
