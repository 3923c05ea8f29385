"""Bilingual sentence corpora: read, tokenise per language, lowercase, clean."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import zip_longest
from pathlib import Path

import pyarrow as pa

from paracomp.corpus.clean import clean_pairs
from paracomp.corpus.tokenize import tokenize_lines
from paracomp.errors import DataError

BILINGUAL_PAIRS = pa.schema(
    [
        ("id", pa.string()),
        ("en", pa.string()),
        ("es", pa.string()),
        ("len_en", pa.int32()),
        ("len_es", pa.int32()),
    ]
)
"""Tokenised, lowercased English-foreign segment pairs (sentences or phrases)."""


def read_parallel_text(path_en: Path, path_es: Path) -> Iterator[tuple[str, str, str]]:
    """Line-aligned UTF-8 text files (Europarl) as ``(line number, English, foreign)``.

    Lines end at ``\\n`` only, so that a carriage return or other line separator inside a
    sentence never shifts one side against the other; a line that is not UTF-8, or files of
    different lengths, raise :class:`DataError` naming the file and line.
    """
    with open(path_en, "rb") as en, open(path_es, "rb") as es:
        for number, (e, f) in enumerate(zip_longest(en, es), start=1):
            if e is None or f is None:
                short = path_en if e is None else path_es
                raise DataError(
                    f"{short}: ends after line {number - 1}, its other side has line {number}; "
                    f"{path_en} and {path_es} must have the same number of lines"
                )
            yield str(number), _utf8(e, path_en, number), _utf8(f, path_es, number)


def _utf8(line: bytes, path: Path, number: int) -> str:
    """A line without its ``\\n``, decoded as UTF-8, or a DataError naming it."""
    try:
        return line.removesuffix(b"\n").decode("utf-8")
    except UnicodeDecodeError as err:
        raise DataError(f"{path}:{number}: not UTF-8 ({err.reason} at byte {err.start})") from None


def bilingual_sentences(
    pairs: Sequence[tuple[str, str, str]],
    *,
    lang_es: str = "es",
    normalize_punct: bool = True,
    n_jobs: int = 1,
    min_tokens: int = 1,
    max_tokens: int = 80,
    max_ratio: float | None = 9.0,
) -> pa.Table:
    """Tokenise each side with Moses rules for its language, lowercase, then clean like
    ``clean-corpus-n`` (tokenising first: the full-stop rule looks at the next word's case)."""
    ids = [p[0] for p in pairs]
    en = tokenize_lines([p[1] for p in pairs], "en", True, n_jobs, normalize_punct)
    es = tokenize_lines([p[2] for p in pairs], lang_es, True, n_jobs, normalize_punct)
    kept = list(
        clean_pairs(zip(en, es), min_tokens=min_tokens, max_tokens=max_tokens, max_ratio=max_ratio)
    )
    return pa.table(
        {
            "id": [ids[i] for i, _, _ in kept],
            "en": [e for _, e, _ in kept],
            "es": [f for _, _, f in kept],
            "len_en": pa.array([e.count(" ") + 1 for _, e, _ in kept], pa.int32()),
            "len_es": pa.array([f.count(" ") + 1 for _, _, f in kept], pa.int32()),
        },
        schema=BILINGUAL_PAIRS,
    )
