"""The printed numbers of each paper's tables (src/paracomp/papers/<key>/printed.yaml).

Checks the layout of every table (rows, columns and values agree; no unknown keys; rounding
fields present), spot-checks cells against the paper digests, and checks identities the papers'
tables satisfy between each other.
"""

from __future__ import annotations

import functools
import importlib.resources
import math
import re

import pytest
import yaml

PAPERS = ["elgohary2016", "wieting2015", "wieting2017", "scheepers2018", "chen2020"]

TOP_KEYS = {"paper", "citation", "tables", "omitted_tables"}
REQUIRED = {
    "caption",
    "metric",
    "scale",
    "decimals",
    "row_label",
    "rows",
    "columns",
    "column_labels",
    "values",
}
OPTIONAL = {
    "row_labels",
    "column_metrics",
    "row_metrics",
    "column_scales",
    "column_decimals",
    "cell_decimals",
    "units",
    "row_groups",
    "printed",
    "bold",
    "underline",
    "notes",
}


@functools.cache
def load(key: str) -> dict:
    res = importlib.resources.files("paracomp.papers") / key / "printed.yaml"
    return yaml.safe_load(res.read_text(encoding="utf-8"))


@pytest.fixture(scope="module", params=PAPERS)
def doc(request):
    return load(request.param)


def all_tables():
    for key in PAPERS:
        for name, table in load(key)["tables"].items():
            yield pytest.param(key, name, table, id=f"{key}.{name}")


def cell(key, table, row, col):
    return load(key)["tables"][table]["values"][row][col]


# ----------------------------------------------------------------------------- layout


def test_top_level(doc):
    assert set(doc) == TOP_KEYS
    assert doc["paper"] in PAPERS
    assert isinstance(doc["citation"], str) and doc["citation"]
    assert doc["tables"], "no tables"
    names = set(doc["tables"])
    for om in doc["omitted_tables"]:
        assert set(om) == {"table", "caption", "reason"}
        assert om["table"] not in names
        assert om["caption"].startswith(f"Table {om['table'][len('table') :]}:")


@pytest.mark.parametrize("key,name,t", list(all_tables()))
def test_table_layout(key, name, t):
    assert set(t) >= REQUIRED, REQUIRED - set(t)
    assert set(t) <= REQUIRED | OPTIONAL, set(t) - REQUIRED - OPTIONAL

    number = re.fullmatch(r"table(\d+)(_\w+)?", name).group(1)
    assert t["caption"].startswith(f"Table {number}:")
    assert isinstance(t["metric"], str) and t["metric"]
    assert t["scale"] in (1, 100)
    assert isinstance(t["decimals"], int) and t["decimals"] >= 0
    assert isinstance(t["row_label"], str) and t["row_label"]

    rows, cols = t["rows"], t["columns"]
    assert rows and cols
    assert all(isinstance(r, str) for r in rows), "row keys must be strings (quote '2012')"
    assert all(isinstance(c, str) and re.fullmatch(r"[a-z0-9_.]+", c) for c in cols), cols
    assert len(set(rows)) == len(rows), "duplicate row keys"
    assert len(set(cols)) == len(cols), "duplicate column keys"

    # values: exactly rows x columns
    assert list(t["values"]) == rows
    for r in rows:
        assert list(t["values"][r]) == cols, r
        for c in cols:
            v = t["values"][r][c]
            assert v is None or (isinstance(v, (int, float, str)) and not isinstance(v, bool))

    assert list(t["column_labels"]) == cols
    assert all(isinstance(v, str) and v for v in t["column_labels"].values())
    for r, lab in t.get("row_labels", {}).items():
        assert r in rows and isinstance(lab, str) and lab
    for field in ("column_metrics", "column_scales", "column_decimals", "units"):
        assert set(t.get(field, {})) <= set(cols), field
    assert set(t.get("row_metrics", {})) <= set(rows)
    if "row_metrics" in t:
        assert set(t["row_metrics"]) == set(rows)
    for s in t.get("column_scales", {}).values():
        assert s in (1, 100)
    for d in t.get("column_decimals", {}).values():
        assert isinstance(d, int) and d >= 0
    for members in t.get("row_groups", {}).values():
        assert set(members) <= set(rows)
    for field in ("printed", "cell_decimals"):
        for r, m in t.get(field, {}).items():
            assert r in rows and set(m) <= set(cols), (field, r)
    for field in ("bold", "underline"):
        for r, cs in t.get(field, {}).items():
            assert r in rows and set(cs) <= set(cols), (field, r)
            assert all(isinstance(t["values"][r][c], (int, float)) for c in cs)
    assert all(isinstance(n, str) for n in t.get("notes", []))


def decimals(t, r, c):
    return (
        t.get("cell_decimals", {})
        .get(r, {})
        .get(c, t.get("column_decimals", {}).get(c, t["decimals"]))
    )


@pytest.mark.parametrize("key,name,t", list(all_tables()))
def test_numbers_match_printed_precision(key, name, t):
    for r in t["rows"]:
        for c in t["columns"]:
            v = t["values"][r][c]
            printed = t.get("printed", {}).get(r, {}).get(c)
            if printed is not None:
                assert isinstance(printed, str)
                m = re.fullmatch(r"([+-]?\d+(?:\.\d+)?)(M|[*†‡]+)", printed)
                assert m, printed
                if m.group(2) == "M":
                    assert v == round(float(m.group(1)) * 1_000_000), (r, c)
                else:
                    assert v == float(m.group(1)), (r, c)
                    d = decimals(t, r, c)
                    assert f"{v:.{d}f}" == m.group(1), (r, c)
                continue
            if isinstance(v, (int, float)):
                d = decimals(t, r, c)
                assert math.isclose(round(v, d), v, abs_tol=1e-12), (r, c, v, d)
                if d == 0:
                    assert isinstance(v, int), (r, c, v)


# ----------------------------------------------------------------------------- elgohary2016


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


def test_elgohary_keys():
    t = load("elgohary2016")["tables"]
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
def test_elgohary_spot(table, row, col, expected):
    assert cell("elgohary2016", table, row, col) == expected


def test_elgohary_cross_table():
    t = load("elgohary2016")["tables"]
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


# ----------------------------------------------------------------------------- wieting2015


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
def test_wieting2015_spot(table, row, col, expected):
    assert cell("wieting2015", table, row, col) == expected


def test_wieting2015_markers_and_identities():
    t = load("wieting2015")["tables"]
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


# ----------------------------------------------------------------------------- wieting2017


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
def test_wieting2017_spot(table, row, col, expected):
    assert cell("wieting2017", table, row, col) == expected


def test_wieting2017_identities():
    doc = load("wieting2017")
    t = doc["tables"]
    assert {o["table"] for o in doc["omitted_tables"]} == {"table4", "table5", "table9", "table11"}
    t1, t2 = t["table1"]["values"], t["table2"]["values"]
    assert t2["avg_none"]["sts2016"] == t1["simpwiki"]["avg"]
    assert t2["lstm_none"]["sts2016"] == t1["simpwiki"]["lstm"]
    assert t2["lstmavg_none"]["sts2016"] == t1["simpwiki"]["lstmavg"]
    for r, v in t["table6"]["values"].items():
        assert abs((v["sts"] + v["sick"]) / 2 - v["avg"]) <= 0.05 + 1e-9, r


# ----------------------------------------------------------------------------- scheepers2018


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
def test_scheepers_spot(row, col, expected):
    assert cell("scheepers2018", "table1", row, col) == expected


def test_scheepers_layout_and_deltas():
    t = load("scheepers2018")["tables"]["table1"]
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


# ----------------------------------------------------------------------------- chen2020


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
def test_chen_spot(table, row, col, expected):
    assert cell("chen2020", table, row, col) == expected


def test_chen_identities():
    t = load("chen2020")["tables"]
    t2, t3 = t["table2"]["values"], t["table3"]["values"]
    for r in t["table3"]["rows"]:
        assert t3[r]["full"] == t2[r]["news"], r
    assert t["table7"]["values"]["wlo"]["with_prior_acc"] == t2["wlo"]["news"]
    assert t["table2"]["underline"] == {"wlo": ["news", "twitter", "yelp", "movie"]}
    assert t["table8"]["bold"] == {"lstm_gaussian": ["stsb"]}
