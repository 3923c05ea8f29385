"""One renderer for the tables a paper builds itself (its cells computed by its own code,
not by the generic table rule's columns of models): the wide table, its compare file and
the markdown, with the setting described by the paper's lines."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd

from paracomp.tables.build import (
    Cell,
    compare_table,
    empty_reasons,
    summary,
    titled_grid,
    wide_table,
)
from paracomp.tables.printed import PrintedTable


def _joined(*parts: str) -> str:
    return "; ".join(p for p in parts if p)


def render_custom(
    printed: PrintedTable,
    cells: dict[tuple[str, str], Cell],
    setting: Sequence[str],
    extra: Sequence[str] = (),
    *,
    row_notes: Mapping[str, str] | None = None,
    uncompared: Mapping[str, str] | None = None,
    no_deltas: bool = False,
    no_paper: str | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame, str]:
    """The wide table, its compare file and markdown (title, caption, the table with its
    intervals, the summary, the ``setting`` lines, ``extra`` and the empty cells' reasons).

    ``row_notes``: row -> how its setting differs from the paper's, before each computed
    cell's note; ``uncompared``: column -> why its cells get no delta; ``no_deltas``: no cell
    gets one (our inputs are not the paper's); ``no_paper``: why a table without printed
    values has no paper column, in every note.
    """
    wide = wide_table(printed, cells)
    compare = compare_table(printed, cells, {})
    if no_deltas:
        compare["delta"] = None
    for column, why in (uncompared or {}).items():
        where = (compare["column"] == column) & compare["paper"].notna() & compare["ours"].notna()
        compare.loc[where, ["delta", "printed_inside"]] = None, ""
        compare.loc[where, "note"] = [_joined(why, n) for n in compare.loc[where, "note"]]
    if row_notes:
        notes = compare["row"].map(row_notes).fillna("")
        computed = compare["ours"].notna() & notes.astype(bool)
        joined = [_joined(r, n) for r, n in zip(notes, compare["note"], strict=True)]
        compare["note"] = compare["note"].where(~computed, joined)
    if no_paper and not printed.values:
        compare["note"] = compare["note"].map(lambda n: _joined(no_paper, n))
    lines = [
        *titled_grid(
            f"{printed.paper} {printed.key}", printed.caption, wide_table(printed, cells, True)
        ),
        summary(compare),
        "",
        *setting,
        *extra,
        *empty_reasons(compare),
    ]
    return wide, compare, "\n".join(lines) + "\n"
