"""The inputs and params of wieting2017's supervised runs (Tables 5, 6 and 8; the rules of
rules/papers/wieting2017.smk that train and pick them): one job per grid point and task, each
run starting from the initial vectors or, for a "universal" run, from a transfer run's points.
Imports no torch.
"""

from __future__ import annotations

import json
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
from paracomp.train.grid import grid_points


@dataclass(frozen=True)
class Supervised:
    """The supervised runs of ``transfer``'s config block (``supervised``), over its sets,
    tokenisation and transfer points."""

    transfer: Inputs

    def __post_init__(self) -> None:
        check_runs(self.transfer.block, "supervised.runs", self.runs())

    def runs(self) -> dict[str, Mapping[str, Any]]:
        return configured(self.transfer.block.get("supervised", {}).get("runs"))

    def points(self, run: str) -> list[dict[str, Any]]:
        return grid_points(self.transfer.block["grids"][self.runs()[run]["grid"]])

    def params(self, wildcards) -> str:
        spec = self.runs()[wildcards.supervised_run]
        block = self.transfer.block
        own = {k: v for k, v in spec.items() if k not in ("model", "grid", "universal")}
        return json.dumps({**block["supervised"]["settings"], "dim": block["dim"], **own})

    def point(self, wildcards) -> str:
        return json.dumps(self.points(wildcards.supervised_run)[int(wildcards.supervised_point)])

    def model(self, wildcards) -> str:
        return self.transfer.block["composers"][self.runs()[wildcards.supervised_run]["model"]]

    def _sets(self) -> dict[str, str]:
        return {n: p for n, p in self.transfer.scored.items() if n in SUPERVISED_SETS}

    def inputs(self, wildcards) -> dict[str, Any]:
        spec = self.runs()[wildcards.supervised_run]
        inputs: dict[str, Any] = {"sets": list(self._sets().values())}
        if "universal" in spec:
            inputs["universal"] = self.transfer.point_records(spec["universal"])
        else:
            inputs["init"] = f"{RESOURCES}/init.parquet"
        return inputs

    def args(self, wildcards) -> str:
        spec = self.runs()[wildcards.supervised_run]
        args = ["--set " + " ".join(f"{n}={p}" for n, p in self._sets().items())]
        if "universal" in spec:
            run = spec["universal"]
            args.append(
                "--universal " + " ".join(f"{run}={d}" for d in self.transfer.point_folders(run))
            )
        else:
            args.append(f"--init {RESOURCES}/init.parquet")
        lowercase = "--lowercase" if self.transfer.lowercase else "--no-lowercase"
        return " ".join([*args, f"--tokenizer {self.transfer.tokenizer}", lowercase])

    def records(self, table: str) -> list[tuple[str, str]]:
        runs = sorted(set(SUPERVISED_RUNS[table].values()) & set(self.runs()))
        return [
            (run, f"{RESULTS}/supervised/{run}/{task}/{p}.json")
            for run in runs
            for task in TASKS
            for p in range(len(self.points(run)))
        ]

    def point_records(self, wildcards) -> list[str]:
        """The record of every grid point of a supervised run and task."""
        run, task = wildcards.supervised_run, wildcards.supervised_task
        return [f"{RESULTS}/supervised/{run}/{task}/{p}.json" for p in range(len(self.points(run)))]

    def selected_inputs(self, wildcards) -> list[str]:
        folders = [record.removesuffix(".json") for record in self.point_records(wildcards)]
        return [
            path
            for record, folder in zip(self.point_records(wildcards), folders)
            for path in (record, f"{folder}/composer.pt", f"{folder}/embeddings.parquet")
        ]

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
        for run, spec in self.runs().items():
            start = (
                f"{RESULTS}/selected/{spec['universal']}/embeddings.parquet"
                if "universal" in spec
                else f"{RESOURCES}/init.parquet"
            )
            for task in TASKS:
                entries[f"wieting2017/supervised-{task}/{run}"] = {
                    "paper": "wieting2017",
                    "run": f"{RESULTS}/supervised/{run}/{task}.selected",
                    "fallback": start,
                    "note": SUPERVISED_NOTES[task],
                }
        return entries
