"""Benchmark: the sharded phrase table and pivot at k× the Bible, peak RSS per job.

Builds k copies of the corpus chain's sentence pairs (alignments reused): ``plain`` copies
repeat the verses; ``perturbed`` copies rename 30% of each language's word types per copy
(seeded), so that distinct phrase pairs keep growing as in real text. Runs every job of the
sharded phrase table and pivot as the workflow does (``paracomp corpus phrase-…`` and
``pivot-…``, one shard per ``--shard-pairs`` pairs, as many partitions), ``--jobs`` at a
time, and reports per k the largest peak RSS of each kind of job (``bilingual_phrases`` on the
gathered table included, with the embedded default's rules), the wall time and the distinct
phrase pairs. ``--old`` adds the one-process table
(:func:`paracomp.phrases.score.build_phrase_table`) up to that k::

    python benchmarks/bench_scale.py --sentences resources/corpus/bilingual_sentences.parquet \\
        --alignments resources/corpus/alignments.parquet --work /tmp/scale --out scale.csv
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from paracomp.corpus.sharding import PIVOT_SHARDS

BILINGUAL = {
    "rules": {
        "min_count": 1,
        "min_prob": 0.0,
        "min_length": 1,
        "max_length": 7,
        "max_pairs": 3_000_000,
    },
    "seed": 1,
}
"""``bilingual_phrases``' settings in the embedded default (config.yaml)."""

PIVOT_RULES = {
    "min_count": 2,
    "min_translation_prob": 0.01,
    "min_prob": 0.01,
    "top_k": 20,
    "max_pairs": 3_000_000,
}
ONE_PROCESS = """
import sys
import pyarrow.parquet as pq
from paracomp.align.symmetrize import Alignments, symmetrize_corpus
from paracomp.phrases.score import build_phrase_table
s, a = pq.read_table(sys.argv[1]), pq.read_table(sys.argv[2])
sym = symmetrize_corpus(
    Alignments.from_pharaoh(a["e2f"].to_pylist()), Alignments.from_pharaoh(a["f2e"].to_pylist()),
    s["len_en"].to_numpy(), s["len_es"].to_numpy())
t = build_phrase_table([x.split(" ") for x in s["en"].to_pylist()],
                       [x.split(" ") for x in s["es"].to_pylist()], sym,
                       int(sys.argv[4]) if len(sys.argv) > 4 else 7)
if len(sys.argv) > 3:
    pq.write_table(t, sys.argv[3])
print(t.num_rows)
"""
"""The one-process phrase table (``sentences alignments [out [max_length]]``), as a script."""


@dataclass
class Stats:
    """Peak RSS (MB) and seconds of each kind of job."""

    rss: dict[str, float] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)

    def add(self, kind: str, rss_mb: float, seconds: float) -> None:
        self.rss[kind] = max(self.rss.get(kind, 0.0), rss_mb)
        self.seconds[kind] = self.seconds.get(kind, 0.0) + seconds


def run_jobs(commands: Sequence[tuple[str, list[str]]], stats: Stats, jobs: int) -> None:
    """Run ``(kind, argv)`` commands ``jobs`` at a time; record each one's peak RSS."""
    pending, running = list(commands), {}
    with contextlib.ExitStack() as files:
        while pending or running:
            while pending and len(running) < jobs:
                kind, argv = pending.pop(0)
                err = files.enter_context(tempfile.TemporaryFile())
                proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=err)
                running[proc.pid] = (kind, proc, err, time.perf_counter())
            pid, status, usage = os.wait4(-1, 0)
            if pid not in running:
                continue
            kind, proc, err, start = running.pop(pid)
            if os.waitstatus_to_exitcode(status) != 0:
                err.seek(0)
                log = err.read().decode()[-4000:]
                raise RuntimeError(f"{argv_text(proc.args)} failed:\n{log}")
            stats.add(kind, usage.ru_maxrss / 1024, time.perf_counter() - start)


def argv_text(argv: Sequence[str]) -> str:
    return " ".join(map(str, argv))


def step(name: str, inputs: Sequence[Path], outs: Sequence[Path], params: dict) -> list[str]:
    return [
        str(Path(sys.executable).with_name("paracomp")),
        "corpus",
        name,
        "--input",
        *map(str, inputs),
        "--params",
        json.dumps(params),
        "--out",
        *map(str, outs),
    ]


def make_corpus(sentences: pa.Table, alignments: pa.Table, k: int, perturbed: bool, folder: Path):
    """k copies of the pairs (perturbed: 30% of word types renamed per copy)."""
    folder.mkdir(parents=True, exist_ok=True)
    copies, links = [], []
    for c in range(k):
        copy = sentences
        if perturbed and c > 0:
            copy = copy.set_column(1, "en", pa.array(_rename(copy["en"].to_pylist(), c)))
            copy = copy.set_column(2, "es", pa.array(_rename(copy["es"].to_pylist(), c)))
        ids = pa.array([f"{i}#{c}" for i in sentences["id"].to_pylist()])
        copies.append(copy.set_column(0, "id", ids))
        links.append(alignments.set_column(0, "id", ids))
    pq.write_table(pa.concat_tables(copies), folder / "sentences.parquet")
    pq.write_table(pa.concat_tables(links), folder / "alignments.parquet")


def _rename(lines: list[str], copy: int) -> list[str]:
    types = sorted({token for line in lines for token in line.split(" ")})
    rng = np.random.default_rng(copy)
    picked = rng.choice(len(types), size=round(0.3 * len(types)), replace=False)
    renamed = {types[i]: f"{types[i]}~{copy}" for i in picked.tolist()}
    return [" ".join(renamed.get(t, t) for t in line.split(" ")) for line in lines]


def chain(folder: Path, pairs: int, shard_pairs: int, jobs: int) -> tuple[Stats, dict]:
    """Every job of the sharded phrase table and pivot; their stats and the plan."""
    shards = math.ceil(pairs / shard_pairs)
    parts, pivots = shards, math.ceil(pairs / (PIVOT_SHARDS * shard_pairs))
    s, a = folder / "sentences.parquet", folder / "alignments.parquet"
    vocab, words, table = folder / "vocab.parquet", folder / "words.parquet", folder / "pt.parquet"
    pair_files = [folder / f"pairs{k}.parquet" for k in range(shards)]
    word_files = [folder / f"words{k}.parquet" for k in range(shards)]
    merged = [folder / f"merged{k}.parquet" for k in range(parts)]
    scored = [folder / f"scored{k}.parquet" for k in range(parts)]
    split, mono = folder / "split.parquet", folder / "mono.parquet"
    bilingual = folder / "bilingual.parquet"
    joined = [folder / f"joined{k}.parquet" for k in range(pivots)]
    best = [folder / f"best{k}.parquet" for k in range(pivots)]
    settings = {"shards": shards, "partitions": parts, "max_length": 7}
    stages = [
        [("vocab", step("phrase-vocab", [s], [vocab], {}))],
        [
            ("shard", step("phrase-shard", [s, a, vocab], [p, w], {"shard": k, **settings}))
            for k, (p, w) in enumerate(zip(pair_files, word_files, strict=True))
        ],
        [("words", step("phrase-words", word_files, [words], {}))]
        + [
            ("merge", step("phrase-merge", pair_files, [m], {"partition": k, "partitions": parts}))
            for k, m in enumerate(merged)
        ],
        [
            ("score", step("phrase-score", [vocab, words, *merged], [o], {"partition": k}))
            for k, o in enumerate(scored)
        ],
        [
            (
                "gather",
                step("phrase-gather", [s, a, *scored], [table], {"max_length": 7}),
            )
        ],
        [("bilingual", step("bilingual-phrases", [table], [bilingual], BILINGUAL))],
        [
            (
                "pivot-split",
                step("pivot-split", [table], [split], {"rules": PIVOT_RULES, "partitions": pivots}),
            )
        ],
        [
            ("pivot-join", step("pivot-join", [split], [j], {"partition": k, "partitions": pivots}))
            for k, j in enumerate(joined)
        ],
        [
            ("pivot-sum", step("pivot-sum", joined, [b], {"rules": PIVOT_RULES, "partition": k}))
            for k, b in enumerate(best)
        ],
        [("pivot-gather", step("pivot-gather", [table, *best], [mono], {"rules": PIVOT_RULES}))],
    ]
    stats = Stats()
    walls = {}
    start = time.perf_counter()
    for number, stage in enumerate(stages):
        run_jobs(stage, stats, jobs)
        if number == 4:
            walls["table_s"] = time.perf_counter() - start
        if number == 5:
            walls["bilingual_s"] = time.perf_counter() - start - walls["table_s"]
    walls["pivot_s"] = time.perf_counter() - start - walls["table_s"] - walls["bilingual_s"]
    info = {"shards": shards, "partitions": parts, "pivot_partitions": pivots, **walls}
    info["distinct_pairs"] = pq.ParquetFile(table).metadata.num_rows
    info["paraphrases"] = pq.ParquetFile(mono).metadata.num_rows
    return stats, info


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sentences", type=Path, required=True)
    parser.add_argument("--alignments", type=Path, required=True)
    parser.add_argument("--work", type=Path, required=True, help="scratch folder")
    parser.add_argument("--out", type=Path, required=True, help="results CSV")
    parser.add_argument("--copies", type=int, nargs="+", default=[1, 2, 4, 8, 16])
    parser.add_argument("--modes", nargs="+", default=["perturbed", "plain"])
    parser.add_argument("--shard-pairs", type=int, default=25_000)
    parser.add_argument("--jobs", type=int, default=2, help="jobs at a time")
    parser.add_argument("--old", type=int, default=0, help="one-process table up to this k")
    args = parser.parse_args()
    sentences, alignments = pq.read_table(args.sentences), pq.read_table(args.alignments)
    rows = []
    for mode in args.modes:
        for k in args.copies:
            folder = args.work / f"{mode}-{k}"
            make_corpus(sentences, alignments, k, mode == "perturbed", folder)
            stats, info = chain(folder, k * sentences.num_rows, args.shard_pairs, args.jobs)
            row = {"mode": mode, "k": k, "pairs": k * sentences.num_rows, **info}
            row.update({f"rss_mb_{kind}": round(mb) for kind, mb in stats.rss.items()})
            row.update({f"s_{kind}": round(sec, 1) for kind, sec in stats.seconds.items()})
            row["rss_mb_max"] = round(max(stats.rss.values()))
            if k <= args.old:
                old = Stats()
                argv = [sys.executable, "-c", ONE_PROCESS, str(folder / "sentences.parquet")]
                start = time.perf_counter()
                run_jobs([("old", [*argv, str(folder / "alignments.parquet")])], old, 1)
                row.update(old_s=time.perf_counter() - start, rss_mb_old=round(old.rss["old"]))
            rows.append(row)
            print(json.dumps(row), flush=True)
            for path in folder.glob("*.parquet"):
                path.unlink()
            pa_rows = pa.Table.from_pylist(rows)
            args.out.parent.mkdir(parents=True, exist_ok=True)
            pa_rows.to_pandas().to_csv(args.out, index=False)


if __name__ == "__main__":
    main()
