"""The sharded phrase table and pivot on 400 real aligned Bible verses: equal to the
one-process table and pivot for any number of shards and partitions; partitioned files;
the sharding plan; errors naming the file."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from paracomp import artefacts
from paracomp.align.symmetrize import Alignments, symmetrize_corpus
from paracomp.artefacts import Provenance
from paracomp.corpus import steps
from paracomp.corpus.build import BILINGUAL_PAIRS
from paracomp.corpus.sharding import plan
from paracomp.errors import DataError
from paracomp.paraphrase.pivot import pivot
from paracomp.phrases import partitioned
from paracomp.phrases.partitioned import (
    read_partition,
    read_rows,
    string_partitions,
    write_partitioned,
)
from paracomp.phrases.score import build_phrase_table
from paracomp.phrases.shards import extract_shard, shard_rows, write_vocabulary

RULES = {"min_count": 1, "min_translation_prob": 0.01, "min_prob": 0.01, "top_k": 5}


@pytest.fixture(scope="module")
def corpus(tmp_path_factory, bible_sample):
    folder = tmp_path_factory.mktemp("shards")
    sentences = folder / "sentences.parquet"
    artefacts.write(bible_sample, sentences, BILINGUAL_PAIRS, Provenance("s", "bible", {}, {}))
    steps.align(sentences, folder / "alignments.parquet", model=3)
    return folder


@pytest.fixture(scope="module")
def one_process(corpus) -> pa.Table:
    sents, links = (
        pq.read_table(corpus / "sentences.parquet"),
        pq.read_table(corpus / "alignments.parquet"),
    )
    sym = symmetrize_corpus(
        Alignments.from_pharaoh(links["e2f"].to_pylist()),
        Alignments.from_pharaoh(links["f2e"].to_pylist()),
        sents["len_en"].to_numpy(),
        sents["len_es"].to_numpy(),
    )
    english = [s.split(" ") for s in sents["en"].to_pylist()]
    foreign = [s.split(" ") for s in sents["es"].to_pylist()]
    return build_phrase_table(english, foreign, sym, 7)


@pytest.mark.slow
@pytest.mark.parametrize(("shards", "partitions"), [(1, 1), (3, 4), (7, 2)])
def test_sharded_table_is_the_one_process_table(corpus, one_process, shards, partitions):
    out = corpus / f"pt-{shards}-{partitions}.parquet"
    steps.phrase_table(
        corpus / "sentences.parquet",
        corpus / "alignments.parquet",
        out,
        max_length=7,
        shards=shards,
        partitions=partitions,
    )
    table = pq.read_table(out)
    assert table.num_rows > 10_000
    assert table.replace_schema_metadata(None).equals(one_process)
    assert set(artefacts.provenance(out)["inputs"]) == {
        str(corpus / "sentences.parquet"),
        str(corpus / "alignments.parquet"),
    }
    assert not list(corpus.glob(".pt-*"))  # the scratch folder is gone


@pytest.mark.slow
def test_sharded_pivot_is_the_one_process_pivot(corpus, one_process):
    table = corpus / "table.parquet"
    pq.write_table(one_process, table)
    expected = pivot(one_process, min_translation_prob=0.01, min_prob=0.01, top_k=5)
    steps.pivot_paraphrases(table, corpus / "mono1.parquet", rules=RULES)
    assert pq.read_table(corpus / "mono1.parquet").replace_schema_metadata(None).equals(expected)
    # several partitions add each pair's partial sums in another order: equal up to rounding
    steps.pivot_paraphrases(table, corpus / "mono3.parquet", rules=RULES, partitions=3)
    three = pq.read_table(corpus / "mono3.parquet")
    assert three.drop(["score"]).replace_schema_metadata(None).equals(expected.drop(["score"]))
    assert three["score"].to_pylist() == pytest.approx(expected["score"].to_pylist(), rel=1e-14)
    steps.pivot_paraphrases(
        table, corpus / "top.parquet", rules={**RULES, "max_pairs": 50}, partitions=3
    )
    top = pivot(one_process, min_translation_prob=0.01, min_prob=0.01, top_k=5, max_pairs=50)
    got = pq.read_table(corpus / "top.parquet")
    assert len(got) == 50
    assert set(zip(got["s1"].to_pylist(), got["s2"].to_pylist(), strict=True)) == set(
        zip(top["s1"].to_pylist(), top["s2"].to_pylist(), strict=True)
    )


def test_shards_cover_every_row_once():
    rows = [r for k in range(7) for r in range(*shard_rows(100, k, 7))]
    assert rows == list(range(100))
    assert shard_rows(3, 4, 5) == (2, 3) and shard_rows(3, 0, 5) == (0, 0)
    with pytest.raises(DataError, match="shard 5 outside 0..4"):
        shard_rows(10, 5, 5)


def test_partitioned_files_read_back_by_partition(tmp_path):
    paths = [tmp_path / "a.parquet", tmp_path / "b.parquet"]
    write_partitioned(pa.table({"x": [1, 2, 3, 4]}), [1, 0, 1, 2], paths[0])
    write_partitioned(pa.table({"x": [5, 6]}), [2, 1], paths[1])
    assert pq.ParquetFile(paths[0]).num_row_groups == 3
    assert read_partition(paths, 1)["x"].to_pylist() == [1, 3, 6]
    assert read_partition(paths, 2)["x"].to_pylist() == [4, 5]
    assert read_partition(paths, 3).num_rows == 0
    pq.write_table(pa.table({"x": [1]}), tmp_path / "plain.parquet")
    with pytest.raises(DataError, match="plain.parquet: no column 'part'"):
        read_partition([tmp_path / "plain.parquet"], 0)


@pytest.mark.parametrize("batch_rows", [2, 1 << 16])
def test_row_ranges_span_row_groups(tmp_path, monkeypatch, batch_rows):
    monkeypatch.setattr(partitioned, "BATCH_ROWS", batch_rows)
    path = tmp_path / "rows.parquet"
    pq.write_table(
        pa.table({"x": list(range(10)), "y": list("abcdefghij")}), path, row_group_size=3
    )
    assert read_rows(path, ["x"], 2, 8)["x"].to_pylist() == [2, 3, 4, 5, 6, 7]
    assert read_rows(path, ["y"], 9, 20)["y"].to_pylist() == ["j"]
    assert read_rows(path, ["x"], 4, 4).num_rows == 0
    with pytest.raises(DataError, match="rows.parquet: missing columns \\['z'\\]"):
        read_rows(path, ["z"], 0, 1)


def fnv1a(text: str) -> int:
    h = 0xCBF29CE484222325
    for byte in text.encode():
        h = ((h ^ byte) * 0x100000001B3) % 2**64
    return h >> 33


def test_string_partitions_hash_the_utf8_bytes():
    words = ["la casa", "", "año", "la casa", "niño pequeño"]
    chunked = pa.chunked_array([pa.array(words[:2]), pa.array(words[2:])])
    assert string_partitions(chunked, 7).tolist() == [fnv1a(w) % 7 for w in words]
    assert string_partitions(pa.array(words).slice(2), 5).tolist() == [
        fnv1a(w) % 5 for w in words[2:]
    ]


def test_plan_follows_the_corpus_size_unless_set():
    corpus = {"bilingual": "bible", "sharding": {"shard_pairs": 25_000}}
    assert plan(corpus) == (2, 2, 1)
    assert plan({**corpus, "bilingual": "europarl"}) == (79, 79, 20)
    assert plan({**corpus, "sharding": {"shards": 3, "partitions": 5, "pivot_partitions": 2}}) == (
        3,
        5,
        2,
    )


@pytest.mark.slow
def test_a_shard_names_the_vocabulary_that_lacks_its_tokens(corpus, tmp_path):
    sentences = corpus / "sentences.parquet"
    short = tmp_path / "sentences.parquet"
    pq.write_table(pq.read_table(sentences).slice(0, 5), short)
    write_vocabulary(short, tmp_path / "vocab.parquet")
    with pytest.raises(DataError, match="vocab.parquet: lacks tokens of .* rows 200-400"):
        extract_shard(
            (sentences, corpus / "alignments.parquet", tmp_path / "vocab.parquet"),
            (tmp_path / "pairs.parquet", tmp_path / "words.parquet"),
            shard=1,
            shards=2,
            partitions=2,
            max_length=7,
        )
