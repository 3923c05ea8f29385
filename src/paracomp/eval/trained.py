"""Sentence encoders over a trained pair run's composer and word rows.

:class:`TrainedEncoder` composes each sentence's word rows with the run's composer (without
gradient): a token in the vocabulary takes its row, any other the UNK row when
the run exported one (``export_unk``), else it is skipped; a sentence with no row left is the
composer's empty segment (a zero vector, or ``N(0, I)`` for WLO). ``features`` maps the
composer's output rows to the vectors a cosine compares: for Gaussian composers
(:data:`paracomp.models.PROBABILISTIC_COMPOSERS`) :func:`gaussian_features`, ``[μ ; σ²]`` (Chen
& Gimpel 2020, Table 8).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import torch

from paracomp import run_folder
from paracomp.eval.encode import with_fallback
from paracomp.models import PROBABILISTIC_COMPOSERS
from paracomp.models.base import Composer, SegmentBatch
from paracomp.models.pair import PairModel
from paracomp.models.registry import make_composer
from paracomp.models.vocab import UNK
from paracomp.run_config import TrainConfig

Features = Callable[[np.ndarray], np.ndarray]


def gaussian_features(outputs: np.ndarray) -> np.ndarray:
    """``[μ ; σ²]`` of ``[μ | log σ²]`` rows (n, 2k), in the rows' dtype."""
    k = outputs.shape[1] // 2
    return np.concatenate([outputs[:, :k], np.exp(outputs[:, k:])], axis=1)


def features_of(composer: str) -> Features | None:
    """The features a cosine compares for composer ``composer`` (None: its output)."""
    return gaussian_features if composer in PROBABILISTIC_COMPOSERS else None


class TrainedEncoder:
    """A :class:`~paracomp.eval.encode.SentenceEncoder` over ``composer`` and the rows
    ``matrix`` of ``words`` (the word :data:`~paracomp.models.vocab.UNK` among them, if any,
    takes every unknown token)."""

    def __init__(
        self,
        composer: Composer,
        words: Sequence[str],
        matrix: np.ndarray | torch.Tensor,
        features: Features | None = None,
        batch_size: int = 1024,
    ):
        self.composer = composer
        self.index = {w: i for i, w in enumerate(words)}
        self.unk = self.index.get(UNK)
        self.rows = torch.as_tensor(np.array(matrix, dtype=np.float32))
        parameter = next(composer.parameters(), None)
        if parameter is not None:
            self.rows = self.rows.to(parameter.device)
        self.features, self.batch_size = features, batch_size

    def known(self, token: str) -> bool:
        return token in self.index and token != UNK

    def ids(self, tokens: Sequence[str]) -> list[int]:
        """Row ids of a sentence's tokens (unknown ones: UNK's row, or none)."""
        if self.unk is None:
            return [self.index[t] for t in tokens if t in self.index]
        return [self.index.get(t, self.unk) for t in tokens]

    @torch.no_grad()
    def outputs(self, sentences: Sequence[Sequence[str]]) -> np.ndarray:
        """The composer's output row of every tokenised sentence (float32)."""
        out = [np.zeros((0, self.composer.dim), dtype=np.float32)]
        for start in range(0, len(sentences), self.batch_size):
            ids = [self.ids(tokens) for tokens in sentences[start : start + self.batch_size]]
            lengths = torch.tensor([len(x) for x in ids], dtype=torch.long)
            flat = torch.tensor([i for x in ids for i in x], dtype=torch.long)
            index, local = torch.unique(flat, return_inverse=True)
            offsets = torch.cumsum(lengths, 0) - lengths
            device = self.rows.device
            batch = SegmentBatch(self.rows[index.to(device)], local.to(device), offsets.to(device))
            out.append(self.composer(batch).float().cpu().numpy())
        return np.concatenate(out)

    def encode(self, sentences: Sequence[Sequence[str]]) -> np.ndarray:
        outputs = self.outputs(sentences)
        return outputs if self.features is None else self.features(outputs)


def pair_encoder(model: PairModel, words: Sequence[str], config: TrainConfig) -> TrainedEncoder:
    """A pair run's side-1 encoder while it trains (its model's rows ``0 … len(words) − 1``;
    unknown tokens take the UNK row with ``export_unk``, else are skipped, as the exported
    run will)."""
    first = 0 if config.export_unk else 1
    matrix = model.weight.detach()[first : len(words)].float().cpu().numpy()
    return TrainedEncoder(model.composer, words[first:], matrix, features_of(config.composer))


def load_run(
    run_dir: Path,
    device: str = "cpu",
    fallback: tuple[Sequence[str], np.ndarray] | None = None,
) -> tuple[TrainConfig, TrainedEncoder]:
    """A finished pair run's settings and encoder, from its folder
    (:mod:`~paracomp.run_folder`); ``fallback``: words and rows for the words outside
    the run's rows (:func:`~paracomp.eval.encode.with_fallback`)."""
    config, state = run_folder.read_composer(Path(run_dir), device)
    composer = make_composer(config.composer, config.dim, settings=config.to_dict()).to(device)
    composer.load_state_dict(state)
    composer.eval()
    words, matrix = run_folder.read_rows(Path(run_dir))
    if fallback is not None:
        words, matrix = with_fallback(words, matrix, *fallback)
    return config, TrainedEncoder(composer, words, matrix, features_of(config.composer))
