"""Word-similarity evaluation: Spearman (and Pearson) of cosine against human scores."""

from __future__ import annotations

import numpy as np
import pandas as pd

from paracomp.eval.encode import SentenceEncoder, cosine_rows
from paracomp.eval.metrics import pearson, spearman

WORDSIM_COLUMNS = ["dataset", "n_total", "n", "n_oov", "spearman", "pearson"]


def wordsim_predictions(
    pairs: pd.DataFrame, encoder: SentenceEncoder, lowercase: bool, oov: str
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Which pairs are scored, which have an unknown word, and the gold and cosine of the
    scored ones (pairs with an unknown word only under ``unk``: cosine 0 against the zero UNK
    vector)."""
    w1 = pairs["w1"].str.lower() if lowercase else pairs["w1"]
    w2 = pairs["w2"].str.lower() if lowercase else pairs["w2"]
    has_oov = np.array([not (encoder.known(a) and encoder.known(b)) for a, b in zip(w1, w2)])
    keep = np.ones(len(pairs), dtype=bool) if oov == "unk" else ~has_oov
    pred = cosine_rows(
        encoder.encode([[a] for a in w1[keep]]), encoder.encode([[b] for b in w2[keep]])
    )
    return keep, has_oov, pairs["score"].to_numpy(dtype=np.float64)[keep], pred


def evaluate_wordsim(
    pairs: pd.DataFrame, encoder: SentenceEncoder, lowercase: bool, oov: str
) -> dict:
    """Correlations for one set. Pairs with an unknown word are scored only under ``unk``
    (cosine 0 against the zero UNK vector); otherwise they are left out and counted."""
    keep, has_oov, gold, pred = wordsim_predictions(pairs, encoder, lowercase, oov)
    return {
        "dataset": str(pairs["dataset"].iloc[0]) if len(pairs) else "",
        "n_total": len(pairs),
        "n": int(keep.sum()),
        "n_oov": int(has_oov.sum()),
        "spearman": spearman(gold, pred),
        "pearson": pearson(gold, pred),
    }
