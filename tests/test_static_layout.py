"""The static layout of a batch (models.base.StaticLayout, Gridded): by hand, and for every
composer of models.STATIC_COMPOSERS the same vectors and gradients as the plain batch's and a
forward and backward that torch.compile traces whole (no host read, no shape that depends on the
data: what a CUDA graph needs), which a plain batch's does not."""

from __future__ import annotations

import pytest
import torch

from paracomp.models import STATIC_COMPOSERS
from paracomp.models.base import Gridded, SegmentBatch, StaticLayout, padded_tokens
from paracomp.models.registry import make_composer

STATIC = sorted(STATIC_COMPOSERS)
CLOSE = {"rtol": 1e-6, "atol": 1e-9}
LENGTHS = [3, 5, 1, 0, 2, 5, 4]


def test_layout_by_hand() -> None:
    layout = StaticLayout.build(torch.tensor([2, 0, 3]), 3)
    # grid positions 0..8; real tokens (0, 1), (6, 7, 8); pads 2, 3, 4, 5
    assert layout.order.tolist() == [0, 1, 6, 7, 8, 2, 3, 4, 5]
    assert layout.offsets.tolist() == [0, 2, 2, 5]  # the pad segment starts at 5
    assert layout.grid.tolist() == [[0, 1, 0], [0, 0, 0], [2, 3, 4], [0, 0, 0]]
    mask = [[True, True, False], [False] * 3, [True] * 3, [False] * 3]
    assert layout.mask.tolist() == mask
    ids = layout.ids(torch.tensor([[5, 6, 0], [0, 0, 0], [7, 8, 9]]))
    assert ids.tolist() == [5, 6, 7, 8, 9, 0, 0, 0, 0]


def _grid(lengths: list[int], width: int, dim: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Random word rows on a grid (pads random too: they must not count) and lengths."""
    generator = torch.Generator().manual_seed(1)
    rows = torch.randn(len(lengths), width, dim, generator=generator, dtype=torch.float64)
    return rows, torch.tensor(lengths)


def _composer(name: str, dim: int = 8):
    return make_composer(name, dim, torch.Generator().manual_seed(0)).double()


@pytest.mark.parametrize("name", STATIC)
def test_static_batch_composes_as_the_plain_batch(name: str) -> None:
    width, lengths = 5, LENGTHS
    composer = _composer(name)
    dim = composer.word_width
    grid, lengths_t = _grid(lengths, width, dim)
    mask = torch.arange(width) < lengths_t.unsqueeze(1)
    plain_rows = grid[mask].clone().requires_grad_()
    offsets = torch.cumsum(lengths_t, 0) - lengths_t
    local = torch.arange(plain_rows.shape[0])
    plain = composer(SegmentBatch(plain_rows, local, offsets))

    layout = StaticLayout.build(lengths_t, width)
    static_rows = grid.reshape(-1, dim).index_select(0, layout.order).clone().requires_grad_()
    static = composer(layout.batch(static_rows))
    assert static.shape == (len(lengths) + 1, composer.dim)
    torch.testing.assert_close(static[:-1], plain, **CLOSE)

    weights = torch.randn_like(plain)
    (plain * weights).sum().backward()
    (static[:-1] * weights).sum().backward()
    total = int(lengths_t.sum())
    torch.testing.assert_close(static_rows.grad[:total], plain_rows.grad, **CLOSE)
    assert not static_rows.grad[total:].any()  # pads get no gradient
    words = grid[:, 0]
    torch.testing.assert_close(composer.words(words, static=True), composer.words(words))


def test_reductions_skip_the_pads_by_hand() -> None:
    layout = StaticLayout.build(torch.tensor([2, 0, 3]), 3)
    rows = torch.tensor([[1.0], [2.0], [3.0], [4.0], [5.0], [9.0], [9.0], [9.0], [9.0]])
    batch = layout.batch(rows)
    assert batch.pads and len(batch) == 4
    assert batch.reduce(rows, "sum").view(-1).tolist() == [3.0, 0.0, 12.0, 0.0]
    assert batch.reduce(rows, "max").view(-1).tolist()[2:] == [5.0, 0.0]
    assert batch.mean(rows).view(-1).tolist() == [1.5, 0.0, 4.0, 0.0]
    plain = SegmentBatch(rows, torch.arange(9), layout.offsets)  # the pads a segment too
    assert plain.reduce(rows, "sum").view(-1).tolist() == [3.0, 0.0, 12.0, 36.0]


@pytest.mark.parametrize("name", STATIC)
def test_the_pads_are_never_read(name: str) -> None:
    """Pad rows of NaN leave every real segment's vector and gradient as they are: no
    composer walks the pads (on a GPU, one thread would walk them all)."""
    width, lengths = 5, LENGTHS
    composer = _composer(name)
    grid, lengths_t = _grid(lengths, width, composer.word_width)
    layout = StaticLayout.build(lengths_t, width)
    rows = grid.reshape(-1, composer.word_width).index_select(0, layout.order)
    total = int(lengths_t.sum())
    clean = composer(layout.batch(rows))[:-1]
    poisoned = rows.clone()
    poisoned[total:] = float("nan")
    poisoned.requires_grad_()
    static = composer(layout.batch(poisoned))[:-1]
    torch.testing.assert_close(static, clean, rtol=0, atol=0)
    static.sum().backward()
    assert poisoned.grad is not None and poisoned.grad[:total].isfinite().all()
    assert not poisoned.grad[total:].any()


@pytest.mark.parametrize("name", STATIC)
@pytest.mark.slow
def test_gridded_traces_whole(name: str) -> None:
    composer = _composer(name)
    grid, lengths = _grid(LENGTHS, 5, composer.word_width)
    mask = torch.arange(5) < lengths.unsqueeze(1)
    batch = SegmentBatch(grid[mask], torch.arange(int(lengths.sum())), lengths.cumsum(0) - lengths)
    tokens, lengths = padded_tokens(batch, 6)  # a width above the longest segment
    tokens.requires_grad_()
    gridded = Gridded(composer, 6)
    torch._dynamo.reset()
    traced = torch.compile(gridded, fullgraph=True, backend="aot_eager", dynamic=False)
    with torch._dynamo.config.patch(allow_rnn=True):  # nn.GRU/nn.LSTM hold weights or run whole
        out = traced(tokens, lengths)
    torch.testing.assert_close(out, composer(batch), **CLOSE)
    out.sum().backward()
    assert tokens.grad is not None and not tokens.grad[int(lengths.sum()) :].any()


def test_a_plain_batch_does_not_trace_whole() -> None:
    """The check above can fail: over a plain batch the GRU packs its segments by lengths
    read on the host."""
    composer = _composer("gru")
    grid, lengths = _grid(LENGTHS, 5, composer.word_width)
    mask = torch.arange(5) < lengths.unsqueeze(1)

    def plain(rows: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        return composer(
            SegmentBatch(rows, torch.arange(rows.shape[0]), lengths.cumsum(0) - lengths)
        )

    torch._dynamo.reset()
    traced = torch.compile(plain, fullgraph=True, backend="aot_eager", dynamic=False)
    with torch._dynamo.config.patch(allow_rnn=True), pytest.raises(Exception, match="data-dep"):
        traced(grid[mask], lengths)
