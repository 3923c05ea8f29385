"""Moses tokenisation and clean-corpus-n semantics, on hand-made lines and on the Bible."""

from __future__ import annotations

import statistics
from pathlib import Path

import pytest

from paracomp.corpus.bible import read_bible_pairs
from paracomp.corpus.clean import clean_pairs, keep_pair, normalise
from paracomp.corpus.tokenize import tokenize_line, tokenize_lines


@pytest.fixture(scope="session")
def bible_pairs(bible_roots: tuple[Path, Path]) -> list[tuple[str, str, str]]:
    return read_bible_pairs(*bible_roots)


def test_tokenise_before_lowercasing() -> None:
    # Moses splits a full stop followed by an upper-case word, not one followed by lower case.
    assert tokenize_line("He said it. Then he left.", "en") == "he said it . then he left ."
    assert tokenize_line("He said it. Then he left.", "en", lowercase=False).startswith("He")
    assert tokenize_line("I saw Mr. Smith's dog, didn't I?", "en") == (
        "i saw mr. smith 's dog , didn 't i ?"
    )
    assert tokenize_line("¿Con qué limpiará el joven su camino?", "es") == (
        "¿ con qué limpiará el joven su camino ?"
    )
    assert tokenize_line("a < b & c", "en") == "a < b & c"  # no XML escaping


def test_punctuation_normalisation_is_optional() -> None:
    line = "“There is no help for him in God’s house.”"
    assert tokenize_line(line, "en") == "“ there is no help for him in god ’ s house . ”"
    assert tokenize_line(line, "en", normalize_punct=True) == (
        '" there is no help for him in god \'s house . "'
    )


def test_parallel_tokenisation_matches_serial() -> None:
    lines = [f"Line {i}: Mr. Jones paid ${i}.50, didn't he?" for i in range(1300)]
    serial = tokenize_lines(lines, "en")
    assert tokenize_lines(lines, "en", n_jobs=2) == serial
    assert serial[7] == "line 7 : mr. jones paid $ 7.50 , didn 't he ?"


def test_normalise_like_clean_corpus_n() -> None:
    assert normalise("  a |b\t c  ") == "a b c"


@pytest.mark.parametrize(
    ("e", "f", "kept"),
    [
        ("a b", "c", True),
        ("", "c", False),
        ("a", "", False),
        (" ".join("a" * 80), "b", False),  # ratio 80 > 9
        (" ".join(["a"] * 9), "b", True),  # ratio exactly 9 is kept
        (" ".join(["a"] * 10), "b", False),
        (" ".join(["a"] * 80), " ".join(["b"] * 10), True),  # 80 tokens is the maximum
        (" ".join(["a"] * 81), " ".join(["b"] * 10), False),
        ("a " + "x" * 1001, "b c", False),  # a token over max_word_length
    ],
)
def test_keep_pair_defaults(e: str, f: str, kept: bool) -> None:
    assert keep_pair(e, f) is kept


def test_keep_pair_parameters() -> None:
    assert not keep_pair("a", "b c", min_tokens=2)
    assert keep_pair(" ".join(["a"] * 20), "b", max_ratio=None)
    assert not keep_pair("a b c", "d", max_ratio=2.0)
    assert not keep_pair("a b c", "d e", max_tokens=2)


def test_clean_pairs_yields_indices_and_normalised_sides() -> None:
    pairs = [("a  b", "c"), ("", "x"), ("d|e", "f  g ")]
    assert list(clean_pairs(pairs)) == [(0, "a b", "c"), (2, "de", "f g")]


@pytest.mark.slow
def test_bible_read_tokenise_clean(bible_pairs: list[tuple[str, str, str]]) -> None:
    en = tokenize_lines([p[1] for p in bible_pairs], "en", n_jobs=2)
    es = tokenize_lines([p[2] for p in bible_pairs], "es", n_jobs=2)
    assert en[0] == "in the beginning , god created the heavens and the earth ."
    assert es[0] == "en el principio crió dios los cielos y la tierra ."
    assert 28.5 < statistics.mean(len(line.split()) for line in en) < 29.5
    kept = list(clean_pairs(zip(en, es, strict=True)))
    assert len(kept) == 31_046  # 31 pairs over 80 tokens, the glossary verse among them
    dropped = {bible_pairs[i][0] for i in set(range(len(en))) - {i for i, _, _ in kept}}
    assert {"Rev.22.21", "Esth.8.9", "Job.39.30"} <= dropped
    assert 28.5 < statistics.mean(len(e.split()) for _, e, _ in kept) < 29.5
    assert 26.0 < statistics.mean(len(f.split()) for _, _, f in kept) < 27.0
