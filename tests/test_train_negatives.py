"""Negative samplers: MAX, MIX and random picks on vectors written for the purpose."""

import torch

from paracomp.losses.negatives import Layout, MaxSampler, MixSampler, RandomSampler
from paracomp.losses.scores import SCORES

COS = SCORES["cosine"]


def _gen(seed=0):
    return torch.Generator().manual_seed(seed)


def _brute_max(vectors, batch, score, cross):
    """Most similar row per anchor, excluding itself and its partner (and its own side)."""
    picks = []
    for i in range(2 * batch):
        partner = (i + batch) % (2 * batch)
        rows = [j for j in range(2 * batch) if j not in (i, partner)]
        if cross:
            rows = [j for j in rows if (j < batch) != (i < batch)]
        sims = [score.paired(vectors[i], vectors[j]).item() for j in rows]
        picks.append(rows[max(range(len(rows)), key=sims.__getitem__)])
    return picks


def test_max_picks_most_similar_non_partner():
    # rows 0-2 side 1, rows 3-5 side 2; row 0's partner (row 3) is its exact copy and row 1
    # is its near-copy: MAX must skip the partner and pick row 1
    vectors = torch.tensor(
        [[1.0, 0.0], [0.9, 0.1], [0.0, 1.0], [1.0, 0.0], [-1.0, 0.2], [0.1, 1.0]]
    )
    got = MaxSampler(_gen(), cross=False).sample(vectors, Layout(3), COS)[:, 0].tolist()
    assert got[0] == 1
    assert got == _brute_max(vectors, 3, COS, cross=False)
    for score in SCORES.values():
        picks = MaxSampler(_gen(), cross=False).sample(vectors, Layout(3), score)[:, 0]
        assert picks.tolist() == _brute_max(vectors, 3, score, cross=False)


def test_max_never_self_or_partner_and_stays_on_other_side_when_bilingual():
    vectors = torch.randn(40, 8, generator=_gen(1))
    vectors[20:] = vectors[:20] + 0.01  # each partner is the nearest segment of all
    rows = torch.arange(40)
    for cross in (False, True):
        picks = MaxSampler(_gen(), cross).sample(vectors, Layout(20), COS)[:, 0]
        assert not (picks == rows).any() and not (picks == (rows + 20) % 40).any()
        assert picks.tolist() == _brute_max(vectors, 20, COS, cross)
        if cross:
            assert ((picks < 20) != (rows < 20)).all()


def test_mix_is_half_max_half_random_and_reproducible():
    vectors = torch.randn(400, 16, generator=_gen(2))
    layout, rows = Layout(200), torch.arange(400)
    best = MaxSampler(_gen(), cross=False).sample(vectors, layout, COS)[:, 0]
    mix = MixSampler(_gen(7), cross=False)
    picks = mix.sample(vectors, layout, COS)[:, 0]
    share = (picks == best).float().mean().item()
    # half by MAX, the other half random among 398 candidates (which rarely hit MAX's pick)
    assert 0.4 < share < 0.6
    assert not (picks == rows).any() and not (picks == (rows + 200) % 400).any()
    assert torch.equal(picks, MixSampler(_gen(7), cross=False).sample(vectors, layout, COS)[:, 0])
    # the state after a draw reproduces the next draw
    state = mix.state_dict()
    after = mix.sample(vectors, layout, COS)
    mix.load_state_dict(state)
    assert torch.equal(mix.sample(vectors, layout, COS), after)
    assert not torch.equal(after[:, 0], picks)


def test_mix_cross_random_picks_stay_on_other_side():
    vectors = torch.randn(100, 4, generator=_gen(3))
    picks = MixSampler(_gen(), cross=True).sample(vectors, Layout(50), COS)[:, 0]
    rows = torch.arange(100)
    assert ((picks < 50) != (rows < 50)).all() and not (picks == (rows + 50) % 100).any()


def test_random_batch_pool_picks_distinct_other_side_segments():
    sampler = RandomSampler(10, _gen(), pool="batch")
    pairs = torch.arange(30)
    assert [e.numel() for e in sampler.extra(pairs, 1000)] == [0, 0]
    picks = sampler.sample(torch.zeros(60, 2), Layout(30), COS)
    assert picks.shape == (60, 10)
    for i, row in enumerate(picks.tolist()):
        assert len(set(row)) == 10
        other = range(30, 60) if i < 30 else range(30)
        assert all(j in other and j % 30 != i % 30 for j in row)
    # a batch of 3 has only 2 other pairs
    assert RandomSampler(10, _gen(), "batch").sample(torch.zeros(6, 2), Layout(3), COS).shape == (
        6,
        2,
    )


def test_random_corpus_pool_draws_k_other_pairs_per_side():
    sampler = RandomSampler(4, _gen(), pool="corpus")
    pairs = torch.tensor([0, 5, 9])
    extra1, extra2 = sampler.extra(pairs, 10)
    assert extra1.numel() == extra2.numel() == 12
    for extra in (extra1, extra2):
        assert not (extra.view(3, 4) == pairs.unsqueeze(1)).any()
        assert ((extra >= 0) & (extra < 10)).all()
    picks = sampler.sample(torch.zeros(30, 2), Layout(3, 12, 12), COS)
    # the 12 extra side-2 rows come first (Layout): side 1 of pair i gets rows 6+4i…,
    # side 2 of pair i the extra side-1 rows 6+12+4i…
    assert picks[0].tolist() == [6, 7, 8, 9] and picks[3].tolist() == [18, 19, 20, 21]
    assert picks[5].tolist() == [26, 27, 28, 29]
