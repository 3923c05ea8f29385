"""Every sentence's specificity score under one model or baseline (the input of Tables 1–4, 7)
and, for trained runs, the STS Benchmark test Pearson r (Table 8).

A score is higher for more specific sentences (:func:`.specificity.specificity`): ``−H`` of
a Gaussian composer's output, the norm of a deterministic composer's. Kinds (:data:`KINDS`):

- ``run``: a trained run, its own composer (unknown words: its UNK row; a run started from
  pretrained vectors keeps them for the words it did not train);
- ``run_sum``: a run's word rows composed by ``sum`` (WORDSUM from WORDAVG's rows);
- ``majority`` (a constant), ``length`` (tokens), ``wordfreq_sum`` / ``wordfreq_avg`` (sum or
  mean frequency rank, counted in the training pairs, both sides, or read from a vocabulary in
  frequency order; 1 = most frequent, unseen words last), ``vectors_sum`` / ``vectors_avg``
  (norm of the sum or mean of pretrained vectors, e.g. GloVe, or the runs' initial vectors, the untrained baseline; words without a vector
  skipped).

``sts`` (the STS Benchmark) scores runs and vectors (averaged) on its test pairs (Table 8).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow.parquet as pq

from paracomp import artefacts
from paracomp.atomic import atomic_path
from paracomp.errors import ConfigError
from paracomp.papers.chen2020.sentences import token_lists
from paracomp.papers.chen2020.specificity import (
    constant_scores,
    frequency_ranks,
    frequency_scores,
    order_ranks,
    specificity,
    token_lengths,
    vector_scores,
)
from paracomp.timing import timed

KINDS = (
    "run",
    "run_sum",
    "majority",
    "length",
    "wordfreq_sum",
    "wordfreq_avg",
    "vectors_sum",
    "vectors_avg",
)


@dataclass
class ModelScores:
    """Scores (``set``, ``index``, ``score``) and what the tables say about them."""

    frame: pd.DataFrame
    meta: dict[str, Any] = field(default_factory=dict)

    def write(self, out: Path) -> None:
        """``out`` (parquet) and its ``.json`` beside it."""
        with atomic_path(out) as tmp:
            self.frame.to_parquet(tmp, index=False)
        with atomic_path(out.with_suffix(".json")) as tmp:
            tmp.write_text(json.dumps(self.meta, indent=2, sort_keys=True))

    @classmethod
    def read(cls, path: Path) -> ModelScores:
        path = Path(path)
        return cls(pd.read_parquet(path), json.loads(path.with_suffix(".json").read_text()))

    def of(self, name: str) -> np.ndarray:
        """The scores of set ``name``, in index order."""
        rows = self.frame[self.frame["set"] == name].sort_values("index")
        return rows["score"].to_numpy(dtype=np.float64)


def _pair_tokens(pairs: Path) -> list[list[str]]:
    table = pq.read_table(pairs, columns=["s1", "s2"])
    return [s.split() for column in ("s1", "s2") for s in table.column(column).to_pylist()]


def _oov(tokens: list[list[str]], known: Any) -> float:
    total = sum(len(t) for t in tokens)
    unknown = sum(not known(w) for t in tokens for w in t)
    return unknown / total if total else 0.0


@timed("evaluate")
def score_model(
    kind: str,
    sentences: pd.DataFrame,
    *,
    run: Path | None = None,
    pairs: Path | None = None,
    order: Path | None = None,
    vectors: Path | None = None,
    sts: Path | None = None,
    sts_args: tuple[str, str, str, bool] = ("stsb", "test", "moses", True),
) -> ModelScores:
    """The scores of every sentence under ``kind`` (:data:`KINDS`) with its inputs: ``run``
    (a run folder), ``pairs`` (the training pairs, for word frequencies) or ``order`` (an
    embeddings artefact whose rows are in descending frequency, for their ranks), ``vectors``
    (an embeddings artefact); ``sts`` (the STS Benchmark set artefact) scores runs and vectors on
    ``sts_args`` = (subset, split, tokenizer, lowercase)."""
    if kind not in KINDS:
        raise ConfigError(f"--kind: {kind!r} is not a scorer; known: {', '.join(KINDS)}")
    tokens = token_lists(sentences)
    meta: dict[str, Any] = {"kind": kind, "probabilistic": False}
    if kind in ("run", "run_sum"):
        from paracomp.eval.trained import TrainedEncoder, load_run
        from paracomp.models import PROBABILISTIC_COMPOSERS
        from paracomp.models.registry import COMPOSERS

        assert run is not None
        config, encoder = load_run(run)
        if kind == "run_sum":
            words = list(encoder.index)
            rows = encoder.rows.cpu().numpy()
            encoder = TrainedEncoder(COMPOSERS["sum"](rows.shape[1]), words, rows)
        probabilistic = kind == "run" and config.composer in PROBABILISTIC_COMPOSERS
        scores = specificity(encoder.outputs(tokens), probabilistic)
        meta.update(
            probabilistic=probabilistic,
            composer=config.composer if kind == "run" else "sum",
            unk=encoder.unk is not None,
            oov=_oov_by_set(sentences, tokens, encoder.known),
        )
        if sts is not None:
            meta["sts"] = _sts(encoder, sts, *sts_args)
    elif kind == "majority":
        scores = constant_scores(len(tokens))
    elif kind == "length":
        scores = token_lengths(tokens).astype(np.float64)
    elif kind.startswith("wordfreq"):
        if (pairs is None) == (order is None):
            raise ConfigError(f"--kind {kind}: give one of --pairs and --frequency-order")
        if order is not None:
            ranks = order_ranks(
                artefacts.read(order, ["word"], ["word"]).column("word").to_pylist()
            )
        else:
            ranks = frequency_ranks(_pair_tokens(pairs))
        scores = frequency_scores(tokens, ranks, "sum" if kind.endswith("sum") else "mean")
        meta["oov"] = _oov_by_set(sentences, tokens, ranks.__contains__)
    else:
        from paracomp.eval.encode import AveragedEmbeddings

        assert vectors is not None
        words, matrix = artefacts.read_embeddings(vectors)
        scores = vector_scores(tokens, words, matrix, "sum" if kind.endswith("sum") else "mean")
        meta["oov"] = _oov_by_set(sentences, tokens, set(words).__contains__)
        if sts is not None:
            meta["sts"] = _sts(AveragedEmbeddings(words, matrix), sts, *sts_args)
    frame = pd.DataFrame(
        {
            "set": sentences["set"].to_numpy(),
            "index": sentences["index"].to_numpy(),
            "score": scores,
        }
    )
    return ModelScores(frame, meta)


def _oov_by_set(sentences: pd.DataFrame, tokens: list[list[str]], known: Any) -> dict[str, float]:
    """Share of unknown tokens per set."""
    sets = sentences["set"].to_numpy()
    return {
        name: round(_oov([t for t, s in zip(tokens, sets, strict=True) if s == name], known), 4)
        for name in dict.fromkeys(sets.tolist())
    }


def _sts(encoder: Any, path: Path, subset: str, split: str, tokenizer: str, lowercase: bool):
    from paracomp.eval.metrics import pearson
    from paracomp.eval.sts import predict_pairs

    frame = pd.read_parquet(path)
    frame = frame[(frame["subset"] == subset) & (frame["split"] == split)]
    if frame.empty:
        return {"pearson": None, "n": 0, "reason": f"no {subset} {split} pairs in {path}"}
    preds = predict_pairs(frame, encoder, tokenizer, lowercase, "skip")
    r = pearson(preds["gold"].to_numpy(), preds["pred"].to_numpy())
    key = f"{frame['dataset'].iloc[0]}/{subset}/{split}"  # the generic evaluator's test-set key
    return {"pearson": r, "n": len(preds), "n_oov": int(preds["oov"].sum()), "split": split,
            "key": key, "gold": preds["gold"].tolist(), "pred": preds["pred"].tolist()}  # fmt: skip
