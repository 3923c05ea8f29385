"""``paracomp wieting2015 …``: the data, word scores, selection, phrase scores, the static CNN
and the tables of Wieting et al. (2015)."""

from __future__ import annotations

import argparse
import logging
from pathlib import Path

from paracomp.atomic import read_json

log = logging.getLogger("paracomp")


def _verified(folder: str) -> Path:
    """A fetched folder, checked against its manifest."""
    from paracomp.data.fetch import verify_fetched

    manifest = verify_fetched(folder)
    return Path(folder) / manifest.get("root", ".")


def _init(args: argparse.Namespace) -> None:
    from paracomp.papers.wieting2015.data import initial_vectors

    info = initial_vectors(Path(args.embeddings), args.size, args.dim, Path(args.out))
    log.info("initial vectors: %s", info)


def _lexical(args: argparse.Namespace) -> None:
    import warnings

    from paracomp.papers.wieting2015.data import lexical
    from paracomp.wordnet.install import wordnet_reader
    from paracomp.wordnet.lemmas import all_lemmas

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # no multilingual WordNet: expected
        reader = wordnet_reader(Path(args.wordnet))
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    report = lexical(
        args.source,
        _verified(args.folder),
        Path(args.init),
        all_lemmas(reader),
        out / "pairs.parquet",
        out / "constraints.parquet",
        out / "counts.json",
    )
    log.info("lexical pairs: %s", report)


def _pairs(args: argparse.Namespace) -> None:
    from paracomp.atomic import write_json
    from paracomp.papers.wieting2015.data import training_pairs

    counts = training_pairs(args.data, _verified(args.folder), Path(args.out))
    write_json(Path(args.counts), counts)


def _sets(args: argparse.Namespace) -> None:
    from paracomp.papers.wieting2015.data import phrase_sets

    annotated = _verified(args.annotated) if args.annotated else None
    ml = _verified(args.ml) if args.ml else None
    phrase_sets(annotated, ml, Path(args.out))


def _word_scores(args: argparse.Namespace) -> None:
    from paracomp.arguments import key_values
    from paracomp.atomic import write_json
    from paracomp.papers.wieting2015.scoring import word_scores

    sets = {k: Path(v) for k, v in key_values(args.set).items()}
    scores = word_scores(Path(args.embeddings), sets)
    train = read_json(args.record)
    record = {
        "point": train["point"],
        "embeddings": args.embeddings,
        "scores": {k: v for k, v in scores.items() if k != "criterion"},
        "criterion": scores["criterion"],
        "train": train,
    }
    write_json(Path(args.out), record)
    log.info("word scores: %s", record["criterion"])


def _select(args: argparse.Namespace) -> None:
    from paracomp.atomic import write_json
    from paracomp.papers.wieting2015.selection import select_record

    records = [read_json(p) for p in args.records]
    chosen = select_record(records, args.criterion)
    if args.run_out is not None:
        from paracomp.run_folder import copy_run

        copy_run(Path(args.records[chosen["selected"]]).parent, Path(args.run_out))
    write_json(Path(args.out), chosen)
    log.info(
        "selected point %d of %d: %s", chosen["selected"], len(records), chosen["record"]["point"]
    )


def _paragram(args: argparse.Namespace) -> None:
    from paracomp import artefacts

    chosen = read_json(args.selected)
    source = Path(chosen["record"]["embeddings"])
    words, matrix = artefacts.read_embeddings(source)
    prov = artefacts.Provenance(
        dataset="paragram-wieting2015",
        source="paracomp.papers.wieting2015",
        inputs=artefacts.input_checksums([args.selected, source]),
        config={"point": chosen["record"]["point"], "criterion": chosen["criterion"]},
        notes="PARAGRAM word vectors (Wieting et al. 2015): the word-training grid point "
        "without constraints with the best SimLex-999 rho; usable as initial vectors",
    )
    artefacts.write_embeddings(words, matrix, Path(args.out), prov)


def _widen(args: argparse.Namespace) -> None:
    from paracomp import artefacts
    from paracomp.papers.wieting2015.data import widened

    paragram, source = Path(args.paragram), Path(args.source)
    trained = artefacts.read_embeddings(paragram)
    words, matrix = widened(trained, artefacts.read_embeddings(source), args.size, args.dim)
    prov = artefacts.Provenance(
        dataset="paragram-wieting2015-full",
        source="paracomp.papers.wieting2015",
        inputs=artefacts.input_checksums([paragram, source]),
        config={"size": args.size, "dim": args.dim},
        notes=f"the {len(trained[0])} PARAGRAM rows of {paragram.name} and the other "
        f"{len(words) - len(trained[0])} words of {source.name} at their initial vectors: the "
        "offline stand-in for PARAGRAM-SL999",
    )
    artefacts.write_embeddings(words, matrix, Path(args.out), prov)
    log.info("%d PARAGRAM rows widened to %d words", len(trained[0]), len(words))


def _phrase_scores(args: argparse.Namespace) -> None:
    from paracomp import artefacts
    from paracomp.atomic import atomic_path, write_json
    from paracomp.errors import ConfigError
    from paracomp.papers.wieting2015 import scoring

    if (args.run is None) == (args.embeddings is None):
        raise ConfigError("give --run (a trained composer) or --embeddings (vector addition)")
    if args.run is not None:
        encoder = scoring.RunEncoder(Path(args.run))
    else:
        encoder = scoring.additive_encoder(Path(args.embeddings))
    sets = artefacts.read(args.sets).to_pandas()
    scores = scoring.phrase_scores(encoder, sets)
    with atomic_path(args.out) as tmp:
        scores.to_parquet(tmp, index=False)
    if args.record:
        train = read_json(args.train_record)
        set_name, subset = (
            ("annotated-ppdb", "all") if args.dev == "phrases" else ("ml2010", args.dev)
        )
        dev = scoring.rho(scores, set_name, subset, "dev", args.ml)
        record = {
            "point": train["point"],
            "scores": args.out,
            "criterion": {"dev": dev},
            "dev": {"set": set_name, "subset": subset, "ml": args.ml},
            "train": train,
        }
        write_json(Path(args.record), record)
        log.info("development rho %.4f", dev)
    log.info("scored %d pairs", len(scores))


def _sst(args: argparse.Namespace) -> None:
    import torch

    from paracomp import artefacts
    from paracomp.atomic import write_json
    from paracomp.data.sentiment import read_sst_binary
    from paracomp.papers.wieting2015.cnn import Split, train_static_cnn

    torch.set_num_threads(args.threads)
    from paracomp.registry import block_argument

    settings = block_argument("wieting2015", args.settings, ["sst.*"], "wieting2015 sst --settings")
    folder = _verified(args.folder)
    words, matrix = artefacts.read_embeddings(args.vectors)
    index = {w: i for i, w in enumerate(words)}
    splits = {}
    for split in ("train", "dev", "test"):
        table = read_sst_binary(folder / f"sentiment-{split}")
        texts, labels = table.column("text").to_pylist(), table.column("label").to_pylist()
        splits[split] = Split.encode(texts, labels, index)
    seed = settings.pop("seed")
    result = train_static_cnn(
        matrix, splits["train"], splits["dev"], splits["test"], seed=seed, **settings
    )
    result.update(
        train=len(splits["train"].ids),
        dev_n=len(splits["dev"].ids),
        test_n=len(splits["test"].ids),
        vectors=args.vectors,
        settings={**settings, "seed": seed},
    )
    write_json(Path(args.out), result)
    log.info("SST: %s", {k: v for k, v in result.items() if k != "test_correct"})


def _table(args: argparse.Namespace) -> None:
    from paracomp.papers.wieting2015.tables import Sources, write_table

    def paths(values: list[str] | None) -> list[Path]:
        return [Path(v) for v in values or []]

    def path(value: str | None) -> Path | None:
        return None if value is None else Path(value)

    src = Sources(
        words=paths(args.words),
        seeds=paths(args.seeds),
        init=path(args.init),
        simlex=path(args.simlex),
        counts=path(args.counts),
        sst=paths(args.sst),
        rnn=paths(args.rnn),
        scores=paths(args.scores),
        pairs=paths(args.pairs),
        lexical=path(args.lexical),
        wordnet=path(args.wordnet),
        own_seed=args.own_seed,
    )
    from paracomp.papers.wieting2015.workflow import SETTING
    from paracomp.registry import block_argument
    from paracomp.settings import TABLE_SCHEMA, parse, ref

    where = f"wieting2015 table {args.table}"
    spec = parse(args.spec, ref(TABLE_SCHEMA, "/$defs/table"), f"{where} --spec", TABLE_SCHEMA)
    setting = block_argument("wieting2015", args.setting, SETTING, f"{where} --setting")
    write_table(
        args.table,
        src,
        spec,
        setting,
        args.unavailable or [],
        Path(args.out),
    )


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register ``wieting2015`` and its steps."""
    parent = sub.add_parser("wieting2015", help="Wieting et al. 2015: PARAGRAM and the RNN")
    steps = parent.add_subparsers(dest="step", required=True)

    p = steps.add_parser("init", help="initial vectors: most frequent words, <unk>, PCA")
    p.add_argument("--embeddings", required=True, help="embeddings artefact")
    p.add_argument("--size", type=int, required=True, help="words kept (by frequency)")
    p.add_argument("--dim", type=int, required=True, help="PCA to this dimension if below")
    p.add_argument("--out", required=True, help="the initial vectors' embeddings artefact")
    p.set_defaults(func=_init)

    p = steps.add_parser("lexical", help="lexical training pairs, constraint lists, counts")
    p.add_argument(
        "--source",
        required=True,
        choices=["ppdb-xl-lexicon", "ppdb-1.0-xl-lexical"],
        help="the lexical pairs' source (config papers.wieting2015.lexical)",
    )
    p.add_argument("--folder", required=True, help="the fetched source folder")
    p.add_argument("--init", required=True, help="initial vectors (their words: the vocabulary)")
    p.add_argument("--wordnet", required=True, help="NLTK data folder with WordNet 3.0")
    p.add_argument("--out", required=True, help="folder")
    p.set_defaults(func=_lexical)

    p = steps.add_parser("pairs", help="phrase or bigram training pairs")
    p.add_argument(
        "data",
        choices=["phrases", "jn", "nn", "vn"],
        help="PPDB phrases, or the ML 2010 bigram kind (adjective-noun, noun-noun, verb-noun)",
    )
    p.add_argument("--folder", required=True, help="the fetched source folder")
    p.add_argument("--out", required=True, help="the training pairs (parquet)")
    p.add_argument("--counts", required=True, help="JSON: our count and the paper's")
    p.set_defaults(func=_pairs)

    p = steps.add_parser("sets", help="Annotated-PPDB and ML 2010 as scored phrase pairs")
    p.add_argument("--annotated", help="annotated-ppdb folder")
    p.add_argument("--ml", help="ml2010-bigrams folder")
    p.add_argument(
        "--out", required=True, help="the scored phrase sets, dev and test (one parquet artefact)"
    )
    p.set_defaults(func=_sets)

    p = steps.add_parser("word-scores", help="SimLex-999, WS-353 sim/rel of a word run")
    p.add_argument("--embeddings", required=True, help="the run's word vectors")
    p.add_argument(
        "--set",
        nargs="+",
        required=True,
        metavar="SET=PARQUET",
        help="each word-similarity set's parquet artefact",
    )
    p.add_argument("--record", required=True, help="the run's training record (its point)")
    p.add_argument("--out", required=True, help="JSON: the run's scores")
    p.set_defaults(func=_word_scores)

    p = steps.add_parser("select", help="the grid point with the best criterion")
    p.add_argument("--records", nargs="+", required=True, help="the grid points' score records")
    p.add_argument(
        "--criterion",
        required=True,
        choices=["ws", "simlex", "dev"],
        help="WS-353, SimLex-999 or the development set's ρ",
    )
    p.add_argument("--out", required=True, help="JSON: the selected point's record")
    p.add_argument(
        "--run-out", help="copy the selected point's run (the folder of its record) here"
    )
    p.set_defaults(func=_select)

    p = steps.add_parser("paragram", help="the selected PARAGRAM vectors as an artefact")
    p.add_argument("--selected", required=True, help="the selected point's record (`select --out`)")
    p.add_argument("--out", required=True, help="the PARAGRAM embeddings artefact")
    p.set_defaults(func=_paragram)

    p = steps.add_parser(
        "widen", help="PARAGRAM rows over their source's whole vocabulary (PARAGRAM-SL999's way)"
    )
    p.add_argument("--paragram", required=True, help="the PARAGRAM embeddings artefact")
    p.add_argument("--source", required=True, help="the initial vectors' source embeddings")
    p.add_argument("--size", type=int, required=True, help="init: its most frequent words")
    p.add_argument("--dim", type=int, help="init: its PCA dimension, if any")
    p.add_argument("--out", required=True, help="the widened embeddings artefact")
    p.set_defaults(func=_widen)

    p = steps.add_parser("phrase-scores", help="cosines of a model on the phrase sets")
    p.add_argument("--run", help="a trained pair run (composer.pt, embeddings.parquet)")
    p.add_argument("--embeddings", help="vectors composed by addition")
    p.add_argument("--sets", required=True, help="the scored phrase sets (`sets --out`)")
    p.add_argument("--out", required=True, help="the model's cosines per pair (parquet)")
    p.add_argument("--dev", choices=["phrases", "jn", "nn", "vn"], help="the run's dev set")
    p.add_argument(
        "--ml",
        choices=["ratings", "mean"],
        default="ratings",
        help="ML 2010 ρ over every rating, or over each pair's mean",
    )
    p.add_argument("--train-record", help="the run's training record")
    p.add_argument("--record", help="JSON: the point and its development rho")
    p.set_defaults(func=_phrase_scores)

    p = steps.add_parser("sst", help="the static CNN of Table 4 on binary SST")
    p.add_argument("--vectors", required=True, help="the word vectors the CNN reads")
    p.add_argument("--folder", required=True, help="sst-binary folder")
    p.add_argument("--settings", required=True, help="JSON: the CNN's settings")
    p.add_argument(
        "--threads", type=int, default=1, help="torch threads (and OMP_NUM_THREADS, unless set)"
    )
    p.add_argument("--out", required=True, help="JSON: the CNN's accuracies")
    p.set_defaults(func=_sst)

    p = steps.add_parser("table", help="a table, its compare file and markdown")
    p.add_argument("table", choices=[f"table{n}" for n in range(1, 10)], help="the table's name")
    for name, text in {
        "words": "the word runs' selected records (Table 3)",
        "seeds": "the seed replicates' inputs: the word selections per seed "
        "(<selection>_seed<s>.selected.json, Table 3), the seed chain's other seeds (Table 4: "
        "sst/<vectors>_seed<s>.json; 5, 6: rnn/<data>_seed<s>.selected.json and "
        "scores/paragram_seed<s>.parquet)",
        "sst": "the CNN's accuracies per vectors (Table 4)",
        "rnn": "the RNN runs' selected records",
        "scores": "the initial and PARAGRAM vectors' phrase scores",
        "pairs": "the training pairs' counts",
    }.items():
        p.add_argument(f"--{name}", nargs="+", help=text)
    for name, text in {
        "init": "the initial vectors",
        "simlex": "the SimLex-999 set",
        "counts": "the lexical pairs' counts",
        "lexical": "the lexical training pairs",
        "wordnet": "NLTK data folder with WordNet 3.0",
    }.items():
        p.add_argument(f"--{name}", help=text)
    p.add_argument(
        "--own-seed", type=int, help="the seed chain's own seed (Tables 4-6 with --seeds)"
    )
    p.add_argument("--unavailable", action="append", help="why the table's data is missing")
    p.add_argument("--spec", required=True, help="the table's config entry, as JSON")
    p.add_argument("--setting", required=True, help="the paper block's settings, as JSON")
    p.add_argument(
        "--out", required=True, help="the table (CSV; compare file and markdown beside it)"
    )
    p.set_defaults(func=_table)
