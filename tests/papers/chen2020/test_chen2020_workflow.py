"""chen2020 in the DAG: dry runs of every table on the embedded default (with and without the
mirror) and of the paper config (ParaNMT, SNLI and GloVe 840B upstream, full grids, cuda)."""

from __future__ import annotations

import re
import shlex

import pytest

pytestmark = pytest.mark.slow  # dry runs of the whole workflow


def _points(out: str) -> int:
    """chen2020's tuning grid points in a dry run (the target also trains wieting2015's word
    points, whose vectors the PARAGRAM stand-in is)."""
    return len(re.findall(r"output: results/chen2020/points/\w+/\d+/record\.json", out))


def test_every_table_on_the_embedded_default_with_the_mirror(tmp_path, mirror, dry_run):
    out, jobs = dry_run(tmp_path, "chen2020", mirror=mirror)
    # 5 runs: WLO 3 lambdas, 3 baselines x 2 L2 values, wlo_noprior 1 point
    assert _points(out) == 10 and jobs["train_model"] == "5"
    assert jobs["chen2020_scores"] == "13" and jobs["chen2020_score_table"] == "6"
    # the runs start from the PARAGRAM stand-in (WLO: operators [0 | v]); its average is a row
    assert jobs["chen2020_init"] == "2" and "wieting2015_paragram_full" in out
    assert "--init resources/chen2020/init/operators.parquet" in out
    assert "--init resources/chen2020/init/vectors.parquet" in out
    assert "--kind vectors_avg --vectors resources/chen2020/init/vectors.parquet --sts" in out
    assert jobs["chen2020_word_lists"] == "1" and jobs["chen2020_sentence_lists"] == "1"
    assert "resources/packages/sword-text-kjv" in out and "english_bible_pairs" in out
    assert "--news resources/mirror/specificity-news-speciteller" in out
    assert "dataset snli" in out  # Table 4: no configured source has SNLI
    assert '"megabatch": 20' in out and '"scramble": 0.4' in out and "--device cpu" in out
    assert "--point '{\"prior_weight\": 0.001}'" in out
    # every Bible pair, the best of 4 STS-B dev evaluations an epoch; LSTM GAUSSIAN a baseline
    assert '"max_tokens": null' in out and '"evals_per_epoch": 4, "keep_best": true' in out
    assert '"composer": "lstm_gaussian", "dim": 100, "score": "log_eip", "margin": 0.4' in out
    # Word Freq. ranks from GloVe 6B's vocabulary order (the Bible is not general English)
    assert "--kind wordfreq_sum --frequency-order resources/embeddings/glove-6b-50d.parquet" in out


def test_table2_without_the_mirror_says_why(tmp_path, dry_run):
    out, jobs = dry_run(tmp_path, "results/chen2020/table2.csv")
    assert "fetch_mirror" not in out
    assert "dataset specificity-ko2019" in out and "dataset specificity-news-speciteller" in out


def test_paper_config(tmp_path, dry_run):
    out, jobs = dry_run(tmp_path, "chen2020", published=True)
    assert jobs["point"] == "15" and jobs["train_model"] == "5"
    for dataset in ("paranmt-5m", "snli", "specificity-ko2019"):
        assert f"resources/upstream/{dataset}" in out
    assert "chen2020_paranmt_pairs" in out and "english_bible_pairs" not in out
    assert "resources/embeddings/glove-840b-300d.parquet" in out
    assert '"epochs": 10' in out and "--device cuda" in out
    assert "--init" not in out and "chen2020_init" not in out  # random rows (A.1)
    assert "--kind wordfreq_avg --pairs resources/corpus/chen2020/train.parquet" in out
    assert '"max_tokens": null, "train_pairs": null, "tuning_pairs": 100000' in out


RUNS = ("wordavg", "lstm_avg", "lstm_gaussian", "wlo", "wlo_noprior")
LAST_WEIGHTS = "papers: {chen2020: {runs: {" + ", ".join(f"{r}: {{keep_best: false}}" for r in RUNS)
LAST_WEIGHTS += "}}}"


def test_stacked_grid_on_the_paper_config(tmp_path, dry_run):
    """``training.stack_grid`` serves chen2020's runs as elgohary2016's, where they keep their
    last weights: one tuning job per stack of grid points, each point's record copied out for
    the unchanged selection; with ``keep_best`` (the default) ``true`` leaves chen2020 to train
    point by point and a list naming it is refused in one line."""
    override = "training: {stack_grid: true}"
    _, jobs = dry_run(tmp_path / "all", "chen2020", published=True, override=override)
    assert "point_stack" not in jobs and int(jobs["point"]) >= 1
    with pytest.raises(AssertionError, match="keep_best trains point by point"):
        dry_run(tmp_path / "named", "chen2020", published=True,
                override="training: {stack_grid: [chen2020]}")  # fmt: skip
    out, jobs = dry_run(
        tmp_path, "chen2020", published=True, override=f"{override}\n{LAST_WEIGHTS}"
    )
    assert "point" not in jobs and int(jobs["point_stack"]) >= 1
    assert jobs["stacked_point"] == "15" and jobs["select_point"] == "5"
    assert jobs["train_model"] == "5" and "paracomp train-stack" in out


def test_seed_replicates_of_the_runs(tmp_path, mirror, dry_run):
    """``replicates: 2`` trains each run once more (the same tuned point, seed 2); every seed
    is scored (WORDSUM's from WORDAVG's replicate) and the tables read them all."""
    out, jobs = dry_run(
        tmp_path, "chen2020", mirror=mirror, override="papers: {chen2020: {replicates: 2}}"
    )
    assert _points(out) == 10 and jobs["train_model"] == "10"
    assert jobs["chen2020_scores"] == "19"  # 13 + the five runs' and WORDSUM's replicates
    assert "--kind run_sum --run results/chen2020/runs/wordavg_seed2" in out
    scores = "results/chen2020/scores"
    seeds = f"--seed-scores wlo:1={scores}/wlo.parquet wlo:2={scores}/wlo_seed2.parquet"
    assert seeds in out
    assert f"wordsum:2={scores}/wordsum_seed2.parquet" in out
    # the tables' setting names the configured runs, not their replicates (the schema's names)
    from paracomp.papers.chen2020.cli import _setting

    table = next(line for line in out.splitlines() if "paracomp chen2020 table table3" in line)
    setting = _setting(shlex.split(table.split("--setting ", 1)[1])[0])
    assert set(setting["runs"]) == {"wordavg", "lstm_avg", "lstm_gaussian", "wlo", "wlo_noprior"}
