"""SentEval's supervised SICK tasks (Conneau & Kiela 2018) in torch and numpy.

Both tasks represent a pair by the features ``[|u - v|, u * v]`` of its two sentence vectors,
train on SICK train (4,500 pairs), select on SICK trial (500) and report on SICK test (4,927).

- **SICK-E** (:func:`sick_entailment`): SentEval's ``SplitClassifier`` on its scikit-learn
  path: an L2-regularised multinomial logistic regression on raw (unstandardised) features,
  ``C`` chosen on trial accuracy (rounded to two decimals, first best wins) over
  :data:`C_GRID`, accuracy on test. The objective is scikit-learn's,
  ``C * sum(cross-entropy) + |W|^2 / 2`` with an unpenalised bias, minimised to convergence
  by Newton's method in float64.
- **SICK-R** (:func:`sick_relatedness`): SentEval's ``RelatednessPytorch``: a linear layer to
  five classes with a softmax, trained with summed squared error against Tai et al.'s
  distribution of the relatedness score by Adam (batch 64, no weight decay) in rounds of 50
  epochs; after each round the trial Pearson of the expected score is checked, the best
  model is kept, and training stops at the fourth round without improvement (counted over
  the whole run, not consecutive) or after round 21 (1,050 epochs).

As in SentEval, each split is sorted by (length of sentence A, length of sentence B, target)
with whitespace tokens before training, so that the seeded shuffles visit the same pairs.
Sentences are tokenised for the encoder as the STS evaluation does (:func:`tokenize_all`).
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd
import torch
from torch import nn

from paracomp.data.parsers import SICK_LABELS
from paracomp.errors import DataError
from paracomp.eval.encode import SentenceEncoder
from paracomp.eval.metrics import pearson, spearman
from paracomp.eval.tokens import tokenize_all

log = logging.getLogger(__name__)

SEED = 1111
"""SentEval's default seed."""

SICK_SPLITS = ("train", "trial", "test")
"""Training, model-selection and reporting split."""

C_GRID = tuple(2.0**t for t in range(-2, 4))
"""Inverse L2 strengths SentEval's ``SplitClassifier`` tries without pytorch: 0.25 ... 8."""

N_CLASSES = 5
"""Relatedness classes: scores 1 to 5."""

BATCH_SIZE = 64
EPOCHS_PER_CHECK = 50
MAX_EPOCHS = 1000
TENACITY = 3
"""``RelatednessPytorch``: rounds of 50 epochs while at most 1,000 are done; training stops at
the first round without improvement after ``TENACITY`` such rounds."""


@contextmanager
def single_thread() -> Iterator[None]:
    """Run torch on one intra-op thread: these problems are too small to gain from more, and
    a fixed reduction order makes the results independent of the machine's core count."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(threads)


# --- data -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Split:
    """One encoded SICK split, in the input frame's order."""

    features: np.ndarray
    scores: np.ndarray
    labels: np.ndarray | None
    """Entailment class ids; None when the pairs carry no labels."""
    lengths: np.ndarray = field(repr=False)
    """Whitespace token counts of sentences A and B, SentEval's sort keys."""

    def senteval_order(self, target: np.ndarray) -> np.ndarray:
        """The stable order of SentEval's sort by (len A, len B, target)."""
        return np.lexsort((target, self.lengths[:, 1], self.lengths[:, 0]))


def pair_features(u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """SentEval's pair representation ``[|u - v|, u * v]``."""
    return np.concatenate([np.abs(u - v), u * v], axis=1)


def label_ids(labels: Sequence[str | None]) -> np.ndarray:
    """Entailment judgments as SentEval's class ids (CONTRADICTION 0, NEUTRAL 1, ENTAILMENT 2)."""
    ids = {label: i for i, label in enumerate(SICK_LABELS)}
    bad = sorted({str(label) for label in labels if label not in ids})
    if bad:
        raise DataError(f"SICK pairs without a known entailment label: {bad[:5]}")
    return np.array([ids[label] for label in labels], dtype=np.int64)


def encode_splits(
    pairs: pd.DataFrame, encoder: SentenceEncoder, tokenizer: str, lowercase: bool
) -> dict[str, Split]:
    """Encode the SICK ``pairs`` (:data:`~paracomp.artefacts.SENTENCE_PAIRS` rows) by split.

    ``labels`` are read when the ``label`` column is present and filled.
    """
    out = {}
    for split in SICK_SPLITS:
        part = pairs[pairs["split"] == split]
        if part.empty:
            found = sorted(set(pairs["split"]))
            raise DataError(f"SICK pairs have no {split!r} split; found {found}")
        scores = part["score"].to_numpy(dtype=np.float64)
        if np.isnan(scores).any():
            raise DataError(f"SICK {split} pairs have missing relatedness scores")
        labelled = "label" in part and part["label"].notna().all()
        s1, s2 = part["s1"].tolist(), part["s2"].tolist()
        u = encoder.encode(tokenize_all(s1, tokenizer, lowercase))
        v = encoder.encode(tokenize_all(s2, tokenizer, lowercase))
        out[split] = Split(
            features=pair_features(u, v),
            scores=scores,
            labels=label_ids(part["label"].tolist()) if labelled else None,
            lengths=np.array([[len(a.split()), len(b.split())] for a, b in zip(s1, s2)]),
        )
    return out


# --- SICK-E: logistic regression ----------------------------------------------------------


@dataclass(frozen=True)
class LogisticModel:
    """A multinomial logistic regression: class scores ``x @ weight.T + bias``."""

    weight: np.ndarray
    bias: np.ndarray
    c: float
    iterations: int

    def predict(self, features: np.ndarray) -> np.ndarray:
        return np.argmax(np.asarray(features, np.float64) @ self.weight.T + self.bias, axis=1)

    def accuracy(self, features: np.ndarray, labels: np.ndarray) -> float:
        return float(np.mean(self.predict(features) == labels))


def fit_logistic(
    features: np.ndarray,
    labels: np.ndarray,
    c: float,
    n_classes: int | None = None,
    max_iter: int = 100,
    tol: float = 1e-7,
) -> LogisticModel:
    """Minimise ``c * sum(cross-entropy) + |W|^2 / 2`` (bias unpenalised) from zero weights.

    The objective is divided by ``c * n`` (same minimum) so that ``tol``, the bound on the
    largest gradient component at which the fit stops, means the same for every ``c`` and
    data size. Classes are ``0 ... n_classes - 1`` (default: up to the largest label).

    Newton's method with a backtracking line search, in float64: the Hessian (``k·(d + 1)``
    square) is formed and solved at each step, so raw features of any scale converge in tens
    of steps where a first-order method (L-BFGS, as before) took thousands or stopped short.
    The objective is flat along the shift of all biases together; that direction is held
    fixed, so the biases keep summing to zero as they start.
    """
    x = torch.as_tensor(np.asarray(features), dtype=torch.float64)
    x = torch.cat([x, x.new_ones(len(x), 1)], 1)
    y = torch.as_tensor(np.asarray(labels), dtype=torch.int64)
    n, width = x.shape
    k = int(y.max()) + 1 if n_classes is None else n_classes
    onehot = nn.functional.one_hot(y, k).to(x.dtype)
    penalty = x.new_full((width,), 1.0 / (c * n))
    penalty[-1] = 0.0  # the bias
    theta = x.new_zeros(k, width)

    def value(theta: torch.Tensor) -> tuple[float, torch.Tensor]:
        logits = x @ theta.T
        loss = nn.functional.cross_entropy(logits, y) + 0.5 * (penalty * theta * theta).sum()
        return float(loss), torch.softmax(logits, 1)

    flat = x.new_zeros(k * width)
    flat[width - 1 :: width] = 1.0 / k**0.5  # all biases shifted together
    iterations = 0
    with single_thread():
        loss, p = value(theta)
        while True:
            grad = (p - onehot).T @ x / n + penalty * theta
            if float(grad.abs().max()) <= tol or iterations >= max_iter:
                break
            hessian = torch.outer(flat, flat) + torch.diag(penalty.repeat(k))
            for a in range(k):
                for b in range(a, k):
                    block = x.T @ ((p[:, a] * (float(a == b) - p[:, b]) / n).unsqueeze(1) * x)
                    hessian[a * width : (a + 1) * width, b * width : (b + 1) * width] += block
                    if b != a:
                        hessian[b * width : (b + 1) * width, a * width : (a + 1) * width] += block
            step = -torch.linalg.solve(hessian, grad.reshape(-1)).reshape(k, width)
            slope, t = float((grad * step).sum()), 1.0
            while True:
                trial, p_trial = value(theta + t * step)
                if trial <= loss + 1e-4 * t * slope or t < 1e-10:
                    break
                t /= 2
            theta, loss, p = theta + t * step, trial, p_trial
            iterations += 1
    if iterations >= max_iter:
        log.warning("logistic regression (c=%g) stopped at %d iterations", c, max_iter)
    weight, bias = theta[:, :-1].numpy().copy(), theta[:, -1].numpy().copy()
    return LogisticModel(weight, bias, float(c), iterations)


def select_c(trial_scores: Sequence[float]) -> int:
    """SentEval's choice: the index of the first best trial score (scores are rounded to two
    decimals first, so that near-ties go to the stronger regularisation)."""
    return int(np.argmax([round(score, 2) for score in trial_scores]))


@dataclass(frozen=True)
class EntailmentResult:
    """SICK-E: accuracies are percentages; ``trial_scores`` are per ``c`` of the grid;
    ``correct``: whether each test pair's label was predicted (from :func:`entailment_from_splits`,
    in the input frame's order of test rows)."""

    accuracy: float
    trial_accuracy: float
    c: float
    trial_scores: tuple[float, ...]
    grid: tuple[float, ...]
    n_train: int
    n_trial: int
    n_test: int
    correct: np.ndarray = field(
        repr=False, compare=False, default_factory=lambda: np.zeros(0, bool)
    )


def split_classifier(
    train: tuple[np.ndarray, np.ndarray],
    trial: tuple[np.ndarray, np.ndarray],
    test: tuple[np.ndarray, np.ndarray],
    grid: Sequence[float] = C_GRID,
) -> EntailmentResult:
    """Fit one logistic regression per ``c``, keep the best on ``trial``, score it on ``test``.

    Trial accuracies are rounded to two decimals (of a percentage) before the choice, as
    SentEval does; the test accuracy is not rounded.
    """
    n_classes = 1 + max(int(np.max(labels)) for _, labels in (train, trial, test))
    models = [fit_logistic(*train, c=c, n_classes=n_classes) for c in grid]
    scores = [round(100 * model.accuracy(*trial), 2) for model in models]
    best = select_c(scores)
    correct = models[best].predict(test[0]) == test[1]
    return EntailmentResult(
        accuracy=100 * float(np.mean(correct)),
        trial_accuracy=scores[best],
        c=float(grid[best]),
        trial_scores=tuple(scores),
        grid=tuple(float(c) for c in grid),
        n_train=len(train[1]),
        n_trial=len(trial[1]),
        n_test=len(test[1]),
        correct=correct,
    )


def entailment_from_splits(
    splits: dict[str, Split], grid: Sequence[float] = C_GRID
) -> EntailmentResult:
    """:func:`split_classifier` on encoded splits, each in SentEval's order."""
    data = []
    for name in SICK_SPLITS:
        split = splits[name]
        if split.labels is None:
            raise DataError(f"SICK {name} pairs carry no entailment labels")
        order = split.senteval_order(split.labels)
        data.append((split.features[order], split.labels[order]))
    result = split_classifier(*data, grid=grid)
    correct = np.empty_like(result.correct)
    correct[order] = result.correct  # back to the frame's order (order: the test split's)
    return replace(result, correct=correct)


def sick_entailment(
    pairs: pd.DataFrame,
    encoder: SentenceEncoder,
    tokenizer: str,
    lowercase: bool,
    grid: Sequence[float] = C_GRID,
) -> EntailmentResult:
    """SICK-E accuracy of ``encoder`` on the SICK ``pairs`` (all three splits, with labels)."""
    return entailment_from_splits(encode_splits(pairs, encoder, tokenizer, lowercase), grid)


# --- SICK-R: relatedness as a distribution -------------------------------------------------


def tai_distribution(scores: np.ndarray, n_classes: int = N_CLASSES) -> np.ndarray:
    """Tai et al.'s target: score ``s`` in [1, n] puts ``s - floor(s)`` on class ``floor(s) + 1``
    and ``floor(s) - s + 1`` on class ``floor(s)`` (classes numbered from 1)."""
    scores = np.asarray(scores, dtype=np.float64)
    if scores.size and (scores.min() < 1 or scores.max() > n_classes):
        raise ValueError(f"relatedness scores must lie in [1, {n_classes}]")
    floor = np.floor(scores)
    out = np.zeros((len(scores), n_classes + 1))
    rows = np.arange(len(scores))
    out[rows, floor.astype(int) - 1] = floor - scores + 1
    out[rows, floor.astype(int)] = scores - floor
    return out[:, :n_classes].astype(np.float32)


def expected_score(probabilities: np.ndarray) -> np.ndarray:
    """The expected score ``sum_k p_k * k`` of class distributions over 1 ... n."""
    probabilities = np.asarray(probabilities, dtype=np.float64)
    return probabilities @ np.arange(1, probabilities.shape[1] + 1, dtype=np.float64)


@dataclass(frozen=True)
class RelatednessResult:
    """SICK-R: Pearson and Spearman are ×100, MSE on the 1-5 scale; ``predictions`` are the
    expected test scores in the input frame's order of test rows."""

    pearson: float
    spearman: float
    mse: float
    trial_pearson: float
    epochs: int
    n_train: int
    n_trial: int
    n_test: int
    predictions: np.ndarray = field(repr=False, compare=False)


class _Relatedness:
    """``RelatednessPytorch``'s model, a linear layer to :data:`N_CLASSES` classes and a
    softmax, trained by Adam (torch's defaults) on the summed squared error against float64
    targets, with the gradients and the update written out: the same operations, in the same
    order, as autograd and ``torch.optim.Adam`` (a test checks equality), without their
    per-step cost (35,500 steps took 28 s, most of a SICK evaluation)."""

    LR, BETA1, BETA2, EPS = 1e-3, 0.9, 0.999, 1e-8

    def __init__(self, dim: int, seed: int):
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            layer = nn.Linear(dim, N_CLASSES)  # its initial draws, as SentEval's
        self.params = [layer.weight.detach().clone(), layer.bias.detach().clone()]
        self.moments = [(torch.zeros_like(p), torch.zeros_like(p)) for p in self.params]
        self.steps = 0

    def probabilities(self, x: torch.Tensor) -> torch.Tensor:
        weight, bias = self.params
        return torch.softmax(torch.addmm(bias, x, weight.T), dim=1)

    def predict(self, x: torch.Tensor) -> np.ndarray:
        return expected_score(self.probabilities(x).numpy())

    def step(self, x: torch.Tensor, y: torch.Tensor) -> None:
        p = self.probabilities(x)
        upstream = (2.0 * (p - y)).to(p.dtype)  # the summed squared error's, in float64
        # softmax's backward by autograd's own kernel: the formula p ⊙ (g − Σ g p) written
        # out rounds differently now and then
        grad_logits = torch._softmax_backward_data(upstream, p, 1, p.dtype)
        self.steps += 1
        step_size = self.LR / (1 - self.BETA1**self.steps)
        correction = (1 - self.BETA2**self.steps) ** 0.5
        for param, grad, (mean, square) in zip(
            self.params, (grad_logits.T.mm(x), grad_logits.sum(0)), self.moments, strict=True
        ):
            mean.lerp_(grad, 1 - self.BETA1)
            square.mul_(self.BETA2).addcmul_(grad, grad, value=1 - self.BETA2)
            param.addcdiv_(mean, (square.sqrt() / correction).add_(self.EPS), value=-step_size)

    def train_round(self, x: torch.Tensor, y: torch.Tensor, rng: np.random.RandomState) -> None:
        """:data:`EPOCHS_PER_CHECK` epochs of shuffled mini-batches."""
        for _ in range(EPOCHS_PER_CHECK):
            permutation = torch.from_numpy(rng.permutation(len(x)))
            for start in range(0, len(x), BATCH_SIZE):
                idx = permutation[start : start + BATCH_SIZE]
                self.step(x[idx], y[idx])


def relatedness_classifier(
    train: tuple[np.ndarray, np.ndarray],
    trial: tuple[np.ndarray, np.ndarray],
    test_features: np.ndarray,
    seed: int = SEED,
) -> tuple[np.ndarray, float, int]:
    """Train on ``train`` (features, scores), early-stop on ``trial`` Pearson; return the
    expected test scores, the best trial Pearson (raw) and the epochs trained."""
    x = torch.as_tensor(np.asarray(train[0], dtype=np.float32))
    y = torch.as_tensor(tai_distribution(train[1]))
    trial_x = torch.as_tensor(np.asarray(trial[0], dtype=np.float32))
    model = _Relatedness(x.shape[1], seed)
    rng = np.random.RandomState(seed)
    best_r, best_params, misses, epochs = -1.0, None, 0, 0
    while epochs <= MAX_EPOCHS:
        with single_thread():
            model.train_round(x, y, rng)
        epochs += EPOCHS_PER_CHECK
        r = pearson(model.predict(trial_x), trial[1])
        if r > best_r:
            best_r, best_params = r, [p.clone() for p in model.params]
        elif misses >= TENACITY:
            break
        else:
            misses += 1
    if best_params is not None:
        model.params = best_params
    test_x = torch.as_tensor(np.asarray(test_features, dtype=np.float32))
    return model.predict(test_x), best_r, epochs


def relatedness_from_splits(splits: dict[str, Split], seed: int = SEED) -> RelatednessResult:
    """:func:`relatedness_classifier` on encoded splits, each in SentEval's order."""
    train, trial, test = (splits[s] for s in SICK_SPLITS)
    order = {name: splits[name].senteval_order(splits[name].scores) for name in SICK_SPLITS}
    yhat, trial_r, epochs = relatedness_classifier(
        (train.features[order["train"]], train.scores[order["train"]]),
        (trial.features[order["trial"]], trial.scores[order["trial"]]),
        test.features[order["test"]],
        seed,
    )
    predictions = np.empty_like(yhat)
    predictions[order["test"]] = yhat
    return RelatednessResult(
        pearson=100 * pearson(predictions, test.scores),
        spearman=100 * spearman(predictions, test.scores),
        mse=float(np.mean((predictions - test.scores) ** 2)),
        trial_pearson=100 * trial_r,
        epochs=epochs,
        n_train=len(train.scores),
        n_trial=len(trial.scores),
        n_test=len(test.scores),
        predictions=predictions,
    )


def sick_relatedness(
    pairs: pd.DataFrame,
    encoder: SentenceEncoder,
    tokenizer: str,
    lowercase: bool,
    seed: int = SEED,
) -> RelatednessResult:
    """SICK-R correlations of ``encoder`` on the SICK ``pairs`` (all three splits)."""
    return relatedness_from_splits(encode_splits(pairs, encoder, tokenizer, lowercase), seed)


def evaluate_sick(
    pairs: pd.DataFrame,
    encoder: SentenceEncoder,
    tokenizer: str,
    lowercase: bool,
    grid: Sequence[float] = C_GRID,
    seed: int = SEED,
) -> tuple[EntailmentResult, RelatednessResult]:
    """SICK-E and SICK-R from one encoding of the pairs."""
    splits = encode_splits(pairs, encoder, tokenizer, lowercase)
    return entailment_from_splits(splits, grid), relatedness_from_splits(splits, seed)
