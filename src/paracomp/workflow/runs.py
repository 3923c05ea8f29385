"""The papers' generic runs (config ``papers.<paper>.runs``): their settings, tuning grids and
stacks, their final training (``rules/train.smk``), and every paper's grid points, which one
rule family trains (``rules/points.smk``): a tuned run's points, trained on the tuning data and
scored on the tuning set by the trainer itself, and the scored runs' points a paper
registers, trained on the run's full data and scored by the paper's command."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from paracomp.arguments import THEN
from paracomp.errors import ConfigError, named
from paracomp.registration import Registrations
from paracomp.run_config import validate as check_run_settings
from paracomp.train.grid import grid_plausibility, grid_points, point_folder
from paracomp.train.replicates import own_seed
from paracomp.train.seeded_grid import SeededGrid, SeedFolders
from paracomp.train.stacks import split_grid

NOT_SETTINGS = ("data", "tune_as", "grid")
"""A run's keys that name its inputs, not its training settings."""


@dataclass(frozen=True)
class Runs:
    """The papers' config blocks, config ``training`` (its ``defaults`` coerced) and the
    papers' registrations (read when a rule asks, after every paper has registered)."""

    blocks: Mapping[str, Mapping[str, Any]]
    training: Mapping[str, Any]
    registrations: Registrations
    _seeded: dict[str, SeededGrid] = field(default_factory=dict, init=False, repr=False)

    def runs_of(self, paper: str) -> dict[str, dict[str, Any]]:
        return self.blocks[paper].get("runs", {})

    def grid_of(self, paper: str, run: str) -> list[dict[str, Any]]:
        """The tuning grid of a run: its paper's grid named by the run's ``grid``, else by its
        objective."""
        spec = self.runs_of(paper)[run]
        key = "grid" if "grid" in spec else "objective"
        where, what = f"papers.{paper}.runs.{run}.{key}", f"grid of papers.{paper}.grids"
        return grid_points(named(self.blocks[paper]["grids"], spec[key], where, what))

    def run_params(self, paper: str, run: str, epochs: int) -> dict[str, Any]:
        """A run's settings: training.defaults, then the run's own, then ``epochs``."""
        spec = {k: v for k, v in self.runs_of(paper)[run].items() if k not in NOT_SETTINGS}
        return {
            **self.training["defaults"],
            **spec,
            "epochs": epochs,
            "allow_cpu_fallback": self.training["allow_cpu_fallback"],
        }

    def check(self, paper: str) -> list[str]:
        """Every run of ``paper`` and every point of its grid is a valid run (else an error
        naming the run and the point); the warnings about grids larger than
        ``training.grid_points`` allows."""
        warnings = []
        for run, spec in self.runs_of(paper).items():
            where, tuned = f"papers.{paper}.runs.{run}", spec.get("tune_as", run)
            if tuned not in self.runs_of(paper):
                raise ValueError(f"{where}: tune_as {tuned!r} is not a run of {paper}")
            base = self.run_params(paper, run, self.blocks[paper]["epochs"])
            check_run_settings(base, where)
            grid = self.grid_of(paper, tuned)
            if tuned == run:  # a run tuned as another trains no grid of its own
                warning = grid_plausibility(where, len(grid), self.training["grid_points"])
                warnings += [warning] if warning else []
            for index, point in enumerate(grid):
                check_run_settings({**base, **point}, f"{where} with grid point {index} {point}")
        return warnings

    def tuning_of(self, paper: str) -> dict[str, Any]:
        return self.blocks[paper]["tuning"]

    def tuning_set(self, paper: str) -> str:
        """The parsed set a paper's runs are tuned on."""
        return f"resources/sets/{self.tuning_of(paper)['set']}.parquet"

    def registered_data(self, paper: str, kind: str) -> Callable[[str], str]:
        """``paper``'s registered function (``run_data`` or ``tuning_data``) from a run's
        ``data`` name to its artefact."""
        found = getattr(self.registrations[paper], kind)
        if found is None:
            raise ValueError(f"{paper} has generic runs but registers no {kind}")
        return found

    def init(self, paper: str, run: str) -> dict[str, str]:
        """``init``: the initial word rows a paper registers for the run
        (Registration.run_init), if any."""
        found = self.registrations[paper].run_init
        path = None if found is None else found(run)
        return {} if path is None else {"init": path}

    def tune_inputs(self, paper: str, run: str) -> dict[str, str]:
        return {
            "pairs": self.registered_data(paper, "tuning_data")(self.runs_of(paper)[run]["data"]),
            "tuning": self.tuning_set(paper),
            **self.init(paper, run),
        }

    def tune_params(self, paper: str, run: str) -> str:
        return json.dumps(self.run_params(paper, run, self.tuning_of(paper)["epochs"]))

    def tuning_records(self, paper: str, run: str) -> list[str]:
        """The records of every tuning grid point of a run."""
        points = range(len(self.grid_of(paper, run)))
        return [f"{point_folder(paper, run, p)}/record.json" for p in points]

    def stacks_of(self, paper: str, run: str) -> list[list[int]]:
        """The stacks of a run's tuning grid (training.stack_grid), as lists of point indices."""
        base = self.run_params(paper, run, self.tuning_of(paper)["epochs"])
        return split_grid(base, self.grid_of(paper, run))

    def stack_points(self, paper: str, run: str, stack: int) -> str:
        """The grid points of a stack, as JSON index -> point."""
        points = self.grid_of(paper, run)
        return json.dumps({str(i): points[i] for i in self.stacks_of(paper, run)[stack]})

    def stack_records_of_point(self, paper: str, run: str, point: int) -> str:
        """The records folder of the stack that trains a grid point."""
        stacks = self.stacks_of(paper, run)
        stack = next(s for s, points in enumerate(stacks) if point in points)
        return f"{point_folder(paper, run, f'stack{stack}')}/records"

    def tuned_runs(self, paper: str) -> list[str]:
        """The runs tuned on their own grid (not ``tune_as`` another)."""
        return [run for run, spec in self.runs_of(paper).items() if "tune_as" not in spec]

    def train_inputs(self, paper: str, run: str) -> dict[str, str]:
        spec = self.runs_of(paper)[run]
        tuned = spec.get("tune_as", run)
        return {
            "pairs": self.registered_data(paper, "run_data")(spec["data"]),
            "selected": f"results/{paper}/tuning/{tuned}.selected.json",
            "tuning": self.tuning_set(paper),
            **self.init(paper, run),
        }

    def final_params(self, paper: str, run: str) -> str:
        return json.dumps(self.run_params(paper, run, self.blocks[paper]["epochs"]))

    def tuning_reports(self, paper: str) -> list[str]:
        """``run=selection`` of every tuned run of ``paper``."""
        return [f"{r}=results/{paper}/tuning/{r}.selected.json" for r in self.tuned_runs(paper)]

    def scored_grid(self, paper: str) -> SeededGrid:
        """``paper``'s runs whose grid points train on the full data and are scored by the
        paper (rule ``point``; Registration.points), with their seed replicates."""
        if paper not in self._seeded:
            grid = self.registrations[paper].points
            if grid is None:
                raise ValueError(f"{paper} registers no scored grid points")
            block, seed = self.blocks[paper], own_seed(self.training)
            self._seeded[paper] = SeededGrid.of(paper, grid, block, self.training, seed)
        return self._seeded[paper]

    def seed_folders(self, paper: str) -> SeedFolders:
        """A run of ``paper``'s scored grid -> its point folders per seed
        (:meth:`SeededGrid.seed_folders`), looked up when called (once every paper has
        registered)."""
        return lambda run: self.scored_grid(paper).seed_folders(run)

    def scored_runs_of(self, paper: str) -> set[str]:
        """``paper``'s scored runs and their replicates (none if it registers no grid)."""
        if paper not in self.registrations.point_grids():
            return set()
        return set(self.scored_grid(paper).point_runs())

    def scored_runs(self) -> list[str]:
        """Every registered paper's scored runs and their replicates."""
        return sorted(
            {run for p in self.registrations.point_grids() for run in self.scored_runs_of(p)}
        )

    # -- grid points: one job of the rule ``point`` each, tuned or scored ----------------------

    def tuned(self, paper: str, run: str) -> bool:
        """Whether ``run`` is one of ``paper``'s tuned runs (else one of its scored runs)."""
        return run in self.tuned_runs(paper)

    def point_runs(self) -> list[str]:
        """Every paper's runs with grid points (the rule's wildcard ``run``): the tuned runs
        and the scored runs with their replicates; a paper's tuned and scored runs must not
        share a name (a :class:`ConfigError` naming them)."""
        names: set[str] = set()
        for paper in self.blocks:
            tuned, scored = set(self.tuned_runs(paper)), self.scored_runs_of(paper)
            if tuned & scored:
                raise ConfigError(
                    f"papers.{paper}: runs {sorted(tuned & scored)} are both generic runs and "
                    "registered scored runs; rename one"
                )
            names |= tuned | scored
        return sorted(names)

    def point_inputs(self, paper: str, run: str) -> dict[str, Any]:
        """A grid point's inputs: ``pairs``, the trainer's own and, for a tuned run, the
        ``tuning`` set; for a scored run, what the paper's scoring reads."""
        if self.tuned(paper, run):
            return self.tune_inputs(paper, run)
        return self.scored_grid(paper).point_inputs(run)

    def point_settings(self, paper: str, run: str) -> str:
        """A run's settings before its point's, as JSON: a tuned run's for the tuning epochs."""
        if self.tuned(paper, run):
            return self.tune_params(paper, run)
        return json.dumps(self.scored_grid(paper).point_settings(run))

    def point(self, paper: str, run: str, point: int) -> str:
        """A grid point's settings, as JSON."""
        grid = (
            self.grid_of(paper, run)
            if self.tuned(paper, run)
            else self.scored_grid(paper).point_grid(run)
        )
        return json.dumps(grid[point])

    def point_record(self, paper: str, run: str, point: int) -> str:
        """Where the trainer writes its record: a tuned point's is the point's ``record.json``
        (its score, the tuning set's r, is the trainer's); a scored point's ``train.json``,
        which the paper's scoring reads before it writes ``record.json``."""
        name = "record" if self.tuned(paper, run) else "train"
        return f"{point_folder(paper, run, point)}/{name}.json"

    def point_score(self, paper: str, run: str, point: int) -> str:
        """What the trainer's process runs after training, as arguments of ``paracomp
        train``: nothing for a tuned point, ``--then <the paper's scoring command>`` for a
        scored one (the same process: no second start-up and imports)."""
        if self.tuned(paper, run):
            return ""
        folder = point_folder(paper, run, point)
        command = self.scored_grid(paper).point_score(run, point, folder)
        program, _, arguments = command.partition(" ")
        if program != "paracomp":
            raise ConfigError(f"{paper}: the scoring of {run} is not a paracomp command: {command}")
        return f"{THEN} {arguments}"
