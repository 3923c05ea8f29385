"""Checks made when the DAG is built: a table column's mistyped model is named with the
known ones; an absurd sharding plan is warned about with its job count, and refused beyond
the hard limit unless forced; --config's nested numbers are accepted."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from paracomp.corpus.sharding import MAX_JOBS, jobs, plan, plausibility
from paracomp.errors import ConfigError
from paracomp.registry import check_generic_tables, paper_settings

REPO = Path(__file__).resolve().parents[1]


def test_a_mistyped_model_is_named_with_the_known_ones():
    tables = paper_settings("elgohary2016")["tables"]
    models = {"mono_jbi", "mono_jpa", "glove-6b-50d"}
    table3 = {"table3": {"columns": {"mono_jbi": {"model": "mono_jbii"}}}}
    with pytest.raises(ConfigError) as error:
        check_generic_tables("elgohary2016", table3, models)
    assert str(error.value) == (
        "papers.elgohary2016.tables.table3.columns.mono_jbi.model: 'mono_jbii' is neither a run "
        "of elgohary2016 nor a model of config `models`; known: ['glove-6b-50d', 'mono_jbi', "
        "'mono_jpa']"
    )
    check_generic_tables(
        "elgohary2016", {"table3": {"columns": {"mono_jbi": {"model": "mono_jbi"}}}}, models
    )
    check_generic_tables("elgohary2016", {"table3": tables["table3"]})  # models not given


@pytest.mark.slow
def test_the_dag_build_names_a_mistyped_model(tmp_path, dag_error):
    """It used to stop only at MissingInputException ... results/eval/mono_jbii/sts.csv."""
    printed = dag_error(
        tmp_path,
        "papers: {elgohary2016: {tables: {table3: {columns: {mono_jbi: {model: mono_jbii}}}}}}",
    )
    assert "papers.elgohary2016.tables.table3.columns.mono_jbi.model: 'mono_jbii'" in printed
    assert "'mono_jpa'" in printed and "MissingInputException" not in printed


def test_too_many_shards_are_warned_about_with_the_jobs_planned():
    corpus = {"bilingual": "bible", "sharding": {"shards": 100}}
    planned = plan(corpus)
    assert jobs(planned) == 3 + 100 + 2 * 100 + 2 + 2 * 1
    assert plausibility(corpus, planned) == [
        "corpus.sharding: shards 100, partitions 100 for 31,047 sentence pairs (bible) is more "
        "than one job per 1,000 pairs (at most 31 are useful): 307 jobs planned for the phrase "
        "table and the pivot"
    ]
    default = {"bilingual": "bible", "sharding": {"shard_pairs": 25000}}
    assert plausibility(default, plan(default)) == []


def test_an_absurd_plan_is_refused_unless_forced():
    """``shards: 50000`` for the Bible's 31,047 pairs: about a day of job start-ups."""
    corpus = {"bilingual": "bible", "sharding": {"shards": 50000}}
    with pytest.raises(ConfigError, match=r"^corpus\.sharding: 150,007 jobs planned .* more than "
                       rf"corpus\.sharding\.max_jobs = {MAX_JOBS:,}; set corpus\.sharding\.force"):  # fmt: skip
        plausibility(corpus, plan(corpus))
    corpus["sharding"]["force"] = True
    assert "150,007 jobs planned" in plausibility(corpus, plan(corpus))[0]
    corpus["sharding"] = {"shards": 50, "max_jobs": 100}
    with pytest.raises(ConfigError, match="157 jobs planned"):
        plausibility(corpus, plan(corpus))


@pytest.mark.slow
def test_config_numbers_from_the_command_line_build_the_dag(tmp_path, mirror):
    """``--config 'training={threads: 2}'`` used to give '2' is not of type 'integer'."""
    cmd = [
        sys.executable,
        "-m",
        "snakemake",
        "-n",
        "--cores",
        "1",
        "--snakefile",
        str(REPO / "Snakefile"),
    ]
    cmd += ["--directory", str(tmp_path), "--configfile", str(REPO / "config.yaml")]
    cmd += [
        "--config",
        "training={threads: 2, defaults: {lr: 0.1}}",
        "corpus={sharding: {shards: 40}}",
    ]
    env = {**os.environ, "PARACOMP_MIRROR": str(mirror)}
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600, env=env)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    printed = proc.stdout + proc.stderr
    assert "corpus.sharding: shards 40, partitions 40 for 31,047 sentence pairs" in printed
    assert "127 jobs planned" in printed


def test_a_large_grid_is_warned_about_and_refused_beyond_the_limit():
    from paracomp.train.grid import grid_plausibility

    limits = {"warn": 500, "limit": 5000, "force": False}
    assert grid_plausibility("papers.x.runs.r", 500, limits) is None
    assert grid_plausibility("papers.x.runs.r", 501, limits) == (
        "papers.x.runs.r: a grid of 501 points plans 501 training jobs (more than "
        "training.grid_points.warn = 500)"
    )
    with pytest.raises(
        ConfigError, match=r"^papers\.x\.runs\.r: a grid of 6,000 points .*\.limit = 5,000"
    ):
        grid_plausibility("papers.x.runs.r", 6000, limits)
    assert "6,000 training jobs" in grid_plausibility(
        "papers.x.runs.r", 6000, {**limits, "force": True}
    )


@pytest.mark.slow
def test_the_dag_build_refuses_a_grid_beyond_the_limit(tmp_path, dag_error):
    printed = dag_error(tmp_path, "training: {grid_points: {limit: 2}}")
    assert "papers.elgohary2016.runs.mono_jbi: a grid of 4 points plans 4 training jobs" in printed
