"""Vocabularies, segment encoding and batch gathering."""

import pyarrow as pa
import pytest
import torch

from paracomp.errors import DataError
from paracomp.models.vocab import UNK, EncodedPairs, Segments, Vocabulary, tokenize

TABLE = pa.table(
    {
        "s1": ["the cat sat", " the  dog ", "a cat", ""],
        "s2": ["el gato", "el perro", "un gato", "el"],
    }
)


def test_tokenize_trims_and_splits_whitespace():
    tokens, lengths = tokenize(TABLE.column("s1"))
    assert tokens.to_pylist() == ["the", "cat", "sat", "the", "dog", "a", "cat"]
    assert lengths.tolist() == [3, 2, 2, 0]


def test_vocabulary_order_min_count_and_unk():
    tokens, _ = tokenize(TABLE.column("s1"))
    assert Vocabulary.build(tokens).words == (UNK, "cat", "the", "a", "dog", "sat")
    vocab = Vocabulary.build(tokens, min_count=2)
    assert vocab.words == (UNK, "cat", "the")
    assert vocab.ids(pa.array(["the", "dog", "cat"])).tolist() == [2, 0, 1]


def test_separate_vocabularies_are_stacked_in_one_table():
    data = EncodedPairs.build(TABLE, shared_vocab=False)
    assert data.vocab2.words == (UNK, "el", "gato", "perro", "un")
    assert data.row_offset2 == 6 and data.n_rows == 11 and data.n_pairs == 4
    ids, starts = data.take_pairs(torch.tensor([0, 3]), torch.tensor([0, 3]))
    # "the cat sat", "" | "el gato", "el"
    assert ids.tolist() == [2, 1, 5, 7, 8, 7] and starts.tolist() == [0, 3, 3, 5]


def test_shared_vocabulary_covers_both_sides():
    data = EncodedPairs.build(TABLE, shared_vocab=True)
    assert data.vocab1 is data.vocab2 and data.row_offset2 == 0
    assert data.n_rows == len(data.vocab1) == 10


def test_too_few_pairs_or_missing_column():
    with pytest.raises(DataError, match="at least 2"):
        EncodedPairs.build(TABLE.slice(0, 1), shared_vocab=True)
    with pytest.raises(DataError, match="s2"):
        EncodedPairs.build(TABLE.drop_columns(["s2"]), shared_vocab=True)


def test_padded_segments():
    segments = Segments(
        torch.tensor([5, 6, 7, 8, 9], dtype=torch.int32), torch.tensor([0, 3, 3, 5])
    )
    ids, lengths = segments.padded(torch.tensor([2, 0, 1]), pad=-1)
    assert ids.tolist() == [[8, 9, -1], [5, 6, 7], [-1, -1, -1]]
    assert lengths.tolist() == [2, 3, 0]


@pytest.mark.parametrize(("batch_size", "chunk"), [(5, 2), (5, 64), (23, 1), (4, 3), (1, 7)])
def test_batches_match_taking_each_batch(batch_size, chunk):
    table = pa.table(
        {
            "s1": [" ".join(f"w{i % 7}" for _ in range(i % 4 + 1)) for i in range(23)],
            "s2": [" ".join(f"v{i % 5}" for _ in range(i % 3)) for i in range(23)],
        }
    )
    data = EncodedPairs.build(table, shared_vocab=False)
    order = torch.randperm(23, generator=torch.Generator().manual_seed(0))
    batches = list(data.batches(order, batch_size, chunk))
    assert len(batches) == len(order.split(batch_size))
    for (pairs, ids, starts), expected in zip(batches, order.split(batch_size), strict=True):
        assert torch.equal(pairs, expected)
        want_ids, want_starts = data.take_pairs(expected, expected)
        assert torch.equal(ids, want_ids) and torch.equal(starts, want_starts)


def test_take_kernel_matches_tensor_ops():
    data = EncodedPairs.build(TABLE, shared_vocab=False)
    for index in ([3, 0, 7, 3, 2], [4], []):
        index = torch.tensor(index, dtype=torch.long)
        ids, starts = data.segments.take(index)
        want_ids, want_starts = data.segments._take_by_tensor_ops(index)
        assert ids.dtype == want_ids.dtype == torch.long
        assert torch.equal(ids, want_ids) and torch.equal(starts, want_starts)
