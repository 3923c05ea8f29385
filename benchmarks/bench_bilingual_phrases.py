"""Benchmark: peak RSS and wall time of ``paracomp corpus bilingual-phrases`` on k copies of
a phrase table.

Copy ``c`` > 0 appends ``~c`` to both sides of every row, so that the k copies hold k times
the distinct phrase pairs (the same row groups, lengths and counts). Each k runs the step
under ``/usr/bin/time -v`` with the embedded default's rules (``max_pairs`` 3,000,000) and
reports the maximum resident set size::

    python benchmarks/bench_bilingual_phrases.py --table resources/corpus/phrase_table.parquet \\
        --work /tmp/biphr --copies 1 4
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

RULES = {"min_count": 1, "min_prob": 0.0, "min_length": 1, "max_length": 7, "max_pairs": 3_000_000}


def copies(table: Path, k: int, out: Path) -> Path:
    """``k`` renamed copies of ``table`` in one file (row groups as the original's)."""
    source = pq.ParquetFile(table)
    size = source.metadata.row_group(0).num_rows
    with pq.ParquetWriter(out, source.schema_arrow, compression="zstd") as writer:
        for c in range(k):
            for g in range(source.num_row_groups):
                part = source.read_row_group(g)
                if c:
                    for i, side in enumerate(("en", "es")):
                        renamed = pc.binary_join_element_wise(part[side], pa.scalar(f"~{c}"), "")
                        part = part.set_column(i, side, renamed)
                writer.write_table(part, row_group_size=size)
    return out


def run(table: Path, out: Path) -> tuple[float, float]:
    """Peak RSS (MB) and wall time (s) of the step on ``table``."""
    params = json.dumps({"rules": RULES, "seed": 1})
    cmd = ["/usr/bin/time", "-v", "paracomp", "corpus", "bilingual-phrases", "--input", str(table)]
    start = time.perf_counter()
    done = subprocess.run(
        [*cmd, "--params", params, "--out", str(out)], capture_output=True, text=True, check=True
    )
    wall = time.perf_counter() - start
    peak = re.search(r"Maximum resident set size \(kbytes\): (\d+)", done.stderr)
    return int(peak.group(1)) / 1024 if peak else float("nan"), wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--table", type=Path, required=True)
    parser.add_argument("--work", type=Path, required=True)
    parser.add_argument("--copies", type=int, nargs="+", default=[1, 4])
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    print("copies,rows,peak_rss_mb,wall_s")
    for k in args.copies:
        table = args.table if k == 1 else copies(args.table, k, args.work / f"pt{k}.parquet")
        rows = pq.ParquetFile(table).metadata.num_rows
        peak, wall = run(table, args.work / f"biphr{k}.parquet")
        print(f"{k},{rows},{peak:.0f},{wall:.1f}", flush=True)


if __name__ == "__main__":
    main()
