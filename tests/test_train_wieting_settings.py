"""The trainer's settings for Wieting et al.'s objectives: pretrained initial rows, sampler
max_skip with constraint lists, reg_initial and reg_composer, lr_composer, adagrad_eps, and
trees from dependency heads, through PairTask."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest
import torch

from paracomp.errors import ConfigError
from paracomp.models.tree_rnn import TreeBatch, Trees
from paracomp.models.trees import from_dependencies, right_branching
from paracomp.models.vocab import UNK
from paracomp.run_config import TrainConfig
from paracomp.train.pairs.task import PairTask

# The word pairs of tests/test_constrained.py: with these vectors the first step's loss is
# 7/3 (identical-anchor skip) and 6.5/3 with the constraint lists of the pairs.
S1, S2 = ["big", "huge", "cat"], ["large", "large", "dog"]
VECTORS = {"big": (1, 0), "large": (1, 1), "huge": (2, 0), "cat": (0, 1), "dog": (0, 1.5)}
LISTS = {"big": ["large"], "large": ["big", "huge"], "huge": ["large"], "cat": ["dog"]}
LISTS["dog"] = ["cat"]
WORDS = {
    "objective": "paraphrase",
    "sampler": "max_skip",
    "score": "dot",
    "composer": "sum",
    "shared_vocab": True,
    "dim": 2,
    "margin": 1.0,
}


def _init(extra: dict[str, tuple[float, float]] | None = None):
    vectors = {**VECTORS, **(extra or {})}
    return list(vectors), np.array(list(vectors.values()), dtype=np.float32)


def _first_batch(task: PairTask):
    return next(task.data.batches(torch.arange(task.data.n_pairs), task.config.batch_size))


def _task(settings, init=None, constraints=None, s1=S1, s2=S2, batch_size=3, **columns):
    table = pa.table({"s1": s1, "s2": s2, **columns})
    config = TrainConfig.from_dict({**WORDS, "batch_size": batch_size, **settings})
    return PairTask(config, table, init, constraints)


@pytest.mark.parametrize(
    "rule, loss", [("none", 7 / 3), ("candidate", 6.5 / 3)], ids=["plain", "constraints"]
)
def test_first_step_loss_by_hand(rule, loss):
    task = _task({"constraints": rule}, _init(), LISTS)
    assert task.step(0, _first_batch(task)).item() == pytest.approx(loss)


def test_constraints_need_lists_and_max_skip():
    with pytest.raises(ConfigError, match="constraint lists"):
        _task({"constraints": "candidate"}, _init())
    with pytest.raises(ConfigError, match="max_skip"):
        TrainConfig.from_dict({**WORDS, "sampler": "max", "constraints": "candidate"})
    with pytest.raises(ConfigError, match="paraphrase"):
        TrainConfig.from_dict({**WORDS, "objective": "bicvm"})


def test_pretrained_rows_vocabulary_and_export(tmp_path):
    words, vectors = _init({UNK: (0.5, 0.5), "unused": (3.0, 4.0)})
    table = {"s1": [*S1, "zebra"], "s2": [*S2, "dog"]}
    task = _task({"epochs": 1, "lr": 0.5}, (words, vectors), s1=table["s1"], s2=table["s2"])
    vocab = task.data.vocab1
    assert set(vocab.words) == {UNK, "big", "huge", "cat", "large", "dog"}  # zebra is UNK
    weight = task.model.weight.detach().numpy()
    for word in vocab.words:
        np.testing.assert_array_equal(weight[vocab.index[word]], vectors[words.index(word)])
    task.step(0, _first_batch(task))
    exported_words, matrix, _ = task.exported(1)
    assert exported_words == [w for w in words if w != UNK]
    np.testing.assert_array_equal(matrix[exported_words.index("unused")], [3.0, 4.0])
    trained = task.model.weight.detach().numpy()[vocab.index["big"]]
    np.testing.assert_array_equal(matrix[exported_words.index("big")], trained)
    assert not np.array_equal(trained, VECTORS["big"])


def test_pretrained_rows_with_the_unk_row_exported():
    """export_unk with init: every pretrained word (the trained rows in place), then the UNK
    row the unknown words take; the encoder scores over those rows, as the evaluator will."""
    words, vectors = _init({"unused": (3.0, 4.0)})
    settings = {"epochs": 1, "lr": 0.5, "export_unk": True, "composer": "lstm_avg", "dim": 3}
    settings["score"] = "cosine"
    table = {"s1": [*S1, "zebra"], "s2": [*S2, "dog"]}
    with pytest.raises(ConfigError, match="dim"):  # lstm_avg reads 50-d words
        _task(settings, (words, vectors), s1=table["s1"], s2=table["s2"])
    wide = np.concatenate([vectors, np.zeros((len(words), 48), dtype=np.float32)], axis=1)
    task = _task(settings, (words, wide), s1=table["s1"], s2=table["s2"])
    task.step(0, _first_batch(task))
    exported_words, matrix, notes = task.exported(1)
    assert exported_words == [*words, UNK]  # zebra has no vector: UNK, exported last
    assert "keep their initial vectors" in notes
    np.testing.assert_array_equal(matrix[words.index("unused")], wide[words.index("unused")])
    weight = task.model.weight.detach().numpy()
    np.testing.assert_array_equal(matrix[-1], weight[0])
    encoder = task.encoder()
    assert encoder.known("unused") and not encoder.known("zebra")
    assert encoder.ids(["unused", "zebra"]) == [words.index("unused"), len(words)]


def test_pretrained_width_must_be_the_runs_dim():
    with pytest.raises(ConfigError, match="dim"):
        _task({"dim": 3}, _init())


def _moved(task: PairTask, seed: int = 0) -> torch.Tensor:
    """Move every row off its initial vector (reg_initial is zero at the start)."""
    noise = torch.randn(task.model.weight.shape, generator=torch.Generator().manual_seed(seed))
    with torch.no_grad():
        task.model.weight.add_(0.1 * noise)
    return task.model.weight.detach().clone()


@pytest.mark.parametrize("composer", ["sum", "tree_rnn"])
def test_reg_initial_pulls_every_row_back(composer):
    """With SGD, the pull adds exactly −lr·λ(W − W_init) to every row, in the batch or not,
    whether the hinge's gradient comes by hand (sum) or from autograd (tree_rnn)."""
    lam, lr = 0.3, 0.1
    words, vectors = _init({"zebra": (3.0, 4.0), "lion": (-1.0, 2.0)})
    runs = {}
    for reg in (0.0, lam):
        task = _task(
            {"composer": composer, "optimizer": "sgd", "lr": lr, "reg_initial": reg},
            (words, vectors),
            s1=["big", "huge cat", "zebra"],
            s2=["large", "large dog", "lion"],
            batch_size=2,
        )
        assert task.config.batch_size == 2  # zebra and lion are not in the first batch
        initial = task.model.weight.detach().clone()
        before = _moved(task)
        loss = task.step(0, _first_batch(task)).item()
        runs[reg] = (before, initial, task.model.weight.detach().clone(), loss)
    before, initial, with_reg, loss_reg = runs[lam]
    _, _, without, loss = runs[0.0]
    torch.testing.assert_close(with_reg - without, -lr * lam * (before - initial))
    expected = lam / 2 * (before - initial).pow(2).sum().item()
    assert loss_reg - loss == pytest.approx(expected, rel=1e-5)


def test_reg_composer_and_lr_composer():
    """The composer's parameters take −lr_composer·λ·θ more with reg_composer (SGD)."""
    lam, lr_composer = 0.2, 0.05
    after = {}
    for reg in (0.0, lam):
        task = _task(
            {
                "composer": "tree_rnn",
                "optimizer": "sgd",
                "lr": 0.5,
                "lr_composer": lr_composer,
                "reg_composer": reg,
            },
            _init(),
            s1=["big cat", "huge", "cat dog"],
            s2=["large dog", "large", "dog"],
        )
        before = [p.detach().clone() for p in task.model.composer.parameters()]
        task.step(0, _first_batch(task))
        after[reg] = [p.detach().clone() for p in task.model.composer.parameters()]
    for theta, plain, regular in zip(before, after[0.0], after[lam], strict=True):
        torch.testing.assert_close(regular - plain, -lr_composer * lam * theta)


def test_adagrad_eps_reaches_both_optimisers():
    settings = {"composer": "tree_rnn", "adagrad_eps": 1e-4, "lr": 0.5, "lr_composer": 0.05}
    task = _task(settings, _init())
    groups = [g for opt in task.optimizer.optimizers for g in opt.param_groups]
    assert [g["eps"] for g in groups] == [1e-4, 1e-4]
    assert [g["lr"] for g in groups] == [0.5, 0.05]
    with pytest.raises(ConfigError, match="adagrad"):
        TrainConfig.from_dict({**WORDS, "optimizer": "sgd", "adagrad_eps": 1e-4})


def test_trees_from_heads_reach_the_composer():
    """Segments with heads are composed over their dependency trees, the others (no parse
    that fits) right-branching; a left-headed parse gives another vector than the default."""
    s1, s2 = ["big cat dog", "huge"], ["large dog", "cat big dog"]
    heads1 = [[2, 2, 2], [0]]  # dog heads both: ((big (cat dog)) ... head-outward
    heads2 = [[1, 1], [0, 0, 0]]  # cat big dog: big and dog depend on cat
    words, vectors = _init()
    task = _task(
        {"composer": "tree_rnn"}, (words, vectors), s1=s1, s2=s2, heads1=heads1, heads2=heads2
    )
    assert task.data.trees is not None
    pairs = torch.arange(2)
    trees = task.data.trees_of(pairs, pairs.new_empty(0), pairs.new_empty(0))
    ids, starts = task.data.take_pairs(pairs, pairs)
    with torch.no_grad():
        composed, _ = task.model.compose(ids, starts, trees=trees)
        plain, _ = task.model.compose(ids, starts)
    expected = [from_dependencies(h) for h in heads1 + heads2]
    lengths = [3, 1, 2, 3]
    built = Trees.build(expected, lengths)
    batch = task.model.lookup(ids, starts)
    reference = task.model.composer(TreeBatch.of(batch, *built.take(torch.arange(4))))
    torch.testing.assert_close(composed, reference.detach())
    assert not torch.allclose(composed[3], plain[3])  # (cat-headed) vs right-branching
    np.testing.assert_array_equal(expected[2], right_branching(2))


def test_trees_change_the_checkpoint_fingerprint():
    words, vectors = _init()
    plain = _task(
        {"composer": "tree_rnn"}, (words, vectors), s1=["big cat", "huge"], s2=["large", "dog"]
    )
    parsed = _task(
        {"composer": "tree_rnn"},
        (words, vectors),
        s1=["big cat", "huge"],
        s2=["large", "dog"],
        heads1=[[1, 1], [0]],
        heads2=[[0], [0]],
    )
    assert "trees" not in plain.fingerprint() and "trees" in parsed.fingerprint()
    assert "init" in plain.fingerprint()
