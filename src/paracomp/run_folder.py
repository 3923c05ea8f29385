"""A trained run's folder: the one place that writes it (training) and reads it (evaluation,
tables, runs that start from another run), below both the trainer and the evaluation.

- ``composer.pt``: the run's settings and its composer's state (``torch.save``, read with
  ``weights_only``);
- ``embeddings.parquet``: its word rows, an embeddings artefact with provenance;
- ``curve.parquet`` and ``curve.png``: its training curve (:mod:`paracomp.train.curve`);
- ``checkpoint.pt``: the state it resumes from (:mod:`paracomp.train.loop`).

Every file is written atomically; a file torch cannot read is named with torch's reason in
one line.
"""

from __future__ import annotations

import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np
import torch

from paracomp import artefacts
from paracomp.atomic import atomic_path
from paracomp.errors import ConfigError
from paracomp.models.definition import DefinitionModel
from paracomp.models.registry import COMPOSERS
from paracomp.run_config import TrainConfig

CHECKPOINT = "checkpoint.pt"
COMPOSER = "composer.pt"
EMBEDDINGS = "embeddings.parquet"
CURVE = "curve.parquet"
CURVE_PNG = "curve.png"


class _Writes:
    """A file's ``write`` for ``torch.save``, keeping the ``OSError`` it raises: torch's zip
    writer turns it into ``RuntimeError: [enforce fail at inline_container.cc] unexpected
    pos``, which names neither the file nor the cause."""

    def __init__(self, handle: BinaryIO) -> None:
        self.handle, self.error = handle, None

    def write(self, data: bytes) -> int:
        try:
            return self.handle.write(data)
        except OSError as exc:
            self.error = exc
            raise

    def flush(self) -> None:
        self.handle.flush()


def save(state: Mapping[str, Any], path: Path) -> None:
    """``torch.save`` of ``state`` to ``path``, atomically (a temporary file beside it, renamed
    into place: the old file stays whole if the write fails). A full disk is a one-line
    :class:`~paracomp.errors.WriteError` naming ``path``, not torch's ``enforce fail``."""
    with atomic_path(path) as tmp, open(tmp, "wb") as handle:
        writes = _Writes(handle)
        try:
            torch.save(state, writes)
        except RuntimeError:
            if writes.error is None:
                raise
            raise writes.error from None


def load(path: Path, what: str, device: str = "cpu") -> dict[str, Any]:
    """``torch.load`` of ``path`` (``weights_only``); a file torch cannot read (truncated,
    corrupt, not ``what``) is a :class:`~paracomp.errors.ConfigError` naming it."""
    try:
        return torch.load(path, map_location=device, weights_only=True)
    except FileNotFoundError:
        raise
    except Exception as exc:
        raise ConfigError(f"{path}: unreadable {what} ({load_failure(exc)})") from exc


def load_failure(exc: Exception) -> str:
    """``torch.load``'s reason in a line, without its advice to load with ``weights_only``
    off (never for a file this project did not write whole)."""
    text = str(exc)
    _, marker, rest = text.partition("WeightsUnpickler error:")
    lines = [line.strip() for line in (rest if marker else text).splitlines() if line.strip()]
    return f"{type(exc).__name__}: {lines[0] if lines else 'no reason given'}"


def write_run(
    out_dir: Path,
    config: TrainConfig,
    composer: Mapping[str, torch.Tensor],
    words: Sequence[str],
    matrix: np.ndarray,
    provenance: artefacts.Provenance,
) -> None:
    """A trained run's ``composer.pt`` (``config`` and the ``composer`` state) and its word
    rows."""
    out_dir.mkdir(parents=True, exist_ok=True)
    save({"config": config.to_dict(), "composer": composer}, out_dir / COMPOSER)
    artefacts.write_embeddings(list(words), matrix, out_dir / EMBEDDINGS, provenance)


def copy_run(run_dir: Path, out_dir: Path) -> None:
    """A trained run's ``composer.pt`` and word rows copied to ``out_dir``, each atomically (a
    selected grid point as a run of its own)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    for name in (COMPOSER, EMBEDDINGS):
        with atomic_path(out_dir / name) as tmp:
            shutil.copyfile(Path(run_dir) / name, tmp)


def read_composer(run_dir: Path, device: str = "cpu") -> tuple[TrainConfig, dict[str, Any]]:
    """A trained run's settings and its composer's state."""
    saved = load(Path(run_dir) / COMPOSER, "trained composer", device)
    return TrainConfig.from_dict(saved["config"]), saved["composer"]


def read_rows(run_dir: Path) -> tuple[list[str], np.ndarray]:
    """A trained run's words and word rows."""
    return artefacts.read_embeddings(Path(run_dir) / EMBEDDINGS)


def read_definition_model(run_dir: Path, device: str = "cpu") -> tuple[DefinitionModel, list[str]]:
    """A run of segments towards target words (CompVec): its model (eval mode) and
    vocabulary. The composer is built under a forked RNG, so loading draws nothing from the
    caller's random stream."""
    config, composer = read_composer(Path(run_dir), device)
    vocabulary, matrix = read_rows(Path(run_dir))
    with torch.random.fork_rng(devices=[]):
        built = COMPOSERS[config.composer](matrix.shape[1])
    model = DefinitionModel(built, torch.tensor(np.asarray(matrix, dtype=np.float32)))
    model = model.to(device)
    model.composer.load_state_dict(composer)
    model.eval()
    return model, vocabulary
