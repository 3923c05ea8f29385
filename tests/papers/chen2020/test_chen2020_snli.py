"""Table 4 on hand-made pairs: the equal-length filter and the per-label share of hypotheses
less specific than their premise (strict)."""

import math

import numpy as np

from paracomp.data.snli import NliPair
from paracomp.papers.chen2020.snli import PAPER_COUNTS, direction_table, equal_length

PAIRS = [
    NliPair("1", "entailment", ("a", "dog", "runs"), ("an", "animal", "moves")),
    NliPair("2", "entailment", ("a", "dog"), ("an", "animal")),
    NliPair("3", "neutral", ("a", "dog"), ("a", "big", "dog")),  # unequal: dropped
    NliPair("4", "neutral", ("a", "cat"), ("the", "cat")),
    NliPair("5", "contradiction", ("a", "cat"), ("no", "cat")),
]


def test_equal_length():
    assert [p.pair_id for p in equal_length(PAIRS)] == ["1", "2", "4", "5"]


def test_direction_table_by_hand():
    pairs = equal_length(PAIRS)
    premise = np.array([2.0, 1.0, 0.5, 3.0])
    hypothesis = np.array([1.0, 1.0, 0.2, 4.0])  # less specific: pair 1 (strict), 4; not 2, 5
    table = direction_table(pairs, premise, hypothesis)
    assert (table["entailment"].less_specific, table["entailment"].pairs) == (1, 2)
    assert table["entailment"].percent == 50.0
    assert (table["neutral"].less_specific, table["neutral"].pairs) == (1, 1)
    assert (table["contradiction"].less_specific, table["contradiction"].pairs) == (0, 1)


def test_direction_table_empty_label_and_paper_counts():
    table = direction_table(PAIRS[:2], np.array([1.0, 1.0]), np.array([0.0, 0.0]))
    assert table["entailment"].percent == 100.0
    assert math.isnan(table["neutral"].percent)
    assert sum(PAPER_COUNTS.values()) == 520
