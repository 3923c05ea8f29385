"""Sentence tokenisation for evaluation, applied once per distinct sentence, and tokenised
sets: a set's sentences tokenised once (:func:`tokenise_set`, the rule ``tokenise_set``) for
every model scored on it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache, lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from paracomp.errors import DataError

if TYPE_CHECKING:  # imported where a sentence is Moses-tokenised (a quarter of a second)
    from sacremoses import MosesTokenizer

TOKENIZERS = ("moses", "whitespace")


@cache
def _moses() -> MosesTokenizer:
    from sacremoses import MosesTokenizer

    return MosesTokenizer(lang="en")


def tokenize(sentence: str, tokenizer: str, lowercase: bool) -> list[str]:
    """Tokenise one sentence (Moses with escaping off, or whitespace), then lowercase."""
    return list(_tokens(sentence, tokenizer, lowercase))


@lru_cache(maxsize=1 << 17)
def _tokens(sentence: str, tokenizer: str, lowercase: bool) -> tuple[str, ...]:
    """:func:`tokenize`, remembered: a tuning set is tokenised once per process, not once per
    scored model (a stack of grid points scores one model per point and epoch)."""
    if tokenizer == "moses":
        tokens = _moses().tokenize(sentence, escape=False)
    elif tokenizer == "whitespace":
        tokens = sentence.split()
    else:
        raise ValueError(f"unknown tokenizer {tokenizer!r}; expected one of {TOKENIZERS}")
    return tuple(t.lower() for t in tokens) if lowercase else tuple(tokens)


def tokenize_all(sentences: Sequence[str], tokenizer: str, lowercase: bool) -> list[list[str]]:
    """Tokenise many sentences, doing the work once for each distinct sentence."""
    done: dict[str, list[str]] = {}
    out = []
    for sentence in sentences:
        tokens = done.get(sentence)
        if tokens is None:
            tokens = done[sentence] = tokenize(sentence, tokenizer, lowercase)
        out.append(tokens)
    return out


TOKENISED = "tokenised"
"""The provenance ``config`` key of a tokenised set: the ``tokenizer`` and ``lowercase`` of
its sentences, each now its tokens joined by single spaces."""


def tokenise_set(path: Path, out: Path, tokenizer: str, lowercase: bool) -> None:
    """Write the sentence-pair set at ``path`` to ``out`` with every sentence replaced by its
    tokens joined by single spaces (none holds whitespace, so a split at whitespace gives them
    back); its provenance is the set's, the tokenisation added under :data:`TOKENISED`."""
    import pyarrow as pa

    from paracomp import artefacts

    table = artefacts.read(path, artefacts.SENTENCE_PAIRS)
    prov = artefacts.provenance(path)
    for side in ("s1", "s2"):
        tokens = tokenize_all(table[side].to_pylist(), tokenizer, lowercase)
        for row, sentence in enumerate(tokens):
            if any(not t or t != "".join(t.split()) for t in sentence):
                raise DataError(f"{path}: row {row} {side}: a token holds whitespace: {sentence}")
        joined = pa.array([" ".join(t) for t in tokens], pa.string())
        table = table.set_column(table.column_names.index(side), side, joined)
    tokenised = {"tokenizer": tokenizer, "lowercase": lowercase}
    provenance = artefacts.Provenance(
        prov.get("dataset", path.stem),
        prov.get("source", ""),
        {**prov.get("inputs", {}), **artefacts.input_checksums([path])},
        {**prov.get("config", {}), TOKENISED: tokenised},
        prov.get("notes", ""),
    )
    artefacts.write(table, out, artefacts.SENTENCE_PAIRS, provenance)


def tokenisation(
    prov: Mapping[str, Any], path: Path, tokenizer: str, lowercase: bool
) -> tuple[str, bool]:
    """How to tokenise the sentences of the set at ``path`` (provenance ``prov``) for a scorer
    asking for ``tokenizer`` and ``lowercase``: as asked, or for a set tokenised so, a split
    at whitespace; a set tokenised otherwise is an error."""
    done = prov.get("config", {}).get(TOKENISED)
    if done is None:
        return tokenizer, lowercase
    if done != {"tokenizer": tokenizer, "lowercase": lowercase}:
        raise DataError(
            f"{path}: tokenised with {done}, but scored with tokenizer {tokenizer!r},"
            f" lowercase {lowercase}: rebuild it (rule tokenise_set) or score the raw set"
        )
    return "whitespace", False
