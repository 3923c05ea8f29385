"""``paracomp train|train-stack|initial-rows|select|tuning-report``: training runs and grid selection."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from paracomp.train.tuning import TuningSet


def _tuning_set(args: argparse.Namespace) -> TuningSet | None:
    """The tuning set the arguments name, if any."""
    from paracomp.errors import ConfigError
    from paracomp.train.tuning import TuningSet

    if not args.tune_set:
        return None
    if None in (args.tune_subset, args.tune_split, args.tokenizer, args.lowercase):
        raise ConfigError(
            "--tune-set needs --tune-subset, --tune-split, --tokenizer and --[no-]lowercase"
        )
    return TuningSet(
        Path(args.tune_set), args.tune_subset, args.tune_split, args.tokenizer, args.lowercase
    )


def _run_settings(text: str, where: str) -> dict[str, Any]:
    """A run's settings (or some of them) in JSON argument ``text``, checked against the run
    schema that the workflow validates its training settings against."""
    from paracomp.settings import RUN_SCHEMA, load, parse

    return parse(text, load(RUN_SCHEMA), where, RUN_SCHEMA)


def _train(args: argparse.Namespace) -> None:
    from paracomp.atomic import write_json
    from paracomp.train.job import job_config, train_job
    from paracomp.train.tuning import read_record

    base = _run_settings(args.params, "train --params")
    point = _run_settings(args.point, "train --point") if args.point else {}
    if args.selected:
        point = read_record(args.selected, ["point"])["point"]
    config = job_config(base, point, threads=args.threads, device=args.device)
    tuning = _tuning_set(args)
    init = Path(args.init) if args.init else None
    constraints = Path(args.constraints) if args.constraints else None
    composer = Path(args.init_composer) if args.init_composer else None
    record = train_job(
        config, Path(args.pairs), Path(args.out), tuning=tuning, init=init,
        constraints=constraints, init_composer=composer,
    )  # fmt: skip
    write_json(Path(args.record), {**record, "point": point})


def _train_stack(args: argparse.Namespace) -> None:
    from paracomp.atomic import atomic_dir, write_json
    from paracomp.settings import RUN_SCHEMA, parse, ref
    from paracomp.train.job import job_config, train_job
    from paracomp.train.pairs.stacked import train_stack

    each = {"type": "object", "propertyNames": {"pattern": "^[0-9]+$"}}
    schema = {**each, "additionalProperties": ref(RUN_SCHEMA)}
    found = parse(args.points, schema, "train-stack --points", RUN_SCHEMA)
    points = {int(index): point for index, point in found.items()}
    base = _run_settings(args.params, "train-stack --params")
    configs = {
        index: job_config(base, point, threads=args.threads, device=args.device)
        for index, point in points.items()
    }
    tuning, runs, pairs = _tuning_set(args), Path(args.runs), Path(args.pairs)
    if len(configs) > 1 and configs[min(configs)].pairs:
        folders = {index: runs / str(index) for index in configs}
        records = train_stack(configs, pairs, Path(args.out), folders, tuning=tuning)
    else:  # one point, or not a pair objective: each point as `paracomp train` trains it
        records = {i: train_job(c, pairs, runs / str(i), tuning=tuning) for i, c in configs.items()}
    with atomic_dir(args.records) as tmp:
        for index, record in records.items():
            write_json(tmp / f"{index}.json", {**record, "point": points[index]})


def _initial_rows(args: argparse.Namespace) -> None:
    from paracomp.train.pretrained import write_initial_matrix

    write_initial_matrix(Path(args.vocab), Path(args.embeddings), args.seed, Path(args.out))


def _select(args: argparse.Namespace) -> None:
    from paracomp.train.tuning import select_file

    select_file([Path(p) for p in args.records], Path(args.out))


def _tuning_report(args: argparse.Namespace) -> None:
    from paracomp.arguments import key_values
    from paracomp.atomic import atomic_path
    from paracomp.train.tuning import tuning_report

    report = tuning_report({k: Path(v) for k, v in key_values(args.selected).items()})
    with atomic_path(args.out) as tmp:
        report.to_csv(tmp, index=False)


def _tuning_arguments(p: argparse.ArgumentParser) -> None:
    """The tuning set scoring a run, and the run's threads and device."""
    p.add_argument("--tune-set", help="sentence-pair set parquet scoring the run")
    p.add_argument("--tune-subset", help="subset of the tuning set")
    p.add_argument("--tune-split", help="split of the tuning set")
    p.add_argument("--tokenizer", choices=["moses", "whitespace"], help="of the tuning set")
    p.add_argument(
        "--lowercase",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="lowercase the tuning set",
    )
    p.add_argument(
        "--threads",
        type=int,
        default=1,
        help="torch and numba threads (and OMP_NUM_THREADS, unless set)",
    )
    p.add_argument("--device", default="cpu", choices=["cpu", "cuda"], help="device to train on")


def add_parsers(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("train", help="train one configuration (resumes from its checkpoint)")
    p.add_argument(
        "--pairs", required=True,
        help="training pairs parquet (targets: target-segment pairs; supervised: scored pairs)",
    )  # fmt: skip
    p.add_argument("--params", required=True, help="training parameters as JSON (with epochs)")
    p.add_argument("--point", help="grid point as JSON, overriding --params")
    p.add_argument("--selected", help="selection JSON whose point overrides --params")
    p.add_argument("--out", required=True, help="run folder: checkpoint, curve, embeddings")
    p.add_argument("--record", required=True, help="JSON record of the run")
    p.add_argument(
        "--init", help="initial word rows (embeddings parquet; pair objectives: pretrained vectors)"
    )
    p.add_argument("--constraints", help="constraint lists of sampler max_skip (parquet)")
    p.add_argument(
        "--init-composer",
        help="supervised: the composer.pt of a run to start from and regularise towards",
    )
    _tuning_arguments(p)
    p.set_defaults(func=_train)

    p = sub.add_parser(
        "train-stack",
        help="train grid points side by side in one job (training.stack_grid; resumes)",
    )
    p.add_argument("--pairs", required=True, help="training pairs parquet")
    p.add_argument("--params", required=True, help="training parameters as JSON (with epochs)")
    p.add_argument("--points", required=True, help="grid points as JSON, index -> point")
    p.add_argument("--runs", required=True, help="folder of the points' run folders <index>/")
    p.add_argument("--out", required=True, help="the stack's folder: checkpoint, curve")
    p.add_argument("--records", required=True, help="folder of the points' records <index>.json")
    _tuning_arguments(p)
    p.set_defaults(func=_train_stack)

    p = sub.add_parser(
        "initial-rows", help="initial word rows of a vocabulary from pretrained vectors"
    )
    p.add_argument("--vocab", required=True, help="vocabulary parquet (row i = token id i)")
    p.add_argument("--embeddings", required=True, help="pretrained embeddings parquet")
    p.add_argument("--seed", type=int, required=True, help="seed of the uniform(-1, 1) other rows")
    p.add_argument("--out", required=True, help="the initial rows' embeddings artefact")
    p.set_defaults(func=_initial_rows)

    p = sub.add_parser("select", help="pick the best tuning grid point")
    p.add_argument("--records", nargs="+", required=True, help="the grid points' JSON records")
    p.add_argument("--out", required=True, help="JSON: the selected point and every point's record")
    p.set_defaults(func=_select)

    p = sub.add_parser("tuning-report", help="every tuning point and the selected one, as CSV")
    p.add_argument(
        "--selected",
        nargs="+",
        required=True,
        metavar="RUN=JSON",
        help="each run's selection (the output of `paracomp select`)",
    )
    p.add_argument(
        "--out",
        required=True,
        help="the report: every point of every run, its tuning r, the selected one (CSV)",
    )
    p.set_defaults(func=_tuning_report)
