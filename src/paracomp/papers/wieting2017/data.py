"""wieting2017's training pairs and initial word vectors.

- :func:`sentence_pairs`: the sentential training pairs: the shared KJV-WEB verse pairs (or
  SimpWiki) of at most ``max_tokens`` tokens a side, a seeded subset of ``pairs`` of them;
- :func:`token_matched`: PPDB pairs shuffled with a seed and taken until their tokens (both
  sides) reach the sentence pairs' (the authors' ``-mode ppdb``: "the number of tokens is
  approximately the same as the number of tokens in the SimpWiki sentences");
- :func:`read_simpwiki`: SimpWiki v2 as the authors' ``main/train.py`` reads it (the last tab
  field of line i of ``simple.aligned`` and of ``normal.aligned``, lowercased);
- :func:`read_ppdb`: phrase pairs of the mirror's PPDB files (``p1|||p2[|||score]``) or of a
  PPDB release (``LHS ||| phrase ||| paraphrase ||| features …``);
- :func:`initial_vectors`: the rows of the initial vectors for every word the training pairs
  and the evaluation sets use.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from paracomp import artefacts
from paracomp.corpus.derive import subsample
from paracomp.errors import DataError

log = logging.getLogger(__name__)


def segment_pairs(ids: Sequence[str], s1: Sequence[str], s2: Sequence[str]) -> pa.Table:
    return pa.table(
        {
            "id": list(ids),
            "s1": list(s1),
            "s2": list(s2),
            "len1": pa.array([len(s.split()) for s in s1], pa.int32()),
            "len2": pa.array([len(s.split()) for s in s2], pa.int32()),
        },
        schema=artefacts.SEGMENT_PAIRS,
    )


def sentence_pairs(
    table: pa.Table, max_tokens: int | None, pairs: int | None, seed: int
) -> pa.Table:
    """Pairs of at most ``max_tokens`` tokens a side (None: all), a seeded subset of
    ``pairs`` of them (None: all)."""
    table = table.select(artefacts.SEGMENT_PAIRS.names)
    if max_tokens is not None:
        short = pc.and_(
            pc.less_equal(table["len1"], max_tokens), pc.less_equal(table["len2"], max_tokens)
        )
        table = table.filter(short)
    if pairs is not None and pairs < table.num_rows:
        table = subsample(table, pairs, seed=seed)
    return table


def tokens(table: pa.Table) -> int:
    """Tokens of both sides of every pair."""
    return int(pc.sum(table["len1"]).as_py() or 0) + int(pc.sum(table["len2"]).as_py() or 0)


def token_matched(pool: pa.Table, target: int, seed: int) -> tuple[pa.Table, bool]:
    """``pool`` shuffled with ``seed``, cut after the first pair whose cumulative tokens
    reach ``target``; and whether they did (False: the whole pool is smaller)."""
    order = np.random.default_rng(seed).permutation(pool.num_rows)
    shuffled = pool.take(pa.array(order))
    lengths = shuffled["len1"].to_numpy() + shuffled["len2"].to_numpy()
    cumulative = np.cumsum(lengths)
    reached = bool(len(cumulative) and cumulative[-1] >= target)
    n = int(np.searchsorted(cumulative, target) + 1) if reached else shuffled.num_rows
    return shuffled.slice(0, n), reached


def read_ppdb(paths: Iterable[Path]) -> pa.Table:
    """Phrase pairs of PPDB files, lowercased, whitespace-normalised; ids ``file:line``.

    A line is a mirror pair (``p1|||p2`` or ``p1|||p2|||score``) or a release rule (``LHS |||
    phrase ||| paraphrase ||| features ||| alignment``, PPDB 2.0 adding ``||| entailment``);
    any other field count, or an empty side, is a :class:`DataError` naming the line.
    """
    ids, s1, s2 = [], [], []
    for path in paths:
        with open(path, encoding="utf-8", errors="replace", newline="\n") as handle:
            for number, line in enumerate(handle, start=1):
                parts = [p.strip() for p in line.rstrip("\n").split("|||")]
                if len(parts) in (5, 6):  # release format: LHS ||| phrase ||| paraphrase ||| …
                    parts = parts[1:3]
                if len(parts) not in (2, 3) or not parts[0] or not parts[1]:
                    raise DataError(
                        f"{path}:{number}: expected 'p1|||p2[|||score]' or a PPDB rule "
                        f"'LHS ||| phrase ||| paraphrase ||| features ||| alignment', "
                        f"got {line.rstrip()!r}"
                    )
                ids.append(f"{path.name}:{number}")
                s1.append(" ".join(parts[0].lower().split()))
                s2.append(" ".join(parts[1].lower().split()))
    return segment_pairs(ids, s1, s2)


def read_simpwiki(folder: Path) -> pa.Table:
    """SimpWiki v2: (simple, normal) from line i of each file's last tab field, lowercased
    and whitespace-tokenised, as jwieting/acl2017's ``main/train.py`` reads them. A line
    without its three fields (article title, paragraph number, sentence), or files of
    different lengths, raise :class:`DataError`; pairs with an empty side are skipped."""

    def side(name: str) -> list[str]:
        path = folder / name
        sentences = []
        with open(path, encoding="utf-8", errors="replace", newline="\n") as handle:
            for number, line in enumerate(handle, start=1):
                fields = line.rstrip("\n").split("\t")
                if len(fields) < 3:
                    raise DataError(
                        f"{path}:{number}: expected 'title<TAB>paragraph<TAB>sentence', "
                        f"got {len(fields)} field(s)"
                    )
                sentences.append(" ".join(fields[-1].lower().split()))
        return sentences

    simple, normal = side("simple.aligned"), side("normal.aligned")
    if len(simple) != len(normal):
        raise DataError(
            f"{folder / 'simple.aligned'} has {len(simple)} lines but "
            f"{folder / 'normal.aligned'} has {len(normal)}; line i of each is a pair"
        )
    kept = [(i, a, b) for i, (a, b) in enumerate(zip(simple, normal, strict=True)) if a and b]
    return segment_pairs([str(i + 1) for i, _, _ in kept], [a for _, a, _ in kept],
                         [b for _, _, b in kept])  # fmt: skip


def vocabulary(pair_tables: Iterable[pa.Table], sentences: Iterable[Sequence[str]]) -> set[str]:
    """Every token of the pairs' sides and of the tokenised evaluation sentences."""
    words: set[str] = set()
    for table in pair_tables:
        for column in ("s1", "s2"):
            for text in table[column].to_pylist():
                words.update(text.split())
    for sentence in sentences:
        words.update(sentence)
    return words


def initial_vectors(
    words: Sequence[str], matrix: np.ndarray, needed: set[str]
) -> tuple[list[str], np.ndarray]:
    """The rows of ``words`` that are in ``needed``, in their original order."""
    keep = [i for i, w in enumerate(words) if w in needed]
    return [words[i] for i in keep], np.asarray(matrix)[keep]
