"""Benchmark: grow-diag-final-and, phrase extraction + counting, and scoring on real pairs.

Needs the corpus chain's outputs (``snakemake --cores 2 resources/corpus/phrase_table.parquet``)::

    python benchmarks/bench_extract.py --sentences resources/corpus/bilingual_sentences.parquet \\
        --alignments resources/corpus/alignments.parquet

An alignments parquet holds both directions (columns ``e2f``, ``f2e``); Pharaoh text files
(one line per row, English index first) work too, with ``--reverse`` for the f2e file.

With ``--reverse``, the two files are the directional alignments (e2f: one link at most per
English word), symmetrised here; without it, ``--alignments`` is used as is and the gdfa row
is skipped. The first ``--limit`` pairs are used. Compiled functions are warmed up first;
each step reports the best of ``--repeat`` runs; nltk's ``phrase_extraction`` runs once.
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable

import numba
import numpy as np
import pyarrow.parquet as pq
from nltk.translate.phrase_based import phrase_extraction

from paracomp.align.symmetrize import Alignments, read_pharaoh, symmetrize_corpus
from paracomp.phrases.extract import PhraseCounter
from paracomp.phrases.score import score


def best_seconds(run: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)


def count_pairs(en: list[list[str]], es: list[list[str]], links: Alignments, size: int) -> None:
    counter = PhraseCounter(size)
    counter.add(en, es, links)


def count_and_score(en: list[list[str]], es: list[list[str]], links: Alignments, size: int) -> int:
    counter = PhraseCounter(size)
    counter.add(en, es, links)
    return score(counter).num_rows


def nltk_extract(en: list[str], es: list[str], links: Alignments, size: int) -> None:
    for k, (e, f) in enumerate(zip(en, es, strict=True)):
        phrase_extraction(e, f, links.links(k), size)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sentences", required=True, help="parquet with id, en, es")
    parser.add_argument(
        "--alignments",
        required=True,
        help="alignments parquet, or Pharaoh file (e2f with --reverse)",
    )
    parser.add_argument("--reverse", help="Pharaoh file of the f2e directional alignment")
    parser.add_argument("--limit", type=int, default=3000)
    parser.add_argument("--max-length", type=int, default=7)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    table = pq.read_table(args.sentences, columns=["id", "en", "es"]).slice(0, args.limit)
    en_text, es_text = table["en"].to_pylist(), table["es"].to_pylist()
    en, es = [s.split(" ") for s in en_text], [s.split(" ") for s in es_text]
    n = len(en)
    len_e = np.array([len(s) for s in en])
    len_f = np.array([len(s) for s in es])
    reverse = None
    if args.alignments.endswith(".parquet"):
        aligned = pq.read_table(args.alignments).slice(0, n)
        links = Alignments.from_pharaoh(aligned["e2f"].to_pylist(), args.alignments)
        reverse = Alignments.from_pharaoh(aligned["f2e"].to_pylist(), args.alignments)
    else:
        links = read_pharaoh(args.alignments).slice(0, n)
        if args.reverse:
            reverse = read_pharaoh(args.reverse).slice(0, n)
    rows: list[tuple[str, float]] = []
    if reverse is not None:
        e2f, f2e = links, reverse
        symmetrize_corpus(e2f.slice(0, 10), f2e.slice(0, 10), len_e[:10], len_f[:10])
        seconds = best_seconds(lambda: symmetrize_corpus(e2f, f2e, len_e, len_f), args.repeat)
        rows.append(("grow-diag-final-and", seconds))
        links = symmetrize_corpus(e2f, f2e, len_e, len_f)

    count_and_score(en[:10], es[:10], links.slice(0, 10), args.max_length)
    seconds = best_seconds(lambda: count_pairs(en, es, links, args.max_length), args.repeat)
    rows.append(("extraction + counting", seconds))
    seconds = best_seconds(lambda: count_and_score(en, es, links, args.max_length), args.repeat)
    rows.append(("extraction + counting + scoring", seconds))
    start = time.perf_counter()
    nltk_extract(en_text, es_text, links, args.max_length)
    rows.append(("nltk phrase_extraction", time.perf_counter() - start))

    print(
        f"{n} pairs, {len_e.mean():.1f} English / {len_f.mean():.1f} Spanish tokens and "
        f"{len(links.e) / n:.1f} links per pair; max length {args.max_length}; "
        f"{os.cpu_count()} CPUs, {numba.get_num_threads()} numba threads"
    )
    nltk_seconds = rows[-1][1]
    print(f"{'step':<34}{'seconds':>10}{'sentences/s':>14}{'x nltk':>9}")
    for name, seconds in rows:
        print(f"{name:<34}{seconds:>10.3f}{n / seconds:>14.0f}{nltk_seconds / seconds:>9.1f}")


if __name__ == "__main__":
    main()
