from collections import Counter

import pyarrow as pa
import pytest

from paracomp import artefacts
from paracomp.artefacts import Provenance
from paracomp.papers.elgohary2016.undertrained import (
    training_counts,
    undertrained_ratio,
    undertrained_stats,
)

PROV = Provenance("t", "test", {}, {})


def test_ratio_counts_tokens_not_types():
    counts = Counter({"the": 150, "cat": 99, "sat": 100})
    # tokens: the the cat sat dog -> rare: cat (99 < 100), dog (0)
    assert undertrained_ratio(
        [["the", "the", "cat"], ["sat", "dog"]], counts, 100
    ) == pytest.approx(2 / 5)


def test_training_counts_use_english_sides(tmp_path):
    bilingual = pa.table(
        {"id": ["1"], "en": ["a cat"], "es": ["un gato"], "len_en": [2], "len_es": [2]}
    )
    paraphrases = pa.table(
        {"id": ["1"], "s1": ["a cat"], "s2": ["a feline"], "len1": [2], "len2": [2]}
    )
    artefacts.write(bilingual, tmp_path / "b.parquet", bilingual.schema, PROV)
    artefacts.write(paraphrases, tmp_path / "p.parquet", paraphrases.schema, PROV)
    assert training_counts(tmp_path / "b.parquet") == Counter({"a": 1, "cat": 1})
    assert training_counts(tmp_path / "p.parquet") == Counter({"a": 2, "cat": 1, "feline": 1})


def test_table4_rows_average_subsets_and_report_missing_data(tmp_path):
    train = pa.table(
        {
            "id": ["1"],
            "en": [" ".join(["a"] * 100 + ["man"] * 5)],
            "es": ["x"],
            "len_en": [105],
            "len_es": [1],
        }
    )
    artefacts.write(train, tmp_path / "t.parquet", train.schema, PROV)
    sick = pa.table(
        {
            "dataset": ["sick2014"] * 2,
            "subset": ["sick"] * 2,
            "split": ["test", "train"],
            "id": ["1", "2"],
            "s1": ["A man", "A dog"],
            "s2": ["a a", "x"],
            "score": [3.0, 4.0],
            "label": ["NEUTRAL", "ENTAILMENT"],
        }
    )
    artefacts.write(sick, tmp_path / "sick.parquet", artefacts.SENTENCE_PAIRS, PROV)
    stats = undertrained_stats(
        "table4",
        {"bisent": tmp_path / "t.parquet"},
        {"sick2014": tmp_path / "sick.parquet"},
        tokenizer="whitespace",
    )
    # SICK test only: tokens a man a a -> "man" (5 < 100) is the one rare token of 4
    assert stats["rows"]["SICK"]["bisent"] == pytest.approx(1 / 4)
    assert stats["rows"]["2012 Avg"]["bisent"] is None
    assert "sts2012/MSRpar" in stats["data"]["2012 Avg"]
