"""The word rows chen2020's runs start from (``papers.chen2020.init``): the stand-in vectors of
every word the runs can meet, laid out for the composer.

The authors' code keeps the vocabulary of its initial vectors (Wieting & Gimpel's para-nmt-50m
and acl2017 load every word of the vector file; only words outside it are unknown). Our runs
start from those vectors for the words their pairs train, and export the initial vectors of
every other word beside them (:class:`~paracomp.train.pairs.task.PairTask`), so the evaluator
meets an unknown word only where the vectors lack it. The rows kept here are those of the words
of the training corpus and of the evaluation sentences (STS Benchmark, the specificity sets),
tokenised as the evaluator does: the same scores as the vectors' whole vocabulary at a
fraction of its size.

Layouts (:data:`LAYOUTS`): ``vectors``, the word vectors themselves (WORDAVG, LSTM AVG, LSTM
GAUSSIAN); ``operators``, WLO's ``[a | B]`` rows with ``a = 0`` (``A = exp(a) = 1``) and
``B`` the word vector, so an untrained WLO sentence is ``N(Σ v_i, I)``: its mean is the sum of
the vectors, whose cosine is that of their average.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import pyarrow as pa

LAYOUTS = ("vectors", "operators")


def needed_words(pair_tables: Iterable[pa.Table], sentences: Iterable[Sequence[str]]) -> set[str]:
    """Every token of the pairs' sides (whitespace-tokenised) and of the tokenised sentences."""
    words: set[str] = set()
    for table in pair_tables:
        for column in ("s1", "s2"):
            for text in table.column(column).to_pylist():
                words.update(text.split())
    for sentence in sentences:
        words.update(sentence)
    return words


def initial_rows(
    words: Sequence[str], matrix: np.ndarray, needed: set[str], layout: str
) -> tuple[list[str], np.ndarray]:
    """The rows of the ``words`` in ``needed`` (their order kept) in ``layout``
    (:data:`LAYOUTS`), float32."""
    if layout not in LAYOUTS:
        raise ValueError(f"layout must be one of {LAYOUTS}, not {layout!r}")
    keep = np.array([i for i, w in enumerate(words) if w in needed], dtype=np.int64)
    rows = np.asarray(matrix, dtype=np.float32)[keep]
    if layout == "operators":
        rows = np.concatenate([np.zeros_like(rows), rows], axis=1)
    return [words[i] for i in keep], rows
