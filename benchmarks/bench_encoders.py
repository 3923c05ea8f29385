"""Training throughput (sentence pairs/s) of Wieting & Gimpel's (2017) encoders: by default
the wieting2017 table jobs' own path on their own inputs, or (``--synthetic``) the trainer's
step on random pairs of a chosen shape.

    python benchmarks/bench_encoders.py                     # the table jobs (needs their inputs)
    python benchmarks/bench_encoders.py --encoders lstm gran --points none noise --repeats 2
    python benchmarks/bench_encoders.py --synthetic --device cuda --encoders lstmavg gran --steps 20

**Table jobs** (default): each encoder and point trains as wieting2017's ``point`` job trains
it, with the job's own command (``paracomp train``, a process of its own) on the job's inputs
(``--pairs``, ``--init``: build them with ``snakemake --cores 2
resources/wieting2017/init.parquet``) and wieting2017's embedded default settings (``run``,
``dim``, ``epochs``: 3; the AVG's 7 only with ``--paper-epochs``). The points are ``none`` (no
regulariser: grid ``none``'s point 0) and ``noise`` (dropout 0.4 and scrambling 0.5:
``dropout_scrambling``'s point 0; each step composes the ``2B`` segments without gradient to
mine, then the ``4B`` anchors and negatives' copies with gradient, as the authors' code). The
figure is the job's record's ``pairs_per_s`` (the mean over epochs of pairs / epoch wall time,
checkpoints included), best of ``--repeats``; the ratios are of time per pair: to the LSTM at
the same point (``×LSTM``), to the one-direction encoder (``×1-way``, Bi*), and of ``noise`` to
``none``.

**Synthetic** (``--synthetic``): ``--steps`` optimiser steps (after ``--warmup`` untimed ones)
of the task :func:`~paracomp.train.tasks.pair_task` builds, on random pairs: batch 100,
``--dim`` (word width = hidden size), 20–30 Zipf-distributed tokens a side over ``--vocab``
words, J_pa with cosine and MAX negatives, Adam 1e-3, ``--noise`` as the point ``noise``.
``nn.LSTM`` is ``lstm_avg``'s :class:`~paracomp.models.gaussian.LSTMAvgComposer` (packed
``nn.LSTM``, cuDNN on CUDA) in the same task. On CUDA ``--cuda-graph`` (default) replays the
whole step from a CUDA graph, ``--no-cuda-graph`` runs the eager step. Every new batch shape
costs more the first time it is seen: a few timed steps on a CPU say little about a job.

Table jobs, measured 2026-11-27 on this project's 2-core machine, idle (1 thread, torch 2.13
CPU; 4,000 Bible pairs, GloVe 50d, 3 epochs), pairs/s none / noise: LSTM 4,383 / 2,064,
LSTMAVG 4,259 / 2,031, BiLSTMAVG 2,247 / 1,132, GRAN 3,822 / 1,579, GRAN-2 3,578 / 1,542,
GRAN-3 2,997 / 1,328, GRAN-4 2,672 / 1,263, GRAN-5 3,125 / 1,378, BiGRAN 1,939 / 817, AVG
45,446 / 9,309; the jobs' own records within 2–18% (GRAN's two runs 3,488 and 3,002), and why
noise costs about 2.3× (README, wieting2017).

On one NVIDIA H200 (torch 2.11.0+cu130, 2026-11-27, ``--synthetic --device cuda --encoders
lstmavg gran --steps 20 --warmup 3``, dim 300): LSTMAVG 11,965 and GRAN 11,358 pairs/s
graphed, 1,634 and 1,341 with ``--no-cuda-graph``; the graphed step is bound by its ~1,900
dependent kernels (``bench_ops.py``), not its arithmetic (README, GPU figures).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import torch

from paracomp.models.gaussian import LSTMAvgComposer
from paracomp.registry import paper_settings
from paracomp.run_config import TrainConfig
from paracomp.train.optim import make_optimizer
from paracomp.train.pairs.task import PairTask
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
"""Encoders timed by default: ``nn.LSTM`` is the reference (synthetic only), ``mean`` (AVG)
the floor."""

POINTS: dict[str, dict[str, Any]] = {
    "none": {},
    "noise": {"dropout": 0.4, "scramble": 0.5},
}
"""The table jobs' points timed: no regulariser, and dropout with scrambling."""

ONE_WAY = {"bilstmavg": "lstmavg", "bigran": "gran"}
"""Each bidirectional encoder's one-direction counterpart."""


def job_settings(encoder: str, paper_epochs: bool) -> dict[str, Any]:
    """The base settings of a wieting2017 table job with ``encoder`` (a trainer composer)."""
    block = paper_settings("wieting2017")
    epochs = block["epochs"]
    model = next((m for m, c in block["composers"].items() if c == encoder), encoder)
    n = epochs.get(model, epochs["default"]) if paper_epochs else epochs["default"]
    return {**block["run"], "composer": encoder, "dim": block["dim"], "epochs": n}


def time_job(encoder: str, point: str, args: argparse.Namespace, work: Path) -> dict[str, float]:
    """The record of a table job's training, run as the job runs it: ``paracomp train`` in a
    process of its own (best ``pairs_per_s`` of ``args.repeats`` runs)."""
    best: dict[str, float] = {}
    params = json.dumps(job_settings(encoder, args.paper_epochs))
    for repeat in range(args.repeats):
        out = work / f"{encoder}-{point}-{repeat}"
        command = [
            "paracomp", "train", "--pairs", str(args.pairs), "--init", str(args.init),
            "--params", params, "--point", json.dumps(POINTS[point]), "--out", str(out),
            "--record", str(out / "train.json"), "--threads", str(args.threads),
            "--device", args.device,
        ]  # fmt: skip
        subprocess.run(command, check=True, capture_output=True)
        record = json.loads((out / "train.json").read_text())
        if record["pairs_per_s"] > best.get("pairs_per_s", 0.0):
            best = {"pairs_per_s": record["pairs_per_s"], "seconds": record["seconds"]}
    return best


def table_jobs(args: argparse.Namespace) -> None:
    """Print each encoder's and point's job figures and ratios (module docstring)."""
    for path in (args.pairs, args.init):
        if not path.exists():
            raise SystemExit(
                f"{path} not found: run `snakemake --cores 2 resources/wieting2017/init.parquet`"
            )
    encoders = [e for e in args.encoders if e != "nn.LSTM"]
    print(
        f"# {datetime.date.today()} torch {torch.__version__} {args.device}"
        f" ({platform.processor() or 'cpu'}), {args.threads} threads,"
        f" load {os.getloadavg()[0]:.1f}, table jobs on {args.pairs}"
    )
    print(f"{'encoder':<10} {'point':<6} {'pairs/s':>8} {'seconds':>8} {'×LSTM':>6} {'×1-way':>7}")
    found: dict[tuple[str, str], float] = {}
    with tempfile.TemporaryDirectory() as work:
        for point in args.points:
            for encoder in encoders:
                record = time_job(encoder, point, args, Path(work))
                found[encoder, point] = rate = record["pairs_per_s"]
                lstm, one_way = (
                    found.get(("lstm", point)),
                    found.get((ONE_WAY.get(encoder, ""), point)),
                )
                print(
                    f"{encoder:<10} {point:<6} {rate:>8.0f} {record['seconds']:>8.2f}"
                    f" {lstm / rate if lstm else float('nan'):>6.2f}"
                    f" {one_way / rate if one_way else float('nan'):>7.2f}",
                    flush=True,
                )
    if "none" in args.points and "noise" in args.points:
        print("noise ÷ none (time per pair):")
        for encoder in encoders:
            print(f"  {encoder:<10} {found[encoder, 'none'] / found[encoder, 'noise']:.2f}")


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


def synthetic(args: argparse.Namespace) -> None:
    """Print each encoder's synthetic step figures (module docstring)."""
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--encoders", nargs="+", default=ENCODERS)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--device", choices=["cpu", "cuda"], default="cpu")
    parser.add_argument("--repeats", type=int, default=1)
    jobs = parser.add_argument_group("table jobs (default)")
    jobs.add_argument(
        "--pairs", type=Path, default=Path("resources/wieting2017/pairs/sentences.parquet")
    )
    jobs.add_argument("--init", type=Path, default=Path("resources/wieting2017/init.parquet"))
    jobs.add_argument("--points", nargs="+", choices=list(POINTS), default=list(POINTS))
    jobs.add_argument(
        "--paper-epochs", action="store_true", help="AVG trains 7 epochs, as its jobs"
    )
    synth = parser.add_argument_group("synthetic step")
    synth.add_argument("--synthetic", action="store_true")
    synth.add_argument("--dim", type=int, default=300)
    synth.add_argument("--vocab", type=int, default=20000)
    synth.add_argument("--steps", type=int, default=3)
    synth.add_argument("--warmup", type=int, default=2, help="untimed steps (CUDA: captures)")
    synth.add_argument("--noise", action=argparse.BooleanOptionalAction, default=True)
    synth.add_argument("--cuda-graph", action=argparse.BooleanOptionalAction, default=True)
    args = parser.parse_args()
    (synthetic if args.synthetic else table_jobs)(args)


if __name__ == "__main__":
    main()
