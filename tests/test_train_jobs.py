"""Training jobs as the workflow runs them: grid, adapters, the CLI, selection and report."""

from __future__ import annotations

import json

import pandas as pd
import pyarrow as pa
import pytest

from paracomp import artefacts
from paracomp.artefacts import Provenance
from paracomp.cli import main
from paracomp.data.catalog import load
from paracomp.data.parsers import parse_set
from paracomp.errors import DataError
from paracomp.train.grid import grid_points
from paracomp.train.pairs.task import segment_pairs
from paracomp.train.tuning import select

PROV = Provenance("t", "test", {}, {})


def test_grid_is_a_union_of_products():
    grid = [
        {"score": ["euclidean"], "margin": [1, 10], "sampler": ["max", "mix"]},
        {"score": ["cosine"], "margin": [0.4]},
    ]
    points = grid_points(grid)
    assert len(points) == 5
    assert points[0] == {"score": "euclidean", "margin": 1, "sampler": "max"}
    assert points[-1] == {"score": "cosine", "margin": 0.4}


def test_bilingual_pairs_become_segment_pairs():
    table = pa.table(
        {"id": ["1"], "en": ["a cat"], "es": ["un gato"], "len_en": [2], "len_es": [2]}
    )
    assert segment_pairs(table).column_names == ["id", "s1", "s2", "len1", "len2"]
    with pytest.raises(DataError, match="len1"):
        segment_pairs(table.drop_columns(["len_en"]))


def test_select_takes_the_best_finite_point():
    records = [
        {"point": {"k": 1}, "tuning_r": float("nan")},
        {"point": {"k": 5}, "tuning_r": 0.3},
        {"point": {"k": 10}, "tuning_r": 0.3},
    ]
    chosen = select(records)
    assert chosen["selected"] == 1 and chosen["point"] == {"k": 5}


@pytest.mark.slow  # two training runs through the CLI, tuned, selected, resumed
def test_train_cli_tunes_selects_and_resumes(tmp_path, mirror):
    sick = parse_set(load().set("sick2014"), "mirror", mirror / "sick2014").to_pandas()
    train = sick[sick["split"] == "train"].head(600)
    lower = [s.lower() for s in train["s1"]], [s.lower() for s in train["s2"]]
    pairs = pa.table(
        {
            "id": train["id"].tolist(),
            "s1": lower[0],
            "s2": lower[1],
            "len1": [len(s.split()) for s in lower[0]],
            "len2": [len(s.split()) for s in lower[1]],
        }
    )
    artefacts.write(pairs, tmp_path / "pairs.parquet", artefacts.SEGMENT_PAIRS, PROV)
    artefacts.write(
        parse_set(load().set("sick2014"), "mirror", mirror / "sick2014"),
        tmp_path / "sick.parquet",
        artefacts.SENTENCE_PAIRS,
        PROV,
    )
    base = {
        "objective": "paraphrase",
        "sampler": "max",
        "shared_vocab": True,
        "dim": 16,
        "epochs": 1,
        "batch_size": 50,
    }
    records = []
    for index, point in enumerate(
        [{"score": "cosine", "margin": 0.4}, {"score": "euclidean", "margin": 1.0}]
    ):
        record = tmp_path / f"{index}.json"
        args = [
            "train",
            "--pairs",
            str(tmp_path / "pairs.parquet"),
            "--params",
            json.dumps(base),
            "--point",
            json.dumps(point),
            "--out",
            str(tmp_path / f"run{index}"),
            "--record",
            str(record),
            "--tune-set",
            str(tmp_path / "sick.parquet"),
            "--tune-subset",
            "sick",
            "--tune-split",
            "trial",
            "--tokenizer",
            "whitespace",
            "--lowercase",
        ]
        assert main(args) == 0
        saved = json.loads(record.read_text())
        assert saved["point"] == point and saved["params"]["score"] == point["score"]
        assert saved["pairs"] == 600 and -1 <= saved["tuning_r"] <= 1
        assert (tmp_path / f"run{index}" / "embeddings.parquet").is_file()
        assert (tmp_path / f"run{index}" / "curve.png").is_file()
        records.append(str(record))
        # a rerun finds the finished checkpoint and trains no further epoch
        assert main(args) == 0
        assert json.loads(record.read_text())["tuning_r"] == saved["tuning_r"]
        # another tuning set (SICK test): the finished run is not retrained, but the record's
        # r is computed on that set, not taken from the checkpoint's curve (trial's r)
        assert main([*args[:-4], "test", "--tokenizer", "whitespace", "--lowercase"]) == 0
        rescored = json.loads(record.read_text())
        assert rescored["tuning_r"] != saved["tuning_r"] and rescored["epochs"] == 1
        assert main(args) == 0
        assert json.loads(record.read_text())["tuning_r"] == saved["tuning_r"]
    assert main(["select", "--records", *records, "--out", str(tmp_path / "sel.json")]) == 0
    assert (
        main(
            [
                "tuning-report",
                "--selected",
                f"toy={tmp_path / 'sel.json'}",
                "--out",
                str(tmp_path / "tuning.csv"),
            ]
        )
        == 0
    )
    report = pd.read_csv(tmp_path / "tuning.csv")
    assert len(report) == 2 and report["selected"].sum() == 1
    best = report.loc[report["tuning_r"].idxmax()]
    assert bool(best["selected"])
