"""``paracomp A … --then B …``: both commands in one process, ``B`` only once ``A`` has
succeeded, every command parsed before any runs, one timing line for the process."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from paracomp.cli import main


def _records(folder: Path, scores: dict[str, float]) -> list[str]:
    paths = []
    for name, r in scores.items():
        path = folder / f"{name}.json"
        path.write_text(json.dumps({"point": {"lr": float(name[1:])}, "tuning_r": r}))
        paths.append(str(path))
    return paths


def test_both_commands_run_in_order_with_one_timing_line(tmp_path: Path, caplog) -> None:
    first = _records(tmp_path, {"p1": 0.2, "p2": 0.7})
    second = _records(tmp_path, {"p3": 0.9, "p4": 0.1})
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    argv = ["select", "--records", *first, "--out", str(a), "--then"]
    with caplog.at_level(logging.INFO, logger="paracomp.timing"):
        assert main([*argv, "select", "--records", *second, "--out", str(b)]) == 0
    assert json.loads(a.read_text())["point"] == {"lr": 2.0}
    assert json.loads(b.read_text())["point"] == {"lr": 3.0}
    timing = [r for r in caplog.records if r.name == "paracomp.timing"]
    assert len(timing) == 1 and timing[0].getMessage().startswith("paracomp cpu-seconds:")


def test_a_failing_command_stops_the_chain(tmp_path: Path, capsys) -> None:
    records = _records(tmp_path, {"p1": 0.2})
    out = tmp_path / "b.json"
    missing = str(tmp_path / "missing.json")
    argv = ["select", "--records", missing, "--out", str(tmp_path / "a.json"), "--then"]
    assert main([*argv, "select", "--records", *records, "--out", str(out)]) == 2
    assert capsys.readouterr().err.startswith(f"paracomp: error: {missing}: no such file")
    assert not out.exists()


def test_a_malformed_later_command_is_refused_before_the_first_runs(tmp_path: Path) -> None:
    records = _records(tmp_path, {"p1": 0.2})
    out = tmp_path / "a.json"
    with pytest.raises(SystemExit) as exit_:
        main(["select", "--records", *records, "--out", str(out), "--then", "select", "--outt"])
    assert exit_.value.code == 2 and not out.exists()
