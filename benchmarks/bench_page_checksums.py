"""Benchmark: what the page checksums of the partitioned intermediates cost, per GB.

Writes a partitioned file like a shard's pairs (``--rows`` random keys and counts, 16
partitions) with and without page checksums, then reads every partition back with and
without verification, best of ``--repeat``; prints seconds and seconds per GB of file::

    python benchmarks/bench_page_checksums.py --work /tmp/crc --rows 20000000
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from paracomp.phrases import partitioned
from paracomp.phrases.partitioned import PartitionedFiles, write_partitioned


def best(repeat: int, work) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", type=Path, required=True)
    parser.add_argument("--rows", type=int, default=20_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(0)
    n = args.rows
    table = pa.table(
        {f"e{k}": rng.integers(0, 1 << 40, n) for k in range(2)} | {"count": rng.integers(1, 9, n)}
    )
    parts = rng.integers(0, 16, n)
    path = args.work / "pairs.parquet"
    print("step,seconds,seconds_per_gb")
    for checksums in (False, True):
        partitioned.CHECKSUMS = {"write_page_checksum": checksums}
        write = best(1, lambda: write_partitioned(table, parts, path))
        gb = path.stat().st_size / 1e9
        print(f"write checksums={checksums},{write:.2f},{write / gb:.2f}")
    files = PartitionedFiles([path])  # verifies
    plain = {p: pq.ParquetFile(path) for p in (0,)}

    def verified() -> None:
        for part in files.parts():
            files.read(part)

    def unverified() -> None:
        handle = plain[0]
        for group in range(handle.num_row_groups):
            handle.read_row_group(group)

    for name, work in (("read unverified", unverified), ("read verified", verified)):
        seconds = best(args.repeat, work)
        print(f"{name},{seconds:.2f},{seconds / gb:.2f}")
    print(f"file,{gb:.3f} GB,")


if __name__ == "__main__":
    main()
