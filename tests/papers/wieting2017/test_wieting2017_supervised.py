"""wieting2017's supervised data (the STS split seeded 40/10/50 per subset, SICK's own, the
pairs tokenised once as the evaluator tokenises), its records, cells and selection; the
training itself is the generic trainer's (tests/test_train_similarity.py)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from paracomp.papers.wieting2017.supervised import sick_splits, sts_splits


def _sts(sizes: dict[tuple[str, str], int]) -> pd.DataFrame:
    rows = [
        {"dataset": d, "subset": s, "id": str(i), "s1": "a b", "s2": "b c", "score": i % 6}
        for (d, s), n in sizes.items()
        for i in range(n)
    ]
    return pd.DataFrame(rows)


def test_sts_split_sizes_per_subset_and_seeded():
    frame = _sts({("sts2012", "MSRpar"): 750, ("sts2013", "FNWN"): 189, ("sts2015", "belief"): 375})
    split = sts_splits(frame, seed=1)
    counts = split.groupby(["subset", "part"]).size().unstack()
    assert counts.loc["MSRpar"].to_dict() == {"dev": 75, "test": 375, "train": 300}
    assert counts.loc["FNWN"].to_dict() == {"dev": 18, "test": 96, "train": 75}
    assert counts.loc["belief"].to_dict() == {"dev": 37, "test": 188, "train": 150}
    again = sts_splits(frame, seed=1)
    assert (again["part"] == split["part"]).all()
    assert not (sts_splits(frame, seed=2)["part"] == split["part"]).all()


def test_sick_keeps_its_standard_split():
    frame = pd.DataFrame({"split": ["train"] * 3 + ["trial", "test"]})
    assert sick_splits(frame)["part"].tolist() == ["train"] * 3 + ["dev", "test"]


def test_supervised_cells_resample_the_tasks_test_pairs():
    """Two runs' records with 30 test pairs each: each cell's replicates are its Pearson ×100
    on the same resamples of the task's test pairs; the average the mean of STS and SICK."""
    from paracomp.eval import bootstrap
    from paracomp.papers.wieting2017.supervised_tables import supervised_cells, table5_printed

    rng = np.random.default_rng(2)
    printed = table5_printed()
    run_of = {row: f"run{i % 2}" for i, row in enumerate(printed.rows)}
    gold = {"sts": rng.uniform(0, 5, 30), "sick": rng.uniform(1, 5, 30)}
    records = {}
    for run in ("run0", "run1"):
        for task in ("sts", "sick"):
            pred = gold[task] + rng.normal(size=30)
            record = {"index": 0, "dev_pearson": 50.0, "test_pearson": 0.0, "epoch": 1,
                      "point": {}, "n": {"train": 1, "dev": 1, "test": 30}, "source": {},
                      "test_gold": gold[task].tolist(), "test_pred": pred.tolist()}  # fmt: skip
            records.setdefault(run, {})[task] = [record]
    cells = supervised_cells(records, printed, run_of)
    row = printed.rows[0]
    for task in ("sts", "sick"):
        pred = np.array(records[run_of[row]][task][0]["test_pred"])
        key = f"wieting2017/supervised-{task}/test"
        counts = bootstrap.counts_of(bootstrap.indices(key, 30), 30)
        expected = 100 * bootstrap.pearson(counts, gold[task], pred)
        np.testing.assert_allclose(cells[row, task].boot, expected)
    avg = (cells[row, "sts"].boot + cells[row, "sick"].boot) / 2
    np.testing.assert_allclose(cells[row, "avg"].boot, avg)


def test_select_supervised_copies_the_point_of_the_best_validation_r(tmp_path):
    """`paracomp wieting2017 select-supervised`: the point with the highest dev r (the first
    on ties) is copied, as a run folder, with its record in selected.json."""
    from paracomp.cli import main

    records = []
    for index, dev in enumerate([40.0, 55.0, 55.0]):
        folder = tmp_path / str(index)
        folder.mkdir()
        for name in ("composer.pt", "embeddings.parquet"):
            (folder / name).write_bytes(f"{name} of point {index}".encode())
        record = {"run": "gran_none", "task": "sts", "index": index, "dev_pearson": dev}
        (folder / "record.json").write_text(json.dumps(record))
        records.append(str(folder / "record.json"))
    out = tmp_path / "sts.selected"
    assert main(["wieting2017", "select-supervised", "--records", *records, "--out", str(out)]) == 0
    assert (out / "composer.pt").read_bytes() == b"composer.pt of point 1"
    assert (out / "embeddings.parquet").read_bytes() == b"embeddings.parquet of point 1"
    selected = json.loads((out / "selected.json").read_text())
    assert (selected["index"], selected["folder"]) == (1, str(tmp_path / "1"))


def _sick_set(mirror, path, n=150):
    """``n`` real SICK train pairs as a parsed set at ``path`` (100 train, 25 trial, 25 test)."""
    sick = pd.read_csv(mirror / "sick2014" / "SICK_train.txt", sep="\t").head(n)
    pd.DataFrame({
        "dataset": "sick2014", "subset": "sick",
        "split": np.repeat(["train", "trial", "test"], [100, 25, n - 125]),
        "id": sick["pair_ID"].astype(str), "s1": sick["sentence_A"], "s2": sick["sentence_B"],
        "score": sick["relatedness_score"], "label": sick["entailment_judgment"],
    }).to_parquet(path)  # fmt: skip
    return sick


def test_the_data_on_the_tokenised_set_is_the_data_on_the_raw_set(mirror, tmp_path):
    """150 real SICK pairs, raw (Moses-tokenised and lowercased by the job) and tokenised once
    by ``tokenise_set``: the same SCORED_PAIRS table, in SICK's parts; a mix of raw and
    tokenised sets is refused."""
    from paracomp import artefacts
    from paracomp.errors import DataError
    from paracomp.eval.tokens import tokenise_set, tokenize_all
    from paracomp.papers.wieting2017.supervised import write_supervised_data

    raw, tokens = tmp_path / "sick.parquet", tmp_path / "tokens.parquet"
    sick = _sick_set(mirror, raw)
    tokenise_set(raw, tokens, "moses", True)
    tables = []
    for path in (raw, tokens):
        out = tmp_path / f"data-{path.stem}.parquet"
        assert write_supervised_data("sick", {"sick2014": path}, 1, "moses", True, out) == []
        tables.append(artefacts.read(out, artefacts.SCORED_PAIRS))
    assert tables[0].equals(tables[1])
    assert tables[0]["part"].to_pylist() == ["train"] * 100 + ["dev"] * 25 + ["test"] * 25
    expected = tokenize_all(list(sick["sentence_A"]), "moses", True)
    assert tables[0]["tokens1"].to_pylist() == [list(t) for t in expected]
    assert tables[0]["score"].to_pylist() == sick["relatedness_score"].tolist()
    with pytest.raises(DataError, match="some raw, some tokenised"):
        write_supervised_data("sts", {"sts2012": raw, "sts2013": tokens}, 1, "moses", True,
                              tmp_path / "mixed.parquet")  # fmt: skip
    assert not (tmp_path / "mixed.parquet").exists()


def test_a_record_is_the_trainer_s_with_the_run_and_the_absent_subsets(tmp_path):
    """``supervised-record``: the trainer's record with the run, task and index, the STS
    subsets the data lacks (from its provenance) and where the run started (a universal run:
    the transfer point ``selected.json`` names)."""
    from paracomp import artefacts
    from paracomp.cli import main
    from paracomp.errors import DataError

    rows = {"dataset": ["sts2012"], "subset": ["MSRpar"], "part": ["train"],
            "tokens1": [["a"]], "tokens2": [["b"]], "score": [1.0]}  # fmt: skip
    data = tmp_path / "sts.parquet"
    prov = artefacts.Provenance("d", "s", {}, {"missing_subsets": ["sts2013/SMT"]})
    artefacts.write(pa.table(rows), data, artefacts.SCORED_PAIRS, prov)
    train = tmp_path / "train.json"
    train.write_text(json.dumps({"dev_pearson": 61.7, "test_pearson": 62.2, "epoch": 1,
                                 "point": {"dropout": 0.4}}))  # fmt: skip
    selected = tmp_path / "selected.json"
    selected.write_text(json.dumps({"run": "gran_ds", "point": 1, "settings": {"dropout": 0.4},
                                    "folder": "x", "criterion": "sts2016"}))  # fmt: skip
    out = tmp_path / "record.json"
    args = ["wieting2017", "supervised-record", "--train", str(train), "--task", "sts",
            "--run-name", "gran_u", "--index", "0", "--data", str(data)]  # fmt: skip
    assert main([*args, "--universal", str(selected), "--out", str(out)]) == 0
    record = json.loads(out.read_text())
    assert record == {"dev_pearson": 61.7, "test_pearson": 62.2, "epoch": 1,
                      "point": {"dropout": 0.4}, "run": "gran_u", "index": 0, "task": "sts",
                      "missing_subsets": ["sts2013/SMT"],
                      "source": {"universal": "gran_ds", "point": 1,
                                 "settings": {"dropout": 0.4}}}  # fmt: skip
    assert main([*args, "--init", "resources/wieting2017/init.parquet", "--out", str(out)]) == 0
    assert json.loads(out.read_text())["source"] == {"init": "resources/wieting2017/init.parquet"}

    from paracomp.papers.wieting2017.supervised import supervised_record

    bare = tmp_path / "bare.parquet"
    artefacts.write(
        pa.table(rows), bare, artefacts.SCORED_PAIRS, artefacts.Provenance("d", "s", {}, {})
    )
    with pytest.raises(DataError, match="not the supervised data of wieting2017"):
        supervised_record({}, "sts", "r", 0, bare, {})
