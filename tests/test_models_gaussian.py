"""Chen & Gimpel's composers: WLO against its closed forms and recursion (order-dependent mean,
order-independent variance, extreme lengths), the prior's per-token distributions, LSTM AVG
and LSTM GAUSSIAN against the LSTM run on each segment alone, padding that never leaks, empty
segments, initialisation from the generator only, gradients against autograd."""

import math

import pytest
import torch

from paracomp.models.base import SegmentBatch
from paracomp.models.gaussian import (
    LSTMAvgComposer,
    LSTMGaussianComposer,
    LSTMStates,
    WLOComposer,
    padded,
    split,
)
from paracomp.models.registry import COMPOSERS


def _batch(segments: list[list[int]], rows: torch.Tensor) -> SegmentBatch:
    """Segments given as lists of row indices."""
    lengths = torch.tensor([len(s) for s in segments])
    offsets = torch.cat([torch.zeros(1, dtype=torch.long), lengths.cumsum(0)[:-1]])
    ids = torch.tensor([i for s in segments for i in s], dtype=torch.long)
    return SegmentBatch(rows, ids, offsets)


def _wlo_rows(scales: list[list[float]], shifts: list[list[float]]) -> torch.Tensor:
    """WLO word rows ``[log A | B]`` from the scales ``A`` and shifts ``B``."""
    return torch.cat([torch.tensor(scales).log(), torch.tensor(shifts)], dim=1).double()


# x: A = (2, 0.5), B = (1, 4); y: A = (3, 1), B = (-1, 2)
ROWS = _wlo_rows([[2.0, 0.5], [3.0, 1.0]], [[1.0, 4.0], [-1.0, 2.0]])
X, Y = 0, 1


def test_wlo_by_hand():
    out = WLOComposer(2)(_batch([[X, Y], [Y, X], [X]], ROWS))
    mean, log_var = split(out)
    # [x, y]: μ1 = A_x ⊙ B_x = (2, 2); μ2 = A_y ⊙ (μ1 + B_y) = (3·1, 1·4) = (3, 4)
    # [y, x]: μ1 = (−3, 2); μ2 = A_x ⊙ (μ1 + B_x) = (2·(−2), 0.5·6) = (−4, 3)
    torch.testing.assert_close(mean, torch.tensor([[3.0, 4.0], [-4.0, 3.0], [2.0, 2.0]]).double())
    # σ² = Π A² whatever the order: (36, 0.25), (36, 0.25), (4, 0.25)
    expected = torch.tensor([[36.0, 0.25], [36.0, 0.25], [4.0, 0.25]]).double().log()
    torch.testing.assert_close(log_var, expected)


def test_wlo_registry_widths():
    wlo = COMPOSERS["wlo"](50)
    assert (wlo.word_width, wlo.dim, wlo.gaussian_dim) == (100, 100, 50)
    gaussian = COMPOSERS["lstm_gaussian"](100, torch.Generator().manual_seed(0))
    assert (gaussian.word_width, gaussian.dim, gaussian.gaussian_dim) == (50, 200, 100)
    assert gaussian.average.states.lstm.hidden_size == 100
    average = COMPOSERS["lstm_avg"](100, torch.Generator().manual_seed(0))
    assert (average.word_width, average.dim) == (50, 100)
    rows = torch.randn(3, 50)
    assert gaussian(_batch([[0, 1], [2]], rows)).shape == (2, 200)
    assert average(_batch([[0, 1], [2]], rows)).shape == (2, 100)


def _recursion(rows: torch.Tensor, segment: list[int], k: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Eqs. 2–3 step by step in float64, variance as a product (no log space)."""
    mean, var = torch.zeros(k, dtype=torch.float64), torch.ones(k, dtype=torch.float64)
    for i in segment:
        scale, shift = rows[i, :k].double().exp(), rows[i, k:].double()
        mean, var = scale * (mean + shift), scale * var * scale
    return mean, var


def test_wlo_matches_recursion_on_random_sentences():
    k, generator = 5, torch.Generator().manual_seed(1)
    rows = torch.randn(7, 2 * k, generator=generator, dtype=torch.float64) * 0.3
    segments = [[0, 1, 2, 3], [6, 5], [4, 4, 4, 0, 1, 2, 6, 3]]
    mean, log_var = split(WLOComposer(k)(_batch(segments, rows)))
    for n, segment in enumerate(segments):
        want_mean, want_var = _recursion(rows, segment, k)
        torch.testing.assert_close(mean[n], want_mean)
        torch.testing.assert_close(log_var[n], want_var.log())


def test_wlo_long_sentences_stay_finite_in_float32():
    """500 operators of |A| = e^{-0.5}, 150 of |A| = e^{0.5}: σ² = e^{-500} and e^{150} are out
    of float32's range (as a product of the A² they round to 0 and inf), log σ² is not; the
    means (≈ 0.7·e^{-0.5}/(1 − e^{-0.5}) and ≈ 0.1·e^{75}/(1 − e^{-0.5})) match the recursion
    in float64."""
    k = 3
    shrink = torch.cat([torch.full((1, k), -0.5), torch.full((1, k), 0.7)], dim=1)
    grow = torch.cat([torch.full((1, k), 0.5), torch.full((1, k), 0.1)], dim=1)
    rows = torch.cat([shrink, grow])
    segments = [[0] * 500, [1] * 150]
    out = WLOComposer(k)(_batch(segments, rows))
    assert torch.isfinite(out).all()
    mean, log_var = split(out)
    torch.testing.assert_close(log_var, torch.tensor([[-500.0] * k, [150.0] * k]))
    for n, segment in enumerate(segments):
        want_mean, _ = _recursion(rows.double(), segment, k)
        torch.testing.assert_close(mean[n].double(), want_mean, rtol=1e-4, atol=1e-6)


def test_wlo_empty_segment_is_the_standard_normal():
    out = WLOComposer(2)(_batch([[X], []], ROWS))
    assert torch.equal(out[1], torch.zeros(4, dtype=torch.float64))


def test_wlo_operator_gaussians_by_hand():
    per_token = WLOComposer(2).operator_gaussians(_batch([[Y, X]], ROWS))
    # one-word sentences: N(A ⊙ B, A²) of y, then x
    want = torch.tensor(
        [[-3.0, 2.0, math.log(9.0), 0.0], [2.0, 2.0, math.log(4.0), math.log(0.25)]]
    )
    torch.testing.assert_close(per_token, want.double())


def test_wlo_running_gaussians():
    composer = WLOComposer(2)
    batch = _batch([[X, Y], [], [Y, X, X]], ROWS)
    running = composer.running_gaussians(batch)
    assert running.shape == (5, 4)
    # z after each operator of [x, y]: N((2, 2), (4, 0.25)), then the sentence's N((3, 4), …)
    want = torch.tensor([2.0, 2.0, math.log(4.0), math.log(0.25)]).double()
    torch.testing.assert_close(running[0], want)
    out = composer(batch)
    torch.testing.assert_close(running[1], out[0])  # last token of each segment: the sentence
    torch.testing.assert_close(running[4], out[2])
    prefix = composer(_batch([[Y, X]], ROWS))[0]
    torch.testing.assert_close(running[3], prefix)


def test_wlo_gradients_against_autograd():
    k, generator = 3, torch.Generator().manual_seed(4)
    rows = (torch.randn(5, 2 * k, generator=generator, dtype=torch.float64) * 0.4).requires_grad_()
    segments = [[0, 1, 2], [3], [4, 0, 4, 1], []]
    composer = WLOComposer(k)

    def compose(r: torch.Tensor) -> torch.Tensor:
        return composer(_batch(segments, r))

    def running(r: torch.Tensor) -> torch.Tensor:
        return composer.running_gaussians(_batch(segments, r))

    assert torch.autograd.gradcheck(compose, (rows,))
    assert torch.autograd.gradcheck(running, (rows,))


def test_padded_layout():
    rows = torch.arange(10.0).view(5, 2)
    grid, mask = padded(_batch([[1, 2], [], [4]], rows))
    assert mask.tolist() == [[True, True], [False, False], [True, False]]
    want = torch.tensor([[[2.0, 3.0], [4.0, 5.0]], [[0, 0], [0, 0]], [[8.0, 9.0], [0, 0]]])
    assert torch.equal(grid, want)


def _lstm_alone(composer: LSTMAvgComposer, rows: torch.Tensor, segment: list[int]) -> torch.Tensor:
    """The mean of ``nn.LSTM``'s outputs over the segment alone (no packing, no pads)."""
    if not segment:
        return torch.zeros(composer.dim)
    outputs, _ = composer.states.lstm(rows[segment].unsqueeze(0))
    return outputs[0].mean(0)


SEGMENTS = [[0, 1, 2], [3], [], [4, 0, 4, 1, 2, 3], [2, 3]]


def test_lstm_avg_matches_each_segment_alone():
    rows = torch.randn(5, 4, generator=torch.Generator().manual_seed(5))
    composer = LSTMAvgComposer(6, torch.Generator().manual_seed(0), word_width=4)
    out = composer(_batch(SEGMENTS, rows))
    for n, segment in enumerate(SEGMENTS):
        torch.testing.assert_close(out[n], _lstm_alone(composer, rows, segment))
    assert torch.equal(out[2], torch.zeros(6))  # empty segment


def test_lstm_states_on_cpu_are_nn_lstm_with_its_gradients():
    """The CPU path (one projection product, a step per position) against ``nn.LSTM`` run
    over each segment alone, values and every gradient, up to the order of float32 sums."""
    segments = [*SEGMENTS, [1, 1, 0, 3, 4, 2, 2, 0]]
    grads = []
    for reference in (False, True):
        rows = torch.randn(5, 4, generator=torch.Generator().manual_seed(5)).requires_grad_()
        states = LSTMStates(4, 6, torch.Generator().manual_seed(0))
        if reference:
            out = torch.cat([states.lstm(rows[s].unsqueeze(0))[0][0] for s in segments if s])
        else:
            out = states(_batch(segments, rows))
        weights = torch.randn(out.shape, generator=torch.Generator().manual_seed(1))
        (out * weights).sum().backward()
        grads.append([out, rows.grad, *(p.grad for p in states.parameters())])
    for ours, theirs in zip(*grads, strict=True):
        torch.testing.assert_close(ours, theirs, rtol=1e-5, atol=1e-6)


def test_lstm_gaussian_heads_on_the_average():
    rows = torch.randn(5, 4, generator=torch.Generator().manual_seed(6))
    composer = LSTMGaussianComposer(3, torch.Generator().manual_seed(0), word_width=4, hidden=6)
    mean, log_var = split(composer(_batch(SEGMENTS, rows)))
    for n, segment in enumerate(SEGMENTS):
        average = _lstm_alone(composer.average, rows, segment)
        torch.testing.assert_close(mean[n], composer.mean(average))
        torch.testing.assert_close(log_var[n], composer.log_var(average))
    assert not torch.allclose(mean, log_var)  # two separate maps


@pytest.mark.parametrize("name", ["lstm_avg", "lstm_gaussian"])
def test_lstm_output_independent_of_batch(name):
    rows = torch.randn(5, 50, generator=torch.Generator().manual_seed(7))
    composer = COMPOSERS[name](8, torch.Generator().manual_seed(0))
    together = composer(_batch(SEGMENTS, rows))
    for n, segment in enumerate(SEGMENTS):
        torch.testing.assert_close(together[n], composer(_batch([segment], rows))[0])


@pytest.mark.parametrize("name", ["lstm_avg", "lstm_gaussian"])
def test_init_from_generator_only(name):
    torch.manual_seed(0)
    state = torch.get_rng_state()
    first = COMPOSERS[name](8, torch.Generator().manual_seed(3))
    assert torch.equal(torch.get_rng_state(), state)  # the global generator is untouched
    again = COMPOSERS[name](8, torch.Generator().manual_seed(3))
    other = COMPOSERS[name](8, torch.Generator().manual_seed(4))
    for a, b, c in zip(first.parameters(), again.parameters(), other.parameters(), strict=True):
        assert torch.equal(a, b)
        assert not torch.equal(a, c)
    bound = 1.0 / math.sqrt(first.average.states.hidden if name == "lstm_gaussian" else 8)
    for param in first.parameters():
        assert param.abs().max() <= bound  # PyTorch's U(±1/√fan) everywhere


def test_lstm_gaussian_gradients_reach_rows_and_parameters():
    rows = torch.randn(5, 50, generator=torch.Generator().manual_seed(8), requires_grad=True)
    composer = COMPOSERS["lstm_gaussian"](4, torch.Generator().manual_seed(0))
    composer(_batch(SEGMENTS, rows)).square().sum().backward()
    assert rows.grad is not None and rows.grad.abs().sum() > 0
    for param in composer.parameters():
        assert param.grad is not None and param.grad.abs().sum() > 0
