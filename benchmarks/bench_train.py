"""Training throughput (pairs/s) of J_bi and J_pa at d=128, batch 100: CPU and CUDA, eager,
static and graphed steps, one run and a stack of grid points.

J_bi runs are Eq. 1 as printed, and ``J_bi ref`` the reference form (BiCVM's dbltrain:
``half_sq_euclidean``, attraction 1, hinge scale 0.1; elgohary2016's default).

    python benchmarks/bench_train.py                      # SICK train pairs from the mirror
    python benchmarks/bench_train.py --pairs resources/corpus/bilingual_phrases.parquet
    python benchmarks/bench_train.py --concat 3           # ~29-token pairs (sentence-like)
    python benchmarks/bench_train.py --window 5           # 5-token pieces (phrase-like)
    python benchmarks/bench_train.py --stack 12           # also 12 grid points side by side
    python benchmarks/bench_train.py --steps static       # also the static step (any device)

Without ``--pairs`` the pairs are SICK's train sentence pairs (``sick2014`` of the mirror at
$PARACOMP_MIRROR or ../shared/data: sentence_A/sentence_B, lowercased, whitespace tokens,
~10 tokens a side). ``--concat N`` joins N consecutive pairs into one; ``--window L``
cuts both sides into L-token pieces and pairs the pieces in order: real text at the lengths of
the paper's bilingual sentences (28) or phrases (5). The table is repeated up to
``--min-pairs`` so that an epoch lasts long enough to time; each cell is the best of
``--epochs`` epochs (the first includes warm-up and, graphed, the capture), timed by the
training loop itself. Time on an otherwise idle machine: with ``--threads`` above the free
cores, torch's threads wait for each other and the numbers drop several-fold.

Steps (``--steps``; CUDA rows only where CUDA is present): ``eager`` is the default step
(CPU: the gradient by hand with numba kernels; CUDA: autograd, ``cuda_graph: false``),
``static`` the static-shape step of :mod:`paracomp.train.pairs.static` run eagerly, ``graphed`` that
step replayed from a CUDA graph (the default on CUDA). ``--stack N`` adds, for each run, N of
the points of the paper's stack for that run (J_bi: k × margin, J_pa: sampler × score × margin
× λ) trained side by side (:mod:`paracomp.train.pairs.stacked`): ``pairs/s`` is then a point's, and
``point-pairs/s`` the grid points × pairs/s of the stack (a stack's eager step on CUDA, its
points' eager steps one after the other, is not timed).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import torch

from paracomp import artefacts
from paracomp.data.catalog import load, mirror_dir
from paracomp.data.parsers import parse_set
from paracomp.run_config import TrainConfig
from paracomp.train import loop
from paracomp.train.pairs.stacked import StackedPairTask
from paracomp.train.pairs.static import StaticPairTask
from paracomp.train.pairs.task import PairTask, segment_pairs

REPO = Path(__file__).resolve().parents[1]

RUNS = {
    "J_bi k=10 batch-pool": {
        "objective": "bicvm",
        "composer": "sum",
        "sampler": "random",
        "k": 10,
        "pool": "batch",
    },
    "J_bi ref k=10 batch-pool": {
        "objective": "bicvm",
        "composer": "sum",
        "sampler": "random",
        "k": 10,
        "pool": "batch",
        "score": "half_sq_euclidean",
        "attraction": 1.0,
        "hinge_scale": 0.1,
    },
    "J_bi k=10 corpus-pool": {
        "objective": "bicvm",
        "composer": "sum",
        "sampler": "random",
        "k": 10,
        "pool": "corpus",
    },
    "J_pa MAX cosine": {
        "objective": "paraphrase",
        "composer": "mean",
        "sampler": "max",
        "margin": 0.4,
    },
}


STACKS = {
    "bicvm": [{"k": k, "margin": m} for k in (1, 5, 10, 15) for m in (1.0, 10.0, 100.0)],
    "paraphrase": [
        {"sampler": s, "score": score, "margin": m, "reg": r}
        for s in ("max", "mix")
        for score, margins in (("euclidean", (1.0, 10.0, 100.0)), ("cosine", (0.4, 0.6, 0.8)))
        for m in margins
        for r in (1.0, 1e-3, 1e-5, 1e-7, 1e-9)
    ],
}
"""The points of one stack of elgohary2016's published grid (one batch size), by objective."""


def best_pairs_per_s(
    settings: dict, data: pa.Table, device: str, step: str, points: int
) -> float | None:
    """The best epoch's pairs/s (of one point) of ``settings`` with the step ``step``, alone
    (``points`` 0) or as the first ``points`` of its stack; None where it does not apply."""
    if (device == "cpu" and step == "graphed") or (points and step == "eager" and device == "cuda"):
        return None
    config = TrainConfig.from_dict({**settings, "device": device, "cuda_graph": step == "graphed"})
    with tempfile.TemporaryDirectory() as out:
        if points:
            stack = STACKS[config.objective][:points]
            configs = {
                i: TrainConfig.from_dict({**config.to_dict(), **p}) for i, p in enumerate(stack)
            }
            folders = {i: Path(out) / str(i) for i in configs}
            task = StackedPairTask(configs, data, folders, static=step != "eager")
        else:
            task = (PairTask if step == "eager" else StaticPairTask)(config, data)
        curve = loop.run(task, Path(out) / "run", progress=False)
    return float(curve["pairs_per_s"].max())


def sick_pairs() -> pa.Table:
    """SICK's train pairs, lowercased, read by the project's parser from the mirror."""
    mirror = mirror_dir(None) or REPO.parent / "shared" / "data"
    if not (mirror / "sick2014").is_dir():
        sys.exit(f"no --pairs given and no {mirror / 'sick2014'}; set PARACOMP_MIRROR")
    sick = parse_set(load().set("sick2014"), "mirror", mirror / "sick2014")
    sick = sick.filter(pc.equal(sick.column("split"), "train"))
    return pa.table(
        {
            "id": sick.column("id"),
            "s1": pc.utf8_lower(sick.column("s1")),
            "s2": pc.utf8_lower(sick.column("s2")),
        }
    )


def concat(table: pa.Table, n: int) -> pa.Table:
    s1, s2 = table.column("s1").to_pylist(), table.column("s2").to_pylist()
    groups = range(0, len(s1) - n + 1, n)
    return pa.table(
        {
            "id": [str(i) for i in groups],
            "s1": [" ".join(s1[i : i + n]) for i in groups],
            "s2": [" ".join(s2[i : i + n]) for i in groups],
        }
    )


def window(table: pa.Table, size: int) -> pa.Table:
    s1, s2 = [], []
    for a, b in zip(table.column("s1").to_pylist(), table.column("s2").to_pylist(), strict=True):
        ta, tb = a.split(), b.split()
        for j in range(0, min(len(ta), len(tb)) - size + 1, size):
            s1.append(" ".join(ta[j : j + size]))
            s2.append(" ".join(tb[j : j + size]))
    return pa.table({"id": [str(i) for i in range(len(s1))], "s1": s1, "s2": s2})


def mean_tokens(column: pa.ChunkedArray) -> float:
    return pc.mean(pc.list_value_length(pc.utf8_split_whitespace(column))).as_py()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pairs", type=Path, help="SEGMENT_PAIRS parquet (default: SICK train)")
    parser.add_argument("--concat", type=int, default=1, help="join N consecutive pairs")
    parser.add_argument("--window", type=int, help="cut sides into pieces of this many tokens")
    parser.add_argument(
        "--vocab",
        choices=["shared", "separate"],
        help="default: shared for SICK, separate (bilingual) for --pairs",
    )
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=100)
    parser.add_argument("--dim", type=int, default=128)
    parser.add_argument("--reg", type=float, default=0.0, help="λ (the embedded default: 1e-5)")
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--min-pairs", type=int, default=60_000)
    parser.add_argument("--runs", nargs="+", choices=sorted(RUNS), default=list(RUNS))
    parser.add_argument(
        "--steps",
        nargs="+",
        choices=["eager", "static", "graphed"],
        default=["eager", "graphed"],
        help="steps to time (graphed: CUDA only)",
    )
    parser.add_argument(
        "--devices", nargs="+", choices=["cpu", "cuda"], help="default: cpu, and cuda where present"
    )
    parser.add_argument("--stack", type=int, default=0, help="also N grid points side by side")
    args = parser.parse_args()

    table = segment_pairs(artefacts.read(args.pairs)) if args.pairs else sick_pairs()
    name = args.pairs.name if args.pairs else "SICK train"
    if args.concat > 1:
        table, name = concat(table, args.concat), f"{name} x{args.concat} joined"
    if args.window:
        table, name = window(table, args.window), f"{name} in {args.window}-token pieces"
    shared = (args.vocab or ("separate" if args.pairs else "shared")) == "shared"
    copies = max(1, -(-args.min_pairs // table.num_rows))
    data = pa.concat_tables([table.select(["id", "s1", "s2"])] * copies)
    print(
        f"{name}: {table.num_rows} pairs (x{copies} = {data.num_rows}), mean tokens "
        f"{mean_tokens(table.column('s1')):.1f} / {mean_tokens(table.column('s2')):.1f}, "
        f"{'shared' if shared else 'separate'} vocabularies, torch {torch.__version__}, "
        f"{args.threads} threads"
    )

    devices = args.devices or ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])
    print(
        f"\n{'run':24} {'device':7} {'step':8} {'points':>6} {'pairs/s':>10} {'point-pairs/s':>14}"
    )
    for run in args.runs:
        settings = {
            **RUNS[run],
            "dim": args.dim,
            "reg": args.reg,
            "batch_size": args.batch_size,
            "epochs": args.epochs,
            "threads": args.threads,
            "shared_vocab": shared,
        }
        for device in devices:
            stack = min(args.stack, len(STACKS[RUNS[run]["objective"]]))
            for points in [0] + ([stack] if stack else []):
                for step in args.steps:
                    best = best_pairs_per_s(settings, data, device, step, points)
                    if best is None:
                        continue
                    n = max(points, 1)
                    print(
                        f"{run:24} {device:7} {step:8} {n:>6} {best:>10,.0f} {n * best:>14,.0f}",
                        flush=True,
                    )


if __name__ == "__main__":
    main()
