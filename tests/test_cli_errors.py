"""The ``paracomp`` command given a missing path, a folder for a file or malformed JSON: one
``paracomp: error:`` line naming the path or the argument, status 2, no traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from paracomp.cli import main


def _fails_in_one_line(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("paracomp: error: "), err
    return err.removeprefix("paracomp: error: ").strip()


@pytest.mark.parametrize(
    "argv",
    [
        ["select", "--records", "{missing}", "--out", "{out}/selected.json"],
        ["tuning-report", "--selected", "x={missing}", "--out", "{out}/report.csv"],
        [
            "train",
            "--pairs",
            "{missing}",
            "--params",
            "{{}}",
            "--out",
            "{out}/run",
            "--record",
            "{out}/record.json",
        ],
        [
            "chen2020",
            "scores",
            "--sentences",
            "{missing}",
            "--kind",
            "wlo",
            "--out",
            "{out}/scores.parquet",
        ],
        [
            "scheepers2018",
            "evaluate",
            "--run",
            "{missing}",
            "--data",
            "{missing}",
            "--pretrained",
            "{missing}",
            "--candidates",
            "all",
            "--train-record",
            "{missing}",
            "--out",
            "{out}/e.parquet",
            "--record",
            "{out}/record.json",
        ],
    ],  # fmt: skip
    ids=lambda argv: " ".join(argv[:2]),
)
def test_a_missing_path_is_named(argv: list[str], tmp_path: Path, capsys) -> None:
    missing = tmp_path / "missing"
    args = [a.format(missing=missing, out=tmp_path) for a in argv]
    message = _fails_in_one_line(args, capsys)
    assert message.startswith(str(missing)) and "no such file" in message


def test_a_folder_for_a_file_is_named(tmp_path: Path, capsys) -> None:
    message = _fails_in_one_line(["select", "--records", str(tmp_path), "--out", "x"], capsys)
    assert message == f"{tmp_path}: is a directory"


@pytest.mark.parametrize(
    ("argv", "argument"),
    [
        (["train", "--pairs", "p", "--params", "{bad", "--out", "o", "--record", "r"], "--params"),
        (["table", "elgohary2016", "table3", "--spec", "{'a': 1}", "--out", "o"], "--spec"),
    ],
)
def test_malformed_json_names_its_argument(argv, argument, capsys) -> None:
    message = _fails_in_one_line(argv, capsys)
    head, _, rest = message.partition(": ")
    assert head.endswith(argument) and rest.startswith("not valid JSON (Expecting property name")


def test_a_key_value_argument_without_its_key_is_named(tmp_path: Path, capsys) -> None:
    argv = ["tuning-report", "--selected", "selected.json", "--out", str(tmp_path / "r.csv")]
    message = _fails_in_one_line(argv, capsys)
    assert message == "expected KEY=VALUE arguments, got 'selected.json'"
