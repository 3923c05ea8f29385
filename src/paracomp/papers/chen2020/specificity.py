"""Zero-shot sentence specificity (Tables 2, 3 and 7): scores, the threshold protocols and the
baselines.

A specificity score is higher for more specific sentences: ``−H`` (the entropy of the sentence
Gaussian, lower = more specific) for probabilistic models, the L2 norm of the sentence vector
for deterministic ones. The direction is fixed, never tuned per model: this is what makes the
averaging models fall to the majority class on News (54.6) and gives them negative
correlations elsewhere, as the paper prints.

- News (Table 2, Table 7): one threshold (predict *specific* where ``score > t``) tuned for
  accuracy on the labelled news training sentences, applied to the News test set; accuracy and
  F1 (of the class *specific*, and the macro average) in %.
- Twitter, Yelp, Movie (Table 2): Spearman's ρ × 100 between the score and the mean ratings.
- Length-normalised News (Table 3): News training and test sentences pooled and grouped by
  token length; the threshold tuned on the group of length ``k`` is applied to the group of
  length ``k − 1``, for every ``k`` whose ``k − 1`` group exists; accuracy over all those
  predictions (the paper's pool: 3,582 sentences).

All percentages are in [0, 100].
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np
from scipy.stats import spearmanr

LOG_2PI = math.log(2.0 * math.pi)
MODES = ("sum", "mean")


def gaussian_entropy(gaussians: np.ndarray) -> np.ndarray:
    """``H = ½ Σ_j (1 + log 2π + log σ²_j)`` of ``[μ | log σ²]`` rows (n, 2k), (n,)."""
    log_var = np.asarray(gaussians, dtype=np.float64)[:, gaussians.shape[1] // 2 :]
    return 0.5 * (1.0 + LOG_2PI + log_var).sum(axis=1)


def vector_norm(vectors: np.ndarray) -> np.ndarray:
    """The L2 norm of each row (n, d), (n,)."""
    return np.linalg.norm(np.asarray(vectors, dtype=np.float64), axis=1)


def specificity(outputs: np.ndarray, probabilistic: bool) -> np.ndarray:
    """Higher = more specific: ``−entropy`` of Gaussian rows, else the vector norm."""
    return -gaussian_entropy(outputs) if probabilistic else vector_norm(outputs)


# --- thresholds -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Threshold:
    """Predict *specific* where ``score > value``; ``accuracy`` (%) on the tuning set."""

    value: float
    accuracy: float

    def predict(self, scores: np.ndarray) -> np.ndarray:
        return np.asarray(scores) > self.value


def tune_threshold(scores: np.ndarray, specific: np.ndarray) -> Threshold:
    """The threshold of highest accuracy on ``scores`` with labels ``specific`` (bool or
    0/1). Candidates: ``−inf`` (all specific), the midpoints between consecutive distinct
    scores and ``+inf`` (all general: a test score above every tuning score is general too);
    of equally accurate ones, the lowest."""
    scores = np.asarray(scores, dtype=np.float64)
    specific = np.asarray(specific).astype(bool)
    if not scores.size:
        raise ValueError("cannot tune a threshold on no sentences")
    values, inverse = np.unique(scores, return_inverse=True)
    general_at = np.bincount(inverse, weights=~specific, minlength=values.size)
    specific_at = np.bincount(inverse, weights=specific, minlength=values.size)
    # cut after the j-th distinct value (j = 0: before all): general up to it, specific above
    correct = np.concatenate([[0.0], np.cumsum(general_at)]) + np.concatenate(
        [[specific.sum()], specific.sum() - np.cumsum(specific_at)]
    )
    cut = int(np.argmax(correct))
    cuts = np.concatenate([[-np.inf], (values[:-1] + values[1:]) / 2.0, [np.inf]])
    return Threshold(float(cuts[cut]), 100.0 * float(correct[cut]) / scores.size)


@dataclass(frozen=True)
class BinaryResult:
    """Accuracy, F1 of *specific*, macro F1 (all %), the threshold and the test size."""

    accuracy: float
    f1_specific: float
    f1_macro: float
    threshold: float
    n: int


def _f1(predicted: np.ndarray, gold: np.ndarray) -> float:
    true_positive = float(np.sum(predicted & gold))
    denominator = float(predicted.sum() + gold.sum())
    return 100.0 * 2.0 * true_positive / denominator if denominator else 0.0


def binary_metrics(predicted: np.ndarray, specific: np.ndarray) -> tuple[float, float, float]:
    """Accuracy, F1 of the class *specific* and the macro F1 of both classes, in %."""
    predicted, gold = np.asarray(predicted).astype(bool), np.asarray(specific).astype(bool)
    accuracy = 100.0 * float(np.mean(predicted == gold))
    f1_specific = _f1(predicted, gold)
    return accuracy, f1_specific, (f1_specific + _f1(~predicted, ~gold)) / 2.0


def news_protocol(
    train_scores: np.ndarray,
    train_specific: np.ndarray,
    test_scores: np.ndarray,
    test_specific: np.ndarray,
) -> BinaryResult:
    """Table 2's News cell (and Table 7's): the threshold tuned on the training sentences,
    the metrics on the test sentences."""
    threshold = tune_threshold(train_scores, train_specific)
    metrics = binary_metrics(threshold.predict(test_scores), test_specific)
    return BinaryResult(*metrics, threshold.value, len(test_scores))


def spearman(scores: np.ndarray, ratings: np.ndarray) -> float:
    """Spearman's ρ × 100 (Table 2's Twitter, Yelp and Movie cells)."""
    return 100.0 * float(spearmanr(scores, ratings).statistic)


@dataclass(frozen=True)
class LengthNormalised:
    """Table 3's length-normalised accuracy (%) over ``pool`` test sentences, the share (%) of
    the pool's majority class, the lengths ``k − 1`` that were tested, and per sentence
    whether it is in the pool (``tested``) and the prediction it got there (``predicted``)."""

    accuracy: float
    pool: int
    majority: float
    lengths: tuple[int, ...]
    tested: np.ndarray = field(repr=False, compare=False, default_factory=lambda: np.zeros(0, bool))
    predicted: np.ndarray = field(
        repr=False, compare=False, default_factory=lambda: np.zeros(0, bool)
    )


def length_normalised(
    scores: np.ndarray, specific: np.ndarray, lengths: np.ndarray
) -> LengthNormalised:
    """Tune on each length-``k`` group, test on the length-``k − 1`` group (groups without a
    ``k + 1`` group are never tested).

    Table 3's "Majority baseline" (50.1) is read as :attr:`LengthNormalised.majority`, one
    class for the whole pool: this protocol with constant scores predicts, per length, the
    majority of the next length's group, which on the News data follows length and scores
    far above 50 (as the paper's averaging models do: 69.0–69.6)."""
    scores = np.asarray(scores, dtype=np.float64)
    specific, lengths = np.asarray(specific).astype(bool), np.asarray(lengths, dtype=np.int64)
    tested, predicted, groups = np.zeros(len(scores), bool), np.zeros(len(scores), bool), []
    present = set(lengths.tolist())
    for k in sorted(present):
        if k - 1 not in present:
            continue
        tune, test = lengths == k, lengths == k - 1
        threshold = tune_threshold(scores[tune], specific[tune])
        predicted[test] = threshold.predict(scores[test])
        tested |= test
        groups.append(k - 1)
    pool = int(tested.sum())
    if not pool:
        return LengthNormalised(math.nan, 0, math.nan, (), tested, predicted)
    correct = int(np.sum(predicted[tested] == specific[tested]))
    tested_specific = int(specific[tested].sum())
    majority = 100.0 * max(tested_specific, pool - tested_specific) / pool
    return LengthNormalised(
        100.0 * correct / pool, pool, majority, tuple(groups), tested, predicted
    )


# --- baselines --------------------------------------------------------------------------------


def constant_scores(n: int) -> np.ndarray:
    """The majority baseline's scores (News): the threshold then predicts the tuning set's
    majority class."""
    return np.zeros(n)


def token_lengths(sentences: Sequence[Sequence[str]]) -> np.ndarray:
    """The Length baseline: the number of tokens."""
    return np.array([len(tokens) for tokens in sentences], dtype=np.int64)


def frequency_ranks(corpus: Iterable[Sequence[str]]) -> dict[str, int]:
    """Word frequency ranks in ``corpus`` (tokenised sentences): 1 = most frequent; equal
    counts ranked alphabetically."""
    counts = Counter(token for tokens in corpus for token in tokens)
    ordered = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return {word: rank for rank, (word, _) in enumerate(ordered, start=1)}


def order_ranks(words: Sequence[str]) -> dict[str, int]:
    """Frequency ranks of a vocabulary listed in descending frequency (GloVe's): a word's rank
    is its position, from 1; a repeated word keeps its first."""
    ranks: dict[str, int] = {}
    for rank, word in enumerate(words, start=1):
        ranks.setdefault(word, rank)
    return ranks


def _reduce(values: list[float] | np.ndarray, mode: str) -> float:
    if not len(values):
        return 0.0
    return float(np.sum(values) if mode == "sum" else np.mean(values))


def frequency_scores(
    sentences: Sequence[Sequence[str]], ranks: dict[str, int], mode: str
) -> np.ndarray:
    """Word Freq. SUM / AVG (``mode`` ``"sum"`` / ``"mean"``): the sum or mean of the tokens'
    frequency ranks (rarer = larger = more specific); a word absent from ``ranks`` ranks last
    (one past the largest rank), an empty sentence scores 0."""
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, not {mode!r}")
    unseen = max(ranks.values(), default=0) + 1
    return np.array(
        [_reduce([ranks.get(token, unseen) for token in tokens], mode) for tokens in sentences]
    )


def vector_scores(
    sentences: Sequence[Sequence[str]], words: Sequence[str], matrix: np.ndarray, mode: str
) -> np.ndarray:
    """GloVe SUM / AVG: the norm of the sum or mean (``mode``) of the tokens' vectors
    (``matrix`` rows of ``words``); tokens without a vector are skipped, a sentence with none
    scores 0. Casing is the caller's (GloVe 840B is cased, 6B lowercased)."""
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, not {mode!r}")
    index = {word: i for i, word in enumerate(words)}
    scores = np.zeros(len(sentences))
    for n, tokens in enumerate(sentences):
        rows = [index[token] for token in tokens if token in index]
        if rows:
            vectors = np.asarray(matrix[rows], dtype=np.float64)
            combined = vectors.sum(0) if mode == "sum" else vectors.mean(0)
            scores[n] = np.linalg.norm(combined)
    return scores
