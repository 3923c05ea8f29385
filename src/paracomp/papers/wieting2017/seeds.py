"""Cells of Tables 1-4 over the seed replicates of their runs (``replicates`` of
papers.wieting2017.transfer; :mod:`paracomp.train.seeded_grid`): every seed's grid is scored
and its point picked by the cell's selection as with one seed, then the cell is the mean over
the seeds, their sd and an interval over seeds and test pairs
(:func:`paracomp.tables.build.over_seeds`; the seeds' draws keyed by the run, so every cell of
a run draws the same seeds)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from paracomp.arguments import key_value_pairs, seed_key
from paracomp.eval import bootstrap
from paracomp.papers.wieting2017.transfer import PointScores
from paracomp.papers.wieting2017.workflow import TABLE_RUNS
from paracomp.tables.build import Cell, cells_over_seeds
from paracomp.tables.printed import PrintedTable

Runs = Mapping[str, list[PointScores]]
Build = Callable[[Runs, PrintedTable, bootstrap.Resampler], dict[tuple[str, str], Cell]]
"""A table's cells from run -> points, its layout and the resampler."""


def load_seed_points(items: Sequence[str]) -> dict[str, dict[int, list[PointScores]]]:
    """``RUN:SEED=FOLDER`` arguments -> run -> seed -> its scored points."""
    found: dict[str, dict[int, list[PointScores]]] = {}
    for key, folder in key_value_pairs(items):
        run, seed = seed_key(key, folder, "--seed-points", "RUN:SEED=FOLDER")
        found.setdefault(run, {}).setdefault(seed, []).append(PointScores.load(run, Path(folder)))
    return found


def run_of(table: str, key: tuple[str, str]) -> str:
    """The run that fills cell ``key`` (row, column) of ``table``."""
    runs = TABLE_RUNS[table]
    return runs[key] if key in runs else runs["*", key[1]]


def seeded_cells(
    table: str,
    build: Build,
    printed: PrintedTable,
    cells: Mapping[tuple[str, str], Cell],
    seeds: Mapping[str, Mapping[int, list[PointScores]]],
    resampler: bootstrap.Resampler,
) -> dict[tuple[str, str], Cell]:
    """``cells`` (of one seed) with the cells of every run of ``seeds`` (run -> seed -> its
    points, every seed) over its seeds, each seed's made by ``build``."""
    read = {run_of(table, key) for key in cells}
    each = {
        run: {seed: build({run: points}, printed, resampler) for seed, points in by_seed.items()}
        for run, by_seed in seeds.items()
        if run in read
    }
    return cells_over_seeds(
        "wieting2017", cells, lambda key: run_of(table, key), each, 100.0, _noted
    )


def _noted(cell: Cell, per: Mapping[int, Cell]) -> Cell:
    """The cell over seeds with every seed's data and the notes of its seeds' cells."""
    valued = {s: c for s, c in per.items() if c.value is not None}
    data = " | ".join(f"seed {s}: {c.data}" for s, c in valued.items()) or cell.data
    notes = [f"seed {s}: {c.reason}" for s, c in valued.items() if c.reason]
    reason = "; ".join(filter(None, [cell.reason, *notes]))
    return dataclasses.replace(cell, data=data, reason=reason)


def seeds_line(seeds: Mapping[str, Mapping[int, list[PointScores]]]) -> str:
    """The markdown's line on the runs over seeds."""
    runs = ", ".join(f"`{run}` ({', '.join(map(str, found))})" for run, found in seeds.items())
    return (
        f"Over seeds (each seed's grid trained and its point picked as the run's; the cell the "
        f"mean, ± over seeds and test pairs, `sd` in the compare file): {runs}."
    )
