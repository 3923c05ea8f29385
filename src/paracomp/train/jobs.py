"""Training jobs of the workflow: one tuning grid point, model selection, one final run."""

from __future__ import annotations

import itertools
import json
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from paracomp import artefacts
from paracomp.atomic import atomic_path
from paracomp.errors import ConfigError, DataError
from paracomp.eval.encode import SentenceEncoder
from paracomp.eval.metrics import pearson
from paracomp.eval.sts import predict_pairs
from paracomp.train.config import TrainConfig
from paracomp.train.loop import train

log = logging.getLogger(__name__)

_BILINGUAL = {"en": "s1", "es": "s2", "len_en": "len1", "len_es": "len2"}


def segment_pairs(table: pa.Table) -> pa.Table:
    """A training set as SEGMENT_PAIRS (bilingual ``en``/``es`` become ``s1``/``s2``)."""
    table = table.rename_columns([_BILINGUAL.get(c, c) for c in table.column_names])
    missing = [c for c in artefacts.SEGMENT_PAIRS.names if c not in table.column_names]
    if missing:
        raise DataError(f"training pairs lack columns {missing}")
    return table.select(artefacts.SEGMENT_PAIRS.names)


def grid_points(grid: Sequence[Mapping[str, Sequence[Any]]]) -> list[dict[str, Any]]:
    """Every point of a grid given as a union of sub-grids (each a product of value lists),
    e.g. Euclidean margins {1, 10, 100} and cosine margins {0.4, 0.6, 0.8}."""
    points = []
    for sub in grid:
        keys = list(sub)
        points += [dict(zip(keys, values)) for values in itertools.product(*sub.values())]
    return points


@dataclass(frozen=True)
class TuningSet:
    """The sentence pairs whose Pearson r selects hyperparameters (and is logged per epoch)."""

    path: Path
    subset: str
    split: str
    tokenizer: str = "moses"
    lowercase: bool = True

    def score(self, encoder: SentenceEncoder) -> float:
        frame = pq.read_table(self.path).to_pandas()
        frame = frame[(frame["subset"] == self.subset) & (frame["split"] == self.split)]
        if frame.empty:
            raise DataError(
                f"{self.path}: no pairs of subset {self.subset!r}, split {self.split!r}"
            )
        preds = predict_pairs(frame, encoder, self.tokenizer, self.lowercase, "skip")
        return pearson(preds["gold"].to_numpy(), preds["pred"].to_numpy())


def train_job(
    pairs_path: Path,
    params: Mapping[str, Any],
    out_dir: Path,
    tuning: TuningSet,
    *,
    threads: int,
    device: str,
) -> dict[str, Any]:
    """Train one configuration (resuming from its checkpoint) and return its final record."""
    try:
        config = TrainConfig.from_dict({**params, "threads": threads, "device": device})
    except ConfigError as exc:
        raise ConfigError(f"training parameters {dict(params)}: {exc}") from exc
    table = segment_pairs(pq.read_table(pairs_path))
    result = train(
        config,
        table,
        out_dir,
        callback=lambda epoch, encoder: {"tuning_r": tuning.score(encoder)},
        inputs=artefacts.input_checksums([pairs_path]),
    )
    last = result.history.iloc[-1]
    return {
        "params": config.to_dict(),
        "pairs": table.num_rows,
        "epochs": int(last["epoch"]),
        "tuning_r": float(last["tuning_r"]),
        "pairs_per_s": float(result.history["pairs_per_s"].mean()),
    }


def write_json(path: Path, record: Mapping[str, Any]) -> None:
    with atomic_path(path) as tmp:
        tmp.write_text(json.dumps(record, indent=2, sort_keys=True))


def select(records: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The grid point with the highest tuning r (the first of ties, in grid order), with every
    point's record for the tuning report."""
    scores = [r["tuning_r"] if np.isfinite(r["tuning_r"]) else -np.inf for r in records]
    best = int(np.argmax(scores))
    return {"selected": best, "point": records[best]["point"], "records": list(records)}
