"""The run behind each cell pair of Scheepers et al.'s Table 1: which settings a composition
row trains with in the Original and the CompVec column, and where it is. Imports no torch (the
workflow calls it when it builds the DAG)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from paracomp.errors import ConfigError
from paracomp.models import LEARNED_COMPOSERS
from paracomp.run_config import TrainConfig

VARIANTS = ("original", "compvec")
POINT = 0
"""Each run is the one point of its grid (rule ``point``): its folder ends in ``/0``."""


def run_folder(root: Path, composition: str, variant: str) -> Path:
    """The folder of the ``composition`` row's ``variant`` run of an embeddings group whose
    runs are under ``root`` (``results/scheepers2018/points/<split>/<embeddings>``)."""
    return root / composition / variant / str(POINT)


def run_config(
    row: str,
    composer: str,
    variant: str,
    settings: Mapping[str, Any],
    margins: Mapping[str, float],
) -> TrainConfig:
    """The config of the run behind Table 1's ``row`` composition (e.g. ``average``, composed
    by ``composer`` ``mean``) in column ``variant`` (``original`` or ``compvec``).

    ``settings`` holds the shared keys (``steps``, ``freeze_steps`` of the learned CompVec
    runs, ``batch_size``, …); ``margins`` the margin by row, with a ``default``. Original runs
    do not train the word matrix: the algebraic functions' take no step (the initial matrix),
    the learned ones' train the composer with the words frozen throughout; CompVec runs tune
    the words from the first step (algebraic) or after ``freeze_steps`` (learned).
    """
    if variant not in VARIANTS:
        raise ConfigError(f"compvec: variant {variant!r}; expected original or compvec")
    values = dict(settings)
    steps, freeze = int(values.pop("steps")), int(values.pop("freeze_steps"))
    learned = composer in LEARNED_COMPOSERS
    if variant == "original":
        freeze = steps
        if not learned:
            steps = 0
    elif not learned:
        freeze = 0
    margin = float(margins.get(row, margins["default"]))
    return TrainConfig.from_dict(
        {
            **values,
            "objective": "targets",
            "optimizer": "adam",
            "composer": composer,
            "margin": margin,
            "steps": steps,
            "freeze_steps": freeze,
        }
    )
