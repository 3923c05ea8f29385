"""The supervised similarity objective of the generic trainer (objective ``supervised``,
paracomp.train.similarity): Tai et al.'s target and head against hand-computed values, the KL
loss and its gradients against autograd of a plain re-implementation, selection by dev r,
the export the evaluator reads, resuming, and ``paracomp train``'s checks."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
import torch

from paracomp import artefacts
from paracomp.errors import ConfigError, DataError
from paracomp.run_config import TrainConfig
from paracomp.train import loop
from paracomp.train.similarity.model import SimilarityHead, sparse_target
from paracomp.train.similarity.task import SimilarityTask

SMALL = {"objective": "supervised", "optimizer": "adam", "epochs": 3, "batch_size": 10,
         "lr": 0.01, "hidden": 8, "seed": 1, "dropout": 0.1, "scramble": 0.5,
         "reg_initial": 1e-5, "dim": 8}  # fmt: skip


def _table(frame: pd.DataFrame) -> pa.Table:
    """A SCORED_PAIRS table of ``frame`` (s1, s2 split on spaces, lowercased; score; part)."""
    return pa.table({
        "dataset": ["d"] * len(frame), "subset": ["s"] * len(frame),
        "part": frame["part"].tolist(),
        "tokens1": [s.lower().split() for s in frame["s1"]],
        "tokens2": [s.lower().split() for s in frame["s2"]],
        "score": frame["score"].astype(float).tolist(),
    })  # fmt: skip


def _toy() -> tuple[pa.Table, list[str], np.ndarray]:
    """120 pairs of two-word sentences whose gold says whether both name a good thing."""
    words = ["good", "bad", "fine", "awful", "the"]
    rng = np.random.default_rng(0)
    rows = []
    for i in range(120):
        a, b = rng.choice(4, 2)
        same = (a in (0, 2)) == (b in (0, 2))
        part = "train" if i < 80 else ("dev" if i < 100 else "test")
        rows.append({"s1": f"the {words[a]}", "s2": f"the {words[b]}",
                     "score": 4.5 if same else 0.5, "part": part})  # fmt: skip
    matrix = rng.normal(size=(5, 8)).astype(np.float32)
    return _table(pd.DataFrame(rows)), words, matrix


def _sick(mirror, n: int = 120) -> tuple[pa.Table, list[str], np.ndarray]:
    """``n`` real SICK train pairs (2/3 train, 1/6 dev, 1/6 test), their words, random rows."""
    sick = pd.read_csv(mirror / "sick2014" / "SICK_train.txt", sep="\t").head(n)
    part = np.repeat(["train", "dev", "test"], [n * 2 // 3, n // 6, n - n * 2 // 3 - n // 6])
    frame = pd.DataFrame({"s1": sick["sentence_A"], "s2": sick["sentence_B"],
                          "score": sick["relatedness_score"], "part": part})  # fmt: skip
    words = sorted({w for s in [*frame["s1"], *frame["s2"]] for w in s.lower().split()})
    matrix = np.random.default_rng(0).normal(size=(len(words), 8)).astype(np.float32)
    return _table(frame), words, matrix


def _config(**extra) -> TrainConfig:
    return TrainConfig.from_dict({**SMALL, "composer": "mean", **extra})


def _write(tmp_path, table, words, matrix):
    pairs, init = tmp_path / "pairs.parquet", tmp_path / "init.parquet"
    prov = artefacts.Provenance("t", "t", {}, {})
    artefacts.write(table, pairs, artefacts.SCORED_PAIRS, prov)
    artefacts.write_embeddings(words, matrix, init, prov)
    return pairs, init


def test_sparse_target_is_tai_et_als():
    target = sparse_target(np.array([1.0, 2.4, 5.0]), 5)
    assert target[0].tolist() == [1, 0, 0, 0, 0]
    assert target[1] == pytest.approx([0, 0.6, 0.4, 0, 0])
    assert target[2].tolist() == [0, 0, 0, 0, 1]
    assert (target @ np.arange(1, 6)) == pytest.approx([1.0, 2.4, 5.0])
    assert sparse_target(np.array([0.0, 7.0]), 5).tolist() == [[1, 0, 0, 0, 0], [0, 0, 0, 0, 1]]


def test_the_head_by_hand():
    """hs = σ(W× (hL ⊙ hR) + W+ |hL − hR| + b), log softmax(Wp hs + bp) on a 2-d pair."""
    head = SimilarityHead(dim=2, hidden=2, classes=3)
    with torch.no_grad():
        head.times.weight.copy_(torch.tensor([[1.0, 0.0], [0.0, 2.0]]))
        head.plus.weight.copy_(torch.tensor([[0.5, 0.5], [-1.0, 0.0]]))
        head.plus.bias.copy_(torch.tensor([0.0, 1.0]))
        head.out.weight.copy_(torch.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, -1.0]]))
        head.out.bias.copy_(torch.tensor([0.0, 0.5, 0.0]))
    left, right = np.array([1.0, 2.0]), np.array([3.0, -1.0])
    # hL ⊙ hR = [3, -2], |hL − hR| = [2, 3]
    hidden = 1 / (1 + np.exp(-np.array([3 + 0.5 * 2 + 0.5 * 3, -4 - 2 + 1])))
    logits = np.array([hidden[0], hidden[1] + 0.5, hidden[0] - hidden[1]])
    expected = logits - np.log(np.exp(logits).sum())
    got = head(*(torch.tensor(side[None], dtype=torch.float32) for side in (left, right)))
    np.testing.assert_allclose(got[0].detach().numpy(), expected, rtol=1e-6)


def test_a_step_s_loss_and_gradients_are_the_plain_kl(tmp_path):
    """One step without noise: the task's loss is Σ p (log p − log p̂) averaged over the batch
    plus λ_w/2 ‖W − W₀‖² and λ_c/2 ‖θ‖², with p Tai et al.'s target + 1e-6; its gradients
    are those of that loss written out with autograd on a copy of the model."""
    table, words, matrix = _toy()
    config = TrainConfig.from_dict({**SMALL, "composer": "lstmavg", "dropout": 0.0,
                                    "scramble": 0.0, "reg_composer": 0.01, "reg_initial": 0.1,
                                    "classes": 6, "score_shift": 1.0})  # fmt: skip
    from paracomp.models.registry import make_composer

    composer = make_composer("lstmavg", 8, torch.Generator().manual_seed(1))
    task = SimilarityTask(config, table, words, matrix, composer)
    with torch.no_grad():  # move the rows off their start, so the pull is not zero
        task.model.weight.add_(0.3)
    batch = next(task.batches(0))
    left, right, rows = batch
    copy = {k: v.detach().clone().requires_grad_(True) for k, v in task.model.named_parameters()}
    gold = task.data.gold[rows] + 1.0
    p = torch.tensor(sparse_target(gold, 6) + 1e-6)
    log_p = torch.func.functional_call(task.model, copy, (left, right))
    plain = (p * (p.log() - log_p)).sum(1).mean()
    plain = plain + 0.05 * (copy["weight"] - torch.tensor(matrix)).pow(2).sum()
    plain = plain + 0.005 * sum(
        v.pow(2).sum() for k, v in copy.items() if k.startswith("composer.")
    )
    plain.backward()

    grads = {}
    original = task.optimizer.step
    task.optimizer.step = lambda: grads.update(
        {k: v.grad.clone() for k, v in task.model.named_parameters()}
    )
    loss = task.step(0, batch)
    task.optimizer.step = original
    assert loss.item() == pytest.approx(plain.item(), rel=1e-5)
    for name, value in copy.items():
        torch.testing.assert_close(grads[name], value.grad, rtol=1e-4, atol=1e-6)


@pytest.mark.slow  # 15 epochs of training
def test_a_tiny_supervised_run_learns_and_reports_the_selected_epoch(tmp_path):
    from paracomp.train.job import train_job

    pairs, init = _write(tmp_path, *_toy())
    job = train_job(_config(epochs=15), pairs, tmp_path / "run", init=init)
    assert job["n"] == {"train": 80, "dev": 20, "test": 20}
    assert job["test_pearson"] > 50 and 1 <= job["epoch"] <= 15
    curve = pd.read_parquet(tmp_path / "run" / "curve.parquet")
    chosen = curve.iloc[loop.best_row(curve[loop.BEST])]
    assert (job["epoch"], job["dev_pearson"]) == (chosen["epoch"], 100 * chosen[loop.BEST])
    from paracomp.eval.metrics import pearson

    assert len(job["test_pred"]) == len(job["test_gold"]) == 20
    kept = 100 * pearson(np.array(job["test_pred"]), np.array(job["test_gold"]))
    assert kept == pytest.approx(job["test_pearson"])


@pytest.mark.slow
def test_the_selected_epochs_encoder_is_a_run_folder_the_evaluator_reads(mirror, tmp_path):
    """On 150 real SICK pairs: the exported folder holds the weights of the epoch dev r picks
    (objective ``supervised``, the composer and only the word rows training moved); read by
    the evaluator's ``run_encoder`` with the initial vectors as fallback, it encodes the test
    sentences as the selected model does, and without the fallback it does not."""
    from paracomp.eval.model_encoder import run_encoder
    from paracomp.models.registry import make_composer
    from paracomp.run_folder import read_composer, read_rows

    table, words, matrix = _sick(mirror, 150)
    _, init = _write(tmp_path, table, words, matrix)
    config = _config(composer="lstmavg")
    composer = make_composer("lstmavg", 8, torch.Generator().manual_seed(1))
    task = SimilarityTask(config, table, words, matrix, composer)
    curve = loop.run(task, tmp_path / "enc", progress=False)
    report = task.report(curve)
    assert report["epoch"] >= 1

    saved, _ = read_composer(tmp_path / "enc")
    assert (saved.objective, saved.composer, saved.dropout) == ("supervised", "lstmavg", 0.1)
    moved, _ = read_rows(tmp_path / "enc")
    train = [t for part, a, b in zip(table["part"].to_pylist(), table["tokens1"].to_pylist(),
                                     table["tokens2"].to_pylist()) if part == "train"
             for t in (*a, *b)]  # fmt: skip
    assert moved and set(moved) <= set(train) and len(moved) < len(words)

    test = [i for i, p in enumerate(table["part"].to_pylist()) if p == "test"]
    tokens = [table["tokens1"][i].as_py() for i in test] + [
        table["tokens2"][i].as_py() for i in test
    ]
    ids = [*(task.data.left[i] for i in test), *(task.data.right[i] for i in test)]
    with torch.no_grad():
        expected = task.model.embed(ids, None).numpy()
    encoding, encoder = run_encoder(tmp_path / "enc", fallback=init)
    assert encoding.objective == "supervised" and encoding.fallback == str(init)
    np.testing.assert_allclose(encoder.encode(tokens), expected, rtol=0, atol=1e-5)
    _, bare = run_encoder(tmp_path / "enc")
    assert not np.allclose(bare.encode(tokens), expected, atol=1e-3)


@pytest.mark.slow
def test_a_run_resumed_after_an_epoch_ends_as_one_never_stopped(mirror, tmp_path):
    """Trained for 2 epochs, then asked for 3 in the same folder (the checkpoint of epoch 2 is
    resumed: order, scrambling and noise generators included): the same record and word rows
    as 3 epochs in one go."""
    from paracomp.train.job import train_job

    pairs, init = _write(tmp_path, *_sick(mirror))
    once = train_job(_config(composer="lstmavg"), pairs, tmp_path / "once", init=init)
    train_job(_config(composer="lstmavg", epochs=2), pairs, tmp_path / "twice", init=init)
    again = train_job(_config(composer="lstmavg"), pairs, tmp_path / "twice", init=init)
    for key in ("epoch", "dev_pearson", "test_pearson", "test_pred"):
        assert again[key] == once[key]
    rows = [
        artefacts.read_embeddings(tmp_path / f / "embeddings.parquet") for f in ("once", "twice")
    ]
    assert rows[0][0] == rows[1][0]
    np.testing.assert_array_equal(rows[0][1], rows[1][1])


@pytest.mark.slow
@pytest.mark.parametrize("model", ["gran", "bilstmavg"])
def test_gridded_supervised_run_is_the_plain_run(mirror, model):
    """The composer as GriddedComposer (uncaptured on CPU; both sides of a batch in one call)
    trains as the plain composer on 120 real SICK pairs: the same composer weights and the
    same dev and test r, up to rounding."""
    from paracomp.models.registry import make_composer
    from paracomp.train.cuda_graph import GriddedComposer

    table, words, matrix = _sick(mirror)
    runs = {}
    for gridded in (False, True):
        composer = make_composer(model, 8, torch.Generator().manual_seed(0))
        task = SimilarityTask(_config(composer=model), table, words, matrix, composer)
        if gridded:
            task.model.runner = GriddedComposer(composer, graphed=False)
        for step, batch in zip(range(task.total_steps), task.batches(0)):
            task.step(step, batch)
        runs[gridded] = task.predict("test"), composer.state_dict()
    (plain, plain_state), (gridded, gridded_state) = runs[False], runs[True]
    for key, value in plain_state.items():
        torch.testing.assert_close(gridded_state[key], value, rtol=0, atol=1e-5)
    np.testing.assert_allclose(gridded, plain, atol=1e-4)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
def test_cuda_supervised_run_equals_cpu(mirror, tmp_path):
    """The noise is drawn on the CPU for both: the CUDA run selects the same epoch and reports
    the same dev and test r as the CPU run, up to rounding."""
    from paracomp.train.job import train_job

    pairs, init = _write(tmp_path, *_sick(mirror))
    runs = [
        train_job(_config(composer="lstmavg", device=device), pairs, tmp_path / device, init=init)
        for device in ("cpu", "cuda")
    ]
    assert np.isfinite(runs[0]["test_pearson"]) and runs[0]["epoch"] >= 1
    assert runs[0]["epoch"] == runs[1]["epoch"]
    for key in ("dev_pearson", "test_pearson"):
        assert runs[1][key] == pytest.approx(runs[0][key], abs=0.01)


def test_train_checks_a_supervised_run_s_inputs_and_settings(tmp_path):
    """Without initial rows, with the composer of another family's run, with a pair-only
    setting or another optimiser: a ConfigError naming the cause, before any training."""
    from paracomp.run_folder import write_run
    from paracomp.train.job import train_job

    table, words, matrix = _toy()
    pairs, init = _write(tmp_path, table, words, matrix)
    with pytest.raises(ConfigError, match="needs the initial word rows"):
        train_job(_config(), pairs, tmp_path / "a")
    other = TrainConfig.from_dict({**SMALL, "composer": "lstmavg"})
    write_run(tmp_path / "lstm", other, {}, ["the"], np.zeros((1, 8), np.float32),
              artefacts.Provenance("t", "t", {}, {}))  # fmt: skip
    with pytest.raises(ConfigError, match="a lstmavg composer, not mean"):
        train_job(_config(), pairs, tmp_path / "b", init=init,
                  init_composer=tmp_path / "lstm" / "composer.pt")  # fmt: skip
    pair = TrainConfig.from_dict({"objective": "paraphrase", "composer": "mean", "dim": 8})
    with pytest.raises(ConfigError, match="--init-composer starts objective 'supervised' only"):
        train_job(pair, pairs, tmp_path / "c", init=init,
                  init_composer=tmp_path / "lstm" / "composer.pt")  # fmt: skip
    small = tmp_path / "small.parquet"
    artefacts.write_embeddings(words, matrix[:, :4], small, artefacts.Provenance("t", "t", {}, {}))
    with pytest.raises(ConfigError, match="4-d word rows, but dim is 8"):
        train_job(_config(), pairs, tmp_path / "d", init=small)
    with pytest.raises(DataError, match="missing columns"):
        train_job(_config(), init, tmp_path / "e", init=init)
    with pytest.raises(ConfigError, match=r"\['megabatch'\] apply to the pair objectives"):
        _config(megabatch=2)
    with pytest.raises(ConfigError, match="optimizer 'adam' only"):
        _config(optimizer="adagrad")
    assert not any((tmp_path / d).exists() for d in "abcde")


def test_a_record_is_json(tmp_path):
    """The record's test pairs and counts are plain JSON (the tables read them back)."""
    from paracomp.atomic import write_json
    from paracomp.models.registry import make_composer

    table, words, matrix = _toy()
    task = SimilarityTask(_config(epochs=1), table, words, matrix, make_composer("mean", 8))
    curve = loop.run(task, tmp_path / "run", progress=False)
    write_json(tmp_path / "r.json", task.report(curve))
    back = json.loads((tmp_path / "r.json").read_text())
    assert back["n"] == {"train": 80, "dev": 20, "test": 20} and len(back["test_pred"]) == 20
