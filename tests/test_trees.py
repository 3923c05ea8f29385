"""Binary trees from dependency parses (hand-made parses, no parser needed)."""

from __future__ import annotations

import numpy as np
import pytest

from paracomp.models.trees import (
    binary_tree,
    bracketed,
    check,
    from_dependencies,
    left_branching,
    levels,
    right_branching,
)

SENTENCE = ["the", "black", "cat", "sat", "on", "the", "mat"]
# the→cat, black→cat, cat→sat, sat root (spaCy: its own head), on→sat, the→mat, mat→on
HEADS = [2, 2, 3, 3, 3, 6, 4]


def test_head_outward_right_first() -> None:
    merges = from_dependencies(HEADS)
    check(merges, 7)
    assert bracketed(merges, SENTENCE) == "((the (black cat)) (sat (on (the mat))))"
    # merges: (black cat) (the ·) (the mat) (on ·) (sat ·) (NP VP)
    assert merges.tolist() == [[1, 2], [0, 7], [5, 6], [4, 9], [3, 10], [8, 11]]
    assert levels(merges, 7).tolist() == [1, 2, 1, 2, 3, 4]


def test_head_outward_left_first() -> None:
    merges = from_dependencies(HEADS, order="left_first")
    check(merges, 7)
    assert bracketed(merges, SENTENCE) == "(((the (black cat)) sat) (on (the mat)))"


def test_root_conventions_agree() -> None:
    as_minus_one = [h if h != i else -1 for i, h in enumerate(HEADS)]
    assert np.array_equal(from_dependencies(as_minus_one), from_dependencies(HEADS))


def test_non_projective_parse() -> None:
    # "a hearing is scheduled on the issue today": the PP "on the issue" hangs off "hearing"
    # across "is scheduled" (McDonald et al. 2005's example), a crossing arc.
    tokens = ["a", "hearing", "is", "scheduled", "on", "the", "issue", "today"]
    heads = [1, 2, -1, 2, 1, 6, 4, 3]
    merges = from_dependencies(heads)
    check(merges, 8)
    assert bracketed(merges, tokens) == ("((a (hearing (on (the issue)))) (is (scheduled today)))")


def test_forest_roots_join_right_branching() -> None:
    merges = from_dependencies([0, 1, 1, -1])  # roots 0, 1, 3; token 2 depends on 1
    check(merges, 4)
    assert bracketed(merges, ["a", "b", "c", "d"]) == "(a ((b c) d))"


def test_small_segments() -> None:
    assert from_dependencies([0]).shape == (0, 2)
    assert from_dependencies([]).shape == (0, 2)
    assert from_dependencies([1, 1]).tolist() == [[0, 1]]  # adjective → noun: one node
    assert from_dependencies([-1, 0]).tolist() == [[0, 1]]  # verb → object


@pytest.mark.parametrize(
    ("heads", "message"),
    [([1, 0, 0], "cycle"), ([1, 2, 1, -1], "cycle"), ([5, -1], "outside")],
)
def test_malformed_parses(heads: list[int], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        from_dependencies(heads)


def test_branching_fallbacks() -> None:
    tokens = ["a", "b", "c", "d"]
    assert bracketed(right_branching(4), tokens) == "(a (b (c d)))"
    assert bracketed(left_branching(4), tokens) == "(((a b) c) d)"
    assert levels(right_branching(4), 4).tolist() == [1, 2, 3]
    for n in range(6):
        check(right_branching(n), n)
        check(left_branching(n), n)
    assert right_branching(2).tolist() == left_branching(2).tolist() == [[0, 1]]


@pytest.mark.parametrize(
    ("merges", "message"),
    [
        ([[0, 1]], "has 2 merges"),  # too few for 3 tokens
        ([[0, 4], [1, 2]], "not created before"),
        ([[0, 1], [0, 2]], "exactly one"),
    ],
)
def test_check_rejects(merges: list[list[int]], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        check(np.array(merges), 3)


def test_binary_tree_takes_the_parse_or_falls_back() -> None:
    heads = [0, 0, 0]  # "sat on mats": the first word heads both: ((sat on) mats)
    np.testing.assert_array_equal(binary_tree(heads, 3), from_dependencies(heads))
    assert not np.array_equal(binary_tree(heads, 3), right_branching(3))
    np.testing.assert_array_equal(binary_tree(None, 3), right_branching(3))
    np.testing.assert_array_equal(binary_tree([1, 1], 3), right_branching(3))  # other length
    np.testing.assert_array_equal(binary_tree([1, 0, 2], 3), right_branching(3))  # a cycle
