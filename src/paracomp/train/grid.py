"""Tuning grids: the points of a grid written as a union of sub-grids. Pure Python: the DAG
build reads it (no numpy, pandas or torch here)."""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from typing import Any


def grid_points(grid: Sequence[Mapping[str, Sequence[Any]]]) -> list[dict[str, Any]]:
    """Every point of a grid given as a union of sub-grids (each a product of value lists),
    e.g. Euclidean margins {1, 10, 100} and cosine margins {0.4, 0.6, 0.8}."""
    points = []
    for sub in grid:
        keys = list(sub)
        points += [dict(zip(keys, values)) for values in itertools.product(*sub.values())]
    return points
