"""Seed replicates of wieting2017's scored grid points: ``replicates`` on a transfer run makes
one more run of its grid per seed for the generic rule ``point`` (paracomp.train.seeded_grid),
Tables 1-4 read every seed's points, and a cell over seeds has their mean, sd, number and an
interval over seeds and test pairs; without ``replicates`` nothing changes."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from paracomp.errors import ConfigError
from paracomp.papers import PAPERS
from paracomp.papers.wieting2017.tables import write_transfer_table
from paracomp.papers.wieting2017.workflow import INITIAL_SCORES, Inputs, table_runs
from paracomp.registration import Registration, Registrations
from paracomp.registry import paper_settings
from paracomp.tables.claims import Claim
from paracomp.tables.findings import findings
from paracomp.tables.replicates import read_replicates
from paracomp.workflow.runs import Runs

EVALUATION = {"splits": {"sts2016": "test"}, "tokenizer": "moses", "lowercase": True}
TRAINING = {"defaults": {}, "allow_cpu_fallback": False, "grid_points": {"warn": 3, "limit": 50}}


class _Wildcards:
    transfer_table = "table2"


def _runs(override: dict | None = None, training: dict | None = None) -> tuple[Runs, Inputs]:
    """The workflow's runs with wieting2017's Inputs as its scored grid (the rule files'
    order: Inputs read the runs' seed folders, the runs read the registered Inputs)."""
    block = paper_settings("wieting2017", "default", override)
    found = Registrations(PAPERS)
    runs = Runs({"wieting2017": block}, {**TRAINING, **(training or {})}, found)
    seeds = runs.seed_folders("wieting2017")
    inputs = Inputs.configured(block, {}, ["sts2016"], [], {}.get, EVALUATION, seeds)
    for paper in PAPERS:
        found.register(Registration(paper, points=inputs if paper == "wieting2017" else None))
    return runs, inputs


def test_replicates_add_a_run_of_the_grid_per_seed_for_the_point_rule():
    override = {"transfer": {"avg_none": {"replicates": 2}}}
    runs, inputs = _runs(override)
    grid = runs.scored_grid("wieting2017")
    assert set(runs.scored_runs()) == {*inputs.point_runs(), "avg_none_seed2"}
    assert grid.point_settings("avg_none_seed2") == {**inputs.point_settings("avg_none"), "seed": 2}
    assert grid.point_grid("avg_none_seed2") == inputs.point_grid("avg_none")
    assert grid.point_inputs("avg_none_seed2") == inputs.point_inputs("avg_none")
    command = runs.point_score("wieting2017", "avg_none_seed2", 1)
    assert "--run results/wieting2017/points/avg_none_seed2/1 --run-name avg_none" in command
    folders = grid.seed_folders("avg_none")
    assert folders == {
        1: ["results/wieting2017/points/avg_none/0", "results/wieting2017/points/avg_none/1"],
        2: [f"results/wieting2017/points/avg_none_seed2/{p}" for p in (0, 1)],
    }
    args = inputs.table_args(_Wildcards())
    assert " --seed-points avg_none:1=results/wieting2017/points/avg_none/0 " in args
    assert args.endswith("avg_none:2=results/wieting2017/points/avg_none_seed2/1")
    assert "results/wieting2017/points/avg_none_seed2/0/record.json" in inputs.table_inputs(
        _Wildcards()
    )
    # the paper's and training's replicates reach every run, a run's own wins
    runs, _ = _runs({"replicates": [1, 5], "transfer": {"lstm_none": {"replicates": 1}}})
    assert "avg_none_seed5" in runs.scored_runs() and "lstm_none_seed5" not in runs.scored_runs()
    runs, _ = _runs(training={"replicates": 3})
    assert {"gran_none_seed2", "gran_none_seed3"} <= set(runs.scored_runs())


def test_a_replicate_named_as_a_scored_run_is_refused():
    clash = {"model": "avg", "data": "sentences", "grid": "none"}
    runs, _ = _runs({"transfer": {"avg_none": {"replicates": 2}, "avg_none_seed2": clash}})
    with pytest.raises(ConfigError, match="replicate 'avg_none_seed2' of scored run 'avg_none'"):
        runs.scored_runs()


def test_without_replicates_the_points_and_table_args_are_unchanged():
    runs, inputs = _runs()
    grid = runs.scored_grid("wieting2017")
    assert runs.scored_runs() == sorted(inputs.point_runs()) and grid.groups == {}
    for run in inputs.point_runs():
        assert grid.point_settings(run) == inputs.point_settings(run)
        assert grid.seed_folders(run) == {}
    args = inputs.table_args(_Wildcards())
    assert "--seed-points" not in args and args.startswith("--points avg_dropout=")
    # the initial vectors' scores and the 24 points of the 12 runs, as without seeds
    records = [r for run in table_runs("table2") for r in inputs.point_records(run)]
    assert inputs.table_inputs(_Wildcards()) == [INITIAL_SCORES, *records]


def test_a_cell_over_seeds_has_their_mean_sd_and_number(tmp_path, transfer_setting, scored_point):
    """avg_none over seeds 1 and 2 (each seed's grid picked by its own STS 2016 mean),
    lstm_none one seed; the replicates file keeps the seeds' values."""

    def grid(run: str, seed: int, noises: tuple[float, float]) -> list:
        return [scored_point(tmp_path / f"{run}_{seed}" / str(p), run, p, noises[p], [seed, p])
                for p in (0, 1)]  # fmt: skip

    seeds = {1: grid("avg_none", 1, (1.0, 2.0)), 2: grid("avg_none", 2, (2.0, 1.0)),
             3: grid("avg_none", 3, (6.0, 6.0))}  # fmt: skip
    lstm = grid("lstm_none", 1, (2.5, 2.5))
    points = [f"avg_none={d}" for d in seeds[1]] + [f"lstm_none={d}" for d in lstm]
    seed_points = [f"avg_none:{s}={d}" for s, found in seeds.items() for d in found]
    one = tmp_path / "one" / "table2.csv"
    one.parent.mkdir()
    write_transfer_table("table2", points, transfer_setting, one)
    out = tmp_path / "table2.csv"
    write_transfer_table("table2", points, transfer_setting, out, seed_points=seed_points)
    compare = pd.read_csv(out.with_suffix(".compare.csv")).set_index(["row", "column"])
    alone = pd.read_csv(one.with_suffix(".compare.csv")).set_index(["row", "column"])
    each = []  # seed 3's noise collapses its r: left out
    for found in (seeds[1], seeds[2]):
        frames = [pd.read_csv(d / "scores.csv") for d in found]
        picked = max(frames, key=lambda f: f[f["dataset"] == "sts2016"]["pearson"].mean())
        each.append(100 * picked[picked["dataset"] != "sts2016"]["pearson"].mean())
    cell = compare.loc[("avg_none", "sts2016")]
    assert cell["replicates"] == 2 and alone.loc[("avg_none", "sts2016"), "replicates"] == 1
    assert cell["ours"] == pytest.approx(np.mean(each), abs=0.05)
    assert cell["sd"] == pytest.approx(np.std(each, ddof=1), abs=0.05) and cell["sd"] > 0
    assert "mean over 2 seeds (1, 2); seed 3 collapsed (" in cell["note"]
    assert "seed 2: " in cell["data"]
    assert cell["ci_low"] < cell["ours"] < cell["ci_high"]
    assert compare.loc[("avg_none", "oracle"), "replicates"] == 2
    assert "Over seeds (each seed's grid" in out.with_suffix(".md").read_text()
    assert "`avg_none` (1, 2, 3)." in out.with_suffix(".md").read_text()
    assert compare.loc[("lstm_none", "sts2016")].equals(alone.loc[("lstm_none", "sts2016")])
    reps = read_replicates(out.with_name("table2.replicates.parquet"))
    assert sorted(reps.seeds["avg_none|sts2016"]) == pytest.approx(sorted(each))
    assert "lstm_none|sts2016" not in reps.seeds and "avg_none|sts2016" in reps.test
    claims = [Claim("c", "q", "w", "[table2|avg_none|sts2016] > [table2|lstm_none|sts2016]")]
    row = findings(claims, {"table2": out.with_suffix(".compare.csv")},
                   {"table2": out.with_name("table2.replicates.parquet")})[0]  # fmt: skip
    assert row["holds"] == "yes" and "dominate (margin sd over 2 seeds" in row["noise"]
    assert "[table2|avg_none|sts2016]: seed 3 collapsed" in row["noise"]


@pytest.mark.slow
def test_replicates_are_jobs_of_the_point_rule_in_the_dag(tmp_path, mirror, dry_run):
    target = "results/wieting2017/table2.csv"
    _, plain = dry_run(tmp_path / "plain", target, mirror=mirror)
    override = "papers: {wieting2017: {transfer: {avg_none: {replicates: 2}}}}"
    out, seeded = dry_run(tmp_path / "seeded", target, mirror=mirror, override=override)
    assert {r: n for r, n in seeded.items() if plain.get(r) != n} == {
        "point": str(int(plain["point"]) + 2),
        "total": str(int(plain["total"]) + 2),
    }
    assert "results/wieting2017/points/avg_none_seed2/1/record.json" in out
    assert "--seed-points avg_none:1=results/wieting2017/points/avg_none/0" in out
