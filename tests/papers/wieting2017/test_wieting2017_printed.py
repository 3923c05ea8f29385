"""wieting2017's printed numbers (``src/paracomp/papers/wieting2017/printed.yaml``): cells spot-checked
against the paper digest, and identities its tables satisfy between each other."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize(
    "table,row,col,expected",
    [
        ("table1", "ppdb", "lstm", 54.2),
        ("table1", "simpwiki", "avg", 68.4),
        ("table2", "lstm_l2", "sts2016", 56.5),
        ("table2", "bilstmavg_dropout_scrambling", "oracle", 69.4),
        ("table3", "gran", "oracle", 69.5),
        ("table3", "gran5", "sts2016", 64.8),
        ("table6", "gran", "sick", 85.3),
        ("table6", "gran5", "avg", 77.0),
        ("table7", "1", "lavg", 3.42),
        ("table8", "gran_dropout_scrambling_universal", "sick", 86.0),
        ("table8", "lstmavg_dropout_scrambling", "sts", 76.5),
        ("table10", "xcomp", "weight", 170.6),
        ("table10", "advmod", "weight", 121.6),
    ],
)
def test_wieting2017_spot(printed_cell, table, row, col, expected):
    assert printed_cell("wieting2017", table, row, col) == expected


def test_wieting2017_identities(printed):
    doc = printed("wieting2017")
    t = doc["tables"]
    assert {o["table"] for o in doc["omitted_tables"]} == {"table4", "table5", "table9", "table11"}
    t1, t2 = t["table1"]["values"], t["table2"]["values"]
    assert t2["avg_none"]["sts2016"] == t1["simpwiki"]["avg"]
    assert t2["lstm_none"]["sts2016"] == t1["simpwiki"]["lstm"]
    assert t2["lstmavg_none"]["sts2016"] == t1["simpwiki"]["lstmavg"]
    for r, v in t["table6"]["values"].items():
        assert abs((v["sts"] + v["sick"]) / 2 - v["avg"]) <= 0.05 + 1e-9, r
