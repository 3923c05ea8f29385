"""SentEval's SICK tasks: Tai targets, logistic regression, C selection and real SICK runs."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import torch
from torch import nn

from paracomp.data.catalog import load
from paracomp.data.parsers import parse_set
from paracomp.errors import DataError
from paracomp.eval.encode import AveragedEmbeddings
from paracomp.eval.senteval import (
    C_GRID,
    SEED,
    _Relatedness,
    encode_splits,
    entailment_from_splits,
    evaluate_sick,
    expected_score,
    fit_logistic,
    label_ids,
    pair_features,
    relatedness_from_splits,
    select_c,
    sick_entailment,
    sick_relatedness,
    split_classifier,
    tai_distribution,
)
from paracomp.eval.tokens import tokenize_all

# --- targets and features -------------------------------------------------------------------


def test_tai_distribution_and_back():
    target = tai_distribution(np.array([1.0, 2.3, 5.0]))
    expected = [[1, 0, 0, 0, 0], [0, 0.7, 0.3, 0, 0], [0, 0, 0, 0, 1]]
    np.testing.assert_allclose(target, expected, atol=1e-6)
    assert target.dtype == np.float32
    np.testing.assert_allclose(expected_score(target), [1.0, 2.3, 5.0], atol=1e-6)
    with pytest.raises(ValueError, match=r"\[1, 5\]"):
        tai_distribution(np.array([0.5]))


def test_pair_features_and_labels():
    u, v = np.array([[1.0, -2.0]]), np.array([[3.0, 4.0]])
    np.testing.assert_array_equal(pair_features(u, v), [[2.0, 6.0, 3.0, -8.0]])
    assert label_ids(["CONTRADICTION", "NEUTRAL", "ENTAILMENT"]).tolist() == [0, 1, 2]
    with pytest.raises(DataError, match="None"):
        label_ids(["NEUTRAL", None])


# --- logistic regression --------------------------------------------------------------------


def objective_gradient(x, y, weight, bias, c):
    """Gradient of c * sum(cross-entropy) + |W|^2 / 2, in numpy."""
    logits = x @ weight.T + bias
    p = np.exp(logits - logits.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    residual = p - np.eye(weight.shape[0])[y]
    return c * residual.T @ x + weight, c * residual.sum(axis=0)


def test_logistic_without_features_learns_class_frequencies():
    model = fit_logistic(np.zeros((6, 2)), np.array([0, 1, 1, 2, 2, 2]), c=1.0)
    np.testing.assert_allclose(model.weight, 0, atol=1e-12)
    prior = np.exp(model.bias) / np.exp(model.bias).sum()
    np.testing.assert_allclose(prior, [1 / 6, 2 / 6, 3 / 6], atol=1e-6)


@pytest.mark.parametrize("c", [0.25, 8.0])
def test_logistic_returns_the_optimum(c):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(90, 4))
    y = np.argmax(x[:, :3] + rng.normal(scale=0.5, size=(90, 3)), axis=1)
    model = fit_logistic(x, y, c=c)
    grad_w, grad_b = objective_gradient(x, y, model.weight, model.bias, c)
    # the stopping rule bounds the gradient of the objective / (c * n) by 1e-7
    assert np.abs(grad_w).max() < 1e-7 * c * len(y) * 10
    assert np.abs(grad_b).max() < 1e-7 * c * len(y) * 10
    assert np.abs(model.weight).max() > 0.1  # the features are used


def test_logistic_converges_on_badly_scaled_features():
    """Raw sums of word vectors: features whose scales differ by 10^4 (where L-BFGS stopped
    at its 5,000-iteration cap) still reach the optimum, in a few Newton steps."""
    rng = np.random.default_rng(3)
    x = rng.normal(size=(300, 6)) * np.array([0.01, 0.1, 1.0, 10.0, 100.0, 100.0])
    y = np.argmax(x[:, :3] * [100.0, 10.0, 1.0] + rng.normal(size=(300, 3)), axis=1)
    model = fit_logistic(x, y, c=8.0)
    grad_w, grad_b = objective_gradient(x, y, model.weight, model.bias, 8.0)
    assert np.abs(grad_w).max() < 1e-7 * 8.0 * len(y) * 10
    assert np.abs(grad_b).max() < 1e-7 * 8.0 * len(y) * 10
    assert model.iterations < 30 and abs(model.bias.sum()) < 1e-9


def test_logistic_separates_separable_data():
    x = np.array([[-2.0], [-1.0], [1.0], [2.0]])
    model = fit_logistic(x, np.array([0, 0, 1, 1]), c=1.0)
    assert model.accuracy(x, np.array([0, 0, 1, 1])) == 1.0
    assert model.weight.shape == (2, 1)


def test_relatedness_steps_are_autograd_and_torch_adam_exactly():
    """The written-out SICK-R training (gradients and Adam) is bit for bit what SentEval's
    ``nn.Sequential(Linear, Softmax)``, summed MSE and ``torch.optim.Adam`` compute."""
    rng = np.random.default_rng(4)
    x = torch.as_tensor((rng.normal(size=(600, 20)) * rng.uniform(0.1, 30, 20)).astype(np.float32))
    y = torch.as_tensor(tai_distribution(rng.uniform(1, 5, 600)))
    ours = _Relatedness(20, SEED)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(SEED)
        model = nn.Sequential(nn.Linear(20, 5), nn.Softmax(dim=1))
    optimizer = torch.optim.Adam(model.parameters(), weight_decay=0.0)
    for _ in range(400):
        idx = torch.from_numpy(rng.integers(0, 600, 64))
        loss = nn.MSELoss(reduction="sum")(model(x[idx]), y[idx])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        ours.step(x[idx], y[idx])
    for mine, theirs in zip(ours.params, model.parameters(), strict=True):
        assert torch.equal(mine, theirs.detach())
    assert not torch.equal(ours.params[1], torch.zeros(5))


def test_select_c_takes_the_first_best_rounded_score():
    assert select_c([70.0, 72.4, 72.4, 71.0]) == 1
    assert select_c([72.40000000001, 72.4]) == 0


def test_split_classifier_chooses_c_on_trial():
    rng = np.random.default_rng(1)
    x = np.r_[rng.normal(1, 0.2, 30), rng.normal(-1, 0.2, 10)][:, None]
    train = (x, np.r_[np.ones(30, int), np.zeros(10, int)])
    left = np.full((10, 1), -1.0)
    # trial pairs on the minority side labelled with the majority class: only the
    # near-constant classifier of the strongest regularisation gets them right
    majority = split_classifier(train, (left, np.ones(10, int)), train, grid=(1e-4, 10.0))
    assert majority.c == 1e-4 and majority.trial_scores == (100.0, 0.0)
    assert majority.accuracy == pytest.approx(75.0)
    np.testing.assert_array_equal(majority.correct, train[1] == 1)  # all predicted class 1
    features = split_classifier(train, (left, np.zeros(10, int)), train, grid=(1e-4, 10.0))
    assert features.c == 10.0 and features.trial_scores == (0.0, 100.0)
    assert features.accuracy == 100.0


# --- real SICK -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def sick(mirror: Path) -> pd.DataFrame:
    return parse_set(load().set("sick2014"), "mirror", mirror / "sick2014").to_pandas()


@pytest.fixture(scope="module")
def random_encoder(sick: pd.DataFrame) -> AveragedEmbeddings:
    """Averages of seeded random 50-d vectors over SICK's (lowercased) vocabulary."""
    tokens = tokenize_all([*sick["s1"], *sick["s2"]], "whitespace", True)
    words = sorted({w for sentence in tokens for w in sentence})
    matrix = np.random.default_rng(7).normal(size=(len(words), 50)).astype(np.float32)
    return AveragedEmbeddings(words, matrix)


@pytest.mark.slow
def test_sick_entailment_beats_the_majority_class(sick, random_encoder):
    result = sick_entailment(sick, random_encoder, "whitespace", lowercase=True)
    assert (result.n_train, result.n_trial, result.n_test) == (4500, 500, 4927)
    assert result.grid == C_GRID and result.c == C_GRID[select_c(result.trial_scores)]
    assert result.accuracy > 56.7 + 5  # NEUTRAL is 56.7% of test
    threads = torch.get_num_threads()
    splits = encode_splits(sick, random_encoder, "whitespace", lowercase=True)
    assert result == entailment_from_splits(splits)
    assert torch.get_num_threads() == threads
    assert len(result.correct) == 4927 and 100 * result.correct.mean() == result.accuracy


@pytest.mark.slow
def test_sick_relatedness_is_positive_and_deterministic(sick, random_encoder):
    first = sick_relatedness(sick, random_encoder, "whitespace", lowercase=True)
    second = relatedness_from_splits(encode_splits(sick, random_encoder, "whitespace", True))
    assert first.pearson > 30 and first.spearman > 30 and first.trial_pearson > 30
    assert first.epochs % 50 == 0 and 0 < first.epochs <= 1050
    assert first == second
    np.testing.assert_array_equal(first.predictions, second.predictions)
    test = sick[sick["split"] == "test"]
    assert len(first.predictions) == len(test)
    assert np.all((first.predictions >= 1) & (first.predictions <= 5))


def test_sick_entailment_needs_labels(sick, random_encoder):
    splits = encode_splits(sick.assign(label=None), random_encoder, "whitespace", True)
    with pytest.raises(DataError, match="no entailment labels"):
        entailment_from_splits(splits)
    with pytest.raises(DataError, match="'trial'"):
        encode_splits(sick[sick["split"] != "trial"], random_encoder, "whitespace", True)


@pytest.mark.slow
def test_evaluate_sick_runs_both_tasks(sick, random_encoder):
    entailment, relatedness = evaluate_sick(sick, random_encoder, "whitespace", True)
    assert entailment == sick_entailment(sick, random_encoder, "whitespace", True)
    assert relatedness == sick_relatedness(sick, random_encoder, "whitespace", True)


@pytest.mark.slow
def test_scheepers_sick_r_items_are_the_test_pairs(sick, random_encoder, tmp_path):
    """scheepers2018's SICK-R items: every SICK test pair's gold and prediction under the
    generic evaluator's key, in the test rows' order; their Pearson is the measure's value."""
    import pyarrow as pa

    from paracomp import artefacts
    from paracomp.eval.metrics import pearson
    from paracomp.papers.scheepers2018.evaluate import _sick

    path = tmp_path / "sick.parquet"
    table = pa.Table.from_pandas(sick, preserve_index=False)
    artefacts.write(table, path, artefacts.SENTENCE_PAIRS, artefacts.Provenance("s", "t", {}, {}))
    items: list[pd.DataFrame] = []
    measures = _sick(path, random_encoder, items)
    found, entail = items
    test = sick[sick["split"] == "test"]
    assert (found["key"] == "sick2014/sick/test").all() and len(found) == len(test)
    np.testing.assert_array_equal(found["gold"], test["score"])
    r = pearson(found["gold"].to_numpy(), found["pred"].to_numpy())
    assert measures["sick_r"]["value"] == pytest.approx(r, abs=1e-9)
    # SICK-E: 1/0 per test pair in the same order; the mean is the accuracy
    assert (entail["key"] == "sick2014/sick/test").all() and len(entail) == len(test)
    assert measures["sick_e"]["value"] == pytest.approx(entail["pred"].mean(), abs=1e-12)
