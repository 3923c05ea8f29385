"""A dangling model or grid name in wieting2017's transfer or supervised runs is refused when
the DAG is built, naming the key and the valid names (before: a bare KeyError)."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.slow  # each case is a dry run of the whole workflow


@pytest.mark.parametrize(
    ("override", "message"),
    [
        (
            "transfer: {avg_none: {model: avgg}}",
            "papers.wieting2017.transfer.avg_none.model: 'avgg' is not a model of "
            "papers.wieting2017.composers; known: ['avg', 'bigran',",
        ),
        (
            "transfer: {avg_none: {grid: l22}}",
            "papers.wieting2017.transfer.avg_none.grid: 'l22' is not a grid of "
            "papers.wieting2017.grids; known: ['bi_dropout_scrambling', 'dropout',",
        ),
        (
            "supervised: {runs: {avg_none: {model: avgg}}}",
            "papers.wieting2017.supervised.runs.avg_none.model: 'avgg' is not a model of",
        ),
    ],
    ids=["transfer-model", "transfer-grid", "supervised-model"],
)
def test_a_dangling_name_is_refused(dag_error, tmp_path, override, message) -> None:
    text = f"papers: {{wieting2017: {{{override}}}}}"
    assert message in dag_error(tmp_path, text, "results/wieting2017/table1.csv")
