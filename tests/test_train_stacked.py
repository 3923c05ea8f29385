"""Grid points trained side by side (``training.stack_grid``) against the points one by one."""

import json
import subprocess
import sys

import pandas as pd
import pyarrow as pa
import pytest
import torch

from paracomp import artefacts
from paracomp.artefacts import Provenance
from paracomp.cli import main
from paracomp.data.catalog import load
from paracomp.data.parsers import parse_set
from paracomp.errors import ConfigError
from paracomp.run_config import TrainConfig
from paracomp.train import loop
from paracomp.train.grid import grid_points
from paracomp.train.pairs.stacked import StackedPairTask
from paracomp.train.pairs.task import PairTask
from paracomp.train.stacks import split_grid

FAST = {"epochs": 3, "batch_size": 16, "dim": 12, "threads": 1}
REFERENCE = {"objective": "bicvm", "score": "half_sq_euclidean", "attraction": 1.0}
GRIDS = {
    # J_bi's reference form over k and margin, with a point of another λ-free form and lr
    "jbi-reference": (
        {**REFERENCE, "hinge_scale": 0.1},
        [{"k": k, "margin": m} for k in (1, 5, 15) for m in (1.0, 10.0)]
        + [{"k": 3, "lr": 0.2, "attraction": 0.0, "hinge_scale": 1.0}],
    ),
    # Eq. 1 as printed, negatives from the corpus (k 2 and 3) and one from the batch
    "jbi-printed-corpus": (
        {"objective": "bicvm", "pool": "corpus"},
        [{"k": 3, "reg": 1e-3}, {"k": 3, "reg": 0.1, "margin": 5.0}, {"k": 2}, {"pool": "batch"}],
    ),
    # J_pa: MAX and MIX, cosine and Euclidean, margins and λ (mean composer, one vocabulary)
    "jpa": (
        {"objective": "paraphrase", "composer": "mean", "shared_vocab": True},
        [
            {"sampler": s, "score": score, "margin": m, "reg": r}
            for s in ("max", "mix")
            for score, m in (("cosine", 0.4), ("euclidean", 1.0))
            for r in (1e-5, 1e-2)
        ],
    ),
    # J_pa on bilingual pairs (MAX/MIX over the other side only), sum composer
    "jpa-cross": (
        {"objective": "paraphrase"},
        [{"sampler": s, "score": sc} for s in ("mix", "max") for sc in ("euclidean", "cosine")],
    ),
}


def _configs(grid):
    base, points = GRIDS[grid]
    return {i: TrainConfig.from_dict({**FAST, **base, **p}) for i, p in enumerate(points)}


def _alone(configs, pairs, tmp_path):
    """Each point trained by itself: its weights, curve losses and sampler generator state."""
    out = {}
    for index, config in configs.items():
        task = PairTask(config, pairs)
        curve = loop.run(task, tmp_path / f"alone{index}", progress=False)
        out[index] = task.model.weight.detach().clone(), curve["loss"].tolist(), task.sampler
    return out


def _stacked(configs, pairs, tmp_path, static):
    folders = {i: tmp_path / "points" / str(i) for i in configs}
    task = StackedPairTask(configs, pairs, folders, static=static)
    curve = loop.run(task, tmp_path / "stack", progress=False)
    return task, curve


@pytest.mark.parametrize("grid", sorted(GRIDS))
@pytest.mark.slow
def test_points_stacked_on_cpu_are_the_points_alone_bit_for_bit(tmp_path, grid, distinct_pairs):
    configs, pairs = _configs(grid), distinct_pairs()
    alone = _alone(configs, pairs, tmp_path)
    task, curve = _stacked(configs, pairs, tmp_path, static=False)
    for index, member in task.members.items():
        assert torch.equal(member.model.weight, alone[index][0])
        assert curve[f"loss/{index}"].tolist() == alone[index][1]
    assert curve["loss"].tolist() == pytest.approx(curve.filter(like="loss/").sum(axis=1).tolist())


@pytest.mark.parametrize("grid", sorted(GRIDS))
@pytest.mark.slow
def test_points_in_one_batched_step_are_the_points_alone(tmp_path, grid, distinct_pairs):
    configs, pairs = _configs(grid), distinct_pairs()
    alone = _alone(configs, pairs, tmp_path)
    task, curve = _stacked(configs, pairs, tmp_path, static=True)
    assert task.static is not None and len(task.static.groups) >= 1
    state = task.state_dict()  # gives each point its group's generator state
    for index, member in task.members.items():
        weight, losses, sampler = alone[index]
        torch.testing.assert_close(member.model.weight, weight, rtol=1e-4, atol=1e-5)
        assert curve[f"loss/{index}"].tolist() == pytest.approx(losses, rel=1e-5)
        drawn = state["members"][str(index)]["sampler"]["generator"]
        assert torch.equal(drawn, sampler.generator.get_state())


def test_the_stacked_groups(distinct_pairs):
    """J_pa's grid: one group per score (MAX and MIX together), the points in group order."""
    task = StackedPairTask(_configs("jpa"), distinct_pairs(), {}, static=True)
    groups = [(g.score.name, g.kind, g.mix.view(-1).tolist()) for g in task.static.groups]
    assert groups == [
        ("cosine", "in_batch", [False, False, True, True]),
        ("euclidean", "in_batch", [False, False, True, True]),
    ]
    assert task.static.position == [0, 1, 4, 5, 2, 3, 6, 7]


class Killed(Exception):
    pass


@pytest.mark.parametrize("static", [False, True])
def test_a_killed_stack_resumes_to_the_same_weights(tmp_path, static, distinct_pairs):
    configs, pairs = _configs("jpa-cross"), distinct_pairs()
    whole, whole_curve = _stacked(configs, pairs, tmp_path / "whole", static)

    def kill_in_epoch_2(epoch, encoder):
        if epoch == 2:
            raise Killed
        return {}

    killed = StackedPairTask(configs, pairs, {}, static=static)
    with pytest.raises(Killed):
        loop.run(killed, tmp_path / "killed", kill_in_epoch_2, progress=False)
    resumed, curve = _stacked(configs, pairs, tmp_path / "killed", static)
    for index, member in resumed.members.items():
        assert torch.equal(member.model.weight, whole.members[index].model.weight)
    assert curve.filter(like="loss/").equals(whole_curve.filter(like="loss/"))


def test_a_checkpoint_of_another_grid_is_moved_aside(tmp_path, caplog, distinct_pairs):
    configs, pairs = _configs("jpa-cross"), distinct_pairs()
    _stacked(configs, pairs, tmp_path, static=False)
    other = {**configs, 3: TrainConfig.from_dict({**FAST, "objective": "paraphrase"})}
    _stacked(other, pairs, tmp_path, static=False)
    assert "trained on other data" in caplog.text
    assert (tmp_path / "stack" / "checkpoint.pt.old").is_file()


def test_points_that_do_not_stack(distinct_pairs):
    configs = _configs("jpa-cross")
    with pytest.raises(ConfigError, match="do not stack"):
        StackedPairTask({**configs, 9: configs[0].__class__(batch_size=8)}, distinct_pairs(), {})


def test_a_grid_splits_into_stacks_by_batch_size():
    base = {"objective": "paraphrase", "epochs": 5, "shared_vocab": True}
    grid = grid_points(
        [
            {"batch_size": [25, 50], "sampler": ["max", "mix"], "score": ["euclidean"]},
            {"batch_size": [25, 50], "sampler": ["max"], "score": ["cosine"], "margin": [0.4]},
        ]
    )
    assert split_grid(base, grid) == [[0, 1, 4], [2, 3, 5]]
    # a setting outside the stacked ones (here the seed) splits a stack
    assert split_grid(base, [{"seed": 1}, {"seed": 2}, {"seed": 1, "k": 3}]) == [[0, 2], [1]]


@pytest.mark.slow
def test_train_stack_cli_writes_what_train_writes_per_point(tmp_path, mirror):
    """`paracomp train-stack` over a stack and `paracomp train` per point: the same records
    (but the time), curves and embeddings; `select` takes either."""
    sick = parse_set(load().set("sick2014"), "mirror", mirror / "sick2014")
    prov = Provenance("t", "test", {}, {})
    artefacts.write(sick, tmp_path / "sick.parquet", artefacts.SENTENCE_PAIRS, prov)
    train = sick.to_pandas().query("split == 'train'").head(300)
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
    artefacts.write(pairs, tmp_path / "pairs.parquet", artefacts.SEGMENT_PAIRS, prov)
    base = {"objective": "paraphrase", "shared_vocab": True, "dim": 16, "epochs": 2}
    points = {"0": {"sampler": "max", "margin": 0.4}, "2": {"sampler": "mix", "margin": 0.6}}
    tune = [
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
    common = ["--pairs", str(tmp_path / "pairs.parquet"), "--params", json.dumps(base), *tune]
    stack = ["train-stack", *common, "--points", json.dumps(points), "--runs", str(tmp_path)]
    stack += ["--out", str(tmp_path / "stack0"), "--records", str(tmp_path / "records")]
    assert main(stack) == 0
    for index, point in points.items():
        alone = tmp_path / f"alone{index}"
        args = ["train", *common, "--point", json.dumps(point), "--out", str(alone)]
        assert main([*args, "--record", str(alone / "record.json")]) == 0
        mine = json.loads((tmp_path / "records" / f"{index}.json").read_text())
        theirs = json.loads((alone / "record.json").read_text())
        timing = {"seconds", "pairs_per_s"}
        assert mine.keys() == theirs.keys() and mine["point"] == point
        assert {k: v for k, v in mine.items() if k not in timing} == {
            k: v for k, v in theirs.items() if k not in timing
        }
        curves = [pd.read_parquet(d / "curve.parquet") for d in (tmp_path / index, alone)]
        assert list(curves[0].columns) == list(curves[1].columns)
        assert curves[0][["epoch", "loss", "tuning_r"]].equals(
            curves[1][["epoch", "loss", "tuning_r"]]
        )
        embeddings = [
            artefacts.read_embeddings(d / "embeddings.parquet") for d in (tmp_path / index, alone)
        ]
        assert embeddings[0][0] == embeddings[1][0]
        assert (embeddings[0][1] == embeddings[1][1]).all()
        assert (tmp_path / index / "curve.png").is_file() and (
            tmp_path / index / "composer.pt"
        ).is_file()
    records = [str(tmp_path / "records" / f"{i}.json") for i in points]
    assert main(["select", "--records", *records, "--out", str(tmp_path / "sel.json")]) == 0
    # rerun: the finished stack trains no further epoch, the records stay
    assert main(stack) == 0
    again = json.loads((tmp_path / "records" / "2.json").read_text())
    assert (
        again["tuning_r"]
        == json.loads((tmp_path / "alone2" / "record.json").read_text())["tuning_r"]
    )


def test_the_stack_split_imports_no_torch():
    """The workflow splits grids when it builds the DAG, which must not import torch."""
    code = "import sys, paracomp.train.stacks; print('torch' in sys.modules)"
    assert (
        subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout
        == "False\n"
    )
