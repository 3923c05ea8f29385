"""Supervised similarity training as a :class:`~paracomp.train.loop.Task` (objective
``supervised``): a composer over word rows trained end to end under Tai et al.'s head
(:mod:`paracomp.train.similarity.model`) on the ``train`` part of a SCORED_PAIRS table, as
Wieting & Gimpel (2017, §4.3, after the authors' iclr2016 code) train their supervised STS and
SICK runs.

- Loss: KL(p ‖ p̂) with Tai et al.'s sparse target p of the gold score plus ``score_shift`` on
  ``classes`` classes, 1e-6 added to each bin (the authors' code), the batch mean; Adam.
- Regularisation: ``dropout`` or ``word_dropout`` of the word vectors; ``scramble`` (both
  sentences of a pair shuffled with that probability, drawn per pair and epoch);
  λ_w/2 ‖W_w − W_w^init‖² (``reg_initial``) and λ_c/2 ‖W_c − W_c^0‖² (``reg_composer``), W_c^0
  zero, or the composer a run started from (``composer``: the "universal" setting of §3.5).
- Selection: every epoch ends with the Pearson r of the ``dev`` part as the curve's
  :data:`~paracomp.train.loop.BEST`, and the loop exports the weights of the epoch with the
  highest (:attr:`selects_best`); :meth:`SimilarityTask.predict` then scores the ``test`` part.
- Draws (kept as the paper's step drew them, so its tables stay as they were): the head from
  torch's generator seeded by ``seed``, the batch order and scrambling from numpy's
  ``default_rng(seed)``, the noise masks from a CPU generator seeded by ``seed``. A checkpoint
  after each epoch holds all three; a run resumed from one ends with the same weights.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any

import numpy as np
import pyarrow as pa
import torch

from paracomp.eval.metrics import pearson
from paracomp.run_config import TrainConfig
from paracomp.train import loop
from paracomp.train.cuda_graph import GriddedComposer, graphed_composer
from paracomp.train.optim import adam
from paracomp.train.similarity.model import Noise, ScoredData, SimilarityModel, sparse_target

Batch = tuple[list[np.ndarray], list[np.ndarray], np.ndarray]
"""The left and right token ids of a step's pairs (scrambled where drawn) and their rows."""

PREDICT_BATCH = 500
"""Pairs per forward pass when scoring a part."""


class SimilarityTask(loop.Task):
    """``config.epochs`` epochs of Tai et al.'s KL loss over the ``train`` part of ``pairs``,
    from the word rows ``matrix`` of ``words`` and ``composer`` (its parameters the
    regularisation's anchor when ``anchored``)."""

    selects_best = True

    def __init__(
        self,
        config: TrainConfig,
        pairs: pa.Table,
        words: list[str],
        matrix: np.ndarray,
        composer: torch.nn.Module,
        anchored: bool = False,
    ):
        self.config, self.words = config, words
        self.device = loop.resolve_device(config)
        self.data = ScoredData.encode(pairs, {w: i for i, w in enumerate(words)})
        self.parts = {p: self.data.rows(p) for p in ("train", "dev", "test")}
        self.initial = np.asarray(matrix, dtype=np.float32)
        torch.manual_seed(config.seed)
        model = SimilarityModel(matrix, composer, config.hidden, config.classes)
        self.model = model.to(self.device)
        if graphed_composer(config.to_dict(), self.device):
            self.model.runner = GriddedComposer(composer, graphed=self.device.type == "cuda")
        self.start = self.model.weight.detach().clone()
        self.anchor = {
            name: (value.detach().clone() if anchored else torch.zeros_like(value)).to(self.device)
            for name, value in self.model.composer.named_parameters()
        }
        self.optimizer = adam(self.model.parameters(), lr=config.lr)
        target = sparse_target(self.data.gold + config.score_shift, config.classes) + 1e-6
        self.target = torch.as_tensor(target, device=self.device)
        self.ranks = torch.arange(1, config.classes + 1, dtype=torch.float32, device=self.device)
        self.order = np.random.default_rng(config.seed)
        self.noise = Noise(
            torch.Generator().manual_seed(config.seed), config.dropout, config.word_dropout
        )
        self.steps_per_epoch = -(-len(self.parts["train"]) // config.batch_size)
        self.total_steps = config.epochs * self.steps_per_epoch
        self.log_every = self.checkpoint_every = self.steps_per_epoch

    def batches(self, first: int) -> Iterator[Batch]:
        """The batches from step ``first`` (a checkpoint's: an epoch's start) on: each epoch a
        permutation of the training rows, then per batch the scrambling draws."""
        size = self.config.batch_size
        for _ in range(first // self.steps_per_epoch, self.config.epochs):
            order = self.order.permutation(self.parts["train"])
            for s in range(0, len(order), size):
                rows = order[s : s + size]
                left = [self.data.left[i] for i in rows]
                right = [self.data.right[i] for i in rows]
                if self.config.scramble:
                    flips = self.order.random(len(rows)) < self.config.scramble
                    left = [self.order.permutation(x) if f else x for x, f in zip(left, flips)]
                    right = [self.order.permutation(x) if f else x for x, f in zip(right, flips)]
                yield left, right, rows

    def batch_pairs(self, batch: Batch) -> int:
        return len(batch[2])

    def step(self, step: int, batch: Batch) -> torch.Tensor:
        left, right, rows = batch
        log_p = self.model(left, right, self.noise)
        p = self.target[torch.as_tensor(rows, device=self.device)]
        loss = (p * (p.log() - log_p)).sum(1).mean()
        if self.config.reg_initial:
            pull = (self.model.weight - self.start).pow(2).sum()
            loss = loss + 0.5 * self.config.reg_initial * pull
        if self.config.reg_composer:
            terms = [
                (param - self.anchor[name]).pow(2).sum()
                for name, param in self.model.composer.named_parameters()
            ]
            if terms:
                loss = loss + 0.5 * self.config.reg_composer * torch.stack(terms).sum()
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss.detach()

    def predict(self, part: str) -> np.ndarray:
        """ŷ = rᵀp̂ of the pairs of ``part`` under the current weights."""
        rows = self.parts[part]
        self.model.eval()
        out = []
        with torch.no_grad():
            for s in range(0, len(rows), PREDICT_BATCH):
                batch = rows[s : s + PREDICT_BATCH]
                log_p = self.model([self.data.left[i] for i in batch],
                                   [self.data.right[i] for i in batch])  # fmt: skip
                out.append((log_p.exp() @ self.ranks).cpu().numpy())
        self.model.train()
        return np.concatenate(out) if out else np.zeros(0)

    def metrics(self, position: int, callback: loop.Callback | None) -> dict[str, float]:
        """The ``dev`` part's Pearson r (the selection's score)."""
        return {loop.BEST: pearson(self.predict("dev"), self.data.gold[self.parts["dev"]])}

    def fingerprint(self) -> dict[str, Any]:
        return {**self.data.fingerprint(), "words": len(self.words)}

    def state_dict(self) -> dict[str, Any]:
        return {
            "model": self.model.state_dict(),
            "optimizer": self.optimizer.state_dict(),
            "order": json.dumps(self.order.bit_generator.state),
            "noise": self.noise.generator.get_state(),
        }

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        self.model.load_state_dict(state["model"])
        self.optimizer.load_state_dict(state["optimizer"])
        self.order.bit_generator.state = json.loads(state["order"])
        self.noise.generator.set_state(state["noise"])

    def exported(self, steps: int) -> tuple[list[str], np.ndarray, str]:
        """The word rows training moved (the others are the initial rows, which an evaluation
        takes as its fallback vectors)."""
        trained = self.model.weight.detach().cpu().numpy()
        moved = np.flatnonzero((trained != self.initial).any(axis=1))
        note = (
            f"the {len(moved)} of {len(self.words)} word rows training moved after {steps} "
            "steps; the others as initial"
        )
        return [self.words[i] for i in moved], trained[moved].copy(), note

    def report(self, curve: Any) -> dict[str, Any]:
        """The selected epoch's dev and test Pearson r (×100), the pairs per part and the test
        pairs' gold and predictions (for bootstrap intervals), under the exported weights."""
        scores = curve[loop.BEST].to_numpy()
        chosen = loop.best_row(scores)
        pred = self.predict("test")
        gold = self.data.gold[self.parts["test"]]
        return {
            "dev_pearson": 100.0 * float(scores[chosen]) if chosen >= 0 else float("nan"),
            "test_pearson": 100.0 * pearson(pred, gold),
            "epoch": int(curve["epoch"].iloc[chosen]) if chosen >= 0 else 0,
            "n": {p: int(len(v)) for p, v in self.parts.items()},
            "test_gold": gold.tolist(),
            "test_pred": np.asarray(pred, np.float64).tolist(),
        }
