"""Benchmark: evaluating one embeddings model on every parsed evaluation set.

Run after the pipeline has built the inputs, e.g.
``PARACOMP_MIRROR=../shared/data snakemake --cores 2 results/eval/glove-6b-50d/sts.csv``, then
``python benchmarks/bench_eval.py``. Prints seconds for loading, tokenising+encoding+scoring.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import pyarrow.parquet as pq

from paracomp.eval.model_encoder import embeddings_encoder
from paracomp.eval.run import evaluate_model


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--embeddings", default="resources/embeddings/glove-6b-50d.parquet")
    parser.add_argument("--sets", default="resources/sets", help="folder of set parquet files")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    sets = sorted(Path(args.sets).glob("*.parquet"))
    sts = [p for p in sets if "s1" in pq.read_schema(p).names]
    wordsim = [p for p in sets if "w1" in pq.read_schema(p).names]
    pairs = sum(pq.read_metadata(p).num_rows for p in sts)
    times = []
    for _ in range(args.repeat):
        with tempfile.TemporaryDirectory() as out:
            start = time.perf_counter()
            encoding, encoder = embeddings_encoder(Path(args.embeddings), "skip")
            evaluate_model(
                encoding, encoder, sts, wordsim, {}, {}, "moses", True, "skip", Path(out)
            )
            times.append(time.perf_counter() - start)
    print(f"sets: {len(sts)} sentence-pair ({pairs} rows), {len(wordsim)} word-pair")
    print(
        f"evaluate (load + tokenise + encode + score + write): best {min(times):.2f}s of {args.repeat}"
    )


if __name__ == "__main__":
    main()
