"""wieting2015's printed numbers (``src/paracomp/papers/wieting2015/printed.yaml``): cells spot-checked
against the paper digest, and identities its tables satisfy between each other."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize(
    "table,row,col,expected",
    [
        ("table1", "2-3", "md", 1.05),
        ("table1", "4-5", "pct_data", 36.9),
        ("table2", "NN", "ia_kappa", 0.58),
        ("table3", "hill2014b", "sl999", 0.446),
        ("table3", "paragram_ws_constraints", "sl999", 0.58),
        ("table4", "paragram_25", "accuracy", 80.9),
        ("table5", "paragram_rnn", "ml_jn", 0.51),
        ("table5", "paragram_add", "mlp_vn", 0.58),
        ("table5", "mitchell_lapata2010", "mlp_jn", None),
        ("table5", "human", "mlp_avg", 0.75),
        ("table6", "paragram_rnn", "annotated_ppdb", 0.40),
        ("table6", "ppdb_svr", "annotated_ppdb", 0.33),
        ("table7", "1-2", "add", 2.35),
        ("table7", "4-5", "rnn", 0.47),
        ("table8", "4", "phrase1", "'s surname"),
        ("table8", "5", "add", 3.2),
        ("table9_length", "positive", "high", 35.5),
        ("table9_overlap", "both", "high", 0.0),
        ("table9_overlap", "negative", "high", -15.0),
    ],
)
def test_wieting2015_spot(printed_cell, table, row, col, expected):
    assert printed_cell("wieting2015", table, row, col) == expected


def test_wieting2015_markers_and_identities(printed):
    t = printed("wieting2015")["tables"]
    assert t["table5"]["printed"]["paragram_rnn"]["ml_jn"] == "0.51*‡"
    assert t["table5"]["printed"]["paragram_add"]["mlp_vn"] == "0.58*‡"
    assert t["table6"]["printed"]["paragram_rnn"]["annotated_ppdb"] == "0.40*†‡"
    t5 = t["table5"]["values"]
    for r, v in t5.items():
        for g in ("ml", "mlp"):
            parts = [v[f"{g}_{k}"] for k in ("jn", "nn", "vn")]
            if None not in parts:
                assert abs(sum(parts) / 3 - v[f"{g}_avg"]) <= 0.005 + 1e-9, (r, g)
    t2 = t["table2"]["values"]
    for k in ("JN", "NN", "VN"):
        assert t5["human"][f"mlp_{k.lower()}"] == t2[k]["ia_rho"]
