"""Fixtures of wieting2017's tests."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def transfer_setting() -> dict:
    """The table setting of the hand-made scored points the transfer-table tests write."""
    return {
        "corpus": "hand-made pairs",
        "sentences": {"max_tokens": 30, "pairs": 10, "seed": 1},
        "ppdb": {"datasets": ["ppdb-phrase-train-60k"], "seed": 1},
        "init": {"embeddings": "glove-6b-50d"},
        "dim": 50,
        "epochs": {"default": 3},
        "run": {},
        "runs": {"avg_none": {"model": "avg", "data": "sentences", "grid": "none"}},
        "grids": {"none": [{"reg_initial": [0.0, 1.0e-5]}]},
    }


@pytest.fixture
def scored_point():
    """Writes a hand-made scored point in folder ``out``: 40 pairs of every transfer and
    selection subset but ``skip`` (gold, and gold plus ``noise`` drawn from ``rng_seed``), its
    pairs, scores and record (grid point ``index``); returns ``out``."""
    import json

    import numpy as np
    import pandas as pd

    from paracomp.eval.sts import subset_metrics
    from paracomp.papers.wieting2017.transfer import SELECTION_SUBSETS, TRANSFER_SUBSETS

    def write(out: Path, run: str, index: int, noise: float, rng_seed, skip=()) -> Path:
        rng, frames = np.random.default_rng(rng_seed), []
        for dataset, subset in (*TRANSFER_SUBSETS, *SELECTION_SUBSETS):
            if (dataset, subset) in skip:
                continue
            gold = np.random.default_rng(len(frames)).uniform(0, 5, 40)
            frames.append(pd.DataFrame({
                "dataset": dataset, "subset": subset, "split": "test",
                "id": [str(i) for i in range(40)], "gold": gold,
                "pred": gold + noise * rng.normal(size=40), "oov": False, "dropped": False,
            }))  # fmt: skip
        pairs = pd.concat(frames, ignore_index=True)
        out.mkdir(parents=True)
        pairs.to_parquet(out / "pairs.parquet", index=False)
        subset_metrics(pairs).assign(note="").to_csv(out / "scores.csv", index=False)
        record = {"run": run, "index": index, "point": {"reg_initial": [0.0, 1e-5][index]}}
        (out / "record.json").write_text(json.dumps(record))
        return out

    return write
