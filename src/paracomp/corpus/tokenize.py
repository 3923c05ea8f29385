"""Moses tokenisation (sacremoses) followed by lowercasing.

Tokenising comes first because Moses' full-stop rule looks at the case of the next word
("it. Then" splits the full stop, "it. then" does not). No XML escaping: output stays plain
text. ``normalize_punct`` first runs Moses' punctuation normaliser, which maps curly quotes
and apostrophes (the WEB Bible's ``God’s``) to ASCII so that ``'s`` is split as in SICK/STS.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from multiprocessing import Pool
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # sacremoses takes a quarter of a second to import: only where it tokenises
    from sacremoses import MosesPunctNormalizer, MosesTokenizer

_CHUNK = 512


@functools.cache
def moses_tokenizer(lang: str) -> MosesTokenizer:
    """One cached sacremoses tokenizer per language (building one loads its prefix lists)."""
    from sacremoses import MosesTokenizer

    return MosesTokenizer(lang=lang)


@functools.cache
def punct_normalizer(lang: str) -> MosesPunctNormalizer:
    """One cached sacremoses punctuation normaliser per language."""
    from sacremoses import MosesPunctNormalizer

    return MosesPunctNormalizer(lang=lang)


def tokenize_line(
    line: str, lang: str, lowercase: bool = True, normalize_punct: bool = False
) -> str:
    """Moses-tokenise one line, space-joined, then lowercase it when asked."""
    if normalize_punct:
        line = punct_normalizer(lang).normalize(line)
    text = " ".join(moses_tokenizer(lang).tokenize(line, escape=False))
    return text.lower() if lowercase else text


def _tokenize_chunk(args: tuple[list[str], str, bool, bool]) -> list[str]:
    lines, lang, lowercase, normalize_punct = args
    return [tokenize_line(line, lang, lowercase, normalize_punct) for line in lines]


def tokenize_lines(
    lines: Iterable[str],
    lang: str,
    lowercase: bool = True,
    n_jobs: int = 1,
    normalize_punct: bool = False,
) -> list[str]:
    """Tokenise every line; ``n_jobs > 1`` spreads chunks of lines over worker processes."""
    lines = list(lines)
    if n_jobs <= 1 or len(lines) <= _CHUNK:
        return _tokenize_chunk((lines, lang, lowercase, normalize_punct))
    chunks = [
        (lines[i : i + _CHUNK], lang, lowercase, normalize_punct)
        for i in range(0, len(lines), _CHUNK)
    ]
    with Pool(n_jobs) as pool:
        return [line for chunk in pool.imap(_tokenize_chunk, chunks) for line in chunk]
