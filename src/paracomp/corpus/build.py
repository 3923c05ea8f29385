"""Bilingual sentence corpora: read, tokenise per language, lowercase, clean."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
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
    """Line-aligned text files (Europarl) as ``(line number, English, foreign)``."""
    with open(path_en, encoding="utf-8") as en, open(path_es, encoding="utf-8") as es:
        for number, (e, f) in enumerate(zip(en, es, strict=False), start=1):
            yield str(number), e.rstrip("\n"), f.rstrip("\n")
        if en.readline() or es.readline():
            raise DataError(f"{path_en} and {path_es} have different numbers of lines")


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
