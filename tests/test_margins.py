"""Printed margins against our noise (tables.margins): on compare and replicates files written
here, a printed margin far above the sd of our replicates' difference is resolvable, one within
it is not, a claim without replicates says why; the findings markdown shows the verdict."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest

from paracomp.tables.claims import Claim
from paracomp.tables.findings import findings, write_findings
from paracomp.tables.margins import margin_cell
from paracomp.tables.replicates import Replicates, write_replicates

RNG = np.random.default_rng(7)
SHARED = RNG.normal(size=1000)
"""Noise the cells on set ``s`` share (paired resamples of one test set)."""
REPLICATES = {
    "a|x": 0.60 + 0.010 * (SHARED + RNG.normal(size=1000)),
    "b|x": 0.50 + 0.010 * (SHARED + RNG.normal(size=1000)),
    "c|x": 0.58 + 0.010 * (SHARED + RNG.normal(size=1000)),
}
SD_AB = float(np.std(REPLICATES["a|x"] - REPLICATES["b|x"], ddof=1))
SD_AC = float(np.std(REPLICATES["a|x"] - REPLICATES["c|x"], ddof=1))


def _tables(tmp_path: Path, printed: dict[str, float | None]) -> tuple[dict, dict]:
    """Table ``t`` (cells a, b, c with replicates) and ``u`` (cell d, no replicates file), with
    ``printed`` as the paper's numbers."""
    ours = {"t": {"a": 0.60, "b": 0.50, "c": 0.58}, "u": {"d": 0.40}}
    compare = {}
    for table, cells in ours.items():
        compare[table] = tmp_path / f"{table}.compare.csv"
        with open(compare[table], "w", newline="") as handle:
            writer = csv.writer(handle)
            writer.writerow(["row", "column", "ours", "paper"])
            for row, value in cells.items():
                writer.writerow([row, "x", value, printed.get(row, "")])
    replicates = {"t": tmp_path / "t.replicates.parquet"}
    sets = {key: ["s/one/test"] for key in REPLICATES}
    write_replicates(replicates["t"], Replicates(REPLICATES, sets, 1000, 0))
    return compare, replicates


def _row(tmp_path: Path, test: str, **printed: float | None) -> dict[str, str]:
    (row,) = findings([Claim("c", "q", "w", test)], *_tables(tmp_path, printed))
    return row


def test_a_margin_far_above_our_noise_is_resolvable(tmp_path):
    row = _row(tmp_path, "[t|a|x] > [t|b|x]", a=0.70, b=0.50)
    assert row["paper"] == "yes" and row["margin_resolvable"] == "yes"
    assert row["printed_margin"] == "0.2" and row["noise_sd"] == f"{SD_AB:.3g}"
    assert 0.005 < SD_AB < 0.02  # paired: the shared noise cancels (unpaired: about 0.02)
    assert row["margin_why"] == (
        "[t|a|x] - [t|b|x]; sd over 1000 resamples at our test sets' sizes"
    )
    # the printed numbers failing the claim by as much resolve that it fails
    row = _row(tmp_path, "[t|a|x] < [t|b|x]", a=0.70, b=0.50)
    assert row["paper"] == "no" and row["printed_margin"] == "-0.2"
    assert row["margin_resolvable"] == "yes"


@pytest.mark.parametrize("margin", [0.0, 0.5, 1.0, 1.9])
def test_a_margin_within_our_noise_is_not(tmp_path, margin):
    printed_a = 0.50 + margin * SD_AB
    row = _row(tmp_path, "[t|a|x] >= [t|b|x]", a=printed_a, b=0.50)
    assert row["paper"] == "yes" and row["holds"] == "yes"
    assert row["margin_resolvable"] == "no"
    assert float(row["printed_margin"]) == pytest.approx(margin * SD_AB, abs=1e-4)
    above = _row(tmp_path, "[t|a|x] >= [t|b|x]", a=0.50 + 2.0 * SD_AB, b=0.50)
    assert above["margin_resolvable"] == "yes"


def test_the_least_resolved_comparison_decides_a_compound_claim(tmp_path):
    """a beats b by 0.2 and c by 0.005: the second link decides (and the chain alike); a
    number or a printed ``|paper`` cell is a constant of no noise."""
    test = "[t|a|x] > [t|b|x] and [t|a|x] > [t|c|x]"
    row = _row(tmp_path, test, a=0.70, b=0.50, c=0.695)
    assert row["margin_resolvable"] == "no" and row["noise_sd"] == f"{SD_AC:.3g}"
    assert row["printed_margin"] == "0.005"
    assert row["margin_why"].startswith("deciding of 2 comparisons: [t|a|x] - [t|c|x];")
    row = _row(tmp_path, "[t|a|x] > [t|c|x] > [t|b|x]", a=0.70, b=0.50, c=0.695)
    assert row["margin_why"].startswith("deciding of 2 comparisons: [t|a|x] - [t|c|x];")
    row = _row(tmp_path, "[t|a|x] - [t|b|x|paper] > 0.1", a=0.70, b=0.50)
    assert row["printed_margin"] == "0.1"
    assert row["noise_sd"] == f"{np.std(REPLICATES['a|x'], ddof=1):.3g}"
    assert row["margin_why"].startswith("[t|a|x] - [t|b|x|paper] - 0.1;")
    row = _row(tmp_path, "[t|a|x] < [t|b|x] or [t|a|x] > [t|c|x]", a=0.70, b=0.50, c=0.60)
    assert row["printed_margin"] == "0.1"  # either link suffices: the better resolved one


def test_a_claim_without_replicates_or_printed_numbers_says_why(tmp_path):
    row = _row(tmp_path, "[t|a|x] > [u|d|x]", a=0.70, d=0.50)
    assert [row[k] for k in ("printed_margin", "noise_sd", "margin_resolvable")] == ["", "", ""]
    assert row["margin_why"] == "no replicates for [u|d|x]"
    row = _row(tmp_path, "[t|a|x] > [t|b|x]", a=0.70)
    assert row["margin_resolvable"] == "" and row["margin_why"] == "no printed number in [t|b|x]"
    row = _row(tmp_path, "[t|a|x|paper] > 0", a=0.70)
    assert row["margin_why"] == "reads no cell of ours (printed numbers only)"


def test_the_markdown_shows_the_margin_compactly(tmp_path):
    compare, replicates = _tables(tmp_path, {"a": 0.70, "b": 0.50, "d": 0.45})
    claims = [
        Claim(id, "q", "w", f"[t|a|x] > [{cell}]")
        for id, cell in (("far", "t|b|x"), ("none", "u|d|x"))
    ]
    rows = findings(claims, compare, replicates)
    csv_path, md = tmp_path / "findings.csv", tmp_path / "findings.md"
    write_findings(rows, csv_path, md, "x")
    text = md.read_text()
    assert "| printed margin resolvable by our noise |" in text
    assert text.count("|---") == 9
    far = next(line for line in text.splitlines() if line.startswith("| far |"))
    assert far.endswith(f"| yes (0.2 vs sd {SD_AB:.3g}) |")
    none = next(line for line in text.splitlines() if line.startswith("| none |"))
    assert none.endswith("| — (no replicates for [u\\|d\\|x]) |")
    short = margin_cell(
        {"margin_resolvable": "", "margin_why": "no number of ours in [t|a|x], [t|b|x]"}
    )
    assert short == "— (no number of ours in 2 cells)"
    with open(csv_path, newline="") as handle:
        header = next(csv.reader(handle))
    assert header[-4:] == ["printed_margin", "noise_sd", "margin_resolvable", "margin_why"]
