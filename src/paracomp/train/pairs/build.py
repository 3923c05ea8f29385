"""The objects a pair-objective run is made of, built from its :class:`TrainConfig`."""

from __future__ import annotations

import torch

from paracomp.losses.constrained import (
    ConstrainedMaxSampler,
    ForbiddenPairs,
    SkippingHingeObjective,
)
from paracomp.losses.hinge import OBJECTIVES, HingeObjective
from paracomp.losses.negatives import MaxSampler, MixSampler, NegativeSampler, RandomSampler
from paracomp.losses.scores import SCORES
from paracomp.models.pair import PairModel
from paracomp.models.registry import make_composer
from paracomp.run_config import TrainConfig
from paracomp.train import seeds


def build_model(config: TrainConfig, n_rows: int) -> PairModel:
    """The model before training (on CPU): ``n_rows`` word rows, normal init. The composer's
    parameters, then the word rows, are drawn from one generator seeded with the init seed
    (composers without parameters draw nothing)."""
    generator = torch.Generator().manual_seed(seeds.stream(config.seed, seeds.INIT))
    composer = make_composer(config.composer, config.dim, generator, config.to_dict())
    return PairModel(composer, n_rows, config.init_scale, generator)


def build_objective(config: TrainConfig) -> HingeObjective:
    """The configured objective; sampler ``max_skip`` takes J_pa's hinge that skips a pair
    left without a negative (:class:`SkippingHingeObjective`)."""
    cls = OBJECTIVES[config.objective]
    if config.sampler == "max_skip":
        score = SCORES[config.score or "cosine"]  # J_pa's default score
        return SkippingHingeObjective(config.margin, config.reg, score)
    weights = {"attraction": config.attraction, "hinge_scale": config.hinge_scale}
    if config.score is None:
        return cls(config.margin, config.reg, **weights)
    return cls(config.margin, config.reg, SCORES[config.score], **weights)


def build_sampler(
    config: TrainConfig, generator: torch.Generator, forbidden: ForbiddenPairs | None = None
) -> NegativeSampler:
    """The configured sampler; MAX and MIX stay on the other side unless ``shared_vocab``;
    ``max_skip`` draws from both sides, ``forbidden`` under the ``constraints`` rule."""
    if config.sampler == "random":
        return RandomSampler(config.k, generator, config.pool)
    if config.sampler == "max_skip":
        rule = "candidate" if config.constraints == "none" else config.constraints
        return ConstrainedMaxSampler(generator, forbidden, rule)
    cls = MaxSampler if config.sampler == "max" else MixSampler
    return cls(generator, cross=not config.shared_vocab)
