"""The printed numbers of each paper's tables (src/paracomp/papers/<key>/printed.yaml).

Checks the layout of every paper's tables (rows, columns and values agree; no unknown keys;
rounding fields present). Each paper's cells and identities: tests/papers/<key>/test_<key>_printed.py.
"""

from __future__ import annotations

import functools
import importlib.resources
import math
import re

import pytest
import yaml

from paracomp.papers import PAPERS

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
