"""Tuning grids: the points of a grid written as a union of sub-grids, and what a paper
registers for grids whose points are scored after training on the full data
(:class:`ScoredGrid`). Pure Python: the DAG build reads it (no numpy, pandas or torch here)."""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from paracomp.errors import ConfigError


def grid_points(grid: Sequence[Mapping[str, Sequence[Any]]]) -> list[dict[str, Any]]:
    """Every point of a grid given as a union of sub-grids (each a product of value lists),
    e.g. Euclidean margins {1, 10, 100} and cosine margins {0.4, 0.6, 0.8}."""
    points = []
    for sub in grid:
        keys = list(sub)
        points += [dict(zip(keys, values)) for values in itertools.product(*sub.values())]
    return points


def grid_plausibility(where: str, points: int, limits: Mapping[str, Any]) -> str | None:
    """A warning for a grid of more than ``limits["warn"]`` points (each a training job), with
    the jobs it plans; beyond ``limits["limit"]`` a :class:`ConfigError` unless
    ``limits["force"]`` (config ``training.grid_points``)."""
    if points > limits["limit"] and not limits["force"]:
        raise ConfigError(
            f"{where}: a grid of {points:,} points plans {points:,} training jobs, more than "
            f"training.grid_points.limit = {limits['limit']:,}; set "
            "training.grid_points.force: true to run them all the same"
        )
    if points > limits["warn"]:
        return (
            f"{where}: a grid of {points:,} points plans {points:,} training jobs (more than "
            f"training.grid_points.warn = {limits['warn']:,})"
        )
    return None


TRAINER_INPUTS = ("init", "constraints", "init_composer")
"""The inputs of a scored grid point that ``paracomp train`` reads (``--init``,
``--constraints``, ``--init-composer``) beside its ``pairs``; any other input is its
scoring's."""


def point_folder(paper: str, run: str, point: int | str) -> str:
    """The folder of a scored grid point (rule ``point``): the trained run, its ``train.json``
    and the scoring's ``record.json``."""
    return f"results/{paper}/points/{run}/{point}"


class ScoredGrid(Protocol):
    """A paper's runs whose grid points each train on the run's full data and are then scored
    by the paper's own command, in one job of the generic rule ``point`` (rules/points.smk),
    which takes the job's threads, device and resources from ``training`` like every
    training rule. The paper picks among the scored points in its own rules (2016 STS,
    Oracle, the development rho, SimLex-999 ...)."""

    def point_runs(self) -> list[str]:
        """The runs, named uniquely within the paper."""
        ...

    def point_grid(self, run: str) -> list[dict[str, Any]]:
        """A run's grid points."""
        ...

    def point_settings(self, run: str) -> dict[str, Any]:
        """A run's settings before its point's (less device and threads: the job's)."""
        ...

    def point_replicates(self, run: str) -> int | list[int] | None:
        """The run's own ``replicates`` (:mod:`paracomp.train.replicates`; None: the paper's
        or ``training``'s apply; 1: one seed, whatever they say)."""
        ...

    def point_inputs(self, run: str, seed: int | None = None) -> dict[str, Any]:
        """A run's inputs by name: ``pairs``, the trainer's own (:data:`TRAINER_INPUTS`) and
        what the scoring reads; ``seed``: a seed replicate's seed (None: the run's own), for a
        run whose replicate starts from another seed's artefacts (most ignore it)."""
        ...

    def point_score(self, run: str, point: int, folder: str) -> str:
        """The ``paracomp`` command line that scores the trained ``folder`` and writes its
        ``record.json`` (the point's job runs it in the trainer's process, after training)."""
        ...


class JoinedGrid:
    """Several scored grids of one paper registered as one (Registration.points), each run
    answered by the grid that has it; two grids with a run of the same name are a
    :class:`ConfigError` naming it."""

    def __init__(self, paper: str, *grids: ScoredGrid):
        self.owner: dict[str, ScoredGrid] = {}
        for grid in grids:
            for run in grid.point_runs():
                if run in self.owner:
                    raise ConfigError(f"papers.{paper}: two scored grids have a run {run!r}")
                self.owner[run] = grid

    def point_runs(self) -> list[str]:
        return list(self.owner)

    def point_grid(self, run: str) -> list[dict[str, Any]]:
        return self.owner[run].point_grid(run)

    def point_settings(self, run: str) -> dict[str, Any]:
        return self.owner[run].point_settings(run)

    def point_replicates(self, run: str) -> int | list[int] | None:
        return self.owner[run].point_replicates(run)

    def point_inputs(self, run: str, seed: int | None = None) -> dict[str, Any]:
        return self.owner[run].point_inputs(run, seed)

    def point_score(self, run: str, point: int, folder: str) -> str:
        return self.owner[run].point_score(run, point, folder)
