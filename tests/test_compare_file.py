"""`findings` and the overview refuse a compare file without its columns or with a non-finite
cell, in one line naming the file (as the leaderboard refuses an evaluation file)."""

import csv
from pathlib import Path

import pytest

from paracomp.cli import main
from paracomp.registry import resource


def _write(path: Path, header: list[str], rows: list[list[str]]) -> None:
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        writer.writerows(rows)


def _findings(tmp_path: Path, table1: Path, capsys) -> str:
    out, md = tmp_path / "findings.csv", tmp_path / "findings.md"
    argv = ["findings", "--claims", str(resource("wieting2017", "findings.yaml"))]
    argv += ["--compare", f"table1={table1}", "--title", "t", "--out", str(out)]
    assert main([*argv, "--markdown", str(md)]) == 2
    assert not out.exists() and not md.exists()
    err = capsys.readouterr().err.strip()
    assert "\n" not in err
    return err


def test_a_compare_file_without_ours_is_refused(tmp_path, capsys):
    """A hand-made file with `value` for `ours` used to make every claim "not computable"."""
    table1 = tmp_path / "table1.compare.csv"
    _write(table1, ["row", "column", "value", "paper"], [["ppdb", "avg", "45.2", "67.7"]])
    err = _findings(tmp_path, table1, capsys)
    assert err == f"paracomp: error: {table1}: no column(s) ['ours'] (a compare file has " + (
        "['row', 'column', 'ours', 'paper'])"
    )


@pytest.mark.parametrize("bad", ["inf", "-inf", "Infinity"])
def test_a_non_finite_cell_is_refused(tmp_path, capsys, bad):
    """An `inf` cell used to decide a claim (inf > anything)."""
    table1 = tmp_path / "table1.compare.csv"
    rows = [["ppdb", "avg", "45.2", "67.7"], ["ppdb", "lstm", bad, "54.2"]]
    _write(table1, ["row", "column", "ours", "paper", "delta"], rows)
    err = _findings(tmp_path, table1, capsys)
    assert err == f"paracomp: error: {table1}:3: ours is {bad!r}, not a finite number"


def test_the_overview_refuses_them_too(tmp_path, capsys):
    table1 = tmp_path / "table1.compare.csv"
    _write(table1, ["row", "ours", "paper"], [["ppdb", "1", "2"]])
    (tmp_path / "f.csv").write_text("claim,where,quote,test,paper,holds,why,paper_values\n")
    argv = ["overview", "wieting2017", "--compare", f"table1={table1}"]
    argv += ["--findings", str(tmp_path / "f.csv"), "--out", str(tmp_path / "o.csv")]
    argv += ["--markdown", str(tmp_path / "o.md"), "--html", str(tmp_path / "o.html")]
    assert main(argv) == 2
    assert not (tmp_path / "o.csv").exists()
    assert f"{table1}: no column(s) ['column']" in capsys.readouterr().err
