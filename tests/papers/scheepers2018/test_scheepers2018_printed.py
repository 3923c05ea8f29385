"""scheepers2018's printed numbers (``src/paracomp/papers/scheepers2018/printed.yaml``): cells spot-checked
against the paper digest, and identities its tables satisfy between each other."""

from __future__ import annotations

import math

import pytest


@pytest.mark.parametrize(
    "row,col,expected",
    [
        ("mrr/sum", "word2vec_original", 17.0),
        ("mrr/sum", "word2vec_compvec", 23.0),
        ("mrr/sum", "word2vec_delta", 6.0),
        ("mrr/sum", "paragram_compvec", 29.9),
        ("sts14/sum", "word2vec_delta", 30.4),
        ("sts14/max", "word2vec_delta", 39.9),
        ("sts14/product", "paragram_original", 1.6),
        ("sts15/average", "paragram_delta", -20.3),
        ("sick_e/bigru", "word2vec_compvec", 78.9),
        ("sick_r/gru", "glove_original", 81.6),
        ("simlex/product", "word2vec_compvec", 7.8),
        ("simverb/sum", "fasttext_delta", 11.1),
        ("ws353/sum", "word2vec_original", 70.6),
        ("ws353/bigru", "paragram_compvec", 74.8),
    ],
)
def test_scheepers_spot(printed_cell, row, col, expected):
    assert printed_cell("scheepers2018", "table1", row, col) == expected


def test_scheepers_layout_and_deltas(printed):
    t = printed("scheepers2018")["tables"]["table1"]
    assert len(t["rows"]) == 50 and len(t["columns"]) == 12
    counts = {}
    for r in t["rows"]:
        counts[r.split("/")[0]] = counts.get(r.split("/")[0], 0) + 1
    assert counts == {
        "mrr": 10,
        "sts14": 10,
        "sts15": 4,
        "sick_e": 4,
        "sick_r": 4,
        "simlex": 10,
        "simverb": 4,
        "ws353": 4,
    }
    assert t["row_metrics"]["sick_e/sum"] == "accuracy"
    assert t["row_metrics"]["simlex/sum"] == "spearman"
    v = t["values"]
    assert math.copysign(1.0, v["mrr/average"]["word2vec_delta"]) == -1.0  # printed -0.0
    for r in t["rows"]:
        for e in ("word2vec", "glove", "fasttext", "paragram"):
            diff = v[r][f"{e}_compvec"] - v[r][f"{e}_original"]
            assert abs(diff - v[r][f"{e}_delta"]) <= 0.1 + 1e-9, (r, e)
