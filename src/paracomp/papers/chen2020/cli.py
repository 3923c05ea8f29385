"""``paracomp chen2020 …``: the training pairs, the sentences and scores, Tables 1–8."""

from __future__ import annotations

import argparse
import logging
from pathlib import Path
from typing import Any

from paracomp.arguments import add_tokenisation, key_values

log = logging.getLogger("paracomp")


SENTENCE_COLUMNS = ["set", "index", "text", "tokens", "label", "gold"]
"""The columns of the sentence table (``chen2020 sentences``) that scoring reads."""


def _root(folder: str) -> Path:
    from paracomp.data.fetch import verify_fetched

    return Path(folder) / verify_fetched(Path(folder)).get("root", ".")


def _setting(text: str) -> dict[str, Any]:
    """The tables' ``--setting`` (what their notes tell): keys of the paper's block and what
    the workflow derives from it (the corpus's note, why the initial vectors are missing)."""
    from paracomp.registry import schema_path
    from paracomp.settings import load, obj, parse, pick

    path = schema_path("chen2020")
    keys = ["max_tokens", "train_pairs", "epochs", "tuning", "news_train", "vectors"]
    keys += ["frequencies", "init", "runs", "grids"]
    properties = pick(load(path), keys)["properties"]
    text_ = {"type": "string"}
    properties |= {"corpus": text_, "init_missing": {"type": ["string", "null"]}, "note": text_}
    return parse(text, obj(properties, tuple(properties)), "chen2020 table --setting", path)


def _block(text: str, keys: list[str], command: str) -> dict:
    from paracomp.registry import block_argument

    return block_argument("chen2020", text, keys, f"chen2020 {command} --params")


def _paranmt(args: argparse.Namespace) -> None:
    from paracomp import artefacts
    from paracomp.data.fetch import verify_fetched
    from paracomp.papers.chen2020.corpus import read_paranmt

    folder = Path(args.input)
    verify_fetched(folder)
    table = read_paranmt(folder / "para-nmt-5m-processed.txt")
    log.info("%d ParaNMT pairs", table.num_rows)
    prov = artefacts.Provenance(
        "paranmt_5m", "ParaNMT-50M 5M processed", artefacts.input_checksums([folder / "MANIFEST.json"]), {}
    )  # fmt: skip
    artefacts.write(table, Path(args.out), artefacts.SEGMENT_PAIRS, prov)


def _subsets(args: argparse.Namespace) -> None:
    from paracomp.papers.chen2020.corpus import write_subsets

    keys = ["max_tokens", "train_pairs", "tuning_pairs", "seed"]
    params = _block(args.params, keys, "subsets")
    write_subsets(Path(args.input), params, Path(args.out), Path(args.tuning))


def _init(args: argparse.Namespace) -> None:
    import pandas as pd
    import pyarrow.parquet as pq

    from paracomp import artefacts
    from paracomp.eval.tokens import tokenize_all
    from paracomp.papers.chen2020.init import initial_rows, needed_words
    from paracomp.papers.chen2020.sentences import token_lists

    sentences = token_lists(pd.read_parquet(args.sentences))
    if args.sts:
        frame = pq.read_table(args.sts, columns=["s1", "s2"]).to_pandas()
        for column in ("s1", "s2"):
            sentences += tokenize_all(frame[column].tolist(), args.tokenizer, args.lowercase)
    needed = needed_words([artefacts.read(Path(args.pairs))], sentences)
    words, matrix = artefacts.read_embeddings(Path(args.embeddings))
    kept, rows = initial_rows(words, matrix, needed, args.layout)
    log.info("%d of %d needed words have initial vectors", len(kept), len(needed))
    inputs = [Path(p) for p in (args.embeddings, args.pairs, args.sentences, args.sts) if p]
    prov = artefacts.Provenance(
        "chen2020-init", Path(args.embeddings).stem, artefacts.input_checksums(inputs),
        {"tokenizer": args.tokenizer, "lowercase": args.lowercase, "layout": args.layout},
        f"{len(kept)} of the {len(needed)} words of the training corpus and evaluation "
        f"sentences; layout {args.layout}",
    )  # fmt: skip
    artefacts.write_embeddings(kept, rows, Path(args.out), prov)


def _sentences(args: argparse.Namespace) -> None:
    from paracomp.atomic import atomic_path
    from paracomp.papers.chen2020.sentences import build_sentences

    for folder in filter(None, (args.news, args.ko, args.snli)):
        _root(folder)  # verify the fetched folder
    table, sources = build_sentences(
        Path(args.news) if args.news else None,
        Path(args.ko) if args.ko else None,
        Path(args.snli) if args.snli else None,
        tokenizer=args.tokenizer,
        lowercase=args.lowercase,
        news_train=args.news_train,
        unavailable=key_values(args.unavailable),
    )
    out = Path(args.out)
    with atomic_path(out) as tmp:
        table.to_parquet(tmp, index=False)
    sources.write(out.with_suffix(".json"))
    log.info("sentences: %s; missing: %s", sources.present, sorted(sources.missing))


def _scores(args: argparse.Namespace) -> None:
    import torch

    from paracomp import artefacts
    from paracomp.papers.chen2020.scores import score_model

    torch.set_num_threads(args.threads)
    scores = score_model(
        args.kind,
        artefacts.read(args.sentences, SENTENCE_COLUMNS).to_pandas(),
        run=Path(args.run) if args.run else None,
        pairs=Path(args.pairs) if args.pairs else None,
        order=Path(args.frequency_order) if args.frequency_order else None,
        vectors=Path(args.vectors) if args.vectors else None,
        sts=Path(args.sts) if args.sts else None,
        sts_args=("stsb", "test", args.tokenizer, args.lowercase),
    )
    scores.write(Path(args.out))


def _table(args: argparse.Namespace) -> None:
    from paracomp.arguments import seeded_paths
    from paracomp.papers.chen2020.tables import write_score_table

    scores = {k: Path(v) for k, v in key_values(args.scores).items()}
    setting = _setting(args.setting)
    seeds = seeded_paths(args.seed_scores, "--seed-scores")
    write_score_table(args.table, Path(args.sentences), scores, setting, Path(args.out), seeds)


def _words(args: argparse.Namespace) -> None:
    from paracomp.papers.chen2020.examples import write_table5

    write_table5(
        Path(args.run),
        Path(args.pairs),
        _block(args.params, ["word_lists.*"], "words"),
        args.corpus,
        Path(args.out),
    )


def _sentence_lists(args: argparse.Namespace) -> None:
    from paracomp.papers.chen2020.examples import write_table6

    runs = {k: Path(v) for k, v in key_values(args.runs).items()}
    params = _block(args.params, ["sentence_lists.*", "seed"], "sentence-lists")
    write_table6(runs, Path(args.pairs), params, args.corpus, Path(args.out))


def add_parser(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("chen2020", help="Chen & Gimpel 2020: data, scores, tables")
    cmds = parser.add_subparsers(dest="chen2020_command", required=True)

    p = cmds.add_parser("paranmt-pairs", help="ParaNMT-50M's 5M processed pairs as an artefact")
    p.add_argument("--input", required=True, help="fetched paranmt-5m folder")
    p.add_argument("--out", required=True, help="the training pairs (parquet)")
    p.set_defaults(func=_paranmt)

    p = cmds.add_parser("subsets", help="the training and tuning subsets of the corpus")
    p.add_argument("--input", required=True, help="the training pairs")
    p.add_argument("--params", required=True, help="max_tokens, train_pairs, tuning_pairs, seed")
    p.add_argument("--out", required=True, help="the seeded training subset (parquet)")
    p.add_argument("--tuning", required=True, help="the seeded tuning subset (parquet)")
    p.set_defaults(func=_subsets)

    p = cmds.add_parser("init", help="the initial word rows of the runs (papers.chen2020.init)")
    p.add_argument("--embeddings", required=True, help="the initial vectors (embeddings artefact)")
    p.add_argument("--pairs", required=True, help="the training corpus (segment pairs)")
    p.add_argument("--sentences", required=True, help="the tokenised evaluation sentences")
    p.add_argument("--sts", help="STS Benchmark set artefact (raw; tokenised here)")
    p.add_argument(
        "--layout",
        required=True,
        choices=["vectors", "operators"],
        help="word vectors, or WLO's operators [a | B] = [0 | v]",
    )
    add_tokenisation(p)
    p.add_argument("--out", required=True, help="the initial rows (embeddings artefact)")
    p.set_defaults(func=_init)

    p = cmds.add_parser("sentences", help="the specificity and SNLI sentences, tokenised")
    p.add_argument("--news", help="fetched specificity-news-speciteller folder")
    p.add_argument("--ko", help="fetched specificity-ko2019 folder")
    p.add_argument("--snli", help="fetched snli folder")
    p.add_argument(
        "--unavailable",
        nargs="*",
        default=[],
        metavar="DATASET=REASON",
        help="a dataset that is missing, and why",
    )
    p.add_argument(
        "--news-train",
        default="without-test",
        choices=["without-test", "all"],
        help="the News threshold's tuning sentences: without the test sentences, or all",
    )
    add_tokenisation(p)
    p.add_argument("--out", required=True, help="the specificity sentences (parquet)")
    p.set_defaults(func=_sentences)

    p = cmds.add_parser("scores", help="every sentence's specificity under one model")
    p.add_argument(
        "--kind",
        required=True,
        help="the scorer: run, run_sum, or a baseline (majority, length, word frequency, vectors)",
    )
    p.add_argument("--sentences", required=True, help="the specificity sentences")
    p.add_argument("--run", help="run folder (kinds run, run_sum)")
    p.add_argument("--pairs", help="training pairs (word frequencies counted in them)")
    p.add_argument(
        "--frequency-order",
        help="embeddings artefact whose rows are in descending frequency (word frequency ranks)",
    )
    p.add_argument("--vectors", help="embeddings artefact (vectors_sum, vectors_avg)")
    p.add_argument("--sts", help="STS Benchmark set artefact (runs, vectors: Table 8)")
    add_tokenisation(p)
    p.add_argument(
        "--threads", type=int, default=1, help="torch threads (and OMP_NUM_THREADS, unless set)"
    )
    p.add_argument("--out", required=True, help="the sentences' scores (parquet)")
    p.set_defaults(func=_scores)

    p = cmds.add_parser("table", help="Table 1, 2, 3, 4, 7 or 8 from the scores")
    p.add_argument(
        "table",
        choices=["table1", "table2", "table3", "table4", "table7", "table8"],
        help="the table's name",
    )
    p.add_argument("--sentences", required=True, help="the specificity sentences")
    p.add_argument(
        "--scores", nargs="*", default=[], metavar="MODEL=PARQUET", help="each model's scores"
    )
    p.add_argument("--setting", required=True, help="the training setting as JSON (notes)")
    p.add_argument(
        "--seed-scores",
        nargs="*",
        default=[],
        metavar="MODEL:SEED=PARQUET",
        help="every seed's scores of a model over seed replicates (its cells: their mean)",
    )
    p.add_argument(
        "--out", required=True, help="the table (CSV; compare file and markdown beside it)"
    )
    p.set_defaults(func=_table)

    p = cmds.add_parser("word-lists", help="Table 5: a WLO run's top-k word lists")
    p.add_argument("--run", required=True, help="the WLO run's folder")
    p.add_argument("--pairs", required=True, help="its training pairs (word counts)")
    p.add_argument("--params", required=True, help="min_count, k, quantile")
    p.add_argument("--corpus", required=True, help="the training corpus, for the notes")
    p.add_argument(
        "--out", required=True, help="the table (CSV; compare file and markdown beside it)"
    )
    p.set_defaults(func=_words)

    p = cmds.add_parser("sentence-lists", help="Table 6: most specific and general sentences")
    p.add_argument("--runs", nargs=2, required=True, metavar="MODEL=RUN", help="wordsum=, wlo=")
    p.add_argument("--pairs", required=True, help="the training pairs (their side-1 sentences)")
    p.add_argument("--params", required=True, help="sentences, lengths, k, seed")
    p.add_argument("--corpus", required=True, help="the training corpus, for the notes")
    p.add_argument(
        "--out", required=True, help="the table (CSV; compare file and markdown beside it)"
    )
    p.set_defaults(func=_sentence_lists)
