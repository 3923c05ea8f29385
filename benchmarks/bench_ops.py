"""Operators per training step of the static steps that CUDA graphs replay, counted on the CPU.

    python benchmarks/bench_ops.py                      # wieting2017's encoders and CompVec
    python benchmarks/bench_ops.py --encoders lstmavg --width 30

A replayed graph launches one kernel per operator of the captured step, each a dependent
launch of at least a few microseconds whatever its size; so where a step's arithmetic is small
(batch 100 at d = 300 is a few GFLOP: well under a millisecond on an H100 or H200), its time
on a GPU is its operator count times the per-kernel latency. This counts the ATen operators
(``TorchDispatchMode``; each but the views (:data:`VIEWS`) becomes one or a few kernels on
CUDA) of one step after a
warm-up step, on the CPU, in the shapes the GPU runs (the count depends on the grid's width and
the composer, not on the dimension, which is kept small here):

- ``bench_encoders.py``'s runs of :class:`~paracomp.train.pairs.static_learned.StaticLearnedTask`:
  batch 100, segments of ``--width`` tokens, scrambling 0.5 and dropout 0.4, MAX, Adam;
- ``bench_compvec.py``'s runs of :class:`~paracomp.train.targets.static.StaticTargetTask`:
  batch 512, the released CompVec split (the mirror's ``compvec-wordnet``), Adam.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pyarrow as pa
import torch
from torch.utils._python_dispatch import TorchDispatchMode

from paracomp.data.catalog import mirror_dir
from paracomp.run_config import TrainConfig
from paracomp.train.pairs.static_learned import StaticLearnedTask
from paracomp.train.targets.static import StaticTargetTask

REPO = Path(__file__).resolve().parents[1]


VIEWS = frozenset(
    "aten." + name
    for name in (
        "view", "_unsafe_view", "detach", "t", "slice", "select", "unsqueeze", "squeeze",
        "expand", "transpose", "permute", "as_strided", "alias", "split", "split_with_sizes",
        "unbind", "chunk", "narrow", "lift_fresh", "_reshape_alias",
    )
)  # fmt: skip
"""Operators that only make a view (no kernel on CUDA)."""


class OpCounter(TorchDispatchMode):
    """Counts the ATen operators dispatched inside it."""

    def __init__(self) -> None:
        super().__init__()
        self.ops: Counter[str] = Counter()

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.ops[str(func.overloadpacket)] += 1
        return func(*args, **(kwargs or {}))


def counted_step(task, batches) -> Counter[str]:
    """The operators of the second step of ``task`` (the first warms up)."""
    task.step(0, next(batches))
    with OpCounter() as counter:
        task.step(1, next(batches))
    return counter.ops


def encoder_task(encoder: str, width: int, dim: int) -> StaticLearnedTask:
    rng = np.random.default_rng(0)

    def side() -> list[str]:
        return [" ".join(f"w{i}" for i in rng.integers(0, 500, width)) for _ in range(300)]

    pairs = pa.table({"id": [str(i) for i in range(300)], "s1": side(), "s2": side()})
    settings = {
        "objective": "paraphrase", "sampler": "max", "shared_vocab": True, "score": "cosine",
        "margin": 0.4, "optimizer": "adam", "lr": 1e-3, "batch_size": 100, "epochs": 1,
        "dim": dim, "composer": encoder, "scramble": 0.5, "dropout": 0.4,
    }  # fmt: skip
    return StaticLearnedTask(TrainConfig.from_dict(settings), pairs)


def compvec_task(composer: str, dim: int) -> StaticTargetTask:
    from paracomp.papers.scheepers2018.wordnet_pairs import read_released, read_vocabulary

    folder = (mirror_dir(None) or REPO.parent / "shared" / "data") / "compvec-wordnet"
    if not folder.is_dir():
        sys.exit(f"no {folder}; set PARACOMP_MIRROR")
    train, vocabulary = (
        read_released(folder / "train_data.gz"),
        read_vocabulary(folder / "vocab.gz"),
    )
    matrix = np.random.default_rng(0).uniform(-1, 1, (len(vocabulary), dim))
    config = TrainConfig(objective="targets", optimizer="adam", lr=1e-3, batch_size=512,
                         dropout=0.25, composer=composer, margin=0.25, steps=4)  # fmt: skip
    return StaticTargetTask(config, train, vocabulary, matrix)


def report(name: str, ops: Counter[str], top: int) -> None:
    kernels = Counter({op: n for op, n in ops.items() if op not in VIEWS})
    common = ", ".join(f"{op[5:]} {n}" for op, n in kernels.most_common(top))
    print(f"{name:16} {sum(ops.values()):>9,} {sum(kernels.values()):>9,}   {common}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--encoders", nargs="+", default=["lstmavg", "gran", "mean"])
    parser.add_argument("--compvec", nargs="+", default=["sum", "max_pad", "gru"])
    parser.add_argument("--width", type=int, default=25, help="tokens per segment")
    parser.add_argument("--dim", type=int, default=16)
    parser.add_argument("--top", type=int, default=6, help="most frequent operators shown")
    args = parser.parse_args()
    torch.set_num_threads(1)
    print(f"torch {torch.__version__}, CPU, dim {args.dim}, width {args.width}: one step's")
    print(f"\n{'run':16} {'operators':>9} {'non-view':>9}   most frequent non-view")
    for encoder in args.encoders:
        task = encoder_task(encoder, args.width, args.dim)
        report(f"pairs {encoder}", counted_step(task, task.batches(0)), args.top)
    for composer in args.compvec:
        task = compvec_task(composer, args.dim)
        report(f"compvec {composer}", counted_step(task, task.batches(0)), args.top)


if __name__ == "__main__":
    main()
