"""The one place that picks a run's training step, and the runners that train with it.

A pair run (:mod:`~paracomp.train.pairs.task`) or a target run (:mod:`~paracomp.train.targets.task`)
trains with its eager step, except on CUDA with ``cuda_graph`` where a static-shape step
applies: :class:`~paracomp.train.pairs.static.StaticPairTask` (additive composers),
:class:`~paracomp.train.pairs.static_learned.StaticLearnedTask` (learned composers, autograd) or
:class:`~paracomp.train.targets.static.StaticTargetTask` (CompVec), each replayed from a CUDA
graph. The step modules build on the eager ones and none of them imports this module, so the
imports of ``train/`` run one way.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import torch

from paracomp import run_folder
from paracomp.models.definition import DefinitionModel
from paracomp.models.vocab import HEADS, EncodedPairs
from paracomp.run_config import TrainConfig
from paracomp.train import loop
from paracomp.train.pairs import static, static_learned
from paracomp.train.pairs.task import PairResult, PairTask
from paracomp.train.targets import static as static_targets
from paracomp.train.targets.task import TargetTask


def _graphed(config: TrainConfig) -> bool:
    return config.device == "cuda" and config.cuda_graph and torch.cuda.is_available()


def pair_task(
    config: TrainConfig,
    pairs: pa.Table,
    init: tuple[Sequence[str], np.ndarray] | None = None,
    constraints: Mapping[str, Collection[str]] | None = None,
) -> PairTask:
    """The task of a pair run: on CUDA with ``cuda_graph``, where one applies, a static-shape
    step replayed from a CUDA graph; otherwise the eager step, whose composer may replay from
    CUDA graphs (:func:`~paracomp.train.cuda_graph.graphed_composer`)."""
    if _graphed(config):
        if static.supports(config):
            return static.StaticPairTask(config, pairs, init)
        if static_learned.supports(config) and not _has_trees(pairs):
            task = static_learned.StaticLearnedTask
            return task(config, pairs, init, constraints, graphed=True)
    return PairTask(config, pairs, init, constraints)


def _has_trees(pairs: pa.Table | EncodedPairs) -> bool:
    """Whether the pairs come with parser trees (dependency heads)."""
    if isinstance(pairs, EncodedPairs):
        return pairs.trees is not None
    return any(column in pairs.column_names for column in HEADS)


def train_pairs(
    config: TrainConfig,
    pairs: pa.Table,
    out_dir: Path,
    progress: bool = True,
    callback: Callable[[int, Any], Mapping[str, float]] | None = None,
    inputs: Mapping[str, str] | None = None,
    init: tuple[Sequence[str], np.ndarray] | None = None,
    constraints: Mapping[str, Collection[str]] | None = None,
) -> PairResult:
    """Train on a SEGMENT_PAIRS table in ``out_dir`` (resuming from its checkpoint); ``init``
    and ``constraints`` as :class:`~paracomp.train.pairs.task.PairTask`'s."""
    out_dir = Path(out_dir)
    task = pair_task(config, pairs, init, constraints)
    history = loop.run(task, out_dir, callback, progress, inputs)
    return PairResult(
        task.model, task.data, history, out_dir / run_folder.EMBEDDINGS, task.encoder()
    )


def target_task(
    config: TrainConfig, pairs: pa.Table, vocabulary: list[str], matrix: np.ndarray
) -> TargetTask:
    """The task of a CompVec run: the static step replayed from CUDA graphs on CUDA with
    ``cuda_graph`` where the composer has one, else the eager step."""
    if _graphed(config) and static_targets.supports(config):
        return static_targets.StaticTargetTask(config, pairs, vocabulary, matrix, graphed=True)
    return TargetTask(config, pairs, vocabulary, matrix)


def train_targets(
    config: TrainConfig,
    pairs: pa.Table,
    vocabulary: list[str],
    matrix: np.ndarray,
    out_dir: Path,
    inputs: Mapping[str, str] | None = None,
) -> tuple[DefinitionModel, dict[str, Any]]:
    """Train (or resume) a CompVec run in ``out_dir``; the model and the run's record."""
    task = target_task(config, pairs, vocabulary, matrix)
    curve = loop.run(task, Path(out_dir), progress=False, inputs=inputs)
    return task.model, loop.record(config, curve, len(task.data))
