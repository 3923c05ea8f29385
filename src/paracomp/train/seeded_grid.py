"""Seed replicates of a paper's scored grid points (:class:`SeededGrid`).

With ``replicates`` set for a scored run (the run's own, ``ScoredGrid.point_replicates``, else
the paper block's, else ``training``'s, the first one set; the semantics of
:mod:`paracomp.train.replicates`), every point of its grid is trained and scored once per seed
by the same rule ``point``: the replicate ``<run>_seed<s>`` is one more run of the grid, with
``seed: s`` over the run's settings, in ``results/<paper>/points/<run>_seed<s>/<point>/``.
The whole grid, not the selected point alone: which point a paper's selection picks is known
only once the grid is scored, so a selected-point replicate would need a checkpoint (its jobs
invisible to a dry run); and a seed's own selection makes a cell over seeds cover the
selection's noise too. Pure Python: the DAG build reads it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from paracomp.errors import ConfigError
from paracomp.train.grid import ScoredGrid, point_folder
from paracomp.train.replicates import replicate_name, seeds, setting_of

SeedFolders = Callable[[str], dict[int, list[str]]]
"""A scored run -> its point folders per seed (every seed; empty: one seed): what a paper's
tables read (:meth:`SeededGrid.seed_folders`, through the workflow's runs)."""


def one_seed(run: str) -> dict[int, list[str]]:
    """:data:`SeedFolders` where no run has replicates."""
    return {}


@dataclass(frozen=True)
class SeededGrid:
    """A paper's :class:`ScoredGrid` with every replicate run added (run -> seed -> its
    replicate run in ``groups``, for the runs with more than one seed): what rule ``point``
    trains."""

    paper: str
    grid: ScoredGrid
    groups: Mapping[str, Mapping[int, str]]

    @classmethod
    def of(
        cls, paper: str, grid: ScoredGrid, block: Mapping[str, Any], training: Mapping[str, Any],
        default_seed: int,
    ) -> SeededGrid:  # fmt: skip
        """``paper``'s ``grid`` with the replicates its runs, its config ``block`` and config
        ``training`` ask for (``default_seed``: a run's seed where its settings set none); a
        replicate named as a run of the grid is an error naming both."""
        runs = grid.point_runs()
        groups: dict[str, dict[int, str]] = {}
        for run in runs:
            own = int(grid.point_settings(run).get("seed", default_seed))
            setting = grid.point_replicates(run)
            chosen = seeds(setting_of(block, training) if setting is None else setting, own)
            if len(chosen) < 2:
                continue
            names = {s: replicate_name(run, s, own) for s in chosen}
            clash = next((n for n in names.values() if n != run and n in runs), None)
            if clash is not None:
                raise ConfigError(
                    f"papers.{paper}: replicate {clash!r} of scored run {run!r} is also a run"
                )
            groups[run] = names
        return cls(paper, grid, groups)

    def _base(self, run: str) -> tuple[str, int | None]:
        """The grid's run of a point run and the replicate's seed (None: the run itself)."""
        for base, names in self.groups.items():
            for seed, name in names.items():
                if name == run and name != base:
                    return base, seed
        return run, None

    def point_runs(self) -> list[str]:
        """The grid's runs, then every replicate run."""
        runs = self.grid.point_runs()
        return runs + [n for r in runs for n in self.groups.get(r, {}).values() if n != r]

    def point_grid(self, run: str) -> list[dict[str, Any]]:
        return self.grid.point_grid(self._base(run)[0])

    def point_settings(self, run: str) -> dict[str, Any]:
        base, seed = self._base(run)
        settings = self.grid.point_settings(base)
        return settings if seed is None else {**settings, "seed": seed}

    def point_inputs(self, run: str) -> dict[str, Any]:
        return self.grid.point_inputs(*self._base(run))

    def point_score(self, run: str, point: int, folder: str) -> str:
        return self.grid.point_score(self._base(run)[0], point, folder)

    def seed_folders(self, run: str) -> dict[int, list[str]]:
        """Seed -> the point folders of ``run``'s replicate with that seed (every seed, its
        own too); empty for a run of one seed."""
        points = range(len(self.grid.point_grid(run)))
        return {
            seed: [point_folder(self.paper, name, p) for p in points]
            for seed, name in self.groups.get(run, {}).items()
        }
