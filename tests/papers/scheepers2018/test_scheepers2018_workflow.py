"""scheepers2018's CompVec runs as scored grid points (rule `point`): which runs, their settings,
inputs and scoring command, and the folders Table 1 and the leaderboard read, on the embedded
settings."""

from __future__ import annotations

import shlex

import pytest

from paracomp.cli import build_parser
from paracomp.papers.scheepers2018.workflow import Inputs
from paracomp.registry import paper_settings

SETS = ["sts2014=resources/sets/sts2014.parquet", "simlex999=resources/sets/simlex999.parquet"]
UNAVAILABLE = ["sick2014=no source provides it"]


@pytest.fixture()
def inputs() -> Inputs:
    block = paper_settings("scheepers2018", "default", None)
    missing = {"paragram-wieting2015-full": "needs ppdb-xl-lexicon"}.get
    return Inputs(block, {}, "resources/mirror/compvec-wordnet", SETS, UNAVAILABLE, missing)


def test_one_point_per_run_of_the_table(inputs: Inputs) -> None:
    runs = inputs.point_runs()
    assert len(runs) == 20 and runs[:2] == [
        "released/glove-6b-50d/sum/original",
        "released/glove-6b-50d/sum/compvec",
    ]
    assert all(inputs.point_grid(run) == [{}] for run in runs)
    folder = "results/scheepers2018/points/released/glove-6b-50d/gru/compvec/0"
    assert f"{folder}/record.json" in inputs.records(None)
    assert inputs.runs_args(None) == ["glove=results/scheepers2018/points/released/glove-6b-50d"]
    model = inputs.leaderboard()["scheepers2018/glove_gru_compvec"]
    assert model["run"] == folder and model["record"] == f"{folder}/record.json"


def test_settings_of_original_and_compvec_runs(inputs: Inputs) -> None:
    sum_original = inputs.point_settings("released/glove-6b-50d/sum/original")
    assert sum_original["steps"] == 0 and sum_original["margin"] == 5.0
    gru_original = inputs.point_settings("released/glove-6b-50d/gru/original")
    assert gru_original["steps"] == gru_original["freeze_steps"] == 2000
    gru_compvec = inputs.point_settings("released/glove-6b-50d/gru/compvec")
    assert gru_compvec["freeze_steps"] == 250 and gru_compvec["composer"] == "gru"
    assert "threads" not in gru_compvec and "device" not in gru_compvec


def test_inputs_and_scoring_command(inputs: Inputs) -> None:
    run = "released/glove-6b-50d/gru/compvec"
    found = inputs.point_inputs(run)
    assert found["pairs"] == "resources/compvec/released/train.parquet"
    assert found["init"] == "resources/compvec/released/init/glove-6b-50d.parquet"
    assert found["data"][0] == "resources/compvec/released/test.parquet"
    assert found["sets"] == ["resources/sets/sts2014.parquet", "resources/sets/simlex999.parquet"]
    folder = inputs.folder(run)
    argv = shlex.split(inputs.point_score(run, 0, folder))
    assert argv[:3] == ["paracomp", "scheepers2018", "evaluate"]
    args = build_parser().parse_args(argv[1:])
    assert (args.run, args.data, args.candidates) == (folder, "resources/compvec/released", "all")
    assert args.set == SETS and args.unavailable == UNAVAILABLE
    assert args.train_record == f"{folder}/train.json"
    assert (args.out, args.record) == (f"{folder}/scores.json", f"{folder}/record.json")


def test_replicates_from_the_paper_block_reach_table1() -> None:
    """``papers.scheepers2018.replicates: 3`` (the schema takes it): every run trains its
    seeds 2 and 3 as replicate runs of rule ``point``; Table 1 waits for their records and
    reads each seed's folder (``--seed-runs``), which its parser takes."""
    from paracomp.train.seeded_grid import SeededGrid

    block = paper_settings("scheepers2018", "default", {"replicates": 3})
    missing = {"paragram-wieting2015-full": "needs ppdb-xl-lexicon"}.get
    plain = Inputs(block, {}, "resources/mirror/compvec-wordnet", SETS, UNAVAILABLE, missing)
    grid = SeededGrid.of("scheepers2018", plain, block, {}, 1)
    inputs = Inputs(block, {}, "resources/mirror/compvec-wordnet", SETS, UNAVAILABLE, missing,
                    grid.seed_folders)  # fmt: skip
    assert len(grid.point_runs()) == 3 * 20
    run = "released/glove-6b-50d/sum/compvec"
    assert grid.point_settings(f"{run}_seed3")["seed"] == 3
    folder = "results/scheepers2018/points/released/glove-6b-50d/sum/compvec_seed3/0"
    assert f"{folder}/record.json" in inputs.records(None)
    args = shlex.split(inputs.seed_args(None))
    assert args[0] == "--seed-runs" and len(args) == 1 + 3 * 20
    assert f"glove-6b-50d/sum/compvec:3={folder}" in args
    parsed = build_parser().parse_args(
        ["scheepers2018", "table", "--columns", "{}", "--out", "t.csv", *args]
    )
    assert len(parsed.seed_runs) == 60
    assert plain.seed_args(None) == ""
