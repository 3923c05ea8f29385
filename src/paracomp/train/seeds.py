"""Every seed a run derives from its settings' ``seed``, in one place: independent streams of
numpy's ``SeedSequence``, so that changing how one thing is drawn never moves another.

A pair run draws four: :data:`INIT` (composer parameters, then word rows), :data:`ORDER` (the
batch order), :data:`NEGATIVES` (the samplers) and :data:`PERTURBATION` (scrambling and
dropout). A target run keys its draws by purpose and step (:func:`keyed`).
"""

from __future__ import annotations

import numpy as np

INIT, ORDER, NEGATIVES, PERTURBATION = range(4)
"""The streams of a pair run."""


def stream(seed: int, which: int) -> int:
    """Stream ``which`` of ``seed`` (word ``which`` of its ``SeedSequence`` state: the first
    words do not depend on how many are drawn)."""
    return int(np.random.SeedSequence(seed).generate_state(which + 1)[which])


def keyed(*keys: int) -> int:
    """The seed of ``keys`` (e.g. the run's seed, a purpose, a step)."""
    return int(np.random.SeedSequence(list(keys)).generate_state(1)[0])
