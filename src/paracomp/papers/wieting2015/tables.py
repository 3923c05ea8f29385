"""Tables 1–9 of Wieting et al. (2015) from the selected runs, the scores and the data:
which module builds each table, and the writing of its files.

Every cell is computed or empty with its reason. Values are Spearman's ρ (Tables 3, 5, 6),
accuracy (4), mean absolute error on the gold scale (7), scores (8) and percent change of
absolute error (9): Tables 3 and 4 in :mod:`~paracomp.papers.wieting2015.word_tables`, 5 and 6
in :mod:`~paracomp.papers.wieting2015.phrase_tables`, 7-9 in
:mod:`~paracomp.papers.wieting2015.error_tables`. The significance marks are Steiger's
one-tailed test at p < 0.05 (:func:`~paracomp.papers.wieting2015.table_cells.steiger_marks`)
against the baselines the paper names; a mark whose baseline is not computed here is left out
of the table and said so, and every test's p-value is in the cell's note of the compare file.
The wide table appends our marks to the numbers, as the paper prints them. Every computed cell
but Table 8's carries test-set bootstrap replicates (every row on the same resamples of the
set's items), written beside the table.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from paracomp.papers.wieting2015.error_tables import table7, table8, table9
from paracomp.papers.wieting2015.phrase_tables import table5, table6
from paracomp.papers.wieting2015.table_cells import PAPER, RESAMPLER, Built, Sources, empty
from paracomp.papers.wieting2015.word_tables import table3, table4
from paracomp.registry import printed_table
from paracomp.tables.build import Cell, compare_table, markdown, wide_table, with_intervals
from paracomp.tables.printed import PrintedTable
from paracomp.tables.write import write_cell_replicates, write_outputs

# -- writing -----------------------------------------------------------------------------------


def _scaled(built: Built, printed: PrintedTable, text_columns: Sequence[str] = ()) -> None:
    """Scale numeric cells by the printed table's scale (values are fractions)."""
    if printed.scale == 1:
        return
    for key, cell in built.cells.items():
        if isinstance(cell.value, (int, float)) and key[1] not in text_columns:
            built.cells[key] = cell.scaled(printed.scale)


def render(
    printed: PrintedTable, built: Built, columns: Mapping[str, Any], setting: str
) -> tuple[pd.DataFrame, pd.DataFrame, str]:
    """The wide table (our marks after the numbers), the compare file and the markdown."""
    for row in printed.rows:
        for column in printed.columns:
            reason = columns.get(column, {}).get("reason", "not computed")
            built.cells.setdefault((row, column), Cell(None, "", reason))
    wide = wide_table(printed, built.cells)
    for (row, column), mark in built.marks.items():
        if mark:
            i = printed.rows.index(row)
            label = printed.column_label_of(column)
            wide.loc[i, label] = f"{wide.loc[i, label]}{mark}"
    compare = compare_table(printed, built.cells, dict(columns))
    empty = [(r, c) for (r, c), cell in built.cells.items() if cell.value is None]
    for row, column in empty:  # the column's note is about how its computed cells were made
        hit = (compare["row"] == row) & (compare["column"] == column)
        compare.loc[hit, "note"] = built.cells[row, column].reason
    for (row, column), mark in built.marks.items():
        hit = (compare["row"] == row) & (compare["column"] == column)
        printed_mark = _printed_mark(printed, row, column)
        compare.loc[hit, "note"] = compare.loc[hit, "note"].map(
            lambda n, m=mark, p=printed_mark: f"{n}; marks ours '{m}', paper '{p}'"
        )
    described = {  # the generic markdown calls `stat` columns training-set statistics
        c: {
            "model": "computed by rules/papers/wieting2015.smk",
            **({"note": s["note"]} if "note" in s else {}),
        }
        if s.get("stat")
        else s
        for c, s in columns.items()
    }
    text = markdown(
        printed, with_intervals(wide, printed, built.cells), compare, described, setting
    )
    if built.notes:
        text += "\nNotes:\n" + "".join(f"- {n}\n" for n in built.notes)
    return wide, compare, text


def _printed_mark(printed: PrintedTable, row: str, column: str) -> str:
    shown = _PRINTED.get(printed.key, {}).get(row, {}).get(column)
    return "" if shown is None else "".join(c for c in str(shown) if c in "*†‡")


def _printed_marks() -> dict[str, dict[str, dict[str, str]]]:
    from paracomp.registry import resource
    from paracomp.yamltext import safe_load

    raw = safe_load(resource(PAPER, "printed.yaml").read_text())
    return {k: v.get("printed", {}) for k, v in raw["tables"].items()}


_PRINTED = _printed_marks()


def build_tables(
    table: str,
    src: Sources,
    spec: Mapping[str, Any],
    setting: Mapping[str, Any],
    unavailable: Sequence[str],
) -> list[tuple[PrintedTable, Built]]:
    """The printed table(s) of ``table`` (Table 9 is two) with their cells."""
    columns = spec.get("columns", {})
    keys = ["table9_length", "table9_overlap"] if table == "table9" else [table]
    printed = [printed_table(PAPER, k) for k in keys]
    computed = any(c.get("stat") for c in columns.values())
    if unavailable or not computed:
        return [(p, empty(p, columns, unavailable)) for p in printed]
    if table == "table3":
        built = [table3(src, columns)]
    elif table == "table4":
        built = [table4(src, columns, printed[0].scale)]
    elif table == "table5":
        built = [table5(src, columns, setting["ml"])]
    elif table == "table6":
        built = [table6(src, columns)]
    elif table == "table7":
        built = [table7(src, columns, setting["mapping"])]
    elif table == "table8":
        built = [table8(src, columns, printed[0], setting["mapping"])]
    else:
        blocks = table9(src, setting["mapping"])
        built = [blocks[p.key] for p in printed]
        for p, b in zip(printed, built, strict=True):
            _scaled(b, p)
    return list(zip(printed, built, strict=True))


def _setting_text(setting: Mapping[str, Any]) -> str:
    init = setting["init"]
    return (
        f"initial vectors {init['embeddings']} ({init['size']:,} most frequent words, "
        f"{init['dim']}d); lexical pairs from {setting['lexical']}; words: "
        f"{setting['words']['epochs']} epochs over {json.dumps(setting['words']['grid'])}; "
        f"RNN: {setting['rnn']['epochs']} epochs over {json.dumps(setting['rnn']['grid'])}"
    )


def write_table(
    table: str,
    src: Sources,
    spec: Mapping[str, Any],
    setting: Mapping[str, Any],
    unavailable: Sequence[str],
    out: Path,
) -> None:
    """Write ``tableN.csv``, ``.compare.csv`` and ``.md``; Table 9's two printed blocks go
    into the same files, told apart by a ``block`` column (wide: ``bin 1``–``bin 3`` and the
    block's ``bins``) and a ``length:`` or ``overlap:`` row prefix (compare)."""
    columns, text = spec.get("columns", {}), _setting_text(setting)
    built = build_tables(table, src, spec, setting, unavailable)
    parts = [render(printed, cells, columns, text) for printed, cells in built]
    merged = {
        (f"{p.key.removeprefix('table9_')}:{r}" if len(built) > 1 else r, c): cell
        for p, b in built
        for (r, c), cell in b.cells.items()
    }
    write_cell_replicates(out, merged, RESAMPLER)
    if len(parts) == 1:
        write_outputs(out, *parts[0])
        return
    wides, compares = [], []
    for (printed, _), (wide, table_compare, _) in zip(built, parts, strict=True):
        block = printed.key.removeprefix("table9_")
        names = ["row", *(f"bin {i + 1}" for i in range(len(wide.columns) - 1))]
        bins = " | ".join(wide.columns[1:])
        wide = wide.set_axis(names, axis=1).assign(block=block, bins=bins)
        wides.append(wide[["block", *names, "bins"]])
        compares.append(table_compare.assign(row=block + ":" + table_compare["row"]))
    markdown_text = "\n".join(part[2] for part in parts)
    write_outputs(out, pd.concat(wides, ignore_index=True), pd.concat(compares), markdown_text)
