"""chen2020's stand-in for ParaNMT: English–English Bible verse paraphrases (KJV–WEB).

A minimal version of the corpus artefact that wieting2017's issue builds (to be replaced by it
once merged; the rules name the artefact through one config key, ``papers.chen2020.corpus``):
the King James Version (Debian ``sword-text-kjv``, module ``engKJV2006eb``) and the World
English Bible (``sword-text-web``, ``engWEB2015eb``) paired by OSIS key, KJV as side 1. Both
sides are Moses-tokenised with punctuation normalised and lowercased (ParaNMT's processed
release is lowercased and tokenised); the KJV's paragraph marks (¶) are dropped, and so are
pairs identical after tokenising (no paraphrase) and pairs outside ``min_tokens …
max_tokens`` tokens a side.
"""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc

from paracomp import artefacts
from paracomp.corpus.bible import read_bible_pairs
from paracomp.corpus.clean import clean_pairs
from paracomp.corpus.derive import subsample
from paracomp.corpus.tokenize import tokenize_lines

KJV_MODULE = "engKJV2006eb"
WEB_MODULE = "engWEB2015eb"
_DROPPED = str.maketrans({"¶": " "})


def paraphrase_pairs(
    verses: list[tuple[str, str, str]],
    *,
    min_tokens: int = 1,
    max_tokens: int = 80,
    jobs: int = 1,
) -> pa.Table:
    """SEGMENT_PAIRS of ``(osis id, KJV text, WEB text)`` verses (see the module docstring)."""
    kjv = tokenize_lines([v[1].translate(_DROPPED) for v in verses], "en", True, jobs, True)
    web = tokenize_lines([v[2].translate(_DROPPED) for v in verses], "en", True, jobs, True)
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


def read_paranmt(path: Path) -> pa.Table:
    """ParaNMT's processed release (``para-nmt-5m-processed.txt``: one tab-separated pair a
    line, already lowercased and tokenised) as SEGMENT_PAIRS; ids are line numbers, lines
    without two non-empty sides are skipped."""
    ids, s1, s2 = [], [], []
    with open(path, encoding="utf-8", errors="replace") as handle:
        for number, line in enumerate(handle, start=1):
            parts = line.rstrip("\n").split("\t")
            if len(parts) < 2 or not parts[0].strip() or not parts[1].strip():
                continue
            ids.append(str(number))
            s1.append(" ".join(parts[0].split()))
            s2.append(" ".join(parts[1].split()))
    return pa.table(
        {
            "id": ids,
            "s1": s1,
            "s2": s2,
            "len1": pa.array([s.count(" ") + 1 for s in s1], pa.int32()),
            "len2": pa.array([s.count(" ") + 1 for s in s2], pa.int32()),
        },
        schema=artefacts.SEGMENT_PAIRS,
    )


def subsets(
    table: pa.Table, max_tokens: int | None, train_pairs: int | None, tuning_pairs: int, seed: int
) -> tuple[pa.Table, pa.Table]:
    """The training pairs (at most ``max_tokens`` tokens a side, a seeded subset of
    ``train_pairs``; None: no limit) and the tuning runs' pairs (a seeded subset of them)."""
    if max_tokens is not None:
        short = pc.and_(
            pc.less_equal(table["len1"], max_tokens), pc.less_equal(table["len2"], max_tokens)
        )
        table = table.filter(short)
    if train_pairs is not None and train_pairs < table.num_rows:
        table = subsample(table, train_pairs, seed=seed)
    tuning = subsample(table, min(tuning_pairs, table.num_rows), seed=seed + 1)
    return table, tuning


def write_subsets(corpus: Path, params: dict, out: Path, tuning_out: Path) -> None:
    """:func:`subsets` of the corpus artefact ``corpus``, written as artefacts."""
    table = artefacts.read(corpus).select(artefacts.SEGMENT_PAIRS.names)
    train, tuning = subsets(
        table, params["max_tokens"], params["train_pairs"], params["tuning_pairs"], params["seed"]
    )
    checksums = artefacts.input_checksums([corpus])
    for part, path, name in ((train, out, "train"), (tuning, tuning_out, "tuning")):
        prov = artefacts.Provenance(f"chen2020-{name}", "subset", checksums, dict(params))
        artefacts.write(part, path, artefacts.SEGMENT_PAIRS, prov)
