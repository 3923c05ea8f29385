"""Mega-batch hardest negatives: never self nor partner, equal to a brute-force search (cosine
and the Gaussian log expected inner product, any block size), the mini-batch view of the
negatives, and a hand-made pool."""

import dataclasses

import pytest
import torch

from paracomp.losses.megabatch import EXACT_BLOCK, MegaBatchNegatives, mine
from paracomp.losses.scores import LOG_EIP, SCORES


def _brute_force(vectors: torch.Tensor, score) -> list[int]:
    """Anchor by anchor, candidate by candidate, with the row-wise score."""
    total = vectors.shape[0]
    best = []
    for i in range(total):
        candidates = [j for j in range(total) if j not in (i, (i + total // 2) % total)]
        sims = [float(score.paired(vectors[i], vectors[j])) for j in candidates]
        best.append(candidates[max(range(len(sims)), key=sims.__getitem__)])
    return best


@pytest.mark.parametrize("score", [SCORES["cosine"], LOG_EIP], ids=["cosine", "log_eip"])
@pytest.mark.parametrize("budget", [1, 100, 250, 1 << 22])  # blocks of 1, 3, 8, 30 rows
def test_mine_equals_brute_force(score, budget):
    vectors = torch.randn(2 * 15, 8, generator=torch.Generator().manual_seed(0))
    negatives = mine(vectors, score, budget=budget)
    assert negatives.rows.tolist() == _brute_force(vectors, score)


@pytest.mark.parametrize("score", [SCORES["cosine"], LOG_EIP], ids=["cosine", "log_eip"])
def test_never_self_nor_partner_even_when_closest(score):
    """Every pair's sides are identical (the best candidates but for the mask)."""
    side = torch.randn(6, 4, generator=torch.Generator().manual_seed(1))
    vectors = torch.cat([side, side])
    rows = mine(vectors, score).rows
    anchors = torch.arange(12)
    assert not (rows == anchors).any()
    assert not (rows == (anchors + 6) % 12).any()


@pytest.mark.parametrize("budget", [1, 10, 1 << 22])
def test_ties_go_to_the_lowest_row(budget):
    vectors = torch.ones(8, 4)  # every candidate ties
    rows = mine(vectors, LOG_EIP, budget=budget).rows.tolist()
    # the lowest row that is neither the anchor nor its partner (anchor ± 4)
    assert rows == [1, 0, 0, 0, 1, 0, 0, 0]


def test_hand_made_pool():
    # pairs (a1, a2), (b1, b2), (c1, c2); cosines worked out by hand:
    vectors = torch.tensor(
        [[1.0, 0.0], [0.0, 1.0], [-1.0, 0.1], [0.9, 0.1], [0.1, 1.0], [0.2, 1.0]]
    )  # rows: a1, b1, c1, a2, b2, c2
    rows = mine(vectors, SCORES["cosine"]).rows.tolist()
    # a1: b1 0, c1 -0.995, b2 0.0995, c2 0.196 → c2 (row 5)
    # b1: a1 0, c1 0.0995, a2 0.110, c2 0.981 → c2 (row 5)
    # c1: a1 -0.995, b1 0.0995, a2 -0.977, b2 0 → b1 (row 1)
    # a2: b1 0.110, c1 -0.977, b2 0.209, c2 0.303 → c2 (row 5)
    # b2: a1 0.0995, c1 0, a2 0.209, c2 0.995 → c2 (row 5)
    # c2: a1 0.196, b1 0.981, a2 0.303, b2 0.995 → b2 (row 4)
    assert rows == [5, 5, 1, 5, 5, 4]


def test_for_pairs_gives_a_mini_batch_in_anchor_order():
    # P = 4 pairs: rows 0–3 side 1, 4–7 side 2
    negatives = MegaBatchNegatives(torch.tensor([5, 6, 4, 1, 2, 3, 0, 0]))
    assert negatives.n_pairs == 4
    pairs, sides = negatives.for_pairs(2, 2)  # anchors: rows 2, 3 (side 1), 6, 7 (side 2)
    assert pairs.tolist() == [0, 1, 0, 0]
    assert sides.tolist() == [1, 0, 0, 0]


def test_mine_needs_two_pairs():
    with pytest.raises(ValueError, match="2 pairs"):
        mine(torch.randn(2, 3), SCORES["cosine"])
    with pytest.raises(ValueError, match="2 pairs"):
        mine(torch.randn(5, 3), SCORES["cosine"])


def test_mine_keeps_no_gradient():
    vectors = torch.randn(8, 4, requires_grad=True)
    assert not mine(vectors, LOG_EIP).rows.requires_grad


def test_gaussian_rows_of_odd_width_are_refused():
    with pytest.raises(ValueError, match="even width, not 3"):
        mine(torch.randn(8, 3), LOG_EIP)


def test_an_exact_score_mines_in_small_blocks_with_the_same_negatives():
    vectors = torch.randn(2 * 300, 16, generator=torch.Generator().manual_seed(2))
    one_block = dataclasses.replace(LOG_EIP, exact_pairwise=False)  # 600 anchors a block
    assert LOG_EIP.exact_pairwise and EXACT_BLOCK < 600  # capped: blocks of 256, 256, 88
    assert torch.equal(mine(vectors, LOG_EIP).rows, mine(vectors, one_block).rows)
