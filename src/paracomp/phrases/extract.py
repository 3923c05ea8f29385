"""Moses ``extract``: every phrase pair consistent with a word alignment, counted in a stream.

A pair of half-open spans ``[e_start, e_stop)`` × ``[f_start, f_stop)`` is extracted when it
holds at least one link, no link joins a word inside one span to a word outside the other,
and neither span is longer than ``max_length``. Moses' loop finds these by taking, for each
English span, the smallest foreign span covering its links and widening it over unaligned
foreign words at either edge within the length limit; :func:`extract_spans` runs that loop.

:class:`PhraseCounter` keeps, across chunks of sentence pairs, the counts that
:mod:`paracomp.phrases.score` needs and nothing that grows with the corpus but the table,
in open-addressing hash tables (:class:`HashTable`) with exact keys:

* ``e_phrases``/``f_phrases``: a phrase's token ids, packed as ``id + 1`` two to an int64
  (up to 8 tokens in four words) → phrase id + 1, ids dense in order of first occurrence;
* ``pairs``: ``(e_phrase_id << 32 | f_phrase_id, alignment)`` → count, where the alignment
  is an 8×8 bit matrix, bit ``8 * i + j`` linking the pair's ``i``-th English and ``j``-th
  foreign word;
* ``words``: ``(e_token + 1) << 32 | (f_token + 1)`` → number of links between the two
  words, 0 standing for NULL, which pairs with every unaligned word (Moses ``get_lexical``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
from numba import njit, prange, types

from paracomp.align.symmetrize import Alignments, Link
from paracomp.errors import DataError

MAX_LENGTH_LIMIT = 8
"""Longest phrase a :class:`PhraseCounter` can hold (its alignment bits fill an int64)."""

_MAX_LOAD = 0.6


@dataclass(frozen=True)
class Tokens:
    """Token ids of many sentences: sentence ``k`` is ``ids[offsets[k]:offsets[k + 1]]``."""

    offsets: np.ndarray
    ids: np.ndarray

    def lengths(self) -> np.ndarray:
        return np.diff(self.offsets)


def encode(sentences: Sequence[Sequence[str]], vocab: dict[str, int]) -> Tokens:
    """Map tokens to ids, giving each new token the next free id (``vocab`` is updated)."""
    lengths = np.fromiter(map(len, sentences), dtype=np.int64, count=len(sentences))
    offsets = np.zeros(len(sentences) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    add = vocab.setdefault
    ids = np.fromiter(
        (add(token, len(vocab)) for sentence in sentences for token in sentence),
        dtype=np.int32,
        count=int(offsets[-1]),
    )
    return Tokens(offsets, ids)


def extract_spans(
    alignments: Alignments, len_e: np.ndarray, len_f: np.ndarray, max_length: int = 7
) -> np.ndarray:
    """All consistent phrase pairs of a corpus chunk.

    Returns an int32 array with one row ``(sentence, e_start, e_stop, f_start, f_stop)`` per
    pair (half-open spans), ordered by sentence, then as Moses' loop visits them.
    """
    if max_length < 1:
        raise ValueError(f"max_length must be positive, got {max_length}")
    len_e = np.asarray(len_e, dtype=np.int64)
    len_f = np.asarray(len_f, dtype=np.int64)
    alignments.check_lengths(len_e, len_f)
    return _extract_corpus(alignments.offsets, alignments.e, alignments.f, len_e, len_f, max_length)


def phrase_spans(
    links: Iterable[Link], len_e: int, len_f: int, max_length: int = 7
) -> list[tuple[int, int, int, int]]:
    """The consistent pairs ``(e_start, e_stop, f_start, f_stop)`` of one sentence pair."""
    spans = extract_spans(
        Alignments.from_links([list(links)]), np.array([len_e]), np.array([len_f]), max_length
    )
    return [tuple(row) for row in spans[:, 1:].tolist()]


@dataclass
class HashTable:
    """Open-addressing (linear probing) table in one int64 array.

    Each row of ``slots`` holds a key of ``width`` words, then a value (0 marks an empty
    slot). ``size`` is a one-element array that compiled code updates in place.
    """

    slots: np.ndarray
    width: int
    size: np.ndarray

    @classmethod
    def empty(cls, width: int, capacity: int = 1 << 12) -> HashTable:
        slots = np.zeros((capacity, width + 1), dtype=np.int64)
        return cls(slots, width, np.zeros(1, dtype=np.int64))

    def __len__(self) -> int:
        return int(self.size[0])

    def reserve(self, extra: int) -> None:
        """Double the capacity until ``extra`` more keys keep the load within bounds."""
        capacity = len(self.slots)
        while len(self) + extra > _MAX_LOAD * capacity:
            capacity *= 2
        if capacity != len(self.slots):
            self.slots = _rehash(self.slots, self.width, capacity)

    def filled(self) -> np.ndarray:
        """The occupied rows."""
        return self.slots[self.slots[:, self.width] != 0]

    def arrays(self) -> tuple[np.ndarray, np.ndarray]:
        return self.slots, self.size


class PhraseCounter:
    """Counts of phrase pairs, their in-phrase alignments and aligned words, chunk by chunk.

    ``vocab_e``/``vocab_f`` map tokens to ids (new tokens get the next free id; pass a corpus's
    whole vocabulary to share ids between counters); the tables are described in the module
    docstring.
    """

    def __init__(
        self,
        max_length: int = 7,
        vocab_e: dict[str, int] | None = None,
        vocab_f: dict[str, int] | None = None,
    ):
        if not 1 <= max_length <= MAX_LENGTH_LIMIT:
            raise ValueError(f"max_length must be within 1..{MAX_LENGTH_LIMIT}, got {max_length}")
        self.max_length = max_length
        self.sentences = 0
        self.vocab_e: dict[str, int] = {} if vocab_e is None else vocab_e
        self.vocab_f: dict[str, int] = {} if vocab_f is None else vocab_f
        self.e_phrases = HashTable.empty(4)
        self.f_phrases = HashTable.empty(4)
        self.pairs = HashTable.empty(2)
        self.words = HashTable.empty(1)

    def add(
        self,
        sentences_e: Sequence[Sequence[str]],
        sentences_f: Sequence[Sequence[str]],
        alignments: Alignments,
    ) -> None:
        """Count the phrase pairs and aligned words of one chunk of tokenised sentence pairs."""
        if not len(sentences_e) == len(sentences_f) == len(alignments):
            raise DataError(
                f"chunk of {len(sentences_e)} English, {len(sentences_f)} foreign sentences "
                f"and {len(alignments)} alignments"
            )
        tokens_e = encode(sentences_e, self.vocab_e)
        tokens_f = encode(sentences_f, self.vocab_f)
        links = (alignments.offsets, alignments.e, alignments.f)
        spans = extract_spans(alignments, tokens_e.lengths(), tokens_f.lengths(), self.max_length)
        self.words.reserve(len(tokens_e.ids) + len(tokens_f.ids) + len(alignments.e))
        _count_words(
            (tokens_e.offsets, tokens_e.ids),
            (tokens_f.offsets, tokens_f.ids),
            links,
            self.words.arrays(),
        )
        row = 0
        while row < len(spans):
            extra = int(np.count_nonzero(spans[:, 0] == spans[row, 0]))
            tables = (self.e_phrases, self.f_phrases, self.pairs)
            for table in tables:
                table.reserve(extra)
            row = _count_pairs(
                spans,
                row,
                (tokens_e.offsets, tokens_e.ids),
                (tokens_f.offsets, tokens_f.ids),
                links,
                self.max_length,
                tuple(table.arrays() for table in tables),
            )
        self.sentences += len(alignments)


@njit(cache=True, parallel=True)
def _extract_corpus(
    a_off: np.ndarray,
    a_e: np.ndarray,
    a_f: np.ndarray,
    len_e: np.ndarray,
    len_f: np.ndarray,
    max_len: int,
) -> np.ndarray:
    n = len_e.shape[0]
    counts = np.zeros(n, dtype=np.int64)
    no_output = np.empty((0, 5), dtype=np.int32)
    for s in prange(n):
        counts[s] = _sentence_spans(s, a_off, a_e, a_f, len_e[s], len_f[s], max_len, no_output, 0)
    starts = np.zeros(n + 1, dtype=np.int64)
    starts[1:] = np.cumsum(counts)
    out = np.empty((starts[n], 5), dtype=np.int32)
    for s in prange(n):
        _sentence_spans(s, a_off, a_e, a_f, len_e[s], len_f[s], max_len, out, starts[s])
    return out


_I64, _OFFSETS, _LINKS = types.int64, types.int64[::1], types.int32[::1]
_SPANS_SIGNATURE = _I64(_I64, _OFFSETS, _LINKS, _LINKS, _I64, _I64, _I64, types.int32[:, ::1], _I64)
"""One signature for both of :func:`_extract_corpus`' calls (counting and writing): without
it numba compiles four specialisations inside the parallel loops, 7.6 of the 23 CPU-s a fresh
clone's first shard spends compiling."""


@njit(_SPANS_SIGNATURE, cache=True)
def _sentence_spans(
    s: int,
    a_off: np.ndarray,
    a_e: np.ndarray,
    a_f: np.ndarray,
    le: int,
    lf: int,
    max_len: int,
    out: np.ndarray,
    row: int,
) -> int:
    """Moses' extraction loop for sentence ``s``: the number of pairs, written to ``out``
    from ``row`` on unless ``out`` is empty."""
    write = out.shape[0] > 0
    min_f = np.full(le, lf, dtype=np.int64)
    max_f = np.full(le, -1, dtype=np.int64)
    min_e = np.full(lf, le, dtype=np.int64)
    max_e = np.full(lf, -1, dtype=np.int64)
    for k in range(a_off[s], a_off[s + 1]):
        i, j = a_e[k], a_f[k]
        min_f[i] = min(min_f[i], j)
        max_f[i] = max(max_f[i], j)
        min_e[j] = min(min_e[j], i)
        max_e[j] = max(max_e[j], i)
    n = 0
    for es in range(le):
        lo, hi = lf, -1
        for ee in range(es, min(le, es + max_len)):
            lo = min(lo, min_f[ee])
            hi = max(hi, max_f[ee])
            if hi < 0:
                continue
            if hi - lo >= max_len:
                break
            consistent = True
            for j in range(lo, hi + 1):
                if max_e[j] >= 0 and (min_e[j] < es or max_e[j] > ee):
                    consistent = False
                    break
            if not consistent:
                continue
            fs = lo
            while fs >= 0 and fs > hi - max_len and (fs == lo or max_e[fs] < 0):
                fe = hi
                while fe < lf and fe < fs + max_len and (fe == hi or max_e[fe] < 0):
                    if write:
                        out[row + n, 0] = s
                        out[row + n, 1] = es
                        out[row + n, 2] = ee + 1
                        out[row + n, 3] = fs
                        out[row + n, 4] = fe + 1
                    n += 1
                    fe += 1
                fs -= 1
    return n


@njit(cache=True)
def _count_words(e_tok: tuple, f_tok: tuple, links: tuple, words: tuple) -> None:
    """Count links between words, and each unaligned word against NULL."""
    (e_off, e_ids), (f_off, f_ids), (a_off, a_e, a_f) = e_tok, f_tok, links
    for s in range(e_off.shape[0] - 1):
        aligned_e = np.zeros(e_off[s + 1] - e_off[s], dtype=np.bool_)
        aligned_f = np.zeros(f_off[s + 1] - f_off[s], dtype=np.bool_)
        for k in range(a_off[s], a_off[s + 1]):
            aligned_e[a_e[k]] = True
            aligned_f[a_f[k]] = True
            e, f = e_ids[e_off[s] + a_e[k]], f_ids[f_off[s] + a_f[k]]
            add_count(words, (word_key(e + 1, f + 1),), 1)
        for i in range(aligned_e.size):
            if not aligned_e[i]:
                add_count(words, (word_key(e_ids[e_off[s] + i] + 1, 0),), 1)
        for j in range(aligned_f.size):
            if not aligned_f[j]:
                add_count(words, (word_key(0, f_ids[f_off[s] + j] + 1),), 1)


@njit(cache=True)
def _count_pairs(
    spans: np.ndarray,
    row: int,
    e_tok: tuple,
    f_tok: tuple,
    links: tuple,
    max_len: int,
    tables: tuple,
) -> int:
    """Count the pairs of ``spans`` from ``row`` on, sentence by sentence; stop early, returning
    the first row not counted, at a sentence that could overfill a table."""
    (e_off, e_ids), (f_off, f_ids), (a_off, a_e, a_f) = e_tok, f_tok, links
    e_phrases, f_phrases, pairs = tables
    e_cache = np.empty((1, max_len), dtype=np.int64)
    f_cache = np.empty((1, max_len), dtype=np.int64)
    while row < spans.shape[0]:
        s = spans[row, 0]
        stop = row
        while stop < spans.shape[0] and spans[stop, 0] == s:
            stop += 1
        for table in tables:
            if table[1][0] + stop - row > _MAX_LOAD * table[0].shape[0]:
                return row
        le, lf = e_off[s + 1] - e_off[s], f_off[s + 1] - f_off[s]
        if e_cache.shape[0] < le:
            e_cache = np.empty((le, max_len), dtype=np.int64)
        if f_cache.shape[0] < lf:
            f_cache = np.empty((lf, max_len), dtype=np.int64)
        e_cache[:le] = -1
        f_cache[:lf] = -1
        e_ptr = _link_starts(a_e[a_off[s] : a_off[s + 1]], le)
        for r in range(row, stop):
            es, ee, fs, fe = spans[r, 1], spans[r, 2], spans[r, 3], spans[r, 4]
            if e_cache[es, ee - es - 1] < 0:
                key = _phrase_key(e_ids[e_off[s] + es : e_off[s] + ee])
                e_cache[es, ee - es - 1] = intern_key(e_phrases, key)
            if f_cache[fs, fe - fs - 1] < 0:
                key = _phrase_key(f_ids[f_off[s] + fs : f_off[s] + fe])
                f_cache[fs, fe - fs - 1] = intern_key(f_phrases, key)
            bits = np.int64(0)
            for i in range(es, ee):
                for k in range(a_off[s] + e_ptr[i], a_off[s] + e_ptr[i + 1]):
                    bits |= np.int64(1) << np.int64(8 * (i - es) + a_f[k] - fs)
            pair = (e_cache[es, ee - es - 1] << 32) | f_cache[fs, fe - fs - 1]
            add_count(pairs, (pair, bits), 1)
        row = stop
    return row


@njit(cache=True)
def _link_starts(link_e: np.ndarray, le: int) -> np.ndarray:
    """Where the links of each English word start in a sentence's (e, f)-sorted links."""
    starts = np.zeros(le + 1, dtype=np.int64)
    for i in link_e:
        starts[i + 1] += 1
    return np.cumsum(starts)


@njit(cache=True, inline="always")
def word_key(e_plus_one: int, f_plus_one: int) -> int:
    """The ``words`` key of English token id + 1 and foreign token id + 1 (0 for NULL)."""
    return (np.int64(e_plus_one) << 32) | np.int64(f_plus_one)


@njit(cache=True, inline="always")
def intern_key(table: tuple, key: tuple) -> int:
    """The id of ``key`` in ``table``, adding it with the next id if new."""
    slots, size = table
    slot = find_slot(slots, key)
    if slots[slot, len(key)] == 0:
        for c in range(len(key)):
            slots[slot, c] = key[c]
        size[0] += 1
        slots[slot, len(key)] = size[0]
    return slots[slot, len(key)] - 1


@njit(cache=True, inline="always")
def add_count(table: tuple, key: tuple, count: int) -> None:
    """Add ``count`` to the value of ``key`` in ``table``, inserting it if new."""
    slots, size = table
    slot = find_slot(slots, key)
    if slots[slot, len(key)] == 0:
        for c in range(len(key)):
            slots[slot, c] = key[c]
        size[0] += 1
    slots[slot, len(key)] += count


@njit(cache=True, inline="always")
def _phrase_key(tokens: np.ndarray) -> tuple:
    """Token ids packed as ``id + 1``, two to an int64, into four words."""
    w0 = w1 = w2 = w3 = np.int64(0)
    for k in range(tokens.size):
        packed = (np.int64(tokens[k]) + 1) << (32 if k % 2 == 0 else 0)
        if k < 2:
            w0 |= packed
        elif k < 4:
            w1 |= packed
        elif k < 6:
            w2 |= packed
        else:
            w3 |= packed
    return (w0, w1, w2, w3)


@njit(cache=True, inline="always")
def find_slot(slots: np.ndarray, key: tuple | np.ndarray) -> int:
    """The row holding ``key``, or the empty row where it belongs (linear probing)."""
    width = len(key)
    mask = slots.shape[0] - 1
    slot = np.int64(key_hash(key) & np.uint64(mask))
    while slots[slot, width] != 0:
        same = True
        for c in range(width):
            if slots[slot, c] != key[c]:
                same = False
                break
        if same:
            return slot
        slot = (slot + 1) & mask
    return slot


@njit(cache=True, inline="always")
def key_hash(key: tuple | np.ndarray) -> np.uint64:
    """Murmur3's 64-bit finaliser folded over the key's words."""
    h = np.uint64(0x9E3779B97F4A7C15)
    for c in range(len(key)):
        h ^= np.uint64(key[c])
        h ^= h >> np.uint64(33)
        h *= np.uint64(0xFF51AFD7ED558CCD)
        h ^= h >> np.uint64(33)
        h *= np.uint64(0xC4CEB9FE1A85EC53)
        h ^= h >> np.uint64(33)
    return h


@njit(cache=True)
def _rehash(slots: np.ndarray, width: int, capacity: int) -> np.ndarray:
    grown = np.zeros((capacity, slots.shape[1]), dtype=np.int64)
    for row in range(slots.shape[0]):
        if slots[row, width] != 0:
            at = find_slot(grown, slots[row, :width])
            for column in range(slots.shape[1]):  # not a row assignment: its shape check
                grown[at, column] = slots[row, column]  # compiles a formatted error (~1 s)
    return grown
