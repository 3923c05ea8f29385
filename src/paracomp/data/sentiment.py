"""The binary Stanford Sentiment Treebank in Wieting's preprocessing (mirror ``sst-binary``:
``sentiment-{train,dev,test}``, one ``tokenised lowercased text<TAB>label`` per line, label 0
negative or 1 positive; train holds every non-neutral phrase of the training trees, 67,349,
dev and test the 872 and 1,821 sentences, the sizes of Wieting et al. 2015 Table 4)."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa

from paracomp.data.parsers import read_lines
from paracomp.errors import DataError

LABELLED_SENTENCES = pa.schema(
    [
        pa.field("id", pa.string()),
        pa.field("text", pa.string()),
        pa.field("label", pa.int8()),
    ]
)
"""A text and its class; ``id`` is ``"<file name>:<line number>"``."""

SPLITS = ("train", "dev", "test")


def read_sst_binary(path: Path) -> pa.Table:
    """One ``sentiment-<split>`` file as LABELLED_SENTENCES; the text keeps its spacing except
    for the space the files leave before the tab."""
    path = Path(path)
    ids, texts, labels = [], [], []
    for number, line in enumerate(read_lines(path), 1):
        text, sep, label = line.rpartition("\t")
        if not sep or label not in ("0", "1") or not text.strip():
            raise DataError(f"{path}:{number}: expected 'text<TAB>0|1', got {line!r}")
        ids.append(f"{path.name}:{number}")
        texts.append(text.rstrip(" "))
        labels.append(int(label))
    return pa.table(
        [pa.array(ids), pa.array(texts), pa.array(labels, pa.int8())], schema=LABELLED_SENTENCES
    )
