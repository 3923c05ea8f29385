"""paracomp.load_encoder and the encode/similarity/neighbours/export commands: a model's
encoder is the evaluator's (its recorded tokenisation, its scores), exports load back in
gensim, sentence-transformers, model2vec and a fresh process, bad input is named."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from paracomp import artefacts
from paracomp.cli import main
from paracomp.encoders import bundle, vectors, wordlevel
from paracomp.encoders.encoder import Tokenisation
from paracomp.encoders.export import export
from paracomp.encoders.load import load_encoder
from paracomp.errors import ConfigError, DataError
from paracomp.eval.model_encoder import embeddings_encoder, run_encoder
from paracomp.eval.run import evaluate_model
from paracomp.eval.tokens import tokenize_all

PAIRS = [
    ("A man is playing a guitar.", "A man plays the guitar.", 4.8),
    ("A woman is slicing an onion.", "Someone cuts an onion.", 4.0),
    ("The cat sat on the mat.", "A dog runs in the park.", 0.4),
    ("Stocks fell sharply today.", "The market dropped.", 3.2),
    ("Kids are playing football.", "Children play soccer outside.", 3.9),
]
WORDS = sorted({w for a, b, _ in PAIRS for w in f"{a} {b}".lower().replace(".", " .").split()})


def _sts_set(path: Path) -> None:
    n = len(PAIRS)
    table = pa.table(
        {
            "dataset": ["toy"] * n,
            "subset": ["all"] * n,
            "split": ["test"] * n,
            "id": [str(i) for i in range(n)],
            "s1": [a for a, _, _ in PAIRS],
            "s2": [b for _, b, _ in PAIRS],
            "score": [s for _, _, s in PAIRS],
            "label": [None] * n,
        }
    )
    artefacts.write(
        table, path, artefacts.SENTENCE_PAIRS, artefacts.Provenance("toy", "test", {}, {})
    )


def _evaluate(model: str, encoding, encoder) -> None:
    evaluate_model(encoding, encoder, [Path("sets/toy.parquet")], [], {}, {}, "moses", True,
                   "skip", Path("results/eval") / model)  # fmt: skip


def _vectors_model(name: str, path: Path, words: list[str]) -> None:
    """Random word vectors at ``path``, evaluated as the model ``name``."""
    matrix = np.random.default_rng(0).normal(size=(len(words), 8)).astype(np.float32)
    path.parent.mkdir(parents=True, exist_ok=True)
    artefacts.write_embeddings(words, matrix, path, artefacts.Provenance("toy", "test", {}, {}))
    _evaluate(name, *embeddings_encoder(path, "skip"))


def _run_model(name: str, run: Path, composer: str) -> None:
    """A run of ``composer`` trained for an epoch on the toy pairs, evaluated as ``name``."""
    from paracomp.run_config import TrainConfig
    from paracomp.train.tasks import train_pairs

    pairs = pa.table(
        {
            "id": [str(i) for i in range(len(PAIRS))],
            "s1": [a.lower().replace(".", " .") for a, _, _ in PAIRS],
            "s2": [b.lower().replace(".", " .") for _, b, _ in PAIRS],
        }
    )
    config = TrainConfig(objective="paraphrase", composer=composer, dim=8, batch_size=2,
                         epochs=1, optimizer="adam", lr=0.01, shared_vocab=True)  # fmt: skip
    train_pairs(config, pairs, run, progress=False)
    _evaluate(name, *run_encoder(run))


@pytest.fixture
def project(tmp_path, monkeypatch):
    """A project folder with word vectors and a GRAN run, both evaluated on a toy set."""
    monkeypatch.chdir(tmp_path)
    Path("sets").mkdir()
    _sts_set(Path("sets/toy.parquet"))
    _vectors_model("toy-vectors", Path("resources/embeddings/toy.parquet"), WORDS)
    _run_model("toy/gran", Path("results/toy/runs/gran"), "gran")
    return tmp_path


def _predictions(model: str) -> np.ndarray:
    import pandas as pd

    return pd.read_parquet(Path("results/eval") / model / "pairs.parquet")["pred"].to_numpy()


@pytest.mark.parametrize("source", ["toy-vectors", "resources/embeddings/toy.parquet"])
def test_vectors_by_name_or_file_score_as_the_evaluator(project, source):
    encoder = load_encoder(source)
    assert encoder.tokenisation == Tokenisation("moses", True, "skip")
    assert encoder.info["model"] == "toy-vectors"
    scores = encoder.similarity([a for a, _, _ in PAIRS], [b for _, b, _ in PAIRS])
    np.testing.assert_allclose(scores, _predictions("toy-vectors"), atol=1e-6)


@pytest.mark.parametrize("source", ["toy/gran", "results/toy/runs/gran"])
def test_run_by_name_or_folder_scores_as_the_evaluator(project, source):
    encoder = load_encoder(source)
    scores = encoder.similarity([a for a, _, _ in PAIRS], [b for _, b, _ in PAIRS])
    np.testing.assert_allclose(scores, _predictions("toy/gran"), atol=1e-6)
    unit = encoder.encode(["A man plays.", ""], batch_size=1, normalize=True)
    np.testing.assert_allclose(np.linalg.norm(unit, axis=1), [1.0, 0.0], atol=1e-6)


def test_unknown_name_lists_the_known_ones(project):
    with pytest.raises(
        ConfigError, match=r"unknown model 'toy/lstm'; known: toy-vectors, toy/gran"
    ):
        load_encoder("toy/lstm")


def test_a_source_nothing_evaluated_needs_its_tokenisation(project, tmp_path):
    words, matrix = artefacts.read_embeddings("resources/embeddings/toy.parquet")
    other = tmp_path / "other.parquet"
    artefacts.write_embeddings(words, matrix, other, artefacts.Provenance("o", "t", {}, {}))
    with pytest.raises(ConfigError, match="no evaluation records how this model tokenises"):
        load_encoder(other)
    given = Tokenisation("whitespace", False, "skip")
    assert load_encoder(other, tokenisation=given).tokenize(["A b"]) == [["A", "b"]]
    with pytest.raises(ConfigError, match="evaluated with"):
        load_encoder("toy-vectors", tokenisation=given)


@pytest.mark.slow  # a fresh Python process
def test_recurrent_export_loads_in_a_fresh_process(project, tmp_path):
    encoder = load_encoder("toy/gran")
    out = tmp_path / "gran-export"
    export(encoder, "paracomp", out)
    import pandas as pd

    card = (out / "README.md").read_text()
    pearson = pd.read_csv("results/eval/toy/gran/sts.csv")["pearson"].iloc[0]
    assert "# toy/gran" in card and f"| toy | {100 * pearson:.1f} |" in card
    code = (
        "import sys, numpy as np, paracomp\n"
        f"e = paracomp.load_encoder({str(out)!r})\n"
        f"print(e.similarity({[a for a, _, _ in PAIRS]!r}, {[b for _, b, _ in PAIRS]!r}).tolist())"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd="/", check=False)  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-2000:]
    np.testing.assert_allclose(json.loads(proc.stdout), _predictions("toy/gran"), atol=1e-6)
    with pytest.raises(ConfigError, match="composer 'gran', not by averaging"):
        export(encoder, "word2vec", tmp_path / "w2v")
    assert not (tmp_path / "w2v").exists()


def test_the_model_card_gives_the_leaderboards_scores_with_their_intervals(project, tmp_path):
    board = Path("results/leaderboard.csv")
    board.write_text(
        "model,paper,composition,toy,toy ci_low,toy ci_high,sts mean,sts mean ci_low,"
        "sts mean ci_high,rank,rank_low,rank_high,men,wordsim mean,toy/all,note\n"
        "toy/gran,toy,composer gran,45.67,40.12,51.03,45.67,40.12,51.03,1,1,2,,,45.67,\n"
        "toy-vectors,,mean of word rows,30.00,,,30.00,,,2,1,2,12.5,12.5,30.00,no score: x\n"
    )
    export(load_encoder("toy/gran"), "paracomp", tmp_path / "gran")
    card = (tmp_path / "gran" / "README.md").read_text()
    assert "| toy | 45.7 | 40.1–51.0 |\n| sts mean | 45.7 | 40.1–51.0 |\n" in card
    assert "Rank by sts mean: 1 of 2 (95% interval 1–2 over the joint resamples)" in card
    assert "toy/all" not in card and "| men |" not in card
    export(load_encoder("toy-vectors"), "word2vec", tmp_path / "w2v")
    card = (tmp_path / "w2v" / "README.md").read_text()
    assert "| sts mean | 30.0 |  |\n| men | 12.5 |  |\n" in card and "no score: x" in card
    board.write_text(board.read_text().replace("toy-vectors", "other"))
    export(load_encoder("toy-vectors"), "word2vec", tmp_path / "w2v")
    card = (tmp_path / "w2v" / "README.md").read_text()
    assert "not in `results/leaderboard.csv`" in card and "| sts mean |" in card
    board.write_text("name,sts mean\ntoy-vectors,1\n")
    with pytest.raises(DataError, match=r"leaderboard.csv: no column 'model'; the columns are"):
        export(load_encoder("toy-vectors"), "word2vec", tmp_path / "w2v")


def test_a_newer_format_version_is_refused(project, tmp_path):
    out = tmp_path / "vectors-export"
    export(load_encoder("toy-vectors"), "paracomp", out)
    settings = json.loads((out / bundle.SETTINGS).read_text())
    (out / bundle.SETTINGS).write_text(json.dumps({**settings, "version": bundle.VERSION + 1}))
    with pytest.raises(DataError, match=f"format version {bundle.VERSION + 1}"):
        load_encoder(out)


@pytest.mark.parametrize("fmt", ["word2vec", "glove"])
def test_gensim_reads_the_text_vectors(project, tmp_path, fmt):
    from gensim.models import KeyedVectors

    export(load_encoder("toy-vectors"), fmt, tmp_path / fmt)
    loaded = KeyedVectors.load_word2vec_format(
        tmp_path / fmt / "vectors.txt", no_header=fmt == "glove"
    )
    words, matrix = artefacts.read_embeddings("resources/embeddings/toy.parquet")
    assert list(loaded.index_to_key) == words
    np.testing.assert_allclose(loaded.vectors, matrix, atol=1e-6)


@pytest.mark.slow
def test_a_compvec_run_exports_as_static_vectors(tmp_path):
    """A CompVec run (scheepers2018: word rows tuned towards lemma vectors, composed by their
    mean) exports its tuned rows as word2vec and GloVe text, which gensim reads back, and as
    a model2vec folder that encodes as the run does."""
    from gensim.models import KeyedVectors
    from model2vec import StaticModel

    from paracomp.papers.scheepers2018.runs import run_config
    from paracomp.run_folder import read_rows
    from paracomp.train.tasks import train_targets

    vocab = ["PAD", "UNK", *WORDS]
    definitions = pa.table(
        {"lemma": ["guitar", "onion", "cat", "market", "football"],
         "definition": ["a man plays", "someone cuts an", "the dog on the mat", "stocks fell",
                        "kids are playing soccer"]}
    )  # fmt: skip
    initial = np.random.default_rng(0).normal(size=(len(vocab), 6)).astype(np.float32)
    initial[0] = 0
    settings = {"steps": 6, "freeze_steps": 2, "batch_size": 4}
    config = run_config("average", "mean", "compvec", settings, {"default": 0.25})
    train_targets(config, definitions, vocab, initial, tmp_path / "run")
    words, tuned = read_rows(tmp_path / "run")
    assert words == vocab and not np.allclose(tuned, initial)  # CompVec moved the rows
    encoder = load_encoder(tmp_path / "run", tokenisation=Tokenisation("moses", True, "skip"))
    assert encoder.info["composition"] == "composer mean"
    for fmt in ("word2vec", "glove"):
        export(encoder, fmt, tmp_path / fmt)
        loaded = KeyedVectors.load_word2vec_format(
            tmp_path / fmt / "vectors.txt", no_header=fmt == "glove"
        )
        assert list(loaded.index_to_key) == WORDS  # PAD and UNK are not words
        np.testing.assert_allclose(loaded.vectors, tuned[2:], atol=1e-6)
    export(encoder, "model2vec", tmp_path / "m2v")
    sentences = [a for a, _, _ in PAIRS] + ["Zebras sing.", "The cat plays football."]
    m2v = StaticModel.from_pretrained(tmp_path / "m2v").encode(sentences)
    np.testing.assert_allclose(m2v, encoder.encode(sentences), atol=1e-5)
    card = (tmp_path / "m2v" / "README.md").read_text()
    assert "composer mean; objective targets" in card
    assert "paracomp composes the first 32 tokens of a sentence; this model2vec export" in card


def _sts_sentences(mirror: Path) -> list[str]:
    from paracomp.data import catalog
    from paracomp.data.parsers import parse_set

    sentences: set[str] = set()
    for year in range(2012, 2017):
        spec = catalog.load().set(f"sts{year}")
        table = parse_set(spec, "mirror", mirror / spec.sources["mirror"]["dataset"])
        sentences |= set(table["s1"].to_pylist()) | set(table["s2"].to_pylist())
    return sorted(sentences)


@pytest.mark.slow
def test_static_exports_encode_the_sts_sentences_as_we_do(mirror, tmp_path):
    """sentence-transformers and model2vec exports of averaged vectors over every STS 2012–16
    word give our vectors for each sentence whose tokens agree (≥ 99% of them)."""
    from model2vec import StaticModel
    from sentence_transformers import SentenceTransformer

    from paracomp.eval.encode import AveragedEmbeddings

    sentences = _sts_sentences(mirror)
    given = Tokenisation("moses", True, "skip")
    ours_tokens = tokenize_all(sentences, "moses", True)
    words = sorted({t for s in ours_tokens for t in s})[::2]  # half the words: OOV too
    matrix = np.random.default_rng(1).normal(size=(len(words), 16)).astype(np.float32)
    source = tmp_path / "v.parquet"
    artefacts.write_embeddings(words, matrix, source, artefacts.Provenance("v", "t", {}, {}))
    encoder = load_encoder(source, tokenisation=given)
    ours = encoder.encode(sentences)
    theirs_tokens = wordlevel.tokens(wordlevel.build(words, "x", "moses", True), sentences)
    agree = np.array([list(a) == b for a, b in zip(ours_tokens, theirs_tokens)])
    assert agree.mean() > 0.99
    known = AveragedEmbeddings(words, matrix).index
    full = agree & np.array([all(t in known for t in s) for s in ours_tokens])
    export(encoder, "sentence-transformers", tmp_path / "st")
    st = SentenceTransformer(str(tmp_path / "st"), device="cpu")
    st_vectors = st.encode(sentences, batch_size=512, convert_to_numpy=True)
    np.testing.assert_allclose(st_vectors[full], ours[full], atol=1e-5)
    unit = st.encode(sentences, normalize_embeddings=True)
    np.testing.assert_allclose(
        unit[agree], encoder.encode(sentences, normalize=True)[agree], atol=1e-5
    )
    export(encoder, "model2vec", tmp_path / "m2v")
    m2v = StaticModel.from_pretrained(tmp_path / "m2v").encode(sentences)
    np.testing.assert_allclose(m2v[agree], ours[agree], atol=1e-5)


def test_encode_command(project, tmp_path, capsys):
    text = tmp_path / "in.txt"
    text.write_text("A man plays the guitar.\n\nzzz qqq\n")
    out = tmp_path / "out.parquet"
    assert main(["encode", "--model", "toy-vectors", "--in", str(text), "--out", str(out)]) == 0
    assert "1 empty sentence(s) and 1 with no known token" in capsys.readouterr().out
    sentences, matrix = vectors.read(out)
    assert sentences == ["A man plays the guitar.", "", "zzz qqq"]
    np.testing.assert_allclose(matrix, load_encoder("toy-vectors").encode(sentences))
    assert not matrix[1:].any()  # OOV policy skip: the empty sentence's vector, zeros
    prov = artefacts.provenance(out)
    assert prov["config"]["model"]["model"] == "toy-vectors"
    assert set(prov["config"]["versions"]) >= {"paracomp", "numpy"}
    npy = tmp_path / "out.npy"
    assert main(["encode", "--model", "toy-vectors", "--in", str(text), "--out", str(npy)]) == 0
    np.testing.assert_array_equal(np.load(npy), matrix)
    assert json.loads(Path(f"{npy}.json").read_text())["config"]["tokenisation"]["oov"] == "skip"


def test_encode_bad_input_is_named_and_nothing_written(project, tmp_path, capsys):
    bad = tmp_path / "bad.txt"
    bad.write_bytes("ok\nnot \xe9\n".encode("latin-1"))
    out = tmp_path / "out.parquet"
    assert main(["encode", "--model", "toy-vectors", "--in", str(bad), "--out", str(out)]) == 2
    assert f"{bad}: not UTF-8 at byte offset 7" in capsys.readouterr().err
    table = tmp_path / "in.csv"
    table.write_text("id,text\n1,hello\n")
    args = ["encode", "--model", "toy-vectors", "--in", str(table), "--column", "sentence"]
    assert main([*args, "--out", str(out)]) == 2
    assert "no column 'sentence'; the columns are ['id', 'text']" in capsys.readouterr().err
    unknown = ["encode", "--model", "nope", "--in", str(table), "--column", "text"]
    assert main([*unknown, "--out", str(out)]) == 2
    assert "unknown model 'nope'; known: toy-vectors, toy/gran" in capsys.readouterr().err
    parquet = tmp_path / "in.parquet"
    pq.write_table(pa.table({"id": [1], "text": ["hello"]}), parquet)
    args = ["encode", "--model", "toy-vectors", "--in", str(parquet), "--column", "sentence"]
    assert main([*args, "--out", str(out)]) == 2
    assert "in.parquet: no column 'sentence'; the columns are ['id', 'text']" in (
        capsys.readouterr().err
    )
    assert not out.exists() and list(tmp_path.glob(".out*")) == []


def test_an_export_that_fails_midway_leaves_the_old_folder(project, tmp_path):
    words = ["fine", "two words"]
    path = tmp_path / "spaced.parquet"
    rows = np.ones((2, 3), np.float32)
    artefacts.write_embeddings(words, rows, path, artefacts.Provenance("s", "t", {}, {}))
    encoder = load_encoder(path, tokenisation=Tokenisation("whitespace", False, "skip"))
    out = tmp_path / "exported"
    out.mkdir()
    (out / "vectors.txt").write_text("old\n")
    with pytest.raises(ConfigError, match="word 'two words' holds whitespace"):
        export(encoder, "word2vec", out)
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []
    assert [p.name for p in out.iterdir()] == ["vectors.txt"]
    assert (out / "vectors.txt").read_text() == "old\n"


def test_similarity_and_neighbours_commands(project, tmp_path, capsys):
    pairs = tmp_path / "pairs.tsv"
    pairs.write_text("s1\ts2\n" + "".join(f"{a}\t{b}\n" for a, b, _ in PAIRS))
    assert main(["similarity", "--model", "toy/gran", "--pairs", str(pairs)]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    scores = [float(line.rsplit(",", 1)[1]) for line in lines[1:]]
    np.testing.assert_allclose(scores, _predictions("toy/gran"), atol=1e-5)
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("".join(f"{a}\n{b}\n" for a, b, _ in PAIRS))
    args = ["neighbours", "--model", "toy-vectors", "--corpus", str(corpus), "-k", "2"]
    assert main([*args, "--query", "A man plays the guitar."]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "# A man plays the guitar." and out[1].endswith("\tA man plays the guitar.")
    cache = next(tmp_path.glob("corpus.txt.*.vectors.parquet"))
    stamp = cache.stat().st_mtime_ns
    assert main([*args, "--query", "Stocks fell."]) == 0
    assert cache.stat().st_mtime_ns == stamp  # reused


@pytest.mark.slow
def test_the_readme_section_runs_as_written(tmp_path, monkeypatch):
    """The README's "Use a trained model" code, on a project folder holding its models."""
    import os
    import re

    text = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    section = text.split("\n## Use a trained model\n", 1)[1].split("\n## ", 1)[0]
    blocks = dict(re.findall(r"```(bash|python)\n(.*?)```", section, flags=re.S))
    assert sum(len(code.strip().splitlines()) for code in blocks.values()) <= 15
    monkeypatch.chdir(tmp_path)
    Path("sets").mkdir()
    _sts_set(Path("sets/toy.parquet"))
    _vectors_model("glove-6b-50d", Path("resources/embeddings/glove-6b-50d.parquet"), WORDS)
    _run_model("elgohary2016/bisent_jpa", Path("results/elgohary2016/runs/bisent_jpa"), "sum")
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"}
    bash = subprocess.run(["bash", "-euo", "pipefail", "-c", blocks["bash"]], env=env,
                          capture_output=True, text=True, check=False)  # fmt: skip
    assert bash.returncode == 0, bash.stderr[-2000:]
    assert "# A woman plays the piano.\n1\t" in bash.stdout  # the neighbours' first hit
    assert vectors.read(Path("vectors.parquet"))[0][2] == "The cat sleeps."
    assert Path("exports/bisent_jpa/vectors.txt").read_text().startswith(f"{len(WORDS)} 8\n")
    python = subprocess.run([sys.executable, "-c", blocks["python"]], env=env,
                            capture_output=True, text=True, check=False)  # fmt: skip
    assert python.returncode == 0, python.stderr[-2000:]
    assert python.stdout.startswith("(2, 8) [")


@pytest.mark.slow  # a fresh Python process
def test_the_api_imports_neither_snakemake_nor_torch_until_a_composer_is_loaded(project):
    code = (
        "import sys, paracomp\n"
        "encoder = paracomp.load_encoder('toy-vectors')\n"
        "encoder.encode(['A man plays the guitar.'])\n"
        "print(sorted(m for m in ('snakemake', 'torch') if m in sys.modules))\n"
        "paracomp.load_encoder('toy/gran')\n"
        "print('torch' in sys.modules)"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.split() == ["[]", "True"]
