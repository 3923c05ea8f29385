"""Which grid points of a run train together in one stacked job (``training.stack_grid``).

Points stack when they agree on every run setting outside :data:`STACKED`: the same data,
seed (so the same initial draws and batch order), batch size, epochs, composer, dimension,
optimiser and device. A grid of batch sizes {25, 50, 100} thus splits into three stacks. The
stacked task (:mod:`paracomp.train.pairs.stacked`) trains a stack's points side by side on the same
batches; this module decides the split only and imports no torch (the workflow calls it when it
builds the DAG).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

STACKED = (
    "margin",
    "reg",
    "k",
    "lr",
    "attraction",
    "hinge_scale",
    "sampler",
    "pool",
    "score",
    "init_scale",
)
"""Run settings that may differ between the points of one stack."""


def stack_key(settings: Mapping[str, Any]) -> str:
    """What the points of one stack share: the settings outside :data:`STACKED`, as JSON."""
    return json.dumps({k: v for k, v in settings.items() if k not in STACKED}, sort_keys=True)


def split_grid(base: Mapping[str, Any], points: Sequence[Mapping[str, Any]]) -> list[list[int]]:
    """The points (indices into ``points``, each a grid point over ``base``) in stacks, in order
    of each stack's first point; a stack's indices ascend."""
    stacks: dict[str, list[int]] = {}
    for index, point in enumerate(points):
        stacks.setdefault(stack_key({**base, **point}), []).append(index)
    return list(stacks.values())
