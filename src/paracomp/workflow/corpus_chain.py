"""The corpus chain's files and parameters (``rules/corpus.smk``): the bilingual sentences, the
sharded phrase table and its pivot into English paraphrases, from config ``corpus``."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from paracomp.corpus.sharding import Plan, plan
from paracomp.workflow.sources import Sources

CORPUS_SETS = {
    "bisent": "resources/corpus/bilingual_sentences.parquet",
    "biphr": "resources/corpus/bilingual_phrases.parquet",
    "mono": "resources/corpus/monolingual_phrases.parquet",
}
"""The training sets of the chain by name: bilingual sentences and phrases, English paraphrases."""
PHRASES = "resources/corpus/phrases"
"""The sharded phrase table's and pivot's intermediate files (temporary)."""
ENGLISH_BIBLE = "resources/corpus/bible-kjv-web.parquet"
"""English-English KJV-WEB verse pairs (rule english_bible_pairs), a sentential paraphrase
corpus any paper can train on (wieting2017 for SimpWiki, chen2020 for ParaNMT)."""
BIBLES = ["resources/packages/sword-text-web", "resources/packages/sword-text-sparv"]
"""The registry packages of the bilingual Bible (English WEB, Swedish Sparv)."""


@dataclass
class CorpusChain:
    """Config ``corpus`` and the sources its raw datasets come from; ``plan`` is its sentence
    shards, phrase partitions and pivot partitions (:func:`paracomp.corpus.sharding.plan`)."""

    corpus: dict[str, Any]
    sources: Sources
    plan: Plan = field(init=False)
    shards: int = field(init=False)
    partitions: int = field(init=False)
    pivot_partitions: int = field(init=False)

    def __post_init__(self) -> None:
        self.plan = plan(self.corpus)
        self.shards, self.partitions, self.pivot_partitions = self.plan

    @property
    def pivoted(self) -> bool:
        """Whether the English paraphrases come from the pivot (else from PPDB)."""
        return self.corpus["monolingual"] == "pivot"

    def sentence_sources(self) -> list[str]:
        """Folders the bilingual sentences are read from."""
        if self.corpus["bilingual"] == "bible":
            return list(BIBLES)
        return [self.sources.required_dataset("europarl-v7-es-en", "corpus.bilingual: europarl")]

    def sentence_input_args(self) -> list[str]:
        """The bilingual sentences' inputs as the corpus command takes them."""
        sources = self.sentence_sources()
        if self.corpus["bilingual"] == "bible":
            return sources
        return [f"{sources[0]}/europarl-v7.es-en.en", f"{sources[0]}/europarl-v7.es-en.es"]

    def sentence_params(self) -> str:
        return json.dumps(
            {
                "source": self.corpus["bilingual"],
                "clean": self.corpus["clean"],
                "normalize_punct": self.corpus["normalize_punct"],
                "jobs": self.corpus["tokenize_jobs"],
            }
        )

    def shard_files(self, kind: str) -> list[str]:
        """The ``kind`` files (pairs, words) of every shard of the phrase table."""
        return [f"{PHRASES}/shards/{k}.{kind}.parquet" for k in range(self.shards)]

    def partition_files(self, stage: str, partitions: int | None = None) -> list[str]:
        """The files of every partition of ``stage`` (merged, scored, pivot/joined ...), of the
        phrase table's partitions unless told."""
        count = self.partitions if partitions is None else partitions
        return [f"{PHRASES}/{stage}/{k}.parquet" for k in range(count)]

    def shard_params(self, shard: int) -> str:
        return json.dumps(
            {
                "shard": shard,
                "shards": self.shards,
                "partitions": self.partitions,
                "max_length": self.corpus["max_phrase_length"],
            }
        )

    def merge_params(self, partition: int) -> str:
        return json.dumps({"partition": partition, "partitions": self.partitions})

    def pivot_split_params(self) -> str:
        return json.dumps({"rules": self.corpus["pivot"], "partitions": self.pivot_partitions})

    def pivot_join_params(self, partition: int) -> str:
        return json.dumps({"partition": partition, "partitions": self.pivot_partitions})

    def pivot_sum_params(self, partition: int) -> str:
        return json.dumps({"rules": self.corpus["pivot"], "partition": partition})

    def monolingual_step(self) -> str:
        """The corpus step writing the monolingual phrases: the pivot's gather, or PPDB's."""
        return "pivot-gather" if self.pivoted else "ppdb"

    def monolingual_sources(self) -> list[str]:
        """The phrase table and the pivot's best pairs, or PPDB's folder."""
        if self.pivoted:
            best = self.partition_files("pivot/best", self.pivot_partitions)
            return ["resources/corpus/phrase_table.parquet", *best]
        return [self.sources.required_dataset("ppdb-1.0-xl-phrasal", "corpus.monolingual: ppdb")]

    def monolingual_input_args(self) -> list[str]:
        sources = self.monolingual_sources()
        return sources if self.pivoted else [f"{sources[0]}/ppdb-1.0-xl-phrasal"]

    def monolingual_params(self) -> str:
        return json.dumps({"rules": self.corpus["pivot"]}) if self.pivoted else "{}"
