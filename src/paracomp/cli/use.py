"""``paracomp encode``, ``similarity``, ``neighbours`` and ``export``: a trained or pretrained
model on one's own sentences (:func:`paracomp.load_encoder`), or written out for other
libraries (:mod:`paracomp.encoders.export`)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def _encoder(args: argparse.Namespace):
    from paracomp.encoders.encoder import Tokenisation
    from paracomp.encoders.load import load_encoder

    given = None
    if args.tokenizer is not None or args.lowercase is not None or args.oov is not None:
        if args.tokenizer is None or args.lowercase is None or args.oov is None:
            from paracomp.errors import ConfigError

            raise ConfigError("give --tokenizer, --lowercase/--no-lowercase and --oov together")
        given = Tokenisation(args.tokenizer, args.lowercase, args.oov)
    return load_encoder(args.model, device=args.device, root=Path(args.root), tokenisation=given)


def _encode_all(encoder, sentences: list[str], batch_size: int):
    """Every sentence's vector, with a progress bar on a terminal for long inputs."""
    import numpy as np
    from tqdm import tqdm

    out = np.zeros((len(sentences), encoder.dim), dtype=np.float32)
    long = len(sentences) > 4 * batch_size
    with tqdm(total=len(sentences), unit="sent", disable=None if long else True) as bar:
        for start, vectors in encoder.batches(sentences, batch_size):
            out[start : start + len(vectors)] = vectors
            bar.update(len(vectors))
    return out


def _empty_note(encoder, sentences: list[str]) -> str:
    """How many sentences are empty, or have no token the model knows (each encodes as the
    model's vector of an empty sentence)."""
    tokens = encoder.tokenize(sentences)
    empty = sum(1 for t in tokens if not t)
    unknown = sum(1 for t in tokens if t and not any(map(encoder.known, t)))
    return (
        f"{empty} empty sentence(s) and {unknown} with no known token, each encoded as an empty"
        f" sentence (OOV policy {encoder.tokenisation.oov!r})"
    )


def _encode(args: argparse.Namespace) -> None:
    from paracomp.encoders import vectors
    from paracomp.encoders.inputs import read_sentences

    out = Path(args.out)
    if out.suffix not in vectors.SUFFIXES:
        from paracomp.errors import ConfigError

        raise ConfigError(f"--out {out}: a .parquet or .npy file")
    sentences = read_sentences(Path(args.input), args.column)
    encoder = _encoder(args)
    matrix = _encode_all(encoder, sentences, args.batch_size)
    note = _empty_note(encoder, sentences)
    vectors.write(sentences, matrix, out, vectors.provenance(encoder, Path(args.input), note))
    print(f"{out}: {len(sentences)} sentences, {matrix.shape[1]} dimensions; {note}")


def _similarity(args: argparse.Namespace) -> None:
    import csv

    from paracomp.encoders.inputs import read_columns

    first, second = read_columns(Path(args.pairs), args.columns)
    encoder = _encoder(args)
    scores = encoder.similarity(
        _encode_all(encoder, first, args.batch_size), _encode_all(encoder, second, args.batch_size)
    )
    rows = [(a, b, f"{s:.6f}") for a, b, s in zip(first, second, scores)]
    if args.out is None:
        writer = csv.writer(sys.stdout)
        writer.writerow([*args.columns, "cosine"])
        writer.writerows(rows)
        return
    from paracomp.atomic import atomic_path

    with atomic_path(args.out) as tmp, open(tmp, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow([*args.columns, "cosine"])
        writer.writerows(rows)


def _neighbours(args: argparse.Namespace) -> None:
    from paracomp.encoders.search import corpus_vectors, nearest

    encoder = _encoder(args)
    sentences, matrix, cache = corpus_vectors(
        encoder,
        Path(args.corpus),
        args.column,
        args.cache,
        lambda s: _encode_all(encoder, s, args.batch_size),
    )
    for query in args.query:
        print(f"# {query}")
        for rank, (index, score) in enumerate(nearest(encoder, matrix, query, args.k), 1):
            print(f"{rank}\t{score:.4f}\t{sentences[index]}")
    print(f"(corpus vectors: {cache})", file=sys.stderr)


def _export(args: argparse.Namespace) -> None:
    from paracomp.encoders.export import export

    encoder = _encoder(args)
    export(encoder, args.format, Path(args.out), Path(args.root))
    print(f"{args.out}: {args.model} as {args.format}")


def _model_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--model",
        required=True,
        help="a model name evaluated under --root (e.g. glove-6b-50d, <paper>/<run>), a run"
        " folder, a selected model, an embeddings parquet or an exported folder",
    )
    p.add_argument("--root", default=".", help="the project folder whose results/eval names models")
    p.add_argument("--device", default="cpu", help="torch device of a composing model")
    p.add_argument("--batch-size", type=int, default=1024, help="sentences per batch")
    p.add_argument("--tokenizer", choices=["moses", "whitespace"], help="for an unevaluated model")
    p.add_argument(
        "--lowercase",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="for an unevaluated model: lowercase before looking words up",
    )
    p.add_argument("--oov", choices=["skip", "unk", "drop"], help="for an unevaluated model")


def add_parsers(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("encode", help="encode sentences with a trained or pretrained model")
    _model_arguments(p)
    p.add_argument(
        "--in", dest="input", required=True, help="text (a sentence a line), .csv, .tsv or .parquet"
    )
    p.add_argument("--column", help="the sentence column of a .csv, .tsv or .parquet input")
    p.add_argument("--out", required=True, help=".parquet (sentence, vector, provenance) or .npy")
    p.set_defaults(func=_encode)

    p = sub.add_parser("similarity", help="cosine similarity of sentence pairs under a model")
    _model_arguments(p)
    p.add_argument(
        "--pairs", required=True, help=".csv, .tsv or .parquet with two sentence columns"
    )
    p.add_argument(
        "--columns",
        nargs=2,
        default=["s1", "s2"],
        metavar=("FIRST", "SECOND"),
        help="the pairs file's two sentence columns",
    )
    p.add_argument("--out", help="CSV of the pairs and their cosine (default: standard output)")
    p.set_defaults(func=_similarity)

    p = sub.add_parser("neighbours", help="the corpus sentences nearest to queries")
    _model_arguments(p)
    p.add_argument(
        "--corpus", required=True, help="text (a sentence a line), .csv, .tsv or .parquet"
    )
    p.add_argument("--column", help="the sentence column of a .csv, .tsv or .parquet corpus")
    p.add_argument("--query", required=True, action="append", help="a query sentence (repeatable)")
    p.add_argument("-k", type=int, default=10, help="neighbours per query")
    p.add_argument("--cache", help="the corpus vectors' parquet (default: beside the corpus)")
    p.set_defaults(func=_neighbours)

    p = sub.add_parser("export", help="write a model for gensim, sentence-transformers, model2vec")
    _model_arguments(p)
    p.add_argument(
        "--format",
        required=True,
        choices=["word2vec", "glove", "sentence-transformers", "model2vec", "paracomp"],
        help="word vectors as text, a static sentence model, or paracomp's own folder (any model)",
    )
    p.add_argument("--out", required=True, help="the output folder (replaced whole)")
    p.set_defaults(func=_export)
