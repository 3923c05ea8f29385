"""The lemma–definition dataset of Scheepers et al. (2018), rebuilt from WordNet 3.0.

Follows the authors' released code (digest §2.1, ``tscheepers/CompVec@d3207d3``), which is what
produced the released counts, not the paper's prose where the two disagree:

- synsets: all 117,659 WordNet 3.0 synsets, every part of speech (n, v, a, s, r);
- definition: the gloss up to its first double quote (the WordNet-SQL ``synset.definition``:
  examples and their attributions dropped), trailing ``;`` removed;
- tokenisation: NLTK's ``NLTKWordTokenizer`` (``word_tokenize`` without its punkt sentence
  split, whose model would need a download); tokens ``. , ; : ( ) ` `` dropped, backticks
  stripped, lowercased; no stemming;
- stop words are kept, and a lemma occurring in its own definition is kept (the paper says
  both are removed; the released files do neither);
- vocabulary: ``PAD``, ``UNK``, then every definition token of every synset by descending
  frequency (first occurrence breaks ties);
- lemmas: ``_`` read as a space, tokenised and lowercased (punctuation kept); multi-word lemmas (more
  than one token) are dropped; the targets are the single-token lemmas in the vocabulary;
- one pair per synset: its alphabetically first single-token lemma (the SQL row order), kept
  only when that lemma is in the vocabulary and the definition is not empty.

On WordNet 3.0 this gives 52,431 pairs (paper 52,430; 52,220 identical to released pairs),
a vocabulary of 48,948 (48,944) and 33,186 targets (33,186). The rest of the differences come
from the missing punkt split (``e.g.`` vs ``e.g``).
"""

from __future__ import annotations

import functools
import gzip
import os
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import pyarrow as pa

from paracomp.errors import DataError

if TYPE_CHECKING:  # nltk is imported where WordNet is read or text tokenised
    from nltk.corpus.reader.wordnet import WordNetCorpusReader
    from nltk.tokenize import NLTKWordTokenizer

PAIRS = pa.schema(
    [
        ("lemma", pa.string()),
        ("definition", pa.string()),
        ("synset", pa.string()),
        ("pos", pa.string()),
    ]
)
"""Lemma–definition pairs; ``definition`` is space-tokenised; synset/pos null when unknown."""

PAD, UNK = "PAD", "UNK"
SEPARATOR = " ||| "
_PUNCTUATION = frozenset({".", ",", ";", ":", "(", ")", "`"})
_DATA_FILES = {"n": "data.noun", "v": "data.verb", "a": "data.adj", "r": "data.adv"}


@dataclass(frozen=True)
class WordNetDataset:
    """The pairs table, the definition vocabulary (with PAD/UNK) and the target lemmas."""

    pairs: pa.Table
    vocabulary: list[str]
    targets: list[str]


@functools.cache
def _tokenizer() -> NLTKWordTokenizer:
    """NLTK's tokenizer, imported on first use: importing nltk imports most of it and
    ``scipy.stats`` (seconds), which a job that reads the built dataset does not need."""
    from nltk.tokenize import NLTKWordTokenizer

    return NLTKWordTokenizer()


def tokenize(text: str) -> list[str]:
    """Tokenise a definition the way the authors' fetcher does."""
    tokens = (
        t.replace("`", "").lower() for t in _tokenizer().tokenize(text) if t not in _PUNCTUATION
    )
    return [t for t in tokens if t]


def single_token_lemma(name: str) -> str | None:
    """A lemma name lowercased if it is one token (``_`` read as a space), else ``None``.

    Lemmas are tokenised like definitions but keep their punctuation tokens.
    """
    if name.isalnum():
        return name.lower()
    if "_" in name:  # a space: at least two tokens
        return None
    tokens = _tokenizer().tokenize(name)
    return tokens[0].lower() if len(tokens) == 1 else None


def definition_text(gloss: str) -> str:
    """The definition part of a WordNet gloss: up to the first ``"``, without a trailing ``;``."""
    return gloss.split('"', 1)[0].strip().rstrip(";").strip()


def read_glosses(reader: WordNetCorpusReader) -> dict[tuple[str, int], str]:
    """Map (data-file pos, offset) to the raw gloss, read from the ``data.*`` files."""
    glosses: dict[tuple[str, int], str] = {}
    root = Path(reader.root.path)
    for pos, name in _DATA_FILES.items():
        with open(root / name, encoding="utf-8") as handle:
            for line in handle:
                if line.startswith("  "):  # licence header
                    continue
                head, _, gloss = line.partition(" | ")
                glosses[(pos, int(head.split(" ", 1)[0]))] = gloss.strip()
    return glosses


def build_dataset(reader: WordNetCorpusReader) -> WordNetDataset:
    """Build the pairs, vocabulary and targets from WordNet 3.0 (see the module docstring)."""
    glosses = read_glosses(reader)
    counts: Counter[str] = Counter()
    synsets = []
    for synset in reader.all_synsets():
        pos = synset.pos()
        gloss = glosses[("a" if pos == "s" else pos, synset.offset())]
        definition = tokenize(definition_text(gloss))
        counts.update(definition)
        lemmas = sorted(
            {lemma for name in synset.lemma_names() if (lemma := single_token_lemma(name))}
        )
        synsets.append((synset.name(), pos, definition, lemmas))
    vocabulary = [PAD, UNK, *(token for token, _ in counts.most_common())]
    columns: dict[str, list[str]] = {name: [] for name in PAIRS.names}
    for name, pos, definition, lemmas in synsets:
        if definition and lemmas and lemmas[0] in counts:
            for column, value in zip(PAIRS.names, (lemmas[0], " ".join(definition), name, pos)):
                columns[column].append(value)
    targets = sorted({lemma for *_, lemmas in synsets for lemma in lemmas if lemma in counts})
    return WordNetDataset(pa.table(columns, schema=PAIRS), vocabulary, targets)


def read_released(path: str | os.PathLike[str]) -> pa.Table:
    """Parse a released ``train_data.gz``/``test_data.gz`` (``lemma ||| definition`` lines)."""
    lemmas: list[str] = []
    definitions: list[str] = []
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            lemma, sep, definition = line.rstrip("\n").partition(SEPARATOR)
            if not sep or not lemma:
                raise DataError(f"{path}:{number}: not a 'lemma ||| definition' line")
            lemmas.append(lemma)
            definitions.append(definition)
    nulls = pa.nulls(len(lemmas), pa.string())
    return pa.table([pa.array(lemmas), pa.array(definitions), nulls, nulls], schema=PAIRS)


def read_vocabulary(path: str | os.PathLike[str]) -> list[str]:
    """Read a released ``vocab.gz`` (one token per line, ``PAD`` and ``UNK`` first)."""
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        return [line.rstrip("\n") for line in handle]
