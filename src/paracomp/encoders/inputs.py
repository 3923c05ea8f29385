"""The sentence files ``paracomp encode``, ``similarity`` and ``neighbours`` read: text (one
sentence a line), CSV or TSV (a column, by header) or parquet (a column). A file that is not
UTF-8 is named with the byte offset at fault, a missing column with the columns present."""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from pathlib import Path

from paracomp.errors import ConfigError, DataError

DELIMITERS = {".csv": ",", ".tsv": "\t"}


def _text(path: Path) -> str:
    data = path.read_bytes()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DataError(
            f"{path}: not UTF-8 at byte offset {exc.start} (byte 0x{data[exc.start]:02x})"
        ) from None


def _pick(path: Path, present: Sequence[str], wanted: Sequence[str | None]) -> list[str]:
    """The ``wanted`` columns (a None: the file's only column, if it has one)."""
    out = []
    for name in wanted:
        if name is None:
            if len(present) != 1:
                raise ConfigError(f"{path}: give --column; the columns are {list(present)}")
            name = present[0]
        if name not in present:
            raise DataError(f"{path}: no column {name!r}; the columns are {list(present)}")
        out.append(name)
    return out


def read_columns(path: Path, columns: Sequence[str | None]) -> list[list[str]]:
    """The sentences of each of ``columns`` of a CSV, TSV or parquet file (a null is an empty
    sentence)."""
    path = Path(path)
    if path.suffix == ".parquet":
        import pyarrow.parquet as pq

        names = _pick(path, pq.read_schema(path).names, columns)
        table = pq.read_table(path, columns=names)
        return [["" if v is None else str(v) for v in table[n].to_pylist()] for n in names]
    if path.suffix not in DELIMITERS:
        raise ConfigError(f"{path}: columns are read from .csv, .tsv or .parquet files")
    rows = list(csv.reader(io.StringIO(_text(path), newline=""), delimiter=DELIMITERS[path.suffix]))
    if not rows:
        raise DataError(f"{path}: empty, no header line")
    header, body = rows[0], rows[1:]
    names = _pick(path, header, columns)
    where = [header.index(n) for n in names]
    for line, row in enumerate(body, start=2):
        if len(row) != len(header):
            raise DataError(f"{path}: line {line}: {len(row)} fields, the header has {len(header)}")
    return [[row[i] for row in body] for i in where]


def read_sentences(path: Path, column: str | None = None) -> list[str]:
    """One sentence per line of a text file (without its line end; an empty line is an empty
    sentence), or the sentences of ``column`` of a CSV, TSV or parquet file."""
    path = Path(path)
    if path.suffix in (*DELIMITERS, ".parquet"):
        return read_columns(path, [column])[0]
    if column is not None:
        raise ConfigError(f"{path}: --column is for .csv, .tsv or .parquet files")
    lines = _text(path).split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line.removesuffix("\r") for line in lines]
