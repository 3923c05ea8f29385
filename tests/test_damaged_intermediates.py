"""The sharded chain's intermediate files carry a CRC32 of every data page; a flipped byte is
refused in one line naming the file and what to delete, not decoded into wrong rows or a
crash."""

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from paracomp.cli import main
from paracomp.errors import DataError
from paracomp.phrases.partitioned import (
    PartitionedFiles,
    read_rows,
    write_partitioned,
    write_verified,
)


def _flip(path, fraction: float, count: int = 64) -> None:
    """Flip ``count`` bytes from ``fraction`` of the way into the file's first row group."""
    meta = pq.ParquetFile(path).metadata.row_group(0).column(0)
    first = meta.dictionary_page_offset if meta.has_dictionary_page else meta.data_page_offset
    start = first + int(meta.total_compressed_size * fraction)
    data = bytearray(path.read_bytes())
    for i in range(start, start + count):
        data[i] ^= 0xFF
    path.write_bytes(bytes(data))


@pytest.fixture
def shard(tmp_path):
    rng = np.random.default_rng(1)
    table = pa.table({"key": rng.integers(0, 1 << 40, 50_000), "count": rng.integers(1, 9, 50_000)})
    path = tmp_path / "pairs0.parquet"
    write_partitioned(table, rng.integers(0, 2, 50_000), path)
    return path


@pytest.mark.parametrize("fraction", [0.3, 0.6])
def test_a_flipped_byte_is_refused_naming_the_file(shard, fraction):
    expected = PartitionedFiles([shard]).read(0)
    _flip(shard, fraction)
    files = PartitionedFiles([shard])
    with pytest.raises(DataError, match=rf"^{shard}: row group 0 is damaged \(.*\); delete it "):
        files.read(0)
    assert files.read(1).num_rows > 0  # the other partition's row group is whole
    with pytest.raises(DataError, match=rf"^{shard}: row group 0 is damaged"):
        read_rows(shard, ["key"], 0, 10)
    assert expected.num_rows > 0


def test_a_damaged_word_file_through_the_cli(tmp_path, capsys):
    words = tmp_path / "words0.parquet"
    rng = np.random.default_rng(2)
    table = pa.table({"key": rng.integers(0, 1 << 40, 50_000), "count": rng.integers(1, 9, 50_000)})
    write_verified(table, words, {})
    _flip(words, 0.5)
    out = tmp_path / "words.parquet"
    argv = ["corpus", "phrase-words", "--input", str(words), "--out", str(out)]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"paracomp: error: {words}: a page is damaged (") and "\n" not in err
    assert not out.exists()


def test_a_piece_replaced_by_another_is_refused(tmp_path):
    """One shard overwritten by another used to be merged silently (1,772,520 rows instead of
    3,453,811); each piece records which of its kind it is, and the readers of all check."""
    import shutil

    from paracomp.phrases.partitioned import read_partition

    paths = [tmp_path / f"pairs{k}.parquet" for k in range(3)]
    for k, path in enumerate(paths):
        table = pa.table({"x": np.arange(10) + 10 * k})
        write_partitioned(table, np.arange(10) % 2, path, {"kind": "shard", "index": k, "of": 3})
    assert read_partition(paths, 1, "shard")["x"].to_pylist()[:3] == [1, 3, 5]
    shutil.copy(paths[0], paths[2])
    with pytest.raises(
        DataError, match=rf"^{paths[2]}: holds shard 0 of 3, expected shard 2 of 3 "
    ):
        read_partition(paths, 1, "shard")
    with pytest.raises(
        DataError, match=rf"^{paths[0]}: holds shard 0 of 3, expected shard 0 of 2 "
    ):
        read_partition(paths[:2], 1, "shard")  # a plan of other counts
    write_partitioned(pa.table({"x": [1]}), np.array([0]), paths[0])
    with pytest.raises(DataError, match=r"pairs0.parquet: holds no piece record \(an older"):
        read_partition(paths[:1], 0, "shard")
