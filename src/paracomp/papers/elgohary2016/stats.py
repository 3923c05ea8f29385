"""Statistics files of Elgohary & Carpuat's tables: size and length of the training sets
(Table 2) and the filtering experiment (Table 5)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow.parquet as pq

from paracomp import artefacts
from paracomp.atomic import atomic_path
from paracomp.registry import printed_table

DESCRIPTIONS = {
    "bible": "En-Es Bible: World English Bible + Reina-Valera 1909 (Debian SWORD modules)",
    "europarl": "Europarl-v7 (Koehn, 2005)",
    "phrase table": "+ Moses-style phrase extraction (eflomal, grow-diag-final-and) of the sentences",
    "pivot": "pivot paraphrases over the bilingual phrase table (Bannard & Callison-Burch, 2005)",
    "ppdb": "PPDB XL (Ganitkevitch et al., 2013)",
}


def _origin(path: Path) -> str:
    prov = artefacts.provenance(path)
    source = prov.get("source", "")
    if source in DESCRIPTIONS:
        return DESCRIPTIONS[source]
    inputs = list(prov.get("inputs", {}))
    return f"{source} of {Path(inputs[0]).name}" if inputs else source


CORPORA = ("bible", "europarl", "ppdb")
"""The ``source`` of the chain's first artefacts, each built from a raw corpus."""


def corpora(path: Path) -> list[str]:
    """The raw corpora (:data:`DESCRIPTIONS`) an artefact of the corpus chain was built from,
    found by following its provenance's parquet inputs."""
    prov = artefacts.provenance(path)
    if prov.get("source") in CORPORA:
        return [DESCRIPTIONS[prov["source"]]]
    found: list[str] = []
    for name in prov.get("inputs", {}):
        if name.endswith(".parquet") and Path(name).is_file():
            found += [c for c in corpora(Path(name)) if c not in found]
    return found


def training_set_stats(conditions: dict[str, Path]) -> dict[str, Any]:
    """Per condition: number of pairs, mean English tokens per segment, and provenance.

    Bilingual sets count their English side; paraphrase sets both (English) sides.
    """
    rows, data = {}, {}
    for name, path in conditions.items():
        table = pq.read_table(path)
        columns = ["len_en"] if "len_en" in table.column_names else ["len1", "len2"]
        lengths = np.concatenate([table[c].to_numpy() for c in columns])
        rows[name] = {
            "examples": table.num_rows,
            "avg_length": float(lengths.mean()) if lengths.size else None,
            "provenance": _origin(path),
        }
        mean = f"{lengths.mean():.2f}" if lengths.size else "no"
        data[name] = (
            f"{path} (from {'; '.join(corpora(path)) or 'unrecorded data'}): "
            f"{table.num_rows} pairs, {mean} tokens per segment ({', '.join(columns)})"
        )
    return {"rows": rows, "data": data}


def _sick_pearson(eval_dir: Path) -> float | None:
    import pandas as pd

    metrics = pd.read_csv(eval_dir / "sts.csv")
    row = metrics[
        (metrics["dataset"] == "sick2014") & (metrics["subset"] == "sick") & (metrics["n"] > 0)
    ]
    return float(row["pearson"].iloc[0]) if len(row) else None


def filtering_stats(
    conditions: dict[str, Path],
    filtered: dict[str, Path],
    evals: dict[str, Path],
    filtered_evals: dict[str, Path],
) -> dict[str, Any]:
    """Elgohary & Carpuat Table 5: pairs and SICK Pearson of J_bi before and after dropping the
    pairs that hold a SICK-test bigram."""
    rows, data = {}, {}
    for name in conditions:
        rows[name] = {
            "pairs_unfiltered": pq.read_metadata(conditions[name]).num_rows,
            "score_unfiltered": _sick_pearson(evals[name]),
            "pairs_filtered": pq.read_metadata(filtered[name]).num_rows,
            "score_filtered": _sick_pearson(filtered_evals[name]),
        }
        data[name] = (
            f"{conditions[name]} vs {filtered[name]}; SICK test Pearson of "
            f"{evals[name].name} and {filtered_evals[name].name}"
        )
    return {"rows": rows, "data": data}


def unavailable_stats(table: str, reason: str) -> dict[str, Any]:
    """A statistics file for ``table`` whose every cell is empty for ``reason``."""
    printed = printed_table("elgohary2016", table)
    return {
        "rows": {r: dict.fromkeys(printed.columns) for r in printed.rows},
        "data": dict.fromkeys(printed.rows, reason),
    }


def write_stats(out: Path, stats: dict[str, Any]) -> None:
    """Write a statistics file (``rows``: row -> column -> value; ``data``: row -> text)."""
    with atomic_path(out) as tmp:
        tmp.write_text(json.dumps(stats, indent=2))
