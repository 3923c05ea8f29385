"""Training throughput (pairs/s) of Chen & Gimpel's models in the pair trainer's mega-batch mode.

    python benchmarks/bench_gaussian.py                                   # WLO, LSTM GAUSSIAN
    python benchmarks/bench_gaussian.py --pairs resources/corpus/chen2020/train.parquet
    python benchmarks/bench_gaussian.py --models wlo lstm_avg mean --device cuda

Each model trains one epoch of ``--n`` pairs (``--pairs``: the first ``--n`` of a pairs
artefact; otherwise random pairs of 10–20 Zipf-distributed ids over ``--vocab`` words) with
the paper's settings (:data:`RUNS`: batch 100, mega-batch ``--megabatch`` (20), Adam 1e-3,
scrambling 0.4, the WLO prior), through :func:`paracomp.train.tasks.train_pairs`: pairs/s is
the trainer's own curve (the epoch's pairs over its seconds), and the share of that time spent
composing and mining the mega-batches is measured around
:meth:`~paracomp.train.pairs.megabatch.MegaBatchMode.mined`. Best of ``--repeats``.

Measured 2026-11-24 on this project's 2-core machine, NOT idle (load 9–11 from other jobs),
4,000 KJV–WEB training pairs, torch 2.13 CPU, 1 thread: WLO 315 pairs/s (82% of it composing
and mining the 4,000 × 4,000 log-EIP scores), LSTM GAUSSIAN 162 (40%), LSTM AVG 267 (9%),
WORDAVG 7,394; with 2 threads under the same load 65 and 13 (oversubscribed cores). On one
NVIDIA H200 (torch 2.11.0+cu130, 2026-11-27, ``--device cuda --repeats 1``, random pairs): WLO
6,486 pairs/s (69% composing and mining), LSTM GAUSSIAN 5,126 (78%).
The log-EIP mining in L2-sized tiles (2026-11-28, load 5, 1 thread, random pairs): WLO
0.155 → 0.115 CPU-s a step, LSTM GAUSSIAN 0.24 → 0.22 (docs/benchmarks.md).
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import torch

from paracomp.run_config import TrainConfig
from paracomp.train import loop
from paracomp.train.tasks import pair_task

COMMON = {
    "objective": "paraphrase",
    "shared_vocab": True,
    "optimizer": "adam",
    "lr": 0.001,
    "batch_size": 100,
    "epochs": 1,
    "min_count": 1,
}
RUNS = {
    "wlo": {"composer": "wlo", "dim": 50, "score": "log_eip", "margin": 1.0, "scramble": 0.4,
            "prior_weight": 0.001},
    "lstm_gaussian": {"composer": "lstm_gaussian", "dim": 100, "score": "log_eip", "margin": 1.0,
                      "scramble": 0.4, "reg": 1e-6},
    "lstm_avg": {"composer": "lstm_avg", "dim": 100, "score": "cosine", "margin": 0.4,
                 "scramble": 0.4, "reg": 1e-6},
    "mean": {"composer": "mean", "dim": 50, "score": "cosine", "margin": 0.4, "reg": 1e-6},
}  # fmt: skip


def random_pairs(n: int, vocab: int, rng: np.random.Generator) -> pa.Table:
    """``n`` pairs of 10–20 Zipf-distributed word ids a side."""

    def sentence() -> str:
        ids = (rng.zipf(1.2, size=int(rng.integers(10, 21))) - 1) % vocab
        return " ".join(f"w{i}" for i in ids)

    return pa.table(
        {"id": [str(i) for i in range(n)], "s1": [sentence() for _ in range(n)],
         "s2": [sentence() for _ in range(n)]}
    )  # fmt: skip


def measure(config: TrainConfig, pairs: pa.Table) -> tuple[float, float, float]:
    """Pairs/s of one epoch, the share of it spent composing and mining mega-batches (the
    trainer's task: on CUDA the graphed static step unless ``--no-cuda-graph``) and the
    process's CPU-seconds a step (the epoch's, mining included)."""
    task = pair_task(config, pairs)
    mining = [0.0]
    mined = task.megabatch.mined

    def timed(*args, **kwargs):
        start = time.perf_counter()
        group = mined(*args, **kwargs)
        if config.device == "cuda":
            torch.cuda.synchronize()
        mining[0] += time.perf_counter() - start
        return group

    task.megabatch.mined = timed
    with tempfile.TemporaryDirectory() as out:
        cpu = time.process_time()
        curve = loop.run(task, Path(out), progress=False)
        cpu = time.process_time() - cpu
    seconds = float(curve["seconds"].iloc[0])
    steps = -(-pairs.num_rows // config.batch_size)
    return float(curve["pairs_per_s"].iloc[0]), mining[0] / seconds, cpu / steps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="+", default=["wlo", "lstm_gaussian"], choices=RUNS)
    parser.add_argument("--pairs", help="a pairs artefact (default: random pairs)")
    parser.add_argument("--n", type=int, default=4000, help="pairs trained (one epoch)")
    parser.add_argument("--vocab", type=int, default=20000)
    parser.add_argument("--megabatch", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    parser.add_argument("--cuda-graph", action=argparse.BooleanOptionalAction, default=True)
    args = parser.parse_args()
    if args.pairs:
        pairs = pq.read_table(args.pairs, columns=["id", "s1", "s2"]).slice(0, args.n)
    else:
        pairs = random_pairs(args.n, args.vocab, np.random.default_rng(0))
    device = torch.cuda.get_device_name() if args.device == "cuda" else platform.processor()
    print(
        f"{datetime.date.today()} {platform.node()} {device or platform.machine()}, "
        f"{os.cpu_count()} cores, torch {torch.__version__}, {args.threads} threads, "
        f"load {os.getloadavg()[0]:.1f}; {pairs.num_rows} pairs "
        f"({args.pairs or 'random'}), mega-batch {args.megabatch} x 100"
    )
    for name in args.models:
        config = TrainConfig.from_dict(
            {**COMMON, **RUNS[name], "megabatch": args.megabatch, "threads": args.threads,
             "device": args.device, "cuda_graph": args.cuda_graph}
        )  # fmt: skip
        results = [measure(config, pairs) for _ in range(args.repeats)]
        speed, share, _ = max(results)
        cpu = min(result[2] for result in results)
        print(
            f"{name:14s} {speed:9.0f} pairs/s  ({100 * share:.0f}% composing and mining), "
            f"{cpu:.3f} CPU-s a step"
        )


if __name__ == "__main__":
    main()
