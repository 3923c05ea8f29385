"""Moses ``score``: phrase translation probabilities and lexical weights of counted pairs.

For a pair (e, f) with count c(e, f):

* ``p_en_given_es`` = c(e, f) / c(f) and ``p_es_given_en`` = c(e, f) / c(e), where c(f) and
  c(e) sum c over the pairs sharing the foreign or English phrase;
* the word translation table is Moses' ``get_lexical``: w(e|f) = n(f, e) / n(f) and
  w(f|e) = n(f, e) / n(e), counting links over the whole corpus and pairing every unaligned
  word with NULL, so that n(f) = links of f + unaligned occurrences of f, n(NULL) = unaligned
  occurrences of words on the other side;
* ``lex_en_given_es`` = prod_i (1 / |a_i|) sum_{j in a_i} w(e_i|f_j), with w(e_i|NULL) for an
  unaligned e_i; ``lex_es_given_en`` likewise from the foreign side.

A pair seen with several in-phrase alignments is scored, as Moses does, with the alignment
seen most often; ties go to the greatest alignment in Moses' order (``std::vector`` of
``std::set`` compared lexicographically), indexed by English word for ``lex_en_given_es``
and by foreign word for ``lex_es_given_en``, so the two may use different alignments, as
Moses' direct and inverse ``score`` runs do. Unlike Moses, the word table is not rounded to
seven decimals before use.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from numba import njit, prange

from paracomp.align.symmetrize import Alignments, Link
from paracomp.artefacts import PHRASE_TABLE
from paracomp.errors import DataError
from paracomp.phrases.extract import HashTable, PhraseCounter, find_slot, word_key


def build_phrase_table(
    sentences_e: Sequence[Sequence[str]],
    sentences_f: Sequence[Sequence[str]],
    alignments: Sequence[Iterable[Link]] | Alignments,
    max_length: int = 7,
    chunk_size: int = 5000,
) -> pa.Table:
    """Extract, count and score the phrase pairs of a word-aligned corpus (PHRASE_TABLE)."""
    if not len(sentences_e) == len(sentences_f) == len(alignments):
        raise DataError(
            f"{len(sentences_e)} English, {len(sentences_f)} foreign sentences "
            f"and {len(alignments)} alignments"
        )
    if not isinstance(alignments, Alignments):
        alignments = Alignments.from_links(alignments)
    counter = PhraseCounter(max_length)
    for lo in range(0, len(sentences_e), chunk_size):
        hi = min(lo + chunk_size, len(sentences_e))
        counter.add(sentences_e[lo:hi], sentences_f[lo:hi], alignments.slice(lo, hi))
    return score(counter)


def score(counter: PhraseCounter) -> pa.Table:
    """The scored phrase table of everything ``counter`` has seen, one row per distinct pair,
    ordered by first occurrence of the English phrase, then of the foreign phrase."""
    e_tokens, e_lengths = phrase_tokens(counter.e_phrases.filled(), len(counter.e_phrases))
    f_tokens, f_lengths = phrase_tokens(counter.f_phrases.filled(), len(counter.f_phrases))
    e_id, f_id, count, best_ef, best_fe = best_alignments(
        counter.pairs.filled(), e_lengths, f_lengths
    )
    phrases = (e_id, f_id, e_tokens, f_tokens)
    lex_ef, lex_fe = lex_weights(
        best_ef, best_fe, phrases, counter.words, (len(counter.vocab_e), len(counter.vocab_f))
    )
    count_e = np.bincount(e_id, weights=count, minlength=len(e_lengths))
    count_f = np.bincount(f_id, weights=count, minlength=len(f_lengths))
    columns = {
        "en": phrase_strings(list(counter.vocab_e), e_tokens, e_lengths).take(e_id),
        "es": phrase_strings(list(counter.vocab_f), f_tokens, f_lengths).take(f_id),
        "count": count,
        "p_en_given_es": count / count_f[f_id],
        "p_es_given_en": count / count_e[e_id],
        "lex_en_given_es": lex_ef,
        "lex_es_given_en": lex_fe,
    }
    return pa.table(columns, schema=PHRASE_TABLE)


def best_alignments(
    rows: np.ndarray, e_lengths: np.ndarray, f_lengths: np.ndarray
) -> tuple[np.ndarray, ...]:
    """Sum the rows ``(e_id << 32 | f_id, alignment, count)`` of each pair (e_id, f_id) and pick
    its best alignment: ``e_id, f_id, count, best_ef, best_fe``, ordered by pair key."""
    rows = rows[np.argsort(rows[:, 0])]
    starts = np.flatnonzero(np.diff(rows[:, 0], prepend=-1))
    e_id, f_id = rows[starts, 0] >> 32, rows[starts, 0] & 0xFFFFFFFF
    count, best_ef, best_fe = _best_alignments(rows, starts, e_lengths[e_id], f_lengths[f_id])
    return e_id, f_id, count, best_ef, best_fe


def lex_weights(
    best_ef: np.ndarray,
    best_fe: np.ndarray,
    phrases: tuple[np.ndarray, ...],
    words: HashTable,
    vocab_sizes: tuple[int, int],
) -> tuple[np.ndarray, np.ndarray]:
    """``lex_en_given_es`` and ``lex_es_given_en`` of pairs ``phrases = (e_id, f_id, e_tokens,
    f_tokens)`` under their best alignments, from the word-link counts ``words``."""
    totals = _word_totals(words.filled(), *vocab_sizes)
    lex_ef = _lex_weights(best_ef, phrases, words.slots, totals, False)
    lex_fe = _lex_weights(best_fe, phrases, words.slots, totals, True)
    return lex_ef, lex_fe


def phrase_strings(vocab: Sequence[str], tokens: np.ndarray, lengths: np.ndarray) -> pa.Array:
    """Phrase ``k`` as its tokens (ids into ``vocab``) joined by single spaces."""
    words = pa.array(vocab, pa.string())
    offsets = np.zeros(len(lengths) + 1, dtype=np.int32)
    np.cumsum(lengths, out=offsets[1:])
    flat = tokens[np.arange(tokens.shape[1]) < lengths[:, None]]
    lists = pa.ListArray.from_arrays(pa.array(offsets), words.take(pa.array(flat)))
    return pc.binary_join(lists, " ")


@njit(cache=True)
def phrase_tokens(rows: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Unpack phrase-table rows (packed key, id + 1) into a (phrases × 8) token-id matrix (-1
    padded) and lengths."""
    tokens = np.full((n, 8), -1, dtype=np.int64)
    lengths = np.zeros(n, dtype=np.int64)
    for r in range(rows.shape[0]):
        pid = rows[r, 4] - 1
        for k in range(8):
            token = (rows[r, k // 2] >> (32 if k % 2 == 0 else 0)) & 0xFFFFFFFF
            if token > 0:
                tokens[pid, k] = token - 1
                lengths[pid] += 1
    return tokens, lengths


@njit(cache=True)
def _best_alignments(
    rows: np.ndarray, starts: np.ndarray, le: np.ndarray, lf: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per pair (rows ``starts[k]`` up to the next start): total count and its best alignment
    indexed by English, then by foreign word (most frequent; ties go to the greatest in
    Moses' order)."""
    n = starts.size
    count = np.zeros(n, dtype=np.int64)
    best = np.zeros((2, n), dtype=np.int64)
    for k in range(n):
        stop = starts[k + 1] if k + 1 < n else rows.shape[0]
        for by_f in range(2):
            top = starts[k]
            for r in range(starts[k] + 1, stop):
                if rows[r, 2] > rows[top, 2] or (
                    rows[r, 2] == rows[top, 2]
                    and _moses_greater(rows[r, 1], rows[top, 1], le[k], lf[k], by_f == 1)
                ):
                    top = r
            best[by_f, k] = rows[top, 1]
        count[k] = rows[starts[k] : stop, 2].sum()
    return count, best[0], best[1]


@njit(cache=True)
def _word_totals(rows: np.ndarray, n_e: int, n_f: int) -> tuple:
    """Word-table marginals indexed by token id + 1 (0 is NULL): n(e), n(f), n(NULL, e) and
    n(f, NULL)."""
    total_e = np.zeros(n_e + 1, dtype=np.float64)
    total_f = np.zeros(n_f + 1, dtype=np.float64)
    null_e = np.zeros(n_e + 1, dtype=np.float64)
    null_f = np.zeros(n_f + 1, dtype=np.float64)
    for r in range(rows.shape[0]):
        e, f, c = rows[r, 0] >> 32, rows[r, 0] & 0xFFFFFFFF, rows[r, 1]
        total_e[e] += c
        total_f[f] += c
        if f == 0:
            null_e[e] += c
        if e == 0:
            null_f[f] += c
    return total_e, total_f, null_e, null_f


@njit(cache=True, parallel=True)
def _lex_weights(
    bits: np.ndarray, phrases: tuple, words: np.ndarray, totals: tuple, f_given_e: bool
) -> np.ndarray:
    """lex(e|f, a) of every pair, or lex(f|e, a) if ``f_given_e``; pair ``k`` joins phrases
    ``e_id[k]`` and ``f_id[k]`` of the token matrices, ``phrases = (e_id, f_id, e_tokens,
    f_tokens)``."""
    e_id, f_id, e_tokens, f_tokens = phrases
    out = np.empty(bits.size, dtype=np.float64)
    for k in prange(bits.size):
        e, f = e_tokens[e_id[k]], f_tokens[f_id[k]]
        out[k] = _lex(bits[k], e, f, words, totals, f_given_e)
    return out


@njit(cache=True)
def _lex(
    bits: int, e: np.ndarray, f: np.ndarray, words: np.ndarray, totals: tuple, f_given_e: bool
) -> float:
    """lex(e|f, a), or lex(f|e, a) if ``f_given_e``: over the words of the predicted side, the
    mean translation probability from their linked words, or from NULL if unlinked."""
    total_e, total_f, null_e, null_f = totals
    le, lf = (e >= 0).sum(), (f >= 0).sum()
    score = 1.0
    for x in range(lf if f_given_e else le):
        linked, total = 0, 0.0
        for y in range(le if f_given_e else lf):
            i, j = (y, x) if f_given_e else (x, y)
            if bits >> (8 * i + j) & 1:
                joint = words[find_slot(words, (word_key(e[i] + 1, f[j] + 1),)), 1]
                linked += 1
                total += joint / (total_e[e[i] + 1] if f_given_e else total_f[f[j] + 1])
        if linked:
            score *= total / linked
        elif f_given_e:
            score *= null_f[f[x] + 1] / total_e[0]
        else:
            score *= null_e[e[x] + 1] / total_f[0]
    return score


@njit(cache=True)
def _moses_greater(a: int, b: int, le: int, lf: int, by_f: bool) -> bool:
    """Whether alignment ``a`` > ``b`` as Moses compares ``vector<set<size_t>>``.

    The vector is indexed by English word (by foreign word if ``by_f``); each set holds the
    positions linked to it, and sets compare as sorted sequences, a prefix being smaller.
    """
    for idx in range(lf if by_f else le):
        row_a, row_b = _linked(a, idx, by_f), _linked(b, idx, by_f)
        diff = row_a ^ row_b
        if diff == 0:
            continue
        lowest = diff & -diff
        above = ~(2 * lowest - 1)
        if row_a & lowest:
            return (row_b & above) == 0
        return (row_a & above) != 0
    return False


@njit(cache=True)
def _linked(bits: int, idx: int, by_f: bool) -> int:
    """The positions linked to English word ``idx`` (foreign word if ``by_f``) as a bit set."""
    if not by_f:
        return (bits >> (8 * idx)) & 0xFF
    row = 0
    for i in range(8):
        row |= ((bits >> (8 * i + idx)) & 1) << i
    return row
