"""SICK-bigram filtering and seeded subsampling of training pairs."""

from __future__ import annotations

import csv

import pyarrow as pa
import pytest

from paracomp.corpus.derive import bigrams, filter_bigrams, sick_bigrams, subsample
from paracomp.errors import ConfigError
from paracomp.paraphrase.ppdb import pairs_table, read_scored_pairs


@pytest.fixture(scope="session")
def sick_test_bigrams(mirror_file) -> set[tuple[str, str]]:
    with open(mirror_file("sick2014/SICK_test_annotated.txt"), encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t"))
    assert len(rows) == 4927
    return sick_bigrams([r["sentence_A"] for r in rows] + [r["sentence_B"] for r in rows])


def small_table() -> pa.Table:
    return pairs_table(
        ["a", "b", "c", "d"],
        ["a man is playing", "the cat sat", "a dog , barking", "nothing here"],
        ["un hombre", "a man is here", "un perro", "nada"],
    )


def test_bigrams() -> None:
    assert bigrams(["a", "b", "c", "b", "c"]) == {("a", "b"), ("b", "c"), ("c", "b")}
    assert bigrams(["one"]) == set()


def test_sick_bigrams_are_moses_tokenised_and_lowercased() -> None:
    found = sick_bigrams(["A dog isn't barking.", "The Dog runs"])
    assert found == {
        ("a", "dog"),
        ("dog", "isn"),
        ("isn", "'t"),
        ("'t", "barking"),
        ("barking", "."),
        ("the", "dog"),
        ("dog", "runs"),
    }


def test_filter_bigrams_by_side() -> None:
    forbidden = {("a", "man"), ("a", "dog")}
    assert filter_bigrams(small_table(), forbidden)["id"].to_pylist() == ["b", "d"]
    assert filter_bigrams(small_table(), forbidden, side=("s1", "s2"))["id"].to_pylist() == ["d"]
    assert filter_bigrams(small_table(), {("dog", "barking")}).num_rows == 4  # "," between


@pytest.mark.slow  # filters the mirror's 60,000 PPDB pairs
def test_filter_real_phrase_pairs(mirror_file, sick_test_bigrams: set[tuple[str, str]]) -> None:
    assert ("a", "man") in sick_test_bigrams and ("is", "playing") in sick_test_bigrams
    assert 8000 < len(sick_test_bigrams) < 9500
    table = read_scored_pairs(mirror_file("ppdb-phrase-train-60k/ppdb_train.txt"))
    english_side = filter_bigrams(table, sick_test_bigrams)
    both_sides = filter_bigrams(table, sick_test_bigrams, side=("s1", "s2"))
    assert (english_side.num_rows, both_sides.num_rows) == (41_159, 29_747)
    for text in both_sides["s1"].to_pylist() + both_sides["s2"].to_pylist():
        assert sick_test_bigrams.isdisjoint(bigrams(text.split()))
    assert english_side.schema == table.schema


def test_subsample_is_seeded_ordered_and_nested() -> None:
    table = pairs_table([str(i) for i in range(1000)], ["x"] * 1000, ["y"] * 1000)
    small = subsample(table, 100, seed=7)
    assert small.equals(subsample(table, 100, seed=7))
    assert not small.equals(subsample(table, 100, seed=8))
    ids = [int(i) for i in small["id"].to_pylist()]
    assert ids == sorted(ids) and len(set(ids)) == 100
    larger = {int(i) for i in subsample(table, 500, seed=7)["id"].to_pylist()}
    assert set(ids) <= larger
    assert subsample(table, fraction=0.25, seed=7).num_rows == 250
    assert subsample(table, fraction=1.0, seed=1).equals(table)


@pytest.mark.parametrize(
    ("n", "fraction"), [(None, None), (10, 0.5), (2000, None), (None, 1.5), (-1, None)]
)
def test_subsample_rejects_bad_sizes(n: int | None, fraction: float | None) -> None:
    with pytest.raises(ConfigError, match="subsample"):
        subsample(small_table(), n, fraction=fraction, seed=0)
