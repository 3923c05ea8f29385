"""Input perturbations: scrambling shuffles both sides of drawn pairs at the given rate and
uniformly, word dropout zeroes whole token vectors and rescales the rest, dropout keeps the
expectation, everything reproducible from the generator."""

import math
from collections import Counter

import pytest
import torch

from paracomp.models.base import SegmentBatch
from paracomp.train.pairs.perturb import InputNoise, dropout, per_token, scramble, word_dropout


def generator(seed: int = 0) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


def segments_of(ids: torch.Tensor, offsets: torch.Tensor) -> list[list[int]]:
    bounds = [*offsets.tolist(), ids.numel()]
    return [ids[a:b].tolist() for a, b in zip(bounds, bounds[1:])]


def pair_batch(n_pairs: int, length: int) -> tuple[torch.Tensor, torch.Tensor]:
    """``2·n_pairs`` segments of ``length`` distinct ids each (ids unique in the batch)."""
    ids = torch.arange(2 * n_pairs * length)
    return ids, torch.arange(0, ids.numel(), length)


def test_scramble_shuffles_both_sides_of_drawn_pairs_at_the_rate():
    n_pairs, rate = 2000, 0.3
    ids, offsets = pair_batch(n_pairs, 8)  # an unchanged order after a shuffle: 1/8! per side
    before = segments_of(ids, offsets)
    after = segments_of(scramble(ids, offsets, rate, generator()), offsets)
    moved = [a != b for a, b in zip(before, after)]
    assert all(sorted(a) == b for a, b in zip(after, before))  # same tokens, same segment
    assert moved[:n_pairs] == moved[n_pairs:]  # both sides of a pair or neither
    sd = math.sqrt(rate * (1 - rate) / n_pairs)
    assert abs(sum(moved[:n_pairs]) / n_pairs - rate) < 4 * sd


def test_scramble_is_uniform_over_permutations_and_keeps_lengths():
    n_pairs = 3000  # every pair is ([7, 8, 9], [5, 6])
    ids = torch.tensor([7, 8, 9] * n_pairs + [5, 6] * n_pairs)
    offsets = torch.cat(
        [torch.arange(0, 3 * n_pairs, 3), torch.arange(3 * n_pairs, ids.numel(), 2)]
    )
    out = segments_of(scramble(ids, offsets, 1.0, generator()), offsets)
    assert all(sorted(s) == [7, 8, 9] for s in out[:n_pairs])
    assert all(sorted(s) == [5, 6] for s in out[n_pairs:])
    counts = Counter(tuple(s) for s in out[:n_pairs])
    assert len(counts) == 6
    assert all(abs(c - 500) < 4 * math.sqrt(500 * 5 / 6) for c in counts.values())
    assert torch.equal(scramble(ids, offsets, 0.0, generator()), ids)


def test_scramble_is_reproducible_from_the_generator_state():
    ids, offsets = pair_batch(50, 5)
    rng = generator(3)
    state = rng.get_state()
    first = scramble(ids, offsets, 0.5, rng)
    after_first = rng.get_state()
    rng.set_state(state)
    assert torch.equal(scramble(ids, offsets, 0.5, rng), first)
    assert torch.equal(rng.get_state(), after_first)
    assert not torch.equal(scramble(ids, offsets, 0.5, rng), first)
    with pytest.raises(ValueError, match="whole pairs"):
        scramble(ids, offsets[:-1], 0.5, rng)


def test_per_token_rows_and_gradient():
    rows = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    batch = SegmentBatch(rows, torch.tensor([0, 1, 0]), torch.tensor([0, 2]))
    tokens = per_token(batch)
    assert tokens.ids.tolist() == [0, 1, 2] and torch.equal(tokens.offsets, batch.offsets)
    assert torch.equal(tokens.tokens(), batch.tokens())
    tokens.rows.sum().backward()
    assert rows.grad.tolist() == [[2.0, 2.0], [1.0, 1.0]]  # row 0 occurs twice


def test_word_dropout_zeroes_whole_occurrences_and_rescales():
    rows = torch.tensor([[1.0, -2.0, 3.0]])
    n, rate = 4000, 0.25
    batch = SegmentBatch(rows, torch.zeros(n, dtype=torch.long), torch.tensor([0, n // 2]))
    out = word_dropout(batch, rate, generator())
    assert out.rows.shape == (n, 3) and torch.equal(out.lengths(), batch.lengths())
    zeroed = (out.rows == 0).all(1)
    kept = out.rows[~zeroed]
    assert torch.allclose(kept, rows / (1 - rate))  # every other occurrence: x / (1 − p)
    assert abs(float(zeroed.double().mean()) - rate) < 4 * math.sqrt(rate * (1 - rate) / n)


def test_dropout_is_elementwise_with_unchanged_expectation():
    rows = torch.tensor([[1.0, -2.0, 3.0]], dtype=torch.float64)
    n, rate = 20000, 0.4
    batch = SegmentBatch(rows, torch.zeros(n, dtype=torch.long), torch.tensor([0]))
    out = dropout(batch, rate, generator()).rows
    zero = out == 0
    assert torch.allclose(out[~zero], (rows / (1 - rate)).expand(n, 3)[~zero])
    assert 0 < int(zero.all(1).sum()) < int(zero.any(1).sum())  # not whole vectors
    sd = rows.abs() * math.sqrt(rate / (1 - rate) / n)  # of the mean of n scaled draws
    assert ((out.mean(0) - rows[0]).abs() < 4 * sd[0]).all()


def test_input_noise_switches_and_checks():
    ids, offsets = pair_batch(3, 4)
    batch = SegmentBatch(torch.ones(24, 2), ids, offsets)
    rng = generator()
    state = rng.get_state()
    quiet = InputNoise()
    assert quiet.dropped(batch, rng) is batch and quiet.scrambled(ids, offsets, rng) is ids
    assert torch.equal(rng.get_state(), state)  # nothing drawn when off
    rows = InputNoise(word_dropout=0.5).dropped(batch, rng).rows
    assert set(rows[:, 0].tolist()) <= {0.0, 2.0}
    with pytest.raises(ValueError, match="both"):
        InputNoise(dropout=0.2, word_dropout=0.2)
    with pytest.raises(ValueError, match="dropout"):
        InputNoise(dropout=1.0)
