"""The En–Es Bible read from the Debian SWORD packages (skipped when the .debs are absent)."""

from __future__ import annotations

import statistics
from pathlib import Path

import pytest

from paracomp.corpus.bible import open_module, read_bible_pairs, verse_text
from paracomp.errors import DataError


@pytest.fixture(scope="session")
def bible(bible_roots: tuple[Path, Path]) -> dict[str, tuple[str, str]]:
    pairs = read_bible_pairs(*bible_roots)
    assert len({key for key, _, _ in pairs}) == len(pairs)
    return {key: (en, es) for key, en, es in pairs}


# Markup copied from the modules (Gen 1:1 and Ps 3:1 of engWEB2015eb, Gen 2:12 and
# 1 Chr 10:13 of spaRV1909eb, Song 1:4 of engWEB2015eb), shortened.
def test_footnote_between_words_becomes_a_space() -> None:
    markup = (
        '<w lemma="strong:H0430">God</w><note placement="foot"><reference type="annotateRef">'
        "1:1 </reference>The Hebrew word rendered “God” is “אֱלֹהִ֑ים” (Elohim).</note>"
        '<w lemma="strong:H1254">created</w> <w lemma="strong:H0853">the</w> heavens.'
    )
    assert verse_text(markup) == "God created the heavens."


def test_canonical_psalm_title_is_kept() -> None:
    markup = (
        '<div type="x-milestone" subType="x-preverse" sID="pv4877"/><title canonical="true" '
        'type="psalm">A Psalm by David.</title> <lg sID="gen7860"/> <l level="1" '
        'sID="gen7861"/><div type="x-milestone" subType="x-preverse" eID="pv4877"/>Yahweh, how'
    )
    assert verse_text(markup) == "A Psalm by David. Yahweh, how"


def test_w_tags_adjacent_to_other_tags_separate_words() -> None:
    glued = (
        '<w lemma="strong:H8033">hay allí</w><transChange type="added">también</transChange>'
        '<w lemma="strong:H0916">bdelio</w>'
    )
    assert verse_text(glued) == "hay allí también bdelio"
    inside_word = 'consultó <w lemma="x">al pythón</w>, preguntándo<transChange>le</transChange>,'
    assert verse_text(inside_word) == "consultó al pythón, preguntándole,"


def test_speaker_labels_are_dropped() -> None:
    markup = '<lg eID="a"/> <speaker>Friends</speaker> <lg sID="b"/> <l level="1"/>We will be'
    assert verse_text(markup) == "We will be"


def test_unknown_module_is_a_data_error(bible_roots: tuple[Path, Path]) -> None:
    with pytest.raises(DataError, match="no SWORD module 'nope'"):
        open_module(bible_roots[0], "nope")


def test_verse_pairs(bible: dict[str, tuple[str, str]]) -> None:
    assert len(bible) == 31_077
    en, es = bible["John.3.16"]
    assert en.startswith("For God so loved the world, that he gave his only born Son,")
    assert es.startswith("Porque de tal manera amó Dios al mundo,")
    assert bible["Gen.1.1"] == (
        "In the beginning, God created the heavens and the earth.",
        "EN el principio crió Dios los cielos y la tierra.",
    )
    assert bible["Ps.3.1"][0].startswith("A Psalm by David, when he fled from Absalom his son.")
    assert bible["Ps.3.1"][1].startswith("Salmo de David, cuando huía de delante de Absalom")
    assert all("<" not in en + es and ">" not in en + es for en, es in bible.values())
    assert "Tob.1.1" not in bible  # deuterocanon: English only


def test_corpus_statistics(bible: dict[str, tuple[str, str]]) -> None:
    # Whitespace tokens before Moses tokenisation (about 29 English tokens after it).
    assert 23 < statistics.mean(len(en.split()) for en, _ in bible.values()) < 26
    assert 21 < statistics.mean(len(es.split()) for _, es in bible.values()) < 24
    # The WEB module appends its glossary to the last verse; length cleaning drops it.
    assert len(bible["Rev.22.21"][0].split()) > 3000
