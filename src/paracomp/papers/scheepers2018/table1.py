"""scheepers2018 Table 1 from the scores of its CompVec runs, and the candidate-set check.

A printed row ``<measure>/<composition>`` (e.g. ``sts14/gru``) and an embeddings group of
columns (``glove``: ``glove_original``, ``glove_compvec``, ``glove_delta``) name two runs, the
``scores.json`` of the ``original`` and the ``compvec`` run folder of the composition under the
group's root (:func:`~paracomp.papers.scheepers2018.runs.run_folder`); the delta is computed
from the unrounded scores, as the paper's. A cell's test-set bootstrap replicates come
from the run's ``items.parquet`` (:func:`measure_replicates`); a delta's are the difference of
its two runs' replicates on the same resamples. A composition whose runs have seed replicates
(``seed_runs``) has each cell over the seeds (:func:`~paracomp.tables.build.over_seeds`: the
mean, the sd and replicates combining seeds and test pairs), the delta over the seeds' own
deltas; both variants of a composition draw the same seed per resample (paired).
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from paracomp.atomic import atomic_path
from paracomp.eval import bootstrap
from paracomp.papers.scheepers2018.runs import VARIANTS, run_folder
from paracomp.registry import printed_table
from paracomp.tables.build import (
    Cell,
    compare_table,
    markdown,
    over_seeds,
    wide_table,
    with_intervals,
)
from paracomp.tables.write import write_cell_replicates, write_outputs

CANDIDATE_COLUMNS = [
    "embeddings",
    "composition",
    "variant",
    "mrr_all",
    "mrr_test",
    "paper",
    "closer",
]


MEANS = ("mrr", "sick_e")
"""Measures that are means over their test items (a reciprocal rank, a 1/0 hit)."""


def row_keys(paper: str = "scheepers2018", table: str = "table1") -> list[tuple[str, str]]:
    """(measure, composition) of every printed row."""
    return [tuple(row.split("/", 1)) for row in printed_table(paper, table).rows]  # type: ignore[misc]


def _scores(folder: Path) -> dict[str, Any]:
    return json.loads((folder / "scores.json").read_text())


def measure_replicates(
    items: pd.DataFrame, measure: str, resampler: bootstrap.Resampler
) -> tuple[np.ndarray | None, tuple[str, ...], str]:
    """A measure's value on every resample from a run's items: CompVecEval's MRR the mean
    reciprocal rank, SICK-E the share of test pairs classified right (the classifier not fit
    again), STS the pair-weighted mean of its subsets' Pearson r, SICK-R its Pearson r, a word
    set's Spearman ρ; and the test sets' keys, or why there are none."""
    found = items[items["measure"] == measure]
    if not len(found):
        return None, (), f"no interval: the run keeps no items of {measure}"
    reps, keys, weights = [], [], []
    for key, part in found.groupby("key", sort=True):
        reason = bootstrap.too_few(len(part), str(key))
        if reason:
            return None, (), reason
        sample = bootstrap.Sample(str(key), int(part["size"].iloc[0]), part["position"].to_numpy())
        counts = resampler.counts(sample)
        gold, pred = part["gold"].to_numpy(), part["pred"].to_numpy()
        if measure in MEANS:
            reps.append(bootstrap.mean(counts, pred))
        elif measure in ("sts14", "sts15", "sick_r"):
            reps.append(bootstrap.pearson(counts, gold, pred))
        else:
            reps.append(bootstrap.spearman(counts, gold, pred))
        keys.append(str(key))
        weights.append(len(part))
    w = np.asarray(weights, np.float64)
    return w @ np.array(reps) / w.sum(), tuple(keys), ""


def _cell(
    scores: dict[str, Any],
    measure: str,
    scale: float,
    items: pd.DataFrame | None = None,
    resampler: bootstrap.Resampler | None = None,
) -> Cell:
    entry = scores["measures"][measure]
    value = entry["value"]
    cell = Cell(None if value is None else value * scale, entry["data"], entry["reason"])
    if value is None:
        return cell
    if items is None or resampler is None:
        return Cell(cell.value, cell.data, cell.reason, noise="no interval: no items.parquet")
    boot, keys, noise = measure_replicates(items, measure, resampler)
    if boot is None:
        return Cell(cell.value, cell.data, cell.reason, noise=noise)
    return Cell(cell.value, cell.data, cell.reason, boot * scale, keys)


def _run_items(folder: Path) -> pd.DataFrame | None:
    path = folder / "items.parquet"
    return pd.read_parquet(path) if path.exists() else None


Folders = Mapping[str, Path]
"""A composition's run folder per variant."""


def _pair_cells(
    folders: Folders, measure: str, scale: float, resampler: bootstrap.Resampler
) -> dict[str, Cell]:
    """The Original and CompVec cells of a measure and their delta, from the runs' folders."""
    pair = [
        _cell(_scores(folders[v]), measure, scale, _run_items(folders[v]), resampler)
        for v in VARIANTS
    ]
    cells = dict(zip(VARIANTS, pair, strict=True))
    if pair[0].value is None or pair[1].value is None:
        cells["delta"] = Cell(None, "", pair[0].reason or pair[1].reason)
        return cells
    both = pair[0].boot is not None and pair[1].boot is not None
    cells["delta"] = Cell(
        pair[1].value - pair[0].value, "CompVec minus Original, unrounded", "",
        pair[1].boot - pair[0].boot if both else None,  # type: ignore[operator]
        pair[0].sets if both else (), "" if both else pair[0].noise or pair[1].noise,
    )  # fmt: skip
    return cells


def _seed_folders(
    seed_runs: Mapping[str, Mapping[int, Path]], root: Path, composition: str
) -> dict[int, Folders]:
    """Seed -> variant -> run folder of a composition's replicates under ``root``
    (``seed_runs``: ``<embeddings>/<composition>/<variant>`` -> seed -> folder); empty without
    replicates. Both variants must have the same seeds."""
    found = {v: seed_runs.get(f"{root.name}/{composition}/{v}", {}) for v in VARIANTS}
    seeds = {v: set(by_seed) for v, by_seed in found.items()}
    if not any(seeds.values()):
        return {}
    if len({frozenset(s) for s in seeds.values()}) > 1:
        raise ValueError(f"{root.name}/{composition}: the variants' seeds differ: {seeds}")
    return {s: {v: Path(found[v][s]) for v in VARIANTS} for s in sorted(seeds[VARIANTS[0]])}


def render_table1(
    cells: dict[tuple[str, str], Cell],
    expanded: dict[str, dict[str, Any]],
    candidates: list[list[Any]],
    method: str,
) -> tuple[pd.DataFrame, pd.DataFrame, str, pd.DataFrame]:
    """Table, compare file, markdown and the candidate-set comparison from the cells."""
    printed = printed_table("scheepers2018", "table1")
    wide = wide_table(printed, cells)
    compare = compare_table(printed, cells, expanded)
    text = markdown(printed, with_intervals(wide, printed, cells), compare, expanded, method)
    frame = pd.DataFrame(candidates, columns=CANDIDATE_COLUMNS).round(2)
    return wide, compare, text + _candidate_summary(frame), frame


def table1_cells(
    columns: Mapping[str, Mapping[str, Any]],
    roots: Mapping[str, Path],
    compositions: Collection[str],
    resampler: bootstrap.Resampler | None = None,
    seed_runs: Mapping[str, Mapping[int, Path]] | None = None,
) -> tuple[dict[tuple[str, str], Cell], dict[str, dict[str, Any]], list[list[Any]]]:
    """Every cell (with its replicates on ``resampler``'s resamples, a default one if None),
    the expanded column specs and the candidate-set rows.

    ``columns`` is the config's embeddings groups (``embeddings`` or ``reason``, ``note``);
    ``roots`` the runs folder of each computed group; ``compositions`` the rows' compositions
    that were run; ``seed_runs`` the folder of each seed of the runs with replicates
    (``<embeddings>/<composition>/<variant>`` -> seed -> folder, every seed).
    """
    printed = printed_table("scheepers2018", "table1")
    resampler = resampler or bootstrap.Resampler()
    cells: dict[tuple[str, str], Cell] = {}
    expanded: dict[str, dict[str, Any]] = {}
    candidates = []
    for group, spec in columns.items():
        for suffix in (*VARIANTS, "delta"):
            expanded[f"{group}_{suffix}"] = {**spec, "variant": suffix}
        for measure, composition in row_keys():
            row = f"{measure}/{composition}"
            if group not in roots or composition not in compositions:
                reason = spec.get("reason", "column not configured")
                if group in roots:
                    reason = f"composition {composition!r} is not configured (compvec.composers)"
                for suffix in (*VARIANTS, "delta"):
                    cells[row, f"{group}_{suffix}"] = Cell(None, "", reason)
                continue
            folders = {v: run_folder(roots[group], composition, v) for v in VARIANTS}
            by_seed = _seed_folders(seed_runs or {}, roots[group], composition)
            if by_seed:
                each = {
                    s: _pair_cells(f, measure, printed.scale, resampler) for s, f in by_seed.items()
                }
                model = f"scheepers2018/{roots[group].name}/{composition}"
                for suffix in (*VARIANTS, "delta"):
                    per = {s: found[suffix] for s, found in each.items()}
                    cells[row, f"{group}_{suffix}"] = over_seeds(model, per, printed.scale)
            else:
                own = _pair_cells(folders, measure, printed.scale, resampler)
                for suffix, cell in own.items():
                    cells[row, f"{group}_{suffix}"] = cell
            if measure == "mrr":
                for variant in VARIANTS:
                    found = _scores(folders[variant])["compvec"]
                    paper = printed.value(row, f"{group}_{variant}")
                    ours = {k: found[k]["mrr"] * 100 for k in ("all", "test")}
                    closer = _closer(ours, paper)
                    candidates.append(
                        [group, composition, variant, ours["all"], ours["test"], paper, closer]
                    )
    for column in printed.columns:
        if column not in expanded:
            expanded[column] = {"reason": "column not configured"}
            for row in printed.rows:
                cells[row, column] = Cell(None, "", "column not configured")
    return cells, expanded, candidates


def _closer(ours: dict[str, float], paper: float | None) -> str:
    if paper is None:
        return ""
    return min(ours, key=lambda name: abs(ours[name] - paper))


def _candidate_summary(frame: pd.DataFrame) -> str:
    """Which candidate set the untrained (algebraic original) MRR rows match better."""
    untrained = frame[
        (frame["variant"] == "original")
        & frame["composition"].isin(["sum", "average", "product", "max"])
        & frame["paper"].notna()
    ]
    if untrained.empty:
        return ""
    lines = ["", "CompVecEval candidate sets (untrained rows, MRR ×100):"]
    for r in untrained.itertuples():
        lines.append(
            f"- {r.embeddings} {r.composition}: all lemmas {r.mrr_all:.1f}, "
            f"test lemmas {r.mrr_test:.1f}, paper {r.paper:.1f} (closer: {r.closer})"
        )
    votes = untrained["closer"].value_counts()
    lines.append(
        f"Closer to the paper: {', '.join(f'{k} {v}' for k, v in votes.items())} "
        f"(of {len(untrained)}). The verdict holds only where our vectors are the paper's "
        "(GloVe 840B 300d, word2vec GoogleNews, fastText wiki.en, the authors' Paragram); "
        "`compvec.candidates` picks the set the table shows."
    )
    return "\n".join(lines) + "\n"


def write_table1(
    columns: Mapping[str, Mapping[str, Any]],
    roots: Mapping[str, Path],
    compositions: Collection[str],
    method: str,
    out: Path,
    seed_runs: Mapping[str, Mapping[int, Path]] | None = None,
) -> None:
    """Write ``table1.csv``, ``.compare.csv``, ``.md``, ``.candidates.csv`` and the cells'
    replicates (over the seeds of the runs ``seed_runs`` has)."""
    resampler = bootstrap.Resampler()
    cells, expanded, found = table1_cells(columns, roots, compositions, resampler, seed_runs)
    if seed_runs:
        seeds = sorted({s for by_seed in seed_runs.values() for s in by_seed})
        method += (
            f"; over seeds {seeds} (each cell the mean, ± over seeds and test pairs, `sd` in the"
            " compare file; a delta over the seeds' deltas)"
        )
    wide, compare, text, candidates = render_table1(cells, expanded, found, method)
    write_outputs(out, wide, compare, text)
    write_cell_replicates(out, cells, resampler)
    with atomic_path(out.with_suffix(".candidates.csv")) as tmp:
        candidates.to_csv(tmp, index=False)
