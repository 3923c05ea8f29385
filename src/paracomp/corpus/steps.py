"""The steps of the corpus chain, each from artefact files to an artefact file.

sentences -> alignments (eflomal, the one stochastic step) -> phrase table (grow-diag-final-and,
Moses extraction and scoring) -> bilingual phrases; phrase table -> monolingual phrases (pivot).
"""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from paracomp import artefacts
from paracomp.artefacts import Provenance
from paracomp.data.fetch import verify_fetched
from paracomp.errors import ConfigError

log = logging.getLogger(__name__)

ALIGNMENTS = pa.schema([("id", pa.string()), ("e2f", pa.string()), ("f2e", pa.string())])
"""Directional word alignments, Pharaoh format with the English index first."""


def _prov(
    name: str, source: str, inputs: list[Path], config: dict[str, Any], notes: str = ""
) -> Provenance:
    return Provenance(name, source, artefacts.input_checksums(inputs), config, notes)


def sentences(
    source: str,
    inputs: list[Path],
    out: Path,
    *,
    clean: dict[str, Any],
    normalize_punct: bool,
    jobs: int,
) -> None:
    """Bible (two SWORD package folders) or Europarl (two line-aligned files) into
    ``bilingual_sentences.parquet``."""
    from paracomp.corpus.build import BILINGUAL_PAIRS, bilingual_sentences, read_parallel_text

    start = time.perf_counter()
    if source == "bible":
        from paracomp.corpus.bible import read_bible_pairs

        roots = [folder / verify_fetched(folder).get("root", ".") for folder in inputs]
        pairs = read_bible_pairs(*roots)
    else:
        verify_fetched(inputs[0].parent)
        pairs = list(read_parallel_text(inputs[0], inputs[1]))
    table = bilingual_sentences(pairs, normalize_punct=normalize_punct, n_jobs=jobs, **clean)
    log.info(
        "%s: %d of %d pairs kept after cleaning in %.1fs",
        source,
        table.num_rows,
        len(pairs),
        time.perf_counter() - start,
    )
    manifests = [p / "MANIFEST.json" if p.is_dir() else p for p in inputs]
    config = {"clean": clean, "normalize_punct": normalize_punct}
    artefacts.write(
        table, out, BILINGUAL_PAIRS, _prov("bilingual_sentences", source, manifests, config)
    )


def align(sentences_path: Path, out: Path, *, model: int) -> None:
    """eflomal in both directions; the output is cached because eflomal cannot be seeded."""
    from paracomp.align.eflomal import align as eflomal_align

    start = time.perf_counter()
    table = artefacts.read(sentences_path, ["id", "en", "es"])
    result = eflomal_align(table["en"].to_pylist(), table["es"].to_pylist(), model=model)
    # English is eflomal's source: its reverse links give each English word at most one link
    # (Moses' e2f), its forward links each foreign word at most one (f2e).
    aligned = pa.table({"id": table["id"], "e2f": result.reverse, "f2e": result.forward})
    log.info("aligned %d pairs in %.1fs", table.num_rows, time.perf_counter() - start)
    notes = "eflomal has no seed: rerunning gives a different alignment"
    artefacts.write(
        aligned,
        out,
        ALIGNMENTS,
        _prov("alignments", "eflomal", [sentences_path], {"model": model}, notes),
    )


def phrase_table(
    sentences_path: Path,
    alignments_path: Path,
    out: Path,
    *,
    max_length: int,
    shards: int = 1,
    partitions: int = 1,
) -> None:
    """The sharded phrase table's jobs (:mod:`paracomp.phrases.shards`) one after the other,
    in a scratch folder beside ``out``."""
    import tempfile

    with tempfile.TemporaryDirectory(dir=out.parent, prefix=f".{out.name}.") as scratch:
        folder = Path(scratch)
        vocab, words = folder / "vocab.parquet", folder / "words.parquet"
        phrase_vocab([sentences_path], [vocab])
        pairs = [folder / f"pairs{k}.parquet" for k in range(shards)]
        links = [folder / f"words{k}.parquet" for k in range(shards)]
        for k in range(shards):
            phrase_shard(
                [sentences_path, alignments_path, vocab],
                [pairs[k], links[k]],
                shard=k,
                shards=shards,
                partitions=partitions,
                max_length=max_length,
            )
        phrase_words(links, [words])
        merged = [folder / f"merged{k}.parquet" for k in range(partitions)]
        scored = [folder / f"scored{k}.parquet" for k in range(partitions)]
        for k in range(partitions):
            phrase_merge(pairs, [merged[k]], partition=k, partitions=partitions)
        for k in range(partitions):
            phrase_score([vocab, words, *merged], [scored[k]], partition=k)
        phrase_gather([sentences_path, alignments_path, *scored], [out], max_length=max_length)


def phrase_vocab(inputs: list[Path], outs: list[Path]) -> None:
    """The sentences' token types: the ids every shard packs phrases with."""
    from paracomp.phrases.shards import write_vocabulary

    artefacts.require(inputs[0], ["en", "es"])
    write_vocabulary(inputs[0], outs[0])


def phrase_shard(
    inputs: list[Path],
    outs: list[Path],
    *,
    shard: int,
    shards: int,
    partitions: int,
    max_length: int,
) -> None:
    """Symmetrise (grow-diag-final-and), extract and count one shard of sentence pairs
    (inputs: sentences, alignments, vocabulary; outputs: pairs, word links)."""
    from paracomp.phrases.shards import extract_shard

    start = time.perf_counter()
    pairs = extract_shard(
        (inputs[0], inputs[1], inputs[2]),
        (outs[0], outs[1]),
        shard=shard,
        shards=shards,
        partitions=partitions,
        max_length=max_length,
    )
    log.info(
        "shard %d of %d: %d distinct pairs in %.1fs",
        shard,
        shards,
        pairs,
        time.perf_counter() - start,
    )


def phrase_words(inputs: list[Path], outs: list[Path]) -> None:
    """The corpus's word-link counts from every shard's."""
    from paracomp.phrases.shards import sum_words

    sum_words(inputs, outs[0])


def phrase_merge(inputs: list[Path], outs: list[Path], *, partition: int, partitions: int) -> None:
    """One English partition of every shard's pairs, summed (inputs: the shards' pairs)."""
    from paracomp.phrases.shards import merge_by_english

    pairs = merge_by_english(inputs, outs[0], partition=partition, partitions=partitions)
    log.info("English partition %d of %d: %d pairs", partition, partitions, pairs)


def phrase_score(inputs: list[Path], outs: list[Path], *, partition: int) -> None:
    """One foreign partition scored (inputs: vocabulary, word links, every merged partition)."""
    from paracomp.phrases.shards import score_by_foreign

    pairs = score_by_foreign(inputs[2:], inputs[1], inputs[0], outs[0], partition=partition)
    log.info("foreign partition %d: %d pairs scored", partition, pairs)


def phrase_gather(inputs: list[Path], outs: list[Path], *, max_length: int) -> None:
    """``phrase_table.parquet`` from the scored partitions (inputs: sentences, alignments,
    then the partitions), in the one-process table's order."""
    from paracomp.phrases.shards import gather

    config = {"max_phrase_length": max_length, "symmetrization": "grow-diag-final-and"}
    prov = _prov("phrase_table", "moses-style extraction", inputs[:2], config)
    rows = gather(inputs[2:], outs[0], provenance=prov)
    log.info("%d phrase pairs from %d partitions", rows, len(inputs) - 2)


def bilingual_phrases(table_path: Path, out: Path, *, rules: dict[str, Any], seed: int) -> None:
    """Training phrase pairs selected from the phrase table by ``rules``, a batch at a time."""
    from paracomp.corpus.build import BILINGUAL_PAIRS
    from paracomp.corpus.phrase_pairs import select_rows, selected_pairs

    artefacts.require(table_path, artefacts.PHRASE_TABLE)
    selection = select_rows(table_path, seed=seed, **rules)
    prov = _prov("bilingual_phrases", "phrase table", [table_path], {**rules, "seed": seed})
    artefacts.write_stream(selected_pairs(table_path, selection), out, BILINGUAL_PAIRS, prov)
    lengths = pq.read_table(out, columns=["len_en"])["len_en"]
    mean = pc.mean(lengths).as_py() if selection.rows else float("nan")
    log.info("selected %d phrase pairs, %.2f English tokens on average", selection.rows, mean)


def pivot_paraphrases(
    table_path: Path, out: Path, *, rules: dict[str, Any], partitions: int = 1
) -> None:
    """English paraphrases by pivoting over the phrase table (Bannard & Callison-Burch 2005):
    the sharded pivot's jobs (:mod:`paracomp.paraphrase.sharded_pivot`) one after the other,
    in a scratch folder beside ``out``."""
    import tempfile

    with tempfile.TemporaryDirectory(dir=out.parent, prefix=f".{out.name}.") as scratch:
        folder = Path(scratch)
        split = folder / "split.parquet"
        pivot_split([table_path], [split], rules=rules, partitions=partitions)
        joined = [folder / f"joined{k}.parquet" for k in range(partitions)]
        best = [folder / f"best{k}.parquet" for k in range(partitions)]
        for k in range(partitions):
            pivot_join([split], [joined[k]], partition=k, partitions=partitions)
        for k in range(partitions):
            pivot_sum(joined, [best[k]], rules=rules, partition=k)
        pivot_gather([table_path, *best], [out], rules=rules)


def pivot_split(
    inputs: list[Path], outs: list[Path], *, rules: dict[str, Any], partitions: int
) -> None:
    """The phrase-table rows the pivot uses (``rules``: ``min_count``,
    ``min_translation_prob``), partitioned by foreign phrase."""
    from paracomp.paraphrase.sharded_pivot import split_by_foreign

    artefacts.require(inputs[0], artefacts.PHRASE_TABLE)
    kept = split_by_foreign(
        inputs[0],
        outs[0],
        partitions=partitions,
        min_count=rules.get("min_count", 1),
        min_translation_prob=rules.get("min_translation_prob", 0.0),
    )
    log.info("%d phrase-table rows in %d foreign partitions", kept, partitions)


def pivot_join(
    inputs: list[Path],
    outs: list[Path],
    *,
    partition: int,
    partitions: int,
    max_join_rows: int = 5_000_000,
) -> None:
    """Partial p(e2|e1) over one foreign partition, split by e1."""
    from paracomp.paraphrase.sharded_pivot import join_partition

    pairs = join_partition(
        inputs, outs[0], partition=partition, partitions=partitions, max_join_rows=max_join_rows
    )
    log.info("foreign partition %d: %d partial pairs", partition, pairs)


def pivot_sum(
    inputs: list[Path], outs: list[Path], *, rules: dict[str, Any], partition: int
) -> None:
    """p(e2|e1) of one e1 partition and its best pairs (``rules``: ``min_prob``, ``top_k``,
    ``max_pairs``)."""
    from paracomp.paraphrase.sharded_pivot import sum_partition

    pairs = sum_partition(
        inputs,
        outs[0],
        partition=partition,
        min_prob=rules.get("min_prob", 0.0),
        top_k=rules.get("top_k"),
        max_pairs=rules.get("max_pairs"),
    )
    log.info("e1 partition %d: %d pairs kept", partition, pairs)


def pivot_gather(inputs: list[Path], outs: list[Path], *, rules: dict[str, Any]) -> None:
    """``monolingual_phrases.parquet`` from every e1 partition's best pairs (inputs: the phrase
    table, then the partitions)."""
    from paracomp.paraphrase.sharded_pivot import gather

    prov = _prov("monolingual_phrases", "pivot", inputs[:1], rules)
    rows = gather(inputs[1:], outs[0], max_pairs=rules.get("max_pairs"), provenance=prov)
    log.info("%d paraphrase pairs", rows)


def ppdb_phrases(path: Path, out: Path) -> None:
    """The phrasal pairs of a PPDB release file (Elgohary's PPDB XL condition)."""
    from paracomp.paraphrase.ppdb import read_ppdb, rules_to_pairs

    pairs = rules_to_pairs(read_ppdb(path), path.name)
    artefacts.write(
        pairs, out, artefacts.SEGMENT_PAIRS, _prov("monolingual_phrases", "ppdb", [path], {})
    )


def english_sides(table: pa.Table) -> list[str]:
    """The English columns of a training set: ``en`` (bilingual) or ``s1`` and ``s2``."""
    return ["en"] if "en" in table.column_names else ["s1", "s2"]


def bigram_filtered(pairs_path: Path, sick_path: Path, out: Path) -> None:
    """Drop pairs whose English side holds a bigram of the SICK test set (Table 5)."""
    from paracomp.corpus.derive import filter_bigrams, sick_bigrams

    table = pq.read_table(pairs_path)
    artefacts.require(pairs_path, english_sides(table))
    sick = artefacts.read(sick_path, ["split", "s1", "s2"]).to_pandas()
    sick = sick[sick["split"] == "test"]
    forbidden = sick_bigrams([*sick["s1"], *sick["s2"]])
    kept = filter_bigrams(table, forbidden, side=tuple(english_sides(table)))
    log.info(
        "%s: %d of %d pairs have no SICK-test bigram", pairs_path, kept.num_rows, table.num_rows
    )
    config = {"sick_bigrams": len(forbidden), "sides": english_sides(table)}
    artefacts.write(
        kept,
        out,
        table.schema.remove_metadata(),
        _prov(f"{pairs_path.stem}-filtered", "derived", [pairs_path, sick_path], config),
    )


def sampled(
    pairs_path: Path, out: Path, *, fraction: float | None, n: int | None, seed: int
) -> None:
    """A seeded random subset (Table 6 sizes, 100k tuning subsets); smaller ⊂ larger."""
    from paracomp.corpus.derive import subsample

    table = pq.read_table(pairs_path)
    count = n if n is None else min(n, table.num_rows)
    part = subsample(table, count, fraction=fraction, seed=seed)
    config = {"fraction": fraction, "n": n, "seed": seed}
    artefacts.write(
        part,
        out,
        table.schema.remove_metadata(),
        _prov(f"{pairs_path.stem}-sample", "derived", [pairs_path], config),
    )


def english_bible(kjv: Path, web: Path, out: Path, *, max_tokens: int = 80, jobs: int = 1) -> None:
    """English–English KJV–WEB verse pairs (:mod:`paracomp.corpus.english_bible`)."""
    from paracomp.corpus.english_bible import write_english_bible

    write_english_bible(kjv, web, out, max_tokens=max_tokens, jobs=jobs)


STEPS = {
    "english-bible": english_bible,
    "align": align,
    "phrase-table": phrase_table,
    "bilingual-phrases": bilingual_phrases,
    "pivot": pivot_paraphrases,
    "ppdb": ppdb_phrases,
    "bigram-filter": bigram_filtered,
    "sample": sampled,
}
"""The steps after ``sentences`` by CLI name."""

SHARDED_STEPS = {
    "phrase-vocab": phrase_vocab,
    "phrase-shard": phrase_shard,
    "phrase-words": phrase_words,
    "phrase-merge": phrase_merge,
    "phrase-score": phrase_score,
    "phrase-gather": phrase_gather,
    "pivot-split": pivot_split,
    "pivot-join": pivot_join,
    "pivot-sum": pivot_sum,
    "pivot-gather": pivot_gather,
}
"""The jobs of the sharded phrase table and pivot by CLI name: any number of inputs and outputs."""


def params_schema(step: str) -> dict[str, Any]:
    """The schema of step ``step``'s ``--params``: the workflow config's own settings
    (``corpus.pivot``, ``corpus.seed`` …) for those that come from it, a job's index and
    counts for the rest; what its function takes without a default is required."""
    import inspect

    from paracomp.settings import config_schema, obj, part

    def corpus(key: str) -> dict[str, Any]:
        return part(config_schema(), f"corpus.{key}")

    count, index = {"type": "integer", "minimum": 1}, {"type": "integer", "minimum": 0}
    settings = {
        "source": corpus("bilingual"),
        "clean": corpus("clean"),
        "normalize_punct": corpus("normalize_punct"),
        "jobs": corpus("tokenize_jobs"),
        "model": part(corpus("aligner"), "model"),
        "max_length": corpus("max_phrase_length"),
        "max_tokens": part(corpus("clean"), "max_tokens"),
        "seed": corpus("seed"),
        "shard": index,
        "shards": count,
        "partition": index,
        "partitions": count,
        "max_join_rows": count,
        "fraction": {"type": ["number", "null"], "minimum": 0, "maximum": 1},
        "n": {"type": ["integer", "null"], "minimum": 0},
    }
    function = sentences if step == "sentences" else {**STEPS, **SHARDED_STEPS}[step]
    names = [p for p in inspect.signature(function).parameters.values() if p.kind == p.KEYWORD_ONLY]
    settings["rules"] = corpus("bilingual_phrases" if step == "bilingual-phrases" else "pivot")
    properties = {p.name: settings[p.name] for p in names}
    required = tuple(p.name for p in names if p.default is p.empty)
    if step == "sentences":  # its source is positional, from --params all the same
        properties["source"], required = settings["source"], (*required, "source")
    return obj(properties, required)


def run_step(step: str, inputs: list[Path], outs: list[Path], params: dict[str, Any]) -> None:
    """Run step ``step`` (``sentences`` or a key of :data:`STEPS` or :data:`SHARDED_STEPS`)
    with its config ``params``: ``sentences`` reads two folders or files (its ``source`` in
    ``params``), ``english-bible`` two package folders, ``phrase-table`` and
    ``bigram-filter`` two artefacts, every other step of :data:`STEPS` one; each of those
    writes one output. ``params`` are checked against :func:`params_schema` first."""
    from paracomp.settings import check

    check(params, params_schema(step), f"corpus {step} --params")
    settings = dict(params)
    if step in SHARDED_STEPS:
        SHARDED_STEPS[step](inputs, outs, **settings)
        return
    if len(outs) != 1:
        raise ConfigError(f"corpus {step}: one output expected, got {len(outs)}")
    out = outs[0]
    if step == "sentences":
        sentences(settings.pop("source"), inputs, out, **settings)
    elif step in ("english-bible", "phrase-table", "bigram-filter"):
        STEPS[step](inputs[0], inputs[1], out, **settings)
    else:
        STEPS[step](inputs[0], out, **settings)
