"""CompVec training (scheepers2018): data encoding, triplet loss, run variants, freezing,
determinism and resume after a kill."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest
import torch

from paracomp import artefacts
from paracomp.errors import ConfigError, DataError
from paracomp.models.definition import EncodedDefinitions
from paracomp.papers.scheepers2018.runs import run_config
from paracomp.run_config import TrainConfig
from paracomp.train.pretrained import initial_matrix
from paracomp.train.targets import task as targets
from paracomp.train.targets.task import triplet_loss
from paracomp.train.tasks import train_targets

VOCAB = ["PAD", "UNK", "a", "small", "dog", "cat", "animal", "pet", "young", "kitten", "puppy"]
PAIRS = pa.table(
    {
        "lemma": ["dog", "cat", "kitten", "puppy", "pet", "animal"],
        "definition": [
            "a small animal",
            "a small pet animal",
            "a young cat",
            "a young dog",
            "a tame animal zebra",
            "a living thing",
        ],
    }
)
SETTINGS = {"steps": 8, "freeze_steps": 3, "batch_size": 4, "log_every": 2, "checkpoint_every": 2}
MARGINS = {"sum": 5.0, "default": 0.25}


@pytest.fixture
def matrix() -> np.ndarray:
    rng = np.random.default_rng(0)
    out = rng.normal(size=(len(VOCAB), 6)).astype(np.float32)
    out[0] = 0
    return out


def test_encoded_definitions_truncate_and_unknown() -> None:
    index = {w: i for i, w in enumerate(VOCAB)}
    data = EncodedDefinitions.build(["a small dog", "zebra a", "a young cat"], [], index, 2)
    assert len(data) == 3
    ids, offsets = data.take(torch.tensor([2, 1]))
    assert ids.tolist() == [2, 8, 1, 2]  # "a young" (cut at 2), then "zebra"->UNK, "a"
    assert offsets.tolist() == [0, 2]
    with pytest.raises(DataError, match="not in the vocabulary"):
        EncodedDefinitions.build(["a"], ["zebra"], index, 32)


def test_triplet_loss_by_hand() -> None:
    c = torch.tensor([[0.0, 0.0], [1.0, 1.0]])
    pos = torch.tensor([[1.0, 0.0], [1.0, 1.0]])  # distances² 1 and 0
    neg = torch.tensor([[0.0, 2.0], [1.0, 1.5]])  # distances² 4 and 0.25
    # [α + d⁺ − d⁻]_+ with α = 0.5: [0.5 + 1 − 4]_+ = 0 and [0.5 + 0 − 0.25]_+ = 0.25
    assert triplet_loss(c, pos, neg, 0.5).item() == pytest.approx(0.125)


def test_run_config_variants() -> None:
    settings = {"steps": 100, "freeze_steps": 10}
    original_sum = run_config("sum", "sum", "original", settings, MARGINS)
    assert (original_sum.steps, original_sum.margin) == (0, 5.0)
    compvec_mean = run_config("average", "mean", "compvec", settings, MARGINS)
    assert (compvec_mean.steps, compvec_mean.freeze_steps, compvec_mean.margin) == (100, 0, 0.25)
    original_gru = run_config("gru", "gru", "original", settings, MARGINS)
    assert (original_gru.steps, original_gru.freeze_steps) == (100, 100)
    compvec_gru = run_config("gru", "gru", "compvec", settings, MARGINS)
    assert (compvec_gru.steps, compvec_gru.freeze_steps) == (100, 10)
    with pytest.raises(ConfigError, match="variant"):
        run_config("gru", "gru", "tuned", settings, MARGINS)
    with pytest.raises(ConfigError, match="unknown key"):
        TrainConfig.from_dict({"composer": "sum", "margin": 1.0, "epoch": 3})
    with pytest.raises(ConfigError, match="'targets' trains with optimizer 'adam' only"):
        TrainConfig.from_dict({"objective": "targets", "optimizer": "adagrad"})


def _train(tmp_path, matrix, composer, variant, name="run"):
    config = run_config(composer, composer, variant, SETTINGS, MARGINS)
    model, _ = train_targets(config, PAIRS, VOCAB, matrix, tmp_path / name)
    return model, artefacts.read_embeddings(tmp_path / name / "embeddings.parquet")[1]


def test_frozen_and_tuned_matrices(tmp_path, matrix) -> None:
    _, untrained = _train(tmp_path, matrix, "sum", "original", "sum_original")
    np.testing.assert_array_equal(untrained, matrix)
    _, tuned = _train(tmp_path, matrix, "sum", "compvec", "sum_compvec")
    assert not np.allclose(tuned, matrix)
    model, frozen = _train(tmp_path, matrix, "gru", "original", "gru_original")
    np.testing.assert_array_equal(frozen, matrix)
    initial = targets.build_model(run_config("gru", "gru", "original", SETTINGS, MARGINS), matrix)
    changed = [
        not torch.equal(a, b)
        for a, b in zip(model.composer.parameters(), initial.composer.parameters())
    ]
    assert any(changed)  # the composition function trained while the words stayed frozen
    _, tuned_gru = _train(tmp_path, matrix, "gru", "compvec", "gru_compvec")
    assert not np.allclose(tuned_gru, matrix)


def test_deterministic_and_resumes_after_kill(tmp_path, matrix, monkeypatch) -> None:
    _, once = _train(tmp_path, matrix, "gru", "compvec", "a")
    _, twice = _train(tmp_path, matrix, "gru", "compvec", "b")
    np.testing.assert_array_equal(once, twice)

    calls = {"n": 0}
    real = targets.triplet_loss

    def dying(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] == 6:  # after the checkpoint of step 4
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(targets, "triplet_loss", dying)
    with pytest.raises(KeyboardInterrupt):
        _train(tmp_path, matrix, "gru", "compvec", "killed")
    assert (tmp_path / "killed" / "checkpoint.pt").exists()
    assert not (tmp_path / "killed" / "embeddings.parquet").exists()
    monkeypatch.setattr(targets, "triplet_loss", real)
    _, resumed = _train(tmp_path, matrix, "gru", "compvec", "killed")
    np.testing.assert_array_equal(resumed, once)
    config = run_config("gru", "gru", "compvec", {**SETTINGS, "margin": 9.0}, {"default": 9.0})
    train_targets(config, PAIRS, VOCAB, matrix, tmp_path / "killed")  # other settings: restart
    assert (tmp_path / "killed" / "checkpoint.pt.old").exists()


def test_initial_matrix() -> None:
    vectors = np.arange(6, dtype=np.float32).reshape(3, 2)
    matrix, found = initial_matrix(["PAD", "UNK", "dog", "Cat"], ["dog", "cat", "PAD"], vectors, 3)
    assert found.tolist() == [True, False, True, False]  # exact match only: "Cat" != "cat"
    np.testing.assert_array_equal(matrix[0], [0, 0])  # PAD is zero even if pretrained
    np.testing.assert_array_equal(matrix[2], [0, 1])
    assert np.all(np.abs(matrix[[1, 3]]) <= 1)
    again, _ = initial_matrix(["PAD", "UNK", "dog", "Cat"], ["dog", "cat", "PAD"], vectors, 3)
    np.testing.assert_array_equal(matrix, again)


@pytest.mark.parametrize("composer", ["sum", "mean", "product", "max", "max_pad"])
def test_lemma_targets_are_the_word_vectors(matrix, composer) -> None:
    # in training (the positive and negative targets) and in CompVecEval (lemma_vectors)
    config = TrainConfig.from_dict(
        {"objective": "targets", "optimizer": "adam", "composer": composer, "steps": 0}
    )
    model = targets.build_model(config, matrix)
    lemmas = torch.tensor([4, 5, 9])
    words = torch.from_numpy(matrix[[4, 5, 9]])
    assert (words < 0).any()
    assert torch.equal(model.lemma_vectors(lemmas), words)
    ids, offsets = torch.tensor([2, 3, 6, 7]), torch.tensor([0, 1])
    _, composed_targets = model(ids, offsets, lemmas, dropout=0.25)
    assert torch.equal(composed_targets, words)


def test_run_params_name_only_the_settings_that_differ_from_the_defaults() -> None:
    config = run_config("gru", "gru", "compvec", {**SETTINGS, "lr": 0.001}, MARGINS)
    overrides = config.overrides()
    assert TrainConfig.from_dict(overrides) == config
    assert "k" not in overrides and "pool" not in overrides  # defaults: not named
    assert overrides["objective"] == "targets" and overrides["freeze_steps"] == 3
