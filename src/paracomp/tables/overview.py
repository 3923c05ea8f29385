"""A paper's overview: how far each of its tables is from print, and which of its claims hold.

One row per table from its compare file: cells, cells we computed, cells with a printed
number, and the mean and largest |ours − paper| over the cells the table compares (its
``delta``: a table leaves it empty where ours and the paper's are not like with like), with the
mean's sd and noise floor over the table's bootstrap replicates (:func:`distance_noise`); then the
verdicts of its findings (:mod:`paracomp.tables.findings`), the claims that do not hold named;
and the same as one HTML page for the report, every claim with its verdict. Nothing here
imports pandas.
"""

from __future__ import annotations

import csv
import html
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

import numpy as np

from paracomp.atomic import atomic_path
from paracomp.tables.compare_file import read_compare
from paracomp.tables.findings import cell_value
from paracomp.tables.replicates import Replicates, read_replicates

THREE_WAY = ("holds", "fails", "unresolved")
COLUMNS = (
    "table", "cells", "computed", "printed", "compared",
    "mean_abs_delta", "mean_abs_delta_sd", "noise_floor", "resampled", "max_abs_delta",
)  # fmt: skip


def table_summary(table: str, compare: Path, replicates: Path | None = None) -> dict[str, str]:
    """The overview row of one table's compare file (and its bootstrap replicates, if any)."""
    rows = read_compare(compare)
    ours = [cell_value(r["ours"]) for r in rows]
    paper = [cell_value(r["paper"]) for r in rows]
    compared = {
        f"{r['row']}|{r['column']}": (d, p)
        for r, o, p in zip(rows, ours, paper, strict=True)
        if (d := _delta(r, o, p)) is not None
    }
    deltas = [abs(d) for d, _ in compared.values()]
    found = read_replicates(replicates) if replicates is not None else None
    noise = distance_noise({k: p for k, (_, p) in compared.items()}, found)
    return {
        "table": table,
        "cells": str(len(rows)),
        "computed": str(sum(o is not None for o in ours)),
        "printed": str(sum(p is not None for p in paper)),
        "compared": str(len(deltas)),
        "mean_abs_delta": f"{sum(deltas) / len(deltas):.2f}" if deltas else "",
        "mean_abs_delta_sd": _figure(noise[0]) if noise else "",
        "noise_floor": _figure(noise[1]) if noise else "",
        "resampled": _resampled(compared, found) if noise and found else "",
        "max_abs_delta": f"{max(deltas):.2f}" if deltas else "",
    }


def distance_noise(
    printed: Mapping[str, float | None], replicates: Replicates | None
) -> tuple[float, float] | None:
    """How much of the mean |ours − paper| over the compared cells (``printed``: cell
    ``row|column`` -> the paper's number) is noise, from the replicates of every compared cell
    (test-set resamples, and seeds where a cell has several): its sd over the resamples, and
    its noise floor, the mean |ours − paper| a run whose every cell's expectation were the
    printed number would show, Σ sd_c · √(2/π) / n. ``None`` where a compared cell has no
    replicates (a count, say) or nothing is compared.

    No interval is given: near print |·| lifts the mean by an amount the resamples
    underestimate, so an interval from them misses the true distance. Their sd is sound: in
    simulation (tests/test_overview.py) within 5% of the mean's own sd where most cells lie
    far from print, and up to a third above it where all sit on print. Resamples in which a
    cell has no value are left out.
    """
    if replicates is None or not printed:
        return None
    if any(k not in replicates.values or p is None for k, p in printed.items()):
        return None
    values = np.stack([replicates.values[k] for k in printed])
    values = values[:, np.isfinite(values).all(axis=0)]
    if values.shape[1] < 2:
        return None
    paper = np.array(list(printed.values()))[:, None]
    spread = float(np.abs(values - paper).mean(axis=0).std(ddof=1))
    floor = float(values.std(axis=1, ddof=1).mean() * np.sqrt(2 / np.pi))
    return spread, floor


def _figure(x: float) -> str:
    """Two decimals, as the table's mean; one significant digit below 0.005 (not "0.00")."""
    return f"{x:.2f}" if x >= 0.005 or x == 0 else f"{x:.1g}"


def _delta(row: dict[str, str], ours: float | None, paper: float | None) -> float | None:
    """A cell's ours − paper: its ``delta`` where the file has that column (empty where the
    table says the two are not like with like, e.g. a norm of a 50-d gate against a 300-d
    one), else computed."""
    if "delta" in row:
        return cell_value(row["delta"])
    return None if ours is None or paper is None else ours - paper


def _resampled(compared: Mapping[str, object], replicates: Replicates) -> str:
    """What the sd and the floor resample: the test sets, and the seeds of the cells run with
    several (an sd over one seed's runs says nothing of another seed's)."""
    seeded = sum(k in replicates.seeds for k in compared)
    if not seeded:
        return "test sets"
    if seeded == len(compared):
        return "seeds and test sets"
    return f"test sets; seeds for {seeded} of {len(compared)} cells"


def write_overview(
    paper: str,
    compare: Mapping[str, Path],
    replicates: Mapping[str, Path],
    findings: Path,
    csv_path: Path,
    markdown: Path,
    page: Path,
) -> None:
    """``overview.csv`` (one row per table), ``overview.md`` (the tables and the findings)
    and ``overview.html`` (the same, every claim with its verdict), atomically; ``replicates``
    holds the bootstrap replicates of the tables that have them."""
    summaries = [table_summary(t, path, replicates.get(t)) for t, path in compare.items()]
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
    yield (
        "| table | cells | computed | printed | compared | mean \\|ours − paper\\| ± sd"
        " | from noise alone | over | max |"
    )
    yield "|---|---:|---:|---:|---:|---:|---:|---|---:|"
    for s in summaries:
        yield "| " + " | ".join(c or "—" for c in _shown(s)) + " |"
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


def _shown(summary: Mapping[str, str]) -> list[str]:
    """A table's overview row as the markdown and the page show it: the mean with its sd."""
    mean, sd = summary["mean_abs_delta"], summary["mean_abs_delta_sd"]
    return [
        *(summary[c] for c in COLUMNS[:5]),
        f"{mean} ± {sd}" if sd else mean,
        summary["noise_floor"],
        summary["resampled"],
        summary["max_abs_delta"],
    ]


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


HEADERS = (
    "table", "cells", "computed", "printed", "compared",
    "mean |ours − paper| ± sd", "from noise alone", "over", "max",
)  # fmt: skip
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
        yield _row(_shown(s))
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
