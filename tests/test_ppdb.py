"""PPDB release-format parsing, the mirror's PPDB-derived sets and Wieting's filters."""

from __future__ import annotations

import gzip
import statistics
from pathlib import Path

import pyarrow as pa
import pytest

from paracomp.artefacts import SEGMENT_PAIRS
from paracomp.errors import DataError
from paracomp.paraphrase.ppdb import (
    HUMAN_LABELS,
    SCORED_PAIRS,
    is_lexical,
    is_phrasal,
    pairs_table,
    parse_ppdb_line,
    read_human_labels,
    read_pairs,
    read_ppdb,
    read_scored_pairs,
    read_xl_lexicon,
    rules_to_pairs,
    size_bin,
    wieting_bigram_filter,
    wieting_lexical_filter,
    wieting_phrase_filter,
    within_one_edit,
    word_overlap,
)

# PPDB 1.0 release lines (LHS ||| phrase ||| paraphrase ||| features ||| alignment), the
# phrase pairs taken from the mirror's ppdb-phrase-train-60k (lines 1-3) and PPDB-XL lexicon
# (line 4); line 5 is a syntactic rule with nonterminals. The feature names are PPDB 1.0's
# (the seven of its heuristic score plus Identity and Lexical); the values are made up.
_FEATURES = (
    "Identity=0 Lexical={lex} RarityPenalty=0.00034 p(LHS|e)=0.10536 p(LHS|f)=0.08545 "
    "p(e|f)=2.34230 p(e|f,LHS)=2.07944 p(f|e)=2.40390 p(f|e,LHS)=2.07944"
)
PPDB1_LINES = [
    f"[NP] ||| the issues you ||| the points that ||| {_FEATURES.format(lex=0)} ||| 0-0 1-1 2-2",
    f"[VP] ||| employed by the ||| staff in the ||| {_FEATURES.format(lex=0)} ||| 1-1 2-2",
    f"[VP] ||| are handled by ||| were reviewed by ||| {_FEATURES.format(lex=0)} ||| 0-0 1-1 2-2",
    f"[NNS] ||| reallocations ||| reassignments ||| {_FEATURES.format(lex=1)} ||| 0-0",
    f"[NP] ||| the [NN,1] of [NP,2] ||| [NP,2] 's [NN,1] ||| {_FEATURES.format(lex=0)} ||| 1-2 3-0",
]
# PPDB 2.0 appends the entailment relation as a sixth field.
PPDB2_LINE = (
    "[VP] ||| are handled by ||| were reviewed by ||| PPDB2.0Score=3.52 p(e|f)=2.3 ||| "
    "0-0 1-1 2-2 ||| Equivalence"
)


def test_ppdb1_lines(tmp_path: Path) -> None:
    path = tmp_path / "ppdb-1.0-xl-sample.gz"
    with gzip.open(path, "wt", encoding="utf-8") as handle:
        handle.write("\n".join(PPDB1_LINES) + "\n")
    rules = list(read_ppdb(path))
    assert [r.line for r in rules] == [1, 2, 3, 4, 5]
    first = rules[0]
    assert (first.lhs, first.phrase, first.paraphrase) == (
        "[NP]",
        "the issues you",
        "the points that",
    )
    assert first.features["p(e|f,LHS)"] == pytest.approx(2.07944)
    assert len(first.features) == 9 and first.entailment is None
    assert rules[1].alignment == ((1, 1), (2, 2))
    assert [is_phrasal(r) for r in rules] == [True, True, True, False, False]
    assert [is_lexical(r) for r in rules] == [False, False, False, True, False]
    table = rules_to_pairs(rules, "sample")
    assert table.schema == SEGMENT_PAIRS
    assert table["id"].to_pylist() == ["sample:1", "sample:2", "sample:3"]
    assert table["len2"].to_pylist() == [3, 3, 3]


def test_ppdb2_entailment_field() -> None:
    rule = parse_ppdb_line(PPDB2_LINE, "ppdb-2.0-s-phrasal", 7)
    assert rule.entailment == "Equivalence" and rule.line == 7
    assert rule.features == {"PPDB2.0Score": 3.52, "p(e|f)": 2.3}


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("[NP] ||| a b ||| c d ||| p(e|f)=1.0", "expected 5 or 6 ' ||| ' fields, got 4"),
        ("[NP] ||| a b ||| c d ||| p(e|f) 1.0 ||| 0-0", "feature 'p\\(e\\|f\\)' is not Name=value"),
        ("[NP] ||| a b ||| c d ||| p(e|f)=high ||| 0-0", "could not convert"),
        ("[NP] ||| a b ||| c d ||| p(e|f)=1.0 ||| 0:0", "alignment link '0:0' is not i-j"),
        ("[NP] |||  ||| c d ||| p(e|f)=1.0 ||| 0-0", "empty phrase"),
    ],
)
def test_malformed_lines_name_file_and_line(tmp_path: Path, line: str, message: str) -> None:
    path = tmp_path / "bad.txt"
    path.write_text(PPDB1_LINES[0] + "\n" + line + "\n", encoding="utf-8")
    with pytest.raises(DataError, match=f"{path}:2: .*{message}"):
        list(read_ppdb(path))


@pytest.mark.slow
def test_phrase_train_60k(mirror_file) -> None:
    table = read_scored_pairs(mirror_file("ppdb-phrase-train-60k/ppdb_train.txt"))
    assert table.schema == SCORED_PAIRS and table.num_rows == 60_000
    assert table.slice(0, 1).to_pylist()[0] == {
        "id": "ppdb_train.txt:1",
        "s1": "the issues you",
        "s2": "the points that",
        "len1": 3,
        "len2": 3,
        "score": 1.0,
    }
    bins = [size_bin(a, b) for a, b in zip(table["s1"].to_pylist(), table["s2"].to_pylist())]
    assert {b: bins.count(b) for b in set(bins)} == {"3": 19_961, "4": 20_007, "5+": 20_032}
    # 3,380 pairs repeat another in swapped order, and a few (mostly "got ta" / "wan na")
    # reach a word overlap of 0.5, so Wieting's filter does not quite reproduce the file.
    filtered = wieting_phrase_filter(table)
    assert filtered.num_rows == 56_601
    pairs = list(zip(filtered["s1"].to_pylist(), filtered["s2"].to_pylist(), strict=True))
    assert len({frozenset(p) for p in pairs}) == len(pairs)
    assert all(word_overlap(a, b) < 0.5 for a, b in pairs)


def test_annotated_ppdb(mirror_file) -> None:
    dev = read_scored_pairs(mirror_file("annotated-ppdb/ppdb_dev.txt"))
    test = read_scored_pairs(mirror_file("annotated-ppdb/ppdb_test.txt"))
    assert (dev.num_rows, test.num_rows) == (260, 1000)
    assert dev.slice(0, 1).to_pylist()[0]["s2"] == "within the terms of article"
    scores = test["score"].to_pylist()
    assert min(scores) >= 1.0 and max(scores) <= 5.0


@pytest.mark.parametrize(
    ("kind", "rows", "distinct"),
    [("jn", 66_427, 66_427), ("nn", 22_275, 21_068), ("vn", 33_578, 33_578)],
)
def test_bigram_train(mirror_file, kind: str, rows: int, distinct: int) -> None:
    table = read_pairs(mirror_file(f"ppdb-bigram-train/bigram_train.{kind}.txt"))
    assert table.schema == SEGMENT_PAIRS and table.num_rows == rows
    assert set(table["len1"].to_pylist()) == {2} == set(table["len2"].to_pylist())
    # No pair is within one character edit; the NN file repeats 1,207 pairs swapped.
    assert wieting_bigram_filter(table).num_rows == distinct


@pytest.mark.parametrize(("split", "rows"), [("dev", 540), ("test", 1404)])
@pytest.mark.parametrize("kind", ["jn", "nn", "vn"])
def test_ml2010(mirror_file, split: str, rows: int, kind: str) -> None:
    table = read_scored_pairs(mirror_file(f"ml2010-bigrams/bigram_{split}.{kind}.txt"))
    assert table.num_rows == rows
    assert set(table["score"].to_pylist()) <= {1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0}
    assert len(set(zip(table["s1"].to_pylist(), table["s2"].to_pylist()))) == 108


@pytest.mark.slow
def test_xl_lexicon(mirror_file) -> None:
    table = read_xl_lexicon(mirror_file("ppdb-xl-lexicon/ppdb-xl.txt"))
    assert table.num_rows == 374_555  # 102,902 headwords with their paraphrases
    assert table.slice(0, 1).to_pylist()[0]["s2"] == "crawl"
    assert len(set(table["id"].to_pylist())) == 102_902
    lexical = wieting_lexical_filter(table)
    words = lexical["s1"].to_pylist() + lexical["s2"].to_pylist()
    assert not any(ch.isdigit() for w in words for ch in w)
    assert lexical.num_rows < table.num_rows // 2  # the file lists most pairs both ways


@pytest.mark.parametrize(
    ("name", "rows"), [("ppdb-sample.tsv", 26_456), ("wiki-sample.tsv", 13_954)]
)
def test_human_labels(mirror_file, name: str, rows: int) -> None:
    table = read_human_labels(mirror_file(f"ppdb2-human-labels/{name}"))
    assert table.schema == HUMAN_LABELS and table.num_rows == rows
    for row in table.slice(0, 500).to_pylist():
        assert row["score"] == pytest.approx(statistics.mean(row["ratings"]), abs=0.051)
        assert row["category"].startswith("[")


def test_bar_file_errors(tmp_path: Path) -> None:
    path = tmp_path / "pairs.txt"
    path.write_text("a b|||c d|||4.0\na b|||c d\n", encoding="utf-8")
    with pytest.raises(DataError, match=f"{path}:2: expected 3 non-empty"):
        read_scored_pairs(path)
    path.write_text("a b|||c d|||high\n", encoding="utf-8")
    with pytest.raises(DataError, match=f"{path}:1: score 'high' is not a number"):
        read_scored_pairs(path)
    path.write_text("1.0\t[NP]\ta\tb\n", encoding="utf-8")
    with pytest.raises(DataError, match=f"{path}:1: expected 5"):
        read_human_labels(path)


def test_within_one_edit_and_overlap() -> None:
    assert within_one_edit("dad", "dad") and within_one_edit("dad", "bad")
    assert within_one_edit("had", "hard") and within_one_edit("hard", "had")
    assert not within_one_edit("dad", "father") and not within_one_edit("abc", "bca")
    # Wieting et al. 2015 §3.1: both examples have overlap ≥ 0.5 and are excluded
    # ("dad" is one edit from "had", so every token of the first phrase counts).
    assert word_overlap("my dad had", "my father had") == 1.0
    assert word_overlap("my dog", "my father did") == 0.5
    assert word_overlap("ballistic missiles", "of ballistic missiles") == 1.0
    assert word_overlap("easy job", "simple task") == 0.0


def test_wieting_lexical_filter_rules() -> None:
    table = pairs_table(
        ["1", "2", "3", "4", "5", "6"],
        ["big", "large", "big", "b2b", "big", "huge"],
        ["large", "big", "big", "business", "enormous", "vast"],
    )
    kept = wieting_lexical_filter(table, vocab={"big", "large", "business", "huge", "vast"})
    assert kept["id"].to_pylist() == ["1", "6"]  # swap, identity, digits, out of vocabulary


def test_wieting_bigram_filter_rules() -> None:
    table = pairs_table(
        ["1", "2", "3", "4"],
        ["easy job", "town meeting", "-lrb- a", "achieve goal"],
        ["simple task", "town meetings", "b -rrb-", "achieve aim"],
    )
    assert wieting_bigram_filter(table)["id"].to_pylist() == ["1", "4"]
    assert isinstance(wieting_bigram_filter(table), pa.Table)
