"""Benchmark: what the content digests of the sharded chain's intermediates cost, per step.

Runs every job of the sharded phrase table and pivot in this process, as the workflow does
(``paracomp.corpus.steps``: vocabulary, shards, words, merges, scores, gather, then the
pivot's split, joins, sums and gather) on the corpus chain's sentence pairs and alignments,
with the digests written and verified (``verified``) and with digesting and verifying
replaced by nothing (``unverified``; the page CRC32s stay), alternating, best of
``--repeat``; prints wall and CPU seconds per step and the GB of intermediates written and read::

    python benchmarks/bench_digests.py --sentences resources/corpus/bilingual_sentences.parquet \\
        --alignments resources/corpus/alignments.parquet --work /tmp/digests

``--modes plain`` runs the chain once without patching anything and keeps its outputs in
``--work`` (to compare the tables of two commits).
"""

from __future__ import annotations

import argparse
import shutil
import time
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from pathlib import Path

from paracomp.corpus import steps

RULES = {"min_count": 2, "min_translation_prob": 0.01, "min_prob": 0.01, "top_k": 20}
RULES |= {"max_pairs": 3_000_000}
"""The embedded default's pivot rules (config ``corpus.pivot``)."""


@contextmanager
def unverified() -> Iterator[None]:
    """Digests neither computed nor checked (the records are still written, empty, and not
    read back)."""
    from paracomp.phrases import digests, partitioned, shards

    nothing = {
        (digests.ContentDigest, "update"): lambda self, table: None,
        (partitioned, "recorded"): lambda path, handle: {},
        (partitioned, "verify"): lambda *args: None,
        (partitioned, "same_inputs"): lambda *args: None,
        (digests, "file_digest"): lambda path: "",
        (shards, "file_digest"): lambda path: "",
    }
    saved = {(owner, name): getattr(owner, name) for owner, name in nothing}
    for (owner, name), value in nothing.items():
        setattr(owner, name, value)
    try:
        yield
    finally:
        for (owner, name), value in saved.items():
            setattr(owner, name, value)


def chain(sentences: Path, alignments: Path, work: Path, shards: int, parts: int) -> dict:
    """Every job of both chains, timed; the wall and CPU seconds (of all the process's
    threads: the machine may be shared) of each kind of step."""
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    times: dict[str, float] = defaultdict(float)

    def timed(name: str, step, *args, **kwargs) -> None:
        start, cpu = time.perf_counter(), time.process_time()
        step(*args, **kwargs)
        times[f"{name} wall"] += time.perf_counter() - start
        times[f"{name} cpu"] += time.process_time() - cpu

    vocab, words = work / "vocab.parquet", work / "words.parquet"
    timed("vocabulary", steps.phrase_vocab, [sentences], [vocab])
    pairs = [work / f"pairs{k}.parquet" for k in range(shards)]
    links = [work / f"words{k}.parquet" for k in range(shards)]
    for k in range(shards):
        timed("shard", steps.phrase_shard, [sentences, alignments, vocab], [pairs[k], links[k]],
              shard=k, shards=shards, partitions=parts, max_length=7)  # fmt: skip
    timed("words", steps.phrase_words, links, [words])
    merged = [work / f"merged{k}.parquet" for k in range(parts)]
    scored = [work / f"scored{k}.parquet" for k in range(parts)]
    for k in range(parts):
        timed("merge", steps.phrase_merge, pairs, [merged[k]], partition=k, partitions=parts)
    for k in range(parts):
        timed("score", steps.phrase_score, [vocab, words, *merged], [scored[k]], partition=k)
    table = work / "phrase_table.parquet"
    timed("gather", steps.phrase_gather, [sentences, alignments, *scored], [table], max_length=7)
    split, joined, best = work / "split.parquet", work / "joined0.parquet", work / "best0.parquet"
    timed("pivot split", steps.pivot_split, [table], [split], rules=RULES, partitions=1)
    timed("pivot join", steps.pivot_join, [split], [joined], partition=0, partitions=1)
    timed("pivot sum", steps.pivot_sum, [joined], [best], rules=RULES, partition=0)
    pivot = work / "monolingual_phrases.parquet"
    timed("pivot gather", steps.pivot_gather, [table, best], [pivot], rules=RULES)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sentences", type=Path, required=True)
    parser.add_argument("--alignments", type=Path, required=True)
    parser.add_argument("--work", type=Path, required=True)
    parser.add_argument("--shards", type=int, default=2)
    parser.add_argument("--partitions", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--modes", nargs="+", default=["verified", "unverified"])
    args = parser.parse_args()
    if args.modes == ["plain"]:
        chain(args.sentences, args.alignments, args.work, args.shards, args.partitions)
        return
    best: dict[str, dict[str, float]] = {mode: {} for mode in args.modes}
    chain(args.sentences, args.alignments, args.work / "warm-up", args.shards, args.partitions)
    for _ in range(args.repeat):
        for mode in args.modes:
            with unverified() if mode == "unverified" else nullcontext():
                times = chain(args.sentences, args.alignments, args.work / mode, args.shards,
                              args.partitions)  # fmt: skip
            for step, seconds in times.items():
                best[mode][step] = min(best[mode].get(step, seconds), seconds)
    folder = args.work / args.modes[0]
    inter = [p for p in folder.glob("*.parquet") if not p.name.endswith("phrases.parquet")]
    gb = sum(p.stat().st_size for p in inter if p.name != "phrase_table.parquet") / 1e9
    print("step," + ",".join(args.modes))
    for step in best[args.modes[0]]:
        print(f"{step}," + ",".join(f"{best[m][step]:.2f}" for m in args.modes))
    for clock in ("wall", "cpu"):
        totals = [sum(v for k, v in best[m].items() if k.endswith(clock)) for m in args.modes]
        print(f"total {clock}," + ",".join(f"{t:.2f}" for t in totals))
    print(f"intermediates,{gb:.3f} GB")
    print(f"one digest pass over them (CPU s),{digest_pass(inter):.2f}")


def digest_pass(paths: list[Path]) -> float:
    """CPU seconds of one content digest of each file's decoded rows, best of 3 (a chain
    digests each intermediate twice: when written and when read)."""
    import pyarrow.parquet as pq

    from paracomp.phrases.digests import ContentDigest

    tables = [pq.read_table(p) for p in paths if p.name != "phrase_table.parquet"]
    best = float("inf")
    for _ in range(3):
        start = time.process_time()
        for table in tables:
            ContentDigest().update(table)
        best = min(best, time.process_time() - start)
    return best


if __name__ == "__main__":
    main()
