"""The settings of one training run: :class:`TrainConfig`.

Types, ranges and defaults come from ``run_config.schema.yaml`` beside this module, the one
source that the workflow also validates its training settings against when it builds the DAG;
the rules that span several settings are :meth:`TrainConfig.check`'s. Training writes these
settings into a run's folder and evaluation reads them from it, so the module sits below both.
Importing this module does not import torch.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from importlib.resources import files
from typing import Any

from paracomp import settings
from paracomp.errors import ConfigError
from paracomp.models import (
    BI_COMPOSERS,
    PRIOR_COMPOSERS,
    PROBABILISTIC_COMPOSERS,
    TAGGED_COMPOSERS,
)
from paracomp.yamltext import safe_load

PAIR_OBJECTIVES = ("bicvm", "paraphrase")
"""Objectives over segment pairs (:mod:`paracomp.train.pairs.task`); ``targets`` trains segments
towards target words (:mod:`paracomp.train.targets.task`)."""

PAIR_ONLY = {
    "attraction": 0.0,
    "hinge_scale": 1.0,
    "megabatch": 0,
    "scramble": 0.0,
    "prior_weight": 0.0,
    "word_dropout": 0.0,
    "evals_per_epoch": 1,
    "keep_best": False,
}
"""Settings of the pair objectives' loss only, with the value that switches each off."""

ADAM_OBJECTIVES = {"targets": (), "supervised": ("scramble", "word_dropout")}
"""The objectives beside the pair objectives, which train with Adam only, and the settings of
:data:`PAIR_ONLY` each takes as well."""

RESUMABLE_CHANGES = (
    "epochs",
    "steps",
    "threads",
    "device",
    "allow_cpu_fallback",
    "cuda_graph",
    "checkpoint_every",
    "log_every",
)
"""Keys a resumed run may change (train longer, other threads or checkpointing; the device only
if the device actually used stays the same). A checkpoint of any other setting is moved aside
and the run restarts. Bitwise equality with an uninterrupted run needs the same ``threads``."""


@cache
def schema() -> dict[str, Any]:
    """The JSON schema of a run's settings (``run_config.schema.yaml``)."""
    return safe_load(files("paracomp").joinpath("run_config.schema.yaml").read_text())


def _default(name: str) -> Any:
    return field(default=schema()["properties"][name]["default"])


@dataclass(frozen=True)
class TrainConfig:
    """One training run; every field, its type, range and default are in
    ``run_config.schema.yaml``. CPU runs with the same ``seed`` and ``threads`` give
    bitwise-identical weights."""

    objective: str = _default("objective")
    composer: str = _default("composer")
    score: str | None = _default("score")
    sampler: str = _default("sampler")
    pool: str = _default("pool")
    k: int = _default("k")
    margin: float = _default("margin")
    reg: float = _default("reg")
    attraction: float = _default("attraction")
    hinge_scale: float = _default("hinge_scale")
    batch_size: int = _default("batch_size")
    epochs: int = _default("epochs")
    steps: int = _default("steps")
    freeze_steps: int = _default("freeze_steps")
    lr: float = _default("lr")
    optimizer: str = _default("optimizer")
    beta2: float = _default("beta2")
    eps: float = _default("eps")
    dim: int = _default("dim")
    init_scale: float = _default("init_scale")
    dropout: float = _default("dropout")
    max_length: int = _default("max_length")
    seed: int = _default("seed")
    device: str = _default("device")
    allow_cpu_fallback: bool = _default("allow_cpu_fallback")
    threads: int = _default("threads")
    mixed_precision: bool = _default("mixed_precision")
    cuda_graph: bool = _default("cuda_graph")
    shared_vocab: bool = _default("shared_vocab")
    min_count: int = _default("min_count")
    checkpoint_every: int = _default("checkpoint_every")
    log_every: int = _default("log_every")
    megabatch: int = _default("megabatch")
    scramble: float = _default("scramble")
    prior_weight: float = _default("prior_weight")
    prior: str = _default("prior")
    export_unk: bool = _default("export_unk")
    constraints: str = _default("constraints")
    reg_composer: float = _default("reg_composer")
    reg_initial: float = _default("reg_initial")
    lr_composer: float | None = _default("lr_composer")
    adagrad_eps: float | None = _default("adagrad_eps")
    adam_rows: str = _default("adam_rows")
    word_dropout: float = _default("word_dropout")
    bi_combine: str = _default("bi_combine")
    boundary_tags: str = _default("boundary_tags")
    evals_per_epoch: int = _default("evals_per_epoch")
    keep_best: bool = _default("keep_best")
    hidden: int = _default("hidden")
    classes: int = _default("classes")
    score_shift: float = _default("score_shift")

    def __post_init__(self) -> None:
        validate(self.to_dict())

    @classmethod
    def from_dict(cls, values: Mapping[str, Any]) -> TrainConfig:
        """Config from a mapping (e.g. a YAML entry); unknown keys, wrong types and values out
        of range are :class:`ConfigError` naming the key."""
        validate(values)
        floats = {f.name for f in dataclasses.fields(cls) if f.type == "float"}
        return cls(**{k: float(v) if k in floats else v for k, v in values.items()})

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def overrides(self) -> dict[str, Any]:
        """The settings that differ from their defaults (``from_dict`` of them gives this
        config back; a workflow job passes them, so new settings rerun no job)."""
        defaults = TrainConfig()
        return {
            f.name: getattr(self, f.name)
            for f in dataclasses.fields(self)
            if getattr(self, f.name) != getattr(defaults, f.name)
        }

    @property
    def pairs(self) -> bool:
        """Whether the objective trains on segment pairs (else on segments and targets)."""
        return self.objective in PAIR_OBJECTIVES


def validate(values: Mapping[str, Any], where: str = "train config") -> None:
    """Check settings (complete or partial) against the schema and the rules between them;
    errors name ``where`` and the key."""
    settings.check(dict(values), schema(), where)
    objective = values.get("objective")
    if objective in ADAM_OBJECTIVES:
        if values.get("optimizer", "adam") != "adam":
            raise ConfigError(f"{where}: objective '{objective}' trains with optimizer 'adam' only")
        taken = ADAM_OBJECTIVES[objective]
        used = sorted(
            k for k, off in PAIR_ONLY.items() if k not in taken and values.get(k, off) != off
        )
        if used:
            raise ConfigError(f"{where}: {used} apply to the pair objectives, not '{objective}'")
    constrained = values.get("constraints", "none") != "none"
    if constrained and values.get("sampler", "max_skip") != "max_skip":
        raise ConfigError(f"{where}: constraints need sampler 'max_skip'")
    if (
        values.get("sampler") == "max_skip"
        and values.get("objective", "paraphrase") != "paraphrase"
    ):
        raise ConfigError(f"{where}: sampler 'max_skip' goes with objective 'paraphrase'")
    if values.get("adagrad_eps") is not None and values.get("optimizer", "adagrad") != "adagrad":
        raise ConfigError(f"{where}: adagrad_eps needs optimizer 'adagrad'")
    _check_pair_modes(values, where)
    _check_noise(values, where)


def _check_noise(values: Mapping[str, Any], where: str) -> None:
    """Dropout, word dropout, the Bi combination and boundary tags: one dropout at a time (as
    in Wieting & Gimpel's code); under a pair objective not with the MATLAB-style ``max_skip``
    sampler or tree composers (their batches are not dropped out); ``bi_combine`` only where
    a composer combines two directions, ``boundary_tags`` only where a composer has them."""
    dropout, word_dropout = values.get("dropout", 0.0), values.get("word_dropout", 0.0)
    if dropout and word_dropout:
        raise ConfigError(f"{where}: dropout and word_dropout cannot both be on")
    pairs = values.get("objective", "bicvm") in PAIR_OBJECTIVES
    if pairs and (dropout or word_dropout):
        if values.get("sampler") == "max_skip":
            raise ConfigError(f"{where}: dropout and word_dropout do not apply to sampler max_skip")
        if values.get("composer") == "tree_rnn":
            raise ConfigError(f"{where}: dropout and word_dropout do not apply to tree_rnn")
    combine = values.get("bi_combine", "sum")
    if combine != "sum" and "composer" in values and values["composer"] not in BI_COMPOSERS:
        raise ConfigError(
            f"{where}: bi_combine {combine!r} needs a Bi composer {sorted(BI_COMPOSERS)}"
        )
    tags = values.get("boundary_tags", "none")
    if tags != "none" and "composer" in values and values["composer"] not in TAGGED_COMPOSERS:
        raise ConfigError(
            f"{where}: boundary_tags {tags!r} needs one of the composers {sorted(TAGGED_COMPOSERS)}"
        )


def _check_pair_modes(values: Mapping[str, Any], where: str) -> None:
    """Where mega-batches, the prior and Gaussian scores apply (pair objectives only: see
    :data:`PAIR_ONLY`); each rule is checked when ``values`` sets every key it involves (a
    complete run always does)."""
    given = {k: v for k, v in values.items() if v not in (None, 0, 0.0, False)}
    known = set(values)
    if "megabatch" in given and "shared_vocab" in known and not values["shared_vocab"]:
        raise ConfigError(f"{where}: megabatch mines both sides of a pair: needs shared_vocab")
    if "prior_weight" in given:
        if "composer" in known and values["composer"] not in PRIOR_COMPOSERS:
            raise ConfigError(
                f"{where}: prior_weight needs a composer with word operators "
                f"{sorted(PRIOR_COMPOSERS)}"
            )
        if "megabatch" in known and not values["megabatch"]:
            raise ConfigError(f"{where}: prior_weight applies in megabatch mode (megabatch ≥ 1)")
    gaussian = values.get("composer") in PROBABILISTIC_COMPOSERS
    if values.get("score") == "log_eip" and "composer" in known and not gaussian:
        raise ConfigError(
            f"{where}: score log_eip needs a Gaussian composer {sorted(PROBABILISTIC_COMPOSERS)}"
        )
