"""chen2020's training corpora: ParaNMT's processed release, or its stand-in, the shared
English–English Bible verse pairs (:mod:`paracomp.corpus.english_bible`, rule
``english_bible_pairs``), named by one config key, ``papers.chen2020.corpus``; and the
training and tuning subsets of the corpus.
"""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc

from paracomp import artefacts
from paracomp.corpus.derive import subsample
from paracomp.errors import DataError


def read_paranmt(path: Path) -> pa.Table:
    """ParaNMT's processed release (``para-nmt-5m-processed.txt``: one tab-separated pair a
    line, already lowercased and tokenised) as SEGMENT_PAIRS; ids are line numbers. A line
    without a tab is a :class:`DataError` naming it; pairs with an empty side are skipped."""
    ids, s1, s2 = [], [], []
    with open(path, encoding="utf-8", errors="replace", newline="\n") as handle:
        for number, line in enumerate(handle, start=1):
            parts = line.rstrip("\n").split("\t")
            if len(parts) < 2:
                raise DataError(f"{path}:{number}: expected 'sentence<TAB>paraphrase', no tab")
            if not parts[0].strip() or not parts[1].strip():
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
    table = artefacts.read(corpus, artefacts.SEGMENT_PAIRS).select(artefacts.SEGMENT_PAIRS.names)
    train, tuning = subsets(
        table, params["max_tokens"], params["train_pairs"], params["tuning_pairs"], params["seed"]
    )
    checksums = artefacts.input_checksums([corpus])
    for part, path, name in ((train, out, "train"), (tuning, tuning_out, "tuning")):
        prov = artefacts.Provenance(f"chen2020-{name}", "subset", checksums, dict(params))
        artefacts.write(part, path, artefacts.SEGMENT_PAIRS, prov)
