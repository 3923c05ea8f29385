"""Error analysis of §7: absolute errors of mapped cosines by gold range (Table 7) and the
change of absolute error from addition to the RNN by length and overlap ratio (Table 9).

Cosines are "mapped to the interval [1, 5]" by an unstated map; :func:`to_gold_scale` reads it
as the linear map of [−1, 1] onto [1, 5], ``2·cos + 3`` (``"linear"``), or as a per-model
min-max rescaling (``"minmax"``).

Table 9 keeps the pairs of gold < 2 ("negative") or > 4 ("positive"), "both" being their union
(not the mean of the two rows), and reports per cell ``100·(MAE_RNN − MAE_+)/MAE_+``. Its
length bins [0, 0.6], (0.6, 0.8], (0.8, 1] are thirds of [0.4, 1], the range of the length
ratio "with one outlier data point removed" (footnote 14): the outlier only set the
delimiters, the first bin starts at 0 and holds it. On the mirror's Annotated-PPDB test split,
exactly one positive-or-negative pair has a length ratio below 0.4 (1/3), which points to the
test split as the one analysed.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

GOLD_BINS = ((1.0, 2.0), (2.0, 3.0), (3.0, 4.0), (4.0, 5.0))
"""Table 7's ranges [1, 2), [2, 3), [3, 4), [4, 5] (the last closed)."""
LENGTH_BINS = (0.0, 0.6, 0.8, 1.0)
"""Table 9's length-ratio bins [0, 0.6], (0.6, 0.8], (0.8, 1]."""
OVERLAP_BINS = (0.0, 1 / 3, 2 / 3, 1.0)
"""Table 9's overlap-ratio bins [0, 1/3], (1/3, 2/3], (2/3, 1]."""
GROUPS = ("positive", "negative", "both")


def to_gold_scale(cosines: np.ndarray, how: str = "linear") -> np.ndarray:
    """Cosines mapped onto [1, 5]."""
    cosines = np.asarray(cosines, dtype=np.float64)
    if how == "linear":
        return 2.0 * cosines + 3.0
    if how == "minmax":
        low, high = cosines.min(), cosines.max()
        return 1.0 + 4.0 * (cosines - low) / (high - low)
    raise ValueError(f"mapping must be 'linear' or 'minmax', not {how!r}")


def error_by_gold_range(gold: np.ndarray, predicted: np.ndarray) -> list[float | None]:
    """Table 7: the mean absolute error of ``predicted`` (on the gold scale) in each of
    :data:`GOLD_BINS`; None for an empty range."""
    gold, error = np.asarray(gold, dtype=np.float64), np.abs(np.asarray(predicted) - gold)
    means: list[float | None] = []
    for i, (low, high) in enumerate(GOLD_BINS):
        last = i == len(GOLD_BINS) - 1
        inside = (gold >= low) & ((gold <= high) if last else (gold < high))
        means.append(float(error[inside].mean()) if inside.any() else None)
    return means


def bin_index(values: np.ndarray, edges: Sequence[float]) -> np.ndarray:
    """The bin of each value for bins [e0, e1], (e1, e2], …: the first closed on both sides."""
    values = np.asarray(values, dtype=np.float64)
    index = np.searchsorted(np.asarray(edges[1:-1]), values, side="left")
    outside = (values < edges[0]) | (values > edges[-1])
    return np.where(outside, -1, index)


def error_change(
    gold: np.ndarray,
    additive: np.ndarray,
    rnn: np.ndarray,
    ratios: np.ndarray,
    edges: Sequence[float],
) -> dict[str, list[float | None]]:
    """Table 9 (one half): per group and ratio bin, the percent change in mean absolute error
    from the additive model's predictions to the RNN's (both on the gold scale); None for an
    empty cell."""
    gold = np.asarray(gold, dtype=np.float64)
    err_add, err_rnn = np.abs(np.asarray(additive) - gold), np.abs(np.asarray(rnn) - gold)
    bins = bin_index(ratios, edges)
    groups = {"positive": gold > 4, "negative": gold < 2}
    groups["both"] = groups["positive"] | groups["negative"]
    table: dict[str, list[float | None]] = {}
    for name in GROUPS:
        row: list[float | None] = []
        for b in range(len(edges) - 1):
            cell = groups[name] & (bins == b)
            base = err_add[cell].mean() if cell.any() else 0.0
            row.append(100.0 * (err_rnn[cell].mean() - base) / base if base else None)
        table[name] = row
    return table
