"""CompVec training (Scheepers et al. 2018): compose a definition, move it towards its lemma.

For each (lemma, definition) pair the definition's word rows (input dropout, inverted scaling)
are composed to ``c``; the positive ``y⁺`` is the lemma and the negative ``y⁻`` a uniformly
random lemma of the training split (not filtered, gradients flow into it), both passed through
the same composition function as one-token segments (the authors' final code; the identity
for the algebraic functions). The loss is the batch mean of the triplet hinge
``[α − s(c, y⁺) + s(c, y⁻)]_+`` with ``s = −‖·−·‖²`` (digest §3.5), optimised with Adam.

The word matrix (the whole vocabulary, dense, as TensorFlow's Adam updates it) is frozen for
the first ``freeze_steps`` steps: 0 for the algebraic functions' CompVec runs, 2,500 of 20,000
for the learned ones, and every step for the learned "original" runs; ``steps=0`` only
exports the initial matrix (the algebraic "original" column).

Every random draw (batch order, negatives, dropout) comes from generators seeded by
``(seed, epoch)`` or ``(seed, step)``, so a run resumed from its checkpoint (written every
``checkpoint_every`` steps) ends with the same weights as one never stopped.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import logging
import math
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import torch
from torch import nn

from paracomp import artefacts
from paracomp.atomic import atomic_path
from paracomp.errors import ConfigError, DataError, ParacompError
from paracomp.train.composers import COMPOSERS, Composer, SegmentBatch
from paracomp.train.curve import write_curve
from paracomp.train.scores import SCORES

log = logging.getLogger(__name__)

CHECKPOINT = "checkpoint.pt"
COMPOSER = "composer.pt"
EMBEDDINGS = "embeddings.parquet"
CURVE = "curve.parquet"
CURVE_PNG = "curve.png"
UNK_ID = 1


@dataclass(frozen=True)
class CompVecConfig:
    """One CompVec run. ``beta2`` 0.999 is the code's (TensorFlow's default); the paper
    prints 0.99."""

    composer: str
    margin: float
    steps: int = 20_000
    freeze_steps: int = 0
    batch_size: int = 512
    lr: float = 1e-3
    beta2: float = 0.999
    eps: float = 1e-8
    dropout: float = 0.25
    max_length: int = 32
    seed: int = 0
    checkpoint_every: int = 500
    log_every: int = 100
    device: str = "cpu"
    threads: int = 1

    def __post_init__(self) -> None:
        if self.composer not in COMPOSERS:
            raise ConfigError(f"compvec: composer {self.composer!r}; known: {sorted(COMPOSERS)}")
        for key in ("batch_size", "max_length", "checkpoint_every", "log_every", "threads"):
            if getattr(self, key) < 1:
                raise ConfigError(f"compvec: {key} must be >= 1, got {getattr(self, key)}")
        for key in ("steps", "freeze_steps", "margin", "lr", "eps"):
            if getattr(self, key) < 0:
                raise ConfigError(f"compvec: {key} must be >= 0, got {getattr(self, key)}")
        if not 0 <= self.dropout < 1 or not 0 <= self.beta2 < 1:
            raise ConfigError("compvec: dropout and beta2 must be in [0, 1)")
        if self.device not in ("cpu", "cuda"):
            raise ConfigError(f"compvec: device {self.device!r}; expected cpu or cuda")

    @classmethod
    def from_dict(cls, values: Mapping[str, Any]) -> CompVecConfig:
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(values) - known)
        if unknown:
            raise ConfigError(f"compvec config: unknown key(s) {unknown}; known: {sorted(known)}")
        return cls(**values)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


RESUMABLE_CHANGES = ("threads", "checkpoint_every", "log_every")
"""Keys a resumed run may change."""


def is_learned(composer: str) -> bool:
    """Whether a composition function has parameters of its own."""
    return any(True for _ in COMPOSERS[composer](12).parameters())


def run_config(
    row: str,
    composer: str,
    variant: str,
    settings: Mapping[str, Any],
    margins: Mapping[str, float],
) -> CompVecConfig:
    """The config of the run behind Table 1's ``row`` composition (e.g. ``average``, composed
    by ``composer`` ``mean``) in column ``variant`` (``original`` or ``compvec``).

    ``settings`` holds the shared keys (``steps``, ``freeze_steps`` of the learned CompVec
    runs, ``batch_size``, …); ``margins`` the margin by row, with a ``default``.
    """
    if variant not in ("original", "compvec"):
        raise ConfigError(f"compvec: variant {variant!r}; expected original or compvec")
    values = dict(settings)
    steps, freeze = int(values.pop("steps")), int(values.pop("freeze_steps"))
    learned = is_learned(composer)
    if variant == "original":
        freeze = steps
        if not learned:
            steps = 0
    elif not learned:
        freeze = 0
    margin = float(margins.get(row, margins["default"]))
    return CompVecConfig.from_dict(
        {**values, "composer": composer, "margin": margin, "steps": steps, "freeze_steps": freeze}
    )


def _seed(*keys: int) -> int:
    return int(np.random.SeedSequence(list(keys)).generate_state(1)[0])


@dataclass
class EncodedDefinitions:
    """Definitions as token ids (concatenated, each cut to ``max_length``) with the id of
    their lemma; ``starts[i]:starts[i+1]`` are definition ``i``'s tokens."""

    ids: torch.Tensor
    starts: torch.Tensor
    lemmas: torch.Tensor

    @classmethod
    def build(
        cls,
        definitions: Sequence[str],
        lemmas: Sequence[str],
        index: Mapping[str, int],
        max_length: int,
    ) -> EncodedDefinitions:
        """Unknown definition words become UNK; a lemma outside the vocabulary is an error.
        ``lemmas`` may be empty (definitions to compose only)."""
        ids: list[int] = []
        starts = [0]
        for definition in definitions:
            tokens = definition.split()[:max_length]
            ids.extend(index.get(token, UNK_ID) for token in tokens)
            starts.append(len(ids))
        missing = sorted({lemma for lemma in lemmas if lemma not in index})
        if missing:
            raise DataError(f"{len(missing)} lemmas are not in the vocabulary, e.g. {missing[:3]}")
        return cls(
            torch.tensor(ids, dtype=torch.long),
            torch.tensor(starts, dtype=torch.long),
            torch.tensor([index[lemma] for lemma in lemmas], dtype=torch.long),
        )

    def __len__(self) -> int:
        return self.starts.numel() - 1

    def to(self, device: torch.device) -> EncodedDefinitions:
        return EncodedDefinitions(
            self.ids.to(device), self.starts.to(device), self.lemmas.to(device)
        )

    def take(self, rows: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Token ids and segment offsets of definitions ``rows``, concatenated."""
        begin = self.starts[rows]
        lengths = self.starts[rows + 1] - begin
        offsets = torch.cumsum(lengths, 0) - lengths
        total = int(lengths.sum())
        within = torch.arange(total, device=rows.device) - offsets.repeat_interleave(
            lengths, output_size=total
        )
        return self.ids[begin.repeat_interleave(lengths, output_size=total) + within], offsets


class DefinitionModel(nn.Module):
    """The word matrix (one row per vocabulary id) and a composition function."""

    def __init__(self, composer: Composer, weight: torch.Tensor):
        super().__init__()
        self.composer = composer
        self.weight = nn.Parameter(weight)

    def compose(
        self,
        ids: torch.Tensor,
        offsets: torch.Tensor,
        dropout: float = 0.0,
        generator: torch.Generator | None = None,
    ) -> torch.Tensor:
        """Compose segments of token ids; ``dropout`` zeroes input vectors' entries."""
        return self._compose(self.weight.index_select(0, ids), offsets, dropout, generator)

    def lemma_vectors(self, ids: torch.Tensor) -> torch.Tensor:
        """Lemmas as one-token segments through the composition function."""
        return self.compose(ids, torch.arange(ids.numel(), device=ids.device))

    def forward(
        self,
        ids: torch.Tensor,
        offsets: torch.Tensor,
        lemmas: torch.Tensor,
        dropout: float,
        generator: torch.Generator | None = None,
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """A training step's composed definitions and lemma vectors, from one gather of the
        word matrix (one dense gradient buffer instead of two)."""
        rows = self.weight.index_select(0, torch.cat([ids, lemmas]))
        words, targets = rows.split([ids.numel(), lemmas.numel()])
        singles = torch.arange(lemmas.numel(), device=ids.device)
        return self._compose(words, offsets, dropout, generator), self._compose(targets, singles)

    def _compose(
        self,
        rows: torch.Tensor,
        offsets: torch.Tensor,
        dropout: float = 0.0,
        generator: torch.Generator | None = None,
    ) -> torch.Tensor:
        if dropout:
            keep = torch.rand(rows.shape, generator=generator, device=rows.device) >= dropout
            rows = rows * keep / (1.0 - dropout)
        local = torch.arange(rows.shape[0], device=rows.device)
        return self.composer(SegmentBatch(rows, local, offsets))


def triplet_loss(
    composed: torch.Tensor, positive: torch.Tensor, negative: torch.Tensor, margin: float
) -> torch.Tensor:
    """Batch mean of ``[α + ‖c − y⁺‖² − ‖c − y⁻‖²]_+`` (Eq. 1, the code's mean)."""
    score = SCORES["sq_euclidean"].paired
    return torch.relu(margin - score(composed, positive) + score(composed, negative)).mean()


def build_model(config: CompVecConfig, matrix: np.ndarray) -> DefinitionModel:
    """The model before training: ``matrix`` rows and a composer initialised from the seed."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(_seed(config.seed, 0))
        composer = COMPOSERS[config.composer](matrix.shape[1])
    return DefinitionModel(composer, torch.tensor(np.asarray(matrix, dtype=np.float32)))


def _adam(model: DefinitionModel, config: CompVecConfig) -> torch.optim.Adam:
    """Dense Adam (TensorFlow's, as the authors'), fused where this torch build has it: on a
    CPU about 5x faster over a whole vocabulary, most of whose second moments are zero."""
    options = {"lr": config.lr, "betas": (0.9, config.beta2), "eps": config.eps}
    try:
        return torch.optim.Adam(model.parameters(), fused=True, **options)
    except RuntimeError:  # no fused kernel for this device in this build
        return torch.optim.Adam(model.parameters(), **options)


@contextlib.contextmanager
def _cpu_settings(threads: int) -> Iterator[None]:
    """``threads`` torch threads, and denormals flushed to zero: the recurrent composers'
    gradients (recurrent weights initialised at scale 0.01) decay into denormals, which
    make their backward pass up to 8x slower on a CPU."""
    previous = torch.get_num_threads()
    torch.set_num_threads(threads)
    flushed = torch.set_flush_denormal(True)
    try:
        yield
    finally:
        torch.set_num_threads(previous)
        if flushed:
            torch.set_flush_denormal(False)


class _Schedule:
    """Batches of a shuffled pass per epoch (reshuffled each epoch), by step number."""

    def __init__(self, n: int, batch_size: int, seed: int, device: torch.device):
        self.n, self.batch_size, self.seed, self.device = n, batch_size, seed, device
        self.per_epoch = -(-n // batch_size)
        self._epoch, self._order = -1, torch.empty(0, dtype=torch.long)

    def rows(self, step: int) -> torch.Tensor:
        epoch, index = divmod(step, self.per_epoch)
        if epoch != self._epoch:
            gen = torch.Generator().manual_seed(_seed(self.seed, 1, epoch))
            self._epoch, self._order = epoch, torch.randperm(self.n, generator=gen).to(self.device)
        return self._order[index * self.batch_size : (index + 1) * self.batch_size]


def train_definitions(
    config: CompVecConfig,
    train_pairs: pa.Table,
    vocabulary: list[str],
    matrix: np.ndarray,
    out_dir: Path,
    inputs: Mapping[str, str] | None = None,
) -> DefinitionModel:
    """Train (or resume) a run in ``out_dir``; writes the composer, the tuned word matrix as
    an embeddings artefact over ``vocabulary`` and the loss curve."""
    if len(vocabulary) != matrix.shape[0]:
        raise DataError(f"{len(vocabulary)} vocabulary words but {matrix.shape[0]} matrix rows")
    out_dir = Path(out_dir)
    device = torch.device(config.device)
    if device.type == "cuda" and not torch.cuda.is_available():
        raise ConfigError("compvec: device 'cuda' requested but torch.cuda.is_available() is False")
    with _cpu_settings(config.threads):
        index = {word: i for i, word in enumerate(vocabulary)}
        data = EncodedDefinitions.build(
            train_pairs.column("definition").to_pylist(),
            train_pairs.column("lemma").to_pylist(),
            index,
            config.max_length,
        ).to(device)
        negatives_pool = torch.unique(data.lemmas)
        model = build_model(config, matrix).to(device)
        optimizer = _adam(model, config)
        history: list[dict[str, float]] = []
        first = _resume(out_dir / CHECKPOINT, config, model, optimizer, history)
        schedule = _Schedule(len(data), config.batch_size, config.seed, device)
        window, start = [], time.perf_counter()
        for step in range(first, config.steps):
            model.weight.requires_grad_(step >= config.freeze_steps)
            gen = torch.Generator(device=device).manual_seed(_seed(config.seed, 2, step))
            rows = schedule.rows(step)
            ids, offsets = data.take(rows)
            pick = torch.randint(
                0, negatives_pool.numel(), (rows.numel(),), generator=gen, device=device
            )
            lemmas = torch.cat([data.lemmas[rows], negatives_pool[pick]])
            composed, targets = model(ids, offsets, lemmas, config.dropout, gen)
            positive, negative = targets.split(rows.numel())
            loss = triplet_loss(composed, positive, negative, config.margin)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            window.append(loss.detach())
            done = step + 1
            if done % config.log_every == 0 or done == config.steps:
                seconds = time.perf_counter() - start
                mean = float(torch.stack(window).mean())
                if not math.isfinite(mean):
                    raise ParacompError(f"compvec training diverged at step {done} (loss {mean})")
                history.append(
                    {
                        "step": done,
                        "loss": mean,
                        "seconds": seconds,
                        "pairs_per_s": len(window) * config.batch_size / seconds,
                    }
                )
                log.info(
                    "step %d/%d: loss %.4g, %.0f pairs/s",
                    done,
                    config.steps,
                    mean,
                    history[-1]["pairs_per_s"],
                )
                window, start = [], time.perf_counter()
            if done % config.checkpoint_every == 0 or done == config.steps:
                _checkpoint(out_dir / CHECKPOINT, config, model, optimizer, history, done)
    _export(config, model, vocabulary, history, out_dir, inputs or {})
    return model


def _checkpoint(path, config, model, optimizer, history, step) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    state = {
        "step": step,
        "config": config.to_dict(),
        "model": model.state_dict(),
        "optimizer": optimizer.state_dict(),
        "history": history,
    }
    with atomic_path(path) as tmp:
        torch.save(state, tmp)


def _resume(path, config, model, optimizer, history) -> int:
    """Load ``path`` if it exists; returns the step to continue from."""
    if not path.exists():
        return 0
    state = torch.load(path, map_location=model.weight.device, weights_only=True)
    saved = {k: v for k, v in state["config"].items() if k not in RESUMABLE_CHANGES}
    now = {k: v for k, v in config.to_dict().items() if k not in RESUMABLE_CHANGES}
    changed = sorted(k for k in now if saved.get(k) != now[k])
    if changed:
        raise ConfigError(f"{path}: checkpoint of another config (differs in {changed}); delete it")
    model.load_state_dict(state["model"])
    optimizer.load_state_dict(state["optimizer"])
    history.extend(state["history"])
    log.info("resuming %s after step %d", path, state["step"])
    return int(state["step"])


def _export(config, model, vocabulary, history, out_dir, inputs) -> None:
    out_dir.mkdir(parents=True, exist_ok=True)
    with atomic_path(out_dir / COMPOSER) as tmp:
        torch.save({"config": config.to_dict(), "composer": model.composer.state_dict()}, tmp)
    prov = artefacts.Provenance(
        dataset="trained",
        source="paracomp.train.definitions",
        inputs=dict(inputs),
        config=config.to_dict(),
        notes=f"CompVec word matrix after {config.steps} steps (row i = token id i)",
    )
    matrix = model.weight.detach().float().cpu().numpy()
    artefacts.write_embeddings(vocabulary, matrix, out_dir / EMBEDDINGS, prov)
    curve = pd.DataFrame(history, columns=["step", "loss", "seconds", "pairs_per_s"])
    write_curve(curve, out_dir / CURVE, out_dir / CURVE_PNG, x="step")


def load_model(out_dir: Path, device: str = "cpu") -> tuple[DefinitionModel, list[str]]:
    """A trained run's model (eval mode) and vocabulary, from its folder."""
    saved = torch.load(Path(out_dir) / COMPOSER, map_location=device, weights_only=True)
    config = CompVecConfig.from_dict(saved["config"])
    vocabulary, matrix = artefacts.read_embeddings(Path(out_dir) / EMBEDDINGS)
    model = build_model(config, matrix).to(device)
    model.composer.load_state_dict(saved["composer"])
    model.eval()
    return model, vocabulary


def write_record(path: Path, config: CompVecConfig, out_dir: Path) -> None:
    """A small JSON summary of a finished run (config, last loss, time)."""
    curve = pd.read_parquet(out_dir / CURVE)
    record = {
        "config": config.to_dict(),
        "steps": config.steps,
        "final_loss": float(curve["loss"].iloc[-1]) if len(curve) else None,
        "seconds": float(curve["seconds"].sum()) if len(curve) else 0.0,
    }
    with atomic_path(path) as tmp:
        tmp.write_text(json.dumps(record, indent=2))
