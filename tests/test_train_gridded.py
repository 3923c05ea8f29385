"""Pair runs whose composer runs gridded (train.cuda_graph.GriddedComposer, here uncaptured on
CPU: the function a CUDA graph replays) against the same runs composed plainly, on real verse
pairs: Wieting & Gimpel's encoders under dropout, word dropout and scrambling (negatives mined
without dropout), Chen & Gimpel's mega-batches and WLO prior; and when a pair task takes it."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
import torch

from paracomp.models import STATIC_COMPOSERS
from paracomp.models.registry import make_composer
from paracomp.models.tree_rnn import TreeBatch
from paracomp.train import loop
from paracomp.train.cuda_graph import GriddedComposer, graphed_composer
from paracomp.train.pairs.task import PairTask

RUNS = {
    "lstmavg-dropout-scramble": {"composer": "lstmavg", "dropout": 0.3, "scramble": 0.5},
    "gran": {"composer": "gran", "reg_initial": 1e-5},
    "bilstmavg-tanh-word-dropout": {
        "composer": "bilstmavg",
        "bi_combine": "tanh_concat",
        "word_dropout": 0.3,
    },
    "lstm-last": {"composer": "lstm", "reg_composer": 1e-4},
    "lstm_avg-megabatch": {"composer": "lstm_avg", "megabatch": 2, "scramble": 0.3},
    "tree_rnn-max_skip": {  # wieting2015's RNN (right-branching trees)
        "composer": "tree_rnn",
        "sampler": "max_skip",
        "score": "dot",
        "margin": 1.0,
        "optimizer": "adagrad",
        "lr": 0.5,
        "lr_composer": 0.05,
        "adagrad_eps": 1e-4,
    },
    "wlo-megabatch-prior": {
        "composer": "wlo",
        "score": "log_eip",
        "margin": 1.0,
        "megabatch": 2,
        "prior_weight": 0.1,
    },
}


# only in the full suite (1-2 s each): the other LSTMs, whose code the quick tier's lstmavg runs
SLOW = {"bilstmavg-tanh-word-dropout", "lstm-last", "lstm_avg-megabatch"}


@pytest.fixture
def pairs(verse_pairs):
    return verse_pairs


def _run(task: PairTask, out: Path) -> tuple[dict[str, torch.Tensor], pd.Series]:
    curve = loop.run(task, out, progress=False)
    return task.model.state_dict(), curve["loss"]


@pytest.mark.parametrize(
    "run",
    [pytest.param(run, marks=pytest.mark.slow if run in SLOW else ()) for run in sorted(RUNS)],
)
def test_gridded_run_is_the_plain_run(small_pair_config, tmp_path, pairs, run):
    config = small_pair_config(RUNS[run])
    task = PairTask(config, pairs)
    initial = {k: v.clone() for k, v in task.model.state_dict().items()}
    plain, plain_loss = _run(task, tmp_path / "plain")
    task = PairTask(config, pairs)
    assert task.model.runner is None  # CPU: composed plainly
    runner = GriddedComposer(task.model.composer, graphed=False)
    task.model.runner = runner
    gridded, gridded_loss = _run(task, tmp_path / "gridded")
    assert runner.shapes  # it composed (widths bucketed to multiples of 8)
    assert all(width % 8 == 0 for _, width, _, _ in runner.shapes)
    moved = max((plain[k] - initial[k]).abs().max() for k in plain)
    apart = max((gridded[k] - plain[k]).abs().max() for k in plain)
    assert apart < moved / 10  # rounding (which Adam may scale up), not another training
    for key, value in plain.items():
        torch.testing.assert_close(gridded[key], value, rtol=0, atol=3 * config.lr)
    pd.testing.assert_series_equal(gridded_loss, plain_loss, rtol=1e-4)


def test_which_pair_tasks_compose_by_cuda_graphs(small_pair_config):
    cuda, cpu = torch.device("cuda"), torch.device("cpu")
    gran = small_pair_config(RUNS["gran"]).to_dict()
    assert graphed_composer(gran, cuda) and graphed_composer({"composer": "gran"}, "cuda")
    assert not graphed_composer(gran, cpu)
    for change in ({"cuda_graph": False}, {"boundary_tags": "both"}, {"mixed_precision": True}):
        assert not graphed_composer({**gran, **change}, cuda), change
    assert not graphed_composer({**gran, "composer": "mean"}, cuda) and "mean" in STATIC_COMPOSERS


def test_a_shape_composed_twice_before_its_backward_is_an_error(small_pair_config, pairs):
    """A graph's buffers hold one composition's saved state: a second composition of the same
    shape before the first one's backward would corrupt its gradient."""
    task = PairTask(small_pair_config(RUNS["gran"]), pairs)
    runner = GriddedComposer(task.model.composer, graphed=False)
    task.model.runner = runner
    ids, starts = next(iter(task.data.batches(torch.arange(16), 16)))[1:]
    first = task.model.compose(ids, starts)[0]
    with pytest.raises(RuntimeError, match="composed again before the gradient"):
        task.model.compose(ids, starts)
    first.sum().backward()
    task.model.compose(ids, starts)[0].sum().backward()  # after the backward: fine
    with torch.no_grad():  # compositions without gradient hold no pending backward
        task.model.compose(ids, starts)
        task.model.compose(ids, starts)


def test_parser_trees_are_composed_plainly():
    """A TreeBatch's trees are not the grid's branching: the runner leaves it to the
    composer."""
    composer = make_composer("tree_rnn", 4, torch.Generator().manual_seed(0))
    runner = GriddedComposer(composer, graphed=False)
    rows = torch.randn(5, 4, generator=torch.Generator().manual_seed(1))
    # "a b c" left-branching, (a b) then (ab c); "d e" one merge
    merges, heights = torch.tensor([[0, 1], [3, 2], [0, 1]]), torch.tensor([1, 2, 1])
    batch = TreeBatch(rows, torch.arange(5), torch.tensor([0, 3]), merges, heights)
    assert torch.equal(runner(batch), composer(batch)) and not runner.shapes
