"""Model selection of Wieting et al. (2015): criteria and checkpoints.

- PARAGRAM_WS (Table 3) maximises ``2·ρ(WS-S) − ρ(WS-R)`` (§5.3); PARAGRAM maximises ρ on
  SimLex-999 (footnote 11); the RNNs maximise ρ on a development set (§6).
- The authors' code saves parameters at ¼, ½ and ¾ of every epoch and at its end (MATLAB
  ``AGWords.m``/``AGParaWords.m``); the paper does not say whether selection ranged over
  these checkpoints. Here it ranges over the grid points, each after its last epoch
  (:func:`select_record`).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from typing import Any, TypeVar

K = TypeVar("K", bound=Hashable)


def ws_criterion(ws_sim: float, ws_rel: float) -> float:
    """``2·WS-S − WS-R``: similarity rewarded, relatedness penalised."""
    return 2.0 * ws_sim - ws_rel


def select(scores: Mapping[K, float]) -> K:
    """The candidate with the highest score, the first in order on ties; NaN never wins."""
    best = None
    for key, value in scores.items():
        if math.isnan(value):
            continue
        if best is None or value > scores[best]:
            best = key
    if best is None:
        raise ValueError("no candidate with a score")
    return best


def select_record(records: Sequence[Mapping[str, Any]], criterion: str) -> dict[str, Any]:
    """The grid point whose ``record["criterion"][criterion]`` is highest (the first on ties),
    with every point's value: what a ``*.selected.json`` holds."""
    values = {i: float(r["criterion"][criterion]) for i, r in enumerate(records)}
    best = select(values)
    return {
        "criterion": criterion,
        "selected": best,
        "record": dict(records[best]),
        "points": [{"point": r["point"], "value": values[i]} for i, r in enumerate(records)],
    }
