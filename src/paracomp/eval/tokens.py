"""Sentence tokenisation for evaluation, applied once per distinct sentence."""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache, lru_cache
from typing import TYPE_CHECKING

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
