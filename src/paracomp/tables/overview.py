"""A paper's overview: how far each of its tables is from print, and which of its claims hold.

One row per table from its compare file: cells, cells we computed, cells with a printed
number, and the mean and largest |ours − paper| over the cells that have both; then the
verdicts of its findings (:mod:`paracomp.tables.findings`), the claims that do not hold named.
Nothing here imports pandas.
"""

from __future__ import annotations

import csv
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

from paracomp.atomic import atomic_path
from paracomp.tables.findings import cell_value

COLUMNS = ("table", "cells", "computed", "printed", "compared", "mean_abs_delta", "max_abs_delta")


def table_summary(table: str, compare: Path) -> dict[str, str]:
    """The overview row of one table's compare file."""
    with open(compare, newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    ours = [cell_value(r["ours"]) for r in rows]
    paper = [cell_value(r["paper"]) for r in rows]
    deltas = [
        abs(o - p) for o, p in zip(ours, paper, strict=True) if o is not None and p is not None
    ]
    return {
        "table": table,
        "cells": str(len(rows)),
        "computed": str(sum(o is not None for o in ours)),
        "printed": str(sum(p is not None for p in paper)),
        "compared": str(len(deltas)),
        "mean_abs_delta": f"{sum(deltas) / len(deltas):.2f}" if deltas else "",
        "max_abs_delta": f"{max(deltas):.2f}" if deltas else "",
    }


def write_overview(
    paper: str,
    compare: Mapping[str, Path],
    findings: Path,
    csv_path: Path,
    markdown: Path,
) -> None:
    """``overview.csv`` (one row per table) and ``overview.md`` (the tables and the
    findings), atomically."""
    summaries = [table_summary(table, path) for table, path in compare.items()]
    with atomic_path(csv_path) as tmp, open(tmp, "w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=COLUMNS)
        writer.writeheader()
        writer.writerows(summaries)
    with open(findings, newline="", encoding="utf-8") as handle:
        claims = list(csv.DictReader(handle))
    with atomic_path(markdown) as tmp:
        Path(tmp).write_text("\n".join(_markdown(paper, summaries, claims)) + "\n", "utf-8")


def _markdown(
    paper: str, summaries: Sequence[dict[str, str]], claims: list[dict[str, str]]
) -> Iterator[str]:
    yield f"# {paper}: overview"
    yield ""
    yield "| table | cells | computed | printed | compared | mean \\|ours − paper\\| | max |"
    yield "|---|---:|---:|---:|---:|---:|---:|"
    for s in summaries:
        yield "| " + " | ".join(s[c] or "—" for c in COLUMNS) + " |"
    counts = {v: sum(c["holds"] == v for c in claims) for v in ("yes", "no", "not computable")}
    yield ""
    yield (
        f"**Findings**: {len(claims)} claims, {counts['yes']} hold on our run, {counts['no']}"
        f" do not, {counts['not computable']} not computable (findings.md)."
    )
    for claim in claims:
        if claim["holds"] != "yes":
            yield f"- {claim['holds']}: {claim['claim']} ({claim['where']}): {claim['why']}"
