"""chen2020's printed numbers (``src/paracomp/papers/chen2020/printed.yaml``): cells spot-checked
against the paper digest, and identities its tables satisfy between each other."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize(
    "table,row,col,expected",
    [
        ("table1", "instances", "news", 900),
        ("table1", "instances", "movie", 920),
        ("table2", "majority", "twitter", None),
        ("table2", "ko2019", "news", None),
        ("table2", "glove_avg", "twitter", -49.6),
        ("table2", "wlo", "news", 77.4),
        ("table2", "wordfreq_avg", "movie", 0.0),
        ("table2", "elmo_avg", "yelp", -0.9),
        ("table3", "wlo", "length_norm", 70.1),
        ("table3", "majority", "length_norm", 50.1),
        ("table4", "elmo", "contradiction", 63.4),
        ("table4", "wlo", "entailment", 75.8),
        ("table7", "wlo", "without_prior_f1", 68.2),
        ("table8", "lstm_gaussian", "stsb", 74.3),
    ],
)
def test_chen_spot(printed_cell, table, row, col, expected):
    assert printed_cell("chen2020", table, row, col) == expected


def test_chen_identities(printed):
    t = printed("chen2020")["tables"]
    t2, t3 = t["table2"]["values"], t["table3"]["values"]
    for r in t["table3"]["rows"]:
        assert t3[r]["full"] == t2[r]["news"], r
    assert t["table7"]["values"]["wlo"]["with_prior_acc"] == t2["wlo"]["news"]
    assert t["table2"]["underline"] == {"wlo": ["news", "twitter", "yelp", "movie"]}
    assert t["table8"]["bold"] == {"lstm_gaussian": ["stsb"]}
