"""The shared trainer: vocabularies, composers, scores, negative samplers, objectives,
optimisers and the resumable training loop (:func:`paracomp.train.loop.train`)."""

from paracomp.train.config import TrainConfig
from paracomp.train.loop import TrainResult, train

__all__ = ["TrainConfig", "TrainResult", "train"]
