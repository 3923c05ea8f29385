"""Tables 5 and 6: top-20 word lists of a trained WLO, most general and specific sentences.

Table 5 ranks words by the entropy their operator adds, relative to ``N(0, I)``:
``ΔH_w = Σ_d log|A_w,d|`` (the entropy of the one-word sentence ``N(A_w ⊙ B_w, diag A_w²)``
less that of ``N(0, I)``, ``(k/2)(1 + log 2π)``), so "small absolute entropy" means "little
effect on specificity" (with the constant, ``|H|`` and ``H`` would rank almost alike). "Norm"
is that of the shift ``B_w``. How the paper splits small from large norms is not stated: here
the words with ``‖B_w‖`` at most the ``quantile``-quantile are the small-norm ones, those at
least the ``(1 − quantile)``-quantile the large-norm ones (default: a median split).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

COLUMNS = (
    ("small_norm", "small_abs_entropy"),
    ("small_norm", "small_entropy"),
    ("large_norm", "small_abs_entropy"),
    ("large_norm", "small_entropy"),
)
"""Table 5's columns, left to right."""


def entropy_shift(log_scale: np.ndarray) -> np.ndarray:
    """``ΔH_w = Σ_d log|A_w,d|`` of the rows of ``log_scale`` (WLO rows store ``log|A|``)."""
    return np.asarray(log_scale, dtype=np.float64).sum(axis=1)


def word_lists(
    words: Sequence[str],
    log_scale: np.ndarray,
    shift: np.ndarray,
    k: int = 20,
    quantile: float = 0.5,
) -> dict[tuple[str, str], list[str]]:
    """Table 5's four lists (keys :data:`COLUMNS`): among small- or large-norm words, the
    ``k`` of smallest ``|ΔH|`` or smallest ``ΔH``. Restrict ``words`` (e.g. to frequent ones)
    before calling."""
    delta = entropy_shift(log_scale)
    norms = np.linalg.norm(np.asarray(shift, dtype=np.float64), axis=1)
    groups = {
        "small_norm": norms <= np.quantile(norms, quantile),
        "large_norm": norms >= np.quantile(norms, 1.0 - quantile),
    }
    keys = {"small_abs_entropy": np.abs(delta), "small_entropy": delta}
    lists = {}
    for group, key in COLUMNS:
        members = np.flatnonzero(groups[group])
        order = members[np.argsort(keys[key][members], kind="stable")[:k]]
        lists[group, key] = [words[i] for i in order]
    return lists


def sentence_extremes(
    sentences: Sequence[str], specificity: np.ndarray, lengths: Sequence[int], k: int = 20
) -> dict[int, tuple[list[str], list[str]]]:
    """Table 6: for each sentence length, its ``k`` most specific sentences (highest score,
    most specific first) and its ``k`` most general ones (lowest score, most general first)."""
    scores, lengths = np.asarray(specificity), np.asarray(lengths)
    extremes = {}
    for length in sorted(set(lengths.tolist())):
        members = np.flatnonzero(lengths == length)
        order = members[np.argsort(scores[members], kind="stable")]
        extremes[length] = (
            [sentences[i] for i in order[::-1][:k]],
            [sentences[i] for i in order[:k]],
        )
    return extremes
