"""Scores of Wieting et al.'s (2015) models: word-similarity criteria and a trained RNN run's
phrase cosines, over right-branching or parsed trees."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import torch

from paracomp import artefacts
from paracomp.eval.encode import cosine_rows
from paracomp.models.base import SegmentBatch
from paracomp.models.registry import COMPOSERS
from paracomp.models.tree_rnn import TreeBatch, Trees
from paracomp.models.trees import from_dependencies, right_branching
from paracomp.papers.wieting2015.scoring import RunEncoder, phrase_scores, word_scores

WORDS = ["big", "cat", "sat", "dog", "large"]
MATRIX = np.array(
    [[1.0, 0.0, 0.5], [0.0, 1.0, 0.2], [0.3, -0.4, 1.0], [0.1, 0.9, 0.3], [0.9, 0.1, 0.4]],
    dtype=np.float32,
)


def _write(path: Path, words=WORDS, matrix=MATRIX) -> Path:
    prov = artefacts.Provenance(dataset="t", source="t", inputs={}, config={}, notes="")
    artefacts.write_embeddings(words, matrix, path, prov)
    return path


@pytest.fixture()
def run(tmp_path: Path) -> Path:
    composer = COMPOSERS["tree_rnn"](3, torch.Generator().manual_seed(0))
    with torch.no_grad():
        composer.weight.add_(0.3 * torch.randn(3, 6, generator=torch.Generator().manual_seed(1)))
        composer.bias.fill_(0.1)
    config = {"composer": "tree_rnn", "dim": 3}
    torch.save({"config": config, "composer": composer.state_dict()}, tmp_path / "composer.pt")
    _write(tmp_path / "embeddings.parquet")
    return tmp_path


def _reference(run: Path, rows: list[list[int]], trees: list[np.ndarray]) -> np.ndarray:
    state = torch.load(run / "composer.pt", weights_only=True)
    composer = COMPOSERS["tree_rnn"](3)
    composer.load_state_dict(state["composer"])
    flat = torch.tensor([i for r in rows for i in r])
    offsets = torch.tensor(np.cumsum([0, *[len(r) for r in rows][:-1]]))
    built = Trees.build(trees, [len(r) for r in rows])
    batch = TreeBatch.of(
        SegmentBatch(torch.from_numpy(MATRIX)[flat], torch.arange(len(flat)), offsets),
        *built.take(torch.arange(len(rows))),
    )
    with torch.no_grad():
        return composer(batch).numpy()


def test_run_encoder_over_parses_and_right_branching(run):
    encoder = RunEncoder(run)
    sentences = [["big", "cat", "sat"], ["dog", "sat"], ["big", "zebra", "cat"]]
    heads = [[0, 0, 0], [1, 1], [2, 2, 2]]  # ((big cat) sat); (dog sat); big zebra cat
    parsed = encoder.encode(sentences, heads)
    plain = encoder.encode(sentences)
    rows = [[0, 1, 2], [3, 2], [0, 1]]  # zebra is unknown: skipped
    expected = _reference(
        run, rows, [from_dependencies(heads[0]), right_branching(2)] + [right_branching(2)]
    )
    np.testing.assert_allclose(parsed, expected, rtol=1e-5, atol=1e-6)
    right = _reference(run, rows, [right_branching(3), right_branching(2), right_branching(2)])
    np.testing.assert_allclose(plain, right, rtol=1e-5, atol=1e-6)
    assert not np.allclose(parsed[0], plain[0])  # ((big cat) sat) is not (big (cat sat))


def test_phrase_scores_take_the_sets_heads(run):
    sets = pd.DataFrame(
        {
            "set": "annotated-ppdb",
            "subset": "all",
            "split": "test",
            "id": ["a", "b"],
            "s1": ["big cat sat", "dog sat"],
            "s2": ["large cat", "big zebra"],
            "score": [4.0, 2.0],
            "heads1": [[0, 0, 0], [1, 1]],
            "heads2": [[1, 1], [0, 0]],
        }
    )
    encoder = RunEncoder(run)
    scores = phrase_scores(encoder, sets)
    a = encoder.encode([["big", "cat", "sat"], ["dog", "sat"]], [[0, 0, 0], [1, 1]])
    b = encoder.encode([["large", "cat"], ["big", "zebra"]], [[1, 1], [0, 0]])
    np.testing.assert_allclose(scores["pred"], cosine_rows(a, b))
    assert scores["oov"].tolist() == [False, True] and scores["gold"].tolist() == [4.0, 2.0]
    unparsed = phrase_scores(encoder, sets.drop(columns=["heads1", "heads2"]))
    assert not np.allclose(unparsed["pred"].iloc[0], scores["pred"].iloc[0])


def test_word_scores_and_criterion(tmp_path):
    embeddings = _write(tmp_path / "e.parquet")
    pairs = {
        "simlex999": [("big", "large", 7.0), ("cat", "dog", 9.0), ("big", "sat", 1.0)],
        "ws353-sim": [("big", "large", 9.0), ("cat", "dog", 5.0), ("sat", "cat", 2.0)],
        "ws353-rel": [("cat", "sat", 8.0), ("big", "dog", 1.0), ("big", "unknown", 5.0)],
    }
    sets = {}
    for name, rows in pairs.items():
        frame = pd.DataFrame(rows, columns=["w1", "w2", "score"]).assign(dataset=name)
        sets[name] = tmp_path / f"{name}.parquet"
        frame.to_parquet(sets[name])
    scores = word_scores(embeddings, sets)
    unit = MATRIX / np.linalg.norm(MATRIX, axis=1, keepdims=True)
    cos = {(a, b): float(unit[WORDS.index(a)] @ unit[WORDS.index(b)]) for a in WORDS for b in WORDS}
    # SimLex: cosines big-large .993, cat-dog .987, big-sat .640 (ranks 3, 2, 1) against gold
    # 7, 9, 1 (ranks 2, 3, 1): rho = 1 - 6(1 + 1)/(3 * 8) = 0.5
    assert cos["big", "large"] > cos["cat", "dog"] > cos["big", "sat"]
    assert scores["simlex999"]["spearman"] == pytest.approx(0.5)
    assert scores["ws353-rel"]["n"] == 2 and scores["ws353-rel"]["n_oov"] == 1
    ws = 2 * scores["ws353-sim"]["spearman"] - scores["ws353-rel"]["spearman"]
    assert scores["criterion"]["ws"] == pytest.approx(ws)
