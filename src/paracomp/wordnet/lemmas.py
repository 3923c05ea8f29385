"""Lemmas of single words from WordNet 3.0 through NLTK's reader (see
:func:`paracomp.wordnet.install.wordnet_reader`), without a POS tagger.

``_morphy`` is the analysis behind NLTK's ``WordNetLemmatizer`` and ``morphy``: the base
forms of a word form for one part of speech, exceptions list included.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from nltk.corpus.reader.wordnet import WordNetCorpusReader

POS = ("v", "n", "a", "r")
"""Parts of speech in the order :func:`lemmatizer` tries them: verbs first, so that
``is``/``was``/``has``/``does`` become be/be/have/do rather than the nouns wa/ha/doe."""


def all_lemmas(reader: WordNetCorpusReader) -> Callable[[str], frozenset[str]]:
    """``word ↦`` every base form WordNet gives it for any part of speech (``was`` ↦
    {be, wa}); empty for words WordNet does not know (``the``)."""

    @cache
    def lemmas(word: str) -> frozenset[str]:
        return frozenset(form for pos in POS for form in reader._morphy(word, pos))

    return lemmas


def lemmatizer(reader: WordNetCorpusReader) -> Callable[[str], str]:
    """``word ↦`` one lemma: the shortest base form (as ``WordNetLemmatizer``) of the first
    part of speech in :data:`POS` with any, else the word itself."""

    @cache
    def lemma(word: str) -> str:
        for pos in POS:
            forms = reader._morphy(word, pos)
            if forms:
                return min(forms, key=len)
        return word

    return lemma
