"""Lexical PPDB training pairs (Wieting et al. 2015 §5.2), constraint lists, WordNet lemmas."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

from paracomp.paraphrase.lexical import (
    PAPER_COUNTS,
    constraint_lists,
    lexical_pairs,
    neighbours,
)
from paracomp.paraphrase.ppdb import is_lexical, read_ppdb, read_xl_lexicon, rules_to_pairs
from paracomp.wordnet.install import install_wordnet, wordnet_reader
from paracomp.wordnet.lemmas import all_lemmas, lemmatizer

_F = "p(e|f)=1.0 p(f|e)=1.0 RarityPenalty=0.0"
# A PPDB 1.0 lexical excerpt in release format: the same pair under two syntactic labels
# (lines 1-2) and swapped (line 3), digits (4), a word outside the vocabulary (5), a
# phrasal rule that is not lexical (6), digits and OOV at once (7, counted as digits), and
# two distinct pairs that share a word (8-9).
EXCERPT = [
    f"[JJ] ||| big ||| large ||| {_F} ||| 0-0",
    f"[NN] ||| big ||| large ||| {_F} ||| 0-0",
    f"[JJ] ||| large ||| big ||| {_F} ||| 0-0",
    f"[CD] ||| 1,800 ||| 1800 ||| {_F} ||| 0-0",
    f"[NN] ||| automobiles ||| autos ||| {_F} ||| 0-0",
    f"[NP] ||| the car ||| the automobile ||| {_F} ||| 0-0 1-1",
    f"[NN] ||| b2b ||| zzyzx ||| {_F} ||| 0-0",
    f"[NNS] ||| cars ||| automobiles ||| {_F} ||| 0-0",
    f"[NNS] ||| automobiles ||| vehicles ||| {_F} ||| 0-0",
]
VOCAB = {"big", "large", "cars", "automobiles", "vehicles", "car", "automobile"}


@pytest.fixture()
def excerpt(tmp_path: Path):
    path = tmp_path / "ppdb-1.0-xl-lexical"
    path.write_text("\n".join(EXCERPT) + "\n", encoding="utf-8")
    return rules_to_pairs(read_ppdb(path), "xl", keep=is_lexical)


def test_filter_counts_on_an_excerpt(excerpt) -> None:
    assert excerpt.num_rows == 8  # the phrasal rule is not in the lexical package
    kept, counts = lexical_pairs(excerpt, VOCAB)
    assert counts.as_dict() == {
        "source": 8,
        "identical": 0,
        "digits": 2,
        "oov": 1,
        "redundant": 2,
        "kept": 3,
        "digits_or_oov": 3,
    }
    pairs = list(zip(kept["s1"].to_pylist(), kept["s2"].to_pylist(), strict=True))
    assert pairs == [("big", "large"), ("cars", "automobiles"), ("automobiles", "vehicles")]
    assert kept["id"].to_pylist() == ["xl:1", "xl:8", "xl:9"]


def test_filter_options(excerpt) -> None:
    _, ordered = lexical_pairs(excerpt, VOCAB, redundancy="ordered")
    assert (ordered.redundant, ordered.kept) == (1, 4)  # the label duplicate only
    _, everything = lexical_pairs(excerpt, None, drop_digits=False, redundancy="none")
    assert everything.kept == 8
    _, no_vocab = lexical_pairs(excerpt)
    assert (no_vocab.digits, no_vocab.oov, no_vocab.kept) == (2, 0, 4)
    with pytest.raises(ValueError, match="redundancy"):
        lexical_pairs(excerpt, redundancy="lhs")


@pytest.mark.slow
def test_mirror_lexicon_counts(mirror_file) -> None:
    """The mirror's PPDB-XL lexicon with the paper's filters but no vocabulary filter (the
    pipeline's, with the initial vectors' words, keeps 111,928); the paper's counts beside."""
    kept, counts = lexical_pairs(read_xl_lexicon(mirror_file("ppdb-xl-lexicon/ppdb-xl.txt")))
    # The lexicon lists all but one pair in both directions, without syntactic labels.
    assert counts.as_dict() == {
        "source": 374_555,
        "identical": 0,
        "digits": 36_250,
        "oov": 0,
        "redundant": 169_152,
        "kept": 169_153,
        "digits_or_oov": 36_250,
    }
    assert (
        PAPER_COUNTS["source"] - PAPER_COUNTS["digits_or_oov"] - PAPER_COUNTS["redundant"]
        == PAPER_COUNTS["kept"]
    )
    assert kept.num_rows == counts.kept


@pytest.fixture(scope="module")
def reader(package_root, tmp_path_factory):
    out = tmp_path_factory.mktemp("nltk_data")
    install_wordnet(package_root("wn"), out)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return wordnet_reader(out)


def test_constraint_lists_by_hand() -> None:
    partners = neighbours([("cars", "automobiles"), ("automobiles", "vehicles")])
    assert partners == {
        "cars": {"automobiles"},
        "automobiles": {"cars", "vehicles"},
        "vehicles": {"automobiles"},
    }
    fake = {"automobiles": {"automobile"}, "cars": {"car"}, "vehicles": {"vehicle"}}
    lists = constraint_lists(partners, lambda w: fake.get(w, set()))
    assert lists["cars"] == {"automobiles", "automobile"}
    assert lists["automobiles"] == {"cars", "car", "vehicles", "vehicle"}


@pytest.mark.slow  # the reader reads all of WordNet
@pytest.mark.slow
def test_constraint_lists_with_wordnet(reader) -> None:
    lemmas = all_lemmas(reader)
    assert lemmas("cars") == {"car"} and lemmas("was") == {"be", "wa"}
    assert lemmas("the") == frozenset()
    lists = constraint_lists(neighbours([("saw", "geese"), ("ran", "geese")]), lemmas)
    assert lists["geese"] == {"saw", "see", "ran", "run"}
    assert lists["saw"] == {"geese", "goose"}


@pytest.mark.slow  # the reader reads all of WordNet
def test_lemmatizer(reader) -> None:
    lemma = lemmatizer(reader)
    assert [lemma(w) for w in ["is", "was", "has", "meetings", "geese", "running", "the"]] == [
        "be",
        "be",
        "have",
        "meeting",
        "goose",
        "run",
        "the",
    ]
