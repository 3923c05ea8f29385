"""Encoded sentences on disk: a parquet file of each sentence and its vector with provenance
in its metadata (also the cache of ``paracomp neighbours``), or a ``.npy`` matrix with its
provenance beside it (``<file>.json``). Each file is written atomically."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from paracomp import artefacts
from paracomp.atomic import atomic_path, write_json
from paracomp.encoders.encoder import Encoder
from paracomp.errors import ConfigError

SUFFIXES = (".parquet", ".npy")


def sentence_vectors_schema(dim: int) -> pa.Schema:
    return pa.schema([("sentence", pa.string()), ("vector", pa.list_(pa.float32(), dim))])


def provenance(encoder: Encoder, source: Path, notes: str = "") -> artefacts.Provenance:
    """What encoded ``source``: the model, its tokenisation and the software's versions."""
    config: dict[str, Any] = {
        "model": encoder.info,
        "tokenisation": encoder.tokenisation.to_dict(),
        "versions": artefacts.versions(),
    }
    inputs = artefacts.input_checksums([source])
    return artefacts.Provenance(source.stem, encoder.name, inputs, config, notes)


def write(
    sentences: Sequence[str], vectors: np.ndarray, out: Path, prov: artefacts.Provenance
) -> None:
    """``vectors`` (one row per sentence) to ``out``, ``.parquet`` or ``.npy``."""
    if out.suffix not in SUFFIXES:
        raise ConfigError(f"{out}: the output is a .parquet or .npy file")
    if out.suffix == ".npy":  # the provenance is written in the matrix's write: both or none
        with atomic_path(out) as tmp:
            with open(tmp, "wb") as handle:
                np.save(handle, np.ascontiguousarray(vectors, dtype=np.float32), allow_pickle=False)
            write_json(out.with_name(out.name + ".json"), json_provenance(prov))
        return
    dim = vectors.shape[1]
    flat = pa.array(np.ascontiguousarray(vectors, dtype=np.float32).ravel(), pa.float32())
    table = pa.table(
        {
            "sentence": pa.array(list(sentences), pa.string()),
            "vector": pa.FixedSizeListArray.from_arrays(flat, dim),
        }
    )
    artefacts.write(table, out, sentence_vectors_schema(dim), prov)


def json_provenance(prov: artefacts.Provenance) -> dict[str, Any]:
    import json

    return json.loads(prov.to_json())


def read(path: Path) -> tuple[list[str], np.ndarray]:
    """The sentences and vectors of a parquet file :func:`write` wrote."""
    table = artefacts.read(path, sentence_vectors_schema(0))
    column = table.column("vector").combine_chunks()
    matrix = column.flatten().to_numpy(zero_copy_only=False).astype(np.float32, copy=False)
    return table.column("sentence").to_pylist(), matrix.reshape(len(table), column.type.list_size)
