"""A table's bootstrap replicates: ``<table>.replicates.parquet`` beside its compare file.

One float64 column per computed cell (named ``row|column``, on the cell's scale), one row per
resample (:mod:`paracomp.eval.bootstrap`); the file metadata holds the number of resamples,
the seed and, per cell, the test sets it resamples. Resample ``b`` of every table drew the
same pairs of each test set, so cells of different tables on one set are paired (what
:mod:`paracomp.tables.verdicts` needs for a claim's probability). A cell over seed
replicates (:mod:`paracomp.tables.seeds`) also has its seeds' values in the metadata
(``seeds``) and one seed's test-pair replicates in column ``row|column|test``; a table
without such cells writes neither.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from paracomp.errors import DataError

SUFFIX = ".replicates.parquet"
META_KEY = b"paracomp.replicates"
TEST = "|test"
"""Suffix of a seeded cell's column of one seed's test-pair replicates."""


@dataclass(frozen=True)
class Replicates:
    """Replicates of a table's cells (``row|column`` -> ``(B,)``) and the sets each resamples;
    of the cells over seeds, the seeds' values and one seed's test-pair replicates."""

    values: dict[str, np.ndarray]
    sets: dict[str, list[str]]
    resamples: int
    seed: int
    seeds: dict[str, list[float]] = field(default_factory=dict)
    test: dict[str, np.ndarray] = field(default_factory=dict)


def replicates_path(compare: Path) -> Path:
    """The replicates file beside ``<table>.compare.csv``."""
    return compare.with_name(compare.name.removesuffix(".compare.csv") + SUFFIX)


def write_replicates(path: Path, replicates: Replicates) -> None:
    """Write ``replicates`` atomically."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from paracomp.atomic import atomic_path

    columns = {k: pa.array(v, pa.float64()) for k, v in replicates.values.items()}
    columns |= {f"{k}{TEST}": pa.array(v, pa.float64()) for k, v in replicates.test.items()}
    meta = {"resamples": replicates.resamples, "seed": replicates.seed, "sets": replicates.sets}
    meta |= {"seeds": replicates.seeds} if replicates.seeds else {}
    table = pa.table(columns) if columns else pa.table({"_": pa.array([], pa.float64())})
    table = table.replace_schema_metadata({META_KEY: json.dumps(meta, sort_keys=True).encode()})
    with atomic_path(path) as tmp:
        pq.write_table(table, tmp, compression="zstd")


def read_replicates(path: Path) -> Replicates:
    """A replicates file; a file without its metadata is refused, naming it."""
    import pyarrow.parquet as pq

    try:
        table = pq.read_table(path)
    except (OSError, ValueError) as exc:
        raise DataError(f"{path}: not a replicates file ({exc})") from None
    raw = (table.schema.metadata or {}).get(META_KEY)
    if raw is None:
        raise DataError(f"{path}: no {META_KEY.decode()} metadata")
    meta = json.loads(raw)
    sets = {str(k): list(v) for k, v in meta["sets"].items()}
    values = {k: table.column(k).to_numpy() for k in sets}
    seeds = {str(k): [float(x) for x in v] for k, v in meta.get("seeds", {}).items()}
    test = {k: table.column(k + TEST).to_numpy() for k in seeds if k + TEST in table.column_names}
    return Replicates(values, sets, int(meta["resamples"]), int(meta["seed"]), seeds, test)
