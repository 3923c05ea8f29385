"""Training throughput (pairs/s) of J_bi and J_pa at d=128, batch 100.

    python benchmarks/bench_train.py                      # SICK train pairs from the mirror
    python benchmarks/bench_train.py --pairs resources/corpus/bilingual_phrases.parquet
    python benchmarks/bench_train.py --concat 3           # ~29-token pairs (sentence-like)
    python benchmarks/bench_train.py --window 5           # 5-token pieces (phrase-like)

Without ``--pairs`` the pairs are SICK's train sentence pairs (``sick2014`` of the mirror at
$PARACOMP_MIRROR or ../shared/data: sentence_A/sentence_B, lowercased, whitespace tokens,
~10 tokens a side). ``--concat N`` joins N consecutive pairs into one; ``--window L``
cuts both sides into L-token pieces and pairs the pieces in order: real text at the lengths of
the paper's bilingual sentences (28) or phrases (5). The table is repeated up to
``--min-pairs`` so that an epoch lasts long enough to time; each cell is the best of
``--epochs`` epochs (the first includes warm-up), timed by the training loop itself. Time on
an otherwise idle machine: with ``--threads`` above the free cores, torch's threads wait for
each other and the numbers drop several-fold.
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
from paracomp.train import TrainConfig, train
from paracomp.train.jobs import segment_pairs

REPO = Path(__file__).resolve().parents[1]

RUNS = {
    "J_bi k=10 batch-pool": {
        "objective": "bicvm",
        "composer": "sum",
        "sampler": "random",
        "k": 10,
        "pool": "batch",
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
        f"{'shared' if shared else 'separate'} vocabularies, torch {torch.__version__}"
    )

    devices = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])
    print(f"\n{'run':24} {'device':7} {'threads':>7} {'pairs/s':>10}")
    for run in args.runs:
        for device in devices:
            config = TrainConfig.from_dict(
                {
                    **RUNS[run],
                    "dim": args.dim,
                    "reg": args.reg,
                    "batch_size": args.batch_size,
                    "epochs": args.epochs,
                    "threads": args.threads,
                    "device": device,
                    "shared_vocab": shared,
                }
            )
            with tempfile.TemporaryDirectory() as out:
                result = train(config, data, Path(out), progress=False)
            best = result.history["pairs_per_s"].max()
            print(f"{run:24} {device:7} {args.threads:>7} {best:>10,.0f}", flush=True)


if __name__ == "__main__":
    main()
