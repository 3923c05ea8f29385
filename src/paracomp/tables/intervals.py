"""Bootstrap replicates of cells that papers compute themselves from per-pair predictions
(a ``pairs.parquet`` as the generic evaluator writes it: ``dataset, subset, split, gold, pred,
dropped``), on the same shared resamples as every other cell (:mod:`paracomp.eval.bootstrap`).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

import numpy as np
import pandas as pd

from paracomp.eval import bootstrap


@lru_cache(maxsize=64)
def read_pairs(path: Path) -> pd.DataFrame:
    """A ``pairs.parquet`` (kept while a table reads it for several cells)."""
    return pd.read_parquet(path, columns=["dataset", "subset", "split", "gold", "pred", "dropped"])


def subset_replicates(
    pairs: pd.DataFrame,
    dataset: str,
    subset: str,
    resampler: bootstrap.Resampler,
    metric: str = "pearson",
) -> tuple[np.ndarray | None, str, str]:
    """One subset's ``metric`` on every resample, its test set's key, and why it has none
    (no pairs, or fewer than :data:`paracomp.eval.bootstrap.MIN_PAIRS`)."""
    sel = pairs[(pairs["dataset"] == dataset) & (pairs["subset"] == subset)]
    if not len(sel):
        return None, "", f"no interval: no pairs of {dataset}/{subset}"
    key = f"{dataset}/{subset}/{sel['split'].iloc[0]}"
    kept = ~sel["dropped"].to_numpy(bool)
    reason = bootstrap.too_few(int(kept.sum()), key)
    if reason:
        return None, key, reason
    sample = bootstrap.Sample(key, len(sel), np.flatnonzero(kept))
    gold, pred = sel["gold"].to_numpy()[kept], sel["pred"].to_numpy()[kept]
    return resampler.correlation(sample, metric, gold, pred), key, ""


def mean_replicates(
    pairs: pd.DataFrame,
    subsets: Sequence[tuple[str, str]],
    resampler: bootstrap.Resampler,
    metric: str = "pearson",
) -> tuple[np.ndarray | None, tuple[str, ...], str]:
    """The unweighted mean of ``metric`` over ``subsets`` on every resample (each subset on
    its own test set's resamples), the sets' keys, and why there is none."""
    found, keys = [], []
    groups = dict(list(pairs.groupby(["dataset", "subset"], sort=False)))
    for dataset, subset in subsets:
        part = groups.get((dataset, subset), pairs.iloc[:0])
        reps, key, reason = subset_replicates(part, dataset, subset, resampler, metric)
        if reps is None:
            return None, (), reason
        found.append(reps)
        keys.append(key)
    if not found:
        return None, (), "no interval: no subset"
    return np.mean(found, axis=0), tuple(keys), ""
