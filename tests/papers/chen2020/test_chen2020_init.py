"""chen2020's initial word rows on hand-made files: the words kept (training corpus, evaluation
sentences, STS Benchmark tokenised as the evaluator), both layouts, and the CLI's artefact."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from paracomp import artefacts
from paracomp.cli import main
from paracomp.papers.chen2020.init import initial_rows, needed_words

WORDS = ["the", "cat", "sat", "dog", "'t", "zebra", "unused"]
VECTORS = np.arange(len(WORDS) * 2, dtype=np.float32).reshape(-1, 2)


def test_needed_words_of_pairs_and_sentences():
    pairs = pa.table({"s1": ["the cat  sat"], "s2": ["a dog"]})
    assert needed_words([pairs], [["zebra", "the"]]) == {"the", "cat", "sat", "a", "dog", "zebra"}


@pytest.mark.parametrize("layout", ["vectors", "operators"])
def test_initial_rows_keep_order_and_lay_out(layout):
    words, rows = initial_rows(WORDS, VECTORS, {"dog", "the", "nothing"}, layout)
    assert words == ["the", "dog"]  # the vectors' order; a needed word without one is absent
    vectors = VECTORS[[0, 3]]
    if layout == "vectors":
        np.testing.assert_array_equal(rows, vectors)
    else:  # WLO's [a | B]: A = exp(0) = 1, B the vector
        np.testing.assert_array_equal(rows, np.concatenate([np.zeros_like(vectors), vectors], 1))
    assert rows.dtype == np.float32


def test_initial_rows_refuse_an_unknown_layout():
    with pytest.raises(ValueError, match="layout"):
        initial_rows(WORDS, VECTORS, {"the"}, "matrix")


def test_cli_writes_the_rows_of_every_word_met(tmp_path):
    """The STS sentences are tokenised (Moses) and lowercased as the evaluator does: "Didn't"
    gives "didn" (no vector) and "'t", "Zebra!" "zebra"; "unused" is in no input: left out."""
    embeddings = tmp_path / "vectors.parquet"
    prov = artefacts.Provenance("hand", "hand", {}, {})
    artefacts.write_embeddings(WORDS, VECTORS, embeddings, prov)
    pairs = tmp_path / "pairs.parquet"
    table = pa.table(
        {"id": ["1"], "s1": ["the cat"], "s2": ["the cat sat"], "len1": [2], "len2": [3]}
    )
    artefacts.write(table.cast(artefacts.SEGMENT_PAIRS), pairs, artefacts.SEGMENT_PAIRS, prov)
    sentences = tmp_path / "sentences.parquet"
    pd.DataFrame({"set": ["twitter"], "index": [0], "tokens": ["dog"]}).to_parquet(sentences)
    sts = tmp_path / "sts.parquet"
    pd.DataFrame({"s1": ["Didn't"], "s2": ["Zebra!"]}).to_parquet(sts)
    out = tmp_path / "init.parquet"
    main(["chen2020", "init", "--embeddings", str(embeddings), "--pairs", str(pairs),
          "--sentences", str(sentences), "--sts", str(sts), "--layout", "operators",
          "--out", str(out)])  # fmt: skip
    words, rows = artefacts.read_embeddings(out)
    assert words == ["the", "cat", "sat", "dog", "'t", "zebra"]
    np.testing.assert_array_equal(rows[:, 2:], VECTORS[:6])
    np.testing.assert_array_equal(rows[:, :2], 0.0)
