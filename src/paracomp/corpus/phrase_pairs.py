"""Selecting bilingual training phrase pairs from a phrase table by rules from config, in two
passes over the table's rows, a batch at a time: which rows pass the rules, then those rows."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from paracomp.corpus.build import BILINGUAL_PAIRS
from paracomp.errors import DataError

BATCH = 1 << 20
"""Phrase-table rows read at a time."""


class Selection(NamedTuple):
    """Which phrase-table rows are selected, in bounded memory: per batch of the table, a bit
    per row passing the rules (``passed``, packed) and its rows (``sizes``); where
    ``max_pairs`` cut them, the ranks among those of the rows kept (``ranks``, sorted; None:
    every row that passed); ``rows``, how many are selected."""

    passed: list[np.ndarray]
    sizes: list[int]
    ranks: np.ndarray | None
    rows: int


def _batches(path: Path, columns: list[str] | None = None) -> Iterator[pa.RecordBatch]:
    """The table's rows a batch at a time, without pre-buffering (pyarrow's default keeps
    every column chunk it has read: 1.24 GiB at 16x the Bible)."""
    handle = pq.ParquetFile(path, pre_buffer=False)
    yield from handle.iter_batches(BATCH, columns=columns, use_threads=False)


def select_rows(
    path: Path,
    *,
    min_count: int = 1,
    min_prob: float = 0.0,
    min_length: int = 1,
    max_length: int = 7,
    max_pairs: int | None = None,
    seed: int = 1,
) -> Selection:
    """The phrase pairs seen ``min_count`` times, with both translation probabilities at
    least ``min_prob`` and both sides ``min_length``–``max_length`` tokens long; then, if more
    remain than ``max_pairs``, a seeded random sample of that size (the first ``max_pairs`` of
    one permutation, as :func:`paracomp.corpus.derive.subsample`), in phrase-table order."""
    passed, sizes, count = [], [], 0
    columns = ["en", "es", "count", "p_en_given_es", "p_es_given_en"]
    for batch in _batches(path, columns):
        len_en, len_es = _lengths(batch)
        keep = pc.and_(
            pc.and_(
                pc.greater_equal(batch["count"], min_count),
                pc.and_(
                    pc.greater_equal(batch["p_en_given_es"], min_prob),
                    pc.greater_equal(batch["p_es_given_en"], min_prob),
                ),
            ),
            pc.and_(
                pc.and_(pc.greater_equal(len_en, min_length), pc.less_equal(len_en, max_length)),
                pc.and_(pc.greater_equal(len_es, min_length), pc.less_equal(len_es, max_length)),
            ),
        ).to_numpy(zero_copy_only=False)
        passed.append(np.packbits(keep))
        sizes.append(len(keep))
        count += int(keep.sum())
    ranks = None
    if max_pairs is not None and count > max_pairs:
        ranks = np.sort(np.random.default_rng(seed).permutation(count)[:max_pairs])
    return Selection(passed, sizes, ranks, count if ranks is None else len(ranks))


def selected_pairs(path: Path, selection: Selection) -> Iterator[pa.Table]:
    """BILINGUAL_PAIRS of the rows of ``selection``, ids ``pt:<row>``, by batch."""
    offset, rank = 0, 0
    batches = _batches(path, ["en", "es"])
    for batch, bits, size in zip(batches, selection.passed, selection.sizes, strict=True):
        if batch.num_rows != size:
            raise DataError(f"{path}: changed while it was read")
        local = np.flatnonzero(np.unpackbits(bits, count=size))
        if selection.ranks is not None:
            lo, hi = np.searchsorted(selection.ranks, [rank, rank + len(local)])
            chosen = selection.ranks[lo:hi] - rank
            rank += len(local)
            local = local[chosen]
        yield _pairs(batch, local, offset)
        offset += size


def _pairs(batch: pa.RecordBatch, local: np.ndarray, offset: int) -> pa.Table:
    """Rows ``local`` of ``batch`` (whose first row is row ``offset``) as BILINGUAL_PAIRS."""
    take = pa.array(local)
    len_en, len_es = _lengths(batch)
    return pa.table(
        {
            "id": pa.array([f"pt:{i}" for i in (local + offset).tolist()], pa.string()),
            "en": batch["en"].take(take),
            "es": batch["es"].take(take),
            "len_en": len_en.take(take).cast(pa.int32()),
            "len_es": len_es.take(take).cast(pa.int32()),
        },
        schema=BILINGUAL_PAIRS,
    )


def _lengths(batch: pa.RecordBatch) -> tuple[pa.Array, pa.Array]:
    """Tokens of each side: spaces + 1."""
    return (
        pc.add(pc.count_substring(batch["en"], " "), 1),
        pc.add(pc.count_substring(batch["es"], " "), 1),
    )
