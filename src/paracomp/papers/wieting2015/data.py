"""Wieting et al. (2015)'s data: the initial word vectors and vocabulary, the lexical training
pairs with their constraint lists, the phrase and bigram training pairs, and the phrase
similarity sets (Annotated-PPDB, Mitchell & Lapata's bigrams).

- **Initial vectors** (§5.1): the paper's 25-dimensional skip-gram vectors of Wikipedia 2013
  are unobtainable; GloVe 6B 50d stands in: its 100K most frequent words (the paper's
  vocabulary size) and ``<unk>``, the mean of the other 300K vectors, optionally reduced to 25
  dimensions by PCA (:func:`paracomp.train.pretrained.pca`).
- **Lexical pairs** (§5.2): PPDB-XL lexical (the release, upstream only) or the mirror's
  ``ppdb-xl-lexicon`` (Faruqui et al.'s lexicon of PPDB-XL), through
  :func:`paracomp.paraphrase.lexical.lexical_pairs` with the initial vectors' vocabulary; the
  counts go beside the paper's. Constraint lists: each word's partners and all their WordNet
  3.0 lemmas (:func:`paracomp.wordnet.lemmas.all_lemmas`, no tagger).
- **Phrase pairs** (§6.4) and **bigram pairs** (§6.3): the mirror's ``ppdb-phrase-train-60k``
  and ``ppdb-bigram-train`` (Wang & Zong's copies of the authors' files, already filtered).
- **Phrase sets**: Annotated-PPDB dev (260) and test (1,000), ML 2010 bigrams dev and test per
  type (one line per participant rating).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from paracomp import artefacts
from paracomp.paraphrase.lexical import (
    PAPER_COUNTS,
    constraint_lists,
    lexical_pairs,
    neighbours,
)
from paracomp.paraphrase.ppdb import (
    is_lexical,
    read_pairs,
    read_ppdb,
    read_scored_pairs,
    read_xl_lexicon,
    rules_to_pairs,
)
from paracomp.train.pretrained import frequent_with_unk, pca, pca_fit

UNK = "<unk>"
"""The trainer's unknown-word row (:data:`paracomp.models.vocab.UNK`, which imports torch)."""
LEXICAL_SOURCES = {
    "ppdb-xl-lexicon": "ppdb-xl.txt",
    "ppdb-1.0-xl-lexical": "ppdb-1.0-xl-lexical",
}
"""Where lexical pairs come from: dataset -> its file."""
BIGRAM_TYPES = ("jn", "nn", "vn")
PAPER_BIGRAM_COUNTS = {"jn": 133_997, "nn": 35_601, "vn": 62_640}
"""§6.3's bigram training pairs per type (after its filters)."""
PAPER_PHRASE_COUNT = 60_000
CONSTRAINTS = pa.schema([("word", pa.string()), ("members", pa.list_(pa.string()))])
"""A word and the words its negatives may not be (the "+ constraints" lists)."""
PHRASE_SETS = pa.schema(
    [
        ("set", pa.string()),
        ("subset", pa.string()),
        ("split", pa.string()),
        ("id", pa.string()),
        ("s1", pa.string()),
        ("s2", pa.string()),
        ("score", pa.float64()),
    ]
)
"""Scored phrase pairs of Annotated-PPDB (``subset`` ``all``) and of the ML 2010 bigrams
(``subset`` the bigram type; one row per participant rating)."""


def initial_vectors(embeddings: Path, size: int, dim: int | None, out: Path) -> dict[str, Any]:
    """Write the initial vectors: ``size`` most frequent words and ``<unk>``, PCA to ``dim``
    if given; returns what was done."""
    words, vectors = artefacts.read_embeddings(embeddings)
    kept, matrix = frequent_with_unk(words, vectors, size, UNK)
    info: dict[str, Any] = {"words": len(kept), "of": len(words), "dim": matrix.shape[1]}
    if dim is not None and dim != matrix.shape[1]:
        matrix, share = pca(matrix, dim)
        info.update(dim=dim, pca_variance=float(share.sum()))
    prov = artefacts.Provenance(
        dataset="wieting2015-init",
        source="paracomp.papers.wieting2015.data",
        inputs=artefacts.input_checksums([embeddings]),
        config={"size": size, "dim": dim},
        notes=f"{size} most frequent words of {embeddings.name} and {UNK} (mean of the other "
        f"{max(len(words) - size, 0)})" + (f", PCA to {dim}d" if "pca_variance" in info else ""),
    )
    artefacts.write_embeddings(kept, matrix, out, prov)
    return info


def widened(
    trained: tuple[list[str], np.ndarray],
    source: tuple[list[str], np.ndarray],
    size: int,
    dim: int | None,
) -> tuple[list[str], np.ndarray]:
    """Trained PARAGRAM rows over the whole vocabulary of their initial vectors' ``source``:
    every source word outside the trained rows keeps its source vector, projected as
    :func:`initial_vectors` projects (the PCA of the ``size`` most frequent words and
    ``<unk>``) where ``dim`` differs from the source's. So were PARAGRAM-SL999's words outside
    PPDB left at their GloVe vectors (Wieting et al. 2015, §5; 2016, §4)."""
    words, rows = trained
    source_words, vectors = source
    vectors = np.asarray(vectors, dtype=np.float32)
    known = set(words)
    rest = [i for i, w in enumerate(source_words) if w not in known]
    extra = vectors[rest]
    if dim is not None and dim != vectors.shape[1]:
        mean, axes, _ = pca_fit(frequent_with_unk(source_words, vectors, size, UNK)[1], dim)
        extra = ((extra.astype(np.float64) - mean) @ axes).astype(np.float32)
    if extra.shape[1] != rows.shape[1]:
        raise ValueError(
            f"trained rows are {rows.shape[1]}-dimensional, the source's {extra.shape[1]}"
        )
    matrix = np.concatenate([np.asarray(rows, dtype=np.float32), extra])
    return [*words, *(source_words[i] for i in rest)], matrix


def read_lexical(source: str, folder: Path) -> pa.Table:
    """The raw word pairs of a lexical source (:data:`LEXICAL_SOURCES`)."""
    path = folder / LEXICAL_SOURCES[source]
    if source == "ppdb-xl-lexicon":
        return read_xl_lexicon(path)
    return rules_to_pairs(read_ppdb(path), source, keep=is_lexical)


def constraints_table(lists: Mapping[str, Iterable[str]]) -> pa.Table:
    """Constraint lists as the CONSTRAINTS table ``paracomp train --constraints`` reads."""
    words = sorted(lists)
    members = [sorted(lists[w]) for w in words]
    return pa.table([pa.array(words), pa.array(members, pa.list_(pa.string()))], schema=CONSTRAINTS)


def lexical(
    source: str,
    folder: Path,
    init: Path,
    lemmas: Callable[[str], Iterable[str]],
    out_pairs: Path,
    out_constraints: Path,
    out_counts: Path,
) -> dict[str, Any]:
    """The lexical training pairs over the initial vectors' vocabulary, their constraint lists
    and counts beside the paper's."""
    vocab = set(artefacts.read_embeddings(init)[0]) - {UNK}
    kept, counts = lexical_pairs(read_lexical(source, folder), vocab)
    pairs = kept.select(artefacts.SEGMENT_PAIRS.names)
    inputs = artefacts.input_checksums([folder / LEXICAL_SOURCES[source], init])
    prov = artefacts.Provenance(
        dataset="wieting2015-lexical",
        source="paracomp.papers.wieting2015.data",
        inputs=inputs,
        config={"source": source, "redundancy": "unordered"},
        notes="digits, out-of-vocabulary and redundant (same unordered pair) pairs removed",
    )
    artefacts.write(pairs, out_pairs, artefacts.SEGMENT_PAIRS, prov)
    s1, s2 = pairs.column("s1").to_pylist(), pairs.column("s2").to_pylist()
    lists = constraint_lists(neighbours(zip(s1, s2, strict=True)), lemmas)
    artefacts.write(
        constraints_table(lists),
        out_constraints,
        CONSTRAINTS,
        artefacts.Provenance(
            dataset="wieting2015-constraints",
            source="paracomp.papers.wieting2015.data",
            inputs=inputs,
            config={"lemmas": "WordNet 3.0, every part of speech"},
            notes="each word's partners in the lexical pairs and all their WordNet lemmas",
        ),
    )
    report = {
        "source": source,
        "ours": counts.as_dict(),
        "paper": PAPER_COUNTS,
        "vocabulary": len(vocab),
        "constraint_words": len(lists),
    }
    out_counts.write_text(json.dumps(report, indent=1) + "\n")
    return report


def training_pairs(kind: str, folder: Path, out: Path) -> dict[str, Any]:
    """Phrase (``kind`` ``phrases``) or bigram (``jn``, ``nn``, ``vn``) training pairs from the
    mirror's files, with their count beside the paper's."""
    if kind == "phrases":
        path = folder / "ppdb_train.txt"
        table = read_scored_pairs(path).select(artefacts.SEGMENT_PAIRS.names)
        paper = PAPER_PHRASE_COUNT
    else:
        path = folder / f"bigram_train.{kind}.txt"
        table = read_pairs(path)
        paper = PAPER_BIGRAM_COUNTS[kind]
    prov = artefacts.Provenance(
        dataset=f"wieting2015-{kind}",
        source="paracomp.papers.wieting2015.data",
        inputs=artefacts.input_checksums([path]),
        config={"kind": kind},
        notes=f"{table.num_rows} pairs (the paper's: {paper})",
    )
    artefacts.write(table, out, artefacts.SEGMENT_PAIRS, prov)
    return {"kind": kind, "ours": table.num_rows, "paper": paper}


def phrase_sets(annotated: Path | None, bigrams: Path | None, out: Path) -> None:
    """Annotated-PPDB dev and test and the ML 2010 bigrams dev and test (those given), as
    PHRASE_SETS."""
    parts = []
    files = []
    if annotated is not None:
        files += [
            (annotated / f"ppdb_{s}.txt", "annotated-ppdb", "all", s) for s in ("dev", "test")
        ]
    if bigrams is not None:
        files += [
            (bigrams / f"bigram_{split}.{kind}.txt", "ml2010", kind, split)
            for kind in BIGRAM_TYPES
            for split in ("dev", "test")
        ]
    for path, name, subset, split in files:
        table = read_scored_pairs(path)
        n = table.num_rows
        parts.append(
            pa.table(
                {
                    "set": pa.array([name] * n, pa.string()),
                    "subset": pa.array([subset] * n, pa.string()),
                    "split": pa.array([split] * n, pa.string()),
                    "id": table.column("id"),
                    "s1": table.column("s1"),
                    "s2": table.column("s2"),
                    "score": table.column("score"),
                },
                schema=PHRASE_SETS,
            )
        )
    prov = artefacts.Provenance(
        dataset="wieting2015-phrase-sets",
        source="paracomp.papers.wieting2015.data",
        inputs=artefacts.input_checksums([f[0] for f in files]),
        config={},
        notes="Annotated-PPDB (gold 1-5) and ML 2010 bigrams (one row per participant rating, 1-7)",
    )
    table = pa.concat_tables(parts) if parts else PHRASE_SETS.empty_table()
    artefacts.write(table, out, PHRASE_SETS, prov)
