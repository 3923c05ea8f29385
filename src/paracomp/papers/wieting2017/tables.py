"""Tables 1-4 and 7 of Wieting & Gimpel (2017) from the scored grid points of each run.

Every cell is computed or empty with its reason. Tables 1-3: the mean Pearson r ×100 over the
22 transfer subsets of the point a selection picks (:mod:`paracomp.papers.wieting2017.transfer`;
Table 1 and the "2016 STS" columns: by the STS 2016 mean, "Oracle": by the 22-set mean
itself). Table 4: per-subset r of AVG, LSTMAVG and GRAN picked by STS 2016 (its printed body is
missing from the paper's text we have: no paper column). Table 7: the error examples, by the
rule of the paper's §5.1 (see :func:`table7`). A cell of Tables 1-4 carries its test-set
bootstrap replicates from the picked point's ``pairs.parquet`` (:mod:`paracomp.tables.intervals`;
the point's selection is not redone on each resample). Tables 5, 6 and 8:
:mod:`paracomp.papers.wieting2017.supervised_tables`; 9-11: :mod:`paracomp.papers.wieting2017.gates`.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from paracomp.arguments import key_value_pairs
from paracomp.eval import bootstrap
from paracomp.papers.wieting2017.seeds import Build, load_seed_points, seeded_cells, seeds_line
from paracomp.papers.wieting2017.transfer import (
    SELECTION_SUBSETS,
    STS_SUBSETS,
    TRANSFER_SUBSETS,
    PointScores,
    select,
)
from paracomp.papers.wieting2017.workflow import TABLE_RUNS
from paracomp.registry import printed_table
from paracomp.tables.build import Cell
from paracomp.tables.custom import render_custom
from paracomp.tables.intervals import mean_replicates, read_pairs
from paracomp.tables.printed import PrintedTable
from paracomp.tables.write import write_cell_replicates, write_outputs

PAPER = "wieting2017"
MISSING_BODY = (
    "the printed body of this table is missing from the paper's text we have (TEI): no paper value"
)
CRITERION_LABELS = {"oracle": "Oracle (22-set mean)", "sts2016": "2016 STS (5-set mean)"}


TRAINING_DATA: dict[str, str] = {}
"""run -> what it trained on (from the setting, :func:`write_transfer_table`)."""


def load_points(points: Sequence[str]) -> dict[str, list[PointScores]]:
    """``run=folder`` arguments -> each run's scored points."""
    runs: dict[str, list[PointScores]] = {}
    for run, folder in key_value_pairs(points):
        runs.setdefault(run, []).append(PointScores.load(run, Path(folder)))
    return runs


COLLAPSE_DOC = "src/paracomp/papers/wieting2017/README.md, the collapsed runs"
COLLAPSED = (
    "collapsed: the picked point's training loss ended at {loss:.3f}, Eq. 2's 2δ when every "
    "sentence has the same vector; the authors' code (jwieting/acl2017) collapses the same way "
    f"on these pairs ({COLLAPSE_DOC})"
)


GRAN5_READOUT = (
    "Readout: GRAN-3, -4 and -5 give a_t at the last token, as the authors' code does "
    "(SliceLayer(-1), composer gran5); the paper ('can be reduced to either word-averaging or "
    "averaging LSTM states') implies the mean over t for GRAN-5, composer gran5_mean "
    "(papers.wieting2017.composers: {{gran5: gran5_mean}}). GRAN-5 here: composer {composer}."
)


def below_initial(
    cells: dict[tuple[str, str], Cell], scores: pd.DataFrame, name: str
) -> tuple[dict[tuple[str, str], Cell], str]:
    """The cells with a note where they score below the untrained baseline (the initial
    vectors averaged, per-subset ``scores``), and the markdown line that reports it."""
    floor = PointScores.from_frame("initial", 0, {}, scores).mean(TRANSFER_SUBSETS)
    if floor is None:
        return cells, f"Untrained baseline ({name} averaged): no subset scored."
    note = f"below the initial vectors averaged ({floor:.1f}; why: {COLLAPSE_DOC})"
    out, below = {}, 0
    for key, cell in cells.items():
        if cell.value is not None and cell.value < floor:
            below += 1
            cell = dataclasses.replace(cell, reason="; ".join(filter(None, (note, cell.reason))))
        out[key] = cell
    line = (
        f"Untrained baseline: the initial vectors ({name}) averaged score {floor:.1f} (the "
        f"22-set mean, words without a vector skipped); {below} of the computed cells are "
        "below it, each noted."
    )
    return out, line


def _not_configured(run: str) -> str:
    return f"run {run} is not configured (papers.wieting2017.transfer)"


def describe_point(point: PointScores, criterion: str, n_points: int) -> str:
    """The data note of a cell from ``point`` (one of ``n_points``), picked by ``criterion``."""
    chosen = point.mean(TRANSFER_SUBSETS if criterion == "oracle" else SELECTION_SUBSETS)
    n = sum(k in point.pearson for k in TRANSFER_SUBSETS)
    trained = f"trained on {TRAINING_DATA[point.run]}; " if point.run in TRAINING_DATA else ""
    return (
        f"{trained}run {point.run}, point {point.point} of {n_points} {json.dumps(point.settings)}, "
        f"picked by {CRITERION_LABELS[criterion]} = {chosen:.2f}; mean over {n} of "
        f"{len(TRANSFER_SUBSETS)} subsets"
    )


def point_replicates(
    point: PointScores, subsets: Sequence[tuple[str, str]], resampler: bootstrap.Resampler
) -> dict[str, Any]:
    """A cell's ``boot`` (×100) and ``sets``, or its ``noise``: the mean r over those of
    ``subsets`` the point scored, on every resample of its ``pairs.parquet``."""
    if point.folder is None or not (point.folder / "pairs.parquet").exists():
        return {"noise": "no interval: the point's pairs.parquet is not there"}
    scored = [k for k in subsets if k in point.pearson]
    reps, keys, reason = mean_replicates(read_pairs(point.folder / "pairs.parquet"), scored,
                                         resampler)  # fmt: skip
    return {"noise": reason} if reps is None else {"boot": 100.0 * reps, "sets": keys}


def selected_cell(
    runs: Mapping[str, list[PointScores]],
    run: str,
    criterion: str,
    resampler: bootstrap.Resampler | None = None,
) -> Cell:
    """The 22-set mean of the point of ``run`` that ``criterion`` picks, with its replicates
    on ``resampler``'s resamples (a default one if None)."""
    if run not in runs:
        return Cell(None, "", _not_configured(run))
    point = select(runs[run], criterion)
    if point is None:
        subsets = TRANSFER_SUBSETS if criterion == "oracle" else SELECTION_SUBSETS
        reasons = sorted({runs[run][0].reason(k) for k in subsets})
        return Cell(None, "", f"no subset of the {criterion} selection was scored: {reasons}")
    notes = point.missing(TRANSFER_SUBSETS)
    if point.collapse is not None:
        notes.insert(0, COLLAPSED.format(loss=point.collapse))
    boot = point_replicates(point, TRANSFER_SUBSETS, resampler or bootstrap.Resampler())
    return Cell(point.mean(TRANSFER_SUBSETS), describe_point(point, criterion, len(runs[run])),
                "; ".join(notes), **boot)  # fmt: skip


def table1(runs, printed: PrintedTable, resampler=None) -> dict[tuple[str, str], Cell]:
    return {
        (row, col): selected_cell(runs, TABLE_RUNS["table1"][row, col], "sts2016", resampler)
        for row in printed.rows
        for col in printed.columns
    }


def selection_table(table: str):
    def build(runs, printed: PrintedTable, resampler=None) -> dict[tuple[str, str], Cell]:
        return {
            (row, col): selected_cell(runs, TABLE_RUNS[table][row, col], col, resampler)
            for row in printed.rows
            for col in printed.columns
        }

    return build


TABLE4_COLUMNS = {"avg": "AVG", "lstmavg": "LSTMAVG", "gran": "GRAN"}


def table4_printed() -> PrintedTable:
    """Table 4's layout (its printed body is missing): one row per transfer subset and the
    22-set mean, one column per model."""
    caption = next(t["caption"] for t in omitted_tables() if t["table"] == "table4")
    rows = [f"{d}/{s}" for d, s in TRANSFER_SUBSETS] + ["mean"]
    return PrintedTable(
        paper=PAPER, key="table4", caption=caption, metric="pearson", scale=100, decimals=1,
        row_label="Dataset", rows=rows, columns=list(TABLE4_COLUMNS),
        row_labels={"mean": "22-set mean"}, column_labels=TABLE4_COLUMNS, values={},
        notes=[MISSING_BODY], column_decimals={},
    )  # fmt: skip


def omitted_tables() -> list[dict[str, Any]]:
    """The tables whose printed body is missing (printed.yaml ``omitted_tables``)."""
    from paracomp.registry import resource
    from paracomp.yamltext import safe_load

    return safe_load(resource(PAPER, "printed.yaml").read_text())["omitted_tables"]


def table4(runs, printed: PrintedTable, resampler=None) -> dict[tuple[str, str], Cell]:
    resampler = resampler or bootstrap.Resampler()
    cells = {}
    for col in printed.columns:
        run = TABLE_RUNS["table4"]["*", col]
        point = select(runs[run], "sts2016") if run in runs else None
        for row in printed.rows:
            if point is None:
                reason = _not_configured(run) if run not in runs else "no point was scored"
                cells[row, col] = Cell(None, "", reason)
                continue
            data = describe_point(point, "sts2016", len(runs[run]))
            if row == "mean":
                boot = point_replicates(point, TRANSFER_SUBSETS, resampler)
                cells[row, col] = Cell(point.mean(TRANSFER_SUBSETS), data, **boot)
                continue
            key = tuple(row.split("/", 1))
            if key in point.pearson:
                boot = point_replicates(point, [key], resampler)  # type: ignore[list-item]
                cells[row, col] = Cell(100.0 * point.pearson[key], data, **boot)
            else:
                cells[row, col] = Cell(None, data, point.reason(key))
    return cells


# -- Table 7 ------------------------------------------------------------------------------

TABLE7_ROWS = [str(i) for i in range(1, 8)]
NUMBERS = ("lavg", "avg", "gold")
ONE_PAIR = "no interval: one pair's scores, not a statistic over test pairs"
CATEGORIES = (
    ("avg_over", 2, "AVG overestimates, LSTMAVG closer to gold (the paper's examples 1-2)"),
    ("avg_under", 2, "AVG underestimates, LSTMAVG closer to gold (examples 3-4)"),
    ("lavg_over", 3, "LSTMAVG overestimates, AVG closer to gold (examples 5-7)"),
)


def scale(cosine: np.ndarray) -> np.ndarray:
    """Cosine to [0, 5]: ``5 · max(cos, 0)`` (the paper does not give its scaling)."""
    return 5.0 * np.clip(cosine, 0.0, 1.0)


def error_examples(pairs: pd.DataFrame, k: Mapping[str, int] | None = None) -> pd.DataFrame:
    """Table 7's rows from pairs with ``gold``, ``lavg`` and ``avg`` (both scaled to [0, 5]):
    per category of :data:`CATEGORIES`, the pairs where the other model's absolute error is
    smallest relative to the wrong one's (largest error difference), the order of the
    paper's §5.1 description; one pair appears once."""
    counts = k or {name: n for name, n, _ in CATEGORIES}
    err_avg = (pairs["avg"] - pairs["gold"]).abs()
    err_lavg = (pairs["lavg"] - pairs["gold"]).abs()
    masks = {
        "avg_over": (pairs["avg"] > pairs["gold"]) & (err_avg > err_lavg),
        "avg_under": (pairs["avg"] < pairs["gold"]) & (err_avg > err_lavg),
        "lavg_over": (pairs["lavg"] > pairs["gold"]) & (err_lavg > err_avg),
    }
    gaps = {"avg_over": err_avg - err_lavg, "avg_under": err_avg - err_lavg,
            "lavg_over": err_lavg - err_avg}  # fmt: skip
    chosen, used = [], set()
    for name, _, _ in CATEGORIES:
        order = gaps[name][masks[name]].sort_values(ascending=False, kind="stable")
        taken = 0
        for index in order.index:
            if taken == counts[name]:
                break
            if index in used:
                continue
            used.add(index)
            chosen.append(pairs.loc[index].to_dict() | {"category": name})
            taken += 1
    return pd.DataFrame(chosen)


def table7_pairs(
    runs: Mapping[str, list[PointScores]], sets: Mapping[str, Path]
) -> tuple[pd.DataFrame | None, str, str]:
    """Pairs of the 20 STS subsets with gold, both models' scaled scores and sentences;
    the data note; or None and why."""
    frames = {}
    notes = []
    for col in ("lavg", "avg"):
        run = TABLE_RUNS["table7"]["*", col]
        if run not in runs:
            return None, "", _not_configured(run)
        point = select(runs[run], "sts2016")
        if point is None or point.folder is None:
            return None, "", f"run {run}: no point was scored"
        frame = pd.read_parquet(point.folder / "pairs.parquet")
        keys = set(STS_SUBSETS)
        frame = frame[[(d, s) in keys for d, s in zip(frame["dataset"], frame["subset"])]]
        frames[col] = frame.set_index(["dataset", "subset", "split", "id"])
        notes.append(describe_point(point, "sts2016", len(runs[run])))
    joined = frames["lavg"][["gold", "pred"]].rename(columns={"pred": "lavg"})
    joined = joined.join(frames["avg"][["pred"]].rename(columns={"pred": "avg"}), how="inner")
    joined["lavg"], joined["avg"] = (
        scale(joined["lavg"].to_numpy()),
        scale(joined["avg"].to_numpy()),
    )
    joined = joined.reset_index()
    texts = []
    for path in sets.values():
        texts.append(
            pd.read_parquet(path, columns=["dataset", "subset", "split", "id", "s1", "s2"])
        )
    if texts:
        text = pd.concat(texts, ignore_index=True)
        joined = joined.merge(text, on=["dataset", "subset", "split", "id"], how="left")
    return joined, "; ".join(notes), ""


def table7(
    runs: Mapping[str, list[PointScores]], sets: Mapping[str, Path], printed: PrintedTable
) -> dict[tuple[str, str], Cell]:
    pairs, data, reason = table7_pairs(runs, sets)
    cells: dict[tuple[str, str], Cell] = {}
    rows = error_examples(pairs) if pairs is not None else pd.DataFrame()
    labels = {name: why for name, _, why in CATEGORIES}
    for i, row in enumerate(printed.rows):
        if i >= len(rows):
            why = reason or "fewer pairs of this kind than rows"
            for col in printed.columns:
                cells[row, col] = Cell(None, data, why)
            continue
        example = rows.iloc[i]
        where = f"{example['dataset']}/{example['subset']} #{example['id']}; {labels[example['category']]}"
        values = {
            "sentence1": example.get("s1"),
            "sentence2": example.get("s2"),
            "lavg": float(example["lavg"]),
            "avg": float(example["avg"]),
            "gold": float(example["gold"]),
        }
        for col in printed.columns:
            note = "our example is not the paper's pair: compare kinds of error, not numbers"
            cells[row, col] = Cell(values[col], f"{where}; {data}", note if i == 0 else "",
                                   noise=ONE_PAIR if col in NUMBERS else "")  # fmt: skip
    return cells


def table7_printed() -> PrintedTable:
    printed = printed_table(PAPER, "table7")
    return dataclasses.replace(printed, rows=TABLE7_ROWS)


# -- rendering ----------------------------------------------------------------------------


def setting_lines(setting: Mapping[str, Any]) -> list[str]:
    """The training setting, for every table's markdown."""
    s = setting["sentences"]
    lines = [
        f"Training data: {setting['corpus']}"
        + (f", pairs of at most {s['max_tokens']} tokens a side" if s.get("max_tokens") else "")
        + (f", a seeded subset of {s['pairs']:,} pairs" if s.get("pairs") else "")
        + f"; PPDB (Table 1): {', '.join(setting['ppdb']['datasets'])}, shuffled (seed "
        f"{setting['ppdb']['seed']}) and cut at the sentence pairs' token count.",
        f"Initial word vectors: {setting['init']['embeddings']} ({setting['dim']}d; the paper: "
        "PARAGRAM-SL999 300d); epochs per model "
        f"{setting['epochs']} (the paper: AVG 7, LSTM 3); run settings {setting['run']}.",
        "Evaluation: Pearson r x 100 of the cosine on each of the 22 transfer subsets (20 STS "
        "2012-2015, SICK test, Twitter PIT test), their unweighted mean; selection 'Oracle' by "
        "that mean, '2016 STS' by the mean over the 5 STS 2016 subsets.",
        f"Grids: {setting['grids']}.",
    ]
    return lines + run_lines(setting["runs"], "run", setting.get("note"))


def run_lines(runs: Mapping[str, Any], kind: str, note: str | None) -> list[str]:
    """One line a run (``- <kind> `name`: settings``), then the setting's note if any."""
    return [f"- {kind} `{run}`: {spec}" for run, spec in runs.items()] + ([note] if note else [])


def write_transfer_table(
    table: str,
    points: Sequence[str],
    setting: Mapping[str, Any],
    out: Path,
    sets: Mapping[str, Path] | None = None,
    initial: Path | None = None,
    seed_points: Sequence[str] = (),
) -> None:
    """Build transfer table ``table`` from the ``run=folder`` points and write its files;
    ``initial``: the initial vectors' scores (:func:`below_initial`, Tables 1-3);
    ``seed_points``: ``run:seed=folder`` of the runs over seeds (Tables 1-4,
    :mod:`paracomp.papers.wieting2017.seeds`)."""
    runs = load_points(points)
    resampler = bootstrap.Resampler()
    TRAINING_DATA.clear()
    ppdb = f"PPDB ({', '.join(setting['ppdb']['datasets'])}) sampled to the sentence pairs' tokens"
    for run, spec in setting.get("runs", {}).items():
        TRAINING_DATA[run] = setting["corpus"] if spec["data"] == "sentences" else ppdb
    extra: list[str] = []
    build: Build | None = None
    if table == "table4":
        printed = table4_printed()
        build = table4
        extra.append(f"Paper column: {MISSING_BODY}.")
    elif table == "table7":
        printed = table7_printed()
        cells = table7(runs, sets or {}, printed)
        extra += [
            "Rows: by the rule of the paper's Section 5.1 on the 20 STS 2012-2015 subsets, both "
            "models picked by 2016 STS, cosines scaled to [0, 5] as 5 max(cos, 0) (the paper's "
            "scaling is not stated): rows 1-2 the pairs where AVG overestimates and LSTMAVG is "
            "closer to gold by the largest margin, 3-4 where AVG underestimates, 5-7 where "
            "LSTMAVG overestimates and AVG is closer.",
            "The paper prints row 1 only (the other rows are missing from its text we have).",
        ]
    else:
        printed = printed_table(PAPER, table)
        build = table1 if table == "table1" else selection_table(table)
    if build is not None:
        cells = build(runs, printed, resampler)
        seeds = load_seed_points(seed_points)
        if seeds:
            cells = seeded_cells(table, build, printed, cells, seeds, resampler)
            extra.append(seeds_line(seeds))
    if initial is not None and table in ("table1", "table2", "table3"):
        cells, line = below_initial(cells, pd.read_csv(initial), setting["init"]["embeddings"])
        extra.append(line)
    if table == "table3" and "gran5" in setting.get("composers", {}):
        extra.append(GRAN5_READOUT.format(composer=setting["composers"]["gran5"]))
    rendered = render_custom(printed, cells, setting_lines(setting), extra,
                             no_deltas=table == "table7", no_paper=MISSING_BODY)  # fmt: skip
    write_outputs(out, *rendered)
    write_cell_replicates(out, cells, resampler)
