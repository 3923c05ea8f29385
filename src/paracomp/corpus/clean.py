"""Length and ratio cleaning of a parallel corpus, as Moses ``clean-corpus-n.perl``.

Semantics copied from the script (non-factored corpus): ``|`` is deleted and whitespace is
collapsed and trimmed on both sides; a pair is dropped when a side is empty, when either
side has more than ``max_tokens`` or fewer than ``min_tokens`` space-separated tokens, when
the token ratio in either direction exceeds ``max_ratio`` (``None`` = ``-ignore-ratio``),
or when a token is longer than ``max_word_length`` characters. Apply it to tokenised text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

_SPACE = re.compile(r"\s+")


def normalise(line: str) -> str:
    """Delete ``|`` and collapse whitespace, as the script does before counting."""
    return _SPACE.sub(" ", line.replace("|", "")).strip()


def keep_pair(
    e: str,
    f: str,
    *,
    min_tokens: int = 1,
    max_tokens: int = 80,
    max_ratio: float | None = 9.0,
    max_word_length: int = 1000,
) -> bool:
    """Whether the script keeps a pair of already normalised lines."""
    if not e or not f:
        return False
    e_tokens, f_tokens = e.split(" "), f.split(" ")
    ec, fc = len(e_tokens), len(f_tokens)
    if not (min_tokens <= ec <= max_tokens and min_tokens <= fc <= max_tokens):
        return False
    if max_ratio is not None and (ec / fc > max_ratio or fc / ec > max_ratio):
        return False
    return all(len(t) <= max_word_length for t in e_tokens + f_tokens)


def clean_pairs(
    pairs: Iterable[tuple[str, str]],
    *,
    min_tokens: int = 1,
    max_tokens: int = 80,
    max_ratio: float | None = 9.0,
    max_word_length: int = 1000,
) -> Iterator[tuple[int, str, str]]:
    """Yield ``(input index, side 1, side 2)`` for the kept pairs, sides normalised."""
    for index, (e, f) in enumerate(pairs):
        e, f = normalise(e), normalise(f)
        if keep_pair(
            e,
            f,
            min_tokens=min_tokens,
            max_tokens=max_tokens,
            max_ratio=max_ratio,
            max_word_length=max_word_length,
        ):
            yield index, e, f
