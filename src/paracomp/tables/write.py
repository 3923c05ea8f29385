"""Write a table's CSV, long-form compare CSV and markdown from a run's config."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from paracomp.atomic import atomic_path
from paracomp.errors import ConfigError
from paracomp.eval import bootstrap
from paracomp.tables.build import Cell, ModelEval, build_cells, render, replicate_table
from paracomp.tables.layout import GroupRef, LeafRef
from paracomp.tables.printed import PrintedTable
from paracomp.tables.replicates import Replicates, replicates_path, write_replicates


def write_table(
    printed: PrintedTable,
    refs: dict[str, LeafRef | GroupRef],
    spec: dict,
    eval_dirs: dict[str, Path],
    out: Path,
    stats: dict | None = None,
    seed_dirs: dict[str, dict[int, Path]] | None = None,
) -> None:
    """Build the table ``printed`` (rows computed from ``refs``) from its config entry ``spec``
    and write the three files and the cells' bootstrap replicates; a model of ``seed_dirs``
    (seed -> evaluation folder of each replicate) is the mean over its seeds."""
    if "columns" not in spec:
        raise ConfigError(f"tables.{printed.paper}.{printed.key} in config has no `columns`")
    evals = {model: ModelEval.load(folder) for model, folder in eval_dirs.items()}
    seeds = {
        model: {seed: ModelEval.load(folder) for seed, folder in dirs.items()}
        for model, dirs in (seed_dirs or {}).items()
    }
    aggregation = spec.get("aggregation", "mean")
    resampler = bootstrap.Resampler()
    cells = build_cells(printed, refs, spec["columns"], aggregation, evals, stats, resampler, seeds)
    write_outputs(out, *render(printed, cells, spec["columns"], aggregation))
    write_cell_replicates(out, cells, resampler)


def write_cell_replicates(
    out: Path, cells: dict[tuple[str, str], Cell], resampler: bootstrap.Resampler
) -> None:
    """The bootstrap replicates of table ``out``'s cells, ``<table>.replicates.parquet``."""
    values, sets, seeds, test = replicate_table(cells)
    found = Replicates(values, sets, resampler.resamples, resampler.seed, seeds, test)
    write_replicates(replicates_path(out.with_suffix(".compare.csv")), found)


def write_outputs(out: Path, wide: pd.DataFrame, compare: pd.DataFrame, markdown: str) -> None:
    """Write a table to ``out`` and its ``.compare.csv`` and ``.md`` beside it, atomically."""
    stem = out.with_suffix("")
    with atomic_path(out) as tmp:
        wide.to_csv(tmp, index=False)
    with atomic_path(stem.with_suffix(".compare.csv")) as tmp:
        compare.to_csv(tmp, index=False)
    with atomic_path(stem.with_suffix(".md")) as tmp:
        tmp.write_text(markdown)
