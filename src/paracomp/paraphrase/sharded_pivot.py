"""Pivoting as scatter-gather jobs, each in memory bounded by its partition.

p(e2|e1) = Σ_f p(e2|f) p(f|e1) is a self-join of the phrase table on f, so the table is
split by a hash of f (:func:`split_by_foreign`); each foreign partition joins alone and
writes its partial sums split by a hash of e1 (:func:`join_partition`); each e1 partition
adds its partial sums over the foreign partitions and keeps its best pairs, at most ``top_k``
per e1 and ``max_pairs`` in all (:func:`sum_partition`); :func:`gather` keeps the best
``max_pairs`` of all partitions, one partition at a time.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from paracomp.artefacts import Provenance, write
from paracomp.paraphrase.pivot import best_pairs, pivot_sums, scored_pairs
from paracomp.paraphrase.ppdb import SCORED_PAIRS
from paracomp.phrases.digests import input_digests, pieces
from paracomp.phrases.partitioned import (
    derived_alike,
    partitioned_writer,
    read_partition,
    read_verified,
    string_partitions,
    write_partitioned,
    write_verified,
)

COLUMNS = ["en", "es", "p_en_given_es", "p_es_given_en"]
BATCH = 1 << 20
"""Phrase-table rows read at a time by :func:`split_by_foreign`."""


def split_by_foreign(
    table_path: Path,
    out: Path,
    *,
    partitions: int,
    min_count: int = 1,
    min_translation_prob: float = 0.0,
) -> int:
    """The rows of the phrase table seen ``min_count`` times with both translation
    probabilities ≥ ``min_translation_prob``, partitioned by foreign phrase; returns them."""
    handle = pq.ParquetFile(table_path)
    schema = pa.schema([handle.schema_arrow.field(name) for name in COLUMNS])
    kept, inputs = 0, input_digests({"phrase table": table_path})
    with partitioned_writer(out, schema, inputs=inputs) as append:
        for batch in handle.iter_batches(BATCH, columns=[*COLUMNS, "count"]):
            keep = pc.and_(
                pc.greater_equal(batch["count"], min_count),
                pc.and_(
                    pc.greater_equal(batch["p_en_given_es"], min_translation_prob),
                    pc.greater_equal(batch["p_es_given_en"], min_translation_prob),
                ),
            )
            rows = pa.Table.from_batches([batch]).filter(keep).select(COLUMNS)
            append(rows, string_partitions(rows["es"], partitions))
            kept += len(rows)
    return kept


def join_partition(
    paths: list[Path], out: Path, *, partition: int, partitions: int, max_join_rows: int
) -> int:
    """Partial sums Σ_f p(e2|f) p(f|e1) over the foreign phrases of one partition, split by
    e1; returns the pairs."""
    probs = pivot_sums(read_partition(paths, partition), max_join_rows=max_join_rows)
    table = pa.table({"e1": probs["e1"], "e2": probs["e2"], "p": probs["p"]})
    table = table.cast(pa.schema([("e1", pa.string()), ("e2", pa.string()), ("p", pa.float64())]))
    piece = {"kind": "pivot join", "index": partition, "of": partitions}
    parts = string_partitions(table["e1"], partitions)
    write_partitioned(table, parts, out, piece, pieces(paths, "foreign split"))
    return len(table)


def sum_partition(
    paths: list[Path],
    out: Path,
    *,
    partition: int,
    min_prob: float,
    top_k: int | None,
    max_pairs: int | None,
) -> int:
    """p(e2|e1) of the e1 of one partition: its partial sums added, its best pairs kept."""
    partial = read_partition(paths, partition, "pivot join").select(["e1", "e2", "p"]).to_pandas()
    probs = partial.groupby(["e1", "e2"], sort=False)["p"].sum().reset_index()
    ranked = best_pairs(probs, min_prob=min_prob, top_k=top_k, max_pairs=max_pairs)
    table = pa.Table.from_pandas(ranked, preserve_index=False)
    write_verified(table, out, pieces(paths, "pivot join"))
    return len(ranked)


def gather(paths: list[Path], out: Path, *, max_pairs: int | None, provenance: Provenance) -> int:
    """SCORED_PAIRS of the best ``max_pairs`` of every partition's pairs."""
    derived_alike(paths)
    best = pd.DataFrame({"e1": [], "e2": [], "p": []}).astype({"p": float})
    for path in paths:
        part = read_verified(path).to_pandas()
        both = pd.concat([best, part], ignore_index=True)
        best = best_pairs(both, min_prob=-np.inf, top_k=None, max_pairs=max_pairs)
    table = scored_pairs(best)
    write(table, out, SCORED_PAIRS, provenance)
    return table.num_rows
