"""What the tables of Wieting et al. (2015) share: the table command's inputs, a table's
cells and marks, the Spearman cells with their bootstrap replicates (:func:`rho_cell`) and
Steiger's significance marks (:func:`steiger_marks`, one-tailed at p < 0.05,
:mod:`paracomp.eval.significance`)."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from paracomp.eval import bootstrap
from paracomp.eval.metrics import spearman
from paracomp.eval.significance import compare
from paracomp.tables.build import Cell, cells_over_seeds
from paracomp.tables.printed import PrintedTable
from paracomp.train.replicates import split_replicate

PAPER = "wieting2015"
ALPHA = 0.05
LITERATURE = "a value from the literature, copied by the paper: not computed"
TREES = (
    "RNN trees: right-branching over each phrase's tokens (no parser on this branch; "
    "paracomp.models.trees.binary_tree turns dependency heads into trees once a parse is "
    "supplied as heads1/heads2 columns); a bigram is one node either way"
)


RESAMPLER = bootstrap.Resampler()


def rho_cell(gold: np.ndarray, pred: np.ndarray, key: str, data: str, reason: str = "") -> Cell:
    """Spearman's ρ of ``pred`` against ``gold`` with its replicates on the resamples of test
    set ``key`` (its items in ``gold``'s order, the same for every row)."""
    value, noise = spearman(gold, pred), bootstrap.too_few(len(gold), key)
    if noise:
        return Cell(value, data, reason, noise=noise)
    counts = RESAMPLER.counts(bootstrap.Sample.whole(key, len(gold)))
    return Cell(value, data, reason, bootstrap.spearman(counts, gold, pred), (key,))


@dataclass
class Built:
    """A table's cells, our significance marks per cell, and lines for its markdown."""

    cells: dict[tuple[str, str], Cell] = field(default_factory=dict)
    marks: dict[tuple[str, str], str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Sources:
    """The table command's inputs (unused ones None or empty)."""

    words: Sequence[Path] = ()
    seeds: Sequence[Path] = ()
    init: Path | None = None
    simlex: Path | None = None
    counts: Path | None = None
    sst: Sequence[Path] = ()
    rnn: Sequence[Path] = ()
    scores: Sequence[Path] = ()
    pairs: Sequence[Path] = ()
    lexical: Path | None = None
    wordnet: Path | None = None
    own_seed: int | None = None


CHAIN = "chain"
"""The model name of the seed chain's cells (their seed draws keyed ``wieting2015/chain``)."""


def chain_files(src: Sources) -> dict[int, dict[str, Path]]:
    """Seed -> its files of the seed chain (``<name>_seed<s>.*`` of ``--seeds``, keyed
    ``<name>``), the own seed first (``{}``: its files are the table's own); empty without
    seed replicates."""
    found: dict[int, dict[str, Path]] = {}
    for name, seed, path in seed_files(src.seeds):
        found.setdefault(seed, {})[name] = path
    if not found:
        return {}
    if src.own_seed is None or src.own_seed in found:
        raise ValueError("the seed chain's files need --own-seed, a seed they do not name")
    return {src.own_seed: {}, **found}


def over_chain(
    built: Built,
    rows: Sequence[str],
    each: Mapping[int, Mapping[tuple[str, str], Cell]],
    scale: float = 1.0,
) -> None:
    """``built``'s cells of ``rows`` over the chain's seeds (seed -> the cells that seed's
    artefacts make, the own first; :func:`paracomp.tables.build.cells_over_seeds`), each
    keeping the own seed's note (its significance tests: the marks are the own seed's)."""
    model = dict.fromkeys(rows, CHAIN)

    def noted(cell: Cell, per: Mapping[int, Cell]) -> Cell:
        own = next(iter(per.values())).reason
        return dataclasses.replace(cell, reason="; ".join(filter(None, [cell.reason, own])))

    built.cells = cells_over_seeds(
        PAPER, built.cells, lambda key: model.get(key[0], ""), {CHAIN: each}, scale, noted
    )
    built.notes.append(
        f"{', '.join(rows)}: the mean over seeds {', '.join(map(str, each))} of the seed chain "
        "(each seed's word grids selected as the run's, its PARAGRAM, and what starts from "
        "them); ± over seeds and test items, the seeds drawn alike in every chained cell."
    )


def read_json(path: Path) -> dict[str, Any]:
    return json.loads(Path(path).read_text())


def by_stem(paths: Sequence[Path]) -> dict[str, Path]:
    """``{stem: path}``, ``x.selected.json`` keyed ``x``."""
    return {Path(p).name.split(".")[0]: Path(p) for p in paths}


def seed_files(paths: Sequence[Path]) -> list[tuple[str, int, Path]]:
    """(name, seed, path) of each ``<name>_seed<s>.*`` file; another name is an error naming it."""
    found = []
    for stem, path in by_stem(paths).items():
        name, seed = split_replicate(stem)
        if seed is None:
            raise ValueError(f"{path}: a --seeds file is named <name>_seed<s>")
        found.append((name, seed, path))
    return found


def fmt_point(point: Mapping[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in point.items()) or "the run settings"


def steiger_marks(
    gold: np.ndarray, model: np.ndarray, baselines: Mapping[str, tuple[str, np.ndarray | None]]
) -> tuple[str, str]:
    """Our marks and the note: for each symbol, the baseline's name and scores (None where
    the baseline is not computed)."""
    found, notes = "", []
    for symbol, (name, scores) in baselines.items():
        if scores is None:
            notes.append(f"{symbol} over {name}: not computed (no {name} here)")
            continue
        test = compare(gold, model, scores)
        if test.p < ALPHA:
            found += symbol
        notes.append(f"{symbol} over {name}: z={test.z:.2f}, p={test.p:.3g}")
    return found, "Steiger one-tailed: " + "; ".join(notes)


def empty(printed: PrintedTable, columns: Mapping[str, Any], reasons: Sequence[str]) -> Built:
    """Every cell empty: a column's configured reason, else the data's."""
    built = Built()
    why = "; ".join(reasons)
    for row in printed.rows:
        for column in printed.columns:
            spec = columns.get(column, {})
            built.cells[row, column] = Cell(None, "", spec.get("reason") or why)
    return built
