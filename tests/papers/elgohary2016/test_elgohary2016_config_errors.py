"""Mistyped names in elgohary2016's config block are refused when the DAG is built, naming the
key and the valid names (before, a misspelt stat left its column silently empty, an unknown
table was planned and failed later, and an unknown grid was a bare KeyError)."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.slow  # each case is a dry run of the whole workflow

TABLE2 = "results/elgohary2016/table2.csv"


@pytest.mark.parametrize(
    ("override", "message"),
    [
        (
            "{table: table2, columns: {examples: {stat: exampels}}}",
            "papers.elgohary2016.tables.table2.columns.examples.stat: 'exampels' is not a "
            "statistic of table2; its statistics: ['examples', 'avg_length', 'provenance']",
        ),
        (
            "{table: table2, columns: {exampels: {stat: examples}}}",
            "papers.elgohary2016.tables.table2.columns.exampels: not a column of table2; its "
            "columns: ['examples', 'avg_length', 'provenance']",
        ),
        (
            "{table: table33, columns: {examples: {stat: examples}}}",
            "papers.elgohary2016.tables.table33: elgohary2016 has no table 'table33'; it has "
            "['table2', 'table3', 'table4', 'table5', 'table6']",
        ),
    ],
    ids=["stat", "column", "table"],
)
def test_a_mistyped_table_setting_is_refused(dag_error, tmp_path, override, message) -> None:
    import yaml

    spec = yaml.safe_load(override)
    block = {spec["table"]: {"columns": spec["columns"]}}
    text = yaml.safe_dump({"papers": {"elgohary2016": {"tables": block}}})
    assert message in dag_error(tmp_path, text, TABLE2)


def test_a_dangling_grid_name_is_refused(dag_error, tmp_path) -> None:
    text = "papers: {elgohary2016: {runs: {mono_jbi: {grid: l22}}}}"
    assert (
        "papers.elgohary2016.runs.mono_jbi.grid: 'l22' is not a grid of "
        "papers.elgohary2016.grids; known: ['bicvm', 'paraphrase']"
    ) in dag_error(tmp_path, text, "results/elgohary2016/table3.csv")
