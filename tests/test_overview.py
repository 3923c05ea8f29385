"""A paper's overview (tables.overview): per table, cells computed and printed and the
distance to print, by hand on small compare files, with its sd and noise floor over the
table's replicates (by hand, and against the sampling sd in simulation); the claims that do
not hold named."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest

from paracomp.cli import main
from paracomp.tables.overview import distance_noise
from paracomp.tables.replicates import Replicates, write_replicates


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
        "mean_abs_delta_sd": "",  # no replicates
        "noise_floor": "",
        "resampled": "",
        "max_abs_delta": "44.00",
    }
    assert rows[1]["computed"] == "0" and rows[1]["mean_abs_delta"] == ""
    text = md.read_text()
    assert "| table1 | 5 | 4 | 4 | 2 | 33.00 | — | — | 44.00 |" in text
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


def _overview_row(tmp_path: Path, replicates: Replicates) -> dict[str, str]:
    compare = _write(tmp_path / "t1.csv", ["row", "column", "ours", "paper", "delta"], [
        ["a", "x", "45.0", "67.0", "-22.0"],
        ["a", "y", "10.5", "54.5", "-44.0"],
        ["b", "x", "20.0", "170.6", ""],  # not compared: no replicates needed
    ])  # fmt: skip
    parquet = tmp_path / "t1.replicates.parquet"
    write_replicates(parquet, replicates)
    findings = _write(tmp_path / "f.csv", ["claim", "where", "quote", "holds", "paper", "why"], [])
    out, md = tmp_path / "o.csv", tmp_path / "o.md"
    main(["overview", "p", "--compare", f"table1={compare}", "--replicates", f"table1={parquet}"]
         + ["--findings", str(findings), "--out", str(out), "--markdown", str(md)]
         + ["--html", str(tmp_path / "o.html")])  # fmt: skip
    with open(out, newline="") as handle:
        (row,) = csv.DictReader(handle)
    row["markdown"] = md.read_text()
    return row


def test_overview_sd_and_noise_floor_by_hand(tmp_path):
    # |replicate − paper| per resample: a|x 23 21 22 24, a|y 44.5 43.5 44 42
    # the mean's resamples 33.75 32.25 33 33: sd √((.75² + .75²) / 3) = 0.6124
    # the cells' sd 1.2910 and 1.0801: floor (1.2910 + 1.0801) / 2 · √(2/π) = 0.9459
    values = {"a|x": np.array([44, 46, 45, 43.0]), "a|y": np.array([10, 11, 10.5, 12.5])}
    sets = {"a|x": ["s"], "a|y": ["s"]}
    row = _overview_row(tmp_path, Replicates(values, sets, 4, 0))
    assert (row["mean_abs_delta"], row["mean_abs_delta_sd"]) == ("33.00", "0.61")
    assert (row["noise_floor"], row["resampled"]) == ("0.95", "test sets")
    assert "| table1 | 3 | 3 | 3 | 2 | 33.00 ± 0.61 | 0.95 | test sets | 44.00 |" in row["markdown"]

    # a resample without a value is left out; a cell over seeds is named
    values["a|x"] = np.array([44, 46, 45, 43.0, np.nan])
    values["a|y"] = np.array([10, 11, 10.5, 12.5, 11])
    seeded = Replicates(values, sets, 5, 0, seeds={"a|x": [44.0, 46.0]})
    row = _overview_row(tmp_path, seeded)
    assert (row["mean_abs_delta_sd"], row["noise_floor"]) == ("0.61", "0.95")
    assert row["resampled"] == "test sets; seeds for 1 of 2 cells"

    # a compared cell without replicates (a count): neither
    row = _overview_row(tmp_path, Replicates({"a|x": values["a|x"]}, {"a|x": ["s"]}, 5, 0))
    assert row["mean_abs_delta_sd"] == row["noise_floor"] == row["resampled"] == ""


@pytest.mark.parametrize(
    ("gaps", "low", "high"),
    [
        (np.r_[np.zeros(10), np.full(10, 2.0), np.full(20, 20.0)], 0.9, 1.1),  # chen2020-like
        (np.full(40, 20.0), 0.9, 1.1),  # every cell far from print
        (np.zeros(40), 1.0, 1.4),  # every cell on print: the sd errs large, not small
    ],
)
def test_distance_noise_sd_is_the_means_sampling_sd(gaps, low, high):
    """Cells drawn around ``gaps`` from print (sd 3), their replicates drawn around the cells:
    the sd over one draw's replicates, averaged over draws, against the sd of the mean
    |ours − paper| over draws."""
    rng = np.random.default_rng(7)
    printed = rng.uniform(20, 80, gaps.size)
    draws = printed + gaps + rng.normal(0, 3, (400, gaps.size))
    true_sd = np.abs(draws - printed).mean(axis=1).std(ddof=1)
    found = []
    for ours in draws[:40]:
        reps = ours[:, None] + rng.normal(0, 3, (gaps.size, 1000))
        keys = [f"c|{i}" for i in range(gaps.size)]
        paper = dict(zip(keys, printed, strict=True))
        noise = distance_noise(paper, Replicates(dict(zip(keys, reps, strict=True)), {}, 1000, 0))
        assert noise is not None
        found.append(noise)
    sd, floor = np.mean(found, axis=0)
    assert low < sd / true_sd < high
    # the floor: what noise alone adds, 3 · √(2/π) a cell
    assert floor == pytest.approx(3 * np.sqrt(2 / np.pi), rel=0.02)
