"""Test-set bootstrap cost: table intervals, rank intervals and claims' probabilities from
existing per-pair predictions.

    python benchmarks/bench_bootstrap.py                                  # results/eval/glove-6b-50d
    python benchmarks/bench_bootstrap.py --eval results/eval/glove-6b-50d --models 117

The predictions of one evaluated model (``--eval``: its ``sts.csv`` and ``pairs.parquet``, e.g.
from the main job) are cloned into ``--models`` models with independent noise on every
prediction (the same sets, subsets and sizes; setup, untimed), then timed, each with a fresh
:class:`~paracomp.eval.bootstrap.Resampler` as a separate table job has:

- ``generic``: elgohary2016's Tables 3, 5 and 6 through the generic table code (every column a
  model; their cells are STS subsets, year means, SICK);
- ``transfer``: wieting2017's Tables 1-4 as they read points: 6, 24 and 14 cells of a point
  each (the mean r over every subset of one model's pairs), and Table 4's 3 points with a cell
  per subset and their mean;
- ``leaderboard``: every model's ``sts mean`` replicates and rank intervals;
- ``findings``: every paper's claims on replicates of their cells (random replicates; the
  claims' expressions evaluated on all resamples at once).

Prints wall and CPU seconds per part (CPU: the figure to read on a shared machine), the total
and the peak resident memory.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from paracomp.eval import bootstrap
from paracomp.papers import PAPERS
from paracomp.registry import printed_table, row_refs
from paracomp.registry import resource as paper_file
from paracomp.tables.build import ModelEval, build_cells
from paracomp.tables.claims import read_claims
from paracomp.tables.intervals import mean_replicates
from paracomp.tables.leaderboard import Entry, leaderboard, rank_intervals
from paracomp.tables.verdicts import CellReplicates, probability

REPO = Path(__file__).resolve().parents[1]


def clone(ev: ModelEval, i: int) -> ModelEval:
    """Model ``i``: ``ev``'s predictions plus independent noise, its metrics recomputed."""
    from paracomp.eval.sts import subset_metrics

    pairs = ev.pairs.copy()
    rng = np.random.default_rng(i)
    pairs["pred"] = pairs["pred"] + rng.normal(scale=0.1 * (1 + i % 7), size=len(pairs))
    metrics = subset_metrics(pairs)
    extra = ev.metrics[["dataset", "subset", "split", "source", "note"]]
    metrics = metrics.merge(extra, on=["dataset", "subset", "split"], how="left")
    absent = ev.metrics[ev.metrics["n"] == 0]
    return ModelEval(pd.concat([metrics, absent], ignore_index=True), pairs)


def timed(name: str, seconds: dict[str, tuple[float, float]], run) -> object:
    """Run ``run``; record and print its wall and CPU seconds (this process's)."""
    wall, cpu = time.perf_counter(), time.process_time()
    out = run()
    seconds[name] = (time.perf_counter() - wall, time.process_time() - cpu)
    print(f"{name:12s} {seconds[name][0]:7.2f} s wall {seconds[name][1]:7.2f} s CPU", flush=True)
    return out


def generic_tables(models: list[ModelEval], resamples: int) -> int:
    cells = 0
    for table in ("table3", "table5", "table6"):
        printed = printed_table("elgohary2016", table)
        columns = {c: {"model": str(i)} for i, c in enumerate(printed.columns)}
        evals = {str(i): models[i] for i in range(len(printed.columns))}
        built = build_cells(printed, row_refs("elgohary2016", table), columns, "mean", evals,
                            resampler=bootstrap.Resampler(resamples))  # fmt: skip
        cells += sum(c.boot is not None for c in built.values())
    return cells


TRANSFER_TABLES = {"table1": (6, False), "table2": (24, False), "table3": (14, False),
                   "table4": (3, True)}  # fmt: skip
"""wieting2017's transfer tables: the points (models) their cells read, and whether a
point's every subset is a cell too (Table 4) besides the mean over them."""


def transfer_cells(models: list[ModelEval], resamples: int) -> int:
    """Each table as its own job (a fresh resampler): per point, the mean r over its subsets
    (Table 4: each subset's r too, read from the same replicates)."""
    done, model = 0, 0
    for points, per_subset in TRANSFER_TABLES.values():
        resampler = bootstrap.Resampler(resamples)
        for _ in range(points):
            pairs = models[model % len(models)].pairs
            model += 1
            subsets = [tuple(s) for s in
                       pairs[["dataset", "subset"]].drop_duplicates().itertuples(index=False)]  # fmt: skip
            reps, _, _ = mean_replicates(pairs, subsets, resampler)
            done += reps is not None
            if per_subset:
                for subset in subsets:
                    done += mean_replicates(pairs, [subset], resampler)[0] is not None
    return done


def board(models: list[ModelEval], folder: Path, resamples: int) -> pd.DataFrame:
    entries = []
    for i, ev in enumerate(models):
        path = folder / f"m{i}"
        path.mkdir()
        ev.metrics.to_csv(path / "sts.csv", index=False)
        ev.pairs.to_parquet(path / "pairs.parquet", index=False)
        (path / "wordsim.csv").write_text("dataset,n_total,n,n_oov,spearman,pearson,source,note\n")
        (path / "encoder.json").write_text(json.dumps({"composition": "averaged word rows"}))
        entries.append(Entry(f"m{i}", "", path))
    sets = sorted(set(models[0].metrics["dataset"]))

    def run() -> pd.DataFrame:
        frame = leaderboard(entries, sets, [])
        return rank_intervals(frame, entries, sets, bootstrap.Resampler(resamples))

    return run


def findings(resamples: int) -> int:
    rng, evaluated = np.random.default_rng(0), 0
    for paper in PAPERS:
        claims = read_claims(Path(paper_file(paper, "findings.yaml")))
        for claim in claims:
            cells = claim.cells()
            values = {c: float(rng.normal()) for c in cells}
            boot = {c: CellReplicates(rng.normal(size=resamples), ("s",)) for c in cells}
            probability(claim, values, boot)
            evaluated += 1
    return evaluated


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--eval", type=Path, default=REPO / "results/eval/glove-6b-50d")
    parser.add_argument("--models", type=int, default=117, help="the leaderboard's models")
    parser.add_argument("--resamples", type=int, default=bootstrap.RESAMPLES)
    args = parser.parse_args(argv)
    base = ModelEval.load(args.eval)
    models = [clone(base, i) for i in range(args.models)]
    n = base.pairs.groupby(["dataset", "subset"]).size()
    print(f"{len(n)} subsets, {int(n.sum())} pairs (largest {n.idxmax()}: {n.max()}); "
          f"{args.models} models; B = {args.resamples}")  # fmt: skip
    seconds: dict[str, tuple[float, float]] = {}
    cells = timed("generic", seconds, lambda: generic_tables(models, args.resamples))
    done = timed("transfer", seconds,
                 lambda: transfer_cells(models, args.resamples))  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        frame = timed("leaderboard", seconds, board(models, Path(tmp), args.resamples))
    claims = timed("findings", seconds, lambda: findings(args.resamples))
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    wall, cpu = (sum(s[i] for s in seconds.values()) for i in (0, 1))
    print(f"total        {wall:7.2f} s wall {cpu:7.2f} s CPU; {cells} generic cells, {done} transfer "
          f"cells, {int(frame['rank_low'].notna().sum())} ranked models, {claims} claims; "
          f"peak RSS {peak:.0f} MB")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
