"""The static CNN of Table 4 on a toy sentiment task."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from paracomp.papers.wieting2015.cnn import Split, StaticCNN, train_static_cnn

WORDS = ["the", "movie", "good", "bad", "was"]
VECTORS = np.array([[0.1, 0.2], [0.2, 0.1], [1.0, 0.0], [-1.0, 0.0], [0.0, 0.3]], np.float32)
INDEX = {w: i for i, w in enumerate(WORDS)}


def _split(n: int, seed: int) -> Split:
    """Sentences of 2-5 tokens whose only sentiment word gives the label."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 2, n)
    texts = []
    for y in labels:
        words = ["the", "good" if y else "bad", "movie", "was", "unknownword"]
        texts.append(" ".join(words[: rng.integers(2, 6)]))
    return Split.encode(texts, labels, INDEX)


def test_split_skips_unknown_tokens():
    split = Split.encode(["the good zzz", "zzz"], [1, 0], INDEX)
    assert split.ids == [[0, 2], []] and split.labels.tolist() == [1, 0]


@pytest.mark.slow  # a training run of 1,200 examples
def test_learns_a_separable_task_with_fixed_vectors():
    train, dev, test = _split(400, 0), _split(50, 1), _split(50, 2)
    result = train_static_cnn(
        VECTORS, train, dev, test, filters=8, epochs=3, batch_size=10, eval_every=100, seed=3
    )
    assert result["dev"] == 1.0 and result["test"] == 1.0
    assert 100 <= result["seen"] <= result["of"] == 1200
    assert result["test_correct"] == [1] * 50  # each test example's hit, for the intervals


def test_table4_accuracy_on_every_resample_of_the_test_sentences():
    import numpy as np

    from paracomp.eval import bootstrap
    from paracomp.papers.wieting2015.word_tables import SST_TEST, _accuracy_cell

    hits = np.random.default_rng(0).random(40) < 0.7
    cell = _accuracy_cell({"test": hits.mean(), "test_correct": hits.astype(int).tolist()}, "", 100)
    drawn = bootstrap.indices(SST_TEST, 40)[2]
    assert cell.boot[2] == 100 * hits[drawn].mean() and cell.sets == (SST_TEST,)
    assert "keeps no test predictions" in _accuracy_cell({"test": 0.5}, "", 100).noise


def test_padding_and_empty_sentences_do_not_leak():
    model = StaticCNN(VECTORS, filters=4, dropout=0.0)
    model.eval()
    alone = model(torch.tensor([[2, 0]]), torch.tensor([[1.0, 1.0]]))
    padded = model(torch.tensor([[2, 0, 3, 3]]), torch.tensor([[1.0, 1.0, 0.0, 0.0]]))
    torch.testing.assert_close(alone, padded)
    empty = model(torch.tensor([[3]]), torch.tensor([[0.0]]))
    torch.testing.assert_close(empty, model.out(torch.zeros(1, 4)))
    assert "table" not in model.state_dict()  # the vectors are fixed, not trained
