"""Training on segment pairs: J_bi and J_pa of Elgohary & Carpuat (2016), and any pair
objective of :mod:`paracomp.losses.hinge`, as a :class:`~paracomp.train.loop.Task`.

Each epoch is a shuffled pass over the pairs in batches; a checkpoint is written after every
epoch (weights, optimiser, sampler, batch-order and torch generator states). The exported
embeddings are the side-1 (English) word vectors, without the UNK row (with it under
``export_unk``).

Settings that add to the plain batches: ``scramble`` shuffles the words of drawn pairs and
``dropout`` or ``word_dropout`` drop the word vectors of the segments composed with gradient
(:mod:`paracomp.train.pairs.perturb`, all three from one perturbation generator of the task's, saved
in its checkpoints; under a dropout the negatives come from a pass without it,
:mod:`paracomp.train.pairs.noisy`), and ``megabatch`` replaces the sampler by mega-batch hardest
negatives (:mod:`paracomp.train.pairs.megabatch`), with the WLO prior (``prior_weight``) on top.
"""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import torch

from paracomp import artefacts
from paracomp.errors import ConfigError, DataError
from paracomp.eval.encode import AveragedEmbeddings, SentenceEncoder
from paracomp.eval.trained import TrainedEncoder, features_of, pair_encoder
from paracomp.losses.constrained import ForbiddenPairs
from paracomp.losses.hinge import PairBatch
from paracomp.losses.regularizers import InitialPull, composition_l2
from paracomp.models.algebraic import AdditiveComposer
from paracomp.models.pair import PairModel
from paracomp.models.vocab import HEADS, UNK, EncodedPairs
from paracomp.run_config import TrainConfig
from paracomp.train import loop, seeds
from paracomp.train.cuda_graph import GriddedComposer, graphed_composer
from paracomp.train.optim import make_optimizer
from paracomp.train.pairs.build import build_model, build_objective, build_sampler
from paracomp.train.pairs.megabatch import MegaBatchMode, MegaStep
from paracomp.train.pairs.noisy import noisy_loss
from paracomp.train.pairs.perturb import InputNoise
from paracomp.train.pretrained import found_rows, merged_rows

Batch = tuple[torch.Tensor, torch.Tensor, torch.Tensor]

_COLUMNS = {"en": "s1", "es": "s2", "len_en": "len1", "len_es": "len2"}


def segment_pairs(table: pa.Table) -> pa.Table:
    """A training set as SEGMENT_PAIRS (bilingual ``en``/``es`` become ``s1``/``s2``), with
    the dependency heads of its segments if it has them (:data:`HEADS`)."""
    table = table.rename_columns([_COLUMNS.get(c, c) for c in table.column_names])
    missing = [c for c in artefacts.SEGMENT_PAIRS.names if c not in table.column_names]
    if missing:
        raise DataError(f"training pairs lack columns {missing}")
    heads = [c for c in HEADS if c in table.column_names]
    return table.select(artefacts.SEGMENT_PAIRS.names + heads)


def side1_encoder(model: PairModel, data: EncodedPairs, oov: str = "skip") -> AveragedEmbeddings:
    """Averaged side-1 word vectors (a ``SentenceEncoder``), without the UNK row, so the
    evaluator's OOV policy decides about unknown words."""
    matrix = model.weight.detach()[1 : len(data.vocab1)].float().cpu().numpy().copy()
    return AveragedEmbeddings(data.vocab1.words[1:], matrix, oov)


class PairTask(loop.Task):
    """Epochs of shuffled batches of pairs under a pair objective (``config.pairs``); the
    pairs may come encoded already (one encoding for the points of a stack).

    ``init`` (words and vectors) starts the word rows from pretrained vectors: the vocabulary
    is then the training tokens among ``words`` (the others are UNK, whose row is the vector
    of the word ``<unk>`` if ``words`` has one), and the export is every pretrained word with
    the trained rows in place (:func:`~paracomp.train.pretrained.merged_rows`): the words the
    pairs never use keep their vectors, as in a table trained whole (their rows would get
    no gradient, not even from ``reg_initial``). ``constraints`` (word → words) are the lists
    of sampler ``max_skip``'s ``constraints``."""

    def __init__(
        self,
        config: TrainConfig,
        pairs: pa.Table | EncodedPairs,
        init: tuple[Sequence[str], np.ndarray] | None = None,
        constraints: Mapping[str, Collection[str]] | None = None,
    ):
        self.config = config
        self.device = loop.resolve_device(config)
        self.init = init
        data = pairs
        if not isinstance(data, EncodedPairs):
            known = None if init is None else frozenset(init[0])
            data = EncodedPairs.build(pairs, config.shared_vocab, config.min_count, known)
        self.data = data.to(self.device)
        model = build_model(config, data.n_rows)
        if init is not None:
            _pretrained(model, data.vocab1.words, *init)
        self.model = model.to(self.device)
        if graphed_composer(config.to_dict(), self.device):
            self.model.runner = GriddedComposer(self.model.composer, graphed=True)
        self.objective = build_objective(config)
        negatives = seeds.stream(config.seed, seeds.NEGATIVES)
        generator = torch.Generator(device=self.device).manual_seed(negatives)
        self.sampler = build_sampler(config, generator, self._forbidden(constraints))
        self.pull = None
        if config.reg_initial:
            self.pull = InitialPull(self.model.weight, config.reg_initial)
        options = {} if config.adagrad_eps is None else {"eps": config.adagrad_eps}
        self.optimizer = make_optimizer(
            self.model, config.optimizer, config.lr, config.lr_composer, config.adam_rows, **options
        )
        self.order = torch.Generator().manual_seed(seeds.stream(config.seed, seeds.ORDER))
        self.steps_per_epoch = -(-data.n_pairs // config.batch_size)
        self.total_steps = config.epochs * self.steps_per_epoch
        self.log_every = self.checkpoint_every = self.steps_per_epoch
        n = config.evals_per_epoch
        self.marks = {int(k * self.steps_per_epoch / n + 0.5) for k in range(1, n)} - {0}
        dropout = 0.0 if not config.pairs else config.dropout
        self.noise = InputNoise(dropout, config.word_dropout, config.scramble)
        self.dropping = bool(self.noise.dropout or self.noise.word_dropout)
        self.perturb = None
        if config.scramble or self.dropping:
            perturbation = seeds.stream(config.seed, seeds.PERTURBATION)
            self.perturb = torch.Generator().manual_seed(perturbation)
        self.megabatch = None
        if config.megabatch:
            self.megabatch = MegaBatchMode(
                config.megabatch,
                config.batch_size,
                self.objective,
                self.noise,
                config.prior_weight,
                config.prior,
            )

    def logs_at(self, done: int) -> bool:
        """At each epoch's end and at its ``evals_per_epoch`` marks (Wieting & Gimpel's
        quarters: the steps nearest k/n of the epoch)."""
        within = done % self.steps_per_epoch
        return within == 0 or within in self.marks

    def _forbidden(self, lists: Mapping[str, Collection[str]] | None) -> ForbiddenPairs | None:
        if self.config.constraints == "none":
            return None
        if lists is None:
            raise ConfigError(f"constraints {self.config.constraints!r} need constraint lists")
        index = self.data.vocab1.index
        return ForbiddenPairs.build(lists, index, self.data.n_rows)

    def batches(self, first: int) -> Iterator[Batch | MegaStep]:
        epoch, skip = divmod(first, self.steps_per_epoch)
        while True:
            order = torch.randperm(self.data.n_pairs, generator=self.order).to(self.device)
            if self.megabatch is not None:
                yield from self.megabatch.steps(
                    self.data, order, self.model, self.perturb, self._precision, skip
                )
                epoch, skip = epoch + 1, 0
                continue
            batches = self.data.batches(order, self.config.batch_size)
            for index, batch in enumerate(batches):
                if index >= skip:
                    yield batch
            epoch, skip = epoch + 1, 0

    def pair_ids(self, first: int) -> Iterator[tuple[torch.Tensor]]:
        """The pair ids (on the device) of the batches of steps ``first``, ``first + 1``, …,
        in :meth:`batches`' order: the batches of the static steps."""
        skip = first % self.steps_per_epoch
        n, size = self.data.n_pairs, self.config.batch_size
        while True:
            order = torch.randperm(n, generator=self.order)
            if self.device.type == "cuda":  # pinned: the copy does not wait for the GPU
                order = order.pin_memory().to(self.device, non_blocking=True)
            for index in range(skip, self.steps_per_epoch):
                yield (order[index * size : (index + 1) * size],)
            skip = 0

    def batch_pairs(self, batch: Batch | MegaStep) -> int:
        return batch.size if isinstance(batch, MegaStep) else batch[0].numel()

    def _precision(self) -> contextlib.AbstractContextManager[object]:
        if self.config.mixed_precision:
            return torch.autocast(self.device.type, torch.bfloat16)
        return contextlib.nullcontext()

    def step(self, step: int, batch: Batch | MegaStep) -> torch.Tensor:
        """The gradient comes without autograd where the objective can work it out (additive
        composers on CPU)."""
        if isinstance(batch, MegaStep):
            assert self.megabatch is not None
            with self._precision():
                loss = self._composer_l2(self.megabatch.loss(self.model, batch, self.perturb))
            return self._descend(loss)
        if self.perturb is not None:
            pairs, ids, starts = batch
            batch = pairs, self.noise.scrambled(ids, starts, self.perturb), starts
        pairs = PairBatch(*batch, self.data)
        with self._precision():
            if self.dropping:  # autograd whatever the composer, negatives mined without dropout
                assert self.perturb is not None
                by_hand = None
                loss = noisy_loss(
                    self.objective, self.model, pairs, self.sampler, self.noise, self.perturb
                )
            else:
                by_hand = self.objective.loss_and_gradient(self.model, pairs, self.sampler)
                if by_hand is None:
                    loss = self.objective.loss(self.model, pairs, self.sampler)
            if by_hand is None:
                loss = self._composer_l2(loss)
        if by_hand is not None:
            loss, rows = by_hand
            if self.pull is not None:
                pulled, rows = self.pull(self.model.weight, rows)
                loss = loss + pulled
            self.optimizer.step_rows(self.model.weight, rows)
            return loss
        return self._descend(loss)

    def _composer_l2(self, loss: torch.Tensor) -> torch.Tensor:
        """``loss`` plus ``reg_composer``'s ``½λ Σ‖θ‖²`` over the composer's parameters."""
        if not self.config.reg_composer:
            return loss
        return loss + composition_l2(self.model.composer.parameters(), self.config.reg_composer)

    def _descend(self, loss: torch.Tensor) -> torch.Tensor:
        """One optimiser step down ``loss`` by autograd, with ``reg_initial``'s pull towards
        the initial rows added to the word rows' gradient; the loss with the pull's value."""
        self.optimizer.zero_grad()
        loss.backward()
        loss = loss.detach()
        if self.pull is not None:
            loss = loss + self.pull.add_to_grad(self.model.weight)
        self.optimizer.step()
        return loss

    def fingerprint(self) -> dict[str, Any]:
        found = self.data.fingerprint()
        if self.init is not None:
            words, vectors = self.init
            digest = hashlib.sha256("\n".join(words).encode())
            digest.update(np.ascontiguousarray(vectors, dtype=np.float32).tobytes())
            found["init"] = digest.hexdigest()
        return found

    def state_dict(self) -> dict[str, Any]:
        state = {
            "model": self.model.state_dict(),
            "optimizer": self.optimizer.state_dict(),
            "sampler": self.sampler.state_dict(),
            "order": self.order.get_state(),
            "torch_rng": torch.get_rng_state(),
        }
        if self.perturb is not None:
            state["perturb"] = self.perturb.get_state()
        return state

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        self.model.load_state_dict(state["model"])
        self.optimizer.load_state_dict(state["optimizer"])
        self.sampler.load_state_dict(state["sampler"])
        self.order.set_state(state["order"])
        torch.set_rng_state(state["torch_rng"])
        if self.perturb is not None:
            self.perturb.set_state(state["perturb"])

    def encoder(self) -> SentenceEncoder:
        """Averaged word vectors for additive composers; otherwise the composer over the
        side-1 rows (:func:`paracomp.eval.trained.pair_encoder`). With ``init``, over the rows
        the run exports (:meth:`exported`: every pretrained word), as the evaluator reads it."""
        additive = isinstance(self.model.composer, AdditiveComposer)
        if self.init is None:
            if additive:
                return side1_encoder(self.model, self.data)
            return pair_encoder(self.model, self.data.vocab1.words, self.config)
        words, matrix, _ = self.exported(0)
        if additive:
            keep = [i for i, w in enumerate(words) if w != UNK]
            return AveragedEmbeddings([words[i] for i in keep], matrix[keep])
        return TrainedEncoder(self.model.composer, words, matrix, features_of(self.config.composer))

    def exported(self, steps: int) -> tuple[list[str], np.ndarray, str]:
        """The side-1 rows a run exports (``export_unk``: the UNK row too); with ``init``, every
        pretrained word, the trained rows in place of theirs."""
        epochs = f"{steps / self.steps_per_epoch:.4g}"
        if self.config.export_unk:
            words = list(self.data.vocab1.words)
            matrix = self.model.weight.detach()[: len(words)].float().cpu().numpy().copy()
            notes = f"side-1 word rows after {epochs} epochs, {UNK} first"
        else:
            encoder = side1_encoder(self.model, self.data)
            notes = f"side-1 word vectors after {epochs} epochs; the {UNK} row is not exported"
            words, matrix = list(encoder.index), encoder.matrix
        if self.init is not None:
            keep = [i for i, w in enumerate(self.init[0]) if w != UNK]
            pretrained = [self.init[0][i] for i in keep]
            words, matrix = merged_rows(pretrained, self.init[1][keep], words, matrix)
            notes += "; the pretrained words the pairs do not use keep their initial vectors"
        return words, matrix, notes


def _pretrained(
    model: PairModel, vocabulary: Sequence[str], words: Sequence[str], vectors: np.ndarray
) -> None:
    """Copy the pretrained vector of every vocabulary word (UNK: of ``<unk>``) that has one
    into ``model``'s rows; the others keep their normal draw."""
    if vectors.shape[1] != model.weight.shape[1]:
        raise ConfigError(
            f"the initial vectors have {vectors.shape[1]} dimensions, the run's dim is "
            f"{model.weight.shape[1]}"
        )
    where = found_rows(vocabulary, words)
    rows = np.nonzero(where >= 0)[0]
    with torch.no_grad():
        model.weight[torch.from_numpy(rows)] = torch.from_numpy(
            np.asarray(vectors, dtype=np.float32)[where[rows]]
        )


@dataclass(frozen=True)
class PairResult:
    model: PairModel
    data: EncodedPairs
    history: pd.DataFrame
    embeddings: Path
    encoder: SentenceEncoder
