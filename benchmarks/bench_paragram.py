"""Training throughput (pairs/s) of Wieting et al. (2015)'s models through the trainer
(:class:`paracomp.train.pairs.task.PairTask`, the path ``paracomp train`` takes).

    python benchmarks/bench_paragram.py                       # both parts, every batch size
    python benchmarks/bench_paragram.py --part words --batch-sizes 100 1000 --dim 50
    python benchmarks/bench_paragram.py --device cuda         # where a GPU is lent

``words``: PARAGRAM (Eq. 2) on the mirror's PPDB-XL lexicon pairs (the §5.2 filters, no
vocabulary filter): sampler ``max_skip`` (MAX as the authors mine it: identical-word skip,
floor −5), dot-product hinge, margin 1, AdaGrad 0.5 (ε 1e-4); ``+ constraints`` excludes each
word's PPDB neighbours (no WordNet lemmas here); ``+ reg_initial`` adds the code's L2 pull to
the initial vectors over the whole table at every step (λ = 1e-4). Batch sizes: the paper's
grid {100, 250, 500, 1000}.

``phrases``: the tree RNN (Eq. 1, ``tree_rnn``) on the mirror's 60k PPDB phrase pairs,
right-branching trees, AdaGrad 0.5 on the rows and 0.05 on W and b, λ_W = 1e-3,
λ_Ww = 1e-3. Batch sizes: the §6.1 grid {100, 250, 500, 1000, 2000}.

Word rows start from a seeded normal draw (the cost does not depend on the values). Each cell
is the batch size over the median time of ``--steps`` steps after ``--warmup``, the batch
drawn outside the timing. The 2-core machines are shared: ``--clock cpu`` times the process's
CPU time instead of the wall clock (with one thread, the wall clock of an idle machine).
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import statistics
import time
from pathlib import Path

import numba
import pyarrow as pa
import torch

from paracomp.paraphrase.lexical import lexical_pairs, neighbours
from paracomp.paraphrase.ppdb import read_scored_pairs, read_xl_lexicon
from paracomp.run_config import TrainConfig
from paracomp.train.pairs.task import PairTask
from paracomp.train.tasks import pair_task

REPO = Path(__file__).resolve().parents[1]
WORDS = {
    "objective": "paraphrase",
    "sampler": "max_skip",
    "score": "dot",
    "composer": "sum",
    "shared_vocab": True,
    "margin": 1.0,
    "lr": 0.5,
    "adagrad_eps": 1e-4,
}
PHRASES = {**WORDS, "composer": "tree_rnn", "lr_composer": 0.05}


def mirror() -> Path:
    return Path(os.environ.get("PARACOMP_MIRROR", REPO.parent / "shared" / "data"))


def timed(task: PairTask, args: argparse.Namespace) -> float:
    """Pairs per second of ``task``'s steps (median step time)."""
    clock = time.process_time if args.clock == "cpu" else time.perf_counter
    batches = task.batches(0)
    times = []
    for step in range(args.warmup + args.steps):
        batch = next(batches)
        if task.device.type == "cuda":
            torch.cuda.synchronize()
        start = clock()
        task.step(step, batch).item()
        if step >= args.warmup:
            times.append(clock() - start)
    return task.config.batch_size / statistics.median(times)


def words(args: argparse.Namespace) -> None:
    pairs, _ = lexical_pairs(read_xl_lexicon(mirror() / "ppdb-xl-lexicon" / "ppdb-xl.txt"))
    lists = neighbours(zip(pairs["s1"].to_pylist(), pairs["s2"].to_pylist(), strict=True))
    variants = {
        "words": {},
        "+ constraints": {"constraints": "candidate"},
        "+ reg_initial": {"reg_initial": 1e-4},
        "+ both": {"constraints": "candidate", "reg_initial": 1e-4},
    }
    print(f"words: {pairs.num_rows:,} pairs, dim {args.dim}")
    report(args, pairs, WORDS, variants, args.batch_sizes or [100, 250, 500, 1000], lists)


def phrases(args: argparse.Namespace) -> None:
    path = mirror() / "ppdb-phrase-train-60k" / "ppdb_train.txt"
    pairs = read_scored_pairs(path).select(["id", "s1", "s2", "len1", "len2"])
    variants = {"tree RNN": {"reg_composer": 1e-3, "reg_initial": 1e-3}}
    print(f"phrases: {pairs.num_rows:,} pairs, dim {args.dim}")
    report(args, pairs, PHRASES, variants, args.batch_sizes or [100, 250, 500, 1000, 2000])


def report(
    args: argparse.Namespace,
    pairs: pa.Table,
    base: dict,
    variants: dict[str, dict],
    sizes: list[int],
    lists: dict | None = None,
) -> None:
    print("| run | " + " | ".join(f"batch {b}" for b in sizes) + " |")
    print("|---|" + "---|" * len(sizes))
    for name, extra in variants.items():
        cells = []
        for size in sizes:
            settings = {**base, **extra, "batch_size": size, "dim": args.dim}
            settings.update(threads=args.threads, device=args.device, cuda_graph=args.cuda_graph)
            task = pair_task(TrainConfig.from_dict(settings), pairs, constraints=lists)
            cells.append(f"{timed(task, args):,.0f}")
        print(f"| {name} | " + " | ".join(cells) + " |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", choices=["words", "phrases", "both"], default="both")
    parser.add_argument("--batch-sizes", type=int, nargs="+")
    parser.add_argument("--dim", type=int, default=25)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--device", choices=["cpu", "cuda"], default="cpu")
    parser.add_argument(
        "--cuda-graph",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="on CUDA the trainer's graphed static step (default) or the eager one",
    )
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--clock", choices=["wall", "cpu"], default="wall")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    numba.set_num_threads(min(args.threads, numba.config.NUMBA_NUM_THREADS))
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(
        f"{datetime.date.today()}, {platform.processor() or platform.machine()}, "
        f"{os.cpu_count()} cores, load {load:.1f}, {args.threads} threads, {args.device}, "
        f"{args.clock} clock, torch {torch.__version__}"
    )
    if args.part in ("words", "both"):
        words(args)
    if args.part in ("phrases", "both"):
        phrases(args)


if __name__ == "__main__":
    main()
