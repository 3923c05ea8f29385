"""One training job of the workflow: a run's settings (the config's, a grid point's or the
selected point's on top), its training data, the run and its JSON record."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from paracomp import artefacts
from paracomp.errors import ConfigError
from paracomp.run_config import TrainConfig
from paracomp.train import loop
from paracomp.train.tuning import TuningSet


def job_config(
    base: Mapping[str, Any], point: Mapping[str, Any], *, threads: int, device: str
) -> TrainConfig:
    """The settings ``base`` with the grid ``point`` on top (``base``'s ``epochs`` kept)."""
    params = {**base, **point, "threads": threads, "device": device}
    if "epochs" in base:
        params["epochs"] = base["epochs"]
    try:
        return TrainConfig.from_dict(params)
    except ConfigError as exc:
        raise ConfigError(f"training parameters {params}: {exc}") from exc


def read_constraint_lists(path: Path) -> dict[str, list[str]]:
    """Constraint lists from a parquet file with columns ``word`` and ``members``."""
    table = pq.read_table(path, columns=["word", "members"])
    words, members = table.column("word").to_pylist(), table.column("members").to_pylist()
    return dict(zip(words, members, strict=True))


def train_job(
    config: TrainConfig,
    pairs: Path,
    out_dir: Path,
    *,
    tuning: TuningSet | None = None,
    init: Path | None = None,
    constraints: Path | None = None,
) -> dict[str, Any]:
    """Train ``config`` on the pairs artefact ``pairs`` (resuming from ``out_dir``'s
    checkpoint) and return its record. Pair objectives may be scored on ``tuning``: the
    record's ``tuning_r`` is computed on the exported model (``keep_best``: the curve row of
    the highest, ``kept_epoch``), whatever its curve says; the
    ``targets`` objective starts from the word rows of the embeddings artefact ``init``, a
    pair objective from its vectors if given (:class:`~paracomp.train.pairs.task.PairTask`), with
    the constraint lists ``constraints`` (a parquet file of ``word`` and its ``members``)."""
    if config.objective == "supervised":
        raise ConfigError("objective 'supervised' is trained by a paper's own step, not here")
    table = pq.read_table(pairs)
    inputs = [p for p in (pairs, init, constraints) if p is not None]
    checksums = artefacts.input_checksums(inputs)
    if not config.pairs:
        from paracomp.train.tasks import train_targets

        if init is None:
            raise ConfigError("objective 'targets' needs the initial word rows (--init)")
        vocabulary, matrix = artefacts.read_embeddings(init)
        return train_targets(config, table, vocabulary, matrix, out_dir, checksums)[1]
    from paracomp.train.pairs.task import segment_pairs
    from paracomp.train.tasks import train_pairs

    table = segment_pairs(table)
    callback = None if tuning is None else lambda _, encoder: {loop.BEST: tuning.score(encoder)}
    vectors = None if init is None else artefacts.read_embeddings(init)
    lists = None if constraints is None else read_constraint_lists(constraints)
    result = train_pairs(
        config, table, out_dir, callback=callback, inputs=checksums, init=vectors, constraints=lists
    )
    job = {
        **loop.record(config, result.history, table.num_rows),
        "epochs": int(result.history["epoch"].iloc[-1]),
    }
    if config.keep_best:
        history = result.history
        job["kept_epoch"] = float(
            history["epoch"].iloc[int(history[loop.BEST].to_numpy().argmax())]
        )
    if tuning is not None:
        job["tuning_r"] = tuning.score(result.encoder)
    return job
