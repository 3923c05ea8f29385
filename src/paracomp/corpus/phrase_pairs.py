"""Selecting bilingual training phrase pairs from a phrase table by rules from config."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from paracomp.corpus.build import BILINGUAL_PAIRS
from paracomp.corpus.derive import subsample


def select_pairs(
    table: pa.Table,
    *,
    min_count: int = 1,
    min_prob: float = 0.0,
    min_length: int = 1,
    max_length: int = 7,
    max_pairs: int | None = None,
    seed: int = 1,
) -> pa.Table:
    """Phrase pairs seen ``min_count`` times, with both translation probabilities at least
    ``min_prob`` and both sides ``min_length``–``max_length`` tokens long; then, if more remain
    than ``max_pairs``, a seeded random sample of that size (in phrase-table order)."""
    len_en = pc.add(pc.count_substring(table["en"], " "), 1)
    len_es = pc.add(pc.count_substring(table["es"], " "), 1)
    keep = pc.and_(
        pc.and_(
            pc.greater_equal(table["count"], min_count),
            pc.and_(
                pc.greater_equal(table["p_en_given_es"], min_prob),
                pc.greater_equal(table["p_es_given_en"], min_prob),
            ),
        ),
        pc.and_(
            pc.and_(pc.greater_equal(len_en, min_length), pc.less_equal(len_en, max_length)),
            pc.and_(pc.greater_equal(len_es, min_length), pc.less_equal(len_es, max_length)),
        ),
    )
    rows = np.flatnonzero(keep.to_numpy(zero_copy_only=False))
    selected = pa.table(
        {
            "id": pa.array([f"pt:{i}" for i in rows], pa.string()),
            "en": table["en"].take(rows),
            "es": table["es"].take(rows),
            "len_en": len_en.take(rows).cast(pa.int32()),
            "len_es": len_es.take(rows).cast(pa.int32()),
        },
        schema=BILINGUAL_PAIRS,
    )
    if max_pairs is not None and selected.num_rows > max_pairs:
        selected = subsample(selected, max_pairs, seed=seed)
    return selected
