"""Reading a table's compare file (``<table>.compare.csv``, :mod:`paracomp.tables.build`):
what ``findings`` and the overview check before they use one. Nothing here imports pandas."""

from __future__ import annotations

import csv
import math
from pathlib import Path

from paracomp.errors import DataError

COLUMNS = ("row", "column", "ours", "paper")
"""The columns a compare file's readers use."""


def read_compare(path: Path) -> list[dict[str, str]]:
    """The rows of compare file ``path``; a file without one of :data:`COLUMNS` (a foreign or
    hand-made file) or with a non-finite number in ``ours`` or ``paper`` is a
    :class:`DataError` naming the file (and the line)."""
    with open(path, newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        missing = [c for c in COLUMNS if c not in (reader.fieldnames or [])]
        if missing:
            raise DataError(f"{path}: no column(s) {missing} (a compare file has {list(COLUMNS)})")
        rows = list(reader)
    for line, row in enumerate(rows, start=2):
        for side in ("ours", "paper"):
            if _non_finite(row[side]):
                raise DataError(f"{path}:{line}: {side} is {row[side]!r}, not a finite number")
    return rows


def _non_finite(text: str | None) -> bool:
    try:
        return math.isinf(float(text or ""))
    except ValueError:
        return False
