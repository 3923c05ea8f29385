"""CompVec training throughput (definitions per second) per composition function.

    python benchmarks/bench_compvec.py                       # dim 50, all composers, CPU (+CUDA)
    python benchmarks/bench_compvec.py --dim 300 --composers sum gru cnn3579 --threads 2
    python benchmarks/bench_compvec.py --kinds eager static graphed   # the static step too

Trains on the released CompVec split (``compvec-wordnet`` of the mirror at $PARACOMP_MIRROR
or ../shared/data: 49,807 definitions, 48,944-word vocabulary) from random initial rows of
width ``--dim``, embeddings tuned from the first step (the slowest variant: every step updates
the whole matrix with Adam), batch 512, for ``--steps`` steps after ``--warmup`` untimed ones,
as the training loop logs them (wall time), and the process's CPU time per step over all the
steps, warm-up included (the comparable figure on shared cores).

Steps (``--kinds``): ``eager`` is :class:`~paracomp.train.targets.task.TargetTask`'s, ``static``
:mod:`paracomp.train.targets.static`'s run eagerly (any device), ``graphed`` that one replayed
from CUDA graphs (CUDA only; the warm-up covers the eager first step and the capture). Composers
without a static step (:data:`~paracomp.models.STATIC_COMPOSERS`) get the eager row only.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import torch

from paracomp.data.catalog import mirror_dir
from paracomp.models import STATIC_COMPOSERS
from paracomp.models.registry import COMPOSERS
from paracomp.papers.scheepers2018.wordnet_pairs import read_released, read_vocabulary
from paracomp.run_config import TrainConfig
from paracomp.train import loop
from paracomp.train.targets.static import StaticTargetTask
from paracomp.train.targets.task import TargetTask

REPO = Path(__file__).resolve().parents[1]
LOG_EVERY = 10


@contextlib.contextmanager
def profiled(on: bool, device: str) -> Iterator[torch.profiler.profile | None]:
    """A torch profiler over the block (CPU and, on CUDA, its kernels) when ``on``."""
    if not on:
        yield None
        return
    activities = [torch.profiler.ProfilerActivity.CPU]
    if device == "cuda":
        activities.append(torch.profiler.ProfilerActivity.CUDA)
    with torch.profiler.profile(activities=activities) as prof:
        yield prof


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dim", type=int, default=50)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--steps", type=int, default=60, help="timed steps (multiple of 10)")
    parser.add_argument("--warmup", type=int, default=10, help="untimed steps (multiple of 10)")
    parser.add_argument("--composers", nargs="+", default=sorted(COMPOSERS))
    parser.add_argument(
        "--kinds",
        nargs="+",
        choices=["eager", "static", "graphed"],
        default=["eager", "graphed"],
        help="steps to time (graphed: CUDA only)",
    )
    parser.add_argument(
        "--profile", action="store_true", help="also print each run's busiest operators"
    )
    parser.add_argument(
        "--devices", nargs="+", choices=["cpu", "cuda"], help="default: cpu, and cuda where present"
    )
    args = parser.parse_args()

    folder = (mirror_dir(None) or REPO.parent / "shared" / "data") / "compvec-wordnet"
    if not folder.is_dir():
        sys.exit(f"no {folder}; set PARACOMP_MIRROR")
    train = read_released(folder / "train_data.gz")
    vocabulary = read_vocabulary(folder / "vocab.gz")
    matrix = np.random.default_rng(0).uniform(-1, 1, (len(vocabulary), args.dim))
    devices = args.devices or ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])
    print(f"{train.num_rows} definitions, {len(vocabulary)} words, dim {args.dim}")
    header = f"{'composer':10} {'device':7} {'step':8} {'threads':>7} {'defs/s':>10}"
    print(f"\n{header} {'ms/step':>8} {'cpu ms':>7}")
    for name in args.composers:
        for device in devices:
            for kind in args.kinds:
                if (kind != "eager" and name not in STATIC_COMPOSERS) or (
                    kind == "graphed" and device == "cpu"
                ):
                    continue
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
                if kind == "eager":
                    task = TargetTask(config, train, vocabulary, matrix)
                else:
                    graphed = kind == "graphed"
                    task = StaticTargetTask(config, train, vocabulary, matrix, graphed=graphed)
                with tempfile.TemporaryDirectory() as out, profiled(args.profile, device) as prof:
                    cpu = time.process_time()
                    curve = loop.run(task, Path(out), progress=False)
                    cpu = time.process_time() - cpu
                timed = curve[curve["step"] > args.warmup]
                seconds = float(timed["seconds"].sum())
                steps = LOG_EVERY * len(timed)
                print(
                    f"{name:10} {device:7} {kind:8} {args.threads:>7} "
                    f"{steps * config.batch_size / seconds:>10,.0f} "
                    f"{1000 * seconds / steps:>8.2f} {1000 * cpu / config.steps:>7.2f}",
                    flush=True,
                )
                if prof is not None:
                    key = "self_device_time_total" if device == "cuda" else "self_cpu_time_total"
                    print(prof.key_averages().table(sort_by=key, row_limit=12), flush=True)


if __name__ == "__main__":
    main()
