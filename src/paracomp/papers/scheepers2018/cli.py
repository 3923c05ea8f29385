"""``paracomp scheepers2018 …``: the lemma–definition data, CompVec runs, evaluation, Table 1."""

from __future__ import annotations

import argparse
import logging
from pathlib import Path

from paracomp.arguments import key_values, seeded_paths

log = logging.getLogger("paracomp")


def _data(args: argparse.Namespace) -> None:
    import warnings

    from paracomp.data.fetch import verify_fetched
    from paracomp.papers.scheepers2018.dataset import prepare
    from paracomp.wordnet.install import wordnet_reader

    if args.released:
        verify_fetched(args.released)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # no multilingual WordNet: expected
        reader = wordnet_reader(args.wordnet)
    sizes = prepare(
        args.split,
        reader,
        args.out,
        released=args.released,
        seed=args.seed,
        test_fraction=args.test_fraction,
    )
    log.info("%s split: %s", args.split, sizes)


def _evaluate(args: argparse.Namespace) -> None:
    import torch

    from paracomp.atomic import write_json
    from paracomp.papers.scheepers2018.evaluate import evaluate_run
    from paracomp.train.tuning import read_record

    train = read_record(args.train_record, ["params", "point"])
    torch.set_num_threads(train["params"]["threads"])
    evaluate_run(
        run_dir=Path(args.run),
        data_dir=Path(args.data),
        pretrained=Path(args.pretrained),
        sets={k: Path(v) for k, v in key_values(args.set).items()},
        unavailable=key_values(args.unavailable),
        candidates=args.candidates,
        out=Path(args.out),
    )
    write_json(Path(args.record), {"point": train["point"], "scores": args.out, "train": train})


def _table(args: argparse.Namespace) -> None:
    from paracomp.papers.scheepers2018.table1 import write_table1
    from paracomp.settings import TABLE_SCHEMA, parse, ref

    each = {"type": "object", "additionalProperties": ref(TABLE_SCHEMA, "/$defs/column")}
    columns = parse(args.columns, each, "scheepers2018 table --columns", TABLE_SCHEMA)
    roots = {k: Path(v) for k, v in key_values(args.runs).items()}
    seeds = seeded_paths(args.seed_runs, "scheepers2018 table --seed-runs")
    write_table1(columns, roots, args.compositions, args.method, Path(args.out), seeds)


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register ``scheepers2018`` and its steps."""
    parent = sub.add_parser(
        "scheepers2018", help="Scheepers et al. 2018: WordNet definitions and CompVec runs"
    )
    steps = parent.add_subparsers(dest="step", required=True)

    p = steps.add_parser("data", help="train/test pairs, vocabulary and targets of a split")
    p.add_argument(
        "split",
        choices=["released", "grouped"],
        help="the released train/test split, or one grouped by lemma",
    )
    p.add_argument("--wordnet", required=True, help="NLTK data folder with WordNet 3.0")
    p.add_argument("--released", help="compvec-wordnet folder (released split)")
    p.add_argument("--seed", type=int, required=True, help="seed of the grouped split")
    p.add_argument(
        "--test-fraction", type=float, required=True, help="share of the lemmas held out"
    )
    p.add_argument(
        "--out", required=True, help="folder of the split's pairs, vocabulary and targets"
    )
    p.set_defaults(func=_data)

    p = steps.add_parser("evaluate", help="every Table 1 measure of a run")
    p.add_argument("--run", required=True, help="the trained run's folder")
    p.add_argument("--data", required=True, help="the split's dataset folder")
    p.add_argument("--pretrained", required=True, help="original vectors (SentEval fallback)")
    p.add_argument(
        "--set",
        nargs="*",
        default=[],
        metavar="SET=PARQUET",
        help="each evaluation set's parquet artefact",
    )
    p.add_argument(
        "--unavailable",
        nargs="*",
        default=[],
        metavar="SET=REASON",
        help="a set that cannot be scored, and why",
    )
    p.add_argument(
        "--candidates",
        required=True,
        choices=["all", "test"],
        help="rank each definition's lemma among all targets or the test targets only",
    )
    p.add_argument(
        "--train-record",
        required=True,
        help="the run's training record (its point, and its threads: the evaluation's too)",
    )
    p.add_argument("--out", required=True, help="JSON: the run's scores (items.parquet beside)")
    p.add_argument(
        "--record", required=True, help="JSON: the point's record (its scores' file, training)"
    )
    p.set_defaults(func=_evaluate)

    p = steps.add_parser("table", help="Table 1, its compare file and the candidate-set check")
    p.add_argument("--columns", required=True, help="the table's columns from config, as JSON")
    p.add_argument(
        "--runs",
        nargs="*",
        default=[],
        metavar="GROUP=DIR",
        help="each column group's evaluation folder",
    )
    p.add_argument("--compositions", nargs="*", default=[], help="the rows' compositions run")
    p.add_argument(
        "--seed-runs",
        nargs="*",
        default=[],
        metavar="EMBEDDINGS/COMPOSITION/VARIANT:SEED=DIR",
        help="a run's point folder per seed (every seed) where it has replicates",
    )
    p.add_argument("--method", default="", help="how the cells were computed, for the markdown")
    p.add_argument(
        "--out", required=True, help="the table (CSV; compare file and markdown beside it)"
    )
    p.set_defaults(func=_table)
