"""The static step of the pair objectives through autograd (train.static_learned) on CPU,
against the eager PairTask on real verse pairs: Wieting & Gimpel's encoders under dropout, word
dropout and scrambling, L2 pulls, MAX, MIX and random in-batch negatives, Adam, AdaGrad and SGD;
Chen & Gimpel's mega-batches (LSTM AVG, LSTM GAUSSIAN, WLO, AVG); checkpoints moving between
the two steps; bit-identical resume; the static draws of the graphed step; the loss traced
whole by torch.compile."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
import torch

from paracomp.models.base import StaticLayout
from paracomp.train import loop
from paracomp.train.pairs.perturb import scramble
from paracomp.train.pairs.static_learned import StaticLearnedTask, supports
from paracomp.train.pairs.task import PairTask
from paracomp.train.tasks import pair_task

RUNS = {
    "lstmavg-dropout-scramble": {"composer": "lstmavg", "dropout": 0.3, "scramble": 0.5},
    "gran-l2": {"composer": "gran", "reg_initial": 1e-5, "reg_composer": 1e-4},
    "bilstmavg-tanh-word-dropout": {
        "composer": "bilstmavg",
        "bi_combine": "tanh_concat",
        "word_dropout": 0.3,
    },
    "lstm-last": {"composer": "lstm"},
    "lstmavg-lazy-adam": {"composer": "lstmavg", "adam_rows": "lazy"},
    "avg-dropout": {"composer": "mean", "dropout": 0.3},
    "gru-mix-adagrad": {"composer": "gru", "sampler": "mix", "optimizer": "adagrad", "lr": 0.05},
    "lstm_avg-megabatch-scramble": {"composer": "lstm_avg", "megabatch": 2, "scramble": 0.3},
    "avg-megabatch": {"composer": "mean", "megabatch": 3},
    "lstm_gaussian-megabatch": {  # no scrambling: a near tie in the mining of the second
        # epoch, which the two steps' rounding breaks apart, would make the runs diverge
        "composer": "lstm_gaussian",
        "score": "log_eip",
        "margin": 1.0,
        "megabatch": 2,
    },
    "wlo-megabatch-prior": {
        "composer": "wlo",
        "score": "log_eip",
        "margin": 1.0,
        "megabatch": 2,
        "prior_weight": 0.01,
    },
    "avg-megabatch-l2": {"composer": "mean", "megabatch": 2, "reg": 1e-4},
    "lstmavg-l2-dropout": {"composer": "lstmavg", "reg": 1e-3, "dropout": 0.2},
    "gran-l2-adagrad": {"composer": "gran", "reg": 1e-3, "optimizer": "adagrad", "lr": 0.05},
    "gran-megabatch-dropout": {"composer": "gran", "megabatch": 2, "dropout": 0.2},
    "sum_proj-random-sgd": {
        "composer": "sum_proj",
        "sampler": "random",
        "pool": "batch",
        "k": 3,
        "optimizer": "sgd",
        "lr": 0.05,
        "scramble": 0.3,
        "dropout": 0.2,
    },
}


# The quick tier's runs: each encoder family, sampler, optimiser and regulariser once; the other
# runs (about 1-2 s each: the LSTMs, the other combinations) only in the full suite.
QUICK = {"avg-dropout", "avg-megabatch-l2", "gran-l2", "gru-mix-adagrad", "sum_proj-random-sgd",
         "wlo-megabatch-prior"}  # fmt: skip


@pytest.fixture
def pairs(verse_pairs):
    return verse_pairs


def _run(task: PairTask, out: Path) -> tuple[dict[str, torch.Tensor], pd.Series]:
    curve = loop.run(task, out, progress=False)
    return {k: v.clone() for k, v in task.model.state_dict().items()}, curve["loss"]


@pytest.mark.parametrize(
    "run",
    [pytest.param(run, marks=() if run in QUICK else pytest.mark.slow) for run in sorted(RUNS)],
)
def test_static_run_is_the_eager_run(small_pair_config, tmp_path, pairs, run):
    config = small_pair_config(RUNS[run])
    assert supports(config)
    task = PairTask(config, pairs)
    initial = {k: v.clone() for k, v in task.model.state_dict().items()}
    eager, eager_loss = _run(task, tmp_path / "eager")
    static, static_loss = _run(StaticLearnedTask(config, pairs), tmp_path / "static")
    moved = max((eager[k] - initial[k]).abs().max() for k in eager)
    assert moved > 0.01  # it trained
    # Adam and AdaGrad move an entry by about lr whatever its gradient's size: rounding in a
    # near-zero gradient entry (a saturated gate, a bias) shows at a share of lr
    atol = 0.2 * config.lr if config.optimizer in ("adam", "adagrad") else 1e-5
    for key, value in eager.items():
        torch.testing.assert_close(static[key], value, rtol=1e-4, atol=atol)
    pd.testing.assert_series_equal(static_loss, eager_loss, rtol=1e-5)


def test_checkpoints_move_between_the_steps(small_pair_config, tmp_path, pairs):
    """One epoch eager, the second static from its checkpoint: the eager run's weights."""
    run = RUNS["lstmavg-dropout-scramble"]
    whole, _ = _run(PairTask(small_pair_config(run), pairs), tmp_path / "whole")
    _run(PairTask(small_pair_config(run, epochs=1), pairs), tmp_path / "parts")
    resumed, _ = _run(StaticLearnedTask(small_pair_config(run), pairs), tmp_path / "parts")
    for key, value in whole.items():
        torch.testing.assert_close(resumed[key], value, rtol=1e-4, atol=1e-5)


def test_static_run_resumes_bit_identical(small_pair_config, tmp_path, pairs):
    noisy = {**RUNS["gran-l2"], "scramble": 0.5, "dropout": 0.2}
    config = small_pair_config(noisy)
    whole, _ = _run(StaticLearnedTask(config, pairs), tmp_path / "whole")
    _run(StaticLearnedTask(small_pair_config(noisy, epochs=1), pairs), tmp_path / "parts")
    resumed, _ = _run(StaticLearnedTask(config, pairs), tmp_path / "parts")
    for key, value in whole.items():
        assert torch.equal(resumed[key], value), key


@pytest.mark.parametrize(
    "run",
    ["lstmavg-dropout-scramble", pytest.param("gran-megabatch-dropout", marks=pytest.mark.slow)],
)
def test_static_draws_train_too(small_pair_config, tmp_path, pairs, run):
    """The graph's draws (every grid position, pads included): other draws than the eager
    step's, the same training."""
    config = small_pair_config(RUNS[run], epochs=3)
    _, eager_loss = _run(PairTask(config, pairs), tmp_path / "eager")
    task = StaticLearnedTask(config, pairs, static_draws=True)
    static, static_loss = _run(task, tmp_path / "static")
    assert not static_loss.equals(eager_loss)
    assert static_loss.iloc[-1] < static_loss.iloc[0]
    assert abs(static_loss.iloc[-1] - eager_loss.iloc[-1]) < 0.1 * eager_loss.iloc[-1]


def test_scrambling_a_layout_leaves_its_pads():
    """``scramble(..., pairs=B)`` on a StaticLayout: each drawn segment is a permutation of its
    own tokens, undrawn ones and the pad segment stay as they are."""
    lengths = torch.tensor([3, 5, 1, 4, 2, 5])  # 3 pairs
    layout = StaticLayout.build(lengths, 6)
    grid = torch.arange(100, 136).view(6, 6)
    ids = layout.ids(grid)
    out = scramble(ids, layout.offsets, 1.0, torch.Generator().manual_seed(0), pairs=3)
    bounds = layout.offsets.tolist() + [ids.numel()]
    for i, (start, stop) in enumerate(zip(bounds[:-1], bounds[1:], strict=True)):
        assert sorted(out[start:stop].tolist()) == sorted(ids[start:stop].tolist()), i
    assert torch.equal(out[bounds[-2] :], ids[bounds[-2] :])  # the pads
    assert not torch.equal(out[: bounds[-2]], ids[: bounds[-2]])
    kept = scramble(ids, layout.offsets, 0.0, torch.Generator().manual_seed(0), pairs=3)
    assert torch.equal(kept, ids)


@pytest.mark.filterwarnings("ignore:Dynamo detected a call to a `functools.lru_cache`")
@pytest.mark.slow
def test_static_loss_traces_whole(small_pair_config, pairs):
    """Without perturbations (whose generators Dynamo does not trace) the loss, its layout,
    composer, MAX mining and hinge compile as one graph."""
    task = StaticLearnedTask(small_pair_config(RUNS["gran-l2"]), pairs)
    batch = torch.arange(16)
    torch._dynamo.reset()
    traced = torch.compile(task.loss, fullgraph=True, backend="aot_eager", dynamic=False)
    loss, used = traced(batch)
    torch.testing.assert_close(loss, task.loss(batch)[0])
    loss.backward()


def test_which_runs_take_it(small_pair_config, pairs):
    gran = RUNS["gran-l2"]
    assert type(pair_task(small_pair_config(gran), pairs)) is PairTask  # CPU: the eager step
    for change in ({"megabatch": 2}, {"sampler": "random", "pool": "corpus"}):
        assert not supports(small_pair_config(gran, **change)), change  # mega-batches: no L2
    assert not supports(small_pair_config(RUNS["wlo-megabatch-prior"], prior="running"))
    with pytest.raises(ValueError, match="no static step"):
        StaticLearnedTask(small_pair_config(gran, megabatch=2), pairs)
