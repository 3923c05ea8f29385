"""The supervised runs of wieting2017 (Tables 5, 6 and 8) as a scored grid of the generic rule
``point`` (:class:`~paracomp.train.grid.ScoredGrid`): each grid point of a run and task trains
with ``paracomp train`` (objective ``supervised``) on the task's data (rule
``wieting2017_supervised_data``), starting from the initial vectors or, for a "universal" run,
from a transfer run's point selected by 2016 STS, and ``paracomp wieting2017
supervised-record`` writes its record. Imports no torch.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from paracomp.papers.wieting2017.workflow import (
    RESOURCES,
    RESULTS,
    SUPERVISED_NOTES,
    SUPERVISED_RUNS,
    SUPERVISED_SETS,
    TASKS,
    Inputs,
    check_runs,
)
from paracomp.registry import configured
from paracomp.run_config import validate
from paracomp.train.grid import grid_points, point_folder

TASK_SETTINGS = {
    "sts": {"classes": 6, "score_shift": 1.0},
    "sick": {"classes": 5, "score_shift": 0.0},
}
"""Per task, Tai et al.'s classes K and the shift putting gold in [1, K] (STS: K = 6 on gold
+ 1, the digest's plausible choice; SICK: K = 5)."""

PREFIX = "supervised"
"""A supervised point run is ``supervised-<task>-<run>`` (transfer runs have the same names)."""


@dataclass(frozen=True)
class Supervised:
    """The supervised runs of ``transfer``'s config block (``supervised``), over its sets,
    tokenisation and selected transfer points."""

    transfer: Inputs

    def __post_init__(self) -> None:
        check_runs(self.transfer.block, "supervised.runs", self.runs())
        for name in self.point_runs():
            for index, point in enumerate(self.point_grid(name)):
                where = f"papers.wieting2017.supervised.runs.{self._run(name)[1]} point {index}"
                validate({**self.point_settings(name), **point}, where)

    def runs(self) -> dict[str, Mapping[str, Any]]:
        return configured(self.transfer.block.get("supervised", {}).get("runs"))

    def points(self, run: str) -> list[dict[str, Any]]:
        return grid_points(self.transfer.block["grids"][self.runs()[run]["grid"]])

    # -- scored grid points (rule `point`: paracomp.train.grid.ScoredGrid) ------------------

    @staticmethod
    def point_run(run: str, task: str) -> str:
        return f"{PREFIX}-{task}-{run}"

    def _run(self, name: str) -> tuple[str, str]:
        """The task and the supervised run of a point run."""
        task, run = name.removeprefix(f"{PREFIX}-").split("-", 1)
        return task, run

    def point_runs(self) -> list[str]:
        return [self.point_run(run, task) for run in self.runs() for task in TASKS]

    def point_grid(self, run: str) -> list[dict[str, Any]]:
        return self.points(self._run(run)[1])

    def point_settings(self, run: str) -> dict[str, Any]:
        """The settings every supervised run shares (less the split's seed, the data's), the
        composer and the task's classes."""
        task, name = self._run(run)
        block = self.transfer.block
        shared = {k: v for k, v in block["supervised"]["settings"].items() if k != "split_seed"}
        return {
            **shared,
            "objective": "supervised",
            "optimizer": "adam",
            "composer": block["composers"][self.runs()[name]["model"]],
            "dim": block["dim"],
            **TASK_SETTINGS[task],
        }

    def point_replicates(self, run: str) -> int:
        """One seed: the supervised tables read one record per point."""
        return 1

    def _start(self, name: str) -> dict[str, str]:
        """The word rows a run starts from and, universal, the transfer point's composer and
        selection."""
        universal = self.runs()[name].get("universal")
        if universal is None:
            return {"init": f"{RESOURCES}/init.parquet"}
        folder = f"{RESULTS}/selected/{universal}"
        return {
            "init": f"{folder}/embeddings.parquet",
            "init_composer": f"{folder}/composer.pt",
            "universal": f"{folder}/selected.json",
        }

    def point_inputs(self, run: str, seed: int | None = None) -> dict[str, Any]:
        task, name = self._run(run)
        return {"pairs": self.data(task), **self._start(name)}

    def point_score(self, run: str, point: int, folder: str) -> str:
        task, name = self._run(run)
        start = self._start(name)
        origin = (
            f"--universal {start['universal']}"
            if "universal" in start
            else (f"--init {start['init']}")
        )
        return (
            f"paracomp wieting2017 supervised-record --train {shlex.quote(f'{folder}/train.json')}"
            f" --task {task} --run-name {name} --index {point} --data {self.data(task)} {origin}"
            f" --out {shlex.quote(f'{folder}/record.json')}"
        )

    # -- data -----------------------------------------------------------------------------

    @staticmethod
    def data(task: str) -> str:
        return f"{RESULTS}/supervised/data/{task}.parquet"

    def _sets(self) -> dict[str, str]:
        return {n: p for n, p in self.transfer.scored.items() if n in SUPERVISED_SETS}

    def data_inputs(self, wildcards=None) -> list[str]:
        return list(self._sets().values())

    def data_args(self, wildcards=None) -> str:
        seed = self.transfer.block["supervised"]["settings"]["split_seed"]
        lowercase = "--lowercase" if self.transfer.lowercase else "--no-lowercase"
        sets = " ".join(f"{n}={p}" for n, p in self._sets().items())
        return f"--set {sets} --split-seed {seed} --tokenizer {self.transfer.tokenizer} {lowercase}"

    # -- selection, tables and the leaderboard --------------------------------------------

    def _folders(self, run: str, task: str) -> list[str]:
        name = self.point_run(run, task)
        return [point_folder("wieting2017", name, p) for p in range(len(self.points(run)))]

    def records(self, table: str) -> list[tuple[str, str]]:
        runs = sorted(set(SUPERVISED_RUNS[table].values()) & set(self.runs()))
        return [
            (run, f"{folder}/record.json")
            for run in runs
            for task in TASKS
            for folder in self._folders(run, task)
        ]

    def point_records(self, wildcards) -> list[str]:
        """The record of every grid point of a supervised run and task (each written last by
        its job, in the point's run folder)."""
        folders = self._folders(wildcards.supervised_run, wildcards.supervised_task)
        return [f"{folder}/record.json" for folder in folders]

    def table_inputs(self, wildcards) -> list[str]:
        return [path for _, path in self.records(wildcards.supervised_table)]

    def table_args(self, wildcards) -> str:
        records = self.records(wildcards.supervised_table)
        return "--records " + " ".join(f"{r}={p}" for r, p in records) if records else ""

    def setting(self, wildcards) -> str:
        setting = json.loads(self.transfer.setting())
        block = self.transfer.block.get("supervised", {})
        runs = self.runs()
        grids = {spec["grid"] for spec in runs.values()}
        setting["supervised"] = {
            "settings": dict(block.get("settings", {})),
            "runs": {r: dict(s) for r, s in runs.items()},
            "grids": {g: list(v) for g, v in self.transfer.block["grids"].items() if g in grids},
        }
        return json.dumps(setting)

    def leaderboard(self) -> dict[str, dict[str, str]]:
        """Each supervised run's encoder per task, at the point validation r picks: its own
        word rows, the others those it started from (the initial vectors, or a universal
        run's transfer point selected by 2016 STS)."""
        entries = {}
        for run in self.runs():
            start = self._start(run)["init"]
            for task in TASKS:
                entries[f"wieting2017/supervised-{task}/{run}"] = {
                    "paper": "wieting2017",
                    "run": f"{RESULTS}/supervised/{run}/{task}.selected",
                    "fallback": start,
                    "note": SUPERVISED_NOTES[task],
                }
        return entries
