"""One training job of the workflow: a run's settings (the config's, a grid point's or the
selected point's on top), its training data, the run and its JSON record."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pyarrow as pa
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
    init_composer: Path | None = None,
) -> dict[str, Any]:
    """Train ``config`` on the pairs artefact ``pairs`` (resuming from ``out_dir``'s
    checkpoint) and return its record. Pair objectives may be scored on ``tuning``: the
    record's ``tuning_r`` is computed on the exported model (``keep_best``: the curve row of
    the highest, ``kept_epoch``), whatever its curve says; the
    ``targets`` objective starts from the word rows of the embeddings artefact ``init``, a
    pair objective from its vectors if given (:class:`~paracomp.train.pairs.task.PairTask`), with
    the constraint lists ``constraints`` (a parquet file of ``word`` and its ``members``). The
    ``supervised`` objective trains on a SCORED_PAIRS table from the word rows ``init`` and,
    if given, the composer of ``init_composer`` (a run's ``composer.pt``), which its
    regularisation then pulls towards (:func:`_supervised_job`)."""
    if config.objective == "supervised":
        artefacts.require(pairs, artefacts.SCORED_PAIRS)
    table = pq.read_table(pairs)
    inputs = [p for p in (pairs, init, constraints, init_composer) if p is not None]
    checksums = artefacts.input_checksums(inputs)
    if config.objective == "supervised":
        return _supervised_job(config, table, out_dir, checksums, init, init_composer)
    if init_composer is not None:
        raise ConfigError("--init-composer starts objective 'supervised' only")
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
        job["kept_epoch"] = float(history["epoch"].iloc[loop.best_row(history[loop.BEST])])
    if tuning is not None:
        job["tuning_r"] = tuning.score(result.encoder)
    return job


def _supervised_job(
    config: TrainConfig,
    pairs: pa.Table,
    out_dir: Path,
    checksums: dict[str, str],
    init: Path | None,
    init_composer: Path | None,
) -> dict[str, Any]:
    """Train a ``supervised`` run (:mod:`paracomp.train.similarity.task`); its record with the
    selected epoch's dev and test r. The composer is drawn from a generator seeded by
    ``seed``, then given ``init_composer``'s state if there is one (its composer must be
    ``config.composer``)."""
    import torch

    from paracomp import run_folder
    from paracomp.models.registry import make_composer
    from paracomp.train.similarity.task import SimilarityTask

    if init is None:
        raise ConfigError("objective 'supervised' needs the initial word rows (--init)")
    generator = torch.Generator().manual_seed(config.seed)
    shape = config.to_dict()
    if init_composer is not None:
        saved = run_folder.load(init_composer, "trained composer")
        started = TrainConfig.from_dict(saved["config"])
        if started.composer != config.composer:
            raise ConfigError(
                f"{init_composer}: a {started.composer} composer, not {config.composer}"
            )
        shape = started.to_dict()
    composer = make_composer(config.composer, config.dim, generator, shape)
    if init_composer is not None:
        composer.load_state_dict(saved["composer"])
    words, matrix = artefacts.read_embeddings(init)
    if matrix.shape[1] != config.dim:
        raise ConfigError(f"{init}: {matrix.shape[1]}-d word rows, but dim is {config.dim}")
    task = SimilarityTask(config, pairs, list(words), matrix, composer, init_composer is not None)
    curve = loop.run(task, Path(out_dir), progress=False, inputs=checksums)
    return {**loop.record(config, curve, len(task.parts["train"])), **task.report(curve)}
