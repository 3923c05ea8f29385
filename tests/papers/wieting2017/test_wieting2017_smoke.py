"""A small real end-to-end run through the CLI: KJV-WEB verse pairs from the Debian packages,
LSTMAVG with dropout and scrambling for 1 epoch on 300 of them, scored on the mirror's STS 2016
and SICK test as one grid point, and Tables 2 and 4 built from it."""

from __future__ import annotations

import json
import math

import pandas as pd
import pytest

from paracomp import artefacts
from paracomp.cli import main
from paracomp.corpus.english_bible import paraphrase_pairs, read_kjv_web
from paracomp.papers.wieting2017.data import sentence_pairs

SETTING = {
    "corpus": "300 KJV-WEB verse pairs",
    "sentences": {"max_tokens": 30, "pairs": 300, "seed": 1},
    "ppdb": {"datasets": ["ppdb-phrase-train-60k"], "seed": 1},
    "init": {"embeddings": "none"},
    "dim": 20,
    "epochs": {"default": 1},
    "run": {},
    "runs": {"lstmavg_dropout_scrambling": {"model": "lstmavg", "data": "sentences", "grid": "x"}},
    "composers": {"lstmavg": "lstmavg"},
    "grids": {},
    "note": "",
}


@pytest.mark.slow
def test_one_grid_point_scored_and_tabled(tmp_path, package_root, mirror):
    verses = read_kjv_web(package_root("sword-text-kjv"), package_root("sword-text-web"))
    table = sentence_pairs(paraphrase_pairs(verses[:600], max_tokens=30), 30, 300, seed=1)
    assert table.num_rows == 300
    pairs = tmp_path / "pairs.parquet"
    prov = artefacts.Provenance("smoke", "bible", {}, {})
    artefacts.write(table, pairs, artefacts.SEGMENT_PAIRS, prov)

    sets = {}
    for name, dataset in (("sts2016", "sts2016-test"), ("sick2014", "sick2014")):
        folder = tmp_path / dataset
        if not (mirror / dataset).is_dir():
            pytest.skip(f"the mirror has no {dataset}")
        assert (
            main(["fetch", "mirror", dataset, "--mirror", str(mirror), "--out", str(folder)]) == 0
        )
        sets[name] = tmp_path / f"{name}.parquet"
        args = [
            "parse-set",
            name,
            "--source",
            "mirror",
            "--manifest",
            str(folder / "MANIFEST.json"),
        ]
        assert main([*args, "--out", str(sets[name])]) == 0

    params = {
        "objective": "paraphrase", "composer": "lstmavg", "sampler": "max", "score": "cosine",
        "margin": 0.4, "optimizer": "adam", "lr": 0.001, "batch_size": 100, "dim": 20,
        "shared_vocab": True, "epochs": 1, "seed": 1,
    }  # fmt: skip
    point = {"dropout": 0.4, "scramble": 0.5}
    run = tmp_path / "points" / "lstmavg_dropout_scrambling" / "0"
    train = run / "train.json"
    assert main(["train", "--pairs", str(pairs), "--params", json.dumps(params), "--point",
                 json.dumps(point), "--out", str(run), "--record", str(train)]) == 0  # fmt: skip
    assert main(["wieting2017", "transfer", "--run", str(run), "--run-name",
                 "lstmavg_dropout_scrambling", "--index", "0", "--train-record", str(train),
                 "--set", *(f"{n}={p}" for n, p in sets.items()), "--split", "sick2014=test",
                 "--unavailable", "sts2012=not in this test", "--out", str(run)]) == 0  # fmt: skip
    scores = pd.read_csv(run / "scores.csv")
    sts2016 = scores[scores["dataset"] == "sts2016"]
    assert len(sts2016) == 5 and sts2016["pearson"].map(math.isfinite).all()
    assert scores.loc[scores["dataset"] == "sick2014", "n"].tolist() == [4927]
    record = json.loads((run / "record.json").read_text())
    assert record["point"] == point and record["index"] == 0

    out = tmp_path / "table2.csv"
    setting = json.dumps(SETTING)
    assert main(["wieting2017", "table", "table2", "--points",
                 f"lstmavg_dropout_scrambling={run}", "--setting", setting,
                 "--out", str(out)]) == 0  # fmt: skip
    compare = pd.read_csv(out.with_suffix(".compare.csv")).set_index(["row", "column"])
    cell = compare.loc[("lstmavg_dropout_scrambling", "sts2016")]
    assert math.isfinite(cell["ours"]) and "sts2012" in cell["note"]
    assert compare["ours"].notna().sum() == 2
    out = tmp_path / "table4.csv"
    assert main(["wieting2017", "table", "table4", "--points",
                 f"lstmavg_dropout_scrambling={run}", "--setting", setting,
                 "--out", str(out)]) == 0  # fmt: skip
    wide = pd.read_csv(out)
    assert wide.loc[wide["Dataset"] == "sick2014/sick", "LSTMAVG"].notna().all()
