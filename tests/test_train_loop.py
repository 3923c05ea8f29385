"""The training loop: resume after a kill, determinism, config errors and a real smoke run."""

import random
import re

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest
import torch

from paracomp import artefacts
from paracomp.data.catalog import load
from paracomp.data.parsers import parse_set
from paracomp.errors import ConfigError, ParacompError
from paracomp.losses.hinge import PairBatch
from paracomp.run_config import TrainConfig
from paracomp.train.pairs.build import build_model, build_objective, build_sampler
from paracomp.train.pairs.task import PairTask
from paracomp.train.tasks import train_pairs as train


def _toy_pairs(n=60, seed=0):
    rng = random.Random(seed)
    en = ["the", "cat", "dog", "sat", "ran", "on", "a", "mat", "big", "red"]
    es = ["el", "gato", "perro", "se", "sentó", "corrió", "en", "una", "alfombra", "rojo"]
    s1, s2 = [], []
    for _ in range(n):
        picks = rng.sample(range(10), rng.randint(1, 5))
        s1.append(" ".join(en[i] for i in picks))
        s2.append(" ".join(es[i] for i in picks if rng.random() < 0.9) or es[picks[0]])
    return pa.table({"id": [str(i) for i in range(n)], "s1": s1, "s2": s2})


FAST = {"epochs": 3, "batch_size": 8, "k": 3, "dim": 8, "threads": 1}
RUNS = {
    "bicvm-corpus": {"objective": "bicvm", "sampler": "random", "pool": "corpus"},
    "paraphrase-mix": {
        "objective": "paraphrase",
        "sampler": "mix",
        "composer": "mean",
        "margin": 0.4,
        "reg": 1e-3,
        "shared_vocab": True,
    },
}


class Killed(Exception):
    pass


@pytest.mark.parametrize("run", sorted(RUNS))
def test_resume_after_kill_matches_uninterrupted_run(tmp_path, run):
    config = TrainConfig.from_dict({**FAST, **RUNS[run]})
    pairs = _toy_pairs()
    whole = train(config, pairs, tmp_path / "whole", progress=False)

    def kill_in_epoch_2(epoch, encoder):
        if epoch == 2:
            raise Killed
        return {}

    with pytest.raises(Killed):
        train(config, pairs, tmp_path / "killed", progress=False, callback=kill_in_epoch_2)
    saved = torch.load(tmp_path / "killed" / "checkpoint.pt", weights_only=True)
    assert saved["step"] == 8  # the end of epoch 1: 60 pairs in batches of 8
    resumed = train(config, pairs, tmp_path / "killed", progress=False)
    assert torch.equal(whole.model.weight, resumed.model.weight)
    assert whole.history["loss"].tolist() == resumed.history["loss"].tolist()


def test_same_seed_same_weights(tmp_path):
    config = TrainConfig.from_dict({**FAST, **RUNS["bicvm-corpus"]})
    one = train(config, _toy_pairs(), tmp_path / "one", progress=False)
    two = train(config, _toy_pairs(), tmp_path / "two", progress=False)
    assert torch.equal(one.model.weight, two.model.weight)
    other = TrainConfig.from_dict({**FAST, **RUNS["bicvm-corpus"], "seed": 2})
    three = train(other, _toy_pairs(), tmp_path / "three", progress=False)
    assert not torch.equal(one.model.weight, three.model.weight)


def _fresh(config, pairs, tmp_path):
    return train(config, pairs, tmp_path / "fresh", progress=False).model.weight


def test_resume_moves_other_checkpoints_aside_and_allows_more_epochs(tmp_path, caplog):
    config = TrainConfig.from_dict({**FAST, **RUNS["bicvm-corpus"], "epochs": 1})
    run = tmp_path / "run"
    train(config, _toy_pairs(), run, progress=False)
    more = train(
        TrainConfig.from_dict({**FAST, **RUNS["bicvm-corpus"]}), _toy_pairs(), run, progress=False
    )
    assert more.history["epoch"].tolist() == [1, 2, 3]  # resumed after epoch 1
    assert not (run / "checkpoint.pt.old").exists()
    changed = [
        ({**FAST, **RUNS["bicvm-corpus"], "epochs": 1, "margin": 2.0}, _toy_pairs(), "margin"),
        ({**FAST, **RUNS["bicvm-corpus"], "epochs": 1}, _toy_pairs(seed=1), "other data"),
        ({**FAST, **RUNS["bicvm-corpus"], "epochs": 1}, _toy_pairs(), "past this run"),
    ]
    for values, pairs, why in changed:
        case = tmp_path / why
        first = TrainConfig.from_dict({**values, "epochs": 2}) if "past" in why else config
        train(first, _toy_pairs(), case, progress=False)
        other = TrainConfig.from_dict(values)
        with caplog.at_level("WARNING"):
            result = train(other, pairs, case, progress=False)
        assert why in caplog.text and (case / "checkpoint.pt.old").exists()
        assert torch.equal(result.model.weight, _fresh(other, pairs, case))
        caplog.clear()


def test_checkpoint_without_a_newer_setting_resumes_at_its_default(tmp_path, caplog):
    # a checkpoint written before `attraction` existed was trained as attraction 0
    config = TrainConfig.from_dict({**FAST, **RUNS["bicvm-corpus"], "epochs": 1})
    train(config, _toy_pairs(), tmp_path, progress=False)
    state = torch.load(tmp_path / "checkpoint.pt", weights_only=True)
    del state["config"]["attraction"]
    torch.save(state, tmp_path / "checkpoint.pt")
    with caplog.at_level("WARNING"):
        more = train(
            TrainConfig.from_dict({**FAST, **RUNS["bicvm-corpus"]}),
            _toy_pairs(),
            tmp_path,
            progress=False,
        )
    assert more.history["epoch"].tolist() == [1, 2, 3] and "moved" not in caplog.text
    del state["config"]["hinge_scale"]
    torch.save(state, tmp_path / "checkpoint.pt")
    other = TrainConfig.from_dict({**FAST, **RUNS["bicvm-corpus"], "hinge_scale": 0.5})
    with caplog.at_level("WARNING"):
        train(other, _toy_pairs(), tmp_path, progress=False)
    assert "settings differ in ['hinge_scale']" in caplog.text


def test_truncated_checkpoint_is_a_clear_error(tmp_path):
    config = TrainConfig.from_dict({**FAST, **RUNS["bicvm-corpus"], "epochs": 1})
    train(config, _toy_pairs(), tmp_path, progress=False)
    checkpoint = tmp_path / "checkpoint.pt"
    checkpoint.write_bytes(checkpoint.read_bytes()[:100])
    with pytest.raises(ConfigError, match=r"checkpoint.pt: unreadable checkpoint .*delete it"):
        train(config, _toy_pairs(), tmp_path, progress=False)


@pytest.mark.parametrize("size", [10, 10_000])
def test_random_bytes_checkpoint_gives_no_weights_only_advice(tmp_path, size):
    """Random bytes fail torch's weights-only unpickler, whose message advises loading with
    ``weights_only`` off: the error keeps only the reason, in one line."""
    config = TrainConfig.from_dict({**FAST, **RUNS["bicvm-corpus"], "epochs": 1})
    (tmp_path / "checkpoint.pt").write_bytes(random.Random(size).randbytes(size))
    with pytest.raises(ConfigError) as caught:
        train(config, _toy_pairs(), tmp_path, progress=False)
    message = str(caught.value)
    assert re.fullmatch(
        r".*checkpoint\.pt: unreadable checkpoint \(\w+: [^\n]+\); delete it to restart", message
    )
    assert "weights_only" not in message


def test_config_errors():
    with pytest.raises(ConfigError, match="'lerning_rate'"):
        TrainConfig.from_dict({"lerning_rate": 0.1})
    with pytest.raises(ConfigError, match="sampler"):
        TrainConfig.from_dict({"sampler": "hardest"})
    with pytest.raises(ConfigError, match="batch_size"):
        TrainConfig.from_dict({"batch_size": "100"})
    with pytest.raises(ConfigError, match="shared_vocab"):
        TrainConfig.from_dict({"shared_vocab": 1})
    assert TrainConfig.from_dict({"lr": 1}).lr == 1.0
    with pytest.raises(ConfigError, match=r"\['attraction'\] apply to the pair objectives"):
        TrainConfig.from_dict({"objective": "targets", "optimizer": "adam", "attraction": 1})
    with pytest.raises(ConfigError, match="hinge_scale"):
        TrainConfig.from_dict({"hinge_scale": 0})


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the message without a GPU")
def test_cuda_without_gpu_fails_clearly_unless_fallback(tmp_path):
    config = TrainConfig.from_dict({**FAST, "epochs": 1, "device": "cuda"})
    with pytest.raises(ConfigError, match="torch.cuda.is_available"):
        train(config, _toy_pairs(), tmp_path, progress=False)
    fallback = TrainConfig.from_dict(
        {**FAST, "epochs": 1, "device": "cuda", "allow_cpu_fallback": True}
    )
    assert train(fallback, _toy_pairs(), tmp_path, progress=False).model.weight.device.type == "cpu"


def _mean_loss(config, model, data):
    """J_pa with MAX (no randomness) over all pairs, in training order."""
    objective = build_objective(config)
    sampler = build_sampler(config, torch.Generator())
    with torch.no_grad():
        losses = [
            objective.loss(model, PairBatch(p, i, s, data), sampler).item()
            for p, i, s in data.batches(torch.arange(data.n_pairs), config.batch_size)
        ]
    return float(np.mean(losses))


def test_smoke_on_sick_pairs(tmp_path, mirror):
    if not (mirror / "sick2014").is_dir():
        pytest.skip("no sick2014 in the mirror")
    sick = parse_set(load().set("sick2014"), "mirror", mirror / "sick2014")
    sick = sick.filter(pc.equal(sick.column("split"), "train")).slice(0, 200)
    pairs = pa.table(
        {"s1": pc.utf8_lower(sick.column("s1")), "s2": pc.utf8_lower(sick.column("s2"))}
    )
    config = TrainConfig.from_dict(
        {
            "objective": "paraphrase",
            "sampler": "max",
            "composer": "mean",
            "margin": 0.4,
            "shared_vocab": True,
            "epochs": 1,
            "batch_size": 25,
            "dim": 32,
            "lr": 0.5,
            "seed": 3,
        }
    )
    result = train(config, pairs, tmp_path, progress=False, callback=lambda e, enc: {"n": e})
    init = build_model(config, result.data.n_rows)
    assert _mean_loss(config, result.model, result.data) < _mean_loss(config, init, result.data)

    words, matrix = artefacts.read_embeddings(tmp_path / "embeddings.parquet")
    assert words == list(result.data.vocab1.words[1:]) and matrix.shape == (len(words), 32)
    np.testing.assert_array_equal(matrix, result.model.weight.detach()[1 : len(words) + 1].numpy())
    assert (
        artefacts.provenance(tmp_path / "embeddings.parquet")["config"]["objective"] == "paraphrase"
    )
    curve = pq.read_table(tmp_path / "curve.parquet").to_pandas()
    assert curve.columns.tolist() == ["epoch", "loss", "seconds", "pairs_per_s", "n"]
    assert (tmp_path / "curve.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    sentence = ["a", "man", "is", "playing"]
    known = [w for w in sentence if result.encoder.known(w)]
    expected = matrix[[words.index(w) for w in known]].mean(0)
    np.testing.assert_allclose(result.encoder.encode([sentence])[0], expected, rtol=1e-6)


def test_non_finite_loss_stops_and_keeps_the_last_good_checkpoint(tmp_path, monkeypatch):
    config = TrainConfig.from_dict({**FAST, **RUNS["bicvm-corpus"]})
    calls = {"n": 0}
    real = PairTask.step

    def nan_in_epoch_2(self, step, batch):
        calls["n"] += 1
        loss = real(self, step, batch)
        return loss * float("nan") if step == 9 else loss  # epoch 2's second batch

    monkeypatch.setattr(PairTask, "step", nan_in_epoch_2)
    with pytest.raises(ParacompError, match=r"diverged in epoch 2 .*checkpoint.pt\) is kept"):
        train(config, _toy_pairs(), tmp_path, progress=False)
    assert torch.load(tmp_path / "checkpoint.pt", weights_only=True)["step"] == 8
    assert not (tmp_path / "embeddings.parquet").exists()


def test_divergence_is_an_error(tmp_path):
    config = TrainConfig.from_dict({**FAST, "epochs": 1, "optimizer": "sgd", "lr": 1e6})
    with pytest.raises(ParacompError, match="diverged in epoch 1"):
        train(config, _toy_pairs(), tmp_path, progress=False)
    assert not (tmp_path / "checkpoint.pt").exists()
