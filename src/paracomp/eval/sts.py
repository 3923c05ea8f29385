"""Sentence-pair evaluation: cosine of encoded sentences against gold scores, per subset."""

from __future__ import annotations

import numpy as np
import pandas as pd

from paracomp.eval.encode import SentenceEncoder, cosine_rows
from paracomp.eval.metrics import pearson, spearman
from paracomp.eval.tokens import tokenize_all

PAIR_COLUMNS = ["dataset", "subset", "split", "id", "gold", "pred", "oov"]
METRIC_COLUMNS = [
    "dataset",
    "subset",
    "split",
    "n",
    "n_oov",
    "n_dropped",
    "pearson",
    "spearman",
]


def predict_pairs(
    pairs: pd.DataFrame, encoder: SentenceEncoder, tokenizer: str, lowercase: bool, oov: str
) -> pd.DataFrame:
    """Score every pair with a gold score; ``oov`` marks pairs with an unknown token.

    Under the ``drop`` policy those pairs are removed here and counted by :func:`subset_metrics`.
    """
    scored = pairs[pairs["score"].notna()].reset_index(drop=True)
    left = tokenize_all(scored["s1"].tolist(), tokenizer, lowercase)
    right = tokenize_all(scored["s2"].tolist(), tokenizer, lowercase)
    has_oov = np.array(
        [
            not all(map(encoder.known, a)) or not all(map(encoder.known, b))
            for a, b in zip(left, right)
        ],
        dtype=bool,
    )
    pred = cosine_rows(encoder.encode(left), encoder.encode(right))
    out = pd.DataFrame(
        {
            "dataset": scored["dataset"],
            "subset": scored["subset"],
            "split": scored["split"],
            "id": scored["id"],
            "gold": scored["score"].astype(np.float64),
            "pred": pred,
            "oov": has_oov,
        }
    )
    out["dropped"] = has_oov if oov == "drop" else False
    return out


def subset_metrics(predictions: pd.DataFrame) -> pd.DataFrame:
    """Pearson, Spearman, n (pairs scored), n_oov and n_dropped per (dataset, subset, split)."""
    rows = []
    keys = ["dataset", "subset", "split"]
    for key, group in predictions.groupby(keys, sort=True):
        kept = group[~group["dropped"]]
        rows.append(
            {
                **dict(zip(keys, key)),
                "n": len(kept),
                "n_oov": int(group["oov"].sum()),
                "n_dropped": int(group["dropped"].sum()),
                "pearson": pearson(kept["gold"].to_numpy(), kept["pred"].to_numpy()),
                "spearman": spearman(kept["gold"].to_numpy(), kept["pred"].to_numpy()),
            }
        )
    return pd.DataFrame(rows, columns=METRIC_COLUMNS)
