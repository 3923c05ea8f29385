"""What chen2020's score tables read: the sentence table, its sources and the models' scores
(:class:`Data`), and the cells' test-set bootstrap replicates on their sets' shared resamples
(:data:`RESAMPLER`: one ``B × n`` index matrix per set, the same for every model: paired).

Thresholds are not tuned again on a resample: the News threshold stays at its value tuned on
the training sentences, Table 3's per-length thresholds at theirs (:func:`normalised_replicates`).
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from paracomp.eval import bootstrap
from paracomp.papers.chen2020.scores import ModelScores
from paracomp.papers.chen2020.sentences import SentenceSources
from paracomp.papers.chen2020.specificity import BinaryResult, LengthNormalised, news_protocol
from paracomp.tables.build import Cell

NEWS_POOL = ("news_train", "news_test")
"""The sets Table 3's length-normalised pool is drawn from, in the order they are joined."""


class Data:
    """The sentence table, its sources and the models' scores."""

    def __init__(self, sentences: Path, scores: Mapping[str, Path]):
        self.sentences = pd.read_parquet(sentences)
        self.sources = SentenceSources.read(Path(sentences).with_suffix(".json"))
        self.scores = {model: ModelScores.read(path) for model, path in scores.items()}

    def alone(self, model: str, scores: Path) -> Data:
        """This data with ``model``'s scores read from ``scores`` and no other model's."""
        other = copy.copy(self)
        other.scores = {model: ModelScores.read(scores)}
        return other

    def has(self, name: str) -> bool:
        return name in self.sources.present

    def labels(self, name: str) -> np.ndarray:
        rows = self.sentences[self.sentences["set"] == name].sort_values("index")
        return rows["label"].to_numpy(dtype=np.float64)

    def column(self, name: str, key: str) -> np.ndarray:
        rows = self.sentences[self.sentences["set"] == name].sort_values("index")
        return rows[key].to_numpy()

    def lengths(self, name: str) -> np.ndarray:
        return np.array([len(t.split()) for t in self.column(name, "tokens")], dtype=np.int64)

    def missing(self, *names: str) -> str:
        """Why one of the sets ``names`` is absent ('' if all are present)."""
        return next((self.sources.reason(n) for n in names if not self.has(n)), "")

    def counts(self, name: str) -> np.ndarray:
        """The resample counts of set ``name``'s sentences (shared by every model)."""
        key = f"chen2020/{name}"
        return RESAMPLER.counts(bootstrap.Sample.whole(key, len(self.labels(name))))

    def news(self, model: str) -> BinaryResult:
        scores = self.scores[model]
        return news_protocol(
            scores.of("news_train"),
            self.labels("news_train"),
            scores.of("news_test"),
            self.labels("news_test"),
        )


RESAMPLER = bootstrap.Resampler()


def with_replicates(
    cell: Cell, data: Data, name: str, replicates: Callable[[], np.ndarray]
) -> Cell:
    """``cell`` with its ``replicates()`` on set ``name``'s resamples (none when the cell is
    empty; why none when the set has fewer than :data:`paracomp.eval.bootstrap.MIN_PAIRS`
    sentences)."""
    if cell.value is None:
        return cell
    key = f"chen2020/{name}"
    reason = bootstrap.too_few(len(data.labels(name)), key)
    if reason:
        return dataclasses.replace(cell, noise=reason)
    return dataclasses.replace(cell, boot=replicates(), sets=(key,))


def share(data: Data, hits: np.ndarray, among: np.ndarray) -> np.ndarray:
    """``hits`` as a percentage of ``among`` on every resample of the SNLI pairs."""
    counts = data.counts("snli_premise")
    with np.errstate(invalid="ignore", divide="ignore"):
        return 100.0 * (counts @ hits) / (counts @ among)


def sts_replicates(cell: Cell, sts: Mapping[str, Any]) -> Cell:
    """Table 8's cell with its Pearson ×100 on every resample of the STS-B pairs the scores
    kept (under the generic evaluator's key: paired with every other STS-B cell)."""
    if "pred" not in sts:
        return dataclasses.replace(cell, noise="no interval: the scores keep no STS-B pairs")
    noise = bootstrap.too_few(len(sts["pred"]), sts["key"])
    if noise:
        return dataclasses.replace(cell, noise=noise)
    counts = RESAMPLER.counts(bootstrap.Sample.whole(sts["key"], len(sts["pred"])))
    boot = 100.0 * bootstrap.pearson(counts, np.asarray(sts["gold"]), np.asarray(sts["pred"]))
    return dataclasses.replace(cell, boot=boot, sets=(sts["key"],))


def news_replicates(data: Data, model: str, metric: str = "acc") -> np.ndarray:
    """Accuracy (or F1 of *specific*, ``metric="f1"``) ×100 of the News test predictions on
    every resample of the News test sentences, the threshold tuned once on the training
    sentences."""
    result = data.news(model)
    predicted = data.scores[model].of("news_test") > result.threshold
    gold = data.labels("news_test").astype(bool)
    counts = data.counts("news_test")
    if metric == "acc":
        return 100.0 * bootstrap.mean(counts, predicted == gold)
    true_positive = counts @ (predicted & gold).astype(np.float64)
    denominator = counts @ predicted.astype(np.float64) + counts @ gold.astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(denominator > 0, 200.0 * true_positive / denominator, 0.0)


def normalised_replicates(
    data: Data, result: LengthNormalised, majority: bool = False
) -> np.ndarray:
    """Table 3's length-normalised accuracy ×100 (or, with ``majority``, the pool's majority
    share) on every resample: the News training and test sentences each resampled on their
    own set's resamples (those of Table 2's News column), the pool's sentences counted as
    drawn, each at the prediction its length's threshold gave (thresholds not tuned again)."""
    counts = np.concatenate([data.counts(name) for name in NEWS_POOL], axis=1)
    specific = np.concatenate([data.labels(name) for name in NEWS_POOL]).astype(bool)
    pool = counts[:, result.tested]
    drawn = pool.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        if majority:
            share = pool @ specific[result.tested].astype(np.float64) / drawn
            return 100.0 * np.maximum(share, 1.0 - share)
        hits = result.predicted[result.tested] == specific[result.tested]
        return 100.0 * (pool @ hits.astype(np.float64)) / drawn
