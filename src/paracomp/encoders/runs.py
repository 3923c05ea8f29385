"""What the encoders read of a trained run's folder: the one module of this package that
imports :mod:`paracomp.run_folder` (and torch with it)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from paracomp import run_folder


def is_run(path: Path) -> bool:
    """Whether ``path`` is a trained run's folder (it holds the composer file)."""
    return (path / run_folder.COMPOSER).is_file()


def settings(run_dir: Path) -> dict[str, Any]:
    """A run's settings (``TrainConfig.to_dict()``)."""
    config, _ = run_folder.read_composer(run_dir)
    return config.to_dict()
