"""Wieting et al.'s (2015) data: initial vectors, lexical pairs and constraint lists on a
hand-made lexicon, and the mirror's phrase and bigram sets."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from paracomp import artefacts
from paracomp.models.vocab import UNK as TRAINER_UNK
from paracomp.papers.wieting2015 import data


def _embeddings(path: Path, words: list[str], matrix: np.ndarray) -> Path:
    prov = artefacts.Provenance(dataset="test", source="test", inputs={}, config={}, notes="")
    artefacts.write_embeddings(words, np.asarray(matrix, np.float32), path, prov)
    return path


def test_unk_is_the_trainers():
    assert data.UNK == TRAINER_UNK


def test_initial_vectors(tmp_path):
    words = ["the", "cat", "sat", "mat", "zyx"]
    matrix = np.array([[1, 2], [3, 4], [5, 6], [7, 8], [9, 10]], dtype=np.float32)
    source = _embeddings(tmp_path / "src.parquet", words, matrix)
    info = data.initial_vectors(source, 3, 2, tmp_path / "d2.parquet")
    got_words, got = artefacts.read_embeddings(tmp_path / "d2.parquet")
    assert info == {"words": 4, "of": 5, "dim": 2}
    assert got_words == ["the", "cat", "sat", data.UNK]
    np.testing.assert_array_equal(got, [[1, 2], [3, 4], [5, 6], [8, 9]])
    info = data.initial_vectors(source, 3, 1, tmp_path / "d1.parquet")
    _, reduced = artefacts.read_embeddings(tmp_path / "d1.parquet")
    assert reduced.shape == (4, 1) and info["pca_variance"] == pytest.approx(1.0)
    # the points lie on the line y = x + 1: the projection is their centred distance along it
    distances = (got[:, 0] - got[:, 0].mean()) * np.sqrt(2)
    np.testing.assert_allclose(reduced[:, 0], distances, rtol=1e-5)


LEXICON = [
    "big large huge 2x",  # 2x has a digit
    "large big",  # the same unordered pair again: redundant
    "cats cat",
    "huge enormous",  # enormous is not in the vocabulary
]


def test_lexical_pairs_counts_and_constraints(tmp_path):
    folder = tmp_path / "lexicon"
    folder.mkdir()
    (folder / "ppdb-xl.txt").write_text("\n".join(LEXICON) + "\n")
    vocab = ["big", "large", "huge", "cats", "cat", "2x", data.UNK]
    init = _embeddings(tmp_path / "init.parquet", vocab, np.zeros((len(vocab), 2)))
    lemmas = {"cats": {"cat"}, "large": {"large"}}
    out = tmp_path / "out"
    out.mkdir()
    report = data.lexical(
        "ppdb-xl-lexicon",
        folder,
        init,
        lambda word: lemmas.get(word, set()),
        out / "pairs.parquet",
        out / "constraints.parquet",
        out / "counts.json",
    )
    pairs = pd.read_parquet(out / "pairs.parquet")
    assert list(zip(pairs["s1"], pairs["s2"], strict=True)) == [
        ("big", "large"),
        ("big", "huge"),
        ("cats", "cat"),
    ]
    assert report["ours"] == {
        "source": 6,
        "identical": 0,
        "digits": 1,
        "oov": 1,
        "redundant": 1,
        "kept": 3,
        "digits_or_oov": 2,
    }
    assert json.loads((out / "counts.json").read_text())["paper"]["kept"] == 112_894
    lists = pd.read_parquet(out / "constraints.parquet")
    lists = dict(zip(lists["word"], map(set, lists["members"]), strict=True))
    # a word's partners and their lemmas: cat's partner cats brings its lemma cat
    assert lists == {
        "big": {"large", "huge"},
        "large": {"big"},
        "huge": {"big"},
        "cats": {"cat"},
        "cat": {"cats", "cat"},
    }


def test_mirror_pairs_and_sets(mirror, tmp_path):
    counts = {
        kind: data.training_pairs(kind, mirror / folder, tmp_path / f"{kind}.parquet")
        for kind, folder in [
            ("phrases", "ppdb-phrase-train-60k"),
            ("jn", "ppdb-bigram-train"),
            ("nn", "ppdb-bigram-train"),
            ("vn", "ppdb-bigram-train"),
        ]
    }
    assert {k: (c["ours"], c["paper"]) for k, c in counts.items()} == {
        "phrases": (60_000, 60_000),
        "jn": (66_427, 133_997),
        "nn": (22_275, 35_601),
        "vn": (33_578, 62_640),
    }
    data.phrase_sets(mirror / "annotated-ppdb", mirror / "ml2010-bigrams", tmp_path / "s.parquet")
    sets = pd.read_parquet(tmp_path / "s.parquet")
    sizes = sets.groupby(["set", "subset", "split"]).size().to_dict()
    assert sizes[("annotated-ppdb", "all", "dev")] == 260
    assert sizes[("annotated-ppdb", "all", "test")] == 1000
    assert all(sizes[("ml2010", k, "test")] == 1404 for k in ("jn", "nn", "vn"))
    assert sets.loc[sets["set"] == "ml2010"].groupby("subset")[["s1", "s2"]].apply(
        lambda f: len(f.drop_duplicates())
    ).tolist() == [108, 108, 108]
    data.phrase_sets(None, mirror / "ml2010-bigrams", tmp_path / "ml.parquet")
    assert set(pd.read_parquet(tmp_path / "ml.parquet")["set"]) == {"ml2010"}
