# The input and params functions of rules/corpus.smk: the corpus chain's files and settings
# from config `corpus` (paracomp.workflow.corpus_chain), before the papers' rules, which train
# on the chain's sets.
import json

from paracomp.corpus.sharding import plausibility as sharding_plausibility
from paracomp.workflow.corpus_chain import CORPUS_SETS, ENGLISH_BIBLE, PHRASES, CorpusChain

CORPUS = config["corpus"]
CHAIN = CorpusChain(CORPUS, SOURCES)
"""The chain's sentence shards, phrase and pivot partitions (``corpus.sharding``) and files."""
PIVOT_PARTITIONS = CHAIN.pivot_partitions
for _line in sharding_plausibility(CORPUS, CHAIN.plan):
    if workflow.is_main_process:
        logger.warning(_line)

shard_files = CHAIN.shard_files
partition_files = CHAIN.partition_files


def sentence_sources(wildcards) -> list[str]:
    return CHAIN.sentence_sources()


def sentence_input_args(wildcards) -> list[str]:
    return CHAIN.sentence_input_args()


def sentence_params(wildcards) -> str:
    return CHAIN.sentence_params()


def shard_params(wildcards) -> str:
    return CHAIN.shard_params(int(wildcards.shard))


def merge_params(wildcards) -> str:
    return CHAIN.merge_params(int(wildcards.partition))


def partition_params(wildcards) -> str:
    return json.dumps({"partition": int(wildcards.partition)})


def pivot_split_params(wildcards) -> str:
    return CHAIN.pivot_split_params()


def pivot_join_params(wildcards) -> str:
    return CHAIN.pivot_join_params(int(wildcards.partition))


def pivot_sum_params(wildcards) -> str:
    return CHAIN.pivot_sum_params(int(wildcards.partition))


def monolingual_step(wildcards) -> str:
    return CHAIN.monolingual_step()


def monolingual_sources(wildcards) -> list[str]:
    return CHAIN.monolingual_sources()


def monolingual_input_args(wildcards) -> list[str]:
    return CHAIN.monolingual_input_args()


def monolingual_params(wildcards) -> str:
    return CHAIN.monolingual_params()
