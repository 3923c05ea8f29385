"""The CompVec dataset folder a training run reads: train/test pairs, vocabulary, targets.

Two split sources (config ``compvec.split``):

- ``released``: the authors' files (``compvec-wordnet``: ``train_data.gz``, ``test_data.gz``,
  ``vocab.gz``), the only data that matches every count of the paper;
- ``grouped``: rebuilt from WordNet 3.0 (:mod:`paracomp.papers.scheepers2018.wordnet_pairs`) and split by
  lemma (:func:`paracomp.papers.scheepers2018.split.split_by_lemma`), as the paper's prose describes.

Either way the targets (CompVecEval's candidate lemmas, the paper's 33,186) are every
single-token WordNet 3.0 lemma that is in the vocabulary. The folder holds ``train.parquet``,
``test.parquet`` (:data:`~paracomp.papers.scheepers2018.wordnet_pairs.PAIRS`), ``vocab.parquet`` (row ``i``
is token id ``i``; ``PAD``, ``UNK`` first), ``targets.parquet`` and ``sizes.json`` (ours and
the paper's).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import pyarrow as pa

from paracomp import artefacts
from paracomp.atomic import atomic_path
from paracomp.errors import DataError
from paracomp.papers.scheepers2018.split import PAPER_SIZES, split_by_lemma, split_sizes
from paracomp.papers.scheepers2018.wordnet_pairs import (
    PAD,
    PAIRS,
    UNK,
    build_dataset,
    read_released,
    read_vocabulary,
    single_token_lemma,
)

if TYPE_CHECKING:  # nltk is imported where WordNet is read
    from nltk.corpus.reader.wordnet import WordNetCorpusReader

SPLITS = ("released", "grouped")
VOCAB = pa.schema([("word", pa.string())])
"""A vocabulary: row ``i`` is the token with id ``i``."""
TARGETS = pa.schema([("lemma", pa.string())])
RELEASED_FILES = ("train_data.gz", "test_data.gz", "vocab.gz")


@dataclass(frozen=True)
class DefinitionData:
    """A prepared dataset folder, read back."""

    train: pa.Table
    test: pa.Table
    vocabulary: list[str]
    targets: list[str]

    @classmethod
    def load(cls, folder: str | os.PathLike[str]) -> DefinitionData:
        folder = Path(folder)
        vocab = artefacts.read(folder / "vocab.parquet", VOCAB).column("word").to_pylist()
        if vocab[:2] != [PAD, UNK]:
            raise DataError(f"{folder / 'vocab.parquet'}: must start with {PAD}, {UNK}")
        return cls(
            artefacts.read(folder / "train.parquet", PAIRS),
            artefacts.read(folder / "test.parquet", PAIRS),
            vocab,
            artefacts.read(folder / "targets.parquet", TARGETS).column("lemma").to_pylist(),
        )


def wordnet_lemmas(reader: WordNetCorpusReader) -> set[str]:
    """Every single-token lemma of WordNet, lowercased."""
    return {
        lemma
        for synset in reader.all_synsets()
        for name in synset.lemma_names()
        if (lemma := single_token_lemma(name))
    }


def prepare(
    split: str,
    reader: WordNetCorpusReader,
    out: str | os.PathLike[str],
    *,
    released: str | os.PathLike[str] | None = None,
    seed: int = 0,
    test_fraction: float = 0.05,
) -> dict[str, int]:
    """Write the dataset folder for ``split`` to ``out``; returns our sizes."""
    if split not in SPLITS:
        raise DataError(f"compvec split {split!r}: expected one of {SPLITS}")
    inputs: dict[str, str] = {}
    if split == "released":
        if released is None:
            raise DataError("the released split needs the compvec-wordnet folder")
        paths = [Path(released) / name for name in RELEASED_FILES]
        train, test = read_released(paths[0]), read_released(paths[1])
        vocabulary = read_vocabulary(paths[2])
        in_vocab = set(vocabulary[2:])
        targets = sorted(wordnet_lemmas(reader) & in_vocab)
        inputs = artefacts.input_checksums(paths)
        unknown = {lemma for t in (train, test) for lemma in t.column("lemma").to_pylist()}
        unknown -= set(targets)
        if unknown:
            raise DataError(
                f"{paths[0].parent}: {len(unknown)} released lemmas are not WordNet targets, "
                f"e.g. {sorted(unknown)[:3]}"
            )
    else:
        data = build_dataset(reader)
        train, test = split_by_lemma(data.pairs, seed=seed, test_fraction=test_fraction)
        vocabulary, targets = data.vocabulary, data.targets
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    prov = artefacts.Provenance(
        dataset="compvec-wordnet" if split == "released" else "wordnet-3.0",
        source=split,
        inputs=inputs,
        config={"split": split, "seed": seed, "test_fraction": test_fraction},
        notes="Scheepers et al. (2018) lemma-definition pairs",
    )
    artefacts.write(train, out / "train.parquet", PAIRS, prov)
    artefacts.write(test, out / "test.parquet", PAIRS, prov)
    artefacts.write(pa.table({"word": vocabulary}), out / "vocab.parquet", VOCAB, prov)
    artefacts.write(pa.table({"lemma": targets}), out / "targets.parquet", TARGETS, prov)
    sizes = split_sizes(train, test, len(vocabulary), len(targets))
    with atomic_path(out / "sizes.json") as tmp:
        tmp.write_text(json.dumps({"split": split, "ours": sizes, "paper": PAPER_SIZES}, indent=2))
    return sizes
