"""A paper's overview: how far each of its tables is from print, and which of its claims hold.

One row per table from its compare file: cells, cells we computed, cells with a printed
number, and the mean and largest |ours − paper| over the cells the table compares (its
``delta``: a table leaves it empty where ours and the paper's are not like with like); then the
verdicts of its findings (:mod:`paracomp.tables.findings`), the claims that do not hold named;
and the same as one HTML page for the report, every claim with its verdict. Nothing here
imports pandas.
"""

from __future__ import annotations

import csv
import html
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

from paracomp.atomic import atomic_path
from paracomp.tables.compare_file import read_compare
from paracomp.tables.findings import cell_value

THREE_WAY = ("holds", "fails", "unresolved")
COLUMNS = ("table", "cells", "computed", "printed", "compared", "mean_abs_delta", "max_abs_delta")


def table_summary(table: str, compare: Path) -> dict[str, str]:
    """The overview row of one table's compare file."""
    rows = read_compare(compare)
    ours = [cell_value(r["ours"]) for r in rows]
    paper = [cell_value(r["paper"]) for r in rows]
    deltas = [abs(d) for d in (_delta(r, o, p) for r, o, p in zip(rows, ours, paper, strict=True))
              if d is not None]  # fmt: skip
    return {
        "table": table,
        "cells": str(len(rows)),
        "computed": str(sum(o is not None for o in ours)),
        "printed": str(sum(p is not None for p in paper)),
        "compared": str(len(deltas)),
        "mean_abs_delta": f"{sum(deltas) / len(deltas):.2f}" if deltas else "",
        "max_abs_delta": f"{max(deltas):.2f}" if deltas else "",
    }


def _delta(row: dict[str, str], ours: float | None, paper: float | None) -> float | None:
    """A cell's ours − paper: its ``delta`` where the file has that column (empty where the
    table says the two are not like with like, e.g. a norm of a 50-d gate against a 300-d
    one), else computed."""
    if "delta" in row:
        return cell_value(row["delta"])
    return None if ours is None or paper is None else ours - paper


def write_overview(
    paper: str,
    compare: Mapping[str, Path],
    findings: Path,
    csv_path: Path,
    markdown: Path,
    page: Path,
) -> None:
    """``overview.csv`` (one row per table), ``overview.md`` (the tables and the findings)
    and ``overview.html`` (the same, every claim with its verdict), atomically."""
    summaries = [table_summary(table, path) for table, path in compare.items()]
    with atomic_path(csv_path) as tmp, open(tmp, "w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=COLUMNS)
        writer.writeheader()
        writer.writerows(summaries)
    with open(findings, newline="", encoding="utf-8") as handle:
        claims = list(csv.DictReader(handle))
    with atomic_path(markdown) as tmp:
        Path(tmp).write_text("\n".join(_markdown(paper, summaries, claims)) + "\n", "utf-8")
    with atomic_path(page) as tmp:
        Path(tmp).write_text("\n".join(_html(paper, summaries, claims)) + "\n", "utf-8")


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
    yield from _verdicts(claims)
    for claim in claims:
        if claim["holds"] != "yes":
            yield f"- {claim['holds']}: {claim['claim']} ({claim['where']}): {claim['why']}"


def _verdicts(claims: list[dict[str, str]]) -> Iterator[str]:
    """The claims' three-way verdicts on the test-set bootstrap (nothing for a findings file
    without them)."""
    counts = verdict_counts(claims)
    if counts:
        yield ""
        yield (
            "On the test-set bootstrap (P(holds) ≥ 0.95 holds, ≤ 0.05 fails): "
            + ", ".join(f"{n} {v}" for v, n in counts.items())
            + "."
        )


def verdict_counts(claims: Sequence[Mapping[str, str]]) -> dict[str, int]:
    """How many claims hold, fail and are unresolved on the bootstrap (always these three,
    then any other verdict that occurs, e.g. ``not computable``); empty for a findings file
    without verdicts."""
    found = [c.get("verdict", "") for c in claims]
    if not any(found):
        return {}
    kinds = dict.fromkeys([*THREE_WAY, *(v for v in found if v)])
    return {v: found.count(v) for v in kinds if v in THREE_WAY or found.count(v)}


HEADERS = ("table", "cells", "computed", "printed", "compared", "mean |ours − paper|", "max")
VERDICT_COLOURS = {"yes": "#d8f0d8", "no": "#f6d5d5", "not computable": "#eeeeee"}


def _row(cells: Sequence[str], tag: str = "td", style: str = "") -> str:
    inner = "".join(f"<{tag}>{html.escape(c or '—')}</{tag}>" for c in cells)
    attribute = f' style="{style}"' if style else ""
    return f"<tr{attribute}>{inner}</tr>"


def _html(
    paper: str, summaries: Sequence[dict[str, str]], claims: list[dict[str, str]]
) -> Iterator[str]:
    yield "<!DOCTYPE html>"
    yield f'<html lang="en"><head><meta charset="utf-8"><title>{html.escape(paper)}</title>'
    yield (
        "<style>body{font-family:sans-serif;margin:1.5em;max-width:70em}"
        "table{border-collapse:collapse;margin-bottom:1.5em}"
        "td,th{border:1px solid #bbb;padding:.3em .6em;vertical-align:top;text-align:left}"
        "th{background:#f4f4f4}</style></head><body>"
    )
    yield f"<h1>{html.escape(paper)}: overview</h1>"
    yield "<h2>Tables against print</h2><table>"
    yield _row(HEADERS, "th")
    for s in summaries:
        yield _row([s[c] for c in COLUMNS])
    yield "</table>"
    counts = {v: sum(c["holds"] == v for c in claims) for v in VERDICT_COLOURS}
    yield (
        f"<h2>Findings</h2><p>{len(claims)} claims: {counts['yes']} hold on our run, "
        f"{counts['no']} do not, {counts['not computable']} not computable."
        f"{''.join(_verdicts(claims))}</p><table>"
    )
    head = ("claim", "where", "holds on ours", "P(holds)", "verdict", "on print", "why")
    yield _row((*head, "the paper's words"), "th")
    for c in claims:
        cells = (c["claim"], c["where"], c["holds"], c.get("p_holds", ""), c.get("verdict", ""),
                 c["paper"], c["why"], c["quote"])  # fmt: skip
        yield _row(cells, style=f"background:{VERDICT_COLOURS.get(c['holds'], '#fff')}")
    yield "</table></body></html>"
