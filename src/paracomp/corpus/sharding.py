"""How many jobs the phrase table and the pivot are split into (config ``corpus.sharding``).

Decided when the DAG is built, before the corpus exists, from the configured corpus's size
(:data:`EXPECTED_PAIRS`, its sentence pairs before cleaning): one shard per ``shard_pairs``
sentence pairs, as many phrase partitions as shards, and a pivot partition per
:data:`PIVOT_SHARDS` shards, so that each job's share of the work stays about the same
whatever the corpus size. Imports nothing heavy (DAG code).
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

from paracomp.errors import ConfigError

EXPECTED_PAIRS = {"bible": 31_047, "europarl": 1_965_734}
"""Sentence pairs of each ``corpus.bilingual`` source (Europarl v7 es-en: lines of the release)."""
MIN_JOB_PAIRS = 1_000
"""Sentence pairs below which a shard or partition job starts up for longer than it works: a
plan with more jobs of a kind than the corpus's pairs / this is warned about."""
MAX_JOBS = 10_000
"""The most jobs the phrase table and the pivot may plan unless ``corpus.sharding.force``
(config ``corpus.sharding.max_jobs`` changes it)."""
PIVOT_SHARDS = 4
"""Shards' worth of sentence pairs per pivot partition by default: the pivot reads only the
pairs seen twice or more, and its partial sums are added in partition order, so that one
partition (the Bible's) repeats the one-process sums bit for bit."""


class Plan(NamedTuple):
    """The numbers of jobs: sentence shards, phrase partitions, pivot partitions."""

    shards: int
    partitions: int
    pivot_partitions: int


def plan(corpus: dict[str, Any]) -> Plan:
    """The jobs for config block ``corpus``: ``sharding.shards``, ``sharding.partitions`` and
    ``sharding.pivot_partitions`` where set, else derived from the corpus size."""
    sharding = corpus.get("sharding", {})
    source = corpus["bilingual"]
    if source not in EXPECTED_PAIRS:
        raise ConfigError(f"corpus.bilingual: no expected size for {source!r}")
    shard_pairs = sharding.get("shard_pairs", 25_000)
    shards = sharding.get("shards") or math.ceil(EXPECTED_PAIRS[source] / shard_pairs)
    pivot = sharding.get("pivot_partitions") or math.ceil(
        EXPECTED_PAIRS[source] / (PIVOT_SHARDS * shard_pairs)
    )
    return Plan(shards, sharding.get("partitions") or shards, pivot)


def jobs(planned: Plan) -> int:
    """The jobs of the sharded phrase table (vocabulary, a job per shard, word links, merge
    and score per partition, gather) and pivot (split, join and sum per partition, gather)."""
    return 3 + planned.shards + 2 * planned.partitions + 2 + 2 * planned.pivot_partitions


def plausibility(corpus: dict[str, Any], planned: Plan) -> list[str]:
    """A warning about a plan with more jobs than the corpus can use (more than one per
    :data:`MIN_JOB_PAIRS` sentence pairs), each with the number of jobs planned; beyond
    ``sharding.max_jobs`` (default :data:`MAX_JOBS`) jobs a :class:`ConfigError` unless
    ``sharding.force``."""
    sharding = corpus.get("sharding", {})
    pairs = EXPECTED_PAIRS[corpus["bilingual"]]
    useful = max(1, pairs // MIN_JOB_PAIRS)
    total = jobs(planned)
    counts = {
        "shards": planned.shards,
        "partitions": planned.partitions,
        "pivot_partitions": planned.pivot_partitions,
    }
    excess = [f"{key} {count:,}" for key, count in counts.items() if count > useful]
    warnings = (
        [
            f"corpus.sharding: {', '.join(excess)} for {pairs:,} sentence pairs "
            f"({corpus['bilingual']}) is more than one job per {MIN_JOB_PAIRS:,} pairs (at most "
            f"{useful:,} are useful): {total:,} jobs planned for the phrase table and the pivot"
        ]
        if excess
        else []
    )
    limit = sharding.get("max_jobs", MAX_JOBS)
    if total > limit and not sharding.get("force", False):
        raise ConfigError(
            f"corpus.sharding: {total:,} jobs planned for the phrase table and the pivot "
            f"({', '.join(f'{k} {v:,}' for k, v in counts.items())}; {pairs:,} sentence pairs), "
            f"more than corpus.sharding.max_jobs = {limit:,}; set corpus.sharding.force: true "
            "to run them all the same"
        )
    return warnings
