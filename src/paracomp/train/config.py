"""Training configuration, and the objective and sampler it names."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from paracomp.errors import ConfigError
from paracomp.train.composers import COMPOSERS
from paracomp.train.model import PairModel
from paracomp.train.negatives import MaxSampler, MixSampler, NegativeSampler, RandomSampler
from paracomp.train.objectives import OBJECTIVES, HingeObjective
from paracomp.train.optim import OPTIMIZERS
from paracomp.train.scores import SCORES

SAMPLERS = ("random", "max", "mix")
POOLS = ("corpus", "batch")
DEVICES = ("cpu", "cuda")

_TYPES: dict[str, tuple[type, ...]] = {
    "str": (str,),
    "str | None": (str, type(None)),
    "int": (int,),
    "float": (int, float),
    "bool": (bool,),
}


@dataclass(frozen=True)
class TrainConfig:
    """One training run. ``score=None`` takes the objective's (J_bi ``sq_euclidean``, J_pa
    ``cosine``); ``k`` and ``pool`` apply to the ``random`` sampler (MAX and MIX give one
    in-batch negative). ``reg`` is λ. CPU runs with the same ``seed`` and ``threads`` give
    bitwise-identical weights."""

    objective: str = "bicvm"
    composer: str = "sum"
    score: str | None = None
    sampler: str = "random"
    pool: str = "corpus"
    k: int = 10
    margin: float = 1.0
    reg: float = 0.0
    batch_size: int = 100
    epochs: int = 10
    lr: float = 0.05
    optimizer: str = "adagrad"
    dim: int = 128
    init_scale: float = 0.1
    seed: int = 1
    device: str = "cpu"
    allow_cpu_fallback: bool = False
    threads: int = 1
    mixed_precision: bool = False
    shared_vocab: bool = False
    min_count: int = 1

    def __post_init__(self) -> None:
        choices = {
            "objective": tuple(OBJECTIVES),
            "composer": tuple(COMPOSERS),
            "score": (None, *SCORES),
            "sampler": SAMPLERS,
            "pool": POOLS,
            "optimizer": OPTIMIZERS,
            "device": DEVICES,
        }
        for key, allowed in choices.items():
            if getattr(self, key) not in allowed:
                raise ConfigError(
                    f"train config: {key}={getattr(self, key)!r}; expected one of {allowed}"
                )
        for key in ("k", "batch_size", "epochs", "dim", "threads", "min_count"):
            if getattr(self, key) < 1:
                raise ConfigError(f"train config: {key} must be >= 1, got {getattr(self, key)}")
        for key in ("margin", "reg", "lr", "init_scale"):
            if getattr(self, key) < 0:
                raise ConfigError(f"train config: {key} must be >= 0, got {getattr(self, key)}")

    @classmethod
    def from_dict(cls, values: Mapping[str, Any]) -> TrainConfig:
        """Config from a mapping (e.g. a YAML entry); unknown keys and wrong types are errors."""
        fields = {f.name: f for f in dataclasses.fields(cls)}
        unknown = sorted(set(values) - set(fields))
        if unknown:
            raise ConfigError(f"train config: unknown key(s) {unknown}; known: {sorted(fields)}")
        for key, value in values.items():
            allowed = _TYPES[str(fields[key].type)]
            if isinstance(value, bool) and bool not in allowed or not isinstance(value, allowed):
                raise ConfigError(f"train config: {key}={value!r} is not {fields[key].type}")
        return cls(**{k: float(v) if fields[k].type == "float" else v for k, v in values.items()})

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


RESUMABLE_CHANGES = ("epochs", "threads", "device", "allow_cpu_fallback")
"""Keys a resumed run may change (more epochs, other threads; the device only if the device
actually used stays the same); any other change is refused. Bitwise equality with an
uninterrupted run needs the same ``threads``."""


def seeds(config: TrainConfig) -> tuple[int, int, int]:
    """Independent seeds for the initial weights, the batch order and the negatives."""
    init, order, negatives = np.random.SeedSequence(config.seed).generate_state(3)
    return int(init), int(order), int(negatives)


def build_model(config: TrainConfig, n_rows: int) -> PairModel:
    """The model before training (on CPU): ``n_rows`` word rows, normal init. The composer's
    parameters, then the word rows, are drawn from one generator seeded with the init seed
    (composers without parameters draw nothing)."""
    generator = torch.Generator().manual_seed(seeds(config)[0])
    composer = COMPOSERS[config.composer](config.dim, generator)
    return PairModel(composer, n_rows, config.init_scale, generator)


def build_objective(config: TrainConfig) -> HingeObjective:
    cls = OBJECTIVES[config.objective]
    if config.score is None:
        return cls(config.margin, config.reg)
    return cls(config.margin, config.reg, SCORES[config.score])


def build_sampler(config: TrainConfig, generator: torch.Generator) -> NegativeSampler:
    """The configured sampler; MAX and MIX stay on the other side unless ``shared_vocab``."""
    if config.sampler == "random":
        return RandomSampler(config.k, generator, config.pool)
    cls = MaxSampler if config.sampler == "max" else MixSampler
    return cls(generator, cross=not config.shared_vocab)
