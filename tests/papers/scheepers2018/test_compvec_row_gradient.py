"""The eager CompVec step's word-matrix gradient (TargetTask.step: the step's rows gathered as a
leaf, their gradient added into a persistent buffer) against autograd through the whole matrix
(the step before it, written out here): the same weights and Adam moments bit for bit, on 300
real definitions and the 48,944-word vocabulary, frozen and tuned phases."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from paracomp.models import LEARNED_COMPOSERS
from paracomp.papers.scheepers2018.wordnet_pairs import read_released, read_vocabulary
from paracomp.run_config import TrainConfig
from paracomp.train.targets.task import Batch, TargetTask, triplet_loss

COMPOSERS = ["sum", "mean", "product", "max_pad", "sum_proj"]
COMPOSERS += ["rnn", "gru", "bigru", "cnn3", "cnn3579"]  # Scheepers et al.'s
# the larger variants (1-3 s each) only in the full suite: rnn and cnn3 run the same code
LARGER = {"gru", "bigru", "cnn3579"}
STEPS = 10


@pytest.fixture(scope="module")
def definitions(mirror):
    folder = mirror / "compvec-wordnet"
    pairs = read_released(folder / "train_data.gz").slice(0, 300)
    vocabulary = read_vocabulary(folder / "vocab.gz")
    matrix = np.random.default_rng(0).uniform(-1, 1, (len(vocabulary), 8)).astype(np.float32)
    return pairs, vocabulary, matrix


def _autograd_step(task: TargetTask, step: int, batch: Batch) -> torch.Tensor:
    """The step as it was: the word matrix in autograd's graph, its gradient a fresh dense
    matrix from ``index_select``'s backward."""
    rows, generator = batch
    task.model.weight.requires_grad_(step >= task.config.freeze_steps)
    ids, offsets = task.data.take(rows)
    pick = torch.randint(0, task.negatives.numel(), (rows.numel(),), generator=generator)
    lemmas = torch.cat([task.data.lemmas[rows], task.negatives[pick]])
    composed, targets = task.model(ids, offsets, lemmas, task.config.dropout, generator)
    positive, negative = targets.split(rows.numel())
    loss = triplet_loss(composed, positive, negative, task.config.margin)
    task.optimizer.zero_grad(set_to_none=True)
    loss.backward()
    task.optimizer.step()
    return loss.detach()


@pytest.mark.parametrize(
    "name", [pytest.param(n, marks=pytest.mark.slow if n in LARGER else ()) for n in COMPOSERS]
)
def test_row_gradient_step_is_the_autograd_step(definitions, name: str) -> None:
    """10 steps of batch 64 with dropout (an epoch boundary within), the first 3 frozen for
    learned composers (algebraic ones have nothing to train while frozen)."""
    config = TrainConfig(
        objective="targets",
        optimizer="adam",
        lr=1e-3,
        batch_size=64,
        dropout=0.25,
        composer=name,
        margin=0.25,
        steps=STEPS,
        freeze_steps=3 if name in LEARNED_COMPOSERS else 0,
        dim=8,
    )
    new, old = TargetTask(config, *definitions), TargetTask(config, *definitions)
    for step, mine, theirs in zip(range(STEPS), new.batches(0), old.batches(0), strict=True):
        assert torch.equal(new.step(step, mine), _autograd_step(old, step, theirs)), step
        for key, value in old.model.state_dict().items():
            assert torch.equal(new.model.state_dict()[key], value), (step, key)
    state, reference = new.optimizer.state_dict(), old.optimizer.state_dict()
    assert state["param_groups"] == reference["param_groups"]
    assert state["state"].keys() == reference["state"].keys()
    for index, moments in reference["state"].items():
        assert moments.keys() == state["state"][index].keys()
        for key, value in moments.items():
            assert torch.equal(state["state"][index][key], value), (index, key)
    assert new.model.weight.grad is not None and not new.model.weight.grad.any()
