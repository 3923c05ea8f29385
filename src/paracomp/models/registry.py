"""Composers by config name: :data:`COMPOSERS`.

A composer never owns the word embeddings: the model gathers the rows of the distinct tokens
of a batch and hands them over in a :class:`~paracomp.models.base.SegmentBatch`. New model
families subclass :class:`~paracomp.models.base.Composer` (``word_width`` is the width of one
word's row, e.g. ``2·dim`` for a word operator with a shift and a scale) and register here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import partial
from typing import Any

import torch
from torch import nn

from paracomp.models import BI_COMPOSERS, TAGGED_COMPOSERS
from paracomp.models.algebraic import (
    AdditiveComposer,
    MaxComposer,
    ProductComposer,
    ProjectedSumComposer,
)
from paracomp.models.base import Composer, ComposerFactory
from paracomp.models.convolutional import ConvComposer
from paracomp.models.gaussian import GAUSSIAN_COMPOSERS
from paracomp.models.peephole import PEEPHOLE_COMPOSERS
from paracomp.models.recurrent import BiGRUComposer, RecurrentComposer
from paracomp.models.tree_rnn import TreeRNNComposer


def _without_parameters(make: Callable[[int], Composer]) -> ComposerFactory:
    """The factory of a composer that has nothing to initialise."""

    def factory(dim: int, generator: torch.Generator | None = None) -> Composer:
        return make(dim)

    return factory


COMPOSERS: dict[str, ComposerFactory] = {
    "sum": _without_parameters(partial(AdditiveComposer, mode="sum")),
    "mean": _without_parameters(partial(AdditiveComposer, mode="mean")),
    "product": _without_parameters(ProductComposer),
    "max": _without_parameters(MaxComposer),
    "max_pad": _without_parameters(partial(MaxComposer, pad_to=32)),
    "sum_proj": ProjectedSumComposer,
    "rnn": partial(RecurrentComposer, cell=nn.RNN),
    "gru": partial(RecurrentComposer, cell=nn.GRU),
    "bigru": BiGRUComposer,
    "cnn3": partial(ConvComposer, shares={3: 1}),
    "cnn3579": partial(ConvComposer, shares={3: 150, 5: 75, 7: 50, 9: 25}),
    **GAUSSIAN_COMPOSERS,
    "tree_rnn": partial(TreeRNNComposer, init="sum", branching="right"),
    **PEEPHOLE_COMPOSERS,
}
"""Composer factories by config name; each takes the output dimension and, optionally, the
generator to draw the initial parameters from (see :class:`ComposerFactory`). ``tree_rnn``
composes over the trees the batch carries (:class:`~paracomp.models.tree_rnn.TreeBatch`), a
segment without one right-branching; it starts as ``tanh(c1 + c2)`` (``init="sum"``).
Wieting & Gimpel's (2017) ``lstm`` … ``bigran`` are :mod:`paracomp.models.peephole`'s."""

COMPOSER_SETTINGS: dict[str, tuple[str, ...]] = {
    name: ("boundary_tags", *(("bi_combine",) if name in BI_COMPOSERS else ()))
    for name in TAGGED_COMPOSERS
}
"""The run settings (``TrainConfig`` fields) a composer's factory takes as keywords."""


def make_composer(
    name: str,
    dim: int,
    generator: torch.Generator | None = None,
    settings: Mapping[str, Any] | None = None,
) -> Composer:
    """``COMPOSERS[name](dim, generator)`` with those of the run ``settings`` (a
    ``TrainConfig.to_dict()`` or the ``config`` a run saved) that the composer takes
    (:data:`COMPOSER_SETTINGS`); a setting absent from ``settings`` keeps the factory's
    default."""
    settings = settings or {}
    options = {k: settings[k] for k in COMPOSER_SETTINGS.get(name, ()) if k in settings}
    return COMPOSERS[name](dim, generator, **options)
