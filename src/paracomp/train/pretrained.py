"""Initial word rows from pretrained vectors for a fixed vocabulary."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from paracomp import artefacts

log = logging.getLogger(__name__)

PAD = "PAD"


def initial_matrix(
    vocabulary: Sequence[str],
    words: Sequence[str],
    vectors: np.ndarray,
    seed: int,
    low: float = -1.0,
    high: float = 1.0,
) -> tuple[np.ndarray, np.ndarray]:
    """Rows for ``vocabulary``: the pretrained vector of the exactly matching word (no case
    folding, as the authors' loader), else ``uniform(low, high)`` drawn with ``seed``; the
    ``PAD`` row is zero. Returns the float32 matrix and the mask of pretrained rows."""
    index = {word: i for i, word in enumerate(words)}
    rng = np.random.default_rng(seed)
    matrix = rng.uniform(low, high, (len(vocabulary), vectors.shape[1])).astype(np.float32)
    rows = np.array([index.get(word, -1) for word in vocabulary], dtype=np.int64)
    found = rows >= 0
    matrix[found] = vectors[rows[found]]
    pad = np.array([word == PAD for word in vocabulary], dtype=bool)
    matrix[pad] = 0.0
    return matrix, found


def write_initial_matrix(vocab: Path, embeddings: Path, seed: int, out: Path) -> None:
    """:func:`initial_matrix` of the vocabulary artefact ``vocab`` (a ``word`` column, row
    ``i`` is token id ``i``) from the embeddings artefact ``embeddings``, as an embeddings
    artefact."""
    vocabulary = artefacts.read(vocab, ["word"]).column("word").to_pylist()
    words, vectors = artefacts.read_embeddings(embeddings)
    matrix, found = initial_matrix(vocabulary, words, vectors, seed)
    prov = artefacts.Provenance(
        dataset="compvec-init",
        source="paracomp.train.pretrained",
        inputs=artefacts.input_checksums([vocab, embeddings]),
        config={"seed": seed, "pretrained_rows": int(found.sum()), "rows": len(found)},
        notes=f"{int(found.sum())} of {len(found)} vocabulary rows pretrained, "
        "the others uniform(-1, 1), PAD zero",
    )
    artefacts.write_embeddings(vocabulary, matrix, out, prov)
    log.info("%d of %d rows from %s", found.sum(), len(found), embeddings)


def found_rows(vocabulary: Sequence[str], words: Sequence[str]) -> np.ndarray:
    """For each vocabulary word, its row among ``words`` (exact match), −1 where absent."""
    index = {word: i for i, word in enumerate(words)}
    return np.array([index.get(word, -1) for word in vocabulary], dtype=np.int64)


def merged_rows(
    words: Sequence[str], vectors: np.ndarray, trained: Sequence[str], rows: np.ndarray
) -> tuple[list[str], np.ndarray]:
    """The pretrained ``words`` with the ``trained`` words' ``rows`` in place of theirs, then
    the trained words they lack: what a run that starts from pretrained vectors exports (a
    word it never saw keeps its initial vector, as in a table trained whole)."""
    matrix = np.array(vectors, dtype=np.float32, copy=True)
    where = found_rows(trained, words)
    inside = where >= 0
    matrix[where[inside]] = rows[inside]
    extra = [w for w, i in zip(trained, where, strict=True) if i < 0]
    if extra:
        matrix = np.concatenate([matrix, np.asarray(rows, dtype=np.float32)[~inside]])
    return [*words, *extra], matrix


def frequent_with_unk(
    words: Sequence[str], vectors: np.ndarray, size: int, unk: str
) -> tuple[list[str], np.ndarray]:
    """The first ``size`` words (pretrained files list words by frequency) and ``unk``, whose
    vector is the mean of all the other words' (Wieting et al. 2015: a 100K vocabulary, the
    rest averaged into one unknown-word vector); no ``unk`` row when nothing is left over."""
    vectors = np.asarray(vectors, dtype=np.float32)
    kept = [w for w in words[:size] if w != unk]
    rows = [i for i, w in enumerate(words[:size]) if w != unk]
    if len(words) <= size:
        return kept, vectors[rows]
    rest = vectors[size:].mean(axis=0, dtype=np.float64).astype(np.float32)
    return [*kept, unk], np.concatenate([vectors[rows], rest[None]])


def pca_fit(vectors: np.ndarray, dim: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The mean of ``vectors``, their ``dim`` leading principal axes (columns) and the variance
    share of each axis. Deterministic (a full eigendecomposition of the covariance, no random
    projection), each axis signed so that its largest loading is positive."""
    x = np.asarray(vectors, dtype=np.float64)
    if not 0 < dim <= x.shape[1]:
        raise ValueError(f"PCA to {dim} dimensions of {x.shape[1]}-dimensional vectors")
    mean = x.mean(axis=0)
    centred = x - mean
    values, axes = np.linalg.eigh(centred.T @ centred / max(len(x) - 1, 1))
    order = np.argsort(values)[::-1][:dim]
    axes = axes[:, order]
    axes *= np.sign(axes[np.abs(axes).argmax(axis=0), np.arange(dim)])
    return mean, axes, values[order] / values.sum()


def pca(vectors: np.ndarray, dim: int) -> tuple[np.ndarray, np.ndarray]:
    """``vectors`` centred and projected on their ``dim`` leading principal axes
    (:func:`pca_fit`), and the variance share of each axis."""
    mean, axes, share = pca_fit(vectors, dim)
    return ((np.asarray(vectors, dtype=np.float64) - mean) @ axes).astype(np.float32), share
