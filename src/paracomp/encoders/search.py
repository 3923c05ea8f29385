"""A small semantic search: a corpus's vectors, cached as parquet beside it (reused while the
corpus, its column and the model are unchanged), and the nearest sentences to a query."""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from paracomp import artefacts
from paracomp.encoders import vectors
from paracomp.encoders.encoder import Encoder, normalized
from paracomp.encoders.inputs import read_sentences


def stamp(encoder: Encoder) -> list[list[Any]]:
    """The size and modification time of each file of the model's source (a stale cache's
    tell)."""
    source = Path(encoder.info.get("source", ""))
    files = sorted(source.iterdir()) if source.is_dir() else [source]
    return [[f.name, os.stat(f).st_size, os.stat(f).st_mtime_ns] for f in files if f.is_file()]


def cache_path(corpus: Path, encoder: Encoder) -> Path:
    slug = re.sub(r"[^A-Za-z0-9._-]+", "_", encoder.name).strip("_") or "model"
    return corpus.with_name(f"{corpus.name}.{slug}.vectors.parquet")


def corpus_vectors(
    encoder: Encoder,
    corpus: Path,
    column: str | None,
    cache: str | None,
    encode_all: Callable[[list[str]], np.ndarray],
) -> tuple[list[str], np.ndarray, Path]:
    """The corpus's sentences and vectors (from the cache if it is current) and the cache."""
    path = Path(cache) if cache else cache_path(corpus, encoder)
    key = {"column": column, "stamp": stamp(encoder)}
    inputs = artefacts.input_checksums([corpus])
    if path.is_file():
        prov = artefacts.provenance(path)
        config = prov.get("config", {})
        if (
            prov.get("inputs") == inputs
            and config.get("model") == encoder.info
            and config.get("tokenisation") == encoder.tokenisation.to_dict()
            and config.get("corpus") == key
        ):
            sentences, matrix = vectors.read(path)
            return sentences, matrix, path
    sentences = read_sentences(corpus, column)
    matrix = encode_all(sentences)
    prov = vectors.provenance(encoder, corpus)
    prov = artefacts.Provenance(
        prov.dataset, prov.source, prov.inputs, {**prov.config, "corpus": key}, prov.notes
    )
    vectors.write(sentences, matrix, path, prov)
    return sentences, matrix, path


def nearest(encoder: Encoder, matrix: np.ndarray, query: str, k: int) -> list[tuple[int, float]]:
    """The ``k`` rows of ``matrix`` of highest cosine with ``query``, best first (ties: the
    earlier row)."""
    scores = normalized(matrix) @ normalized(encoder.encode([query]))[0]
    order = np.argsort(-scores, kind="stable")[: max(k, 0)]
    return [(int(i), float(scores[i])) for i in order]
