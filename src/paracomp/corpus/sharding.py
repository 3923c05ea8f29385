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
