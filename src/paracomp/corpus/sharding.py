"""How many jobs the phrase table and the pivot are split into (config ``corpus.sharding``).

Decided when the DAG is built, before the corpus exists, from the configured corpus's size
(:data:`EXPECTED_PAIRS`, its sentence pairs before cleaning): one shard per ``shard_pairs``
sentence pairs, and as many phrase partitions as shards, so that each job's share of the
work stays about one shard's whatever the corpus size. Imports nothing heavy (DAG code).
"""

from __future__ import annotations

import math
from typing import Any

from paracomp.errors import ConfigError

EXPECTED_PAIRS = {"bible": 31_047, "europarl": 1_965_734}
"""Sentence pairs of each ``corpus.bilingual`` source (Europarl v7 es-en: lines of the release)."""


def plan(corpus: dict[str, Any]) -> tuple[int, int]:
    """``(shards, partitions)`` for config block ``corpus``: ``sharding.shards`` and
    ``sharding.partitions`` where set, else derived from the corpus size."""
    sharding = corpus.get("sharding", {})
    source = corpus["bilingual"]
    if source not in EXPECTED_PAIRS:
        raise ConfigError(f"corpus.bilingual: no expected size for {source!r}")
    shards = sharding.get("shards") or math.ceil(
        EXPECTED_PAIRS[source] / sharding.get("shard_pairs", 25_000)
    )
    return shards, sharding.get("partitions") or shards
