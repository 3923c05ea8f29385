"""A paper's findings (tables.findings): claims as tests over table cells, evaluated on the
printed numbers and on ours; every paper's claims hold on its own printed numbers; a changed
cell flips a verdict through the CLI."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from paracomp.cli import main
from paracomp.errors import ConfigError
from paracomp.papers import PAPERS
from paracomp.registry import resource
from paracomp.tables.claims import Claim, read_claims, tables_of, verdict

REPO = Path(__file__).resolve().parents[1]


def _claim(test: str) -> Claim:
    return Claim("c", "a quote", "§1", test)


def _values(**cells: float | None) -> dict:
    return {("t", row, "x", ""): value for row, value in cells.items()}


def test_a_test_over_cells_by_hand():
    values = _values(a=0.59, b=0.45, c=0.41)
    assert verdict(_claim("[t|a|x] - [t|b|x] > 0.13"), values, {})[0] == "yes"
    assert verdict(_claim("[t|a|x] - [t|b|x] > 0.15"), values, {})[0] == "no"
    assert verdict(_claim("[t|a|x] > [t|b|x] > [t|c|x]"), values, {})[0] == "yes"  # chained
    assert verdict(_claim("[t|c|x] < [t|b|x] > [t|a|x]"), values, {})[0] == "no"
    assert (
        verdict(_claim("[t|a|x] >= max([t|b|x], [t|c|x]) and -[t|c|x] < 0"), values, {})[0] == "yes"
    )
    # 2 · 0.45 / 3 + |−0.41| = 0.71, against min(0.59, 1) + 0.2 = 0.79 and + 0.1 = 0.69
    holds, why = verdict(
        _claim("2 * [t|b|x] / 3 + abs(-[t|c|x]) < min([t|a|x], 1) + 0.2"), values, {}
    )
    assert holds == "yes" and why == "[t|b|x] = 0.45, [t|c|x] = 0.41, [t|a|x] = 0.59"
    assert (
        verdict(_claim("2 * [t|b|x] / 3 + abs(-[t|c|x]) < min([t|a|x], 1) + 0.1"), values, {})[0]
        == "no"
    )


def test_missing_cells_make_a_claim_not_computable():
    holds, why = verdict(_claim("[t|a|x] > [t|b|x]"), _values(a=0.5, b=None), {})
    assert holds == "not computable" and why == "no number in [t|b|x]"


def test_paper_cells_read_the_printed_number():
    """Prior work the paper compares with is a printed number on either side."""
    claim = _claim("[t|a|x] > [t|b|x|paper]")
    ours, printed = _values(a=0.5, b=None), _values(a=0.4, b=0.45)
    assert verdict(claim, ours, printed) == ("yes", "[t|a|x] = 0.5, [t|b|x|paper] = 0.45")
    assert verdict(claim, printed, printed)[0] == "no"


@pytest.mark.parametrize(
    ("test", "message"),
    [
        ("[t|a|x] > __import__('os')", "calls other than"),
        ("[t|a|x] > b", "'b' is not a cell"),
        ("[t|a|x] >", "not an expression"),
        ("[t|a|x] ** 2 > 1", "Pow"),
        ("[t|a|x] > 'a'", "constant"),
    ],
)
def test_bad_tests_are_named(tmp_path, test, message):
    path = tmp_path / "findings.yaml"
    path.write_text(f'claims:\n  - {{id: bad, quote: q, where: w, test: "{test}"}}\n')
    with pytest.raises(ConfigError, match=message) as caught:
        read_claims(path)
    assert str(path) in str(caught.value)


def test_a_claims_file_needs_its_keys(tmp_path):
    path = tmp_path / "findings.yaml"
    path.write_text("claims:\n  - {id: a, quote: q, test: '[t|a|x] > 0'}\n")
    with pytest.raises(ConfigError, match=r"claims\[0\]: expected exactly the keys"):
        read_claims(path)


def _printed_values(doc: dict) -> dict:
    return {
        (table, str(row), str(column), ""): value if isinstance(value, int | float) else None
        for table, spec in doc["tables"].items()
        for row, columns in spec["values"].items()
        for column, value in columns.items()
    }


@pytest.mark.parametrize("paper", PAPERS)
def test_every_claim_holds_on_the_papers_own_numbers(printed, paper):
    """A claim that fails on the printed numbers is written wrongly; each paper has at least
    three, over tables its settings build."""
    from paracomp.registry import paper_settings

    claims = read_claims(Path(resource(paper, "findings.yaml")))
    assert len(claims) >= 3
    assert set(tables_of(claims)) <= set(paper_settings(paper)["tables"])
    values = _printed_values(printed(paper))
    for claim in claims:
        assert verdict(claim, values, values)[0] == "yes", claim.id


def _compare(path: Path, rows: list[tuple[str, str, str, str]]) -> None:
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["row", "column", "ours", "paper", "delta", "data", "note"])
        for row, column, ours, paper in rows:
            writer.writerow([row, column, ours, paper, "", "", ""])


def test_a_changed_cell_flips_the_verdict(tmp_path):
    """wieting2017's claims through `paracomp findings` on compare files we write: AVG 45.2
    against the LSTM 10.8 on PPDB holds (> 13 points), AVG 20.0 does not."""
    claims = resource("wieting2017", "findings.yaml")
    table1 = tmp_path / "table1.compare.csv"
    rows = [("ppdb", "avg", "45.2", "67.7"), ("ppdb", "lstm", "10.8", "54.2")]

    def run() -> dict[str, dict[str, str]]:
        out, md = tmp_path / "findings.csv", tmp_path / "findings.md"
        main(["findings", "--claims", str(claims), "--compare", f"table1={table1}"]
             + ["--title", "wieting2017", "--out", str(out), "--markdown", str(md)])  # fmt: skip
        assert "| avg_beats_lstm_on_ppdb |" in md.read_text()
        return {r["claim"]: r for r in csv.DictReader(open(out))}

    _compare(table1, rows)
    found = run()
    assert found["avg_beats_lstm_on_ppdb"]["paper"] == "yes"
    assert found["avg_beats_lstm_on_ppdb"]["holds"] == "yes"
    assert found["averaging_is_the_most_effective"]["holds"] == "not computable"
    assert found["averaging_is_the_most_effective"]["why"].startswith("no number in [table2|")
    _compare(table1, [("ppdb", "avg", "20.0", "67.7"), rows[1]])
    flipped = run()["avg_beats_lstm_on_ppdb"]
    assert flipped["holds"] == "no" and flipped["why"] == (
        "[table1|ppdb|avg] = 20, [table1|ppdb|lstm] = 10.8"
    )
