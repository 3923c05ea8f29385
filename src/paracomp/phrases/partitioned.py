"""Parquet files split into partitions: one row group (or more) per partition, read back by
partition from many files at once; and row ranges of a file, read without the rest."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from itertools import pairwise
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
from numba import njit

from paracomp.atomic import atomic_path
from paracomp.errors import DataError
from paracomp.phrases.digests import (
    WHOLE,
    ContentDigest,
    record,
    recorded,
    same_inputs,
    verify,
)

BATCH_ROWS = 1 << 16
"""Rows decoded at a time by :func:`read_rows`."""
PART = "part"
"""The column holding each row's partition (every row group holds one partition)."""
CHECKSUMS = {"write_page_checksum": True}
"""Writer options of the partitioned intermediates: a CRC32 of every data page, which their
readers verify (a flipped byte is refused naming the file, not decoded into wrong rows)."""


PIECE_KEY = b"paracomp.piece"
"""Schema metadata of a partitioned file: which piece of a job's outputs it is
(``{"kind": …, "index": k, "of": n}``), checked by the readers of all n."""


def write_partitioned(
    table: pa.Table,
    parts: np.ndarray,
    path: Path,
    piece: Mapping[str, Any] | None = None,
    inputs: Mapping[str, str] | None = None,
) -> None:
    """Write ``table`` atomically, its rows grouped by partition ``parts`` (order kept within
    each partition); ``piece`` says which of its kind it is (:data:`PIECE_KEY`), ``inputs``
    the digests of what it derives from (:mod:`paracomp.phrases.digests`)."""
    with partitioned_writer(path, table.schema, piece, inputs) as append:
        append(table, parts)


@contextmanager
def partitioned_writer(
    path: Path,
    schema: pa.Schema,
    piece: Mapping[str, Any] | None = None,
    inputs: Mapping[str, str] | None = None,
) -> Iterator[Callable[[pa.Table, np.ndarray], None]]:
    """A function that appends tables of ``schema`` to ``path``, one row group per partition
    of their ``parts`` (a partition may span several appends; readers look at every row
    group); the file ends with the digest of each partition and ``inputs``."""
    schema = schema.append(pa.field(PART, pa.int64()))
    if piece is not None:
        schema = schema.with_metadata({PIECE_KEY: json.dumps(dict(piece))})
    content: dict[int, ContentDigest] = defaultdict(ContentDigest)
    with (
        atomic_path(path) as tmp,
        pq.ParquetWriter(tmp, schema, compression="zstd", **CHECKSUMS) as writer,
    ):

        def append(table: pa.Table, parts: np.ndarray) -> None:
            order = np.argsort(parts, kind="stable")
            parts = np.asarray(parts, dtype=np.int64)[order]
            table = table.take(pa.array(order)).append_column(PART, pa.array(parts))
            cuts = [0, *(np.flatnonzero(np.diff(parts)) + 1).tolist(), len(parts)]
            for lo, hi in pairwise(cuts):
                if hi > lo:
                    rows = table.slice(lo, hi - lo)
                    writer.write_table(rows)
                    content[int(parts[lo])].update(rows)

        yield append
        writer.add_key_value_metadata(record(content, inputs or {}))


def write_verified(table: pa.Table, path: Path, inputs: Mapping[str, str]) -> None:
    """Write unpartitioned intermediate ``table`` atomically, with page checksums and the
    digests of its content and of its ``inputs``, for :func:`read_verified`."""
    digest = ContentDigest()
    digest.update(table)
    with (
        atomic_path(path) as tmp,
        pq.ParquetWriter(tmp, table.schema, compression="zstd", **CHECKSUMS) as writer,
    ):
        writer.write_table(table)
        writer.add_key_value_metadata(record({WHOLE: digest}, inputs))


class PartitionedFiles:
    """Partitioned files, their row groups indexed by partition (each footer read once)."""

    def __init__(self, paths: Sequence[Path], kind: str | None = None):
        """``kind``: the files are the pieces of that kind, ``paths[k]`` piece ``k`` of
        ``len(paths)`` (a file replaced by another, or from a plan of other counts, is
        refused naming it)."""
        if not paths:
            raise DataError("partitioned files: none given")
        self.groups: dict[int, list[tuple[Path, pq.ParquetFile, int]]] = defaultdict(list)
        self.records: dict[Path, dict[str, Any]] = {}
        for index, path in enumerate(paths):
            handle = open_verified(path)
            if kind is not None:
                _check_piece(path, handle, {"kind": kind, "index": index, "of": len(paths)})
            column = handle.schema_arrow.get_field_index(PART)
            if column < 0:
                raise DataError(f"{path}: no column {PART!r}: not a partitioned file")
            self.records[path] = recorded(path, handle)
            for group in range(handle.num_row_groups):
                stats = handle.metadata.row_group(group).column(column).statistics
                if stats is None or not stats.has_min_max or stats.min != stats.max:
                    raise DataError(f"{path}: row group {group} is not one partition's")
                self.groups[stats.min].append((path, handle, group))
        same_inputs(paths, list(self.records.values()))
        self.schema = pq.read_schema(paths[0])

    def parts(self) -> list[int]:
        """The partitions that hold rows, in order."""
        return sorted(self.groups)

    def read(self, part: int) -> pa.Table:
        """The rows of partition ``part``, file by file, each file's checked against its
        digest."""
        pieces: dict[Path, list[pa.Table]] = defaultdict(list)
        for path, handle, group in self.groups.get(part, []):
            with damaged(path, f"row group {group}"):
                pieces[path].append(handle.read_row_group(group))
        empty = self.schema.empty_table()
        for path, found in self.records.items():
            verify(path, found, str(part), pa.concat_tables([empty, *pieces[path]]))
        tables = [t for path in self.records for t in pieces[path]]
        return pa.concat_tables(tables) if tables else empty


def open_verified(path: Path) -> pq.ParquetFile:
    """``path`` opened so that every data page read is checked against its CRC32 (pages
    written without one are read as they are)."""
    try:
        return pq.ParquetFile(path, page_checksum_verification=True)
    except (OSError, pa.ArrowException) as exc:
        raise DataError(f"{path}: not a readable parquet file ({exc})") from exc


def read_verified(path: Path) -> pa.Table:
    """The whole of intermediate file ``path``, its pages checked (:func:`open_verified`) and
    its content against its digest (:func:`write_verified`)."""
    handle = open_verified(path)
    found = recorded(path, handle)
    with damaged(path, "a page"):
        table = handle.read()
    verify(path, found, WHOLE, table)
    return table


def derived_alike(paths: Sequence[Path]) -> None:
    """Refuse intermediates ``paths`` unless they derive from the same inputs (their
    footers alone are read)."""
    same_inputs(paths, [recorded(path, open_verified(path)) for path in paths])


@contextmanager
def damaged(path: Path, what: str) -> Iterator[None]:
    """A page that fails its checksum or does not decode (``ZSTD decompression failed``) is a
    one-line :class:`DataError` naming the file and saying what to delete."""
    try:
        yield
    except (OSError, pa.ArrowException) as exc:
        raise DataError(
            f"{path}: {what} is damaged ({str(exc).splitlines()[0]}); delete it and rerun the "
            "job that wrote it"
        ) from exc


def read_partition(paths: Sequence[Path], part: int, kind: str | None = None) -> pa.Table:
    """The rows of partition ``part`` in every file of ``paths`` (the pieces of ``kind``, in
    order, where given), file by file."""
    return PartitionedFiles(paths, kind).read(part)


def _check_piece(path: Path, handle: pq.ParquetFile, expected: dict[str, Any]) -> None:
    raw = (handle.schema_arrow.metadata or {}).get(PIECE_KEY)
    found = json.loads(raw) if raw else None
    if found != expected:
        what = (
            "no piece record (an older paracomp's?)"
            if found is None
            else (f"{found.get('kind')} {found.get('index')} of {found.get('of')}")
        )
        raise DataError(
            f"{path}: holds {what}, expected {expected['kind']} {expected['index']} of "
            f"{expected['of']} (replaced by another file?); delete it and rerun the job that "
            "wrote it"
        )


def read_rows(path: Path, columns: list[str], start: int, stop: int) -> pa.Table:
    """Rows ``start:stop`` of ``columns``, decoding only the row groups that hold them, a
    batch of :data:`BATCH_ROWS` at a time, and keeping only those rows."""
    handle = open_verified(path)
    missing = sorted(set(columns) - set(handle.schema_arrow.names))
    if missing:
        raise DataError(f"{path}: missing columns {missing}")
    pieces, offset = [], 0
    for group in range(handle.num_row_groups):
        size = handle.metadata.row_group(group).num_rows
        if offset < stop and offset + size > start:
            batches = handle.iter_batches(BATCH_ROWS, row_groups=[group], columns=columns)
            for batch in _checked(batches, path, f"row group {group}"):
                lo, hi = max(start, offset), min(stop, offset + batch.num_rows)
                if hi > lo:
                    pieces.append(pa.Table.from_batches([batch.slice(lo - offset, hi - lo)]))
                offset += batch.num_rows
                if offset >= stop:
                    break
        else:
            offset += size
    if not pieces:
        return handle.schema_arrow.empty_table().select(columns)
    return pa.concat_tables(pieces).combine_chunks()


def _checked(batches: Iterator[pa.RecordBatch], path: Path, what: str) -> Iterator[pa.RecordBatch]:
    while True:
        with damaged(path, what):
            batch = next(batches, None)
        if batch is None:
            return
        yield batch


def num_rows(path: Path) -> int:
    """Rows of a parquet file, from its footer."""
    return pq.ParquetFile(path).metadata.num_rows


def string_partitions(strings: pa.Array | pa.ChunkedArray, partitions: int) -> np.ndarray:
    """Each string's partition, from a hash of its UTF-8 bytes (the same in every process)."""
    if isinstance(strings, pa.ChunkedArray):
        strings = (
            pa.concat_arrays(strings.chunks) if strings.num_chunks else pa.array([], pa.string())
        )
    if strings.null_count:
        raise DataError("string_partitions: null strings")
    strings = strings.cast(pa.large_string())
    offsets = np.frombuffer(strings.buffers()[1], dtype=np.int64)
    offsets = offsets[strings.offset : strings.offset + len(strings) + 1]
    data = strings.buffers()[2]
    data = np.frombuffer(data, dtype=np.uint8) if data is not None else np.zeros(0, np.uint8)
    return _fnv1a(offsets, data) % np.int64(partitions)


@njit(cache=True)
def _fnv1a(offsets: np.ndarray, data: np.ndarray) -> np.ndarray:
    """64-bit FNV-1a of each string, its top 31 bits."""
    out = np.empty(offsets.size - 1, dtype=np.int64)
    for k in range(out.size):
        h = np.uint64(0xCBF29CE484222325)
        for b in data[offsets[k] : offsets[k + 1]]:
            h = (h ^ np.uint64(b)) * np.uint64(0x100000001B3)
        out[k] = np.int64(h >> np.uint64(33))
    return out
