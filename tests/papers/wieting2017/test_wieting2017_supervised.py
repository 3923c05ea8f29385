"""The supervised STS split (seeded 40/10/50 per subset), Tai et al.'s target, and a tiny
supervised run of the similarity head on hand-made pairs."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
import torch

from paracomp.papers.wieting2017.supervised import (
    sick_splits,
    sparse_target,
    sts_splits,
    train_supervised,
)


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


def test_sparse_target_is_tai_et_als():
    target = sparse_target(np.array([1.0, 2.4, 5.0]), 5)
    assert target[0].tolist() == [1, 0, 0, 0, 0]
    assert target[1] == pytest.approx([0, 0.6, 0.4, 0, 0])
    assert target[2].tolist() == [0, 0, 0, 0, 1]
    assert (target @ np.arange(1, 6)) == pytest.approx([1.0, 2.4, 5.0])


@pytest.mark.slow  # 15 epochs of training
def test_a_tiny_supervised_run_learns_and_reports_test_r():
    from paracomp.models.registry import make_composer

    words = ["good", "bad", "fine", "awful", "the"]
    rng = np.random.default_rng(0)
    matrix = rng.normal(size=(5, 8)).astype(np.float32)
    pairs = []
    for i in range(120):
        a, b = rng.choice(4, 2)
        same = (a in (0, 2)) == (b in (0, 2))
        part = "train" if i < 80 else ("dev" if i < 100 else "test")
        pairs.append({"s1": f"the {words[a]}", "s2": f"the {words[b]}",
                      "score": 4.5 if same else 0.5, "part": part})  # fmt: skip
    frame = pd.DataFrame(pairs)
    settings = {"epochs": 15, "batch_size": 10, "lr": 0.01, "hidden": 8, "seed": 1,
                "dropout": 0.1, "scramble": 0.5, "reg_initial": 1e-5}  # fmt: skip
    result = train_supervised(frame, "sts", words, matrix, make_composer("mean", 8), settings,
                              "whitespace", True)  # fmt: skip
    assert result["n"] == {"train": 80, "dev": 20, "test": 20}
    assert result["test_pearson"] > 50 and 1 <= result["epoch"] <= 15
    from paracomp.eval.metrics import pearson

    assert len(result["test_pred"]) == len(result["test_gold"]) == 20
    kept = 100 * pearson(np.array(result["test_pred"]), np.array(result["test_gold"]))
    assert kept == pytest.approx(result["test_pearson"])


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


def _sick(mirror) -> tuple[pd.DataFrame, list[str], np.ndarray]:
    """120 real SICK train pairs (80 train, 20 dev, 20 test), their words and random rows."""
    sick = pd.read_csv(mirror / "sick2014" / "SICK_train.txt", sep="\t").head(120)
    frame = pd.DataFrame(
        {
            "s1": sick["sentence_A"],
            "s2": sick["sentence_B"],
            "score": sick["relatedness_score"],
            "part": np.repeat(["train", "dev", "test"], [80, 20, 20]),
        }
    )
    words = sorted({w for s in [*frame["s1"], *frame["s2"]] for w in s.lower().split()})
    matrix = np.random.default_rng(0).normal(size=(len(words), 8)).astype(np.float32)
    return frame, words, matrix


SMALL = {"epochs": 3, "batch_size": 10, "lr": 0.01, "hidden": 8, "seed": 1, "dropout": 0.1,
         "scramble": 0.5, "reg_initial": 1e-5}  # fmt: skip


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
def test_cuda_supervised_run_equals_cpu(mirror):
    """The noise is drawn on the CPU for both: the CUDA run selects the same epoch and reports
    the same dev and test r as the CPU run, up to rounding."""
    from paracomp.models.registry import make_composer

    frame, words, matrix = _sick(mirror)
    runs = [
        train_supervised(
            frame,
            "sts",
            words,
            matrix,
            make_composer("lstmavg", 8, torch.Generator().manual_seed(1)),
            SMALL,
            "whitespace",
            True,
            device=device,
        )  # fmt: skip
        for device in ("cpu", "cuda")
    ]
    assert np.isfinite(runs[0]["test_pearson"]) and runs[0]["epoch"] >= 1
    assert runs[0]["epoch"] == runs[1]["epoch"]
    for key in ("dev_pearson", "test_pearson"):
        assert runs[1][key] == pytest.approx(runs[0][key], abs=0.01)


@pytest.mark.slow
@pytest.mark.parametrize("model", ["gran", "bilstmavg"])
def test_gridded_supervised_run_is_the_plain_run(mirror, model):
    """The composer as GriddedComposer (uncaptured on CPU; both sides of a batch in one call)
    trains as the plain composer on 120 real SICK pairs: the same composer weights and the same
    dev and test r, up to rounding."""
    from paracomp.models.registry import make_composer

    frame, words, matrix = _sick(mirror)
    runs = {}
    for gridded in (False, True):
        composer = make_composer(model, 8, torch.Generator().manual_seed(0))
        result = train_supervised(frame, "sts", words, matrix, composer, SMALL, "whitespace",
                                  True, gridded=gridded)  # fmt: skip
        runs[gridded] = result, composer.state_dict()
    (plain, plain_state), (gridded, gridded_state) = runs[False], runs[True]
    for key, value in plain_state.items():
        torch.testing.assert_close(gridded_state[key], value, rtol=0, atol=1e-5)
    assert gridded["epoch"] == plain["epoch"]
    assert gridded["test_pearson"] == pytest.approx(plain["test_pearson"], abs=0.01)


@pytest.mark.slow
def test_the_selected_epochs_encoder_is_a_run_folder_the_evaluator_reads(mirror, tmp_path):
    """A supervised point on 150 real SICK pairs writes its encoder at the epoch validation r
    picks: objective ``supervised``, the composer's state and only the word rows training
    moved (words of the dev and test parts keep their initial rows, read back as the
    fallback). Read through the evaluator's ``run_encoder`` with the initial vectors as the
    fallback, it encodes the test sentences as the trained model did at that epoch."""
    from paracomp import artefacts
    from paracomp.eval.model_encoder import run_encoder
    from paracomp.eval.tokens import tokenize_all
    from paracomp.models.registry import make_composer
    from paracomp.papers.wieting2017.supervised import run_supervised, supervised_frame
    from paracomp.run_folder import read_composer, read_rows

    sick = pd.read_csv(mirror / "sick2014" / "SICK_train.txt", sep="\t").head(150)
    sets = {"sick2014": tmp_path / "sick.parquet"}
    pd.DataFrame({
        "dataset": "sick2014", "subset": "sick",
        "split": np.repeat(["train", "trial", "test"], [100, 25, 25]),
        "id": sick["pair_ID"].astype(str), "s1": sick["sentence_A"], "s2": sick["sentence_B"],
        "score": sick["relatedness_score"], "label": sick["entailment_judgment"],
    }).to_parquet(sets["sick2014"])  # fmt: skip
    frame, _ = supervised_frame("sick", sets, seed=1)
    words = sorted({w for s in [*frame["s1"], *frame["s2"]] for w in s.lower().split()})
    matrix = np.random.default_rng(0).normal(size=(len(words), 8)).astype(np.float32)
    init = tmp_path / "init.parquet"
    artefacts.write_embeddings(words, matrix, init, artefacts.Provenance("t", "t", {}, {}))
    settings = {**SMALL, "dim": 8, "split_seed": 1}

    record = run_supervised("sick", sets, "lstmavg", settings, "whitespace", True, init,
                            encoder_out=tmp_path / "enc")  # fmt: skip
    assert record["epoch"] >= 1

    # the same point again, keeping the test sentences' vectors at each better epoch
    test = frame[frame["part"] == "test"]
    tokens = tokenize_all([*test["s1"], *test["s2"]], "whitespace", True)
    index = {w: i for i, w in enumerate(words)}
    ids = [np.array([index[t] for t in s if t in index], dtype=np.int64) for s in tokens]
    seen: dict[str, np.ndarray] = {}

    def keep(model) -> None:
        with torch.no_grad():
            seen["vectors"] = model.embed(ids, None).numpy()

    composer = make_composer("lstmavg", 8, torch.Generator().manual_seed(1), settings)
    again = train_supervised(frame, "sick", words, matrix, composer, settings, "whitespace",
                             True, on_best=keep)  # fmt: skip
    assert again["epoch"] == record["epoch"]

    config, _ = read_composer(tmp_path / "enc")
    assert (config.objective, config.composer, config.dropout) == ("supervised", "lstmavg", 0.1)
    moved, _ = read_rows(tmp_path / "enc")
    train_words = {t for s in frame[frame["part"] == "train"][["s1", "s2"]].stack()
                   for t in s.lower().split()}  # fmt: skip
    assert moved and set(moved) <= train_words and len(moved) < len(words)

    encoding, encoder = run_encoder(tmp_path / "enc", fallback=init)
    assert encoding.objective == "supervised" and encoding.fallback == str(init)
    np.testing.assert_allclose(encoder.encode(tokens), seen["vectors"], rtol=0, atol=1e-5)
    _, bare = run_encoder(tmp_path / "enc")
    assert not np.allclose(bare.encode(tokens), seen["vectors"], atol=1e-3)


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
        (tmp_path / f"{index}.json").write_text(json.dumps(record))
        records.append(str(tmp_path / f"{index}.json"))
    out = tmp_path / "sts.selected"
    assert main(["wieting2017", "select-supervised", "--records", *records, "--out", str(out)]) == 0
    assert (out / "composer.pt").read_bytes() == b"composer.pt of point 1"
    assert (out / "embeddings.parquet").read_bytes() == b"embeddings.parquet of point 1"
    selected = json.loads((out / "selected.json").read_text())
    assert (selected["index"], selected["folder"]) == (1, str(tmp_path / "1"))


@pytest.mark.slow
def test_a_point_on_the_tokenised_set_is_the_point_on_the_raw_set(mirror, tmp_path):
    """150 real SICK pairs, raw (Moses-tokenised and lowercased in the job) and tokenised once
    by ``tokenise_set``: the same record; a mix of raw and tokenised sets is refused."""
    from paracomp import artefacts
    from paracomp.errors import DataError
    from paracomp.eval.tokens import tokenise_set, tokenize_all
    from paracomp.papers.wieting2017.supervised import run_supervised

    sick = pd.read_csv(mirror / "sick2014" / "SICK_train.txt", sep="\t").head(150)
    raw, tokens = tmp_path / "sick.parquet", tmp_path / "tokens.parquet"
    pd.DataFrame({
        "dataset": "sick2014", "subset": "sick",
        "split": np.repeat(["train", "trial", "test"], [100, 25, 25]),
        "id": sick["pair_ID"].astype(str), "s1": sick["sentence_A"], "s2": sick["sentence_B"],
        "score": sick["relatedness_score"], "label": sick["entailment_judgment"],
    }).to_parquet(raw)  # fmt: skip
    tokenise_set(raw, tokens, "moses", True)
    sentences = [*sick["sentence_A"], *sick["sentence_B"]]
    words = sorted({t for s in tokenize_all(sentences, "moses", True) for t in s})
    matrix = np.random.default_rng(0).normal(size=(len(words), 8)).astype(np.float32)
    init = tmp_path / "init.parquet"
    artefacts.write_embeddings(words, matrix, init, artefacts.Provenance("t", "t", {}, {}))
    settings = {**SMALL, "dim": 8, "split_seed": 1}
    records = [
        run_supervised("sick", {"sick2014": path}, "lstmavg", settings, "moses", True, init)
        for path in (raw, tokens)
    ]
    for key in ("epoch", "dev_pearson", "test_pearson"):
        assert records[0][key] == records[1][key]
    with pytest.raises(DataError, match="some raw, some tokenised"):
        run_supervised("sts", {"sts2012": raw, "sts2013": tokens}, "lstmavg", settings,
                       "moses", True, init)  # fmt: skip
