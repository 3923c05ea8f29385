"""Benchmark: our phrase extraction and phrase table against Moses, CPU seconds per process.

Needs the corpus chain's sentences and alignments
(``snakemake --cores 2 resources/corpus/alignments.parquet``) and a Moses build (below), given
as ``--moses`` or ``$MOSES_BIN``: a folder holding ``bin/{extract,score,consolidate}`` and
Moses' ``scripts/`` (``scripts/training/train-model.perl``). Without one it says so and
exits 0::

    MOSES_BIN=/work/moses-build python benchmarks/bench_moses.py \\
        --sentences resources/corpus/bilingual_sentences.parquet \\
        --alignments resources/corpus/alignments.parquet --work /tmp/moses-bench

Two comparisons, on the same tokenised sentence pairs and the same grow-diag-final-and links
(ours symmetrised by :func:`paracomp.align.symmetrize.symmetrize_corpus` and written for Moses
as ``aligned.grow-diag-final-and``, foreign index first), maximum phrase length 7, one thread:

* ``extract`` (issue #23), the first ``--extract-pairs`` pairs: the ``paracomp corpus
  phrase-vocab`` and ``phrase-shard`` processes (start-up, imports, reading parquet, gdfa,
  extraction, counting, writing) against Moses' ``extract`` binary writing its plain
  ``extract`` and ``extract.inv`` files (and gzipped, ``--GZOutput``); the same on 10 pairs
  measures each side's start-up, and the last row what the rest of the pairs cost beyond it;
* ``table`` (issue #25), all pairs (``--copies`` k > 1: k copies, ``--perturbed`` as in
  ``bench_scale.py``): Moses ``train-model.perl`` steps 4 (lexical table), 5 (``extract``,
  ``sort``, ``gzip``) and 6 (``score`` both ways, ``sort``, ``consolidate``, ``gzip``), run as
  ``--first-step N --last-step N`` without ``--parallel``, against our sharded chain (the jobs
  of rules ``phrase_vocab`` ... ``phrase_table``, one at a time, one shard per
  ``--shard-pairs`` pairs) and the one-process table
  (:class:`~paracomp.phrases.extract.PhraseCounter` and :func:`~paracomp.phrases.score.score`,
  written to parquet).

Each row is one process or a sequence of them: CPU = user + sys of the process and everything
it waited for (``os.wait4``), the main figure (wall time depends on the machine's load); peak
RSS is the largest single process. Compiled functions are warmed up first (numba's cache).
``--compare`` (on by default) then checks that Moses' ``phrase-table.gz`` and our sharded
``phrase_table.parquet`` hold the same pairs, counts and four scores.

Building Moses' three binaries (no bjam needed: g++, zlib, Boost's headers and its
``iostreams`` and ``filesystem`` libraries, e.g. Debian's ``libboost-iostreams-dev``
and ``libboost-filesystem-dev``; a minute of CPU)::

    git clone https://github.com/moses-smt/mosesdecoder /tmp/moses-src
    mkdir -p $MOSES_BIN/bin $MOSES_BIN/obj && cp -r /tmp/moses-src/scripts $MOSES_BIN/
    cd /tmp/moses-src
    CXX="g++ -std=gnu++14 -O3 -DNDEBUG -DMAX_NUM_FACTORS=4 -w -I. -Iphrase-extract"
    # (add -isystem DIR/usr/include where the Boost headers were unpacked with dpkg-deb -x)
    for s in phrase-extract/{extract-main,SentenceAlignment,SentenceAlignmentWithSyntax,\\
    SyntaxNodeCollection,XmlTree,tables-core,InputFileStream,OutputFileStream,score-main,\\
    ExtractionPhrasePair,ScoreFeature,DomainFeature,InternalStructFeature,consolidate-main,\\
    PropertiesConsolidator}.cpp util/{exception,integer_to_string}.cc; do
        $CXX -c $s -o $MOSES_BIN/obj/$(basename ${s%.*}).o; done
    cd $MOSES_BIN/obj
    LIBS="-lboost_iostreams -lboost_filesystem -lz -lpthread"
    # (runtime libraries only: -l:libboost_iostreams.so.1.74.0 -l:libboost_filesystem.so.1.74.0)
    COMMON="tables-core.o InputFileStream.o OutputFileStream.o exception.o integer_to_string.o"
    g++ -o ../bin/extract extract-main.o SentenceAlignment.o SentenceAlignmentWithSyntax.o \\
        SyntaxNodeCollection.o XmlTree.o $COMMON $LIBS
    g++ -o ../bin/score score-main.o ExtractionPhrasePair.o ScoreFeature.o DomainFeature.o \\
        InternalStructFeature.o $COMMON $LIBS
    g++ -o ../bin/consolidate consolidate-main.o PropertiesConsolidator.o $COMMON $LIBS

Moses' own build (``./bjam``, or ``cmake``) gives the same binaries with the decoder.

Beside other work, ``nice -n 19`` alone may not yield: with the kernel's autogroups
(``/proc/sys/kernel/sched_autogroup_enabled``) niceness only ranks processes of one session;
``echo 19 > /proc/self/autogroup`` in the shell that starts the benchmark lowers the session.
"""

from __future__ import annotations

import argparse
import datetime
import gzip
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_scale import ONE_PROCESS, make_corpus, step  # noqa: E402

from paracomp.align.symmetrize import Alignments, symmetrize_corpus  # noqa: E402

MAX_LENGTH = 7
SCORES = ("p_en_given_es", "p_es_given_en", "lex_en_given_es", "lex_es_given_en")


@dataclass
class Usage:
    """CPU (user + sys) and wall seconds, peak RSS (MB) of one process or a sequence."""

    cpu: float = 0.0
    wall: float = 0.0
    rss_mb: float = 0.0

    def __add__(self, other: Usage) -> Usage:
        return Usage(self.cpu + other.cpu, self.wall + other.wall, max(self.rss_mb, other.rss_mb))

    def __sub__(self, other: Usage) -> Usage:
        """The difference of the times (what ``self`` costs beyond ``other``); RSS kept."""
        return Usage(self.cpu - other.cpu, self.wall - other.wall, self.rss_mb)


def run(argv: list[str] | str, env: dict[str, str] | None = None, cwd: Path | None = None) -> Usage:
    """Run ``argv`` (a string: through ``sh``) to the end; its and its children's usage.

    Through GNU ``time`` where installed: ``os.wait4`` on a child of this process reports at
    least this process's own RSS (Linux keeps the peak of the forked image).
    """
    command = ["sh", "-c", argv] if isinstance(argv, str) else argv
    timer = shutil.which("time", path="/usr/bin")
    with tempfile.TemporaryFile() as err, tempfile.NamedTemporaryFile("r") as times:
        if timer:
            command = [timer, "-f", "%U %S %M", "-o", times.name, *command]
        start = time.perf_counter()
        proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=err, env=env, cwd=cwd)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        if os.waitstatus_to_exitcode(status) != 0:
            err.seek(0)
            raise RuntimeError(f"{argv} failed:\n{err.read().decode()[-4000:]}")
        if timer:
            user, system, rss_kb = times.read().split()[-3:]
            return Usage(float(user) + float(system), wall, int(rss_kb) / 1024)
    return Usage(usage.ru_utime + usage.ru_stime, wall, usage.ru_maxrss / 1024)


def best(argv: list[str] | str, repeat: int, env: dict[str, str] | None = None) -> Usage:
    """The run of least CPU time of ``repeat`` runs."""
    return min((run(argv, env) for _ in range(repeat)), key=lambda u: u.cpu)


def moses_root(given: str | None) -> Path | None:
    """The Moses folder (``bin/`` and ``scripts/``) from ``--moses`` or ``$MOSES_BIN``."""
    path = given or os.environ.get("MOSES_BIN")
    if not path:
        return None
    root = Path(path).resolve()
    if root.name == "bin" and not (root / "bin").is_dir():
        root = root.parent
    return root


def missing(root: Path) -> list[str]:
    """The files a Moses folder lacks."""
    needed = ["bin/extract", "bin/score", "bin/consolidate", "scripts/training/train-model.perl"]
    return [name for name in needed if not (root / name).exists()]


def write_inputs(sentences: pa.Table, alignments: pa.Table, folder: Path) -> None:
    """Our parquet inputs and Moses' ``corpus.{en,es}`` and ``aligned.grow-diag-final-and``."""
    folder.mkdir(parents=True, exist_ok=True)
    pq.write_table(sentences, folder / "sentences.parquet")
    pq.write_table(alignments, folder / "alignments.parquet")
    sym = symmetrize_corpus(
        Alignments.from_pharaoh(alignments["e2f"].to_pylist()),
        Alignments.from_pharaoh(alignments["f2e"].to_pylist()),
        sentences["len_en"].to_numpy(),
        sentences["len_es"].to_numpy(),
    )
    for lang in ("en", "es"):
        text = "\n".join(sentences[lang].to_pylist()) + "\n"
        (folder / f"corpus.{lang}").write_text(text, encoding="utf-8")
    # Moses: source (es) index first.
    lines = []
    for k in range(len(sym)):
        lo, hi = sym.offsets[k], sym.offsets[k + 1]
        pairs = zip(sym.f[lo:hi].tolist(), sym.e[lo:hi].tolist(), strict=True)
        lines.append(" ".join(f"{j}-{i}" for j, i in pairs))
    (folder / "aligned.grow-diag-final-and").write_text("\n".join(lines) + "\n")


def ours_extract(folder: Path, repeat: int, env: dict[str, str]) -> tuple[Usage, Usage]:
    """Our vocabulary and one-shard extraction processes."""
    s, a, vocab = folder / "sentences.parquet", folder / "alignments.parquet", folder / "vocab.pq"
    u_vocab = best(step("phrase-vocab", [s], [vocab], {}), repeat, env)
    settings = {"shard": 0, "shards": 1, "partitions": 1, "max_length": MAX_LENGTH}
    outs = [folder / "pairs0.pq", folder / "words0.pq"]
    u_shard = best(step("phrase-shard", [s, a, vocab], outs, settings), repeat, env)
    return u_vocab, u_shard


def moses_extract(root: Path, folder: Path, repeat: int, gz: bool = False) -> Usage:
    """Moses ``extract`` alone, plain (``gz``: gzipped, as in train-model.perl) output."""
    argv = [
        str(root / "bin/extract"),
        str(folder / "corpus.en"),
        str(folder / "corpus.es"),
        str(folder / "aligned.grow-diag-final-and"),
        str(folder / "extract"),
        str(MAX_LENGTH),
        *(["--GZOutput"] if gz else []),
    ]
    return best(argv, repeat)


def ours_chain(folder: Path, shard_pairs: int, env: dict[str, str]) -> dict[str, Usage]:
    """Every job of the sharded phrase table, one at a time, summed per kind."""
    s, a = folder / "sentences.parquet", folder / "alignments.parquet"
    pairs = pq.ParquetFile(s).metadata.num_rows
    shards = parts = math.ceil(pairs / shard_pairs)
    vocab, words, table = folder / "vocab.pq", folder / "words.pq", folder / "phrase_table.parquet"
    pair_files = [folder / f"pairs{k}.pq" for k in range(shards)]
    word_files = [folder / f"words{k}.pq" for k in range(shards)]
    merged = [folder / f"merged{k}.pq" for k in range(parts)]
    scored = [folder / f"scored{k}.pq" for k in range(parts)]
    plan = {"shards": shards, "partitions": parts, "max_length": MAX_LENGTH}
    jobs: list[tuple[str, list[str]]] = [("vocab", step("phrase-vocab", [s], [vocab], {}))]
    jobs += [
        ("shard", step("phrase-shard", [s, a, vocab], [p, w], {"shard": k, **plan}))
        for k, (p, w) in enumerate(zip(pair_files, word_files, strict=True))
    ]
    jobs.append(("words", step("phrase-words", word_files, [words], {})))
    jobs += [
        (
            "merge",
            step("phrase-merge", pair_files, [m], {"partition": k, "partitions": parts}),
        )
        for k, m in enumerate(merged)
    ]
    jobs += [
        (
            "score",
            step("phrase-score", [vocab, words, *merged], [o], {"partition": k}),
        )
        for k, o in enumerate(scored)
    ]
    gather = step("phrase-gather", [s, a, *scored], [table], {"max_length": MAX_LENGTH})
    jobs.append(("gather", gather))
    usage: dict[str, Usage] = {}
    for kind, argv in jobs:
        usage[kind] = usage.get(kind, Usage()) + run(argv, env)
    progress("ours sharded", usage)
    for path in [*pair_files, *word_files, *merged, *scored, vocab, words]:
        path.unlink()
    return usage


def ours_one_process(folder: Path, env: dict[str, str]) -> Usage:
    """The one-process table (PhraseCounter + score), written to parquet."""
    argv = [sys.executable, "-c", ONE_PROCESS, str(folder / "sentences.parquet")]
    out = folder / "one_process.parquet"
    usage = run([*argv, str(folder / "alignments.parquet"), str(out), str(MAX_LENGTH)], env)
    out.unlink()
    return usage


def moses_steps(root: Path, folder: Path) -> dict[int, Usage]:
    """``train-model.perl`` steps 4, 5 and 6, one invocation each."""
    model = folder / "model"
    shutil.rmtree(model, ignore_errors=True)
    model.mkdir()
    shutil.copy(folder / "aligned.grow-diag-final-and", model / "aligned.grow-diag-final-and")
    common = [
        "perl",
        str(root / "scripts/training/train-model.perl"),
        "--root-dir",
        str(folder),
        "--model-dir",
        str(model),
        "--corpus",
        str(folder / "corpus"),
        "--f",
        "es",
        "--e",
        "en",
        "--alignment",
        "grow-diag-final-and",
        "--alignment-file",
        str(model / "aligned"),
        "--max-phrase-length",
        str(MAX_LENGTH),
        "--cores",
        "1",
    ]
    env = {**os.environ, "LC_ALL": "C"}
    usage: dict[str, Usage] = {}
    for n in (4, 5, 6):
        usage[f"step {n}"] = run([*common, "--first-step", str(n), "--last-step", str(n)], env)
        progress("Moses", usage)
    return {n: usage[f"step {n}"] for n in (4, 5, 6)}


def progress(what: str, usage: dict[str, Usage]) -> None:
    """One line of what is measured so far (a long run stopped early keeps them)."""
    done = ", ".join(f"{k} {u.cpu:.1f}" for k, u in usage.items())
    print(f"  [{what} CPU s so far: {done}]", flush=True)


def read_moses_table(path: Path) -> pa.Table:
    """``phrase-table.gz`` (source es, target en) as our columns."""
    options = pacsv.ParseOptions(delimiter="|", quote_char=False, escape_char=False)
    read = pacsv.ReadOptions(autogenerate_column_names=True, block_size=1 << 26)
    convert = pacsv.ConvertOptions(
        column_types={f"f{k}": pa.string() for k in range(19)},
        include_columns=["f0", "f3", "f6", "f12"],
    )
    with gzip.open(path) as stream:
        raw = pacsv.read_csv(
            stream, read_options=read, parse_options=options, convert_options=convert
        )
    scores = pc.split_pattern(pc.utf8_trim_whitespace(raw["f6"]), " ")
    counts = pc.split_pattern(pc.utf8_trim_whitespace(raw["f12"]), " ")

    def item(lists: pa.ChunkedArray, k: int, kind: pa.DataType) -> pa.ChunkedArray:
        return pc.list_element(lists, k).cast(kind)

    # Moses' order: phi(f|e) lex(f|e) phi(e|f) lex(e|f); counts: target, source, joint.
    return pa.table(
        {
            "es": pc.utf8_trim_whitespace(raw["f0"]),
            "en": pc.utf8_trim_whitespace(raw["f3"]),
            "count": item(counts, 2, pa.float64()),
            "p_es_given_en": item(scores, 0, pa.float64()),
            "lex_es_given_en": item(scores, 1, pa.float64()),
            "p_en_given_es": item(scores, 2, pa.float64()),
            "lex_en_given_es": item(scores, 3, pa.float64()),
        }
    )


def compare(moses_path: Path, ours_path: Path) -> None:
    """Rows, pairs in common and the largest differences of count and scores."""
    moses = read_moses_table(moses_path)
    ours = pq.read_table(ours_path, columns=["en", "es", "count", *SCORES])
    joined = ours.join(moses, ["en", "es"], join_type="inner", right_suffix="_moses")
    print(
        f"content: Moses {moses.num_rows} rows, ours {ours.num_rows}, in common {joined.num_rows}"
        f" (only Moses {moses.num_rows - joined.num_rows}, only ours {ours.num_rows - joined.num_rows})"
    )
    for column in ("count", *SCORES):
        a = joined[column].to_numpy().astype(np.float64)
        b = joined[f"{column}_moses"].to_numpy()
        diff = np.abs(a - b)
        rel = diff / np.maximum(np.abs(a), 1e-300)
        print(f"  {column:<16} max |ours - Moses| {diff.max():.3g}  max relative {rel.max():.3g}")


def row(step: str, ours: Usage | None, moses: Usage | None) -> str:
    def cell(u: Usage | None, attr: str, fmt: str) -> str:
        return format(getattr(u, attr), fmt) if u else "-"

    ratio = f"{ours.cpu / moses.cpu:.2f}" if ours and moses and moses.cpu else "-"
    return (
        f"{step:<40}{cell(ours, 'cpu', '10.2f')}{cell(moses, 'cpu', '10.2f')}{ratio:>8}"
        f"{cell(ours, 'wall', '11.1f')}{cell(moses, 'wall', '11.1f')}"
        f"{cell(ours, 'rss_mb', '10.0f')}{cell(moses, 'rss_mb', '10.0f')}"
    )


HEADER = (
    f"{'step':<40}{'ours CPU':>10}{'Moses CPU':>10}{'ratio':>8}{'ours wall':>11}"
    f"{'Moses wall':>11}{'ours MB':>10}{'Moses MB':>10}"
)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--sentences", type=Path, required=True)
    parser.add_argument("--alignments", type=Path, required=True)
    parser.add_argument("--work", type=Path, required=True, help="scratch folder")
    parser.add_argument("--moses", help="Moses folder (bin/, scripts/); default $MOSES_BIN")
    parser.add_argument(
        "--parts", nargs="+", default=["extract", "table"], choices=["extract", "table"]
    )
    parser.add_argument("--extract-pairs", type=int, default=3000)
    parser.add_argument("--table-pairs", type=int, default=0, help="table: first pairs (0: all)")
    parser.add_argument("--copies", type=int, default=1, help="table: k copies of the corpus")
    parser.add_argument("--perturbed", action="store_true", help="table: rename words per copy")
    parser.add_argument("--shard-pairs", type=int, default=25_000)
    parser.add_argument("--repeat", type=int, default=3, help="extract: best of this many runs")
    parser.add_argument("--threads", type=int, default=1, help="NUMBA_NUM_THREADS for ours")
    parser.add_argument("--no-compare", action="store_true")
    parser.add_argument("--no-one-process", action="store_true")
    args = parser.parse_args()

    root = moses_root(args.moses)
    if root is None:
        print("bench_moses: skipped, no Moses build given (--moses DIR or MOSES_BIN=DIR)")
        return
    if lacking := missing(root):
        print(f"bench_moses: skipped, {root} lacks {', '.join(lacking)}")
        return
    env = {**os.environ, "NUMBA_NUM_THREADS": str(args.threads)}
    sentences = pq.read_table(args.sentences, columns=["id", "en", "es", "len_en", "len_es"])
    alignments = pq.read_table(args.alignments, columns=["id", "e2f", "f2e"])
    print(
        f"{datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC, {os.cpu_count()} CPUs, "
        f"load {' '.join(f'{x:.2f}' for x in os.getloadavg())}, Moses {root}"
    )

    warm = args.work / "warm"
    write_inputs(sentences.slice(0, 200), alignments.slice(0, 200), warm)
    ours_extract(warm, 1, env)
    ours_chain(warm, 100, env)
    if not args.no_one_process:
        ours_one_process(warm, env)

    if "extract" in args.parts:
        folder = args.work / "extract"
        n = min(args.extract_pairs, sentences.num_rows)
        write_inputs(sentences.slice(0, n), alignments.slice(0, n), folder)
        vocab, shard = ours_extract(folder, args.repeat, env)
        moses = moses_extract(root, folder, args.repeat)
        moses_gz = moses_extract(root, folder, args.repeat, gz=True)
        tiny = args.work / "start-up"
        write_inputs(sentences.slice(0, 10), alignments.slice(0, 10), tiny)
        _, shard_10 = ours_extract(tiny, args.repeat, env)
        moses_10 = moses_extract(root, tiny, args.repeat)
        print(f"\nextract: {n} pairs, max length {MAX_LENGTH}, best of {args.repeat} (CPU s)")
        print(HEADER)
        print(row("phrase-shard | extract", shard, moses))
        print(row("phrase-vocab + phrase-shard | extract", vocab + shard, moses))
        print(row("phrase-shard | extract --GZOutput", shard, moses_gz))
        print(row("10 pairs (start-up): shard | extract", shard_10, moses_10))
        print(row(f"beyond start-up, {n - 10} pairs", shard - shard_10, moses - moses_10))

    if "table" in args.parts:
        folder = args.work / "table"
        mode = "perturbed" if args.perturbed else "plain"
        if args.table_pairs:
            sentences = sentences.slice(0, args.table_pairs)
            alignments = alignments.slice(0, args.table_pairs)
        if args.copies > 1:
            make_corpus(sentences, alignments, args.copies, args.perturbed, folder)
            s2 = pq.read_table(folder / "sentences.parquet")
            a2 = pq.read_table(folder / "alignments.parquet")
            write_inputs(s2, a2, folder)
        else:
            write_inputs(sentences, alignments, folder)
        pairs = pq.ParquetFile(folder / "sentences.parquet").metadata.num_rows
        chain = ours_chain(folder, args.shard_pairs, env)
        one = None if args.no_one_process else ours_one_process(folder, env)
        if one:
            progress("ours one process", {"table": one})
        steps = moses_steps(root, folder)
        print(f"\ntable: {pairs} pairs ({args.copies}x {mode}), max length {MAX_LENGTH} (CPU s)")
        print(HEADER)
        print(row("lexical table: words | step 4", chain["words"], steps[4]))
        extraction = chain["vocab"] + chain["shard"]
        print(row("extraction: vocab+shard | step 5", extraction, steps[5]))
        scoring = chain["merge"] + chain["score"] + chain["gather"]
        print(row("scoring: merge+score+gather | 6", scoring, steps[6]))
        total_moses = steps[4] + steps[5] + steps[6]
        total_chain = extraction + chain["words"] + scoring
        print(row("whole table: sharded | steps 4-6", total_chain, total_moses))
        if one:
            print(row("whole table: one process | 4-6", one, total_moses))
        if not args.no_compare:
            compare(folder / "model/phrase-table.gz", folder / "phrase_table.parquet")


if __name__ == "__main__":
    main()
