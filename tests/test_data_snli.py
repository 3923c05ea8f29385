"""The SNLI 1.0 ``.txt`` reader on a hand-made file in the release's format."""

import pytest

from paracomp.data.snli import parse_tokens, read_snli_txt
from paracomp.errors import DataError

HEADER = (
    "gold_label\tsentence1_binary_parse\tsentence2_binary_parse\tsentence1_parse\t"
    "sentence2_parse\tsentence1\tsentence2\tcaptionID\tpairID\tlabel1\tlabel2\tlabel3\t"
    "label4\tlabel5"
)


def _row(label: str, parse1: str, parse2: str, text1: str, text2: str, pair: str) -> str:
    return "\t".join(
        [
            label,
            parse1,
            parse2,
            "(ROOT)",
            "(ROOT)",
            text1,
            text2,
            "cap#0",
            pair,
            label,
            "",
            "",
            "",
            "",
        ]
    )


SNLI = (
    "\n".join(
        [
            HEADER,
            _row(
                "neutral",
                "( ( A dog ) ( runs . ) )",
                "( ( A dog ) ( runs fast . ) )",
                "A dog runs.",
                "A dog runs fast.",
                "p1",
            ),
            _row("-", "( a b )", "( c d )", "a b", "c d", "p2"),
            _row(
                "entailment",
                "( ( The man ) ( is n't asleep ) )",
                "( ( A man ) ( is awake ) )",
                "The man isn't asleep",
                "A man is awake",
                "p3",
            ),
        ]
    )
    + "\n"
)


def test_parse_tokens():
    assert parse_tokens("( ( A dog ) ( runs . ) )") == ("A", "dog", "runs", ".")


def test_read_parse_tokens(tmp_path):
    path = tmp_path / "snli_1.0_test.txt"
    path.write_text(SNLI)
    pairs = read_snli_txt(path)
    assert [p.pair_id for p in pairs] == ["p1", "p3"]  # no gold label: skipped
    assert [p.label for p in pairs] == ["neutral", "entailment"]
    assert pairs[0].premise == ("A", "dog", "runs", ".")
    assert pairs[1].premise == ("The", "man", "is", "n't", "asleep")
    assert pairs[1].hypothesis == ("A", "man", "is", "awake")


def test_read_whitespace_tokens(tmp_path):
    path = tmp_path / "snli_1.0_test.txt"
    path.write_text(SNLI)
    pairs = read_snli_txt(path, tokens="whitespace")
    assert pairs[0].premise == ("A", "dog", "runs.")
    assert pairs[1].premise == ("The", "man", "isn't", "asleep")


def test_errors(tmp_path):
    path = tmp_path / "bad.txt"
    path.write_text("gold_label\tsentence1\n")
    with pytest.raises(DataError, match="sentence1_binary_parse"):
        read_snli_txt(path)
    path.write_text(HEADER + "\n" + _row("yes", "( a )", "( b )", "a", "b", "p9") + "\n")
    with pytest.raises(DataError, match="'yes'"):
        read_snli_txt(path)
    with pytest.raises(ValueError, match="tokens"):
        read_snli_txt(path, tokens="spacy")
