"""elgohary2016's printed numbers (``src/paracomp/papers/elgohary2016/printed.yaml``): cells spot-checked
against the paper digest, and identities its tables satisfy between each other."""

from __future__ import annotations

import pytest

ELGOHARY_T3_ROWS = [
    "MSRpar",
    "MSRvid",
    "SMT-eur",
    "SMT-news",
    "OnWN-2012",
    "2012 Avg",
    "headline-2013",
    "OnWN-2013",
    "FNWN",
    "2013 Avg",
    "deft-forum",
    "deft-news",
    "headline-2014",
    "images-2014",
    "OnWN-2014",
    "tweet-news",
    "2014 Avg",
    "forums",
    "students",
    "headline-2015",
    "belief",
    "images-2015",
    "2015 Avg",
    "SICK",
]


def test_elgohary_keys(printed):
    t = printed("elgohary2016")["tables"]
    assert set(t) == {"table2", "table3", "table4", "table5", "table6"}
    assert t["table3"]["rows"] == ELGOHARY_T3_ROWS
    assert t["table3"]["columns"] == [
        "mono_jbi",
        "mono_jpa",
        "biphr_jbi",
        "biphr_jpa",
        "bisent_jbi",
        "bisent_jpa",
        "paragram",
        "glove",
    ]
    assert t["table4"]["rows"] == ["2012 Avg", "2013 Avg", "2014 Avg", "2015 Avg", "SICK"]
    assert t["table4"]["columns"] == ["mono", "biphr", "bisent"]
    assert t["table5"]["rows"] == ["mono", "biphr", "bisent"]
    assert t["table5"]["columns"] == [
        "pairs_unfiltered",
        "score_unfiltered",
        "pairs_filtered",
        "score_filtered",
    ]
    assert t["table6"]["rows"] == ["2012", "2013", "2014", "2015", "SICK"]
    assert t["table6"]["columns"] == [
        "biphr_0.5m",
        "biphr_1m",
        "biphr_1.9m",
        "biphr_3m",
        "bisent_1.9m",
        "glove",
    ]
    assert t["table2"]["rows"] == ["bisent", "biphr", "mono"]
    assert t["table2"]["columns"] == ["examples", "avg_length", "provenance"]
    assert t["table3"]["row_labels"]["OnWN-2013"] == "OnWN"
    assert t["table3"]["row_labels"]["deft-forum"] == "deft forum"


@pytest.mark.parametrize(
    "table,row,col,expected",
    [
        ("table3", "MSRpar", "biphr_jbi", 0.54),
        ("table3", "SICK", "glove", 0.66),
        ("table3", "MSRpar", "mono_jbi", 0.28),
        ("table3", "OnWN-2013", "biphr_jpa", 0.34),
        ("table3", "2013 Avg", "paragram", 0.58),
        ("table3", "2013 Avg", "glove", 0.42),
        ("table3", "belief", "mono_jpa", 0.71),
        ("table3", "images-2015", "paragram", 0.82),
        ("table3", "SICK", "bisent_jpa", 0.54),
        ("table4", "SICK", "mono", 0.2),
        ("table4", "2012 Avg", "bisent", 0.09),
        ("table5", "bisent", "pairs_filtered", 470_000),
        ("table5", "mono", "pairs_filtered", 2_300_000),
        ("table5", "bisent", "score_filtered", 0.58),
        ("table6", "2012", "biphr_0.5m", 0.55),
        ("table6", "SICK", "biphr_0.5m", 0.62),
        ("table2", "bisent", "examples", 1_900_000),
        ("table2", "biphr", "avg_length", 5),
        ("table2", "mono", "provenance", "PPDB XL (Ganitkevitch et al., 2013)"),
    ],
)
def test_elgohary_spot(printed_cell, table, row, col, expected):
    assert printed_cell("elgohary2016", table, row, col) == expected


def test_elgohary_cross_table(printed):
    t = printed("elgohary2016")["tables"]
    t3, t5, t6 = t["table3"]["values"], t["table5"]["values"], t["table6"]["values"]
    for year in ("2012", "2013", "2014", "2015"):
        assert t6[year]["biphr_3m"] == t3[f"{year} Avg"]["biphr_jbi"]
        assert t6[year]["bisent_1.9m"] == t3[f"{year} Avg"]["bisent_jbi"]
        assert t6[year]["glove"] == t3[f"{year} Avg"]["glove"]
    assert t6["SICK"]["biphr_3m"] == t3["SICK"]["biphr_jbi"]
    for k in ("mono", "biphr", "bisent"):
        assert t5[k]["score_unfiltered"] == t3["SICK"][f"{k}_jbi"]
    assert t["table3"]["bold"]["students"] == ["biphr_jbi", "biphr_jpa"]
    assert "SMT-eur" not in t["table3"]["bold"]
