"""Tuning: the points of a grid, the set whose Pearson r scores them, the selection of the
best point and the report of all of them."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow.parquet as pq

from paracomp.atomic import read_json, write_json
from paracomp.errors import DataError
from paracomp.eval.encode import SentenceEncoder
from paracomp.eval.metrics import pearson
from paracomp.eval.sts import predict_pairs

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class TuningSet:
    """The sentence pairs whose Pearson r selects hyperparameters (and is logged per epoch)."""

    path: Path
    subset: str
    split: str
    tokenizer: str
    lowercase: bool

    def score(self, encoder: SentenceEncoder) -> float:
        frame = pq.read_table(self.path).to_pandas()
        frame = frame[(frame["subset"] == self.subset) & (frame["split"] == self.split)]
        if frame.empty:
            raise DataError(
                f"{self.path}: no pairs of subset {self.subset!r}, split {self.split!r}"
            )
        preds = predict_pairs(frame, encoder, self.tokenizer, self.lowercase, "skip")
        return pearson(preds["gold"].to_numpy(), preds["pred"].to_numpy())


def select(records: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The grid point with the highest tuning r (the first of ties, in grid order), with every
    point's record for the tuning report."""
    scores = [r["tuning_r"] if np.isfinite(r["tuning_r"]) else -np.inf for r in records]
    best = int(np.argmax(scores))
    return {"selected": best, "point": records[best]["point"], "records": list(records)}


def select_file(records: Sequence[Path], out: Path) -> None:
    """:func:`select` over the point records in ``records``, written to ``out``."""
    write_json(out, select([read_record(p, ("point", "tuning_r")) for p in records]))


def read_record(path: str | Path, keys: Sequence[str]) -> dict[str, Any]:
    """The JSON record in ``path``, which must be an object holding ``keys`` (else a
    one-line :class:`DataError` naming the file)."""
    record = read_json(path)
    missing = [k for k in keys if not isinstance(record, dict) or k not in record]
    if missing:
        raise DataError(f"{path}: not a record of this step (no key(s) {missing})")
    return record


def tuning_report(selected: Mapping[str, Path]) -> pd.DataFrame:
    """Every grid point of every run (``run -> selection file``) with its tuning r, and which
    one was selected."""
    rows = []
    for run, path in selected.items():
        result = read_record(path, ("selected", "records"))
        for index, record in enumerate(result["records"]):
            rows.append(
                {
                    "run": run,
                    "point": index,
                    **{f"param.{k}": v for k, v in record["point"].items()},
                    "tuning_r": record["tuning_r"],
                    "pairs": record["pairs"],
                    "epochs": record["epochs"],
                    "selected": index == result["selected"],
                }
            )
    return pd.DataFrame(rows)
