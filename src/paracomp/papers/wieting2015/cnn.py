"""The static CNN of Table 4 (§5.5): Kim's (2014) CNN with unigram filters only on fixed word
vectors, for binary sentiment (SST).

Each token's vector goes through ``filters`` unigram filters (a linear map) and a ReLU, the
sentence is the maximum over its tokens, dropout follows (where Kim puts it: on the pooled
features, before the classifier; the paper does not say) and a linear layer gives the two
class scores. AdaGrad (learning rate 0.1), mini-batches of 10, dropout 0.5; the development
accuracy is measured every ``eval_every`` training examples and the parameters of the best
one predict the test set. Word vectors stay fixed ("static"); a token without a vector is
skipped (a sentence without any has zero features). Seeds are not given by the paper: one
``seed`` draws the initial weights, the order and the dropout masks.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from torch import nn


@dataclass(frozen=True)
class Split:
    """Sentences as lists of word-row ids (known tokens only) and their labels."""

    ids: list[list[int]]
    labels: np.ndarray

    @classmethod
    def encode(cls, texts: Sequence[str], labels: Sequence[int], index: dict[str, int]) -> Split:
        ids = [[index[t] for t in text.split() if t in index] for text in texts]
        return cls(ids, np.asarray(labels, dtype=np.int64))


class StaticCNN(nn.Module):
    """Unigram filters, ReLU, max over time, dropout, linear classifier; fixed vectors."""

    def __init__(self, vectors: np.ndarray, filters: int, dropout: float, classes: int = 2):
        super().__init__()
        table = torch.from_numpy(np.array(vectors, dtype=np.float32))  # a writable copy
        self.register_buffer("table", table, persistent=False)  # fixed, not in state_dict
        self.filters = nn.Linear(table.shape[1], filters)
        self.dropout = nn.Dropout(dropout)
        self.out = nn.Linear(filters, classes)

    def forward(self, ids: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """Class scores of a padded batch (``mask``: real tokens)."""
        features = torch.relu(self.filters(self.table[ids])) * mask.unsqueeze(2)
        return self.out(self.dropout(features.max(dim=1).values))


def _padded(batch: list[list[int]]) -> tuple[torch.Tensor, torch.Tensor]:
    width = max(1, max(len(x) for x in batch))
    ids = torch.zeros(len(batch), width, dtype=torch.long)
    mask = torch.zeros(len(batch), width)
    for i, row in enumerate(batch):
        ids[i, : len(row)] = torch.tensor(row, dtype=torch.long)
        mask[i, : len(row)] = 1.0
    return ids, mask


@torch.no_grad()
def correct(model: StaticCNN, split: Split, batch: int = 500) -> np.ndarray:
    """Whether the model classifies each example of ``split`` right (bool, in order)."""
    model.eval()
    found = []
    for start in range(0, len(split.ids), batch):
        ids, mask = _padded(split.ids[start : start + batch])
        predicted = model(ids, mask).argmax(1).numpy()
        found.append(predicted == split.labels[start : start + batch])
    model.train()
    return np.concatenate(found) if found else np.zeros(0, bool)


def accuracy(model: StaticCNN, split: Split, batch: int = 500) -> float:
    return float(correct(model, split, batch).sum()) / len(split.ids)


def train_static_cnn(
    vectors: np.ndarray,
    train: Split,
    dev: Split,
    test: Split,
    *,
    filters: int = 200,
    epochs: int = 30,
    batch_size: int = 10,
    lr: float = 0.1,
    dropout: float = 0.5,
    eval_every: int = 3000,
    seed: int = 1,
) -> dict[str, Any]:
    """Train and return the best development accuracy, the test accuracy of its parameters,
    whether it classifies each test example right (``test_correct``: the table's bootstrap
    intervals) and where it was reached (training examples seen)."""
    generator = torch.Generator().manual_seed(seed)
    torch.manual_seed(seed)  # dropout masks
    model = StaticCNN(vectors, filters, dropout)
    optimizer = torch.optim.Adagrad(model.parameters(), lr=lr)
    loss_fn = nn.CrossEntropyLoss()
    labels = torch.from_numpy(train.labels)
    best = {"dev": -1.0, "seen": 0}
    best_state = copy.deepcopy(model.state_dict())
    seen, next_eval = 0, eval_every
    for _ in range(epochs):
        order = torch.randperm(len(train.ids), generator=generator).tolist()
        for start in range(0, len(order), batch_size):
            chosen = order[start : start + batch_size]
            ids, mask = _padded([train.ids[i] for i in chosen])
            optimizer.zero_grad()
            loss_fn(model(ids, mask), labels[chosen]).backward()
            optimizer.step()
            seen += len(chosen)
            if seen >= next_eval:
                next_eval += eval_every
                score = accuracy(model, dev)
                if score > best["dev"]:
                    best = {"dev": score, "seen": seen}
                    best_state = copy.deepcopy(model.state_dict())
    score = accuracy(model, dev)
    if score > best["dev"]:
        best, best_state = {"dev": score, "seen": seen}, copy.deepcopy(model.state_dict())
    model.load_state_dict(best_state)
    hits = correct(model, test)
    return {"dev": best["dev"], "test": float(hits.sum()) / len(test.ids), "seen": best["seen"],
            "of": seen, "test_correct": hits.astype(int).tolist()}  # fmt: skip
