"""A set tokenised once (``paracomp tokenise-set``) scores as the raw set does, and a scorer
asking for another tokenisation is refused."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

from paracomp import artefacts
from paracomp.errors import DataError
from paracomp.eval.encode import AveragedEmbeddings
from paracomp.eval.run import score_sets
from paracomp.eval.tokens import TOKENISED, tokenise_set

SENTENCES = [
    ("Don't stop, it's \"fine\".", "It isn't fine!"),
    ("The U.S. costs $5.00 (per day).", "prices: 5 dollars a day"),
    ("", "Nothing at all"),
]


def _set(path) -> None:
    table = pa.table(
        {
            "dataset": ["mine"] * 3,
            "subset": ["a", "a", "a"],
            "split": ["test"] * 3,
            "id": ["1", "2", "3"],
            "s1": [a for a, _ in SENTENCES],
            "s2": [b for _, b in SENTENCES],
            "score": [4.0, 2.5, 0.5],
            "label": [None] * 3,
        }
    )
    prov = artefacts.Provenance("mine", "mirror", {}, {"kind": "hand-made"}, "three pairs")
    artefacts.write(table, path, artefacts.SENTENCE_PAIRS, prov)


def test_tokenised_set_scores_as_the_raw_set(tmp_path):
    raw, tokens = tmp_path / "mine.parquet", tmp_path / "tokens.parquet"
    _set(raw)
    tokenise_set(raw, tokens, "moses", True)
    table = artefacts.read(tokens, artefacts.SENTENCE_PAIRS)
    # Moses splits the clitics, quotes and punctuation off; lowercased; joined by spaces
    assert table["s1"].to_pylist()[0] == "don 't stop , it 's \" fine \" ."
    assert table["s1"].to_pylist()[2] == ""
    prov = artefacts.provenance(tokens)
    assert prov["config"][TOKENISED] == {"tokenizer": "moses", "lowercase": True}
    assert (prov["source"], prov["notes"], prov["config"]["kind"]) == (
        "mirror",
        "three pairs",
        "hand-made",
    )
    words = ["don", "'t", "stop", ",", "it", "'s", "fine", "is", "n't", "!", "the", "day", "."]
    matrix = np.random.default_rng(0).normal(size=(len(words), 4)).astype(np.float32)
    encoder = AveragedEmbeddings(words, matrix, oov="skip")
    ours = score_sets([tokens], encoder, {}, {}, "moses", True, "skip")
    theirs = score_sets([raw], encoder, {}, {}, "moses", True, "skip")
    assert ours[0].equals(theirs[0]) and ours[1].equals(theirs[1])
    assert ours[0]["n"].tolist() == [3]


def test_a_set_tokenised_otherwise_is_refused(tmp_path):
    raw, tokens = tmp_path / "mine.parquet", tmp_path / "tokens.parquet"
    _set(raw)
    tokenise_set(raw, tokens, "moses", True)
    encoder = AveragedEmbeddings(["fine"], np.ones((1, 2), np.float32), oov="skip")
    with pytest.raises(DataError, match=r"tokens.parquet: tokenised with .*'moses'.*lowercase"):
        score_sets([tokens], encoder, {}, {}, "whitespace", True, "skip")
