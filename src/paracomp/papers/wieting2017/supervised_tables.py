"""Supervised Tables 5, 6 and 8 of Wieting & Gimpel (2017) from the supervised runs' records.

Each cell is the test Pearson r ×100 of the grid point (and epoch) with the best validation r;
its bootstrap replicates resample the test pairs the record keeps (the same split for every
run: paired). Table 5's printed body is missing from the paper's text we have (no paper column).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from paracomp.arguments import key_value_pairs
from paracomp.eval import bootstrap
from paracomp.papers.wieting2017.tables import (
    MISSING_BODY,
    PAPER,
    omitted_tables,
    run_lines,
)
from paracomp.papers.wieting2017.workflow import SUPERVISED_MODELS, SUPERVISED_REGS, SUPERVISED_RUNS
from paracomp.registry import printed_table
from paracomp.tables.build import Cell
from paracomp.tables.custom import render_custom
from paracomp.tables.printed import PrintedTable
from paracomp.tables.write import write_cell_replicates, write_outputs


def table5_printed() -> PrintedTable:
    """Table 5's layout as the text describes it (its printed body is missing): model ×
    regularisation rows, STS, SICK and their average."""
    caption = next(t["caption"] for t in omitted_tables() if t["table"] == "table5")
    rows = [f"{m}_{r}" for m in SUPERVISED_MODELS for r in SUPERVISED_REGS]
    labels = {f"{m}_{r}": f"{ml} / {rl}" for m, ml in SUPERVISED_MODELS.items()
              for r, rl in SUPERVISED_REGS.items()}  # fmt: skip
    return PrintedTable(
        paper=PAPER, key="table5", caption=caption, metric="pearson", scale=100, decimals=1,
        row_label="Model / Regularization", rows=rows, columns=["sts", "sick", "avg"],
        row_labels=labels, column_labels={"sts": "STS", "sick": "SICK", "avg": "Avg."},
        values={}, notes=[MISSING_BODY], column_decimals={},
    )  # fmt: skip


def load_records(records: Sequence[str]) -> dict[str, dict[str, list[dict]]]:
    """``run=record.json`` arguments -> run -> task -> records."""
    runs: dict[str, dict[str, list[dict]]] = {}
    for run, path in key_value_pairs(records):
        record = json.loads(Path(path).read_text())
        runs.setdefault(run, {}).setdefault(record["task"], []).append(record)
    return runs


def pick_supervised(records: Sequence[Mapping[str, Any]]) -> Mapping[str, Any]:
    """The record of the grid point with the best validation r (the first on ties)."""
    return max(sorted(records, key=lambda r: r["index"]), key=lambda r: r["dev_pearson"])


def supervised_replicates(
    cell: Cell, record: Mapping[str, Any], task: str, resampler: bootstrap.Resampler
) -> Cell:
    """``cell`` with its test Pearson ×100 on every resample of the task's test pairs (kept in
    the ``record``; the same split for every run: paired), or why none."""
    gold, pred = record.get("test_gold"), record.get("test_pred")
    if gold is None or pred is None:
        return dataclasses.replace(cell, noise="no interval: the record keeps no test pairs")
    key = f"wieting2017/supervised-{task}/test"
    noise = bootstrap.too_few(len(gold), key)
    if noise:
        return dataclasses.replace(cell, noise=noise)
    counts = resampler.counts(bootstrap.Sample.whole(key, len(gold)))
    boot = 100.0 * bootstrap.pearson(counts, np.asarray(pred), np.asarray(gold))
    return dataclasses.replace(cell, boot=boot, sets=(key,))


def supervised_cells(
    records: Mapping[str, Mapping[str, list[dict]]],
    printed: PrintedTable,
    run_of: Mapping[str, str],
    resampler: bootstrap.Resampler | None = None,
) -> dict[tuple[str, str], Cell]:
    """Test Pearson r ×100 of each row's run per task, the grid point picked by validation
    r, with its replicates; ``avg`` the mean of the two."""
    resampler = resampler or bootstrap.Resampler()
    cells: dict[tuple[str, str], Cell] = {}
    for row in printed.rows:
        run = run_of[row]
        for task in ("sts", "sick"):
            if task not in printed.columns:
                continue
            found = records.get(run, {}).get(task, [])
            if not found:
                why = f"supervised run {run} is not configured (papers.wieting2017.supervised)"
                cells[row, task] = Cell(None, "", why)
                continue
            best = pick_supervised(found)
            missing = best.get("missing_subsets") or []
            data = (
                f"run {run}, point {best['index']} of {len(found)} {json.dumps(best['point'])}, "
                f"picked by validation r {best['dev_pearson']:.2f} (epoch {best['epoch']}); "
                f"pairs train/dev/test {best['n']['train']}/{best['n']['dev']}/{best['n']['test']}"
                + (f"; initialised from {best['source']}" if "universal" in best["source"] else "")
            )
            note = f"absent STS subsets: {', '.join(missing)}" if missing else ""
            cells[row, task] = supervised_replicates(
                Cell(best["test_pearson"], data, note), best, task, resampler
            )
        if "avg" in printed.columns:
            pair = [cells[row, t] for t in ("sts", "sick")]
            both = [c.value for c in pair]
            if all(v is not None for v in both):
                boots = [c.boot for c in pair]
                cells[row, "avg"] = Cell(
                    sum(both) / 2, "mean of the STS and SICK cells", "",  # type: ignore[arg-type]
                    None if any(b is None for b in boots) else (boots[0] + boots[1]) / 2,
                    tuple(k for c in pair for k in c.sets),
                    next((c.noise for c in pair if c.noise), ""),
                )  # fmt: skip
            else:
                cells[row, "avg"] = Cell(None, "", "needs both the STS and the SICK cell")
    return cells


def supervised_setting_lines(setting: Mapping[str, Any]) -> list[str]:
    s = setting["supervised"]
    lines = [
        "Supervised: the 20 STS 2012-2015 subsets (the 19 available) pooled, each split by a "
        f"seeded permutation (seed {s['settings']['split_seed']}) into 40 % train, 10 % "
        "validation, 50 % test (the paper: 4,481 / 1,207 / 6,060 pairs); SICK's train / trial / "
        "test. Tai et al.'s head and KL loss (STS: K = 6 on gold + 1; SICK: K = 5), the test r "
        "of the point and epoch with the best validation r.",
        f"Initial word vectors: {setting['init']['embeddings']} ({setting['dim']}d); settings "
        f"{s['settings']}; grids {s['grids']}.",
    ]
    return lines + run_lines(s["runs"], "supervised run", setting.get("note"))


def write_supervised_table(
    table: str, records: Sequence[str], setting: Mapping[str, Any], out: Path
) -> None:
    found = load_records(records)
    printed = table5_printed() if table == "table5" else printed_table(PAPER, table)
    resampler = bootstrap.Resampler()
    cells = supervised_cells(found, printed, SUPERVISED_RUNS[table], resampler)
    extra = [f"Paper column: {MISSING_BODY}."] if table == "table5" else []
    lines = supervised_setting_lines(setting)
    wide, compare, markdown = render_custom(printed, cells, lines, extra, no_paper=MISSING_BODY)
    write_outputs(out, wide, compare, markdown)
    write_cell_replicates(out, cells, resampler)
