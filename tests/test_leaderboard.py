"""The leaderboard: its rows, columns and means by hand from small evaluation files; a run
folder evaluated by ``paracomp evaluate --run`` scores as its paper's own evaluation path does
(a pair run as wieting2017's transfer scoring, a CompVec run as scheepers2018's); the
``leaderboard`` target's DAG covers every paper's trained runs."""

from __future__ import annotations

import json
import math
import re

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from paracomp import artefacts
from paracomp.cli import main
from paracomp.errors import DataError
from paracomp.tables.leaderboard import Entry, leaderboard, read_entries, write_leaderboard

STS_SETS = ["sts2012", "sts2013", "stsbenchmark"]
WORD_SETS = ["simlex999", "men"]
STS_HEAD = "dataset,subset,split,n,n_oov,n_dropped,pearson,spearman,source,note"
WORD_HEAD = "dataset,n_total,n,n_oov,spearman,pearson,source,note"


def _evaluation(folder, sts_rows, word_rows, composition="averaged word rows"):
    folder.mkdir(parents=True)
    (folder / "sts.csv").write_text("\n".join([STS_HEAD, *sts_rows]) + "\n")
    (folder / "wordsim.csv").write_text("\n".join([WORD_HEAD, *word_rows]) + "\n")
    (folder / "encoder.json").write_text(json.dumps({"composition": composition}))
    return folder


@pytest.fixture
def entries(tmp_path):
    a = _evaluation(
        tmp_path / "a",
        [
            "sts2012,MSRpar,,10,0,0,0.5,0.4,mirror,",
            "sts2012,MSRvid,,10,1,0,0.7,0.6,mirror,",
            "sts2013,*,,0,0,0,,,,no source provides it",
            "stsbenchmark,stsb,test,5,0,0,0.8,0.7,mirror,",
        ],
        ["simlex999,6,5,1,0.3,0.2,registry,", "men,4,0,4,,,registry,"],
    )
    b = _evaluation(
        tmp_path / "b",
        [
            "sts2012,MSRpar,,10,0,0,0.9,0.9,mirror,",
            "sts2012,MSRvid,,0,0,0,,,mirror,",
            "sts2013,*,,0,0,0,,,,no source provides it",
            "stsbenchmark,stsb,test,5,0,0,0.6,0.6,mirror,",
        ],
        ["simlex999,6,6,0,0.5,0.5,registry,", "men,4,4,0,0.4,0.4,registry,"],
        composition="composer lstm",
    )
    return [
        Entry("glove", "", a),
        Entry("p/run", "p", b, note="a remark"),
        Entry("p/tree", "p", None, note="needs parses", composition="composer tree_rnn"),
    ]


def test_rows_columns_and_means_by_hand(entries):
    frame = leaderboard(entries, STS_SETS, WORD_SETS).set_index("model")
    assert list(frame.index) == ["p/run", "glove", "p/tree"]  # by sts mean: 75 > 70, none last
    glove, run, tree = frame.loc["glove"], frame.loc["p/run"], frame.loc["p/tree"]
    assert glove["sts2012"] == pytest.approx(60.0)  # the year's mean: (50 + 70) / 2
    assert glove["sts2012/MSRpar"] == pytest.approx(50.0)
    assert math.isnan(glove["sts2013"]) and glove["stsbenchmark"] == pytest.approx(80.0)
    assert glove["sts mean"] == pytest.approx(70.0)  # over the scored sets: (60 + 80) / 2
    assert glove["simlex999"] == pytest.approx(30.0) and math.isnan(glove["men"])
    assert glove["wordsim mean"] == pytest.approx(30.0)
    assert glove["composition"] == "averaged word rows"
    assert "sts2013" in glove["note"] and "men" in glove["note"]
    assert run["sts2012"] == pytest.approx(90.0) and math.isnan(run["sts2012/MSRvid"])
    assert run["sts mean"] == pytest.approx(75.0) and run["wordsim mean"] == pytest.approx(45.0)
    assert run["composition"] == "composer lstm" and run["note"].startswith("a remark; ")
    assert tree[["sts2012", "sts mean", "simlex999"]].isna().all()
    assert tree["note"] == "needs parses" and tree["composition"] == "composer tree_rnn"
    assert "stsbenchmark/stsb" not in frame.columns  # one subset: the set's column alone


def test_written_files(entries, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    write_leaderboard(entries, STS_SETS, WORD_SETS, out / "l.csv", out / "l.md", out / "l.png")
    table = pd.read_csv(out / "l.csv")
    assert list(table["model"]) == ["p/run", "glove", "p/tree"]
    lines = (out / "l.md").read_text().splitlines()
    rows = [line for line in lines if line.startswith("| p/") or line.startswith("| glove")]
    assert rows[0].startswith("| p/run | p | composer lstm | 90.0 |  | 60.0 | 75.0 | 50.0 | 40.0")
    assert "MSRpar" not in "\n".join(lines)  # subsets only in the CSV
    assert (out / "l.png").read_bytes()[:4] == b"\x89PNG"


def test_entries_and_errors(entries, tmp_path):
    parsed = read_entries(
        json.dumps({"m": {"paper": "p", "eval": str(tmp_path / "a"), "note": ""},
                    "n": {"paper": "p", "eval": None, "note": "why"}})
    )  # fmt: skip
    assert parsed[0].evaluation == tmp_path / "a" and parsed[1].evaluation is None
    with pytest.raises(DataError, match="unknown key"):
        read_entries(json.dumps({"m": {"evaluation": "x"}}))
    (tmp_path / "a" / "encoder.json").unlink()
    with pytest.raises(DataError, match="encoder.json"):
        leaderboard(entries, STS_SETS, WORD_SETS)
    (tmp_path / "b" / "sts.csv").unlink()
    with pytest.raises(DataError, match="b/sts.csv: no such evaluation file"):
        leaderboard(entries[1:], STS_SETS, WORD_SETS)


# -- a run folder through its own composer ------------------------------------------------

WORDS = ["a", "small", "dog", "cat", "animal", "pet", "young", "kitten", "puppy", "the"]


def _sentence_set(path):
    rng = np.random.default_rng(3)
    rows = []
    for subset in ("one", "two"):
        for i in range(8):
            s1 = " ".join(rng.choice(WORDS + ["zebra"], size=rng.integers(2, 6)))
            s2 = " ".join(rng.choice(WORDS, size=rng.integers(2, 6)))
            rows.append(("toysts", subset, "test", f"{subset}{i}", s1, s2, float(i % 5), None))
    table = pa.table(dict(zip(artefacts.SENTENCE_PAIRS.names, zip(*rows))))
    prov = artefacts.Provenance("toysts", "mirror", {}, {})
    artefacts.write(table, path, artefacts.SENTENCE_PAIRS, prov)
    return path


def _evaluate_run(tmp_path, run, *extra):
    sets = _sentence_set(tmp_path / "toysts.parquet")
    out = tmp_path / "eval"
    args = ["evaluate", "--run", str(run), *extra, "--sts", str(sets), "--tokenizer"]
    args += ["whitespace", "--lowercase", "--oov", "skip", "--out", str(out)]
    assert main(args) == 0
    return sets, out


def test_pair_run_scores_as_its_papers_transfer_scoring(tmp_path):
    from paracomp.papers.wieting2017.transfer import ScoringSets, score_point
    from paracomp.run_config import TrainConfig
    from paracomp.train.tasks import train_pairs

    pairs = pa.table(
        {"id": ["1", "2", "3", "4"], "s1": ["a small dog", "the cat", "a young cat", "pet"],
         "s2": ["a puppy", "a kitten", "the kitten", "animal"]}
    )  # fmt: skip
    config = TrainConfig(
        objective="paraphrase", composer="gran", dim=4, shared_vocab=True, batch_size=2,
        epochs=1, optimizer="adam", lr=0.01, seed=2,
    )  # fmt: skip
    train_pairs(config, pairs, tmp_path / "run", progress=False)
    sets, out = _evaluate_run(tmp_path, tmp_path / "run")
    ours = pd.read_csv(out / "sts.csv").set_index("subset")
    on = ScoringSets({"toysts": sets}, {}, {}, "whitespace", True)
    paper, _ = score_point(tmp_path / "run", on)
    paper = paper.set_index("subset")
    assert len(ours) == 2 and ours["n"].tolist() == [8, 8] and ours["pearson"].notna().all()
    np.testing.assert_allclose(ours["pearson"], paper["pearson"].astype(float), rtol=1e-5)
    assert json.loads((out / "encoder.json").read_text())["composition"] == "composer gran"


def test_compvec_run_scores_as_its_papers_evaluation(tmp_path):
    from paracomp.eval.composed import ComposedEncoder
    from paracomp.papers.scheepers2018.evaluate import _sts
    from paracomp.papers.scheepers2018.runs import run_config
    from paracomp.run_folder import read_definition_model
    from paracomp.train.tasks import train_targets

    vocab = ["PAD", "UNK", *WORDS[:9]]
    definitions = pa.table(
        {"lemma": ["dog", "cat", "kitten", "puppy", "pet"],
         "definition": ["a small animal", "a small pet animal", "a young cat", "a young dog",
                        "a tame animal"]}
    )  # fmt: skip
    rng = np.random.default_rng(0)
    matrix = rng.normal(size=(len(vocab), 6)).astype(np.float32)
    matrix[0] = 0
    settings = {"steps": 6, "freeze_steps": 2, "batch_size": 4}
    config = run_config("gru", "gru", "compvec", settings, {"default": 0.25})
    train_targets(config, definitions, vocab, matrix, tmp_path / "run")
    fallback = tmp_path / "pretrained.parquet"
    extra = ["the", "zebra"]
    words, rows = [*vocab[2:], *extra], rng.normal(size=(len(vocab) - 2 + 2, 6))
    prov = artefacts.Provenance("toy", "test", {}, {})
    artefacts.write_embeddings(words, rows.astype(np.float32), fallback, prov)
    sets, out = _evaluate_run(tmp_path, tmp_path / "run", "--fallback", str(fallback))
    ours = pd.read_csv(out / "sts.csv").set_index("subset")["pearson"]
    assert len(ours) == 2 and ours.notna().all()
    model, vocabulary = read_definition_model(tmp_path / "run")
    encoder = ComposedEncoder(
        model.composer, vocabulary, model.weight.detach().numpy(), words,
        rows.astype(np.float32), 32,
    )  # fmt: skip
    items: list[pd.DataFrame] = []
    paper = _sts(sets, encoder, "sts14", items)["subsets"]
    np.testing.assert_allclose(ours.tolist(), [paper[s]["pearson"] for s in ours.index], 1e-5)
    # its items: the generic evaluator's pairs under the same test-set keys (paired resamples)
    kept = pd.concat(items).set_index("key")
    pairs = pd.read_parquet(out / "pairs.parquet")
    for subset in ("one", "two"):
        mine, theirs = kept.loc[f"toysts/{subset}/test"], pairs[pairs["subset"] == subset]
        assert (mine["size"] == 8).all() and mine["position"].tolist() == list(range(8))
        np.testing.assert_allclose(mine["pred"], theirs["pred"], rtol=1e-5)
    encoding = json.loads((out / "encoder.json").read_text())
    assert encoding["composition"] == "composer gru" and encoding["objective"] == "targets"
    # without the fallback vectors "the" and "zebra" are skipped: other scores
    _, alone = _evaluate_run(tmp_path / "alone", tmp_path / "run")
    assert not np.allclose(pd.read_csv(alone / "sts.csv")["pearson"], ours.to_numpy())


@pytest.mark.slow
def test_leaderboard_dag_covers_every_papers_runs(tmp_path, mirror, dry_run):
    """`snakemake leaderboard`: every paper's trained runs evaluated through the generic
    evaluator (runs with composers by --run, wieting2017's supervised encoders per task with
    the vectors they started from), the pretrained models by --embeddings."""
    out, jobs = dry_run(tmp_path, "leaderboard", mirror=mirror)
    assert jobs["leaderboard_table"] == "1" and int(jobs["evaluate"]) > 50
    for folder in (
        "results/elgohary2016/runs/mono_jbi",
        "results/chen2020/runs/wlo",
        "results/wieting2017/selected/gran_dropout_scrambling",
    ):
        assert f"paracomp evaluate --run {folder} --sts " in out
    compvec = r"--run results/scheepers2018/points/\w+/glove-6b-50d/gru/compvec/0"
    assert re.search(compvec + " --fallback resources/embeddings/glove-6b-50d.parquet", out)
    assert "--embeddings resources/embeddings/paragram-wieting2015-full.parquet" in out
    assert "--embeddings resources/embeddings/glove-6b-50d.parquet" in out
    assert "wieting2017 select-point --points gran_dropout_scrambling=" in out
    assert "paracomp evaluate --run results/wieting2015/rnn/phrases.selected --sts " in out
    supervised = "results/wieting2017/supervised/gran_dropout_scrambling_universal/sts.selected"
    start = "results/wieting2017/selected/gran_dropout_scrambling/embeddings.parquet"
    assert f"paracomp evaluate --run {supervised} --fallback {start} --sts " in out
    own = "results/wieting2017/supervised/avg_none/sick.selected"
    assert f"--run {own} --fallback resources/wieting2017/init.parquet --sts " in out
    assert "wieting2017 select-supervised --records" in out


def test_fallback_needs_a_run(tmp_path, capsys):
    args = ["evaluate", "--embeddings", str(tmp_path / "e.parquet"), "--fallback", "f.parquet"]
    args += ["--tokenizer", "whitespace", "--lowercase", "--oov", "skip", "--out", str(tmp_path)]
    assert main(args) == 2
    assert "--fallback is for a run folder (--run) only" in capsys.readouterr().err
