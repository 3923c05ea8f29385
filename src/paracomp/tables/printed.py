"""The numbers printed in each paper's tables, used only for the comparison column."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from paracomp.yamltext import safe_load


@dataclass(frozen=True)
class PrintedTable:
    """A table as printed: keys, labels, rounding and values (None where blank)."""

    paper: str
    key: str
    caption: str
    metric: str
    scale: float
    decimals: int
    row_label: str
    rows: list[str]
    columns: list[str]
    row_labels: dict[str, str]
    column_labels: dict[str, str]
    values: dict[str, dict[str, Any]]
    notes: list[str]
    column_decimals: dict[str, int]

    def decimals_of(self, column: str) -> int:
        return self.column_decimals.get(column, self.decimals)

    def row_label_of(self, row: str) -> str:
        return self.row_labels.get(row, row)

    def column_label_of(self, column: str) -> str:
        return self.column_labels.get(column, column)

    def value(self, row: str, column: str) -> Any:
        return self.values.get(row, {}).get(column)


def parse_printed(paper: str, text: str) -> dict[str, PrintedTable]:
    """Every printed table of ``paper`` from its YAML ``text``, keyed ``table3`` etc."""
    raw = safe_load(text)
    return {
        key: PrintedTable(
            paper=paper,
            key=key,
            caption=spec.get("caption", ""),
            metric=spec.get("metric", ""),
            scale=spec.get("scale", 1),
            decimals=spec.get("decimals", 2),
            row_label=spec.get("row_label", ""),
            rows=[str(r) for r in spec["rows"]],
            columns=[str(c) for c in spec["columns"]],
            row_labels={str(k): v for k, v in (spec.get("row_labels") or {}).items()},
            column_labels={str(k): v for k, v in (spec.get("column_labels") or {}).items()},
            values={
                str(r): {str(c): v for c, v in (cols or {}).items()}
                for r, cols in (spec.get("values") or {}).items()
            },
            notes=list(spec.get("notes") or []),
            column_decimals={str(k): v for k, v in (spec.get("column_decimals") or {}).items()},
        )
        for key, spec in raw["tables"].items()
    }
