import os

import numpy as np
import pyarrow as pa
import pytest

from paracomp import artefacts
from paracomp.artefacts import Provenance
from paracomp.atomic import atomic_path
from paracomp.cli import main
from paracomp.errors import DataError

PROV = Provenance("toy", "mirror", {"in.txt": "ab" * 32}, {"oov": "skip"}, "a note")


def test_roundtrip_with_provenance(tmp_path, capsys):
    table = pa.table({"dataset": ["ws"], "w1": ["cat"], "w2": ["dog"], "score": [7]})
    path = tmp_path / "ws.parquet"
    artefacts.write(table, path, artefacts.WORD_PAIRS, PROV)
    back = artefacts.read(path, artefacts.WORD_PAIRS)
    assert back.schema.field("score").type == pa.float64()
    prov = artefacts.provenance(path)
    assert prov["dataset"] == "toy" and prov["inputs"] == {"in.txt": "ab" * 32}
    assert prov["paracomp_version"]
    assert main(["inspect", str(path)]) == 0
    out = capsys.readouterr().out
    assert "rows: 1" in out and '"mirror"' in out and "cat" in out


def test_schema_mismatch_names_file(tmp_path):
    with pytest.raises(DataError, match="bad.parquet"):
        artefacts.write(
            pa.table({"w1": ["a"]}), tmp_path / "bad.parquet", artefacts.WORD_PAIRS, PROV
        )
    assert not list(tmp_path.iterdir())


def test_embeddings_roundtrip(tmp_path):
    matrix = np.arange(6, dtype=np.float32).reshape(3, 2)
    artefacts.write_embeddings(["a", "b", "c"], matrix, tmp_path / "e.parquet", PROV)
    words, back = artefacts.read_embeddings(tmp_path / "e.parquet")
    assert words == ["a", "b", "c"]
    np.testing.assert_array_equal(back, matrix)
    with pytest.raises(DataError):
        artefacts.write_embeddings(["a"], matrix, tmp_path / "f.parquet", PROV)


def test_atomic_path_leaves_nothing_on_failure(tmp_path):
    target = tmp_path / "out.txt"
    with pytest.raises(RuntimeError), atomic_path(target) as tmp:
        tmp.write_text("half")
        raise RuntimeError("killed")
    assert list(tmp_path.iterdir()) == []
    with atomic_path(target) as tmp:
        tmp.write_text("whole")
    assert target.read_text() == "whole"
    mask = os.umask(0o022)
    os.umask(mask)
    assert target.stat().st_mode & 0o777 == 0o666 & ~mask  # readable like any other output
