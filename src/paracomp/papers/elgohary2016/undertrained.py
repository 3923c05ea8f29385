"""Undertrained words (Elgohary & Carpuat Table 4): the share of test tokens that a training
set contains fewer than ``threshold`` times.

Test sentences are tokenised as the evaluator does; a ratio is over tokens (not types) of a
subset's sentences, and a group row is the unweighted mean of its subsets' ratios, as the
correlations of Table 3 are averaged.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow.parquet as pq

from paracomp.eval.tokens import tokenize_all
from paracomp.registry import row_refs
from paracomp.tables.layout import leaf_refs


def training_counts(path: Path) -> Counter[str]:
    """Token counts over the English side(s) of a training set."""
    table = pq.read_table(path)
    columns = ["en"] if "en" in table.column_names else ["s1", "s2"]
    counts: Counter[str] = Counter()
    for column in columns:
        for segment in table[column].to_pylist():
            counts.update(segment.split())
    return counts


def undertrained_ratio(sentences: list[list[str]], counts: Counter[str], threshold: int) -> float:
    tokens = [t for s in sentences for t in s]
    rare = sum(counts.get(t, 0) < threshold for t in tokens)
    return rare / len(tokens) if tokens else float("nan")


def undertrained_stats(
    table: str,
    conditions: dict[str, Path],
    sets: dict[str, Path],
    *,
    threshold: int = 100,
    tokenizer: str = "moses",
    lowercase: bool = True,
) -> dict[str, Any]:
    """Statistics file (rows x conditions) for a table whose rows are evaluation subsets."""
    frames = {name: pq.read_table(path).to_pandas() for name, path in sets.items()}
    counts = {name: training_counts(path) for name, path in conditions.items()}
    rows: dict[str, dict[str, Any]] = {}
    data: dict[str, str] = {}
    for row, ref in row_refs("elgohary2016", table).items():
        subsets, missing = [], []
        for leaf in leaf_refs(ref):
            frame = frames.get(leaf.set, pd.DataFrame(columns=["subset", "split", "score"]))
            part = frame[(frame["subset"] == leaf.subset) & frame["score"].notna()]
            if leaf.split is not None:
                part = part[part["split"] == leaf.split]
            if part.empty:
                missing.append(f"{leaf.set}/{leaf.subset}")
            else:
                subsets.append(tokenize_all([*part["s1"], *part["s2"]], tokenizer, lowercase))
        if missing:
            rows[row] = dict.fromkeys(conditions)
            data[row] = f"missing test data: {', '.join(missing)}"
            continue
        rows[row] = {
            name: float(np.mean([undertrained_ratio(s, c, threshold) for s in subsets]))
            for name, c in counts.items()
        }
        data[row] = (
            f"tokens seen < {threshold} times; mean over {len(subsets)} subset(s) "
            f"({sum(len(s) for s in subsets)} sentences)"
        )
    return {"rows": rows, "data": data}
