"""The static-shape step (the CUDA graph's step, run eagerly on CPU) against the eager step."""

import numpy as np
import pytest
import torch

from paracomp.run_config import TrainConfig
from paracomp.train import loop
from paracomp.train.pairs.static import PaddedSegments, StaticPairTask, supports
from paracomp.train.pairs.task import PairTask
from paracomp.train.tasks import pair_task

FAST = {"epochs": 3, "batch_size": 16, "dim": 12, "threads": 1}
REFERENCE = {"score": "half_sq_euclidean", "attraction": 1.0, "hinge_scale": 0.1}
RUNS = {
    "jbi-printed-batch": {"objective": "bicvm", "k": 5, "reg": 1e-3},
    "jbi-reference-batch": {"objective": "bicvm", "k": 20, **REFERENCE},
    "jbi-reference-corpus-mean": {
        "objective": "bicvm",
        "pool": "corpus",
        "k": 3,
        "composer": "mean",
        **REFERENCE,
    },
    "jbi-printed-corpus": {"objective": "bicvm", "pool": "corpus", "k": 3, "reg": 0.01},
    "jpa-max-cosine-shared": {
        "objective": "paraphrase",
        "sampler": "max",
        "margin": 0.4,
        "reg": 1e-5,
        "shared_vocab": True,
    },
    "jpa-mix-euclidean-mean": {
        "objective": "paraphrase",
        "sampler": "mix",
        "score": "euclidean",
        "composer": "mean",
        "reg": 1e-3,
    },
    "jpa-mix-euclidean-shared": {
        "objective": "paraphrase",
        "sampler": "mix",
        "score": "euclidean",
        "shared_vocab": True,
        "reg": 1e-2,
    },
    "jpa-max-dot-random": {"objective": "paraphrase", "sampler": "random", "score": "dot"},
}


def _trained(cls, config, pairs, tmp_path):
    task = cls(config, pairs)
    curve = loop.run(task, tmp_path / cls.__name__, progress=False)
    return task, curve


@pytest.mark.parametrize("run", sorted(RUNS))
def test_static_step_trains_as_the_eager_step(tmp_path, run, distinct_pairs):
    config = TrainConfig.from_dict({**FAST, **RUNS[run]})
    pairs = distinct_pairs()
    eager, eager_curve = _trained(PairTask, config, pairs, tmp_path)
    static, static_curve = _trained(StaticPairTask, config, pairs, tmp_path)
    torch.testing.assert_close(static.model.weight, eager.model.weight, rtol=1e-4, atol=1e-5)
    assert static_curve["loss"].tolist() == pytest.approx(eager_curve["loss"].tolist(), rel=1e-5)
    # the same draws, in the same order: the generators end in the same state
    assert torch.equal(static.sampler.generator.get_state(), eager.sampler.generator.get_state())
    assert torch.equal(static.order.get_state(), eager.order.get_state())
    # the pad row (row n_rows of the stacked table) never moves from zero
    assert not static.static.weight[:, static.static.rows].any()


def test_a_last_batch_of_one_pair(tmp_path, distinct_pairs):
    """17 pairs in batches of 8: the last batch has one pair and no in-batch negatives."""
    for sampler in ({"sampler": "random"}, {"sampler": "mix", "objective": "paraphrase"}):
        config = TrainConfig.from_dict({**FAST, "batch_size": 8, "k": 3, **sampler})
        pairs = distinct_pairs(17)
        eager, _ = _trained(PairTask, config, pairs, tmp_path / sampler["sampler"])
        static, _ = _trained(StaticPairTask, config, pairs, tmp_path / sampler["sampler"])
        torch.testing.assert_close(static.model.weight, eager.model.weight, rtol=1e-4, atol=1e-5)


class Killed(Exception):
    pass


def test_static_run_resumes_to_the_same_weights(tmp_path, distinct_pairs):
    config = TrainConfig.from_dict({**FAST, **RUNS["jpa-mix-euclidean-mean"]})
    whole, _ = _trained(StaticPairTask, config, distinct_pairs(), tmp_path / "whole")

    def kill_in_epoch_2(epoch, encoder):
        if epoch == 2:
            raise Killed
        return {}

    killed = StaticPairTask(config, distinct_pairs())
    with pytest.raises(Killed):
        loop.run(killed, tmp_path / "killed", kill_in_epoch_2, progress=False)
    resumed = StaticPairTask(config, distinct_pairs())
    loop.run(resumed, tmp_path / "killed", progress=False)
    assert torch.equal(resumed.model.weight, whole.model.weight)
    # the resumed AdaGrad sums are the stack's again (a loaded checkpoint replaced them)
    adagrad = resumed.optimizer.optimizers[0]
    sums = adagrad.state[resumed.model.weight]["sum"]
    assert sums.data_ptr() == resumed.static.sums.data_ptr()


def test_padded_segments():
    # segments [3 1 3] [] [1 4]; pad 9
    padded = PaddedSegments.build(np.array([3, 1, 3, 1, 4]), np.array([0, 3, 3, 5]), 9)
    assert padded.ids.tolist() == [[3, 1, 3], [9, 9, 9], [1, 4, 9]]
    assert padded.lengths.tolist() == [3.0, 1.0, 2.0]


def test_what_the_static_step_trains(distinct_pairs):
    assert supports(TrainConfig(composer="mean", objective="paraphrase"))
    for other in ({"composer": "gru"}, {"optimizer": "sgd"}, {"mixed_precision": True}):
        assert not supports(TrainConfig(**other))
    assert not supports(TrainConfig(objective="targets", optimizer="adam"))
    # the CPU path is the eager one whatever cuda_graph says
    assert type(pair_task(TrainConfig(**FAST), distinct_pairs(20))) is PairTask
