"""Lexical (word-to-word) PPDB training pairs and the lexical constraints built from them
(Wieting et al. 2015, §5.2 and §3).

The paper starts from PPDB-XL's lexical package (548,085 rules), removes 174,766 pairs that
contain digits or words outside its 100K vocabulary, then 260,425 "redundant" pairs, leaving
112,894 (:data:`PAPER_COUNTS`). "Redundant" is read as the same unordered word pair again
(order swaps, and the same pair under another syntactic label): nothing narrower can remove
70 % of what is left (digest §2.3). :func:`lexical_pairs` applies the filters in that order
and counts what each removes; a pair of two identical words (none in PPDB's lexical package
nor in the mirror's lexicon) is removed first and counted apart.

Without the PPDB release, pairs come from the mirror's ``ppdb-xl-lexicon`` (Faruqui et al.'s
retrofitting lexicon of PPDB-XL, already one line per word with its paraphrases and without
syntactic labels; :func:`paracomp.paraphrase.ppdb.read_xl_lexicon`).

Constraints (the "+ constraints" row of Table 3): for each word ``w``, its list holds every word
paired with ``w`` in the training pairs and all lemmas of those words
(:func:`constraint_lists`).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import asdict, dataclass

import pyarrow as pa

REDUNDANCY = ("unordered", "ordered", "none")


@dataclass(frozen=True)
class LexicalCounts:
    """Pairs read, and removed by each filter in order, and kept."""

    source: int
    identical: int
    digits: int
    oov: int
    redundant: int
    kept: int

    @property
    def digits_or_oov(self) -> int:
        """The paper's first filter, digits and out-of-vocabulary words together."""
        return self.digits + self.oov

    def as_dict(self) -> dict[str, int]:
        return {**asdict(self), "digits_or_oov": self.digits_or_oov}


PAPER_COUNTS = {"source": 548_085, "digits_or_oov": 174_766, "redundant": 260_425, "kept": 112_894}
"""§5.2's counts for PPDB-XL lexical with the authors' 100K vocabulary."""


def has_digit(word: str) -> bool:
    return any(c.isdigit() for c in word)


def lexical_pairs(
    table: pa.Table,
    vocab: Collection[str] | None = None,
    drop_digits: bool = True,
    redundancy: str = "unordered",
) -> tuple[pa.Table, LexicalCounts]:
    """The rows of a word-pair table (columns ``s1``, ``s2``) that pass the filters, in
    order, and the counts. ``vocab`` is the word set (None: no vocabulary filter);
    ``redundancy`` keeps the first of each ``"unordered"`` pair {w1, w2}, of each
    ``"ordered"`` pair (w1, w2), or every row (``"none"``)."""
    if redundancy not in REDUNDANCY:
        raise ValueError(f"redundancy must be one of {REDUNDANCY}, not {redundancy!r}")
    removed = dict.fromkeys(("identical", "digits", "oov", "redundant"), 0)
    seen: set[tuple[str, str]] = set()
    mask = []
    for w1, w2 in zip(table["s1"].to_pylist(), table["s2"].to_pylist(), strict=True):
        key = (min(w1, w2), max(w1, w2)) if redundancy == "unordered" else (w1, w2)
        if w1 == w2:
            reason = "identical"
        elif drop_digits and (has_digit(w1) or has_digit(w2)):
            reason = "digits"
        elif vocab is not None and (w1 not in vocab or w2 not in vocab):
            reason = "oov"
        elif redundancy != "none" and key in seen:
            reason = "redundant"
        else:
            reason = None
            seen.add(key)
        if reason:
            removed[reason] += 1
        mask.append(reason is None)
    kept = table.filter(pa.array(mask, pa.bool_()))
    return kept, LexicalCounts(table.num_rows, **removed, kept=kept.num_rows)


def neighbours(pairs: Iterable[tuple[str, str]]) -> dict[str, set[str]]:
    """Each word's partners in ``pairs``, both directions."""
    found: dict[str, set[str]] = {}
    for w1, w2 in pairs:
        found.setdefault(w1, set()).add(w2)
        found.setdefault(w2, set()).add(w1)
    return found


def constraint_lists(
    partners: Mapping[str, Collection[str]], lemmas: Callable[[str], Iterable[str]]
) -> dict[str, frozenset[str]]:
    """Each word's constraint list: its partners and all their lemmas (``lemmas`` maps a word
    to its lemmas, e.g. :func:`paracomp.wordnet.lemmas.all_lemmas`)."""
    return {
        word: frozenset(others).union(*(lemmas(other) for other in others))
        for word, others in partners.items()
    }
