"""A table cell over k seed replicates of a run (:mod:`paracomp.train.replicates`): the mean,
the standard deviation across seeds and bootstrap replicates that combine seeds and test
pairs (for resample b, a seed drawn at random and that seed's value on test resample b).

The seed drawn for resample b depends on the model alone (a generator seeded by its name), so
every cell of one run draws the same seeds, and cells of one run in different tables stay
paired. A replicate **collapsed** in a cell (its training diverged or collapsed) when the
cell has no value for it (no number, a correlation undefined) or its value lies below the
median of the cell's replicates by more than :data:`COLLAPSE_GAP` and :data:`COLLAPSE_MADS`
median absolute deviations: it is left out of the mean and the interval and named in the
cell's note, never averaged silently.
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from paracomp.eval import bootstrap

COLLAPSE_GAP = 0.1
"""Below the median by more than this (a correlation's scale, before a table's ×100) …"""
COLLAPSE_MADS = 5.0
"""… and by more than this many median absolute deviations of the replicates: collapsed."""


def draws(model: str, seeds: int, resamples: int = bootstrap.RESAMPLES) -> np.ndarray:
    """Which of ``seeds`` replicates each of ``resamples`` resamples takes, for ``model``."""
    rng = np.random.default_rng([bootstrap.SEED, zlib.crc32(f"seeds:{model}".encode())])
    return rng.integers(0, seeds, resamples)


def collapsed(values: Sequence[float | None]) -> list[bool]:
    """Which replicates collapsed (module docstring)."""
    finite = [v for v in values if v is not None and np.isfinite(v)]
    if not finite:
        return [True] * len(values)
    median = float(np.median(finite))
    mad = float(np.median(np.abs(np.asarray(finite) - median)))
    gap = max(COLLAPSE_GAP, COLLAPSE_MADS * mad)
    return [v is None or not np.isfinite(v) or v < median - gap for v in values]


@dataclass(frozen=True)
class Combined:
    """A cell over seeds: the mean and sd of the kept replicates' ``values`` (sd None with
    fewer than two), their combined bootstrap replicates (None if some kept one has none),
    the first kept replicate's test-pair replicates (``test``) and a note naming the seeds
    and any collapsed one."""

    value: float | None
    sd: float | None
    values: tuple[float, ...]
    boot: np.ndarray | None
    test: np.ndarray | None
    note: str


def combine(
    model: str,
    seeds: Sequence[int],
    values: Sequence[float | None],
    boots: Sequence[np.ndarray | None],
    reasons: Sequence[str],
) -> Combined:
    """The cell of ``model`` over its replicates (one value, bootstrap replicates and reason
    for an empty value per seed of ``seeds``); empty with the first reason when no seed has a
    value (the cell's data are missing: nothing collapsed)."""
    if all(v is None or not np.isfinite(v) for v in values):
        return Combined(None, None, (), None, None, next((r for r in reasons if r), "no value"))
    out = collapsed(values)
    dropped = [
        f"seed {s} collapsed ({reason or _shown(v)} vs median {_shown(_median(values))}): left out"
        for s, v, reason, bad in zip(seeds, values, reasons, out, strict=True)
        if bad
    ]
    kept = [i for i, bad in enumerate(out) if not bad]
    used = ", ".join(str(seeds[i]) for i in kept)
    note = "; ".join([f"mean over {len(kept)} seeds ({used})", *dropped])
    numbers = tuple(float(values[i]) for i in kept)  # type: ignore[arg-type]
    sd = float(np.std(numbers, ddof=1)) if len(numbers) > 1 else None
    found = [boots[i] for i in kept]
    boot = test = None
    if all(b is not None for b in found):
        stacked = np.stack(found)  # type: ignore[arg-type]
        pick = draws(model, len(kept), stacked.shape[1])
        boot, test = stacked[pick, np.arange(stacked.shape[1])], stacked[0]
    return Combined(float(np.mean(numbers)), sd, numbers, boot, test, note)


def _median(values: Sequence[float | None]) -> float | None:
    finite = [v for v in values if v is not None and np.isfinite(v)]
    return float(np.median(finite)) if finite else None


def _shown(value: float | None) -> str:
    return "no value" if value is None or not np.isfinite(value) else f"{value:.4g}"
