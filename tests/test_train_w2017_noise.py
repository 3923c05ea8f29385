"""Wieting & Gimpel's (2017) regularisers in pair runs (paracomp.train.pairs.noisy, PairTask):
negatives mined on the pass without dropout after scrambling, MAX never picking the anchor or
its partner among the 2B segments, word dropout that zeroes whole vectors and keeps lengths,
reproducible perturbations, bit-identical resume with dropout on, the settings' rules, and a
one-epoch ``paracomp train`` of lstmavg and gran (with a run folder read back)."""

from __future__ import annotations

import json
import random

import pyarrow as pa
import pytest
import torch

from paracomp import artefacts
from paracomp.artefacts import Provenance
from paracomp.cli import main
from paracomp.errors import ConfigError
from paracomp.eval.trained import load_run
from paracomp.losses.hinge import PairBatch
from paracomp.losses.negatives import Layout, MaxSampler
from paracomp.losses.scores import SCORES
from paracomp.models.base import SegmentBatch
from paracomp.models.registry import COMPOSERS
from paracomp.run_config import TrainConfig
from paracomp.train.pairs.noisy import noisy_loss
from paracomp.train.pairs.perturb import InputNoise, word_dropout
from paracomp.train.pairs.task import PairTask
from paracomp.train.tasks import train_pairs as train

WORDS = ["the", "cat", "dog", "sat", "ran", "on", "a", "mat", "big", "red", "small", "old"]


def _pairs(n: int = 40, seed: int = 0) -> pa.Table:
    rng = random.Random(seed)
    s1 = [" ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 9))) for _ in range(n)]
    s2 = [" ".join(w for w in s.split() if rng.random() < 0.85) or s for s in s1]
    return pa.table(
        {
            "id": [str(i) for i in range(n)],
            "s1": s1,
            "s2": s2,
            "len1": pa.array([len(s.split()) for s in s1], pa.int32()),
            "len2": pa.array([len(s.split()) for s in s2], pa.int32()),
        }
    )


BASE = {
    "objective": "paraphrase",
    "sampler": "max",
    "shared_vocab": True,
    "score": "cosine",
    "margin": 0.4,
    "optimizer": "adam",
    "lr": 0.01,
    "dim": 6,
    "batch_size": 8,
    "epochs": 3,
}


def _first_batch(task: PairTask):
    return next(task.data.batches(torch.arange(task.data.n_pairs), task.config.batch_size))


# ---------------------------------------------------------------------------------------------
# MAX over the 2B segments


def test_max_never_picks_the_anchor_or_its_partner_over_both_sides():
    # pair i = (v_i, v_i): self and partner are the most similar; the next best is known
    b = 4
    base = torch.tensor([[1.0, 0.0], [0.8, 0.6], [0.0, 1.0], [-1.0, 0.1]])
    vectors = torch.cat([base, base])
    sampler = MaxSampler(torch.Generator(), cross=False)
    rows = sampler.sample(vectors, Layout(b), SCORES["cosine"])[:, 0]
    pair = rows % b
    assert (pair != torch.arange(2 * b) % b).all()
    # pair 0's best other is pair 1 (either side: the first maximum, side 1)
    assert rows.tolist() == [1, 0, 1, 2, 1, 0, 1, 2]
    # candidates come from both sides: make side 2 of pair 2 the best for pair 0's anchors
    vectors[b + 2] = torch.tensor([1.0, 0.05])
    rows = sampler.sample(vectors, Layout(b), SCORES["cosine"])[:, 0]
    assert rows[0].item() == b + 2 and rows[b].item() == b + 2


# ---------------------------------------------------------------------------------------------
# noisy_loss


class _Spy(MaxSampler):
    """MAX that records the vectors it mines from."""

    def sample(self, vectors, layout, score, sims=None):
        self.seen = vectors.clone()
        return super().sample(vectors, layout, score, sims)


@pytest.mark.parametrize("composer", ["lstmavg", "gran", "mean"])
def test_negatives_are_mined_without_dropout_after_scrambling(composer):
    config = TrainConfig.from_dict(
        {**BASE, "composer": composer, "dropout": 0.5, "scramble": 1.0, "batch_size": 10}
    )
    task = PairTask(config, _pairs())
    spy = _Spy(torch.Generator(), cross=False)
    task.sampler = spy
    pairs, ids, starts = _first_batch(task)
    scrambled = task.noise.scrambled(ids, starts, task.perturb)
    assert not torch.equal(scrambled, ids)
    noisy_loss(
        task.objective,
        task.model,
        PairBatch(pairs, scrambled, starts, task.data),
        spy,
        task.noise,
        task.perturb,
    )
    with torch.no_grad():
        clean = task.model(scrambled, starts)
    assert torch.equal(spy.seen, clean)


@pytest.mark.parametrize("composer", ["lstmavg", "gran", "mean"])
def test_without_drops_the_noisy_loss_is_the_objectives(composer):
    # a rate so small that nothing is dropped: the 4B composition (anchors, then copies of
    # their negatives) gives the objective's loss and gradient
    config = TrainConfig.from_dict({**BASE, "composer": composer, "reg": 1e-3, "dim": 5})
    task = PairTask(config, _pairs())
    batch = PairBatch(*_first_batch(task), task.data)
    noise = InputNoise(dropout=1e-30)
    noisy = noisy_loss(task.objective, task.model, batch, task.sampler, noise, torch.Generator())
    params = [task.model.weight, *task.model.composer.parameters()]
    noisy.backward()
    grads = [p.grad.to_dense().clone() for p in params]
    for p in params:
        p.grad = None
    with torch.enable_grad():
        plain = task.objective.loss(task.model, batch, task.sampler)
    plain.backward()
    torch.testing.assert_close(noisy, plain)
    for ours, theirs in zip(grads, [p.grad.to_dense() for p in params], strict=True):
        torch.testing.assert_close(ours, theirs)


def test_a_batch_of_one_pair_has_no_negative_and_no_loss():
    config = TrainConfig.from_dict({**BASE, "composer": "gran", "dropout": 0.3, "batch_size": 1})
    task = PairTask(config, _pairs(3))
    assert task.step(0, _first_batch(task)).item() == 0.0


def test_dropout_draws_come_from_the_perturbation_generator():
    config = TrainConfig.from_dict({**BASE, "composer": "gran", "word_dropout": 0.3})
    one, two = PairTask(config, _pairs()), PairTask(config, _pairs())
    batch = _first_batch(one)
    assert one.perturb is not None
    assert one.step(0, batch).item() == two.step(0, batch).item()
    two.perturb.manual_seed(12345)
    assert one.step(1, batch).item() != two.step(1, batch).item()


# ---------------------------------------------------------------------------------------------
# Word dropout and scrambling


def test_word_dropout_zeroes_whole_vectors_and_keeps_lengths():
    rows = torch.arange(1.0, 13.0).view(4, 3)
    batch = SegmentBatch(rows, torch.tensor([0, 1, 2, 3, 0, 1, 2, 3] * 25), torch.tensor([0, 80]))
    dropped = word_dropout(batch, 0.5, torch.Generator().manual_seed(0))
    tokens = dropped.tokens()
    zero = (tokens == 0).all(1)
    assert ((tokens == 0).any(1) == zero).all()  # a vector is zeroed whole or not at all
    assert 0 < zero.sum() < 200
    torch.testing.assert_close(tokens[~zero], 2.0 * batch.tokens()[~zero])
    assert dropped.lengths().tolist() == [80, 120]
    mean = COMPOSERS["mean"](3)(dropped)  # the mean still divides by the full length
    torch.testing.assert_close(mean[0], tokens[:80].sum(0) / 80)


def test_scrambling_and_dropout_are_reproducible_from_the_seed():
    config = TrainConfig.from_dict({**BASE, "composer": "lstmavg", "dropout": 0.4, "scramble": 0.5})
    one, two = PairTask(config, _pairs()), PairTask(config, _pairs())
    _, ids, starts = _first_batch(one)
    assert torch.equal(
        one.noise.scrambled(ids, starts, one.perturb), two.noise.scrambled(ids, starts, two.perturb)
    )
    other = PairTask(TrainConfig.from_dict({**config.to_dict(), "seed": 2}), _pairs())
    assert not torch.equal(
        one.noise.scrambled(ids, starts, one.perturb),
        other.noise.scrambled(ids, starts, other.perturb),
    )


# ---------------------------------------------------------------------------------------------
# Resume


class Killed(Exception):
    pass


@pytest.mark.parametrize(
    "settings",
    [
        {"composer": "gran", "dropout": 0.4, "scramble": 0.5},
        {"composer": "lstmavg", "word_dropout": 0.3, "scramble": 0.75, "reg_initial": 1e-5},
        {"composer": "mean", "dropout": 0.3},
    ],
    ids=["gran-dropout", "lstmavg-word-dropout", "mean-dropout"],
)
def test_resume_with_dropout_is_bit_identical(tmp_path, settings):
    config = TrainConfig.from_dict({**BASE, **settings})
    pairs = _pairs()
    whole = train(config, pairs, tmp_path / "whole", progress=False)

    def kill_in_epoch_2(epoch, encoder):
        if epoch == 2:
            raise Killed
        return {}

    with pytest.raises(Killed):
        train(config, pairs, tmp_path / "killed", progress=False, callback=kill_in_epoch_2)
    saved = torch.load(tmp_path / "killed" / "checkpoint.pt", weights_only=True)
    assert "perturb" in saved["task"]
    resumed = train(config, pairs, tmp_path / "killed", progress=False)
    assert torch.equal(whole.model.weight, resumed.model.weight)
    for a, b in zip(whole.model.composer.parameters(), resumed.model.composer.parameters()):
        assert torch.equal(a, b)
    assert whole.history["loss"].tolist() == resumed.history["loss"].tolist()


# ---------------------------------------------------------------------------------------------
# Settings


def test_dropout_settings_rules():
    with pytest.raises(ConfigError, match="cannot both"):
        TrainConfig(dropout=0.2, word_dropout=0.2)
    with pytest.raises(ConfigError, match="max_skip"):
        TrainConfig(objective="paraphrase", sampler="max_skip", dropout=0.2)
    with pytest.raises(ConfigError, match="tree_rnn"):
        TrainConfig(composer="tree_rnn", word_dropout=0.2)
    with pytest.raises(ConfigError, match="not 'targets'"):
        TrainConfig(objective="targets", optimizer="adam", word_dropout=0.2)
    TrainConfig(objective="targets", optimizer="adam", dropout=0.25)  # CompVec's, as before
    task = PairTask(TrainConfig.from_dict({**BASE, "composer": "mean"}), _pairs())
    assert task.perturb is None and not task.dropping  # nothing on: nothing drawn


def test_static_cuda_step_is_not_taken_with_dropout():
    from paracomp.train.pairs.static import supports

    plain = TrainConfig(objective="paraphrase", sampler="max", composer="mean")
    assert supports(plain)
    assert not supports(TrainConfig(**{**plain.to_dict(), "dropout": 0.2}))
    assert not supports(TrainConfig(**{**plain.to_dict(), "word_dropout": 0.2}))


def test_megabatch_mode_drops_out_the_step_not_the_mining(tmp_path):
    config = TrainConfig.from_dict(
        {**BASE, "composer": "lstmavg", "megabatch": 2, "dropout": 0.4, "epochs": 1}
    )
    task = PairTask(config, _pairs())
    step = next(task.batches(0))
    state = task.perturb.get_state()
    loss = task.step(0, step)
    assert torch.isfinite(loss)
    assert not torch.equal(task.perturb.get_state(), state)  # the step drew its masks


# ---------------------------------------------------------------------------------------------
# One epoch of `paracomp train`


@pytest.mark.parametrize(
    "settings",
    [
        {"composer": "lstmavg", "dropout": 0.4, "scramble": 0.5, "reg_initial": 1e-5},
        {"composer": "gran", "dropout": 0.4, "scramble": 0.5},
        {"composer": "bigran", "bi_combine": "tanh_concat", "word_dropout": 0.2},
    ],
    ids=["lstmavg", "gran", "bigran-tanh"],
)
def test_one_epoch_of_paracomp_train(tmp_path, settings):
    prov = Provenance("t", "test", {}, {})
    artefacts.write(_pairs(60), tmp_path / "pairs.parquet", artefacts.SEGMENT_PAIRS, prov)
    params = {**BASE, "epochs": 1, "batch_size": 20, "dim": 8, **settings}
    args = ["train", "--pairs", str(tmp_path / "pairs.parquet"), "--params", json.dumps(params)]
    args += ["--out", str(tmp_path / "run"), "--record", str(tmp_path / "record.json")]
    assert main(args) == 0
    record = json.loads((tmp_path / "record.json").read_text())
    assert record["pairs"] == 60 and record["epochs"] == 1
    config, encoder = load_run(tmp_path / "run")
    assert config.composer == settings["composer"]
    vectors = encoder.encode([["the", "cat", "sat"], ["a", "big", "dog"], []])
    assert vectors.shape == (3, 8) and not vectors[2].any() and vectors[:2].any()


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
@pytest.mark.parametrize("composer", ["lstmavg", "gran", "bilstmavg"])
def test_first_steps_on_cuda_match_cpu(composer):
    settings = {**BASE, "composer": composer, "dropout": 0.4, "scramble": 0.5, "dim": 8}
    losses = {}
    for device in ("cpu", "cuda"):
        task = PairTask(TrainConfig.from_dict({**settings, "device": device}), _pairs())
        batches = task.batches(0)
        losses[device] = [task.step(step, next(batches)).item() for step in range(3)]
    assert losses["cuda"] == pytest.approx(losses["cpu"], rel=1e-4, abs=1e-6)
