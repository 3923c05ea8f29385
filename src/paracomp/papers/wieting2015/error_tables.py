"""Tables 7 (mean absolute error by gold range), 8 (examples) and 9 (change of error by
length and overlap) of Wieting et al. (2015), on Annotated-PPDB with the cosines mapped to the
gold scale. Tables 7 and 9 carry test-set bootstrap replicates (:func:`_range_replicates`,
:func:`_change_replicates`); Table 8 has none."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import pandas as pd

from paracomp.eval import bootstrap
from paracomp.papers.wieting2015.errors import (
    GOLD_BINS,
    LENGTH_BINS,
    OVERLAP_BINS,
    bin_index,
    error_by_gold_range,
    error_change,
    to_gold_scale,
)
from paracomp.papers.wieting2015.overlap import length_ratio, overlap_ratio
from paracomp.papers.wieting2015.phrase_tables import (
    ANNOTATED,
    PhraseScores,
    annotated,
    lexical_pairs,
)
from paracomp.papers.wieting2015.table_cells import RESAMPLER, TREES, Built, Sources
from paracomp.tables.build import Cell
from paracomp.tables.printed import PrintedTable


def _mapped(part: pd.DataFrame, how: str) -> np.ndarray:
    return to_gold_scale(part["pred"].to_numpy(), how)


def _range_replicates(cell: Cell, gold: np.ndarray, mapped: np.ndarray, i: int, n: int) -> Cell:
    """A Table 7 cell with its replicates: the mean absolute error of the pairs in gold range
    ``i`` on every resample of the Annotated-PPDB test pairs (no interval under 10 pairs)."""
    if cell.value is None:
        return cell
    noise = bootstrap.too_few(n, f"{ANNOTATED} in gold range {i + 1}")
    if noise:
        return Cell(cell.value, cell.data, cell.reason, noise=noise)
    low, high = GOLD_BINS[i]
    inside = (gold >= low) & ((gold <= high) if i == len(GOLD_BINS) - 1 else (gold < high))
    counts = RESAMPLER.counts(bootstrap.Sample.whole(ANNOTATED, len(gold)))
    weights = counts @ inside.astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        boot = counts @ (np.abs(mapped - gold) * inside) / weights
    return Cell(cell.value, cell.data, cell.reason, boot, (ANNOTATED,))


def table7(src: Sources, columns: Mapping[str, Any], how: str) -> Built:
    built = Built()
    parts = annotated(PhraseScores.load(src))
    gold = parts["paragram_add"]["gold"].to_numpy()
    rows = ("1-2", "2-3", "3-4", "4-5")
    counts = [
        int(((gold >= lo) & ((gold <= hi) if hi == GOLD_BINS[-1][1] else (gold < hi))).sum())
        for lo, hi in GOLD_BINS
    ]
    for column, model in (("add", "paragram_add"), ("rnn", "paragram_rnn")):
        mapped = _mapped(parts[model], how)
        errors = error_by_gold_range(gold, mapped)
        for i, (row, value, n) in enumerate(zip(rows, errors, counts, strict=True)):
            data = f"Annotated-PPDB test, {n} pairs in the range; cosines mapped to [1, 5] ({how})"
            cell = Cell(value, data, "" if value is not None else "no pair")
            built.cells[row, column] = _range_replicates(cell, gold, mapped, i, n)
    built.notes.append(TREES)
    return built


def table8(src: Sources, columns: Mapping[str, Any], printed: PrintedTable, how: str) -> Built:
    built = Built()
    found = PhraseScores.load(src)
    lexical = lexical_pairs(src.lexical)
    both = {split: annotated(found, split) for split in ("dev", "test")}
    for row in printed.rows:
        p1, p2 = printed.value(row, "phrase1"), printed.value(row, "phrase2")
        built.cells[row, "phrase1"] = Cell(p1, "the paper's pair")
        built.cells[row, "phrase2"] = Cell(p2, "the paper's pair")
        built.cells[row, "length_ratio"] = Cell(length_ratio(p1, p2), "tokens")
        built.cells[row, "overlap_ratio"] = Cell(overlap_ratio(p1, p2, lexical), "tokens")
        hit = None
        for split, parts in both.items():
            add = parts["paragram_add"]
            match = add[
                ((add["s1"] == p1) & (add["s2"] == p2)) | ((add["s1"] == p2) & (add["s2"] == p1))
            ]
            if len(match):
                hit = (split, match.index[0])
                break
        if hit is None:
            for column in ("gold", "rnn", "add"):
                built.cells[row, column] = Cell(None, "", "pair not in the mirror's Annotated-PPDB")
            continue
        split, index = hit
        parts = both[split]
        where = f"Annotated-PPDB {split}"
        built.cells[row, "gold"] = Cell(float(parts["paragram_add"]["gold"].iloc[index]), where)
        for column, model in (("rnn", "paragram_rnn"), ("add", "paragram_add")):
            mapped = _mapped(parts[model], how)[index]
            built.cells[row, column] = Cell(
                float(mapped), f"{where}; cosine mapped to [1, 5] ({how})"
            )
    built.notes.append(TREES)
    return built


ERROR_GROUPS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "positive": lambda gold: gold > 4,
    "negative": lambda gold: gold < 2,
    "both": lambda gold: (gold > 4) | (gold < 2),
}
"""Table 9's groups of pairs by gold score (as :func:`error_change` forms them)."""


def _change_replicates(
    cell: Cell, gold: np.ndarray, add: np.ndarray, rnn: np.ndarray, inside: np.ndarray
) -> Cell:
    """A Table 9 cell with its replicates: the relative change of the mean absolute error
    from the additive model to the RNN among the ``inside`` pairs, on every resample of the
    Annotated-PPDB test pairs."""
    if cell.value is None:
        return cell
    noise = bootstrap.too_few(int(inside.sum()), f"{ANNOTATED} in this cell")
    if noise:
        return Cell(cell.value, cell.data, cell.reason, noise=noise)
    counts = RESAMPLER.counts(bootstrap.Sample.whole(ANNOTATED, len(gold)))
    base = counts @ (np.abs(add - gold) * inside)
    with np.errstate(invalid="ignore", divide="ignore"):
        boot = counts @ (np.abs(rnn - gold) * inside) / base - 1.0
    return Cell(cell.value, cell.data, cell.reason, boot, (ANNOTATED,))


def table9(src: Sources, how: str) -> dict[str, Built]:
    found = PhraseScores.load(src)
    parts = annotated(found)
    lexical = lexical_pairs(src.lexical)
    test = parts["paragram_add"]
    gold = test["gold"].to_numpy()
    add, rnn = _mapped(parts["paragram_add"], how), _mapped(parts["paragram_rnn"], how)
    pairs = list(zip(test["s1"], test["s2"], strict=True))
    ratios = {
        "table9_length": (np.array([length_ratio(a, b) for a, b in pairs]), LENGTH_BINS),
        "table9_overlap": (
            np.array([overlap_ratio(a, b, lexical) for a, b in pairs]),
            OVERLAP_BINS,
        ),
    }
    built = {}
    for key, (values, edges) in ratios.items():
        block = Built()
        change = error_change(gold, add, rnn, values, edges)
        bins = bin_index(values, edges)
        for group, row in change.items():
            for b, (column, value) in enumerate(zip(("low", "mid", "high"), row, strict=True)):
                cell = Cell(
                    None if value is None else value / 100.0,
                    f"Annotated-PPDB test; cosines mapped to [1, 5] ({how})",
                    "" if value is not None else "no pair in the cell",
                )
                inside = ERROR_GROUPS[group](gold) & (bins == b)
                block.cells[group, column] = _change_replicates(cell, gold, add, rnn, inside)
        block.notes.append(TREES)
        built[key] = block
    return built
