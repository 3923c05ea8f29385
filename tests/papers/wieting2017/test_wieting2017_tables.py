"""Tables 1-4 of wieting2017 from hand-made scored points: the selection per column, the
22-set mean, empty cells with their reasons, Table 4 without a paper column."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from paracomp.papers.wieting2017.tables import write_transfer_table
from paracomp.papers.wieting2017.transfer import SELECTION_SUBSETS, TRANSFER_SUBSETS


def _point(folder: Path, run: str, index: int, transfer: float, sts2016: float) -> str:
    rows = []
    for dataset, subset in TRANSFER_SUBSETS:
        if (dataset, subset) == ("sts2013", "SMT"):
            rows.append({"dataset": dataset, "subset": subset, "n": 0, "note": "LDC-licensed"})
        else:
            rows.append({"dataset": dataset, "subset": subset, "split": "test", "n": 10,
                         "pearson": transfer, "note": ""})  # fmt: skip
    for dataset, subset in SELECTION_SUBSETS:
        rows.append({"dataset": dataset, "subset": subset, "split": "test", "n": 10,
                     "pearson": sts2016, "note": ""})  # fmt: skip
    out = folder / run / str(index)
    out.mkdir(parents=True)
    pd.DataFrame(rows).to_csv(out / "scores.csv", index=False)
    record = {"run": run, "index": index, "point": {"reg_initial": [0.0, 1e-5][index]}}
    (out / "record.json").write_text(json.dumps(record))
    return f"{run}={out}"


@pytest.fixture
def points(tmp_path) -> list[str]:
    return [
        _point(tmp_path, "avg_none", 0, 0.60, 0.70),
        _point(tmp_path, "avg_none", 1, 0.65, 0.50),
        _point(tmp_path, "lstm_none", 0, 0.40, 0.40),
        _point(tmp_path, "lstm_none", 1, 0.45, 0.30),
    ]


def test_table2_columns_are_selections(tmp_path, points, transfer_setting):
    out = tmp_path / "table2.csv"
    write_transfer_table("table2", points, transfer_setting, out)
    compare = pd.read_csv(out.with_suffix(".compare.csv")).set_index(["row", "column"])
    assert compare.loc[("avg_none", "oracle"), "ours"] == 65.0
    assert compare.loc[("avg_none", "sts2016"), "ours"] == 60.0
    assert compare.loc[("lstm_none", "oracle"), "ours"] == 45.0
    assert compare.loc[("lstm_none", "sts2016"), "ours"] == 40.0
    assert compare.loc[("avg_none", "oracle"), "delta"] == pytest.approx(65.0 - 68.5)
    assert "trained on hand-made pairs" in compare.loc[("avg_none", "oracle"), "data"]
    assert "sts2013/SMT: LDC-licensed" in compare.loc[("avg_none", "oracle"), "note"]
    empty = compare.loc[("bilstmavg_dropout_scrambling", "oracle")]
    assert pd.isna(empty["ours"]) and "not configured" in empty["note"]
    markdown = out.with_suffix(".md").read_text()
    assert "Computed cells: 4 of 24" in markdown and "Empty cells:" in markdown


def test_table1_selects_by_sts2016(tmp_path, points, transfer_setting):
    out = tmp_path / "table1.csv"
    write_transfer_table("table1", points, transfer_setting, out)
    wide = pd.read_csv(out, dtype=str)
    assert list(wide.columns) == ["Training data", "AVG", "LSTM", "LSTMAVG"]
    assert wide.iloc[1].tolist()[:3] == ["SimpWiki", "60.0", "40.0"]


def test_table4_has_no_paper_column(tmp_path, points, transfer_setting):
    out = tmp_path / "table4.csv"
    write_transfer_table("table4", points, transfer_setting, out)
    compare = pd.read_csv(out.with_suffix(".compare.csv")).set_index(["row", "column"])
    assert len(compare) == 23 * 3 and compare["paper"].isna().all()
    assert compare.loc[("sts2012/MSRpar", "avg"), "ours"] == 60.0  # the point STS 2016 picks
    assert compare.loc[("mean", "avg"), "ours"] == 60.0
    assert "LDC" in compare.loc[("sts2013/SMT", "avg"), "note"]
    assert "missing" in compare.loc[("sts2012/MSRpar", "avg"), "note"]
    assert "not configured" in compare.loc[("mean", "gran"), "note"]


@pytest.mark.parametrize("composer", ["gran5", "gran5_mean"])
def test_table3_says_which_gran5_readout_it_ran(tmp_path, points, composer, transfer_setting):
    """The code's last-state GRAN-5 by default, the paper's averaged reading as an option."""
    setting = {**transfer_setting, "composers": {"avg": "mean", "gran5": composer}}
    out = tmp_path / "table3.csv"
    write_transfer_table("table3", points, setting, out)
    markdown = out.with_suffix(".md").read_text()
    assert "as the authors' code does (SliceLayer(-1), composer gran5)" in markdown
    assert f"GRAN-5 here: composer {composer}." in markdown
    write_transfer_table("table2", points, setting, tmp_path / "table2.csv")
    assert "Readout" not in (tmp_path / "table2.md").read_text()


def _point_with_pairs(scored_point, folder: Path, run: str, index: int, noise: float) -> str:
    """A point scored on 40 pairs of every subset but STS 2013 SMT, its pairs kept."""
    out = scored_point(folder / run / str(index), run, index, noise, index, [("sts2013", "SMT")])
    return f"{run}={out}"


def test_transfer_cells_have_intervals_from_the_picked_points_pairs(
    tmp_path, transfer_setting, scored_point
):
    """The 22-set mean's replicates are the mean of its 21 scored subsets' replicates, each
    on the subset's shared resamples (the generic evaluator's keys); Table 1's markdown shows
    ±, the compare file the interval."""
    from paracomp.eval import bootstrap
    from paracomp.tables.replicates import read_replicates

    points = [_point_with_pairs(scored_point, tmp_path, "avg_none", 0, 1.0)]
    out = tmp_path / "table1.csv"
    write_transfer_table("table1", points, transfer_setting, out)
    compare = pd.read_csv(out.with_suffix(".compare.csv")).set_index(["row", "column"])
    cell = compare.loc[("simpwiki", "avg")]
    assert cell["ci_low"] < cell["ours"] < cell["ci_high"] and cell["replicates"] == 1
    reps = read_replicates(out.with_name("table1.replicates.parquet"))
    assert list(reps.values) == ["simpwiki|avg"]
    assert "sts2016/headlines/test" not in reps.sets["simpwiki|avg"]
    pairs = pd.read_parquet(tmp_path / "avg_none" / "0" / "pairs.parquet")
    resampler, each = bootstrap.Resampler(), []
    for (dataset, subset), sel in pairs.groupby(["dataset", "subset"], sort=False):
        if dataset == "sts2016":
            continue
        counts = resampler.counts(bootstrap.Sample.whole(f"{dataset}/{subset}/test", 40))
        each.append(bootstrap.pearson(counts, sel["gold"].to_numpy(), sel["pred"].to_numpy()))
    assert len(each) == 21
    np.testing.assert_allclose(reps.values["simpwiki|avg"], 100 * np.mean(each, axis=0))
    low, high = bootstrap.interval(reps.values["simpwiki|avg"])
    assert f"{cell['ours']:.1f} ±{(high - low) / 2:.1f}" in out.with_suffix(".md").read_text()


def test_table7_examples_say_why_they_have_no_interval(tmp_path, transfer_setting, scored_point):
    """Table 7's numbers are one pair's scores: no interval, the note says so; no delta."""
    points = [
        _point_with_pairs(scored_point, tmp_path, "avg_none", 0, 1.0),
        _point_with_pairs(scored_point, tmp_path, "lstmavg_dropout_scrambling", 1, 0.5),
    ]
    out = tmp_path / "table7.csv"
    write_transfer_table("table7", points, transfer_setting, out)
    compare = pd.read_csv(out.with_suffix(".compare.csv"))
    numbers = compare[compare["column"].isin(["lavg", "avg", "gold"]) & compare["ours"].notna()]
    assert len(numbers) == 21 and numbers["ci_low"].isna().all() and compare["delta"].isna().all()
    assert numbers["note"].str.contains("one pair's scores, not a statistic").all()
