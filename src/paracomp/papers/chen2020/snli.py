"""Table 4: in how many equal-length SNLI test pairs the hypothesis is the less specific
sentence (larger entropy, or smaller norm for deterministic models), per gold label.

Only pairs whose premise and hypothesis have the same number of tokens are kept; the paper's
filter leaves 120 entailment / 192 neutral / 208 contradiction pairs (:data:`PAPER_COUNTS`),
the check for the tokenisation (:func:`paracomp.data.snli.read_snli_txt`'s ``tokens``). A tie
in specificity does not count (strict inequality; the paper does not say).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from paracomp.data.snli import LABELS, NliPair

PAPER_COUNTS = {"entailment": 120, "neutral": 192, "contradiction": 208}


def equal_length(pairs: Sequence[NliPair]) -> list[NliPair]:
    """The pairs whose premise and hypothesis have equally many tokens."""
    return [pair for pair in pairs if len(pair.premise) == len(pair.hypothesis)]


@dataclass(frozen=True)
class Direction:
    """``less_specific`` of ``pairs`` pairs have a hypothesis less specific than the premise."""

    less_specific: int
    pairs: int

    @property
    def percent(self) -> float:
        return 100.0 * self.less_specific / self.pairs if self.pairs else float("nan")


def direction_table(
    pairs: Sequence[NliPair], premise: np.ndarray, hypothesis: np.ndarray
) -> dict[str, Direction]:
    """Per gold label, the pairs where ``hypothesis[i] < premise[i]``, both specificity scores
    (higher = more specific) of ``pairs[i]``'s sentences."""
    less = np.asarray(hypothesis) < np.asarray(premise)
    labels = np.array([pair.label for pair in pairs])
    return {
        label: Direction(int(less[labels == label].sum()), int((labels == label).sum()))
        for label in LABELS
    }
