"""A paper's overview (tables.overview): per table, cells computed and printed and the
distance to print, by hand on small compare files; the claims that do not hold named."""

from __future__ import annotations

import csv
from pathlib import Path

from paracomp.cli import main


def _write(path: Path, header: list[str], rows: list[list[str]]) -> Path:
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        writer.writerows(rows)
    return path


def test_overview_by_hand(tmp_path):
    compare = ["row", "column", "ours", "paper", "delta", "data", "note"]
    t1 = _write(tmp_path / "t1.csv", compare, [
        ["a", "x", "45.0", "67.0", "-22.0", "", ""],  # |delta| 22
        ["a", "y", "10.5", "54.5", "-44.0", "", ""],  # 44
        ["b", "x", "", "60.0", "", "", "no data"],  # printed, not computed
        ["b", "y", "3.0", "", "", "", "no printed number"],
        ["c", "x", "20.0", "170.6", "", "", "no delta: not like with like"],  # not compared
    ])  # fmt: skip
    t2 = _write(tmp_path / "t2.csv", compare, [["a", "x", "", "", "", "", ""]])
    findings = _write(
        tmp_path / "findings.csv",
        ["claim", "where", "quote", "test", "paper", "holds", "why", "paper_values"],
        [
            ["up", "§1", "q", "t", "yes", "yes", "[t1|a|x] = 45", ""],
            ["down", "§2", "q", "t", "yes", "no", "[t1|a|y] = 10.5", ""],
            ["gone", "§3", "q", "t", "yes", "not computable", "no number in [t2|a|x]", ""],
        ],
    )
    out, md, page = tmp_path / "overview.csv", tmp_path / "overview.md", tmp_path / "o.html"
    main(["overview", "p", "--compare", f"table1={t1}", f"table2={t2}"]
         + ["--findings", str(findings), "--out", str(out), "--markdown", str(md)]
         + ["--html", str(page)])  # fmt: skip
    with open(out, newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert rows[0] == {
        "table": "table1",
        "cells": "5",
        "computed": "4",
        "printed": "4",
        "compared": "2",
        "mean_abs_delta": "33.00",
        "max_abs_delta": "44.00",
    }
    assert rows[1]["computed"] == "0" and rows[1]["mean_abs_delta"] == ""
    text = md.read_text()
    assert "| table1 | 5 | 4 | 4 | 2 | 33.00 | 44.00 |" in text
    assert "3 claims, 1 hold on our run, 1 do not, 1 not computable" in text
    assert "- no: down (§2): [t1|a|y] = 10.5" in text and "- not computable: gone" in text
    assert "up (§1)" not in text

    # the report's page: both tables, and every claim with its verdict (the held one too)
    html = page.read_text()
    assert html.count("<tr>") == 1 + 2 + 1  # table headers + 2 tables + findings header
    assert "<td>table1</td><td>5</td><td>4</td><td>4</td><td>2</td><td>33.00</td>" in html
    assert "3 claims: 1 hold on our run, 1 do not, 1 not computable" in html
    for claim, verdict in (("up", "yes"), ("down", "no"), ("gone", "not computable")):
        assert f"<td>{claim}</td><td>§" in html and f"<td>{verdict}</td>" in html
    assert "[t1|a|y] = 10.5" in html and "no number in [t2|a|x]" in html


def test_verdict_counts_always_name_the_three_verdicts():
    from paracomp.tables.overview import verdict_counts

    claims = [{"verdict": v} for v in ("holds", "not computable", "holds", "unresolved")]
    assert verdict_counts(claims) == {"holds": 2, "fails": 0, "unresolved": 1, "not computable": 1}
    assert verdict_counts([{"holds": "yes"}]) == {}  # a findings file without verdicts
