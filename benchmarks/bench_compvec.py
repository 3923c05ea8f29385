"""CompVec training throughput (definitions per second) per composition function.

    python benchmarks/bench_compvec.py                       # dim 50, all composers, CPU (+CUDA)
    python benchmarks/bench_compvec.py --dim 300 --composers sum gru cnn3579 --threads 2

Trains on the released CompVec split (``compvec-wordnet`` of the mirror at $PARACOMP_MIRROR
or ../shared/data: 49,807 definitions, 48,944-word vocabulary) from random initial rows of
width ``--dim``, embeddings tuned from the first step (the slowest variant: every step updates
the whole matrix with Adam), batch 512, for ``--steps`` steps after ``--warmup`` untimed ones,
as the training loop logs them.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
import torch

from paracomp.data.catalog import mirror_dir
from paracomp.models.registry import COMPOSERS
from paracomp.papers.scheepers2018.wordnet_pairs import read_released, read_vocabulary
from paracomp.train.config import TrainConfig
from paracomp.train.targets import train_targets

REPO = Path(__file__).resolve().parents[1]
LOG_EVERY = 10


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dim", type=int, default=50)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--steps", type=int, default=60, help="timed steps (multiple of 10)")
    parser.add_argument("--warmup", type=int, default=10, help="untimed steps (multiple of 10)")
    parser.add_argument("--composers", nargs="+", default=sorted(COMPOSERS))
    args = parser.parse_args()

    folder = (mirror_dir(None) or REPO.parent / "shared" / "data") / "compvec-wordnet"
    if not folder.is_dir():
        sys.exit(f"no {folder}; set PARACOMP_MIRROR")
    train = read_released(folder / "train_data.gz")
    vocabulary = read_vocabulary(folder / "vocab.gz")
    matrix = np.random.default_rng(0).uniform(-1, 1, (len(vocabulary), args.dim))
    devices = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])
    print(f"{train.num_rows} definitions, {len(vocabulary)} words, dim {args.dim}")
    print(f"\n{'composer':10} {'device':7} {'threads':>7} {'defs/s':>10} {'ms/step':>8}")
    for name in args.composers:
        for device in devices:
            config = TrainConfig(
                objective="targets",
                optimizer="adam",
                lr=1e-3,
                batch_size=512,
                dropout=0.25,
                composer=name,
                margin=0.25,
                steps=args.warmup + args.steps,
                log_every=LOG_EVERY,
                checkpoint_every=10**9,
                device=device,
                threads=args.threads,
            )
            with tempfile.TemporaryDirectory() as out:
                train_targets(config, train, vocabulary, matrix, Path(out))
                curve = pd.read_parquet(Path(out) / "curve.parquet")
            timed = curve[curve["step"] > args.warmup]
            seconds = float(timed["seconds"].sum())
            steps = LOG_EVERY * len(timed)
            print(
                f"{name:10} {device:7} {args.threads:>7} "
                f"{steps * config.batch_size / seconds:>10,.0f} {1000 * seconds / steps:>8.1f}",
                flush=True,
            )


if __name__ == "__main__":
    main()
