"""The training loop of every run, whatever it trains.

A run is a :class:`Task`: what is trained (data, model, optimiser) and how one optimiser step
goes. :func:`run` drives a task for ``task.total_steps`` steps and owns what every run shares:

- the compute settings (device check, torch and numba threads, denormals);
- the curve: one row every ``task.log_every`` steps (mean batch loss, seconds, pairs/s and the
  callback's metrics), a non-finite mean loss stopping the run with an error before anything
  of it is saved;
- with ``keep_best``, the weights of the curve row with the highest :data:`BEST` so far (kept
  in memory and in the checkpoint), exported in place of the last;
- checkpoints (settings, data fingerprint, the task's state, the curve), written atomically
  every ``task.checkpoint_every`` steps to ``out_dir/checkpoint.pt``, from which the next call
  with the same ``out_dir`` resumes: on CPU a run killed and rerun ends with the same weights,
  bit for bit, as one never stopped. A checkpoint of other settings (beyond
  :data:`~paracomp.run_config.RESUMABLE_CHANGES`), other data or another device, or one
  past the run's end, is moved aside to ``checkpoint.pt.old`` and the run starts over;
- the export: the task's embeddings artefact and composer (``composer.pt``), the curve as
  ``curve.parquet`` and ``curve.png``.
"""

from __future__ import annotations

import contextlib
import logging
import math
import sys
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import numba
import numpy as np
import pandas as pd
import torch
from tqdm import tqdm

from paracomp import artefacts, run_folder
from paracomp.errors import ConfigError, ParacompError
from paracomp.eval.encode import SentenceEncoder
from paracomp.run_config import RESUMABLE_CHANGES, TrainConfig
from paracomp.timing import phase
from paracomp.train.curve import write_curve

log = logging.getLogger(__name__)


Callback = Callable[[float, SentenceEncoder], Mapping[str, float]]
"""Called at each curve row with its position (epoch or step) and the task's current encoder;
returns metrics (e.g. ``{"tuning_r": 0.47}``) stored in the curve. It must not draw from
torch's global generator, or resumed runs would diverge."""

BEST = "tuning_r"
"""The callback's metric whose highest row ``keep_best`` exports."""


class Task(ABC):
    """What one run trains and how a step goes. Subclasses set ``config``, ``model`` (its
    ``weight`` is the word table), ``device``, ``total_steps``, ``log_every``,
    ``checkpoint_every`` and ``curve_x`` (``"epoch"`` or ``"step"``, what a curve row counts)."""

    config: TrainConfig
    model: torch.nn.Module
    device: torch.device
    total_steps: int
    log_every: int
    checkpoint_every: int
    steps_per_epoch: int
    curve_x: str = "epoch"
    selects_best: bool = False
    """The task scores every curve row itself (:meth:`metrics`, :data:`BEST` included) and
    the loop exports the weights of the row with the highest, as ``keep_best`` does."""
    flush_denormal: bool = False
    """Flush denormals to zero on CPU (recurrent composers' gradients decay into denormals,
    which make their backward pass many times slower)."""

    def logs_at(self, done: int) -> bool:
        """Whether a curve row follows step ``done`` (besides the last step's)."""
        return done % self.log_every == 0

    @abstractmethod
    def batches(self, first: int) -> Iterator[Any]:
        """The batches of steps ``first``, ``first + 1``, …; drawn lazily, so that whatever
        a batch draws happens after the previous step's curve row and checkpoint."""

    @abstractmethod
    def step(self, step: int, batch: Any) -> torch.Tensor:
        """One optimiser step on ``batch``; returns its loss (a detached scalar tensor)."""

    @abstractmethod
    def batch_pairs(self, batch: Any) -> int:
        """The training examples of ``batch`` (for pairs/s)."""

    @abstractmethod
    def fingerprint(self) -> dict[str, Any]:
        """What identifies the training data (a checkpoint is only resumed on the same)."""

    @abstractmethod
    def state_dict(self) -> dict[str, Any]:
        """Model, optimiser and generator states."""

    @abstractmethod
    def load_state_dict(self, state: Mapping[str, Any]) -> None: ...

    @abstractmethod
    def exported(self, steps: int) -> tuple[list[str], np.ndarray, str]:
        """The words and rows of the embeddings artefact after ``steps`` steps, and a note on
        what they are."""

    def export(self, out_dir: Path, steps: int, inputs: Mapping[str, str]) -> None:
        """Write the trained run's folder (:func:`~paracomp.run_folder.write_run`)."""
        words, matrix, notes = self.exported(steps)
        prov = artefacts.Provenance(
            dataset="trained",
            source=type(self).__module__,
            inputs=dict(inputs),
            config=self.config.to_dict(),
            notes=notes,
        )
        composer = self.model.composer.state_dict()
        run_folder.write_run(out_dir, self.config, composer, words, matrix, prov)

    def encoder(self) -> SentenceEncoder | None:
        """The current model as a sentence encoder, for the callback (None: no callback)."""
        return None

    def metrics(self, position: int, callback: Callback | None) -> dict[str, float]:
        """A curve row's columns besides the loss and speed: the callback's metrics on the
        current encoder (a task training several models reports each model's)."""
        encoder = self.encoder() if callback is not None else None
        if encoder is None:
            return {}
        return {k: float(v) for k, v in callback(position, encoder).items()}


def resolve_device(config: TrainConfig) -> torch.device:
    """``config.device``, or the CPU where CUDA is absent and ``allow_cpu_fallback`` is set."""
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
def compute_settings(threads: int, flush_denormal: bool) -> Iterator[None]:
    """``threads`` threads for torch's and numba's parallel loops (numba: at most the cores),
    denormals flushed to zero if asked; restored afterwards."""
    previous = torch.get_num_threads(), numba.get_num_threads()
    torch.set_num_threads(threads)
    numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
    flushed = flush_denormal and torch.set_flush_denormal(True)
    try:
        yield
    finally:
        torch.set_num_threads(previous[0])
        numba.set_num_threads(previous[1])
        if flushed:
            torch.set_flush_denormal(False)


def _load_checkpoint(path: Path) -> dict[str, Any]:
    try:
        return run_folder.load(path, "checkpoint")
    except ConfigError as exc:  # truncated, corrupt or not a checkpoint
        raise ConfigError(f"{exc}; delete it to restart") from exc


def _mismatch(task: Task, state: Mapping[str, Any]) -> str:
    """Why checkpoint ``state`` cannot be resumed by ``task`` ('' if it can). A setting the
    checkpoint does not record (written before the setting existed) counts as its default."""
    saved = {**TrainConfig().to_dict(), **state["config"]}
    saved = {k: v for k, v in saved.items() if k not in RESUMABLE_CHANGES}
    now = {k: v for k, v in task.config.to_dict().items() if k not in RESUMABLE_CHANGES}
    changed = sorted(k for k in set(saved) | set(now) if saved.get(k) != now.get(k))
    if changed:
        return f"settings differ in {changed}"
    if state["data"] != task.fingerprint():
        return "it was trained on other data"
    if state["device"] != task.device.type:
        return f"it was written on {state['device']}, this run is on {task.device.type}"
    if state["step"] > task.total_steps:
        return f"it is after step {state['step']}, past this run's {task.total_steps}"
    return ""


def _resume(task: Task, path: Path) -> tuple[int, list[dict[str, float]], dict[str, Any] | None]:
    """Restore ``task`` from the checkpoint at ``path`` if it fits; the step to continue
    from, the curve so far and the kept best weights."""
    if not path.exists():
        return 0, [], None
    state = _load_checkpoint(path)
    why = _mismatch(task, state)
    if why:
        aside = path.with_name(path.name + ".old")
        path.replace(aside)
        log.warning("%s: %s; moved to %s, training from the start", path, why, aside.name)
        return 0, [], None
    task.load_state_dict(state["task"])
    log.info("resuming %s after step %d", path, state["step"])
    return int(state["step"]), list(state["history"]), state.get("best")


def _checkpoint(
    task: Task, path: Path, step: int, history: list[dict[str, float]], best: dict[str, Any] | None
) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    state = {
        "best": best,
        "step": step,
        "config": task.config.to_dict(),
        "data": task.fingerprint(),
        "device": task.device.type,
        "task": task.state_dict(),
        "history": history,
    }
    run_folder.save(state, path)


def _position(task: Task, done: int) -> float:
    """Step ``done`` as a curve's x: the step, or the epoch (a fraction within one)."""
    if task.curve_x != "epoch":
        return done
    whole, part = divmod(done, task.steps_per_epoch)
    return whole if not part else round(done / task.steps_per_epoch, 4)


def _better(best: dict[str, Any] | None, row: Mapping[str, float]) -> bool:
    return BEST in row and (best is None or row[BEST] > best["score"])


def best_row(scores: np.ndarray) -> int:
    """The curve row whose weights ``keep_best`` exports: the first with the highest of
    ``scores`` (a row's :data:`BEST`) as :func:`run` keeps them; -1 for no rows."""
    best: dict[str, Any] | None = None
    chosen = -1
    for index, score in enumerate(scores):
        if _better(best, {BEST: score}):
            best, chosen = {"score": score}, index
    return chosen


def _kept(task: Task, done: int, row: Mapping[str, float]) -> dict[str, Any]:
    """The task's current weights, copied, with the row's score and step."""
    model = {k: v.detach().clone() for k, v in task.model.state_dict().items()}
    return {"score": row[BEST], "step": done, "model": model}


def _diverged(task: Task, done: int, loss: float, path: Path) -> ParacompError:
    kept = f"the last checkpoint ({path}) is kept" if path.exists() else "nothing was saved"
    return ParacompError(
        f"training diverged in {task.curve_x} {_position(task, done)} (mean loss {loss}); "
        f"{kept}; lower lr"
    )


def run(
    task: Task,
    out_dir: Path,
    callback: Callback | None = None,
    progress: bool = True,
    inputs: Mapping[str, str] | None = None,
) -> pd.DataFrame:
    """Train ``task`` (resuming from ``out_dir/checkpoint.pt`` if it fits), export it to
    ``out_dir`` and return its curve. ``inputs`` (path to sha256) goes into the provenance of
    the embeddings artefact."""
    out_dir = Path(out_dir)
    path = out_dir / run_folder.CHECKPOINT
    keeps = task.config.keep_best or task.selects_best
    if task.config.keep_best and callback is None and not task.selects_best:
        raise ConfigError(f"keep_best needs a tuning set scoring {BEST} ({out_dir})")
    with compute_settings(task.config.threads, task.flush_denormal):
        done, history, best = _resume(task, path)
        total = torch.zeros((), device=task.device)
        steps = pairs = 0
        start = time.perf_counter()
        with (
            phase("steps"),
            tqdm(
                total=task.total_steps,
                initial=done,
                unit="step",
                file=sys.stderr,
                disable=not progress,
                mininterval=1.0 if sys.stderr.isatty() else 30.0,  # a log file gets few lines
            ) as bar,
        ):
            for step, batch in zip(range(done, task.total_steps), task.batches(done)):
                total += task.step(step, batch)
                steps, pairs, done = steps + 1, pairs + task.batch_pairs(batch), step + 1
                bar.update()
                last = done == task.total_steps
                if task.logs_at(done) or last:
                    loss = total.item() / steps  # .item() also waits for CUDA to finish
                    seconds = time.perf_counter() - start
                    if not math.isfinite(loss):
                        raise _diverged(task, done, loss, path)
                    row = {
                        task.curve_x: _position(task, done),
                        "loss": loss,
                        "seconds": seconds,
                        "pairs_per_s": pairs / seconds,
                    }
                    with phase("evaluate"):
                        row.update(task.metrics(row[task.curve_x], callback))
                    log.info(", ".join(f"{k} {v:.4g}" for k, v in row.items()))
                    history.append(row)
                    if keeps and _better(best, row):
                        best = _kept(task, done, row)
                    total.zero_()
                    steps = pairs = 0
                    start = time.perf_counter()
                if done % task.checkpoint_every == 0 or last:
                    if steps and not math.isfinite(total.item()):
                        raise _diverged(task, done, total.item() / steps, path)
                    _checkpoint(task, path, done, history, best)
    if best is not None:
        task.model.load_state_dict(best["model"])
        log.info("exporting the weights after step %d (%s %.4g)", best["step"], BEST, best["score"])
        done = best["step"]
    task.export(out_dir, done, dict(inputs or {}))
    curve = pd.DataFrame(history, columns=_columns(task, history))
    write_curve(curve, out_dir / run_folder.CURVE, out_dir / run_folder.CURVE_PNG, x=task.curve_x)
    return curve


def _columns(task: Task, history: list[dict[str, float]]) -> list[str]:
    base = [task.curve_x, "loss", "seconds", "pairs_per_s"]
    return base + [k for k in (history[0] if history else {}) if k not in base]


def record(config: TrainConfig, curve: pd.DataFrame, pairs: int) -> dict[str, Any]:
    """A finished run's summary: its settings, training examples, last curve row, time."""
    last = curve.iloc[-1] if len(curve) else None
    return {
        "params": config.to_dict(),
        "pairs": pairs,
        "final_loss": None if last is None else float(last["loss"]),
        "seconds": float(curve["seconds"].sum()) if len(curve) else 0.0,
        "pairs_per_s": float(curve["pairs_per_s"].mean()) if len(curve) else None,
    }
