"""Selecting the bilingual phrase pairs in bounded memory (a bit a row, the sampled ranks):
the same rows, ids and order as the rules and the seeded sample applied to the whole table,
whatever the batches and row groups."""

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from paracomp.artefacts import PHRASE_TABLE
from paracomp.corpus import phrase_pairs
from paracomp.corpus.phrase_pairs import select_rows, selected_pairs


@pytest.fixture
def table(tmp_path):
    """A phrase table of 1,000 rows in row groups of 77 (sides of 1-9 tokens)."""
    rng = np.random.default_rng(0)
    n = 1000
    words = lambda k: " ".join(f"w{j}" for j in range(k))  # noqa: E731
    columns = {
        "en": [words(k) for k in rng.integers(1, 10, n)],
        "es": [words(k) for k in rng.integers(1, 10, n)],
        "count": rng.integers(1, 5, n),
        "p_en_given_es": rng.random(n),
        "p_es_given_en": rng.random(n),
        "lex_en_given_es": rng.random(n),
        "lex_es_given_en": rng.random(n),
    }
    path = tmp_path / "pt.parquet"
    pq.write_table(pa.table(columns, schema=PHRASE_TABLE), path, row_group_size=77)
    return path


@pytest.mark.parametrize("batch", [13, 64, 1 << 20])
@pytest.mark.parametrize("max_pairs", [None, 50, 10_000])
def test_the_selection_is_the_rules_then_the_sample(table, monkeypatch, batch, max_pairs):
    monkeypatch.setattr(phrase_pairs, "BATCH", batch)
    rules = {"min_count": 2, "min_prob": 0.2, "min_length": 2, "max_length": 7}
    frame = pq.read_table(table).to_pandas()
    len_en = frame["en"].str.count(" ") + 1
    len_es = frame["es"].str.count(" ") + 1
    passed = np.flatnonzero(
        (frame["count"] >= 2)
        & (frame["p_en_given_es"] >= 0.2)
        & (frame["p_es_given_en"] >= 0.2)
        & len_en.between(2, 7)
        & len_es.between(2, 7)
    )
    expected = passed
    if max_pairs is not None and len(passed) > max_pairs:
        order = np.random.default_rng(5).permutation(len(passed))[:max_pairs]
        expected = passed[np.sort(order)]
    selection = select_rows(table, max_pairs=max_pairs, seed=5, **rules)
    got = pa.concat_tables(selected_pairs(table, selection))
    assert selection.rows == len(expected) == got.num_rows
    assert got["id"].to_pylist() == [f"pt:{i}" for i in expected]
    assert got["en"].to_pylist() == frame["en"].iloc[expected].tolist()
    assert got["len_es"].to_pylist() == len_es.iloc[expected].tolist()
