"""The published settings read each raw dataset from the first source that holds it: a mirror
holding Europarl v7 and PPDB 1.0 XL is used for the corpus chain (before, the chain always
downloaded the upstream releases), and without a mirror or upstream the error names the key."""

from __future__ import annotations

import pytest

CHAIN = (
    "resources/corpus/bilingual_sentences.parquet",
    "resources/corpus/monolingual_phrases.parquet",
)


@pytest.mark.slow
def test_the_corpus_chain_reads_a_mirror_copy(dry_run, upstream_mirror, tmp_path):
    out, jobs = dry_run(tmp_path, *CHAIN, published=True, mirror=upstream_mirror.root)
    assert "resources/mirror/europarl-v7-es-en/europarl-v7.es-en.en" in out
    assert "resources/mirror/ppdb-1.0-xl-phrasal/ppdb-1.0-xl-phrasal" in out
    assert "fetch_upstream" not in jobs and jobs["fetch_mirror"] == "2"


@pytest.mark.slow
def test_without_upstream_the_chain_names_the_missing_dataset(dag_error, tmp_path):
    err = dag_error(tmp_path, "sources: [mirror, registry]\ncorpus: {bilingual: europarl}", *CHAIN)
    assert "corpus.bilingual: europarl needs dataset europarl-v7-es-en" in err
