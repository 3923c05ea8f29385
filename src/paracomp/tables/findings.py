"""A paper's findings: its claims (:mod:`paracomp.tables.claims`) checked on the paper's
printed numbers and on ours, twice: on the compare files' ``paper`` column (the printed
numbers: a claim that fails there is written wrongly) and on their ``ours`` column; with the
tables' replicates, their probability (:mod:`paracomp.tables.verdicts`) and the printed margin
against our noise (:mod:`paracomp.tables.margins`). Nothing here imports pandas.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from paracomp.tables.claims import Cell, Claim, verdict
from paracomp.tables.margins import COLUMNS as MARGIN_COLUMNS
from paracomp.tables.margins import margin_cell, margin_columns
from paracomp.tables.verdicts import (
    FAILS_AT,
    HOLDS_AT,
    VERDICTS,
    evaluate_replicates,
    probability_columns,
    read_cell_replicates,
)


def cell_value(text: str | None) -> float | None:
    """A compare file's ``ours`` or ``paper`` field as a number (None: empty or not a
    number)."""
    if text is None or text == "":
        return None
    try:
        value = float(text)
    except ValueError:
        return None
    return None if math.isnan(value) else value


def compare_values(compare: Mapping[str, Path]) -> dict[str, dict[Cell, Any]]:
    """Each compare file's cells as ``{"ours": {cell: value}, "paper": {…}}``, and under
    ``collapsed`` the seeds a cell over seed replicates left out (its note's words on them)."""
    from paracomp.tables.compare_file import read_compare

    found: dict[str, dict[Cell, Any]] = {"ours": {}, "paper": {}, "collapsed": {}}
    for table, path in compare.items():
        for row in read_compare(path):
            cell = (table, row["row"], row["column"], "")
            for side in ("ours", "paper"):
                found[side][cell] = cell_value(row.get(side))
            dropped = [p for p in (row.get("note") or "").split("; ") if " collapsed" in p]
            if dropped:
                found["collapsed"][cell] = "; ".join(dropped)
    return found


def findings(
    claims: Iterable[Claim],
    compare: Mapping[str, Path],
    replicates: Mapping[str, Path] | None = None,
) -> list[dict[str, str]]:
    """One row per claim: its quote and test, the verdict on the printed numbers (``paper``)
    and on ours (``holds``), and why (the values, or the cells without a number); with the
    tables' ``replicates`` files, its probability columns (:func:`probability_columns`) and its
    printed margin against our noise (:mod:`paracomp.tables.margins`)."""
    values = compare_values(compare)
    boot = read_cell_replicates(replicates or {})
    rows = []
    for claim in claims:
        paper, paper_why = verdict(claim, values["paper"], values["paper"])
        ours, why = verdict(claim, values["ours"], values["paper"])
        rows.append(
            {
                "claim": claim.id,
                "where": claim.where,
                "quote": claim.quote,
                "test": claim.test,
                "paper": paper,
                "holds": ours,
                **probability_columns(claim, values, boot),
                **margin_columns(claim.tree, claim.cells(), values, boot, evaluate_replicates),
                "why": why,
                "paper_values": paper_why,
            }
        )
    return rows


COLUMNS = (
    "claim", "where", "quote", "test", "paper", "holds", "p_holds", "verdict", "noise", "why",
    "paper_values", *MARGIN_COLUMNS,
)  # fmt: skip


def write_findings(rows: list[dict[str, str]], csv_path: Path, markdown: Path, title: str) -> None:
    """``findings.csv`` and its markdown rendering, atomically."""
    import csv

    from paracomp.atomic import atomic_path

    with atomic_path(csv_path) as tmp, open(tmp, "w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=COLUMNS)
        writer.writeheader()
        writer.writerows(rows)
    counts = {v: sum(r["holds"] == v for r in rows) for v in ("yes", "no", "not computable")}
    verdicts = {v: sum(r["verdict"] == v for r in rows) for v in VERDICTS}
    lines = [
        f"# {title}: findings",
        "",
        f"{len(rows)} claims: {counts['yes']} hold on our run, {counts['no']} do not,"
        f" {counts['not computable']} not computable.",
        "",
        "On the test-set bootstrap (P(holds) over the joint resamples): "
        + ", ".join(f"{n} {v}" for v, n in verdicts.items() if n)
        + f" (holds: P ≥ {HOLDS_AT}, fails: P ≤ {FAILS_AT}).",
        "",
        "| claim | where | quote | on the paper's numbers | on ours | P(holds) | verdict | why "
        "| printed margin resolvable by our noise |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        cells = [r["claim"], r["where"], r["quote"], r["paper"], r["holds"], r["p_holds"]]
        cells += [r["verdict"], r["why"] + (f" ({r['noise']})" if r["noise"] else "")]
        cells.append(margin_cell(r))
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    with atomic_path(markdown) as tmp:
        Path(tmp).write_text("\n".join(lines) + "\n", encoding="utf-8")
