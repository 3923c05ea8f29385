"""Selection criteria and significance marks of Wieting et al. (2015)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from paracomp.papers.wieting2015.selection import select, select_record, ws_criterion
from paracomp.papers.wieting2015.table_cells import steiger_marks


def test_ws_criterion_and_select() -> None:
    assert ws_criterion(0.7, 0.5) == pytest.approx(0.9)
    runs = {
        ("1e-4", 100): ws_criterion(0.625, 0.25),  # 1.0
        ("1e-5", 100): ws_criterion(0.75, 0.625),  # 0.875
        ("0", 250): ws_criterion(0.75, 0.5),  # 1.0, a tie: the first wins
        ("1e-2", 250): math.nan,
    }
    assert select(runs) == ("1e-4", 100)
    with pytest.raises(ValueError, match="no candidate"):
        select({"a": math.nan})


def test_select_record() -> None:
    records = [
        {"point": {"reg_initial": 1e-4}, "criterion": {"ws": 0.5, "simlex": 0.40}},
        {"point": {"reg_initial": 1e-6}, "criterion": {"ws": 0.7, "simlex": 0.35}},
        {"point": {"reg_initial": 0.0}, "criterion": {"ws": 0.7, "simlex": math.nan}},
    ]
    by_ws = select_record(records, "ws")
    assert by_ws["selected"] == 1 and by_ws["record"]["point"] == {"reg_initial": 1e-6}
    assert [p["value"] for p in by_ws["points"]] == [0.5, 0.7, 0.7]
    assert select_record(records, "simlex")["selected"] == 0


def test_marks() -> None:
    rng = np.random.default_rng(1)
    gold = rng.normal(size=300)
    model = gold + rng.normal(scale=0.6, size=300)
    weak = gold + rng.normal(scale=3.0, size=300)
    close = model + rng.normal(scale=0.05, size=300)  # about the same ranking
    found, note = steiger_marks(
        gold, model, {"*": ("weak", weak), "†": ("close", close), "‡": ("absent", None)}
    )
    assert found == "*"
    assert (
        note.startswith("Steiger one-tailed: * over weak: z=")
        and "‡ over absent: not computed" in note
    )


def test_select_copies_the_selected_points_run(tmp_path) -> None:
    """`paracomp wieting2015 select --run-out`: the best point's composer and rows, byte for
    byte, as a run folder of its own (the RNN's leaderboard model)."""
    import json

    from paracomp.cli import main

    records = []
    for point, dev in enumerate((0.31, 0.47, 0.40)):
        folder = tmp_path / "rnn" / "phrases" / str(point)
        folder.mkdir(parents=True)
        (folder / "composer.pt").write_bytes(f"composer {point}".encode())
        (folder / "embeddings.parquet").write_bytes(f"rows {point}".encode())
        record = {"point": {"lr": point}, "criterion": {"dev": dev}}
        (folder / "record.json").write_text(json.dumps(record))
        records.append(str(folder / "record.json"))
    out, run = tmp_path / "phrases.selected.json", tmp_path / "phrases.selected"
    args = ["wieting2015", "select", "--records", *records, "--criterion", "dev"]
    assert main([*args, "--out", str(out), "--run-out", str(run)]) == 0
    assert json.loads(out.read_text())["selected"] == 1
    assert (run / "composer.pt").read_bytes() == b"composer 1"
    assert (run / "embeddings.parquet").read_bytes() == b"rows 1"
