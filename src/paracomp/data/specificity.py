"""Sentence specificity sets: the two mirror datasets (``specificity-news-speciteller``,
``specificity-ko2019``), one sentence a line with labels in a parallel file.

- News test (Li & Nenkova 2015, Speciteller's ``louisdata/``): ``tknsents.txt`` (tokenised)
  and ``labels.txt``, ``-1`` = specific, ``+1`` = general (the reading under which
  Speciteller's own ``ref.probs`` give Li & Nenkova's 81.6% accuracy). Line 651 holds a
  character split inside its UTF-8 bytes (``clich\\xc3 \\xa9 s``): undecodable bytes become
  U+FFFD.
- News train (Ko et al. 2019's ``data.txt``/``label.txt``, WSJ, tokenised): ``2`` = specific,
  ``1`` = general. 362 of its lines are News test sentences (:func:`without`).
- Twitter, Yelp, Movie (Ko et al. 2019): ``<domain>s.txt`` sentences and ``<domain>v.txt``
  the mean of the Turkers' real-valued ratings, higher = more specific. Every line is kept
  (Ko et al.'s own code skips the first; the set sizes Chen & Gimpel report, 984 / 845 / 920,
  are the full files).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from paracomp.errors import DataError

DOMAINS = ("twitter", "yelp", "movie")


@dataclass(frozen=True)
class SpecificitySet:
    """Sentences with ``labels`` (float64): for a ``binary`` set 1.0 = specific, 0.0 =
    general; otherwise the mean specificity rating (higher = more specific)."""

    sentences: tuple[str, ...]
    labels: np.ndarray
    binary: bool

    def __len__(self) -> int:
        return len(self.sentences)


def _lines(path: Path) -> list[str]:
    return path.read_bytes().decode("utf-8", errors="replace").splitlines()


def _paired(sentences: list[str], labels: list[str], what: str) -> None:
    if len(sentences) != len(labels):
        raise DataError(f"{what}: {len(sentences)} sentences but {len(labels)} labels")


def _binary(labels: list[str], specific: str, general: str, what: str) -> np.ndarray:
    values = [label.strip() for label in labels]
    unknown = sorted(set(values) - {specific, general})
    if unknown:
        raise DataError(f"{what}: labels must be {specific!r} or {general!r}, got {unknown}")
    return np.array([value == specific for value in values], dtype=np.float64)


def read_speciteller_news(folder: Path) -> SpecificitySet:
    """The News test set (885 sentences; 483 specific) from ``tknsents.txt``/``labels.txt``."""
    sentences, labels = _lines(folder / "tknsents.txt"), _lines(folder / "labels.txt")
    _paired(sentences, labels, str(folder))
    return SpecificitySet(tuple(sentences), _binary(labels, "-1", "1", str(folder)), True)


def read_ko2019_news(folder: Path) -> SpecificitySet:
    """The labelled news training set (4,342 sentences; 2,231 specific) from
    ``data.txt``/``label.txt``."""
    sentences, labels = _lines(folder / "data.txt"), _lines(folder / "label.txt")
    _paired(sentences, labels, str(folder))
    return SpecificitySet(tuple(sentences), _binary(labels, "2", "1", str(folder)), True)


def read_ko2019_domain(folder: Path, domain: str) -> SpecificitySet:
    """A rated test set, ``domain`` one of :data:`DOMAINS` (984 / 845 / 920 sentences)."""
    if domain not in DOMAINS:
        raise DataError(f"specificity domain must be one of {DOMAINS}, not {domain!r}")
    sentences, ratings = _lines(folder / f"{domain}s.txt"), _lines(folder / f"{domain}v.txt")
    _paired(sentences, ratings, f"{folder} ({domain})")
    try:
        labels = np.array([float(rating) for rating in ratings], dtype=np.float64)
    except ValueError as exc:
        raise DataError(f"{folder / f'{domain}v.txt'}: {exc}") from None
    return SpecificitySet(tuple(sentences), labels, False)


def without(data: SpecificitySet, other: SpecificitySet) -> SpecificitySet:
    """``data`` less every sentence that is also one of ``other``'s (exact line match)."""
    seen = set(other.sentences)
    keep = [i for i, sentence in enumerate(data.sentences) if sentence not in seen]
    return SpecificitySet(tuple(data.sentences[i] for i in keep), data.labels[keep], data.binary)
