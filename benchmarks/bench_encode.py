"""Sentences per second of ``paracomp.load_encoder(...).encode`` against the evaluator's own
path, for AVG (averaged word rows) and GRAN (a ``gran`` composer) on the CPU.

    python benchmarks/bench_encode.py                      # d = 50 and 300, 1 thread
    python benchmarks/bench_encode.py --dims 300 --threads 2 --repeat 5

The sentences are the STS 2012–16 sets' (``resources/sets/sts201*.parquet``, built by the main
job; every distinct sentence once), the vocabulary every token they hold plus random words up
to ``--vocab`` (random rows of width d; GRAN's parameters as initialised). ``evaluator``
tokenises the whole list (``tokenize_all``) and encodes it in one call, as ``predict_pairs``
does; ``encode`` is :meth:`~paracomp.encoders.encoder.Encoder.encode` (batches of
``--batch-size``, each tokenised then encoded). Each figure is the best of ``--repeat`` runs,
the tokeniser's cache cleared before each (Moses is part of both); ``warm`` is ``encode`` with
the tokeniser's cache full (the composition alone, and the batching around it).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import torch

from paracomp.encoders.encoder import Encoder, Tokenisation
from paracomp.eval.encode import AveragedEmbeddings
from paracomp.eval.tokens import _tokens, tokenize_all
from paracomp.eval.trained import TrainedEncoder, features_of
from paracomp.models.registry import make_composer


def _sentences(folder: Path) -> list[str]:
    found: set[str] = set()
    for path in sorted(folder.glob("sts201[2-6].parquet")):
        table = pq.read_table(path, columns=["s1", "s2"])
        found |= set(table["s1"].to_pylist()) | set(table["s2"].to_pylist())
    if not found:
        raise SystemExit(f"no STS 2012-16 sets in {folder}: run the main job first")
    return sorted(found)


def _best(run: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        _tokens.cache_clear()
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", type=Path, default=Path("resources/sets"))
    parser.add_argument("--dims", type=int, nargs="+", default=[50, 300])
    parser.add_argument("--vocab", type=int, default=100_000)
    parser.add_argument("--batch-size", type=int, default=1024)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    sentences = _sentences(args.sets)
    tokens = Tokenisation("moses", True, "skip")
    seen = sorted({t for s in tokenize_all(sentences, "moses", True) for t in s})
    words = seen + [f"w{i}" for i in range(max(args.vocab - len(seen), 0))]
    print(f"{len(sentences)} sentences, {len(words)} words, {args.threads} thread(s)")
    print("model  d     evaluator sent/s  encode sent/s  warm sent/s")
    for dim in args.dims:
        rows = np.random.default_rng(0).normal(size=(len(words), dim)).astype(np.float32)
        torch.manual_seed(0)
        gran = make_composer("gran", dim).eval()
        inners = {
            "AVG": AveragedEmbeddings(words, rows),
            "GRAN": TrainedEncoder(gran, words, rows, features_of("gran")),
        }
        for name, inner in inners.items():
            encoder = Encoder(inner, tokens)
            evaluator = _best(
                lambda inner=inner: inner.encode(tokenize_all(sentences, "moses", True)),
                args.repeat,
            )
            ours = _best(
                lambda encoder=encoder: encoder.encode(sentences, batch_size=args.batch_size),
                args.repeat,
            )
            encoder.encode(sentences)
            start = time.perf_counter()
            encoder.encode(sentences, batch_size=args.batch_size)
            warm = time.perf_counter() - start
            n = len(sentences)
            print(
                f"{name:5}  {dim:<4}  {n / evaluator:16,.0f}  {n / ours:13,.0f}  {n / warm:11,.0f}"
            )


if __name__ == "__main__":
    main()
