"""Selecting bilingual training phrase pairs from a phrase table by rules from config, in two
passes over the table's rows, a batch at a time: which rows pass the rules, then those rows."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from paracomp.corpus.build import BILINGUAL_PAIRS

BATCH = 1 << 20
"""Phrase-table rows read at a time."""


def select_rows(
    path: Path,
    *,
    min_count: int = 1,
    min_prob: float = 0.0,
    min_length: int = 1,
    max_length: int = 7,
    max_pairs: int | None = None,
    seed: int = 1,
) -> np.ndarray:
    """Row numbers of the phrase pairs seen ``min_count`` times, with both translation
    probabilities at least ``min_prob`` and both sides ``min_length``–``max_length`` tokens
    long; then, if more remain than ``max_pairs``, a seeded random sample of that size (the
    first ``max_pairs`` of one permutation, as :func:`paracomp.corpus.derive.subsample`),
    in phrase-table order."""
    kept, offset = [], 0
    for batch in pq.ParquetFile(path).iter_batches(BATCH):
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
        )
        kept.append(np.flatnonzero(keep.to_numpy(zero_copy_only=False)) + offset)
        offset += batch.num_rows
    rows = np.concatenate(kept) if kept else np.zeros(0, dtype=np.int64)
    if max_pairs is not None and len(rows) > max_pairs:
        rows = rows[np.sort(np.random.default_rng(seed).permutation(len(rows))[:max_pairs])]
    return rows


def selected_pairs(path: Path, rows: np.ndarray) -> Iterator[pa.Table]:
    """BILINGUAL_PAIRS of phrase-table rows ``rows`` (sorted), ids ``pt:<row>``, by batch."""
    offset = 0
    for batch in pq.ParquetFile(path).iter_batches(BATCH, columns=["en", "es"]):
        lo, hi = np.searchsorted(rows, [offset, offset + batch.num_rows])
        local = pa.array(rows[lo:hi] - offset)
        len_en, len_es = _lengths(batch)
        yield pa.table(
            {
                "id": pa.array([f"pt:{i}" for i in rows[lo:hi].tolist()], pa.string()),
                "en": batch["en"].take(local),
                "es": batch["es"].take(local),
                "len_en": len_en.take(local).cast(pa.int32()),
                "len_es": len_es.take(local).cast(pa.int32()),
            },
            schema=BILINGUAL_PAIRS,
        )
        offset += batch.num_rows


def _lengths(batch: pa.RecordBatch) -> tuple[pa.Array, pa.Array]:
    """Tokens of each side: spaces + 1."""
    return (
        pc.add(pc.count_substring(batch["en"], " "), 1),
        pc.add(pc.count_substring(batch["es"], " "), 1),
    )
