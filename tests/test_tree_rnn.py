"""The tree RNN (Wieting et al. 2015, Eq. 1): hand-computed forward, gradients, batching."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from paracomp.models.base import SegmentBatch, StaticLayout
from paracomp.models.tree_rnn import TreeBatch, TreeRNNComposer, Trees, branching_trees
from paracomp.models.trees import from_dependencies, left_branching, right_branching

DIM = 3


def _composer(seed: int = 0, dtype: torch.dtype = torch.float64, **kwargs) -> TreeRNNComposer:
    composer = TreeRNNComposer(DIM, torch.Generator().manual_seed(seed), **kwargs).to(dtype)
    with torch.no_grad():  # move away from ½[I I] so that the two children differ in weight
        composer.weight.add_(torch.randn(DIM, 2 * DIM, generator=torch.Generator().manual_seed(9)))
        composer.bias.copy_(torch.tensor([0.1, -0.2, 0.3]))
    return composer


def _batch(rows: torch.Tensor, segments: list[list[int]], trees: list[np.ndarray]) -> TreeBatch:
    ids = torch.tensor([i for s in segments for i in s], dtype=torch.long)
    offsets = torch.tensor(np.cumsum([0] + [len(s) for s in segments[:-1]]), dtype=torch.long)
    built = Trees.build(trees, [len(s) for s in segments])
    merges, heights = built.take(torch.arange(len(segments)))
    return TreeBatch(rows, ids, offsets, merges, heights)


def test_three_words_by_hand() -> None:
    composer = _composer()
    rows = torch.tensor([[0.5, -1.0, 2.0], [1.5, 0.2, -0.3], [-0.7, 0.4, 0.9]], dtype=torch.float64)
    w, b = composer.weight.detach().numpy(), composer.bias.detach().numpy()
    x = rows.numpy()

    def node(left: np.ndarray, right: np.ndarray) -> np.ndarray:
        return np.tanh(w[:, :DIM] @ left + w[:, DIM:] @ right + b)

    left_tree = np.array([[0, 1], [3, 2]])  # ((w0 w1) w2)
    right_tree = right_branching(3)  # (w0 (w1 w2))
    batch = _batch(rows, [[0, 1, 2], [0, 1, 2]], [left_tree, right_tree])
    out = composer(batch).detach().numpy()
    np.testing.assert_allclose(out[0], node(node(x[0], x[1]), x[2]), rtol=1e-12)
    np.testing.assert_allclose(out[1], node(x[0], node(x[1], x[2])), rtol=1e-12)


def test_leaves_bigrams_and_empty_segments() -> None:
    composer = _composer()
    rows = torch.randn(4, DIM, generator=torch.Generator().manual_seed(1), dtype=torch.float64)
    batch = _batch(rows, [[2], [], [0, 3]], [right_branching(1), right_branching(0), [[0, 1]]])
    out = composer(batch)
    assert torch.equal(out[0], rows[2])  # a one-word phrase is its word vector, no tanh
    assert torch.equal(out[1], torch.zeros(DIM, dtype=torch.float64))
    expected = torch.tanh(composer.weight @ torch.cat([rows[0], rows[3]]) + composer.bias)
    torch.testing.assert_close(out[2], expected)


def _random_segments(n: int, seed: int) -> tuple[list[list[int]], list[np.ndarray]]:
    rng = np.random.default_rng(seed)
    segments, trees = [], []
    for i in range(n):
        length = int(rng.integers(0, 8))
        segments.append(rng.integers(0, 10, length).tolist())
        kind = i % 3
        if kind == 0:
            trees.append(right_branching(length))
        elif kind == 1:
            trees.append(left_branching(length))
        else:  # a random projective-or-not parse: each token's head drawn among the others
            heads = [-1] + [int(rng.integers(0, j)) for j in range(1, length)]
            order = rng.permutation(length)
            relabel = {int(old): new for new, old in enumerate(order)}
            permuted = [-1] * length
            for j, h in enumerate(heads):
                permuted[relabel[j]] = -1 if h < 0 else relabel[h]
            trees.append(from_dependencies(permuted))
    return segments, trees


def test_batch_equals_one_by_one() -> None:
    composer = _composer()
    rows = torch.randn(10, DIM, generator=torch.Generator().manual_seed(2), dtype=torch.float64)
    segments, trees = _random_segments(24, seed=3)
    together = composer(_batch(rows, segments, trees))
    for i, (segment, tree) in enumerate(zip(segments, trees, strict=True)):
        alone = composer(_batch(rows, [segment], [tree]))
        torch.testing.assert_close(together[i], alone[0], rtol=1e-12, atol=1e-12)


def test_gradients_match_finite_differences() -> None:
    composer = _composer()
    rows = torch.randn(10, DIM, generator=torch.Generator().manual_seed(4), dtype=torch.float64)
    segments, trees = _random_segments(9, seed=5)
    batch = _batch(rows, segments, trees)

    def compose(r: torch.Tensor, w: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        trees = TreeBatch(r, batch.ids, batch.offsets, batch.merges, batch.heights)
        return torch.func.functional_call(composer, {"weight": w, "bias": b}, (trees,))

    inputs = (
        rows.clone().requires_grad_(),
        composer.weight.detach().clone().requires_grad_(),
        composer.bias.detach().clone().requires_grad_(),
    )
    assert torch.autograd.gradcheck(compose, inputs)


def test_plain_segment_batch_needs_a_branching() -> None:
    rows = torch.randn(5, DIM, generator=torch.Generator().manual_seed(6), dtype=torch.float64)
    plain = SegmentBatch(rows, torch.tensor([0, 1, 2, 3, 4, 1]), torch.tensor([0, 4, 5]))
    with pytest.raises(TypeError, match="TreeBatch"):
        _composer()(plain)
    right = _composer(branching="right")(plain)
    trees = [right_branching(4), right_branching(1), right_branching(1)]
    explicit = _composer()(_batch(rows, [[0, 1, 2, 3], [4], [1]], trees))
    torch.testing.assert_close(right, explicit)
    merges, heights = branching_trees(torch.tensor([4, 0, 3]), "left")
    assert merges.tolist() == [[0, 1], [4, 2], [5, 3], [0, 1], [3, 2]]
    assert heights.tolist() == [1, 2, 3, 1, 2]


def test_init() -> None:
    average = TreeRNNComposer(25, torch.Generator().manual_seed(0))
    eye = torch.eye(25) / 2
    deviation = average.weight.detach() - torch.cat([eye, eye], dim=1)
    assert 0 < deviation.abs().max() <= 0.01 and torch.equal(average.bias, torch.zeros(25))
    again = TreeRNNComposer(25, torch.Generator().manual_seed(0))
    assert torch.equal(average.weight, again.weight)  # drawn from the generator only
    summed = TreeRNNComposer(25, torch.Generator().manual_seed(0), init="sum")
    torch.testing.assert_close(summed.weight - average.weight, torch.eye(25).repeat(1, 2) / 2)
    uniform = TreeRNNComposer(25, torch.Generator().manual_seed(0), init="uniform")
    bound = (6 / 76) ** 0.5
    assert uniform.weight.abs().max() <= bound and uniform.weight.abs().max() > 0.9 * bound
    with pytest.raises(ValueError, match="init"):
        TreeRNNComposer(25, init="identity")


def test_trees_take() -> None:
    trees = Trees.build([right_branching(3), right_branching(1), left_branching(4)], [3, 1, 4])
    assert trees.offsets.tolist() == [0, 2, 2, 5]
    merges, heights = trees.take(torch.tensor([2, 0]))
    assert merges.tolist() == [[0, 1], [4, 2], [5, 3], [1, 2], [0, 3]]
    assert heights.tolist() == [1, 2, 3, 1, 2]
    with pytest.raises(ValueError, match="merges"):
        Trees.build([right_branching(3)], [4])


@pytest.mark.parametrize("side", ["right", "left"])
def test_static_layout_composes_as_the_levels(side: str) -> None:
    """Over a StaticLayout batch the RNN steps along the grid: the same vectors and gradients
    as the merges by level, for either branching, empty and one-token segments included."""
    composer = TreeRNNComposer(4, torch.Generator().manual_seed(0), "uniform", branching=side)
    composer = composer.double()
    lengths = torch.tensor([3, 0, 1, 5, 2])
    width = 6
    grid = torch.randn(5, width, 4, generator=torch.Generator().manual_seed(1), dtype=torch.float64)
    mask = torch.arange(width) < lengths.unsqueeze(1)
    rows = grid[mask].clone().requires_grad_()
    plain = composer(SegmentBatch(rows, torch.arange(rows.shape[0]), lengths.cumsum(0) - lengths))
    layout = StaticLayout.build(lengths, width)
    static_rows = grid.reshape(-1, 4)[layout.order].clone().requires_grad_()
    static = composer(layout.batch(static_rows))[:-1]
    torch.testing.assert_close(static, plain)
    weights = torch.randn_like(plain)
    (plain * weights).sum().backward()
    (static * weights).sum().backward()
    torch.testing.assert_close(static_rows.grad[: rows.shape[0]], rows.grad)
