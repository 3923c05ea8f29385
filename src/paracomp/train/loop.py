"""The training loop: epochs of shuffled batches, checkpoints to resume from, curves, export.

``train`` checkpoints atomically after every epoch (weights, optimiser, sampler and generator
states, loss history) to ``out_dir/checkpoint.pt`` and, when that file exists, resumes from
it: on CPU a run killed and rerun ends with the same weights, bit for bit, as one never
stopped. It writes ``curve.parquet``/``curve.png`` and the side-1 (English) word vectors as
the embeddings artefact ``embeddings.parquet``.
"""

from __future__ import annotations

import contextlib
import logging
import math
import sys
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numba
import pandas as pd
import pyarrow as pa
import torch
from tqdm import tqdm

from paracomp import artefacts
from paracomp.atomic import atomic_path
from paracomp.errors import ConfigError, ParacompError
from paracomp.eval.encode import AveragedEmbeddings
from paracomp.train.config import (
    RESUMABLE_CHANGES,
    TrainConfig,
    build_model,
    build_objective,
    build_sampler,
    seeds,
)
from paracomp.train.curve import write_curve
from paracomp.train.model import PairModel
from paracomp.train.negatives import NegativeSampler
from paracomp.train.objectives import Objective, PairBatch
from paracomp.train.optim import Optimizers, make_optimizer
from paracomp.train.vocab import UNK, EncodedPairs

log = logging.getLogger(__name__)

EpochCallback = Callable[[int, AveragedEmbeddings], Mapping[str, float]]
"""Called after each epoch with the epoch number (from 1) and the current side-1 encoder;
returns tuning metrics (e.g. ``{"sts12_smteur": 0.47}``) stored with the loss curve. It must
not draw from torch's global generator, or resumed runs would diverge."""

CHECKPOINT = "checkpoint.pt"
EMBEDDINGS = "embeddings.parquet"
CURVE = "curve.parquet"
CURVE_PNG = "curve.png"


@dataclass(frozen=True)
class TrainResult:
    model: PairModel
    data: EncodedPairs
    history: pd.DataFrame
    embeddings: Path
    encoder: AveragedEmbeddings


def side1_encoder(model: PairModel, data: EncodedPairs, oov: str = "skip") -> AveragedEmbeddings:
    """Averaged side-1 word vectors (a ``SentenceEncoder``), without the UNK row, so the
    evaluator's OOV policy decides about unknown words."""
    matrix = model.weight.detach()[1 : len(data.vocab1)].float().cpu().numpy().copy()
    return AveragedEmbeddings(data.vocab1.words[1:], matrix, oov)


def resolve_device(config: TrainConfig) -> torch.device:
    if config.device == "cuda" and not torch.cuda.is_available():
        reason = (
            f"device 'cuda' requested but torch.cuda.is_available() is False "
            f"(torch {torch.__version__}, CUDA build {torch.version.cuda or 'none'})"
        )
        if not config.allow_cpu_fallback:
            raise ConfigError(f"train config: {reason}; set allow_cpu_fallback to train on CPU")
        log.warning("%s: training on CPU", reason)
        return torch.device("cpu")
    return torch.device(config.device)


@contextlib.contextmanager
def _threads(n: int) -> Iterator[None]:
    """``n`` threads for torch's and numba's parallel loops (numba: at most the cores)."""
    previous = torch.get_num_threads(), numba.get_num_threads()
    torch.set_num_threads(n)
    numba.set_num_threads(min(n, numba.config.NUMBA_NUM_THREADS))
    try:
        yield
    finally:
        torch.set_num_threads(previous[0])
        numba.set_num_threads(previous[1])


@dataclass
class _Run:
    """Everything a checkpoint restores."""

    config: TrainConfig
    data: EncodedPairs
    model: PairModel
    objective: Objective
    sampler: NegativeSampler
    optimizer: Optimizers
    order: torch.Generator
    history: list[dict[str, float]]
    epoch: int = 0

    @classmethod
    def start(cls, config: TrainConfig, data: EncodedPairs, device: torch.device) -> _Run:
        _, order, negatives = seeds(config)
        model = build_model(config, data.n_rows).to(device)
        sampler_gen = torch.Generator(device=device).manual_seed(negatives)
        return cls(
            config=config,
            data=data,
            model=model,
            objective=build_objective(config),
            sampler=build_sampler(config, sampler_gen),
            optimizer=make_optimizer(model, config.optimizer, config.lr),
            order=torch.Generator().manual_seed(order),
            history=[],
        )

    def state_dict(self) -> dict[str, Any]:
        return {
            "epoch": self.epoch,
            "config": self.config.to_dict(),
            "data": self.data.fingerprint(),
            "device": self.model.weight.device.type,
            "model": self.model.state_dict(),
            "optimizer": self.optimizer.state_dict(),
            "sampler": self.sampler.state_dict(),
            "order": self.order.get_state(),
            "torch_rng": torch.get_rng_state(),
            "history": self.history,
        }

    def load_state_dict(self, state: Mapping[str, Any], path: Path) -> None:
        saved = {k: v for k, v in state["config"].items() if k not in RESUMABLE_CHANGES}
        now = {k: v for k, v in self.config.to_dict().items() if k not in RESUMABLE_CHANGES}
        changed = sorted(k for k in now if saved.get(k) != now[k])
        if changed:
            raise ConfigError(
                f"{path}: checkpoint of another config (differs in {changed}); delete it to restart"
            )
        device = self.model.weight.device.type
        if state["device"] != device:
            raise ConfigError(
                f"{path}: checkpoint written on {state['device']}, cannot resume on {device}"
            )
        if state["data"] != self.data.fingerprint():
            raise ConfigError(f"{path}: checkpoint of other training pairs; delete it to restart")
        self.model.load_state_dict(state["model"])
        self.optimizer.load_state_dict(state["optimizer"])
        self.sampler.load_state_dict(state["sampler"])
        self.order.set_state(state["order"])
        torch.set_rng_state(state["torch_rng"])
        if state["epoch"] > self.config.epochs:
            raise ConfigError(
                f"{path}: checkpoint is after epoch {state['epoch']}, past epochs="
                f"{self.config.epochs}; delete it to restart"
            )
        self.history = list(state["history"])
        self.epoch = int(state["epoch"])

    def _precision(self, device: torch.device) -> contextlib.AbstractContextManager[object]:
        if self.config.mixed_precision:
            return torch.autocast(device.type, torch.bfloat16)
        return contextlib.nullcontext()

    def _step(self, batch: PairBatch) -> torch.Tensor:
        """One optimiser step on ``batch``; returns its loss, detached. The gradient comes
        without autograd where the objective can work it out (additive composers on CPU)."""
        with self._precision(self.model.weight.device):
            by_hand = self.objective.loss_and_gradient(self.model, batch, self.sampler)
            if by_hand is None:
                loss = self.objective.loss(self.model, batch, self.sampler)
        if by_hand is not None:
            loss, rows = by_hand
            self.optimizer.step_rows(self.model.weight, rows)
            return loss
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss.detach()

    def run_epoch(self, bar: tqdm) -> tuple[float, float]:
        """One pass over the shuffled pairs; returns (mean batch loss, seconds)."""
        device = self.model.weight.device
        order = torch.randperm(self.data.n_pairs, generator=self.order).to(device)
        total = torch.zeros((), device=device)
        n_batches = -(-self.data.n_pairs // self.config.batch_size)
        start = time.perf_counter()
        for pairs, ids, starts in self.data.batches(order, self.config.batch_size):
            total += self._step(PairBatch(pairs, ids, starts, self.data))
            bar.update(pairs.numel())
        mean = total.item() / n_batches  # .item() also waits for CUDA to finish
        return mean, time.perf_counter() - start


def train(
    config: TrainConfig,
    pairs: pa.Table,
    out_dir: Path,
    progress: bool = True,
    callback: EpochCallback | None = None,
    inputs: Mapping[str, str] | None = None,
) -> TrainResult:
    """Train on a SEGMENT_PAIRS table, resuming from ``out_dir/checkpoint.pt`` if present.

    ``inputs`` (path to sha256) goes into the provenance of the embeddings artefact.
    """
    out_dir = Path(out_dir)
    device = resolve_device(config)
    with _threads(config.threads):
        data = EncodedPairs.build(pairs, config.shared_vocab, config.min_count).to(device)
        run = _Run.start(config, data, device)
        checkpoint = out_dir / CHECKPOINT
        if checkpoint.exists():
            run.load_state_dict(
                torch.load(checkpoint, map_location="cpu", weights_only=True), checkpoint
            )
            log.info("resuming %s after epoch %d", checkpoint, run.epoch)
        for epoch in range(run.epoch + 1, config.epochs + 1):
            with tqdm(
                total=data.n_pairs,
                desc=f"epoch {epoch}/{config.epochs}",
                unit="pair",
                unit_scale=True,
                file=sys.stderr,
                disable=not progress,
                leave=False,
                mininterval=1.0 if sys.stderr.isatty() else 30.0,  # a log file gets few lines
            ) as bar:
                loss, seconds = run.run_epoch(bar)
            if not math.isfinite(loss):
                raise ParacompError(
                    f"training diverged in epoch {epoch} (mean loss {loss}); lower lr"
                )
            row = {
                "epoch": epoch,
                "loss": loss,
                "seconds": seconds,
                "pairs_per_s": data.n_pairs / seconds,
            }
            if callback is not None:
                row.update(
                    {
                        k: float(v)
                        for k, v in callback(epoch, side1_encoder(run.model, data)).items()
                    }
                )
            log.info(
                "epoch %d/%d: %s",
                epoch,
                config.epochs,
                ", ".join(f"{k} {v:.4g}" for k, v in row.items() if k != "epoch"),
            )
            run.history.append(row)
            run.epoch = epoch
            out_dir.mkdir(parents=True, exist_ok=True)
            with atomic_path(checkpoint) as tmp:
                torch.save(run.state_dict(), tmp)

    history = pd.DataFrame(run.history)
    write_curve(history, out_dir / CURVE, out_dir / CURVE_PNG)
    encoder = side1_encoder(run.model, data)
    prov = artefacts.Provenance(
        dataset="trained",
        source="paracomp.train",
        inputs=dict(inputs or {}),
        config=config.to_dict(),
        notes=f"side-1 word vectors after {run.epoch} epochs; the {UNK} row is not exported",
    )
    artefacts.write_embeddings(list(encoder.index), encoder.matrix, out_dir / EMBEDDINGS, prov)
    return TrainResult(run.model, data, history, out_dir / EMBEDDINGS, encoder)
