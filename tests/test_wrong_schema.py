"""A parquet file of the wrong schema given to a command is one line naming the file and the
columns it lacks (or has of another type), and nothing is written; a parquet file given for a
JSON record likewise."""

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from paracomp import artefacts
from paracomp.cli import main
from paracomp.errors import DataError

PIVOT = json.dumps({"rules": {}})
SUBSETS = json.dumps({"max_tokens": None, "train_pairs": None, "tuning_pairs": 2, "seed": 1})
W17 = json.dumps({"corpus": "bible", "max_tokens": 3, "pairs": 5, "seed": 1})


@pytest.fixture
def bad(tmp_path: Path) -> Path:
    path = tmp_path / "bad.parquet"
    pq.write_table(pa.table({"x": [1, 2], "y": ["a", "b"]}), path)
    return path


CASES = [
    (["chen2020", "scores", "--kind", "length", "--sentences", "{bad}"], "'tokens'"),
    (["corpus", "align", "--input", "{bad}", "--params", '{"model": 1}'], "['id', 'en', 'es']"),
    (["corpus", "bilingual-phrases", "--input", "{bad}", "--params", '{"rules": {}, "seed": 1}'],
     "'p_en_given_es'"),
    (["corpus", "pivot", "--input", "{bad}", "--params", PIVOT], "'p_es_given_en'"),
    (["corpus", "pivot-split", "--input", "{bad}", "--params", '{"rules": {}, "partitions": 2}'],
     "'count'"),
    (["corpus", "phrase-vocab", "--input", "{bad}"], "['en', 'es']"),
    (["corpus", "bigram-filter", "--input", "{bad}", "{bad}"], "['s1', 's2']"),
    (["initial-rows", "--vocab", "{bad}", "--embeddings", "{bad}", "--seed", "1"], "['word']"),
    (["chen2020", "subsets", "--input", "{bad}", "--params", SUBSETS, "--tuning", "{out}.t"],
     "['id', 's1', 's2', 'len1', 'len2']"),
    (["wieting2017", "sentences", "--input", "{bad}", "--params", W17], "['id', 's1', 's2'"),
    (["tokenise-set", "--input", "{bad}", "--tokenizer", "moses", "--lowercase"], "'dataset'"),
    (["wieting2017", "initial", "--embeddings", "{bad}"], "['word', 'vector']"),
]  # fmt: skip


@pytest.mark.parametrize(
    "argv, columns", CASES, ids=lambda c: "-".join(c[:2]) if isinstance(c, list) else None
)
def test_a_wrong_schema_is_one_line_naming_the_file(tmp_path, bad, capsys, argv, columns):
    out = tmp_path / "out.parquet"
    argv = [a.replace("{bad}", str(bad)).replace("{out}", str(out)) for a in argv]
    assert main([*argv, "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err
    assert err.startswith(f"paracomp: error: {bad}: missing columns [") and columns in err
    assert "it has ['x', 'y']" in err
    assert not out.exists()


@pytest.mark.parametrize("command", [["select", "--records"], ["tuning-report", "--selected"]])
def test_a_parquet_file_for_a_json_record_is_named(tmp_path, bad, capsys, command):
    """`paracomp select --records x.parquet` used to end in a UnicodeDecodeError."""
    value = str(bad) if command[0] == "select" else f"run={bad}"
    out = tmp_path / "out.json"
    assert main([*command, value, "--out", str(out)]) == 2
    assert (
        capsys.readouterr().err.strip()
        == f"paracomp: error: {bad}: not a JSON file (not UTF-8 text)"
    )
    assert not out.exists()


def test_a_json_record_without_its_keys_is_named(tmp_path, capsys):
    record = tmp_path / "r.json"
    record.write_text('{"tuning": 1}')
    assert main(["select", "--records", str(record), "--out", str(tmp_path / "o.json")]) == 2
    err = capsys.readouterr().err.strip()
    assert (
        err
        == f"paracomp: error: {record}: not a record of this step (no key(s) ['point', 'tuning_r'])"
    )


def test_a_column_of_another_type_is_named(tmp_path):
    path = tmp_path / "table.parquet"
    columns = {f.name: pa.array([0.5]) for f in artefacts.PHRASE_TABLE}
    columns.update(en=pa.array(["a"]), es=pa.array(["b"]), count=pa.array(["3"]))
    pq.write_table(pa.table(columns), path)
    with pytest.raises(
        DataError, match=r"table.parquet: wrong column types: count is string, not int64$"
    ):
        artefacts.require(path, artefacts.PHRASE_TABLE)
    columns["count"] = pa.array([3], pa.int32())  # another width of the same kind is fine
    pq.write_table(pa.table(columns), path)
    assert artefacts.require(path, artefacts.PHRASE_TABLE).field("count").type == pa.int32()
