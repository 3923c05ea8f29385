"""The static CompVec step (train.static_targets) on CPU: free of host reads (traced whole by
torch.compile) for every composition function of Scheepers et al., and runs on real CompVec
definitions equal to the eager TargetTask's; resumed runs bit-identical. On CUDA (skipped
without): the graphs against the eager CUDA step, and no synchronising call within an epoch."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import torch

from paracomp import run_folder
from paracomp.models import LEARNED_COMPOSERS, STATIC_COMPOSERS
from paracomp.papers.scheepers2018.wordnet_pairs import read_released, read_vocabulary
from paracomp.run_config import TrainConfig
from paracomp.train import loop
from paracomp.train.targets.static import StaticTargetTask
from paracomp.train.targets.task import TargetTask
from paracomp.train.tasks import target_task

STATIC = ["sum", "mean", "product", "max", "max_pad", "sum_proj"]
STATIC += ["rnn", "gru", "bigru", "cnn3", "cnn3579"]  # Scheepers et al.'s
# the larger variants' runs (1-3 s each) only in the full suite: rnn and cnn3 run the same code
LARGER = {"gru", "bigru", "cnn3579"}


def _definitions(mirror: Path, n: int = 300):
    folder = mirror / "compvec-wordnet"
    pairs = read_released(folder / "train_data.gz").slice(0, n)
    vocabulary = read_vocabulary(folder / "vocab.gz")
    return pairs, vocabulary


def _config(name: str, **settings) -> TrainConfig:
    base = {
        "objective": "targets",
        "optimizer": "adam",
        "lr": 1e-3,
        "batch_size": 64,
        "dropout": 0.25,
        "composer": name,
        "margin": 0.25,
        "steps": 12,
        "freeze_steps": 3 if name in LEARNED_COMPOSERS else 0,
        "log_every": 4,
        "checkpoint_every": 4,
        "dim": 8,
    }
    return TrainConfig(**{**base, **settings})


@pytest.fixture(scope="module")
def definitions(mirror):
    pairs, vocabulary = _definitions(mirror)
    matrix = np.random.default_rng(0).uniform(-1, 1, (len(vocabulary), 8)).astype(np.float32)
    return pairs, vocabulary, matrix


@pytest.mark.parametrize("name", STATIC)
@pytest.mark.slow
def test_static_step_traces_whole(definitions, name: str) -> None:
    """The static step's loss (layout, gathers, composer, lemmas, hinge) and its backward
    compile as one graph: nothing in them reads a tensor back on the host or has a shape that
    depends on the data, which a CUDA graph needs. (``allow_rnn``: Dynamo refuses modules of
    class ``nn.GRU``, here holders of the weights that the static path steps by hand.)"""
    torch._dynamo.reset()
    task = StaticTargetTask(_config(name, dropout=0.0), *definitions)
    rows = torch.arange(64)
    pick = task.draws(rows)
    eager = task.loss(rows, pick)
    traced = torch.compile(task.loss, fullgraph=True, backend="aot_eager", dynamic=False)
    with torch._dynamo.config.patch(allow_rnn=True):
        loss = traced(rows, pick)
    torch.testing.assert_close(loss, eager)
    loss.backward()  # the backward graph traced too
    assert task.model.weight.grad is not None


@pytest.mark.slow
def test_eager_step_does_not_trace_whole(definitions) -> None:
    """The check above can fail: the eager step's recurrent composers pack their batch by
    lengths read on the host."""
    torch._dynamo.reset()
    task = TargetTask(_config("gru", dropout=0.0), *definitions)

    def loss(rows: torch.Tensor) -> torch.Tensor:
        ids, offsets = task.data.take(rows)
        lemmas = task.data.lemmas.index_select(0, rows)
        return task.model(ids, offsets, torch.cat([lemmas, lemmas]), 0.0)[0].sum()

    traced = torch.compile(loss, fullgraph=True, backend="aot_eager", dynamic=False)
    with torch._dynamo.config.patch(allow_rnn=True), pytest.raises(Exception, match="data-dep"):
        traced(torch.arange(64))


def _run(task: loop.Task, out: Path) -> dict[str, torch.Tensor]:
    loop.run(task, out, progress=False)
    return task.model.state_dict()


@pytest.mark.parametrize(
    "name", [pytest.param(n, marks=pytest.mark.slow if n in LARGER else ()) for n in STATIC]
)
def test_static_run_equals_the_eager_run(definitions, tmp_path, name: str) -> None:
    """12 steps (batches of 64 of 300 real definitions, the last of each epoch smaller) with
    dropout and, for learned composers, 3 frozen steps: the same weights as the eager task's
    (algebraic composers bit for bit; the others' steps differ in rounding, which Adam, scaling
    tiny gradients up to a full step, turns into differences of up to a few lr)."""
    config = _config(name)
    eager = _run(TargetTask(config, *definitions), tmp_path / "eager")
    static = _run(StaticTargetTask(config, *definitions), tmp_path / "static")
    for key, value in eager.items():
        if name in LEARNED_COMPOSERS:
            torch.testing.assert_close(static[key], value, rtol=0, atol=3 * config.lr)
        else:
            assert torch.equal(static[key], value), key
    curves = [pd.read_parquet(tmp_path / k / run_folder.CURVE)["loss"] for k in ("eager", "static")]
    np.testing.assert_allclose(curves[1], curves[0], rtol=1e-4)


def test_static_run_resumes_bit_identical(definitions, tmp_path) -> None:
    config = _config("gru")
    whole = _run(StaticTargetTask(config, *definitions), tmp_path / "whole")
    _run(StaticTargetTask(_config("gru", steps=8), *definitions), tmp_path / "parts")
    resumed = _run(StaticTargetTask(config, *definitions), tmp_path / "parts")
    for key, value in whole.items():
        assert torch.equal(resumed[key], value), key


def test_the_scheepers_composers_are_static() -> None:
    assert set(STATIC) <= STATIC_COMPOSERS


def test_target_task_is_eager_on_cpu(definitions) -> None:
    assert type(target_task(_config("gru"), *definitions)) is TargetTask
    with pytest.raises(ValueError, match="no static step"):
        StaticTargetTask(_config("lstm", boundary_tags="both"), *definitions)


def _cuda_definitions(mirror):
    pairs, vocabulary = _definitions(mirror)
    matrix = np.random.default_rng(0).uniform(-1, 1, (len(vocabulary), 16)).astype(np.float32)
    return pairs, vocabulary, matrix


CUDA = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
COMPVEC = {
    "objective": "targets",
    "optimizer": "adam",
    "lr": 1e-3,
    "batch_size": 64,
    "margin": 0.25,
    "steps": 12,
    "log_every": 4,
    "checkpoint_every": 4,
    "dim": 16,
    "device": "cuda",
}


@CUDA
@pytest.mark.parametrize("composer", ["sum", "max_pad", "sum_proj", "gru", "bigru", "cnn3579"])
def test_graphed_compvec_run_is_the_eager_cuda_run(tmp_path, mirror, composer):
    """Without dropout both draw the same negatives: the graphs (a frozen and a tuned phase for
    learned composers) replay the eager CUDA step, up to rounding that Adam may scale up to a
    few lr."""
    freeze = 3 if composer in LEARNED_COMPOSERS else 0
    settings = {**COMPVEC, "composer": composer, "freeze_steps": freeze, "dropout": 0.0}
    data = _cuda_definitions(mirror)
    graphed = target_task(TrainConfig.from_dict(settings), *data)
    assert isinstance(graphed, StaticTargetTask)
    graphed_losses = loop.run(graphed, tmp_path / "graphed", progress=False)["loss"].tolist()
    assert all(step.graph is not None for step in graphed._steps.values())
    eager = TargetTask(TrainConfig.from_dict({**settings, "cuda_graph": False}), *data)
    eager_losses = loop.run(eager, tmp_path / "eager", progress=False)["loss"].tolist()
    for mine, theirs in zip(graphed.model.parameters(), eager.model.parameters(), strict=True):
        torch.testing.assert_close(mine, theirs, rtol=0, atol=3e-3)
    assert graphed_losses == pytest.approx(eager_losses, rel=1e-4)


@CUDA
def test_graphed_compvec_steps_never_wait_for_the_gpu(mirror, never_waits):
    """GRU with dropout: after warm-up and capture, the steps of an epoch (its smaller last
    batch, eager, included) make no synchronising call."""
    settings = {**COMPVEC, "composer": "gru", "dropout": 0.25, "batch_size": 32}
    task = target_task(TrainConfig.from_dict(settings), *_cuda_definitions(mirror))
    never_waits(task, 2, task.steps_per_epoch - 2)
