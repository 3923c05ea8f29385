"""Training throughput (sentence pairs/s) of Wieting & Gimpel's (2017) encoders in the pair
trainer, and of ``nn.LSTM`` (cuDNN on CUDA) on the same shapes as a reference.

    python benchmarks/bench_encoders.py --threads 2                       # every encoder
    python benchmarks/bench_encoders.py --encoders lstmavg gran --steps 20 --device cuda
    python benchmarks/bench_encoders.py --device cuda --no-cuda-graph     # the eager CUDA step

Each encoder trains ``--steps`` optimiser steps (after ``--warmup`` untimed ones) of
:class:`~paracomp.train.pairs.PairTask` on random pairs: batch 100, ``--dim`` 300 (word width
= hidden size), segments of 20–30 tokens (25 on average) over ``--vocab`` Zipf-distributed
words, J_pa with cosine and MAX negatives over the 2B segments, Adam 1e-3, and the GRAN demo's
regularisers (``--noise``: scrambling 0.5 and dropout 0.4, so each step composes the batch
once without gradient to mine, then the 4B anchors and negatives with gradient; ``--no-noise``:
one composition of the 2B segments). ``nn.LSTM`` is ``lstm_avg``'s
:class:`~paracomp.models.gaussian.LSTMAvgComposer` (packed ``nn.LSTM``, no peepholes, mean of
the states) at the same width, swapped into the same task (composed eagerly: packed, cuDNN on
CUDA). Pairs/s = 100 · steps / seconds, best of ``--repeats``. On CUDA the encoders run as the
trainer runs them (:func:`~paracomp.train.tasks.pair_task`): ``--cuda-graph`` (default) replays
the whole step from a CUDA graph (:class:`~paracomp.train.static_learned.StaticLearnedTask`,
captured in the warm-up steps), ``--no-cuda-graph`` runs the eager step.

Measured 2026-11-26 on this project's shared 2-core CPU machine, NOT idle (load 7.7–7.9 from
other sessions' jobs, so the figures are indicative only), torch 2.13 CPU, ``--threads 2
--steps 2 --warmup 1 --repeats 3``, dim 300, batch 100, 20–30 tokens, scrambling 0.5 +
dropout 0.4 (each step: the 2B segments composed without gradient to mine, then 4B with
gradient); pairs/s by the wall clock (pairs per CPU-second summed over both threads):

    lstm 39.8 (68.1)    lstmavg 37.7 (64.7)    bilstmavg 19.6 (33.9)    gran 35.6 (59.3)
    gran2 33.2 (56.8)   gran3 27.8 (52.1)      gran4 26.4 (47.5)        gran5 30.8 (54.4)
    bigran 17.4 (31.6)  nn.LSTM 17.0 (32.2)    mean (AVG) 83.2 (124.2)

``nn.LSTM`` (packed, PyTorch's CPU kernel, no peepholes) is slower than the unrolled peephole
LSTM on these shapes. A 1-thread run just before, under load 9, was erratic (lstm 33.9,
lstmavg 14.3, gran 8.9, nn.LSTM 17.0, mean 87.9 pairs/s): with more runnable jobs than cores,
timings here vary by 2–4×; rerun on an idle machine before quoting them.

On one NVIDIA H200 (torch 2.11.0+cu130, 2026-11-27, ``--device cuda --encoders lstmavg gran
--steps 20 --warmup 3``): LSTMAVG 11,965 and GRAN 11,358 pairs/s graphed, 1,634 and 1,341 with
``--no-cuda-graph``; the graphed step is bound by its ~1,900 dependent kernels
(``bench_ops.py``), not its arithmetic (README, GPU figures).
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import time

import numpy as np
import pyarrow as pa
import torch

from paracomp.models.gaussian import LSTMAvgComposer
from paracomp.train.config import TrainConfig
from paracomp.train.optim import make_optimizer
from paracomp.train.pairs import PairTask
from paracomp.train.tasks import pair_task

ENCODERS = [
    "lstm",
    "lstmavg",
    "bilstmavg",
    "gran",
    "gran2",
    "gran3",
    "gran4",
    "gran5",
    "bigran",
    "nn.LSTM",
    "mean",
]
"""Encoders timed by default: ``nn.LSTM`` is the reference, ``mean`` (AVG) the floor."""


def random_pairs(n: int, vocab: int, seed: int = 0) -> pa.Table:
    """``n`` pairs of 20–30 Zipf-distributed tokens a side."""
    rng = np.random.default_rng(seed)
    weights = 1.0 / np.arange(1, vocab + 1)
    weights /= weights.sum()

    def side() -> list[str]:
        lengths = rng.integers(20, 31, n)
        ids = rng.choice(vocab, lengths.sum(), p=weights)
        words = np.char.add("w", ids.astype(str))
        return [" ".join(s) for s in np.split(words, np.cumsum(lengths)[:-1])]

    s1, s2 = side(), side()
    return pa.table(
        {
            "id": [str(i) for i in range(n)],
            "s1": s1,
            "s2": s2,
            "len1": pa.array([len(s.split()) for s in s1], pa.int32()),
            "len2": pa.array([len(s.split()) for s in s2], pa.int32()),
        }
    )


def task_for(encoder: str, pairs: pa.Table, args: argparse.Namespace) -> PairTask:
    settings = {
        "objective": "paraphrase",
        "sampler": "max",
        "shared_vocab": True,
        "score": "cosine",
        "margin": 0.4,
        "optimizer": "adam",
        "lr": 0.001,
        "batch_size": 100,
        "epochs": 1,
        "dim": args.dim,
        "composer": "lstmavg" if encoder == "nn.LSTM" else encoder,
        "device": args.device,
        "threads": args.threads,
        "cuda_graph": args.cuda_graph,
    }
    if args.noise:
        settings.update(scramble=0.5, dropout=0.4)
    config = TrainConfig.from_dict(settings)
    if encoder != "nn.LSTM":
        return pair_task(config, pairs)
    task = PairTask(TrainConfig.from_dict({**settings, "cuda_graph": False}), pairs)
    composer = LSTMAvgComposer(args.dim, torch.Generator().manual_seed(0), word_width=args.dim)
    task.model.composer = composer.to(task.device)
    task.optimizer = make_optimizer(task.model, config.optimizer, config.lr, config.lr_composer)
    return task


def _sync(device: str) -> None:
    if device == "cuda":
        torch.cuda.synchronize()


def time_encoder(encoder: str, pairs: pa.Table, args: argparse.Namespace) -> tuple[float, float]:
    """Best pairs/s over ``args.repeats`` runs of ``args.steps`` timed steps, by the wall
    clock and by the process's CPU time (the wall time of an idle machine where one thread
    runs, whatever other jobs take)."""
    wall = cpu = 0.0
    for _ in range(args.repeats):
        task = task_for(encoder, pairs, args)
        batches = task.batches(0)
        for step in range(args.warmup):
            task.step(step, next(batches))
        _sync(args.device)
        start, start_cpu = time.perf_counter(), time.process_time()
        for step in range(args.steps):
            loss = task.step(args.warmup + step, next(batches))
        float(loss)
        _sync(args.device)
        wall = max(wall, 100 * args.steps / (time.perf_counter() - start))
        cpu = max(cpu, 100 * args.steps / (time.process_time() - start_cpu))
    return wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--encoders", nargs="+", default=ENCODERS)
    parser.add_argument("--dim", type=int, default=300)
    parser.add_argument("--vocab", type=int, default=20000)
    parser.add_argument("--steps", type=int, default=3)
    parser.add_argument("--warmup", type=int, default=2, help="untimed steps (CUDA: captures)")
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--device", choices=["cpu", "cuda"], default="cpu")
    parser.add_argument("--noise", action=argparse.BooleanOptionalAction, default=True)
    parser.add_argument("--cuda-graph", action=argparse.BooleanOptionalAction, default=True)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    torch.set_flush_denormal(True)
    pairs = random_pairs(100 * (args.steps + args.warmup), args.vocab)
    device = torch.cuda.get_device_name() if args.device == "cuda" else platform.processor()
    print(
        f"# {datetime.date.today()} torch {torch.__version__} {args.device} ({device or 'cpu'}),"
        f" {args.threads} threads, load {os.getloadavg()[0]:.1f}, dim {args.dim}, batch 100,"
        f" noise {args.noise}, cuda_graph {args.cuda_graph}"
    )
    print(f"{'encoder':<10} {'pairs/s':>9} {'pairs/cpu-s':>12}")
    for encoder in args.encoders:
        wall, cpu = time_encoder(encoder, pairs, args)
        print(f"{encoder:<10} {wall:>9.1f} {cpu:>12.1f}", flush=True)


if __name__ == "__main__":
    main()
