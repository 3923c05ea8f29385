"""Vocabularies of training segments, and segments encoded as flat token ids with offsets.

Segments of a SEGMENT_PAIRS table are whitespace-tokenised strings. Tokenising, counting and
id lookup run in Arrow compute kernels, so a corpus of millions of pairs is encoded without a
Python loop per token.
"""

from __future__ import annotations

import hashlib
from collections.abc import Collection, Iterator
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import torch
from numba import njit, prange

from paracomp.errors import DataError
from paracomp.models.tree_rnn import Trees
from paracomp.models.trees import binary_tree

UNK = "<unk>"
"""Row 0 of every vocabulary: tokens seen fewer than ``min_count`` times, or never."""

HEADS = ("heads1", "heads2")
"""Optional columns of segment pairs: each token's dependency head (0-based, the root its own
or a negative index), per side; :func:`~paracomp.models.trees.binary_tree` makes the binary
trees of tree composers from them."""


def tokenize(segments: pa.Array | pa.ChunkedArray) -> tuple[pa.Array, np.ndarray]:
    """Whitespace tokens of every segment, flattened, and the number of tokens per segment."""
    if isinstance(segments, pa.ChunkedArray):
        segments = segments.combine_chunks()
    lists = pc.utf8_split_whitespace(pc.utf8_trim_whitespace(segments))
    flat = lists.flatten()
    parent = pc.list_parent_indices(lists)
    keep = pc.not_equal(pc.utf8_length(flat), 0)
    flat, parent = flat.filter(keep), parent.filter(keep)
    lengths = np.bincount(parent.to_numpy(), minlength=len(segments))
    return flat, lengths


@dataclass(frozen=True)
class Vocabulary:
    """Words by descending count (ties alphabetical), with :data:`UNK` at id 0."""

    words: tuple[str, ...]

    @classmethod
    def build(
        cls, tokens: pa.Array, min_count: int = 1, known: Collection[str] | None = None
    ) -> Vocabulary:
        """Vocabulary of the tokens seen at least ``min_count`` times (and, if ``known`` is
        given, in ``known``: e.g. the words of pretrained vectors, others being UNK)."""
        counts = pc.value_counts(tokens)
        words = counts.field("values").to_pylist()
        freq = counts.field("counts").to_numpy()
        kept = sorted(
            (-int(c), w)
            for w, c in zip(words, freq, strict=True)
            if c >= min_count and w != UNK and (known is None or w in known)
        )
        return cls((UNK, *(w for _, w in kept)))

    def __len__(self) -> int:
        return len(self.words)

    @cached_property
    def index(self) -> dict[str, int]:
        return {w: i for i, w in enumerate(self.words)}

    def ids(self, tokens: pa.Array) -> np.ndarray:
        """Id of every token (``UNK`` for unknown ones), as int32."""
        found = pc.index_in(tokens, value_set=pa.array(self.words, pa.string()))
        return pc.fill_null(found, 0).to_numpy().astype(np.int32, copy=False)

    def digest(self) -> str:
        """sha256 of the word list, to check that a checkpoint matches the data."""
        return hashlib.sha256("\n".join(self.words).encode()).hexdigest()


@njit(cache=True, parallel=True)
def _take(ids: np.ndarray, offsets: np.ndarray, index: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:meth:`Segments.take` on CPU: one pass over the (randomly placed) segments instead of
    a gather each for their offsets, lengths and tokens, and with numba's threads, as many
    cache misses at a time."""
    lengths = np.empty(index.size, dtype=np.int64)
    for i in prange(index.size):
        lengths[i] = offsets[index[i] + 1] - offsets[index[i]]
    starts = np.empty(index.size, dtype=np.int64)
    total = 0
    for i in range(index.size):
        starts[i] = total
        total += lengths[i]
    flat = np.empty(total, dtype=np.int64)
    for i in prange(index.size):
        first = offsets[index[i]]
        for t in range(lengths[i]):
            flat[starts[i] + t] = ids[first + t]
    return flat, starts


@dataclass(frozen=True)
class Segments:
    """``n`` segments as one flat id tensor; segment ``i`` is ``ids[offsets[i]:offsets[i+1]]``."""

    ids: torch.Tensor
    offsets: torch.Tensor

    @classmethod
    def from_lengths(cls, ids: np.ndarray, lengths: np.ndarray) -> Segments:
        offsets = np.zeros(len(lengths) + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        return cls(torch.from_numpy(np.ascontiguousarray(ids)), torch.from_numpy(offsets))

    def __len__(self) -> int:
        return self.offsets.numel() - 1

    def to(self, device: torch.device) -> Segments:
        return Segments(self.ids.to(device), self.offsets.to(device))

    def take(self, index: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Flat int64 ids of the segments ``index`` and the start of each (``EmbeddingBag``)."""
        if index.device.type == "cpu":
            flat, starts = _take(self.ids.numpy(), self.offsets.numpy(), index.numpy())
            return torch.from_numpy(flat), torch.from_numpy(starts)
        return self._take_by_tensor_ops(index)

    def _take_by_tensor_ops(self, index: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """:meth:`take` on any device."""
        starts = self.offsets[index]
        lengths = self.offsets[index + 1] - starts
        ends = lengths.cumsum(0)
        out_starts = ends - lengths
        total = int(ends[-1]) if index.numel() else 0
        shift = (starts - out_starts).repeat_interleave(lengths, output_size=total)
        positions = torch.arange(total, device=index.device) + shift
        return self.ids[positions].long(), out_starts

    def padded(self, index: torch.Tensor, pad: int) -> tuple[torch.Tensor, torch.Tensor]:
        """Ids of the segments ``index`` as an (n, longest) tensor padded with ``pad``, and
        their lengths (for recurrent composers)."""
        flat, starts = self.take(index)
        lengths = self.offsets[index + 1] - self.offsets[index]
        width = int(lengths.max()) if index.numel() else 0
        out = torch.full((index.numel(), width), pad, dtype=torch.long, device=flat.device)
        rows = torch.arange(index.numel(), device=flat.device).repeat_interleave(lengths)
        cols = torch.arange(flat.numel(), device=flat.device) - starts.repeat_interleave(lengths)
        out[rows, cols] = flat
        return out, lengths


@dataclass(frozen=True)
class EncodedPairs:
    """A SEGMENT_PAIRS table as token ids: rows ``0..n-1`` of ``segments`` are side 1, rows
    ``n..2n-1`` side 2 of the same pairs.

    Side-2 ids are rows of one embedding table shared by both sides: with ``shared_vocab`` both
    sides use ``vocab1``; otherwise side 2 has its own vocabulary, stored after side 1's rows
    (``row_offset2 = len(vocab1)``), so an English "a" and a Spanish "a" stay apart.
    """

    vocab1: Vocabulary
    vocab2: Vocabulary
    segments: Segments
    shared_vocab: bool
    trees: Trees | None = None

    @classmethod
    def build(
        cls,
        table: pa.Table,
        shared_vocab: bool,
        min_count: int = 1,
        known: Collection[str] | None = None,
    ) -> EncodedPairs:
        """Encode ``table``; tokens outside ``known`` (if given) are UNK. With :data:`HEADS`
        columns, every segment gets the binary tree of its heads (:attr:`trees`)."""
        missing = [c for c in ("s1", "s2") if c not in table.column_names]
        if missing:
            raise DataError(f"segment pairs: missing columns {missing}")
        if table.num_rows < 2:
            raise DataError(f"segment pairs: need at least 2 pairs, got {table.num_rows}")
        tok1, len1 = tokenize(table.column("s1"))
        tok2, len2 = tokenize(table.column("s2"))
        if shared_vocab:
            tokens = pa.concat_arrays([tok1, tok2])
            vocab1 = vocab2 = Vocabulary.build(tokens, min_count, known)
            offset = 0
        else:
            vocab1 = Vocabulary.build(tok1, min_count, known)
            vocab2 = Vocabulary.build(tok2, min_count)
            offset = len(vocab1)
        ids = np.concatenate([vocab1.ids(tok1), vocab2.ids(tok2) + np.int32(offset)])
        lengths = np.concatenate([len1, len2])
        segments = Segments.from_lengths(ids, lengths)
        trees = None
        if all(c in table.column_names for c in HEADS):
            heads = table.column(HEADS[0]).to_pylist() + table.column(HEADS[1]).to_pylist()
            built = [binary_tree(h, int(n)) for h, n in zip(heads, lengths, strict=True)]
            trees = Trees.build(built, lengths.tolist())
        return cls(vocab1, vocab2, segments, shared_vocab, trees)

    @property
    def n_pairs(self) -> int:
        return len(self.segments) // 2

    @property
    def row_offset2(self) -> int:
        return 0 if self.shared_vocab else len(self.vocab1)

    @property
    def n_rows(self) -> int:
        """Rows of the embedding table covering both sides."""
        return len(self.vocab1) + (0 if self.shared_vocab else len(self.vocab2))

    def to(self, device: torch.device) -> EncodedPairs:
        trees = None if self.trees is None else self.trees.to(device)
        segments = self.segments.to(device)
        return EncodedPairs(self.vocab1, self.vocab2, segments, self.shared_vocab, trees)

    def trees_of(
        self, pairs: torch.Tensor, extra1: torch.Tensor, extra2: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor] | None:
        """Merges and heights of the segments of a composed batch (side 1 of ``pairs``, side
        2 of them, then side 2 of ``extra2`` and side 1 of ``extra1``, as
        :class:`~paracomp.losses.negatives.Layout`), or None without :attr:`trees`."""
        if self.trees is None:
            return None
        n = self.n_pairs
        return self.trees.take(torch.cat([pairs, pairs + n, extra2 + n, extra1]))

    def batches(
        self, order: torch.Tensor, batch_size: int, chunk: int = 64
    ) -> Iterator[tuple[torch.Tensor, torch.Tensor, torch.Tensor]]:
        """``(pairs, ids, starts)`` for consecutive batches of ``order``: flat ids of side 1 of
        ``pairs`` then side 2, and the start of each segment. Ids are gathered ``chunk``
        batches at a time, which saves a dozen small tensor ops per batch."""
        n = self.n_pairs
        for first in range(0, order.numel(), batch_size * chunk):
            block = order[first : first + batch_size * chunk]
            full = block.numel() // batch_size * batch_size
            head, tail = block[:full].view(-1, batch_size), block[full:]
            segments = torch.cat([torch.cat([head, head + n], 1).view(-1), tail, tail + n])
            ids, starts = self.segments.take(segments)
            bounds = torch.cat([starts[:: 2 * batch_size], starts.new_full((1,), ids.numel())])
            if tail.numel():  # the last, smaller batch starts 2·|tail| segments from the end
                bounds[-2] = starts[-2 * tail.numel()]
            bounds = bounds.tolist()
            for i, pairs in enumerate(block.split(batch_size)):
                lo, hi = bounds[i], bounds[i + 1]
                j = 2 * batch_size * i
                yield pairs, ids[lo:hi], starts[j : j + 2 * pairs.numel()] - lo

    def take_pairs(
        self, side1: torch.Tensor, side2: torch.Tensor, side2_first: bool = False
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Flat ids and starts of side 1 of pairs ``side1``, then side 2 of pairs ``side2``
        (the other way round with ``side2_first``)."""
        segments = [side1, side2 + self.n_pairs]
        return self.segments.take(torch.cat(segments[::-1] if side2_first else segments))

    def fingerprint(self) -> dict[str, object]:
        """What a checkpoint records to check that it is resumed on the same data."""
        found: dict[str, object] = {
            "pairs": self.n_pairs,
            "tokens": int(self.segments.offsets[-1]),
            "vocab1": self.vocab1.digest(),
            "vocab2": self.vocab2.digest(),
        }
        if self.trees is not None:
            found["trees"] = self.trees.digest()
        return found
