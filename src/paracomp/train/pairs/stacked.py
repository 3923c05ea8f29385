"""The points of a tuning grid trained side by side in one job (``training.stack_grid``).

A stack (:func:`paracomp.train.stacks.split_grid`: points that share data, seed, batch size
and every other setting outside :data:`~paracomp.train.stacks.STACKED`) is one
:class:`StackedPairTask`: one :class:`~paracomp.train.pairs.task.PairTask` per point over one
encoding of the pairs, all stepped on the same batches (the batch order is the seed's, so it
is each point's own). Each point keeps its own model, optimiser and negatives' generator, so

- on CPU the points are stepped one after the other by their own tasks: every point ends with
  the weights, bit for bit, and the losses it has when trained alone;
- where :mod:`paracomp.train.pairs.static` applies (CUDA with ``cuda_graph``, or ``static=True``)
  their word tables are stacked and one batched step trains them all (on CUDA replayed from a
  CUDA graph): the same weights up to rounding, each point's negatives drawn as it would draw
  them alone.

The run loop checkpoints the stack in its own folder (every point's state; a checkpoint of
other points is moved aside) and writes the stack's curve there, with each point's loss and
tuning r in columns ``loss/<point>``, ``tuning_r/<point>``; :func:`train_stack` then writes each
point's folder (``embeddings.parquet``, ``composer.pt``, ``curve.parquet``, ``curve.png``) and
record as a run of that point alone would, except that ``seconds`` and ``pairs_per_s`` are the
stack's (pairs of one point per second).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import torch

from paracomp import artefacts, run_folder
from paracomp.errors import ConfigError
from paracomp.models.vocab import EncodedPairs
from paracomp.run_config import TrainConfig
from paracomp.train import loop
from paracomp.train.curve import BASE_COLUMNS, write_curve
from paracomp.train.pairs.static import StaticStep, supports
from paracomp.train.pairs.task import PairTask, segment_pairs
from paracomp.train.stacks import STACKED, stack_key
from paracomp.train.tuning import TuningSet


class StackedPairTask(loop.Task):
    """The grid points ``configs`` (point index to settings) of one stack on ``pairs``, each
    exported to its folder in ``point_dirs``. ``static`` chooses the batched step (default:
    on CUDA with ``cuda_graph``, where it applies)."""

    def __init__(
        self,
        configs: Mapping[int, TrainConfig],
        pairs: pa.Table,
        point_dirs: Mapping[int, Path],
        static: bool | None = None,
    ):
        first = configs[min(configs)]
        keys = {stack_key(c.to_dict()) for c in configs.values()}
        if len(keys) > 1 or not first.pairs:
            raise ConfigError(
                f"points {sorted(configs)} do not stack: pair objectives only, differing in "
                f"{list(STACKED)} only"
            )
        if first.keep_best or first.evals_per_epoch > 1:
            raise ConfigError(
                f"points {sorted(configs)}: keep_best and evals_per_epoch train point by point "
                "(leave the paper out of training.stack_grid)"
            )
        self.config, self.point_dirs = first, dict(point_dirs)
        self.device = loop.resolve_device(first)
        data = EncodedPairs.build(pairs, first.shared_vocab, first.min_count).to(self.device)
        self.members = {i: PairTask(configs[i], data) for i in sorted(configs)}
        lead = self.members[min(configs)]
        self.data, self.model = lead.data, lead.model
        self.steps_per_epoch, self.total_steps = lead.steps_per_epoch, lead.total_steps
        self.log_every = self.checkpoint_every = lead.log_every
        if static is None:
            static = self.device.type == "cuda" and first.cuda_graph and supports(first)
        self.static = None
        if static:
            graphed = self.device.type == "cuda" and first.cuda_graph
            self.static = StaticStep(list(self.members.values()), graphed)
        self._losses = torch.zeros(len(self.members), device=self.device)
        self._steps = 0

    def batches(self, first: int) -> Iterator[Any]:
        lead = self.members[min(self.members)]
        if self.static is None:
            return lead.batches(first)
        return lead.pair_ids(first)

    def step(self, step: int, batch: Any) -> torch.Tensor:
        """Every point's step on ``batch``; the sum of their losses (each point's is kept for
        its curve)."""
        if self.static is None:
            losses = torch.stack([m.step(step, batch) for m in self.members.values()])
        else:
            losses = self.static(batch[0])
        self._losses += losses
        self._steps += 1
        return losses.sum()

    def batch_pairs(self, batch: Any) -> int:
        return batch[0].numel()

    def metrics(self, position: int, callback: loop.Callback | None) -> dict[str, float]:
        """Each point's mean loss since the last row and the callback's metrics on its
        encoder, as ``<name>/<point>``."""
        totals = self._losses.tolist()
        row: dict[str, float] = {}
        for total, (index, member) in zip(totals, self.members.items(), strict=True):
            row[f"loss/{index}"] = total / self._steps
            if callback is not None:
                for name, value in callback(position, member.encoder()).items():
                    row[f"{name}/{index}"] = float(value)
        self._losses.zero_()
        self._steps = 0
        return row

    def fingerprint(self) -> dict[str, Any]:
        """The data's, and each point's stacked settings (a checkpoint of another grid is not
        resumed)."""
        points = {
            str(i): {k: m.config.to_dict()[k] for k in STACKED} for i, m in self.members.items()
        }
        return {**self.data.fingerprint(), "points": points}

    def state_dict(self) -> dict[str, Any]:
        if self.static is not None:
            self.static.sync_generators()
        return {"members": {str(i): m.state_dict() for i, m in self.members.items()}}

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        for index, member in self.members.items():
            member.load_state_dict(state["members"][str(index)])
        if self.static is not None:
            self.static.adopt()

    def export(self, out_dir: Path, steps: int, inputs: Mapping[str, str]) -> None:
        """Each point's ``composer.pt`` and embeddings, in its own folder."""
        for index, member in self.members.items():
            member.export(self.point_dirs[index], steps, inputs)

    def exported(self, steps: int) -> tuple[list[str], np.ndarray, str]:
        raise TypeError("a stack exports each point to its own folder (see export)")


def point_curve(curve: pd.DataFrame, index: int) -> pd.DataFrame:
    """Point ``index``'s curve from its stack's: the stack's epochs, seconds and pairs/s,
    the point's loss and metrics."""
    suffix = f"/{index}"
    own = {c[: -len(suffix)]: curve[c] for c in curve.columns if c.endswith(suffix)}
    base = {c: own.pop(c) if c == "loss" else curve[c] for c in BASE_COLUMNS}
    return pd.DataFrame({**base, **own})


def train_stack(
    configs: Mapping[int, TrainConfig],
    pairs: Path,
    out_dir: Path,
    point_dirs: Mapping[int, Path],
    *,
    tuning: TuningSet | None = None,
    static: bool | None = None,
) -> dict[int, dict[str, Any]]:
    """Train the stack ``configs`` on the pairs artefact ``pairs`` (resuming from
    ``out_dir``'s checkpoint) and return each point's record, as
    :func:`~paracomp.train.job.train_job` returns a run's; each point's tuning r is computed
    on its trained model."""
    table = segment_pairs(pq.read_table(pairs))
    checksums = artefacts.input_checksums([pairs])
    task = StackedPairTask(configs, table, point_dirs, static)
    callback = None if tuning is None else lambda _, encoder: {"tuning_r": tuning.score(encoder)}
    curve = loop.run(task, Path(out_dir), callback, inputs=checksums)
    records = {}
    for index, member in task.members.items():
        own = point_curve(curve, index)
        folder = Path(point_dirs[index])
        write_curve(own, folder / run_folder.CURVE, folder / run_folder.CURVE_PNG)
        record = {
            **loop.record(member.config, own, table.num_rows),
            "epochs": int(own["epoch"].iloc[-1]),
        }
        if tuning is not None:
            record["tuning_r"] = tuning.score(member.encoder())
        records[index] = record
    return records
