"""``paracomp evaluate``: a model on every sentence-pair and word-similarity set."""

from __future__ import annotations

import argparse
from pathlib import Path

from paracomp.arguments import add_tokenisation


def _evaluate(args: argparse.Namespace) -> None:
    from paracomp.arguments import key_values
    from paracomp.errors import ConfigError
    from paracomp.eval.model_encoder import embeddings_encoder, run_encoder
    from paracomp.eval.run import evaluate_model

    if args.fallback and args.run is None:
        raise ConfigError("paracomp evaluate: --fallback is for a run folder (--run) only")
    if args.run is not None:
        encoding, encoder = run_encoder(
            Path(args.run), Path(args.fallback) if args.fallback else None
        )
    else:
        encoding, encoder = embeddings_encoder(Path(args.embeddings), args.oov)
    evaluate_model(
        encoding,
        encoder,
        sts_sets=[Path(p) for p in args.sts],
        wordsim_sets=[Path(p) for p in args.wordsim],
        unavailable=key_values(args.unavailable),
        splits=key_values(args.split),
        tokenizer=args.tokenizer,
        lowercase=args.lowercase,
        oov=args.oov,
        out=Path(args.out),
    )


def add_parsers(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "evaluate", help="evaluate word vectors or a trained run on sentence and word sets"
    )
    model = p.add_mutually_exclusive_group(required=True)
    model.add_argument("--embeddings", help="word vectors (embeddings parquet), rows averaged")
    model.add_argument("--run", help="a trained run folder, composed by its own composer")
    p.add_argument(
        "--fallback",
        help="with --run: vectors of the words outside its rows (those it started from)",
    )
    p.add_argument("--sts", nargs="*", default=[], help="sentence-pair set parquet files")
    p.add_argument("--wordsim", nargs="*", default=[], help="word-pair set parquet files")
    p.add_argument(
        "--split",
        nargs="*",
        default=[],
        metavar="SET=SPLIT",
        help="the split evaluated per set (others: all pairs)",
    )
    p.add_argument(
        "--unavailable",
        nargs="*",
        default=[],
        metavar="SET=REASON",
        help="a configured set that cannot be scored, and why",
    )
    add_tokenisation(p, required=True)
    p.add_argument(
        "--oov",
        required=True,
        choices=["skip", "unk", "drop"],
        help="unknown words: skip the word, a zero UNK vector, or drop the pair",
    )
    p.add_argument(
        "--out",
        required=True,
        help="output folder: sts.csv, pairs.parquet, wordsim.csv, encoder.json",
    )
    p.set_defaults(func=_evaluate)
