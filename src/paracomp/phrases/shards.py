"""The phrase table as scatter-gather jobs, each in memory bounded by its shard or partition.

1. :func:`write_vocabulary`: the corpus's token types, ids in order of first occurrence, so
   that every job packs a phrase into the same key (token ids + 1, two to an int64 word).
2. :func:`extract_shard`: one shard of sentence pairs (rows ``shard``/``shards`` of the
   corpus) is symmetrised, extracted and counted (:class:`PhraseCounter`); its rows ``(e key,
   f key, in-phrase alignment, count, first e, first f)`` go to a file partitioned by a hash of
   the English phrase, its word-link counts to another.
3. :func:`sum_words`: the corpus's word-link counts (the lexical translation table).
4. :func:`merge_by_english`: one English partition from every shard: counts summed over
   shards, each pair's best alignment, c(e); re-partitioned by a hash of the foreign phrase.
5. :func:`score_by_foreign`: one foreign partition: c(f), the probabilities, lexical weights
   and phrase strings; partitioned into buckets of English phrases by first occurrence.
6. :func:`gather`: every bucket in order, sorted within by first occurrence.

"First occurrence" of a phrase is ``shard << 32 | id`` with its id in its first shard's
counter (dense in order of first occurrence there), so the gathered table is in the order of
:func:`paracomp.phrases.score.score` over the whole corpus: by first occurrence of the
English phrase, then of the foreign phrase. Counts, probabilities and weights come from the
same arithmetic on the same integers, so the table is identical to the one-process table.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
from numba import njit

from paracomp.align.symmetrize import Alignments, symmetrize_corpus
from paracomp.artefacts import PHRASE_TABLE, Provenance, write_stream
from paracomp.errors import DataError
from paracomp.phrases.digests import file_digest, input_digests, pieces
from paracomp.phrases.extract import HashTable, PhraseCounter, add_count, intern_key, key_hash
from paracomp.phrases.partitioned import (
    PartitionedFiles,
    derived_alike,
    num_rows,
    read_partition,
    read_rows,
    read_verified,
    write_partitioned,
    write_verified,
)
from paracomp.phrases.score import best_alignments, lex_weights, phrase_strings, phrase_tokens

E_KEY = [f"e{k}" for k in range(4)]
F_KEY = [f"f{k}" for k in range(4)]
BUCKET_BITS = 16
"""The gather's buckets: English phrases by first occurrence, 2^16 phrase ids of one shard
each (a shard's first bucket, with the corpus's most frequent phrases, is the largest)."""
CHUNK = 5000
"""Sentence pairs per :meth:`PhraseCounter.add` call within a shard."""


def shard_rows(total: int, shard: int, shards: int) -> tuple[int, int]:
    """The rows ``start, stop`` of shard ``shard`` of ``shards`` over ``total`` rows."""
    if not 0 <= shard < shards:
        raise DataError(f"shard {shard} outside 0..{shards - 1}")
    return total * shard // shards, total * (shard + 1) // shards


def write_vocabulary(sentences: Path, out: Path) -> None:
    """Token types of the ``en`` and ``es`` columns, ids in order of first occurrence."""
    vocab: dict[str, dict[str, int]] = {"en": {}, "es": {}}
    for batch in pq.ParquetFile(sentences).iter_batches(columns=["en", "es"]):
        for side, types in vocab.items():
            for sentence in batch.column(side).to_pylist():
                for token in sentence.split(" "):
                    types.setdefault(token, len(types))
    table = pa.table(
        {
            "side": ["en"] * len(vocab["en"]) + ["es"] * len(vocab["es"]),
            "token": [*vocab["en"], *vocab["es"]],
        }
    )
    write_verified(table, out, input_digests({"sentences": sentences}))


def read_vocabulary(path: Path) -> tuple[list[str], list[str]]:
    """The English and foreign token lists of :func:`write_vocabulary` (index = id)."""
    table = read_verified(path)
    side, token = table["side"].to_numpy(zero_copy_only=False), table["token"].to_pylist()
    english = [t for t, s in zip(token, side, strict=True) if s == "en"]
    return english, token[len(english) :]


def extract_shard(
    paths: tuple[Path, Path, Path],
    out: tuple[Path, Path],
    *,
    shard: int,
    shards: int,
    partitions: int,
    max_length: int,
) -> int:
    """Count shard ``shard`` of the corpus (``paths`` = sentences, alignments, vocabulary)
    into ``out`` = (pairs partitioned by English phrase, word links); returns its pairs."""
    sentences, alignments, vocabulary = paths
    total = num_rows(sentences)
    if num_rows(alignments) != total:
        raise DataError(f"{alignments}: {num_rows(alignments)} rows, {sentences} has {total}")
    start, stop = shard_rows(total, shard, shards)
    sents = read_rows(sentences, ["en", "es", "len_en", "len_es"], start, stop)
    links = read_rows(alignments, ["e2f", "f2e"], start, stop)
    source = f"{alignments} (rows {start}-{stop})"
    e2f = Alignments.from_pharaoh(links["e2f"].to_pylist(), source)
    f2e = Alignments.from_pharaoh(links["f2e"].to_pylist(), source)
    sym = symmetrize_corpus(e2f, f2e, sents["len_en"].to_numpy(), sents["len_es"].to_numpy())
    english, foreign = read_vocabulary(vocabulary)
    vocab_e = {token: k for k, token in enumerate(english)}
    vocab_f = {token: k for k, token in enumerate(foreign)}
    counter = PhraseCounter(max_length, vocab_e, vocab_f)
    for lo in range(0, len(sents), CHUNK):
        hi = min(lo + CHUNK, len(sents))
        en = [s.split(" ") for s in sents["en"].slice(lo, hi - lo).to_pylist()]
        es = [s.split(" ") for s in sents["es"].slice(lo, hi - lo).to_pylist()]
        counter.add(en, es, sym.slice(lo, hi))
    if len(vocab_e) != len(english) or len(vocab_f) != len(foreign):
        raise DataError(f"{vocabulary}: lacks tokens of {sentences} rows {start}-{stop}")
    inputs = input_digests(dict(zip(("sentences", "alignments", "vocabulary"), paths)))
    _write_shard_pairs(counter, shard, shards, partitions, out[0], inputs)
    words = counter.words.filled()
    write_verified(pa.table({"key": words[:, 0], "count": words[:, 1]}), out[1], inputs)
    return len(counter.pairs)


def _write_shard_pairs(
    counter: PhraseCounter,
    shard: int,
    shards: int,
    partitions: int,
    out: Path,
    inputs: dict[str, str],
) -> None:
    e_keys = _keys_by_id(counter.e_phrases)
    f_keys = _keys_by_id(counter.f_phrases)
    rows = counter.pairs.filled()
    e_id, f_id = rows[:, 0] >> 32, rows[:, 0] & 0xFFFFFFFF
    columns = {
        **_key_columns(E_KEY, e_keys[e_id]),
        **_key_columns(F_KEY, f_keys[f_id]),
        "bits": rows[:, 1],
        "count": rows[:, 2],
        "e_first": (np.int64(shard) << 32) | e_id,
        "f_first": (np.int64(shard) << 32) | f_id,
    }
    piece = {"kind": "shard", "index": shard, "of": shards}
    parts = _partition(e_keys[e_id], partitions)
    write_partitioned(pa.table(columns), parts, out, piece, inputs)


def sum_words(paths: list[Path], out: Path) -> None:
    """Sum the word-link counts of every shard (all of one run's)."""
    derived_alike(paths)
    table = HashTable.empty(1)
    for path in paths:
        words = read_verified(path)
        keys, counts = words["key"].to_numpy(), words["count"].to_numpy()
        table.reserve(len(keys))
        _add_all(table.arrays(), keys[:, None], counts)
    rows = table.filled()
    write_verified(pa.table({"key": rows[:, 0], "count": rows[:, 1]}), out, pieces(paths, "words"))


def merge_by_english(paths: list[Path], out: Path, *, partition: int, partitions: int) -> int:
    """One English partition of every shard: one row per pair with its total count, best
    alignments, c(e) and first occurrences; returns its pairs."""
    rows = read_partition(paths, partition, "shard")
    e_keys, f_keys = _stack(rows, E_KEY), _stack(rows, F_KEY)
    e_table, e_ids = _intern_keys(e_keys)
    f_table, f_ids = _intern_keys(f_keys)
    pairs = HashTable.empty(2)
    pairs.reserve(len(rows))
    pair_keys = np.column_stack([(e_ids << 32) | f_ids, rows["bits"].to_numpy()])
    _add_all(pairs.arrays(), pair_keys, rows["count"].to_numpy())
    e_lengths = phrase_tokens(e_table.filled(), len(e_table))[1]
    f_lengths = phrase_tokens(f_table.filled(), len(f_table))[1]
    e_id, f_id, count, best_ef, best_fe = best_alignments(pairs.filled(), e_lengths, f_lengths)
    e_first = _min_by(e_ids, rows["e_first"].to_numpy(), len(e_table))
    f_first = _min_by(f_ids, rows["f_first"].to_numpy(), len(f_table))
    by_id_e, by_id_f = _first_rows(e_ids, len(e_table)), _first_rows(f_ids, len(f_table))
    columns = {
        **_key_columns(E_KEY, e_keys[by_id_e[e_id]]),
        **_key_columns(F_KEY, f_keys[by_id_f[f_id]]),
        "count": count,
        "best_ef": best_ef,
        "best_fe": best_fe,
        "count_e": np.bincount(e_id, weights=count, minlength=len(e_table))[e_id],
        "e_first": e_first[e_id],
        "f_first": f_first[f_id],
    }
    piece = {"kind": "English partition", "index": partition, "of": partitions}
    parts = _partition(f_keys[by_id_f[f_id]], partitions)
    write_partitioned(pa.table(columns), parts, out, piece, pieces(paths, "shard"))
    return len(count)


def score_by_foreign(
    paths: list[Path], words_path: Path, vocabulary: Path, out: Path, *, partition: int
) -> int:
    """One foreign partition scored: PHRASE_TABLE's columns plus the first occurrences,
    partitioned into the gather's buckets; returns its pairs."""
    rows = read_partition(paths, partition, "English partition")
    n = len(rows)
    f_table, f_ids = _intern_keys(_stack(rows, F_KEY))
    count = rows["count"].to_numpy()
    e_tokens, e_lengths = phrase_tokens(_with_ids(_stack(rows, E_KEY)), n)
    f_tokens, f_lengths = phrase_tokens(f_table.filled(), len(f_table))
    english, foreign = read_vocabulary(vocabulary)
    words = read_verified(words_path)
    word_table = HashTable.empty(1)
    word_table.reserve(len(words))
    _add_all(word_table.arrays(), words["key"].to_numpy()[:, None], words["count"].to_numpy())
    phrases = (np.arange(n), f_ids, e_tokens, f_tokens)
    lex_ef, lex_fe = lex_weights(
        rows["best_ef"].to_numpy(),
        rows["best_fe"].to_numpy(),
        phrases,
        word_table,
        (len(english), len(foreign)),
    )
    count_f = np.bincount(f_ids, weights=count, minlength=len(f_table))
    f_first = _min_by(f_ids, rows["f_first"].to_numpy(), len(f_table))[f_ids]
    e_first = rows["e_first"].to_numpy()
    columns = {
        "en": phrase_strings(english, e_tokens, e_lengths),
        "es": phrase_strings(foreign, f_tokens, f_lengths).take(f_ids),
        "count": count,
        "p_en_given_es": count / count_f[f_ids],
        "p_es_given_en": count / rows["count_e"].to_numpy(),
        "lex_en_given_es": lex_ef,
        "lex_es_given_en": lex_fe,
        "e_first": e_first,
        "f_first": f_first,
    }
    piece = {"kind": "foreign partition", "index": partition, "of": len(paths)}
    inputs = pieces(paths, "English partition") | {
        "words": file_digest(words_path),
        "vocabulary": file_digest(vocabulary),
    }
    write_partitioned(pa.table(columns), e_first >> BUCKET_BITS, out, piece, inputs)
    return n


def gather(paths: list[Path], out: Path, *, provenance: Provenance) -> int:
    """The phrase table: bucket by bucket (:data:`BUCKET_BITS`), each sorted by first
    occurrence of the English, then of the foreign phrase."""
    return write_stream(
        _buckets(PartitionedFiles(paths, "foreign partition")), out, PHRASE_TABLE, provenance
    )


def _buckets(files: PartitionedFiles) -> Iterator[pa.Table]:
    for bucket in files.parts():
        part = files.read(bucket)
        order = np.lexsort((part["f_first"].to_numpy(), part["e_first"].to_numpy()))
        yield part.take(pa.array(order))


def _keys_by_id(table: HashTable) -> np.ndarray:
    """Packed phrase keys (4 words) indexed by phrase id."""
    rows = table.filled()
    keys = np.empty((len(table), 4), dtype=np.int64)
    keys[rows[:, 4] - 1] = rows[:, :4]
    return keys


def _key_columns(names: list[str], keys: np.ndarray) -> dict[str, np.ndarray]:
    return {name: np.ascontiguousarray(keys[:, k]) for k, name in enumerate(names)}


def _stack(rows: pa.Table, names: list[str]) -> np.ndarray:
    return np.column_stack([rows[name].to_numpy() for name in names]).astype(np.int64)


def _with_ids(keys: np.ndarray) -> np.ndarray:
    """Keys with the ``id + 1`` column :func:`phrase_tokens` reads (row k is phrase k)."""
    return np.column_stack([keys, np.arange(1, len(keys) + 1, dtype=np.int64)])


def _partition(keys: np.ndarray, partitions: int) -> np.ndarray:
    """Each key's partition, from high bits of its hash (the tables probe by low bits)."""
    return _hash_rows(keys) % np.int64(partitions)


def _intern_keys(keys: np.ndarray) -> tuple[HashTable, np.ndarray]:
    """Dense ids of the distinct rows of ``keys`` (in order of first occurrence)."""
    table = HashTable.empty(keys.shape[1])
    table.reserve(len(keys))
    return table, _intern_rows(table.arrays(), keys)


def _first_rows(ids: np.ndarray, n: int) -> np.ndarray:
    """For each id, a row that holds it."""
    rows = np.empty(n, dtype=np.int64)
    rows[ids] = np.arange(len(ids))
    return rows


def _min_by(ids: np.ndarray, values: np.ndarray, n: int) -> np.ndarray:
    out = np.full(n, np.iinfo(np.int64).max, dtype=np.int64)
    np.minimum.at(out, ids, values)
    return out


@njit(cache=True)
def _hash_rows(keys: np.ndarray) -> np.ndarray:
    out = np.empty(keys.shape[0], dtype=np.int64)
    for r in range(keys.shape[0]):
        out[r] = np.int64(key_hash(keys[r]) >> np.uint64(33))
    return out


@njit(cache=True)
def _intern_rows(table: tuple, keys: np.ndarray) -> np.ndarray:
    ids = np.empty(keys.shape[0], dtype=np.int64)
    for r in range(keys.shape[0]):
        ids[r] = intern_key(table, keys[r])
    return ids


@njit(cache=True)
def _add_all(table: tuple, keys: np.ndarray, counts: np.ndarray) -> None:
    for r in range(keys.shape[0]):
        add_count(table, keys[r], counts[r])
