"""Derived training sets: SICK-bigram filtering (Elgohary & Carpuat Table 5) and seeded
subsampling (Table 6 sizes, the 100k tuning subsets).

Bigram matching runs on tokenised, lowercased text: the training pairs are already in that
form, and :func:`sick_bigrams` tokenises SICK sentences the same way (Moses, then lowercase).
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import pairwise

import numpy as np
import pyarrow as pa

from paracomp.corpus.tokenize import tokenize_lines
from paracomp.errors import ConfigError

Bigram = tuple[str, str]


def bigrams(tokens: list[str]) -> set[Bigram]:
    """Adjacent token pairs of one tokenised segment."""
    return set(pairwise(tokens))


def sick_bigrams(sentences: Iterable[str], lang: str = "en") -> set[Bigram]:
    """Every bigram of the (raw) sentences after Moses tokenisation and lowercasing."""
    found: set[Bigram] = set()
    for line in tokenize_lines(sentences, lang, lowercase=True):
        found |= bigrams(line.split())
    return found


def filter_bigrams(
    pairs_table: pa.Table, forbidden_bigrams: set[Bigram], side: str | tuple[str, ...] = "s1"
) -> pa.Table:
    """Drop the pairs whose ``side`` column(s) contain a forbidden bigram.

    Use ``side="s1"`` for bilingual pairs (English side) and ``("s1", "s2")`` for English
    paraphrase pairs, where either side may contain a test bigram.
    """
    columns = (side,) if isinstance(side, str) else side
    keep = np.ones(pairs_table.num_rows, dtype=bool)
    for column in columns:
        texts = pairs_table[column].to_pylist()
        keep &= [forbidden_bigrams.isdisjoint(bigrams(t.split())) for t in texts]
    return pairs_table.filter(pa.array(keep))


def subsample(
    table: pa.Table, n: int | None = None, *, fraction: float | None = None, seed: int
) -> pa.Table:
    """``n`` rows (or ``round(fraction · rows)``) drawn without replacement, in table order.

    The draw is the first ``n`` of one seeded permutation, so for a fixed seed smaller
    samples are subsets of larger ones (0.5M ⊂ 1M ⊂ 1.9M in Table 6).
    """
    if fraction is None:
        if n is None:
            raise ConfigError("subsample: give n or fraction")
        count = n
    elif n is None and 0.0 <= fraction <= 1.0:
        count = round(fraction * table.num_rows)
    else:
        raise ConfigError(f"subsample: give n or a fraction in [0, 1], got {n=}, {fraction=}")
    if not 0 <= count <= table.num_rows:
        raise ConfigError(f"subsample: cannot draw {count} rows from {table.num_rows}")
    order = np.random.default_rng(seed).permutation(table.num_rows)[:count]
    return table.take(pa.array(np.sort(order)))
