"""Every JSON argument of the tables' and training commands is checked against the schema the
workflow validates its config with (``paracomp.settings``): a misspelt key is one line naming
the argument and listing the known keys, a value of the wrong type one line naming the key,
and nothing is written."""

from __future__ import annotations

import pytest

from paracomp.cli import main

TYPO = '{"colums": 1}'

CASES = {
    "table --spec": (
        ["table", "elgohary2016", "table1", "--spec", '{"columns": {"A": {"modl": "x"}}}'],
        "table elgohary2016 table1 --spec: columns.A: unknown key(s) ['modl']; known: "
        "['embeddings', 'model', 'note', 'reason', 'stat']",
    ),
    "wieting2015 table --spec": (
        [
            "wieting2015",
            "table",
            "table1",
            "--spec",
            '{"columns": {}, "aggregation": "max"}',
            "--setting",
            "{}",
        ],
        "wieting2015 table table1 --spec: aggregation='max': 'max' is not one of ['mean', ",
    ),  # fmt: skip
    "wieting2015 table --setting": (
        ["wieting2015", "table", "table1", "--spec", '{"columns": {}}', "--setting", TYPO],
        "wieting2015 table table1 --setting: unknown key(s) ['colums']; known: ['constraints', ",
    ),
    "scheepers2018 table --columns": (
        ["scheepers2018", "table", "--columns", '{"GloVe": {"embedings": "glove-6b-50d"}}'],
        "scheepers2018 table --columns: GloVe: unknown key(s) ['embedings']; known: "
        "['embeddings', 'model', 'note', 'reason', 'stat']",
    ),
    "chen2020 table --setting": (
        ["chen2020", "table", "table1", "--sentences", "s.parquet", "--setting", TYPO],
        "chen2020 table --setting: unknown key(s) ['colums']; known: ['corpus', 'epochs', ",
    ),
    "wieting2017 table --setting": (
        ["wieting2017", "table", "table1", "--setting", TYPO],
        "wieting2017 table --setting: unknown key(s) ['colums']; known: ['composers', 'corpus', ",
    ),
    "wieting2017 supervised-table --setting": (
        ["wieting2017", "supervised-table", "table5", "--setting", TYPO],
        "wieting2017 supervised-table --setting: unknown key(s) ['colums']; known: [",
    ),
    "wieting2017 gate-table --setting": (
        [
            "wieting2017",
            "gate-table",
            "table9",
            "--tokens",
            "t.parquet",
            "--record",
            "r.json",
            "--setting",
            '{"gates": {"sentence": 1}, "note": ""}',
        ],
        "wieting2017 gate-table --setting: gates: unknown key(s) ['sentence']; known: ['corpus', ",
    ),  # fmt: skip
    "train --params": (
        ["train", "--pairs", "p.parquet", "--record", "r.json", "--params", '{"epoch": 2}'],
        "train --params: unknown key(s) ['epoch']; known: ['adagrad_eps', ",
    ),
    "train --point": (
        [
            "train",
            "--pairs",
            "p.parquet",
            "--record",
            "r.json",
            "--params",
            '{"epochs": 2}',
            "--point",
            '{"lr": "fast"}',
        ],
        "train --point: lr='fast': 'fast' is not of type 'number'",
    ),  # fmt: skip
    "train-stack --params": (
        [
            "train-stack",
            "--pairs",
            "p.parquet",
            "--runs",
            "runs",
            "--records",
            "records",
            "--params",
            '{"epoch": 2}',
            "--points",
            '{"0": {}}',
        ],
        "train-stack --params: unknown key(s) ['epoch']; known: ['adagrad_eps', ",
    ),  # fmt: skip
    "train-stack --points": (
        [
            "train-stack",
            "--pairs",
            "p.parquet",
            "--runs",
            "runs",
            "--records",
            "records",
            "--params",
            '{"epochs": 2}',
            "--points",
            '{"0": {"lr": 0.1}, "1": {"lrr": 0.2}}',
        ],
        "train-stack --points: 1: unknown key(s) ['lrr']; known: ['adagrad_eps', ",
    ),  # fmt: skip
}


@pytest.mark.parametrize("case", CASES)
def test_a_wrong_json_argument_is_one_line_and_writes_nothing(case, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    argv, message = CASES[case]
    assert main([*argv, "--out", "out"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"paracomp: error: {message}"), err
    assert "\n" not in err
    assert list(tmp_path.iterdir()) == []


def test_the_table_schema_also_refuses_a_wrong_type(tmp_path, capsys):
    argv = ["table", "elgohary2016", "table1", "--spec", '{"columns": [1]}']
    assert main([*argv, "--out", str(tmp_path / "t.csv")]) == 2
    err = capsys.readouterr().err.strip()
    assert (
        err
        == "paracomp: error: table elgohary2016 table1 --spec: columns=[1]: [1] is not of type 'object'"
    )
