"""English–English Bible verse paraphrases (KJV–WEB): a shared training-corpus artefact.

``resources/corpus/bible-kjv-web.parquet`` (rule ``english_bible_pairs``, rules/corpus.smk),
the real stand-in for sentential paraphrase corpora that the embedded default cannot fetch:
wieting2017 trains on it in place of SimpWiki, chen2020 in place of ParaNMT. Debian has
exactly two English SWORD modules, the King James Version (``sword-text-kjv``, module
``engKJV2006eb``) and the World English Bible (``sword-text-web``, ``engWEB2015eb``); they are
paired by OSIS key with the reader of the En–Es corpus, KJV as side 1. Both sides are
Moses-tokenised with punctuation normalised and lowercased, like the other corpora; the KJV's
paragraph marks (¶) are dropped, and so are pairs identical after tokenising (no paraphrase)
and pairs outside ``min_tokens … max_tokens`` tokens a side.
"""

from __future__ import annotations

import logging
from pathlib import Path

import pyarrow as pa

from paracomp import artefacts
from paracomp.corpus.bible import read_bible_pairs
from paracomp.corpus.clean import clean_pairs
from paracomp.corpus.tokenize import tokenize_lines

log = logging.getLogger(__name__)

KJV_MODULE = "engKJV2006eb"
WEB_MODULE = "engWEB2015eb"
PARAGRAPH_MARKS = str.maketrans({"¶": " "})
"""The pilcrows of the SWORD modules' verse text, dropped (a space) before tokenising."""


def paraphrase_pairs(
    verses: list[tuple[str, str, str]],
    *,
    min_tokens: int = 1,
    max_tokens: int = 80,
    jobs: int = 1,
) -> pa.Table:
    """SEGMENT_PAIRS of ``(osis id, KJV text, WEB text)`` verses (see the module docstring)."""
    kjv = tokenize_lines([v[1].translate(PARAGRAPH_MARKS) for v in verses], "en", True, jobs, True)
    web = tokenize_lines([v[2].translate(PARAGRAPH_MARKS) for v in verses], "en", True, jobs, True)
    kept = [
        (verses[i][0], s1, s2)
        for i, s1, s2 in clean_pairs(
            zip(kjv, web, strict=True), min_tokens=min_tokens, max_tokens=max_tokens, max_ratio=None
        )
        if s1 != s2
    ]
    return pa.table(
        {
            "id": [k for k, _, _ in kept],
            "s1": [s for _, s, _ in kept],
            "s2": [s for _, _, s in kept],
            "len1": pa.array([s.count(" ") + 1 for _, s, _ in kept], pa.int32()),
            "len2": pa.array([s.count(" ") + 1 for _, _, s in kept], pa.int32()),
        },
        schema=artefacts.SEGMENT_PAIRS,
    )


def read_kjv_web(kjv_root: Path, web_root: Path) -> list[tuple[str, str, str]]:
    """``(osis id, KJV, WEB)`` for verses non-empty in both modules, in KJV order."""
    return read_bible_pairs(kjv_root, web_root, KJV_MODULE, WEB_MODULE)


def write_english_bible(
    kjv: Path, web: Path, out: Path, *, max_tokens: int = 80, jobs: int = 1
) -> None:
    """The verse pairs of two fetched package folders, written as a SEGMENT_PAIRS artefact."""
    from paracomp.data.fetch import verify_fetched

    roots = [folder / verify_fetched(folder).get("root", ".") for folder in (kjv, web)]
    verses = read_kjv_web(*roots)
    table = paraphrase_pairs(verses, max_tokens=max_tokens, jobs=jobs)
    log.info("%d of %d verse pairs kept", table.num_rows, len(verses))
    prov = artefacts.Provenance(
        "bible-kjv-web",
        "Debian sword-text-kjv, sword-text-web",
        artefacts.input_checksums([kjv / "MANIFEST.json", web / "MANIFEST.json"]),
        {"max_tokens": max_tokens},
        "KJV side 1, WEB side 2; Moses-tokenised, lowercased",
    )
    artefacts.write(table, out, artefacts.SEGMENT_PAIRS, prov)
