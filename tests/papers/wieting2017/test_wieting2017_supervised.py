"""The supervised STS split (seeded 40/10/50 per subset), Tai et al.'s target, and a tiny
supervised run of the similarity head on hand-made pairs."""

from __future__ import annotations

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
