"""Evaluations within an epoch (``evals_per_epoch``) and the export of the best-scored weights
(``keep_best``), as Wieting & Gimpel's para-nmt-50m code evaluates at quarter epochs and keeps
the best model; a run killed and resumed keeps the same best weights."""

import random

import numpy as np
import pyarrow as pa
import pytest
import torch

from paracomp import artefacts
from paracomp.errors import ConfigError
from paracomp.run_config import TrainConfig
from paracomp.train.tasks import train_pairs as train

SETTINGS = {
    "objective": "paraphrase",
    "sampler": "mix",
    "composer": "mean",
    "margin": 0.4,
    "shared_vocab": True,
    "epochs": 3,
    "batch_size": 8,
    "dim": 8,
    "lr": 0.5,
    "threads": 1,
    "evals_per_epoch": 4,
    "keep_best": True,
}
PEAK = 1.25  # the scripted tuning score is highest a quarter into epoch 2


def _pairs(n=60, seed=0):
    rng = random.Random(seed)
    words = ["the", "cat", "dog", "sat", "ran", "on", "a", "mat", "big", "red"]
    s1, s2 = [], []
    for _ in range(n):
        picks = rng.sample(words, rng.randint(2, 5))
        s1.append(" ".join(picks))
        s2.append(" ".join(w for w in picks if rng.random() < 0.8) or picks[0])
    return pa.table({"s1": s1, "s2": s2})


class Scripted:
    """A callback scoring each row by its distance from :data:`PEAK` and keeping a copy of the
    word vectors it was shown; ``kill_at`` raises at that position."""

    def __init__(self, kill_at: float | None = None):
        self.seen: dict[float, np.ndarray] = {}
        self.kill_at = kill_at

    def __call__(self, position, encoder):
        if position == self.kill_at:
            raise KeyboardInterrupt
        self.seen[position] = encoder.matrix.copy()
        return {"tuning_r": -abs(position - PEAK)}


def test_quarter_rows_and_the_best_weights_exported(tmp_path):
    config = TrainConfig.from_dict(SETTINGS)
    scripted = Scripted()
    result = train(config, _pairs(), tmp_path, progress=False, callback=scripted)
    # 60 pairs in batches of 8: 8 steps an epoch, rows after steps 2, 4, 6 and 8 of each
    quarters = [0.25, 0.5, 0.75, 1, 1.25, 1.5, 1.75, 2, 2.25, 2.5, 2.75, 3]
    assert result.history["epoch"].tolist() == quarters
    _, matrix = artefacts.read_embeddings(tmp_path / "embeddings.parquet")
    np.testing.assert_array_equal(matrix, scripted.seen[PEAK])
    assert not np.array_equal(matrix, scripted.seen[3])
    np.testing.assert_array_equal(result.encoder.matrix, scripted.seen[PEAK])
    notes = artefacts.provenance(tmp_path / "embeddings.parquet")["notes"]
    assert "after 1.25 epochs" in notes


def test_resumed_run_keeps_the_same_best(tmp_path):
    config = TrainConfig.from_dict(SETTINGS)
    whole = Scripted()
    train(config, _pairs(), tmp_path / "whole", progress=False, callback=whole)
    with pytest.raises(KeyboardInterrupt):
        train(config, _pairs(), tmp_path / "killed", progress=False, callback=Scripted(2.5))
    saved = torch.load(tmp_path / "killed" / "checkpoint.pt", weights_only=True)
    assert saved["step"] == 16 and saved["best"]["step"] == 10
    train(config, _pairs(), tmp_path / "killed", progress=False, callback=Scripted())
    one = artefacts.read_embeddings(tmp_path / "whole" / "embeddings.parquet")[1]
    two = artefacts.read_embeddings(tmp_path / "killed" / "embeddings.parquet")[1]
    np.testing.assert_array_equal(one, two)


def test_without_keep_best_the_last_weights(tmp_path):
    config = TrainConfig.from_dict({**SETTINGS, "keep_best": False})
    scripted = Scripted()
    train(config, _pairs(), tmp_path, progress=False, callback=scripted)
    _, matrix = artefacts.read_embeddings(tmp_path / "embeddings.parquet")
    np.testing.assert_array_equal(matrix, scripted.seen[3])


def test_keep_best_needs_a_tuning_score(tmp_path):
    with pytest.raises(ConfigError, match="keep_best needs a tuning set"):
        train(TrainConfig.from_dict(SETTINGS), _pairs(), tmp_path, progress=False)
    with pytest.raises(ConfigError, match="apply to the pair objectives"):
        TrainConfig.from_dict({"objective": "targets", "optimizer": "adam", "keep_best": True})


def test_a_stack_refuses_keep_best(tmp_path):
    from paracomp.train.pairs.stacked import StackedPairTask
    from paracomp.train.pairs.task import segment_pairs

    configs = {i: TrainConfig.from_dict({**SETTINGS, "margin": m}) for i, m in enumerate((0.4, 1))}
    table = _pairs().append_column("id", pa.array([str(i) for i in range(60)]))
    table = table.append_column(
        "len1", pa.array([s.count(" ") + 1 for s in table["s1"].to_pylist()], pa.int32())
    )
    table = table.append_column(
        "len2", pa.array([s.count(" ") + 1 for s in table["s2"].to_pylist()], pa.int32())
    )
    with pytest.raises(ConfigError, match="keep_best and evals_per_epoch train point by point"):
        StackedPairTask(configs, segment_pairs(table), {0: tmp_path / "0", 1: tmp_path / "1"})
