"""SNLI 1.0 (Bowman et al. 2015) in its tab-separated release format (``snli_1.0_test.txt``).

Columns are found by the header (``gold_label``, ``sentence1_binary_parse``, …,
``sentence1``, ``sentence2``, ``pairID``); pairs without a gold label (``-``, no annotator
majority) are skipped. Tokens come from the binary parse (the Stanford parser's PTB
tokenisation, brackets dropped; ``tokens="parse"``) or from splitting the raw sentence at
whitespace (``tokens="whitespace"``).
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

from paracomp.errors import DataError

LABELS = ("entailment", "neutral", "contradiction")
TOKENISATIONS = ("parse", "whitespace")


@dataclass(frozen=True)
class NliPair:
    pair_id: str
    label: str
    premise: tuple[str, ...]
    hypothesis: tuple[str, ...]


def parse_tokens(binary_parse: str) -> tuple[str, ...]:
    """The tokens of a bracketed binary parse, ``( ( A dog ) runs )`` → ``(A, dog, runs)``."""
    return tuple(token for token in binary_parse.split() if token not in ("(", ")"))


def read_snli_txt(path: Path, tokens: str = "parse") -> list[NliPair]:
    """The gold-labelled pairs of an SNLI ``.txt`` file, in file order."""
    if tokens not in TOKENISATIONS:
        raise ValueError(f"tokens must be one of {TOKENISATIONS}, not {tokens!r}")
    suffix = "_binary_parse" if tokens == "parse" else ""
    split = parse_tokens if tokens == "parse" else lambda text: tuple(text.split())
    with path.open(encoding="utf-8", newline="") as handle:
        rows = csv.reader(handle, delimiter="\t", quoting=csv.QUOTE_NONE)
        header = next(rows, [])
        column = {name: i for i, name in enumerate(header)}
        needed = {"gold_label", "pairID", f"sentence1{suffix}", f"sentence2{suffix}"}
        missing = needed - set(column)
        if missing:
            raise DataError(f"{path}:1: no column(s) {sorted(missing)} in the header")
        pairs = []
        for row in rows:
            where = f"{path}:{rows.line_num}"
            if len(row) != len(header):
                raise DataError(
                    f"{where}: expected {len(header)} tab-separated fields, got {len(row)}"
                )
            label, pair_id = row[column["gold_label"]], row[column["pairID"]]
            if label == "-":
                continue
            if label not in LABELS:
                raise DataError(f"{where}: unknown gold label {label!r} (pair {pair_id})")
            premise = split(row[column[f"sentence1{suffix}"]])
            hypothesis = split(row[column[f"sentence2{suffix}"]])
            pairs.append(NliPair(pair_id, label, premise, hypothesis))
    return pairs
