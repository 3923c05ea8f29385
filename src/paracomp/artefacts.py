"""Parquet artefacts: explicit schemas, provenance in the file metadata, atomic writes.

Every intermediate file of the pipeline is one of the schemas below, written by :func:`write`,
so that a user can open it with pandas and ``paracomp inspect`` can show where it came from.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

import paracomp
from paracomp.atomic import atomic_path, sha256_file
from paracomp.errors import DataError
from paracomp.timing import phase

PROVENANCE_KEY = b"paracomp.provenance"

SENTENCE_PAIRS = pa.schema(
    [
        ("dataset", pa.string()),
        ("subset", pa.string()),
        ("split", pa.string()),
        ("id", pa.string()),
        ("s1", pa.string()),
        ("s2", pa.string()),
        ("score", pa.float64()),
        ("label", pa.string()),
    ]
)
"""Scored sentence pairs (STS, SICK, PIT); ``score`` is null for unscored pairs, ``label`` is
the class of a labelled pair (SICK's entailment judgment) and null for every other set."""

WORD_PAIRS = pa.schema(
    [
        ("dataset", pa.string()),
        ("w1", pa.string()),
        ("w2", pa.string()),
        ("score", pa.float64()),
    ]
)
"""Word-similarity sets."""


def embeddings_schema(dim: int) -> pa.Schema:
    """Vocabulary plus a float32 matrix, one row per word."""
    return pa.schema([("word", pa.string()), ("vector", pa.list_(pa.float32(), dim))])


PHRASE_TABLE = pa.schema(
    [
        ("en", pa.string()),
        ("es", pa.string()),
        ("count", pa.int64()),
        ("p_en_given_es", pa.float64()),
        ("p_es_given_en", pa.float64()),
        ("lex_en_given_es", pa.float64()),
        ("lex_es_given_en", pa.float64()),
    ]
)
"""A Moses-style phrase table (English side ``en``, foreign side ``es``)."""

SEGMENT_PAIRS = pa.schema(
    [
        ("id", pa.string()),
        ("s1", pa.string()),
        ("s2", pa.string()),
        ("len1", pa.int32()),
        ("len2", pa.int32()),
    ]
)
"""Training pairs of tokenised segments (side 1 English; side 2 English or foreign)."""

SCORED_PAIRS = pa.schema(
    [
        ("dataset", pa.string()),
        ("subset", pa.string()),
        ("part", pa.string()),
        ("tokens1", pa.list_(pa.string())),
        ("tokens2", pa.list_(pa.string())),
        ("score", pa.float64()),
    ]
)
"""Tokenised scored sentence pairs, each in the ``part`` train, dev or test: the data of a
supervised similarity run (objective ``supervised``, :mod:`paracomp.train.similarity`)."""


@dataclass(frozen=True)
class Provenance:
    """Where an artefact came from, and the software that made it (:func:`versions`); stored
    as JSON under :data:`PROVENANCE_KEY`."""

    dataset: str
    source: str
    inputs: Mapping[str, str]
    config: Mapping[str, Any]
    notes: str = ""

    def to_json(self) -> str:
        return json.dumps(
            {
                "dataset": self.dataset,
                "source": self.source,
                "inputs": dict(self.inputs),
                "config": dict(self.config),
                "notes": self.notes,
                "paracomp_version": paracomp.__version__,
                "versions": versions(),
                "created": datetime.now(UTC).isoformat(timespec="seconds"),
            },
            sort_keys=True,
        )


def versions() -> dict[str, str]:
    """The versions of paracomp, numpy and, where the process has loaded it, torch."""
    found = {"paracomp": paracomp.__version__, "numpy": np.__version__}
    if "torch" in sys.modules:
        found["torch"] = sys.modules["torch"].__version__
    return found


def input_checksums(paths: Sequence[str | os.PathLike[str]]) -> dict[str, str]:
    """Map each input path to its sha256, for :class:`Provenance`."""
    return {str(p): sha256_file(p) for p in paths}


def write(
    table: pa.Table, path: str | os.PathLike[str], schema: pa.Schema, provenance: Provenance
) -> None:
    """Cast ``table`` to ``schema``, attach provenance and write it atomically."""
    try:
        table = table.select(schema.names).cast(schema)
    except (KeyError, pa.ArrowInvalid, pa.ArrowTypeError) as exc:
        raise DataError(f"{path}: table does not match schema {schema.names}: {exc}") from exc
    meta = dict(schema.metadata or {})
    meta[PROVENANCE_KEY] = provenance.to_json().encode()
    table = table.replace_schema_metadata(meta)
    with atomic_path(path) as tmp:
        pq.write_table(table, tmp, compression="zstd")


def write_stream(
    tables: Iterable[pa.Table],
    path: str | os.PathLike[str],
    schema: pa.Schema,
    provenance: Provenance,
) -> int:
    """Write ``tables`` one after the other as one artefact (as :func:`write`), holding one
    at a time; returns the rows written."""
    meta = dict(schema.metadata or {})
    meta[PROVENANCE_KEY] = provenance.to_json().encode()
    schema, rows = schema.with_metadata(meta), 0
    with atomic_path(path) as tmp, pq.ParquetWriter(tmp, schema, compression="zstd") as out:
        for table in tables:
            try:
                table = table.select(schema.names).cast(schema)
            except (KeyError, pa.ArrowInvalid, pa.ArrowTypeError) as exc:
                raise DataError(
                    f"{path}: table does not match schema {schema.names}: {exc}"
                ) from exc
            out.write_table(table)
            rows += table.num_rows
    return rows


@contextmanager
def _reading(path: str | os.PathLike[str]) -> Iterator[None]:
    """Turn a missing, non-parquet, truncated or unreadable file into ``DataError``."""
    if Path(path).is_dir():
        raise DataError(f"{path}: is a directory, not a parquet file")
    if not Path(path).exists():
        raise DataError(f"{path}: no such file")
    try:
        with phase("load"):
            yield
    except (pa.ArrowException, OSError) as exc:
        raise DataError(f"{path}: not a readable parquet file ({exc})") from exc


def require(path: str | os.PathLike[str], columns: pa.Schema | Sequence[str]) -> pa.Schema:
    """The schema of parquet file ``path`` (its footer alone is read), which must hold
    ``columns`` (names, or a schema whose columns must also be of the same kind: string,
    integer, floating point, list …, or all null); a missing column or one of another kind
    is a one-line :class:`DataError` naming the file and them. Every reader checks its
    inputs this way."""
    with _reading(path):
        found = pq.read_schema(path)
    names = columns.names if isinstance(columns, pa.Schema) else list(columns)
    missing = [n for n in names if n not in found.names]
    if missing:
        raise DataError(
            f"{path}: missing columns {missing}, it has {found.names} (the wrong file, or "
            "written by an older paracomp? delete it and rerun the rule that makes it)"
        )
    if isinstance(columns, pa.Schema):
        wrong = [
            f"{f.name} is {found.field(f.name).type}, not {f.type}"
            for f in columns
            if _kind(found.field(f.name).type) not in (_kind(f.type), "null")
        ]
        if wrong:
            raise DataError(f"{path}: wrong column types: {'; '.join(wrong)}")
    return found


def _kind(kind: pa.DataType) -> str:
    """A column type up to width and encoding (int32 ~ int64, string ~ large_string …)."""
    checks = {
        "string": lambda t: pa.types.is_string(t) or pa.types.is_large_string(t),
        "integer": pa.types.is_integer,
        "float": pa.types.is_floating,
        "boolean": pa.types.is_boolean,
        "list": lambda t: any(
            check(t)
            for check in (pa.types.is_list, pa.types.is_large_list, pa.types.is_fixed_size_list)
        ),
    }
    if pa.types.is_dictionary(kind):
        kind = kind.value_type
    return next((name for name, check in checks.items() if check(kind)), str(kind))


def read(
    path: str | os.PathLike[str],
    schema: pa.Schema | Sequence[str] | None = None,
    columns: Sequence[str] | None = None,
) -> pa.Table:
    """Read an artefact (only ``columns`` when given), checking it has the columns of
    ``schema`` first (:func:`require`)."""
    if schema is not None:
        require(path, schema)
    with _reading(path):
        return pq.read_table(path, columns=columns)


def provenance(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The provenance dictionary of an artefact (empty if it has none)."""
    with _reading(path):
        meta = pq.read_schema(path).metadata or {}
    raw = meta.get(PROVENANCE_KEY)
    try:
        return json.loads(raw) if raw else {}
    except ValueError as exc:
        raise DataError(f"{path}: unreadable provenance metadata ({exc})") from exc


def write_embeddings(
    words: Sequence[str], matrix: np.ndarray, path: str | os.PathLike[str], prov: Provenance
) -> None:
    """Write a vocabulary and its float32 matrix as an embeddings artefact; refuse NaN or inf."""
    with np.errstate(over="ignore"):  # values beyond float32 become inf, reported below
        matrix = np.ascontiguousarray(matrix, dtype=np.float32)
    if matrix.ndim != 2 or matrix.shape[0] != len(words):
        raise DataError(f"{path}: {len(words)} words but matrix of shape {matrix.shape}")
    if bad := nonfinite_rows(matrix):
        raise DataError(
            f"{path}: not written: {len(bad)} of {len(words)} vectors hold NaN or inf "
            f"(or values beyond float32): {_examples(words, bad)}"
        )
    dim = matrix.shape[1]
    vectors = pa.FixedSizeListArray.from_arrays(pa.array(matrix.reshape(-1)), dim)
    table = pa.table({"word": pa.array(list(words), pa.string()), "vector": vectors})
    write(table, path, embeddings_schema(dim), prov)


def read_embeddings(
    path: str | os.PathLike[str], check_finite: bool = True
) -> tuple[list[str], np.ndarray]:
    """Read an embeddings artefact into (vocabulary, float32 matrix).

    With ``check_finite`` a file holding NaN or inf is refused, naming its rows.
    """
    table = read(path, embeddings_schema(0))
    column = table.column("vector").combine_chunks()
    dim = column.type.list_size
    matrix = column.flatten().to_numpy(zero_copy_only=False).astype(np.float32, copy=False)
    words = table.column("word").to_pylist()
    matrix = matrix.reshape(-1, dim)
    if check_finite and (bad := nonfinite_rows(matrix)):
        raise DataError(
            f"{path}: {len(bad)} of {len(words)} vectors hold NaN or inf: "
            f"{_examples(words, bad)}; delete the file and rerun the job that wrote it "
            "(did its training diverge?)"
        )
    return words, matrix


_SHOWN = 5
"""How many offending rows an error message names."""


def nonfinite_rows(matrix: np.ndarray) -> list[int]:
    """Indices of the rows of ``matrix`` that hold a NaN or an infinity."""
    return np.flatnonzero(~np.isfinite(matrix).all(axis=1)).tolist()


def _examples(words: Sequence[str], rows: Sequence[int]) -> str:
    """``row 3 'cat', row 7 'dog' and 2 more`` (0-based rows)."""
    shown = ", ".join(f"row {i} {words[i]!r}" for i in rows[:_SHOWN])
    return shown + (f" and {len(rows) - _SHOWN} more" if len(rows) > _SHOWN else "")


def describe(path: str | os.PathLike[str], rows: int = 5) -> str:
    """Human-readable summary: schema, row count, provenance and the first rows."""
    import pandas as pd

    with _reading(path):
        pfile = pq.ParquetFile(path)
        head = pfile.read_row_group(0).slice(0, rows).to_pandas() if pfile.num_row_groups else None
    prov = provenance(path)
    schema = pfile.schema_arrow.remove_metadata()
    lines = [f"file: {Path(path)}", f"rows: {pfile.metadata.num_rows}", "schema:"]
    lines += [f"  {field.name}: {field.type}" for field in schema]
    lines.append("provenance:")
    lines += [f"  {k}: {json.dumps(v)}" for k, v in sorted(prov.items())] or ["  (none)"]
    if head is not None:
        with pd.option_context("display.width", 160, "display.max_colwidth", 60):
            lines += ["first rows:", head.to_string()]
    return "\n".join(lines)
