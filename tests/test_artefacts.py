import os
import re

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


def test_write_embeddings_refuses_non_finite_values(tmp_path):
    matrix = np.arange(8, dtype=np.float64).reshape(4, 2)
    matrix[1, 0], matrix[3, 1] = np.nan, 1e39  # 1e39 overflows float32 to inf
    path = tmp_path / "e.parquet"
    with pytest.raises(DataError) as caught:
        artefacts.write_embeddings(["a", "b", "c", "d"], matrix, path, PROV)
    assert str(caught.value) == (
        f"{path}: not written: 2 of 4 vectors hold NaN or inf (or values beyond float32): "
        "row 1 'b', row 3 'd'"
    )
    assert list(tmp_path.iterdir()) == []


def test_write_embeddings_names_the_first_five_bad_words(tmp_path):
    words = [f"w{i}" for i in range(9)]
    matrix = np.full((9, 3), np.inf, dtype=np.float32)
    matrix[0] = 0.0
    with pytest.raises(DataError, match=r"8 of 9 .*row 1 'w1', .*row 5 'w5' and 3 more$"):
        artefacts.write_embeddings(words, matrix, tmp_path / "e.parquet", PROV)


def write_unchecked_embeddings(path, words, matrix):
    """An embeddings file as an older paracomp could write it, NaN rows included."""
    vectors = pa.FixedSizeListArray.from_arrays(pa.array(matrix.reshape(-1)), matrix.shape[1])
    table = pa.table({"word": words, "vector": vectors})
    artefacts.write(table, path, artefacts.embeddings_schema(matrix.shape[1]), PROV)


def test_read_embeddings_refuses_non_finite_rows(tmp_path):
    matrix = np.ones((3, 2), dtype=np.float32)
    matrix[2, 1] = -np.inf
    path = tmp_path / "e.parquet"
    write_unchecked_embeddings(path, ["a", "b", "c"], matrix)
    with pytest.raises(DataError) as caught:
        artefacts.read_embeddings(path)
    message = str(caught.value)
    assert message.startswith(f"{path}: 1 of 3 vectors hold NaN or inf: row 2 'c'; delete")
    words, back = artefacts.read_embeddings(path, check_finite=False)
    assert words == ["a", "b", "c"] and back[2, 1] == -np.inf


def test_evaluate_refuses_non_finite_embeddings(tmp_path, capsys):
    matrix = np.ones((2, 2), dtype=np.float32)
    matrix[0, 0] = np.nan
    path = tmp_path / "e.parquet"
    write_unchecked_embeddings(path, ["cat", "dog"], matrix)
    assert (
        main(
            ["evaluate", "--embeddings", str(path), "--out", str(tmp_path / "eval")]
            + ["--tokenizer", "moses", "--lowercase", "--oov", "skip"]
        )
        == 2
    )
    assert f"paracomp: error: {path}: 1 of 2 vectors hold NaN or inf: row 0 'cat'" in (
        capsys.readouterr().err
    )
    assert not (tmp_path / "eval").exists()


def damaged_files(tmp_path):
    """(path, what the error says) for each kind of file ``inspect`` cannot read."""
    good = tmp_path / "good.parquet"
    table = pa.table(
        {"dataset": ["ws"] * 50, "w1": ["a"] * 50, "w2": ["b"] * 50, "score": [1.0] * 50}
    )
    artefacts.write(table, good, artefacts.WORD_PAIRS, PROV)
    truncated = tmp_path / "truncated.parquet"
    truncated.write_bytes(good.read_bytes()[: good.stat().st_size // 2])
    text = tmp_path / "notes.txt"
    text.write_text("not parquet\n" * 10)
    folder = tmp_path / "folder.parquet"
    folder.mkdir()
    return [
        (tmp_path / "missing.parquet", "no such file"),
        (text, "not a readable parquet file"),
        (folder, "is a directory, not a parquet file"),
        (truncated, "not a readable parquet file"),
    ]


def test_read_and_describe_name_an_unreadable_file(tmp_path):
    for path, what in damaged_files(tmp_path):
        for function in (artefacts.read, artefacts.describe, artefacts.provenance):
            with pytest.raises(DataError, match="^" + re.escape(f"{path}: {what}")):
                function(path)


def test_inspect_prints_an_error_not_a_traceback(tmp_path, capsys):
    for path, what in damaged_files(tmp_path):
        assert main(["inspect", str(path)]) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"paracomp: error: {path}: {what}")
        assert "Traceback" not in err and err.count("\n") == 1


@pytest.mark.slow  # two fresh Python processes
def test_provenance_records_the_software_that_wrote_the_artefact(tmp_path):
    """paracomp's and numpy's versions always; torch's where the writing process loaded it
    (a training run's rows)."""
    import subprocess
    import sys

    code = (
        "import sys, numpy as np, pyarrow as pa\n"
        "from paracomp import artefacts\n"
        "if sys.argv[2] == 'torch':\n"
        "    import torch\n"
        "prov = artefacts.Provenance('d', 's', {}, {})\n"
        "artefacts.write_embeddings(['a'], np.ones((1, 2), dtype=np.float32), sys.argv[1], prov)\n"
    )
    for loaded in ("torch", "none"):
        out = tmp_path / f"{loaded}.parquet"
        subprocess.run([sys.executable, "-c", code, str(out), loaded], check=True)
        recorded = artefacts.provenance(out)["versions"]
        assert recorded["numpy"] == np.__version__ and "paracomp" in recorded
        assert ("torch" in recorded) == (loaded == "torch")
