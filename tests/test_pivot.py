"""Bilingual pivoting on a hand-made phrase table and on the FreeDict En–De dictionary."""

from __future__ import annotations

import pandas as pd
import pyarrow as pa
import pytest

from paracomp.artefacts import PHRASE_TABLE
from paracomp.paraphrase.pivot import (
    best_pairs,
    pivot,
    read_freedict,
    scored_pairs,
    uniform_table,
)
from paracomp.paraphrase.ppdb import SCORED_PAIRS


@pytest.fixture(scope="session")
def freedict_pairs(package_root) -> list[tuple[str, str]]:
    return read_freedict(package_root("dict-freedict-eng-deu"))


# en, es, p(en|es), p(es|en); the English word "auto" also translates Spanish "auto".
ROWS = [
    ("car", "coche", 0.6, 0.7),
    ("automobile", "coche", 0.4, 0.9),
    ("car", "auto", 0.5, 0.3),
    ("automobile", "auto", 0.2, 0.1),
    ("auto", "auto", 0.3, 1.0),
]
# p(e2|e1) = Σ_f p(e2|f) p(f|e1), by hand:
EXPECTED = {
    ("auto", "automobile"): 0.2 * 1.0,
    ("auto", "car"): 0.5 * 1.0,
    ("automobile", "auto"): 0.3 * 0.1,
    ("automobile", "car"): 0.6 * 0.9 + 0.5 * 0.1,  # 0.59
    ("car", "auto"): 0.3 * 0.3,
    ("car", "automobile"): 0.4 * 0.7 + 0.2 * 0.3,  # 0.34
}


def phrase_table() -> pa.Table:
    en, es, p_en_es, p_es_en = (list(c) for c in zip(*ROWS, strict=True))
    return pa.table(
        {
            "en": en,
            "es": es,
            "count": [1] * len(ROWS),
            "p_en_given_es": p_en_es,
            "p_es_given_en": p_es_en,
            "lex_en_given_es": [0.5] * len(ROWS),
            "lex_es_given_en": [0.5] * len(ROWS),
        },
        schema=PHRASE_TABLE,
    )


def as_dict(table: pa.Table) -> dict[tuple[str, str], float]:
    rows = table.to_pylist()
    return {(r["s1"], r["s2"]): r["score"] for r in rows}


def test_pivot_probabilities() -> None:
    table = pivot(phrase_table())
    assert table.schema == SCORED_PAIRS
    assert as_dict(table) == pytest.approx(EXPECTED)
    assert table["s1"].to_pylist() == ["auto", "auto", "automobile", "automobile", "car", "car"]
    assert table["s2"].to_pylist()[2:4] == ["car", "auto"]  # descending score within e1
    assert table["id"].to_pylist() == [str(i) for i in range(6)]


def test_pivot_chunking_gives_the_same_sums() -> None:
    assert as_dict(pivot(phrase_table(), max_join_rows=1)) == pytest.approx(EXPECTED)


def test_pivot_thresholds() -> None:
    table = phrase_table()
    assert set(as_dict(pivot(table, min_prob=0.1))) == {
        ("auto", "automobile"),
        ("auto", "car"),
        ("automobile", "car"),
        ("car", "automobile"),
    }
    assert set(as_dict(pivot(table, top_k=1))) == {
        ("auto", "car"),
        ("automobile", "car"),
        ("car", "automobile"),
    }
    assert set(as_dict(pivot(table, max_pairs=2))) == {("automobile", "car"), ("auto", "car")}
    # Only the row (automobile, auto), with p(es|en) = 0.1, falls below 0.2; probabilities
    # are not renormalised.
    pruned = as_dict(pivot(table, min_translation_prob=0.2))
    assert pruned == pytest.approx(
        {
            ("auto", "car"): 0.5,
            ("automobile", "car"): 0.6 * 0.9,
            ("car", "auto"): 0.3 * 0.3,
            ("car", "automobile"): 0.4 * 0.7,
        }
    )


def test_uniform_table() -> None:
    table = uniform_table(
        [("car", "Auto"), ("car", "Wagen"), ("automobile", "Auto"), ("car", "Auto")]
    )
    assert table.schema == PHRASE_TABLE
    rows = {(r["en"], r["es"]): r for r in table.to_pylist()}
    assert len(rows) == 3
    assert rows[("car", "Wagen")]["p_es_given_en"] == 0.5
    assert rows[("car", "Auto")]["p_en_given_es"] == 0.5
    assert rows[("automobile", "Auto")]["p_es_given_en"] == 1.0
    # p(automobile|car) = p(automobile|Auto) p(Auto|car) = 1/2 · 1/2; p(car|automobile) = 1/2 · 1.
    assert as_dict(pivot(table)) == {("automobile", "car"): 0.5, ("car", "automobile"): 0.25}


@pytest.mark.slow
def test_freedict(freedict_pairs: list[tuple[str, str]]) -> None:
    assert len(freedict_pairs) > 700_000
    german = {de for en, de in freedict_pairs if en == "classified directory"}
    assert german == {"Branchenverzeichnis", "Branchenbuch"}
    assert ("house", "Haus") in freedict_pairs
    # Pivot over every entry sharing a German word with "classified directory".
    shared = [(en, de) for en, de in freedict_pairs if de in german]
    paraphrases = as_dict(pivot(uniform_table(shared)))
    assert ("classified directory", "trade directory") in paraphrases
    from_classified = [p for (e1, _), p in paraphrases.items() if e1 == "classified directory"]
    assert sum(from_classified) <= 1.0 + 1e-9


def test_equal_sums_added_in_another_order_rank_alike() -> None:
    # 0.1 + 0.2 and 0.3 are one probability summed in two orders: 0.30000000000000004 and 0.3
    for p_b, p_a in [(0.1 + 0.2, 0.3), (0.3, 0.1 + 0.2)]:
        probs = pd.DataFrame({"e1": ["x", "x", "y"], "e2": ["b", "a", "z"], "p": [p_b, p_a, 0.5]})
        best = best_pairs(probs, min_prob=0.3, top_k=1, max_pairs=None)
        assert list(zip(best["e1"], best["e2"], strict=True)) == [("y", "z"), ("x", "a")]
        both = best_pairs(probs, min_prob=0.3, top_k=None, max_pairs=None)
        assert scored_pairs(both)["s2"].to_pylist() == ["a", "b", "z"]
        # the min_prob cut compares p itself: 0.3 is below 0.1 + 0.2, and no score below it
        high = best_pairs(probs, min_prob=0.1 + 0.2, top_k=None, max_pairs=None)
        assert high["p"].min() >= 0.1 + 0.2 and len(high) == 2
