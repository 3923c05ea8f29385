"""Build a results table, its long-form comparison with the paper and a markdown rendering.

A computed cell carries its bootstrap replicates (:mod:`paracomp.eval.bootstrap`: every
subset it reads resampled with its test set's shared resamples, then aggregated as the cell
is); the compare file gives their 95% percentile interval (``ci_low``, ``ci_high``), ``sd``
(the standard deviation over seed replicates: empty with one seed), ``replicates`` (seeds) and
``printed_inside`` (whether the printed number lies in the interval), the markdown ``61.8
±1.1`` (half the interval's width). A column whose run has seed replicates is their mean
(:mod:`paracomp.tables.seeds`), its replicates combining seeds and test pairs.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import numpy as np
import pandas as pd

from paracomp.eval import aggregate, bootstrap
from paracomp.tables.layout import GroupRef, LeafRef, leaf_refs
from paracomp.tables.printed import PrintedTable
from paracomp.tables.seeds import combine

COMPARE_COLUMNS = [
    "row", "column", "ours", "paper", "delta", "ci_low", "ci_high", "sd", "replicates",
    "printed_inside", "data", "note",
]  # fmt: skip


@dataclass
class ModelEval:
    """A model's evaluation outputs: per-subset metrics and per-pair predictions."""

    metrics: pd.DataFrame
    pairs: pd.DataFrame

    @classmethod
    def load(cls, folder: Path) -> ModelEval:
        return cls(pd.read_csv(folder / "sts.csv"), pd.read_parquet(folder / "pairs.parquet"))

    @cached_property
    def subsets(self) -> dict[tuple[str, str, str], pd.DataFrame]:
        """The pairs of each ``(dataset, subset, split)``, grouped once."""
        keys = ["dataset", "subset", "split"]
        return {tuple(map(str, k)): g for k, g in self.pairs.groupby(keys, sort=False)}


@dataclass(frozen=True)
class Cell:
    """A cell's value with the data it read, or why it is empty; a computed one its bootstrap
    replicates (``boot``, on the cell's scale) and the test sets they resample (``sets``),
    or ``noise``: why it has none. A cell over seed replicates also has ``sd``, the kept
    seeds' ``seeds`` values and ``test``, one seed's test-pair replicates."""

    value: float | None
    data: str
    reason: str = ""
    boot: np.ndarray | None = None
    sets: tuple[str, ...] = ()
    noise: str = ""
    sd: float | None = None
    seeds: tuple[float, ...] = ()
    test: np.ndarray | None = None

    def scaled(self, scale: float) -> Cell:
        """The cell with its value, sd and replicates × ``scale``."""
        return Cell(
            None if self.value is None else self.value * scale,
            self.data,
            self.reason,
            None if self.boot is None else self.boot * scale,
            self.sets,
            self.noise,
            None if self.sd is None else self.sd * scale,
            tuple(v * scale for v in self.seeds),
            None if self.test is None else self.test * scale,
        )

    @property
    def replicates(self) -> int:
        """The seeds the value is a mean of (1 without replicates)."""
        return len(self.seeds) or 1


def _leaf(ev: ModelEval, ref: LeafRef, metric: str) -> tuple[aggregate.Leaf | None, str]:
    m = ev.metrics
    rows = m[(m["dataset"] == ref.set) & m["subset"].isin([ref.subset, "*"])]
    scored = rows[(rows["n"] > 0) & (rows["subset"] == ref.subset)]
    if ref.split is not None:
        scored = scored[scored["split"] == ref.split]
    if scored.empty:
        notes = [str(n) for n in rows["note"].dropna() if str(n)]
        return None, notes[0] if notes else f"{ref.set}/{ref.subset} was not evaluated"
    row = scored.iloc[0]
    sel = ev.subsets.get((ref.set, ref.subset, str(row["split"])), ev.pairs.iloc[:0])
    kept = ~sel["dropped"].to_numpy(bool)
    key = f"{ref.set}/{ref.subset}/{row['split']}"
    sample = bootstrap.Sample(key, len(sel), np.flatnonzero(kept))
    sel = sel[kept]
    leaf = aggregate.Leaf(
        float(row[metric]), int(row["n"]), sel["gold"].to_numpy(), sel["pred"].to_numpy(), sample
    )
    source = (
        row["source"]
        if pd.isna(row["note"]) or not row["note"]
        else f"{row['source']}: {row['note']}"
    )
    return leaf, (
        f"{ref.set}/{ref.subset} ({row['split']}, {source}): "
        f"{int(row['n'])} pairs, {int(row['n_oov'])} with OOV words"
    )


def _node(ev: ModelEval, ref: LeafRef | GroupRef, metric: str):
    """Aggregation node for a ref, or (None, reason) when some subset under it is missing."""
    if isinstance(ref, LeafRef):
        return _leaf(ev, ref, metric)
    members, missing = [], []
    for member in ref.members:
        node, desc = _node(ev, member, metric)
        if node is None:
            missing.append(f"{member.name}: {desc}")
        else:
            members.append(node)
    if missing:
        return None, "; ".join(missing)
    leaves = aggregate.leaves(aggregate.Group(tuple(members)))
    n = sum(leaf.n for leaf in leaves)
    names = ", ".join(leaf.name for leaf in leaf_refs(ref))
    sources = ", ".join(sorted(_sources(ev, ref)))
    return aggregate.Group(tuple(members)), f"{len(leaves)} subsets ({names}; {sources}), {n} pairs"


def _sources(ev: ModelEval, ref: LeafRef | GroupRef) -> set[str]:
    m = ev.metrics
    return {
        str(src)
        for leaf in leaf_refs(ref)
        for src in m[(m["dataset"] == leaf.set) & (m["subset"] == leaf.subset)]["source"].dropna()
    }


def compute_cell(
    ev: ModelEval,
    ref: LeafRef | GroupRef,
    metric: str,
    mode: str,
    resampler: bootstrap.Resampler | None = None,
) -> Cell:
    """The value of one cell, with the data it was computed on or why it is empty, and its
    bootstrap replicates on ``resampler``'s resamples (none without one)."""
    node, desc = _node(ev, ref, metric)
    if node is None:
        return Cell(None, "", desc)
    value = aggregate.value(node, mode, metric)
    if isinstance(ref, GroupRef):
        desc = f"{mode} over {desc}"
    if math.isnan(value):
        return Cell(None, desc, "correlation undefined")
    sets = tuple(leaf.sample.key for leaf in aggregate.leaves(node) if leaf.sample is not None)
    noise = aggregate.no_interval(node) if resampler is not None else "no interval computed"
    if noise:
        return Cell(value, desc, sets=sets, noise=noise)
    boot = aggregate.replicates(node, mode, metric, resampler)  # type: ignore[arg-type]
    return Cell(value, desc, boot=boot, sets=sets)


STAT_NOISE = (
    "no interval: {stat} is read from the statistics file (counts and sizes of the training "
    "data; a score there keeps no per-pair predictions), not computed from resampled test pairs"
)


def seed_cell(
    model: str,
    seeds: dict[int, ModelEval],
    ref: LeafRef | GroupRef,
    metric: str,
    mode: str,
    resampler: bootstrap.Resampler,
) -> Cell:
    """The cell of ``model`` over its seed replicates (seed -> evaluation): their mean and sd,
    replicates combining seeds and test pairs, collapsed seeds named (:mod:`paracomp.tables.seeds`)."""
    each = [compute_cell(ev, ref, metric, mode, resampler) for ev in seeds.values()]
    return over_seeds(model, dict(zip(seeds, each, strict=True)))


def over_seeds(model: str, each: Mapping[int, Cell], scale: float = 1.0) -> Cell:
    """The cell of ``model`` over its seeds' cells (seed -> cell, on ``scale`` × a
    correlation's scale): their mean and sd, replicates combining seeds and test pairs,
    collapsed seeds named (:mod:`paracomp.tables.seeds`); the first seed's data and noise. A
    cell whose data are missing whatever the seed is the first seed's."""
    cells = [c.scaled(1.0 / scale) for c in each.values()]
    if all(c.value is None for c in cells):
        return next(iter(each.values()))
    found = combine(
        model, list(each), [c.value for c in cells], [c.boot for c in cells],
        [c.reason if c.value is None else "" for c in cells],
    )  # fmt: skip
    first = next((c for c in cells if c.value is not None), cells[0])
    if found.value is None:
        return Cell(None, first.data, found.note)
    noise = next((c.noise for c in cells if c.noise), "")
    return Cell(
        found.value, first.data, found.note, found.boot, first.sets, noise, found.sd,
        found.values, found.test,
    ).scaled(scale)  # fmt: skip


Key = tuple[str, str]
"""A cell's (row, column)."""


def cells_over_seeds(
    paper: str,
    cells: Mapping[Key, Cell],
    model_of: Callable[[Key], str],
    each: Mapping[str, Mapping[int, Mapping[Key, Cell]]],
    scale: float = 1.0,
    finish: Callable[[Cell, Mapping[int, Cell]], Cell] | None = None,
) -> dict[Key, Cell]:
    """``cells`` with every cell of a model of ``each`` (model -> seed -> the table's cells as
    that seed's replicate makes them, every seed) over its seeds (:func:`over_seeds`, the
    seed draws keyed ``<paper>/<model>``); ``model_of``: the model a cell reads; ``finish``:
    applied to each such cell with its seeds' cells."""
    out = dict(cells)
    for model, by_seed in each.items():
        for key in cells:
            if model_of(key) != model:
                continue
            per = {seed: found[key] for seed, found in by_seed.items()}
            cell = over_seeds(f"{paper}/{model}", per, scale)
            out[key] = finish(cell, per) if finish else cell
    return out


def _stat_cell(stats: dict | None, row: str, stat: str) -> Cell:
    if stats is None or row not in stats["rows"]:
        return Cell(None, "", f"no statistics for row {row!r}")
    value, data = stats["rows"][row].get(stat), stats["data"].get(row, "")
    if value is None:
        return Cell(None, "", data or "no value")
    return Cell(value, data, noise=STAT_NOISE.format(stat=stat))


def build(
    printed: PrintedTable,
    refs: dict[str, LeafRef | GroupRef],
    columns: dict[str, dict],
    aggregation: str,
    evals: dict[str, ModelEval],
    stats: dict | None = None,
    resampler: bootstrap.Resampler | None = None,
    seeds: dict[str, dict[int, ModelEval]] | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame, str]:
    """The table in the paper's layout, its comparison file and a markdown rendering
    (:func:`build_cells`, then :func:`render`)."""
    cells = build_cells(printed, refs, columns, aggregation, evals, stats, resampler, seeds)
    return render(printed, cells, columns, aggregation)


def render(
    printed: PrintedTable, cells: dict[tuple[str, str], Cell], columns: dict, aggregation: str
) -> tuple[pd.DataFrame, pd.DataFrame, str]:
    """The table, its comparison file and its markdown from computed ``cells``."""
    wide = wide_table(printed, cells)
    compare = compare_table(printed, cells, columns)
    described = f"group rows aggregated by `{aggregation}`"
    shown = wide_table(printed, cells, intervals=True)
    return wide, compare, markdown(printed, shown, compare, columns, described)


def build_cells(
    printed: PrintedTable,
    refs: dict[str, LeafRef | GroupRef],
    columns: dict[str, dict],
    aggregation: str,
    evals: dict[str, ModelEval],
    stats: dict | None = None,
    resampler: bootstrap.Resampler | None = None,
    seeds: dict[str, dict[int, ModelEval]] | None = None,
) -> dict[tuple[str, str], Cell]:
    """Every cell of the table in the paper's layout, keyed ``(row, column)``.

    A column is computed from a model's evaluation (``model``; with its bootstrap replicates
    on ``resampler``, a fresh default one if None; a model in ``seeds`` over its seed
    replicates' evaluations, :func:`seed_cell`), read from a statistics file (``stat``: the
    key in ``stats["rows"][row]``), or left empty with its ``reason``.
    """
    seeds = seeds or {}
    resampler = resampler or bootstrap.Resampler()
    metric = printed.metric if printed.metric in ("pearson", "spearman") else "pearson"
    cells: dict[tuple[str, str], Cell] = {}
    for column in printed.columns:
        spec = columns.get(column, {"model": None, "reason": "column not configured"})
        for row in printed.rows:
            if spec.get("stat"):
                cells[row, column] = _stat_cell(stats, row, spec["stat"])
            elif not spec.get("model"):
                cells[row, column] = Cell(None, "", spec.get("reason", ""))
            elif row not in refs:
                cells[row, column] = Cell(None, "", f"row {row!r} is not an evaluation row")
            else:
                model, ref = spec["model"], refs[row]
                cell = (
                    seed_cell(model, seeds[model], ref, metric, aggregation, resampler)
                    if model in seeds
                    else compute_cell(evals[model], ref, metric, aggregation, resampler)
                )
                cells[row, column] = cell.scaled(printed.scale)
    return cells


def _fmt(value: float | str | None, decimals: int) -> str:
    if value is None or isinstance(value, str):
        return value or ""
    return f"{value:.{decimals}f}"


def cell_interval(cell: Cell) -> tuple[float, float] | None:
    """The 95% percentile interval of a cell's replicates (None without replicates, or when
    none is finite)."""
    if cell.boot is None:
        return None
    low, high = bootstrap.interval(cell.boot)
    return None if math.isnan(low) else (low, high)


def _half_width(cell: Cell, decimals: int) -> str:
    """`` ±h``, h half the width of the cell's 95% interval ("" without one)."""
    found = cell_interval(cell) if isinstance(cell.value, (int, float)) else None
    return f" ±{(found[1] - found[0]) / 2:.{decimals}f}" if found else ""


def _shown(cell: Cell, decimals: int, intervals: bool) -> str:
    return _fmt(cell.value, decimals) + (_half_width(cell, decimals) if intervals else "")


def with_intervals(
    wide: pd.DataFrame, printed: PrintedTable, cells: dict[tuple[str, str], Cell]
) -> pd.DataFrame:
    """``wide`` (:func:`wide_table`'s layout, its texts as they are, e.g. with marks) with
    `` ±h`` after each cell that has replicates."""
    shown = wide.copy()
    for column in printed.columns:
        label, decimals = printed.column_label_of(column), printed.decimals_of(column)
        for i, row in enumerate(printed.rows):
            shown.loc[i, label] = (
                f"{shown.loc[i, label]}{_half_width(cells[row, column], decimals)}"
            )
    return shown


def wide_table(
    printed: PrintedTable, cells: dict[tuple[str, str], Cell], intervals: bool = False
) -> pd.DataFrame:
    """The table in the paper's layout; with ``intervals``, a cell with replicates shows
    ``value ±h``, h half the width of its 95% interval."""
    data = {printed.row_label or "row": [printed.row_label_of(r) for r in printed.rows]}
    for column in printed.columns:
        decimals = printed.decimals_of(column)
        data[printed.column_label_of(column)] = [
            _shown(cells[r, column], decimals, intervals) for r in printed.rows
        ]
    return pd.DataFrame(data)


def replicate_table(
    cells: dict[tuple[str, str], Cell],
) -> tuple[dict[str, np.ndarray], dict, dict[str, list[float]], dict[str, np.ndarray]]:
    """The replicates of every cell that has them, keyed ``row|column``; per key the test
    sets they resample; and of the cells over seeds, the seeds' values and one seed's
    test-pair replicates."""
    found = {f"{r}|{c}": cell for (r, c), cell in cells.items() if cell.boot is not None}
    seeded = {k: c for k, c in found.items() if c.test is not None}
    return (
        {k: c.boot for k, c in found.items()},  # type: ignore[misc]
        {k: list(c.sets) for k, c in found.items()},
        {k: list(c.seeds) for k, c in seeded.items()},
        {k: c.test for k, c in seeded.items()},  # type: ignore[misc]
    )


def compare_table(
    printed: PrintedTable, cells: dict[tuple[str, str], Cell], columns: dict
) -> pd.DataFrame:
    records = []
    for row in printed.rows:
        for column in printed.columns:
            cell = cells[row, column]
            paper = printed.value(row, column)
            decimals = printed.decimals_of(column)
            numeric_ours = isinstance(cell.value, (int, float))
            ours = round(cell.value, decimals) if numeric_ours else cell.value
            numeric = isinstance(paper, (int, float)) and numeric_ours
            found = cell_interval(cell) if numeric_ours else None
            low, high = (
                (round(found[0], decimals), round(found[1], decimals)) if found else (None, None)
            )
            inside = (
                "" if found is None or not numeric else ("yes" if low <= paper <= high else "no")
            )
            parts = (columns.get(column, {}).get("note", ""), cell.reason, cell.noise)
            records.append(
                {
                    "row": row,
                    "column": column,
                    "ours": ours,
                    "paper": paper,
                    "delta": round(ours - paper, decimals + 1) if numeric else None,
                    "ci_low": low,
                    "ci_high": high,
                    "sd": round(cell.sd, decimals + 1)
                    if numeric_ours and cell.sd is not None
                    else None,
                    "replicates": cell.replicates if numeric_ours else None,
                    "printed_inside": inside,
                    "data": cell.data,
                    "note": "; ".join(x for x in parts if x),
                }
            )
    return pd.DataFrame(records, columns=COMPARE_COLUMNS)


def summary(compare: pd.DataFrame) -> str:
    """How many cells are computed, and the mean |ours − paper| over the comparable ones."""
    numeric = compare.dropna(subset=["delta"])
    mad = float(np.abs(numeric["delta"]).mean()) if len(numeric) else float("nan")
    return (
        f"Computed cells: {int(compare['ours'].notna().sum())} of {len(compare)}; "
        f"mean |ours - paper| over {len(numeric)} comparable cells: {mad:.3f}."
    )


def empty_reasons(compare: pd.DataFrame) -> list[str]:
    """Markdown lines listing the empty cells with a reason, grouped by reason ("" if none)."""
    empty = compare[compare["ours"].isna() & compare["note"].astype(bool)]
    reasons: dict[str, list[str]] = {}
    for r in empty.itertuples():
        reasons.setdefault(r.note, []).append(f"{r.row}/{r.column}")
    if not reasons:
        return []
    return ["", "Empty cells:", *(f"- {', '.join(where)}: {why}" for why, where in reasons.items())]


def titled_grid(title: str, caption: str, frame: pd.DataFrame) -> list[str]:
    """Markdown lines: ``# title``, the caption and ``frame`` as a pipe table, then a blank."""
    header = "| " + " | ".join(str(c) for c in frame.columns) + " |"
    body = ["| " + " | ".join(str(v) for v in row) + " |" for row in frame.itertuples(index=False)]
    return [f"# {title}", "", caption, "", header, "|" + "---|" * len(frame.columns), *body, ""]


def markdown(
    printed: PrintedTable,
    wide: pd.DataFrame,
    compare: pd.DataFrame,
    columns: dict,
    method: str,
) -> str:
    """The table as markdown with its caption, summary, columns and empty cells' reasons;
    ``method`` says how cells were computed (e.g. how group rows aggregate)."""
    lines = [
        *titled_grid(f"{printed.paper} {printed.key}", printed.caption, wide),
        f"Cells: {printed.metric}; {method}.",
        summary(compare),
        "",
        "Columns:",
    ]
    for column in printed.columns:
        spec = columns.get(column, {})
        if spec.get("stat"):
            what = f"statistic `{spec['stat']}` of the training sets"
        elif spec.get("model"):
            what = f"model `{spec['model']}`"
        elif spec.get("embeddings"):
            what = f"`{spec['embeddings']}`, {spec.get('variant', '')}".rstrip(", ")
        else:
            what = f"empty: {spec.get('reason', 'not configured')}"
        extra = f" ({spec['note']})" if spec.get("note") else ""
        lines.append(f"- {printed.column_label_of(column)}: {what}{extra}")
    reasons = compare[(compare["ours"].isna()) & compare["note"].astype(bool)]
    per_column = {
        c: s for c, s in columns.items() if s.get("model") or s.get("stat") or s.get("embeddings")
    }
    missing = reasons[reasons["column"].isin(per_column)]
    if len(missing):
        lines += ["", "Empty cells of computed columns:"]
        lines += [f"- {r.row} / {r.column}: {r.note}" for r in missing.itertuples()]
    return "\n".join(lines) + "\n"
