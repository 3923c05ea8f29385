"""The binary SST in Wieting's preprocessing (mirror sst-binary)."""

from __future__ import annotations

from pathlib import Path

import pytest

from paracomp.data.sentiment import LABELLED_SENTENCES, read_sst_binary
from paracomp.errors import DataError


@pytest.mark.parametrize(
    ("split", "negative", "positive"),
    [("train", 29_780, 37_569), ("dev", 428, 444), ("test", 912, 909)],
)
def test_mirror_splits(mirror_file, split: str, negative: int, positive: int) -> None:
    table = read_sst_binary(mirror_file(f"sst-binary/sentiment-{split}"))
    assert table.schema == LABELLED_SENTENCES
    labels = table["label"].to_pylist()
    assert (labels.count(0), labels.count(1)) == (negative, positive)  # Table 4's sizes
    texts = table["text"].to_pylist()
    assert not any(t != t.strip() for t in texts)


def test_first_lines(mirror_file) -> None:
    train = read_sst_binary(mirror_file("sst-binary/sentiment-train"))
    assert train.slice(0, 2).to_pylist() == [
        {
            "id": "sentiment-train:1",
            "text": "hide new secretions from the parental units",
            "label": 0,
        },
        {"id": "sentiment-train:2", "text": "contains no wit , only labored gags", "label": 0},
    ]


def test_malformed(tmp_path: Path) -> None:
    path = tmp_path / "sentiment-dev"
    path.write_text("good film \t1\nbad film \t2\n", encoding="utf-8")
    with pytest.raises(DataError, match=f"{path}:2"):
        read_sst_binary(path)
