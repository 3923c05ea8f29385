"""The gradient worked out by hand (additive composers on CPU) against autograd's."""

import random

import numpy as np
import pyarrow as pa
import pytest
import torch

from paracomp.losses.hinge import BiCVMObjective, PairBatch, ParaphraseObjective
from paracomp.losses.negatives import MaxSampler, MixSampler, RandomSampler
from paracomp.losses.scores import SCORES
from paracomp.models.pair import PairModel
from paracomp.models.registry import COMPOSERS
from paracomp.models.sparse_rows import rows_gradient
from paracomp.models.vocab import EncodedPairs
from paracomp.run_config import TrainConfig
from paracomp.train.optim import OPTIMIZERS, make_optimizer
from paracomp.train.tasks import train_pairs as train


class AutogradModel(PairModel):
    """The same model, always differentiated by autograd."""

    has_bag = False


@pytest.mark.parametrize("mean", [False, True])
def test_rows_gradient_kernel(mean):
    # segments [3 1 3] [] [1 4]; gradients given for segments 2, 0, 2 again and 1 (empty)
    ids, starts = np.array([3, 1, 3, 1, 4]), np.array([0, 3, 3])
    segments = np.array([2, 0, 2, 1])
    grad = np.arange(8, dtype=np.float32).reshape(4, 2)
    slot = np.full(6, -1)
    index, rows = rows_gradient(ids, starts, segments, grad, mean, slot)
    assert index.tolist() == [3, 1, 4] and (slot == -1).all()
    per_segment = {0: grad[1] / (3 if mean else 1), 2: (grad[0] + grad[2]) / (2 if mean else 1)}
    want = {3: 2 * per_segment[0], 1: per_segment[0] + per_segment[2], 4: per_segment[2]}
    np.testing.assert_allclose(rows, np.stack([want[r] for r in index]), rtol=1e-6)


def _pairs(n=14, seed=0):
    rng = random.Random(seed)
    words = [f"w{i}" for i in range(25)]
    s1 = [" ".join(rng.choices(words, k=rng.randint(1, 5))) for _ in range(n)]
    s2 = [" ".join(rng.choices(words, k=rng.randint(0, 4))) for _ in range(n)]  # some empty
    return pa.table({"s1": s1, "s2": s2})


def _models(data, composer):
    init = [torch.Generator().manual_seed(0) for _ in range(2)]
    by_hand = PairModel(COMPOSERS[composer](6), data.n_rows, 0.5, init[0])
    return by_hand, AutogradModel(COMPOSERS[composer](6), data.n_rows, 0.5, init[1])


SAMPLERS = {
    "random-batch": lambda cross: RandomSampler(3, torch.Generator().manual_seed(1), "batch"),
    "random-corpus": lambda cross: RandomSampler(3, torch.Generator().manual_seed(1), "corpus"),
    "max": lambda cross: MaxSampler(torch.Generator().manual_seed(1), cross),
    "mix": lambda cross: MixSampler(torch.Generator().manual_seed(1), cross),
}


@pytest.mark.parametrize("objective", [BiCVMObjective, ParaphraseObjective])
@pytest.mark.parametrize("sampler", sorted(SAMPLERS))
@pytest.mark.parametrize("score", sorted(n for n, s in SCORES.items() if s.grad is not None))
@pytest.mark.parametrize("composer", ["sum", "mean"])
@pytest.mark.parametrize("shared", [False, True])
def test_loss_and_gradient_match_autograd(objective, sampler, score, composer, shared):
    data = EncodedPairs.build(_pairs(), shared_vocab=shared)
    batch = PairBatch(*next(data.batches(torch.randperm(14, generator=torch.Generator()), 7)), data)
    by_hand, autograd = _models(data, composer)
    loss_fn = objective(0.8, 0.01, SCORES[score])
    loss, rows = loss_fn.loss_and_gradient(by_hand, batch, SAMPLERS[sampler](not shared))
    expected = loss_fn.loss(autograd, batch, SAMPLERS[sampler](not shared))
    expected.backward()
    assert loss.item() == pytest.approx(expected.item(), rel=1e-5)
    want = autograd.weight.grad.coalesce()
    assert sorted(rows.index.tolist()) == want.indices()[0].tolist()  # every row used, once
    torch.testing.assert_close(
        rows.sparse(by_hand.weight.shape).to_dense(), want.to_dense(), rtol=1e-4, atol=1e-5
    )
    # loss() hands the same gradient to autograd, scaled by what flows back
    (2 * loss_fn.loss(by_hand, batch, SAMPLERS[sampler](not shared))).backward()
    torch.testing.assert_close(
        by_hand.weight.grad.to_dense(), 2 * want.to_dense(), rtol=1e-4, atol=1e-5
    )


@pytest.mark.parametrize("objective", [BiCVMObjective, ParaphraseObjective])
@pytest.mark.parametrize("sampler", sorted(SAMPLERS))
@pytest.mark.parametrize("score", ["half_sq_euclidean", "cosine"])
@pytest.mark.parametrize("shared", [False, True])
def test_attraction_and_hinge_scale_match_autograd(objective, sampler, score, shared):
    data = EncodedPairs.build(_pairs(), shared_vocab=shared)
    batch = PairBatch(*next(data.batches(torch.randperm(14, generator=torch.Generator()), 7)), data)
    by_hand, autograd = _models(data, "mean")
    loss_fn = objective(0.8, 0.01, SCORES[score], attraction=0.7, hinge_scale=0.3)
    loss, rows = loss_fn.loss_and_gradient(by_hand, batch, SAMPLERS[sampler](not shared))
    expected = loss_fn.loss(autograd, batch, SAMPLERS[sampler](not shared))
    expected.backward()
    assert loss.item() == pytest.approx(expected.item(), rel=1e-5)
    torch.testing.assert_close(
        rows.sparse(by_hand.weight.shape).to_dense(),
        autograd.weight.grad.to_dense(),
        rtol=1e-4,
        atol=1e-5,
    )


def test_loss_without_grad_is_the_same_number():
    data = EncodedPairs.build(_pairs(), shared_vocab=False)
    batch = PairBatch(*next(data.batches(torch.arange(14), 7)), data)
    by_hand, _ = _models(data, "sum")
    loss_fn = BiCVMObjective(1.0, 0.1)
    loss, _ = loss_fn.loss_and_gradient(by_hand, batch, SAMPLERS["random-corpus"](True))
    with torch.no_grad():
        again = loss_fn.loss(by_hand, batch, SAMPLERS["random-corpus"](True))
    assert again.item() == pytest.approx(loss.item(), rel=1e-6)
    assert loss_fn.loss_and_gradient(_models(data, "sum")[1], batch, None) is None


@pytest.mark.parametrize("name", OPTIMIZERS)
def test_step_rows_is_a_step_with_that_gradient(name):
    data = EncodedPairs.build(_pairs(), shared_vocab=False)
    batch = PairBatch(*next(data.batches(torch.arange(14), 7)), data)
    direct, via_grad = _models(data, "sum")[0], _models(data, "sum")[0]
    opts = make_optimizer(direct, name, lr=0.1), make_optimizer(via_grad, name, lr=0.1)
    loss_fn = ParaphraseObjective(0.4, 0.01)
    for _ in range(3):
        _, rows = loss_fn.loss_and_gradient(direct, batch, SAMPLERS["max"](True))
        opts[0].step_rows(direct.weight, rows)
        opts[1].zero_grad()
        loss_fn.loss(via_grad, batch, SAMPLERS["max"](True)).backward()
        opts[1].step()
    torch.testing.assert_close(direct.weight, via_grad.weight, rtol=0, atol=0)


@pytest.mark.parametrize(
    "config",
    [
        {"objective": "bicvm", "sampler": "random", "pool": "corpus", "reg": 0.01},
        {"objective": "bicvm", "sampler": "random", "pool": "batch"},
        {
            "objective": "bicvm",
            "score": "half_sq_euclidean",
            "attraction": 1.0,
            "hinge_scale": 0.1,
            "pool": "batch",
        },
        {"objective": "paraphrase", "sampler": "mix", "composer": "mean", "margin": 0.4},
    ],
)
def test_training_by_hand_ends_where_autograd_does(tmp_path, monkeypatch, config):
    config = TrainConfig.from_dict({**config, "epochs": 2, "batch_size": 5, "k": 3, "dim": 8})
    by_hand = train(config, _pairs(40), tmp_path / "by_hand", progress=False)
    monkeypatch.setattr(PairModel, "has_bag", False)
    autograd = train(config, _pairs(40), tmp_path / "autograd", progress=False)
    torch.testing.assert_close(by_hand.model.weight, autograd.model.weight, rtol=1e-4, atol=1e-5)
    assert by_hand.history["loss"].tolist() == pytest.approx(autograd.history["loss"].tolist())
