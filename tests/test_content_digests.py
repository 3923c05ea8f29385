"""Every intermediate of the sharded chains records a digest of its content and of the inputs
it derives from: a partition from another run of the same plan, rows that decode but are not
those written, and a damaged digest are refused in one line naming the file and what to
delete; the same run's pieces pass."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from paracomp.artefacts import PHRASE_TABLE, Provenance, write
from paracomp.cli import main
from paracomp.errors import DataError
from paracomp.paraphrase.sharded_pivot import join_partition, split_by_foreign
from paracomp.phrases.digests import DIGEST_KEY
from paracomp.phrases.partitioned import read_partition, read_verified, write_partitioned

PARTS = 3


def _phrase_table(path, seed: int) -> None:
    """A phrase table of 600 pairs over 40 English and 30 foreign phrases."""
    rng = np.random.default_rng(seed)
    n = 600
    table = pa.table(
        {
            "en": [f"e{k}" for k in rng.integers(0, 40, n)],
            "es": [f"f{k}" for k in rng.integers(0, 30, n)],
            "count": rng.integers(1, 5, n),
            **{name: rng.uniform(0.05, 1, n) for name in PHRASE_TABLE.names[3:]},
        }
    )
    write(table, path, PHRASE_TABLE, Provenance("phrases", "test", {}, {}))


def _joins(folder, seed: int) -> list:
    """One run of the pivot's split and joins, in ``folder``."""
    folder.mkdir()
    _phrase_table(folder / "table.parquet", seed)
    split = folder / "split.parquet"
    split_by_foreign(folder / "table.parquet", split, partitions=PARTS)
    joins = [folder / f"joined{k}.parquet" for k in range(PARTS)]
    for k, path in enumerate(joins):
        join_partition([split], path, partition=k, partitions=PARTS, max_join_rows=10**6)
    return joins


def test_a_partition_from_another_run_is_refused(tmp_path, capsys):
    ours, theirs = _joins(tmp_path / "a", 1), _joins(tmp_path / "b", 2)
    rows = sum(read_partition(ours, k, "pivot join").num_rows for k in range(PARTS))
    assert rows == sum(pq.ParquetFile(p).metadata.num_rows for p in ours) > 0
    mixed = [*ours[:2], theirs[2]]
    with pytest.raises(
        DataError,
        match=rf"^{theirs[2]}: derives from other inputs than the other 2 pieces \(foreign "
        r"split 0 differ: a piece of another run\?\); delete it and rerun the job that wrote",
    ):
        read_partition(mixed, 0, "pivot join")
    out = tmp_path / "best0.parquet"
    argv = ["corpus", "pivot-sum", "--input", *map(str, mixed), "--out", str(out)]
    argv += ["--params", '{"partition": 0, "rules": {"min_prob": 0.0}}']
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"paracomp: error: {theirs[2]}: derives from other inputs") and (
        "\n" not in err
    )
    assert not out.exists()
    argv[argv.index(str(theirs[2]))] = str(ours[2])
    assert main(argv) == 0 and read_verified(out).num_rows > 0


def _rewrite(path, change) -> None:
    """Rewrite ``path`` with ``change`` applied to its rows, keeping its footer's metadata (what
    damage that still decodes looks like to a reader)."""
    handle = pq.ParquetFile(path)
    meta = handle.metadata.metadata
    table = change(handle.read())
    with pq.ParquetWriter(path, table.schema, write_page_checksum=True) as out:
        for part in np.unique(table["part"].to_numpy()):
            out.write_table(table.filter(pa.compute.equal(table["part"], part)))
        out.add_key_value_metadata({DIGEST_KEY: meta[DIGEST_KEY.encode()].decode()})


@pytest.fixture
def merged(tmp_path):
    path = tmp_path / "merged0.parquet"
    table = pa.table({"key": np.arange(1000), "count": np.arange(1000) % 7})
    piece = {"kind": "English partition", "index": 0, "of": 1}
    write_partitioned(table, np.arange(1000) % 2, path, piece, {"shard 0": "ab12"})
    return path


def test_rows_that_decode_but_were_not_written_are_refused(merged):
    before = read_partition([merged], 1, "English partition")

    def flip(table: pa.Table) -> pa.Table:
        counts = table["count"].to_numpy().copy()
        counts[501] ^= 0xFF
        return table.set_column(1, "count", pa.array(counts))

    _rewrite(merged, flip)
    assert read_partition([merged], 0, "English partition").num_rows == 500  # untouched
    with pytest.raises(
        DataError,
        match=rf"^{merged}: partition 1 holds other rows than were written \(500 rows, 500 "
        r"recorded, or their content differs\); delete it",
    ):
        read_partition([merged], 1, "English partition")
    _rewrite(merged, lambda table: table.slice(0, 999))
    with pytest.raises(DataError, match=rf"^{merged}: its content digest does not match"):
        read_partition([merged], 1, "English partition")
    assert before.num_rows == 500


def test_a_damaged_digest_is_refused(merged):
    data = merged.read_bytes()
    at = data.index(b'"rows": 1000')
    merged.write_bytes(data[:at] + b'"rows": 1001' + data[at + 12 :])
    with pytest.raises(DataError, match=rf"^{merged}: its content digest does not match its"):
        read_partition([merged], 0, "English partition")
    pq.write_table(pq.read_table(merged).replace_schema_metadata(None), merged)  # no digest
    assert DIGEST_KEY.encode() not in (pq.ParquetFile(merged).metadata.metadata or {})
    with pytest.raises(DataError, match=rf"^{merged}: no content digest \(written by an older"):
        read_partition([merged], 0)
